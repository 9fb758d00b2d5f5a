"""Screenshot of a run's report, first screen, in headless Chromium (Debian's ``chromium``).

    python docs/screenshot.py runs/<run-id> docs/report-first-screen-qap.png

Writes the run's report (as ``simpop report`` does) and saves the first 1280 x 900 pixels."""

from __future__ import annotations

import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

from simpop.report.html import write_report
from simpop.store import load_run
from simpop.testing.browser import CHROMIUM_FLAGS, chromium


def main(run: str, png: str) -> None:
    browser_path = chromium()
    if browser_path is None:
        sys.exit("no chromium on this machine (apt-get install chromium)")
    report = write_report(load_run(Path(run)))
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=browser_path, args=CHROMIUM_FLAGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.goto(report.as_uri())
        page.wait_for_load_state("load")
        page.screenshot(path=png)
        browser.close()
    print(png)


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2])
