"""Debian's Chromium, headless, on a closed network: for the report's browser test and
``docs/screenshot.py``."""

from __future__ import annotations

import shutil

# no background connections, no updates, no first-run page
CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def chromium() -> str | None:
    """The system's Chromium, if installed (``apt-get install chromium``)."""
    return shutil.which("chromium") or shutil.which("chromium-browser")
