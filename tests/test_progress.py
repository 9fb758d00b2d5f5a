"""Progress outside a terminal: plain lines with rates since the stage started."""

from __future__ import annotations

import io

import pytest
from rich.console import Console

from simpop.cli.progress import LineProgress, duration, progress_display, rate
from simpop.run.tasks import stage_progress


def test_plain_lines_every_five_percent_and_when_done(capsys):
    progress = progress_display(Console(file=io.StringIO()))  # not a terminal
    assert isinstance(progress, LineProgress)
    with progress:
        advance = stage_progress(progress, "ask bot", 40, 0)
        for _ in range(40):
            advance()
    lines = capsys.readouterr().err.splitlines()
    # 40 items: a line every 2 (5 %), the last one says done
    assert len(lines) == 20
    assert lines[0].startswith("ask bot: 2/40 (5%), ") and lines[0].endswith(" left")
    assert lines[-1].startswith("ask bot: 40/40 done in ")


def test_rate_leaves_out_what_a_resumed_run_had_done():
    progress = LineProgress(Console(file=io.StringIO()))
    task_id = progress.add_task("score", total=100, completed=90, resumed=90)
    task = progress.tasks[0]
    task.start_time -= 10.0  # started ten seconds ago
    progress.advance(task_id, 5)
    assert rate(task) == pytest.approx(0.5, rel=0.01)  # 5 in 10 s, not 95


def test_duration():
    assert [duration(s) for s in (None, 12, 580, 3725)] == ["–", "12s", "9m 40s", "1h 02m"]
