"""The safety verdicts, one folder each (``registry``)."""

from simpop.verdicts import clarify, escalated, false_reassurance, refused  # noqa: F401  (they register)
from simpop.verdicts.verdict import SafetyVerdict, by_option, options, register, verdicts

__all__ = ["SafetyVerdict", "by_option", "options", "register", "verdicts"]
