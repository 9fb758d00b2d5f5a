"""Errors a user can act on. The CLI prints their message on one line and exits with status 2."""


class SimpopError(Exception):
    """Bad input or an unusable environment, described in one line for the user; ``details``:
    every problem found, for ``simpop --verbose``."""

    def __init__(self, message: str, details: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.details = details


class ConfigError(SimpopError):
    """A config, persona or data file is missing, malformed or has a bad field."""


class ModelIntegrityError(SimpopError):
    """A built-in model file is missing or does not match its recorded hash."""
