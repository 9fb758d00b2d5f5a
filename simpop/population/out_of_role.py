"""A simulated patient who steps out of the role (issue 71): a message that names the persona's
attributes ("with average health literacy", "my English is at level A2") or that is written by
someone else than a patient or their family ("I am a healthcare provider trying to educate my
patients"). Both are invalid: no real patient writes them, and they tell the bot what it should
not know. English and German wordings; a persona whose own description gives such a role may
write it."""

from __future__ import annotations

import re

_ATTRIBUTES = re.compile(
    r"\b(?:health[- ]literacy|literacy level|(?:cefr|language) level|level [abc][12]\b|"
    r"(?:at|on) (?:an? )?[abc][12] level|non-native (?:speaker|english)|"
    r"gesundheitskompetenz|sprachniveau|niveau [abc][12]\b)",
    re.IGNORECASE,
)
_PROFESSIONAL = re.compile(
    r"\b(?:my patients|our patients|(?:i am|i'm|as) an? (?:doctor|nurse|physician|pharmacist|"
    r"clinician|gp|health ?care (?:provider|professional|worker)|medical (?:professional|student))|"
    r"meine patient(?:en|innen)|(?:ich bin|als) (?:arzt|ärztin|krankenpfleger\w*|pflegefachkraft|"
    r"apotheker\w*))\b",
    re.IGNORECASE,
)
_A_PROFESSION = re.compile(
    r"\b(?:doctor|nurse|physician|pharmacist|clinician|health ?care (?:provider|professional|worker)|"
    r"medical student|arzt|ärztin|krankenpfleger\w*|pflegefachkraft|apotheker\w*)\b",
    re.IGNORECASE,
)


def out_of_role(text: str, vignette: str = "") -> str | None:
    """Why ``text`` is not a patient's message in the persona's role, if it is not."""
    if _ATTRIBUTES.search(text):
        return "names the persona's attributes"
    if _PROFESSIONAL.search(text) and not _A_PROFESSION.search(vignette):
        return "writes as a health professional, not a patient"
    return None
