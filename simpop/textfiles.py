"""Reading a user's text file: UTF-8 (a byte-order mark allowed), or one line that names the
file and where its first undecodable byte is; a path that is a symlink loop, one line naming it.
Writing one so that a reader never sees half of it."""

from __future__ import annotations

import contextlib
import errno
import os
from pathlib import Path

from simpop.errors import ConfigError, SimpopError
from simpop.redact import redact


def symlink_loop(path: Path) -> ConfigError:
    """The error of a ``path`` whose links lead back to themselves, naming it in full."""
    return ConfigError(f"{path.absolute()}: a symlink loop (its links lead back to themselves)")


def real_path(path: Path) -> Path:
    """``path`` made absolute with its links followed; a ConfigError naming it for a symlink loop."""
    try:
        return path.resolve()
    except RuntimeError:  # Python 3.11 and 3.12 say a loop so
        raise symlink_loop(path) from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise symlink_loop(path) from None
        raise


def not_a_file(path: Path, what: str = "file") -> str:
    """Why ``path``, which is no regular file, cannot be read as one: a folder, something else
    (a device, a pipe), or nothing (``what`` not found)."""
    if path.is_dir():
        return "is a folder, not a file"
    return "is not a regular file" if path.exists() else f"{what} not found"


def read_text(path: Path) -> str:
    """The text of ``path``; a ConfigError for a missing file, a symlink loop or one that is not UTF-8."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise ConfigError(f"{path}: file not found") from None
    except IsADirectoryError:
        raise ConfigError(f"{path}: is a folder, not a file") from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise symlink_loop(path) from None
        raise
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        line = raw[: error.start].count(b"\n") + 1
        raise ConfigError(
            f"{path}: not UTF-8 text (byte 0x{raw[error.start]:02x} on line {line}); save it as UTF-8"
        ) from None


def write_text_atomic(path: Path, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` so a reader never sees half a file (a device or a pipe, such
    as /dev/null, is written to, never replaced by a file); a failure is a SimpopError."""
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        if path.exists() and (path.is_char_device() or path.is_fifo()):
            with path.open("w", encoding=encoding, newline="") as device:
                device.write(redact(text))
            return path
        with tmp.open("w", encoding=encoding, newline="") as handle:
            handle.write(redact(text))
        os.replace(tmp, path)
    except OSError as error:
        with contextlib.suppress(OSError):  # on a read-only file system even this fails
            tmp.unlink(missing_ok=True)
        raise SimpopError(f"cannot write {path}: {error.strerror or error}") from None
    return path
