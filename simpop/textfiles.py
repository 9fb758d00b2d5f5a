"""Reading a user's text file: UTF-8 (a byte-order mark allowed), or one line that names the
file and where its first undecodable byte is."""

from __future__ import annotations

from pathlib import Path

from simpop.errors import ConfigError


def read_text(path: Path) -> str:
    """The text of ``path``; a ConfigError for a missing file or one that is not UTF-8."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a file") from None
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{raw[error.start]:02x} on line {line}); save it as UTF-8"
        ) from None
