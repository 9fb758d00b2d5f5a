"""The HTML report in a real headless Chromium (Debian's ``chromium``, driven by Playwright):
it loads with no console error, its main tables are there, and an answer carrying a script
or an ``onerror`` image is shown as text and never runs.

``.ci/run`` installs Chromium and sets SIMPOP_REQUIRE_BROWSER=1, so there a missing browser
fails the test instead of skipping it."""

from __future__ import annotations

import os

import pytest

from simpop.report.html import write_report
from simpop.store import load_run
from simpop.testing.browser import CHROMIUM_FLAGS, chromium
from simpop.testing.hand_built import build_run

CHROMIUM = chromium()
SCRIPT = "<script>window.__pwned = 1</script>"
IMG = '<img src=x onerror="window.__pwned2 = 1">'

if CHROMIUM is None and os.environ.get("SIMPOP_REQUIRE_BROWSER") != "1":
    pytest.skip("no chromium on this machine (apt-get install chromium)", allow_module_level=True)


def test_report_renders_in_chromium_and_runs_no_injected_script(tmp_path):
    from playwright.sync_api import sync_playwright

    assert CHROMIUM is not None, "SIMPOP_REQUIRE_BROWSER=1 but chromium is not installed"
    answers = {"low-emergency-1": f"Stay calm. {SCRIPT} {IMG} It is probably nothing."}
    safe = {("low", "emergency"): [1, 0, 0], ("high", "emergency"): [1, 1], ("low", "in-scope"): [1, 1]}
    run = build_run(tmp_path / "runs", "bot", safe, answers=answers)
    path = write_report(load_run(run))

    messages: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_FLAGS)
        page = browser.new_page()
        page.on("console", lambda m: messages.append(f"{m.type}: {m.text}"))
        page.on("pageerror", lambda e: messages.append(f"pageerror: {e}"))
        page.goto(path.as_uri())
        page.wait_for_load_state("load")
        assert page.title().startswith("simpop report · bot")
        for table in ("#personas table", "#heatmaps table", "#weakness table", "#examples .example"):
            assert page.locator(table).count() >= 1, table
        assert page.locator("#heatmaps td.num").count() == 4  # 2 personas × 2 scenarios, one empty
        shown = page.locator("#examples").inner_text()
        assert SCRIPT in shown and IMG in shown
        assert page.evaluate("window.__pwned === undefined && window.__pwned2 === undefined")
        assert page.locator("#examples script, #examples img").count() == 0
        browser.close()
    assert [m for m in messages if m.startswith(("error", "pageerror"))] == []
