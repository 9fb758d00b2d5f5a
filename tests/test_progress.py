"""Progress outside a terminal: plain lines with rates since the stage started."""

from __future__ import annotations

import io

import pytest
from rich.console import Console
from rich.progress import Progress

from simpop.cli.progress import (
    LINE_EVERY_S,
    LineProgress,
    SampledProgress,
    duration,
    modelled_times_left,
    pace,
    progress_display,
    rate,
)
from simpop.cli.shared_llm import StageState, own_time_left, times_left
from simpop.run.tasks import stage_progress


def test_plain_lines_tell_every_stage_at_work_in_one_line_and_each_stage_when_done(capsys):
    """Issue 70: off a terminal three stages were three lines every 10 seconds (283 lines for 22
    cells), and a slow stage read 0.0/s."""
    clock = [0.0]
    progress = progress_display(Console(file=io.StringIO()))  # not a terminal
    assert isinstance(progress, LineProgress)
    progress = LineProgress(Console(file=io.StringIO()), get_time=lambda: clock[0])
    with progress:
        ask = stage_progress(progress, "ask bot", 40, 0)
        judge = stage_progress(progress, "score answers", 40, 0)
        for i in range(40):
            clock[0] += 2.0  # a slow bot: one answer every two seconds
            if i % 2:
                judge()
            ask()
    lines = capsys.readouterr().err.splitlines()
    assert lines[-1] == "ask bot: 40/40 done in 1m 20s"
    status = lines[:-1]
    assert 3 <= len(status) <= 80 / LINE_EVERY_S  # a line at most every LINE_EVERY_S seconds
    assert all(line.startswith("ask bot: ") and " · score answers: " in line for line in status)
    assert status[0].startswith("ask bot: 5/40 (12%), 30.0/min, ") and status[0].endswith(" left")
    assert "0.0/s" not in "\n".join(lines)
    assert [pace(x) for x in (None, 0.004, 0.5, 2.25)] == ["–/s", "0.2/min", "30.0/min", "2.2/s"]


def test_rate_leaves_out_what_a_resumed_run_had_done():
    progress = LineProgress(Console(file=io.StringIO()))
    task_id = progress.add_task("score", total=100, completed=90, resumed=90)
    task = progress.tasks[0]
    task.start_time -= 10.0  # started ten seconds ago
    progress.advance(task_id, 5)
    assert rate(task) == pytest.approx(0.5, rel=0.01)  # 5 in 10 s, not 95


def test_duration():
    assert [duration(s) for s in (None, 12, 580, 3725)] == ["–", "12s", "9m 40s", "1h 02m"]


# --- times left with the stages sharing one LLM (issue 45) --------------------------------------


def test_one_stage_alone_keeps_its_measured_pace_pulled_toward_the_plans():
    # 50 items of 1 planned LLM second done in 100 s, and 8 more at the plan's pace (8 s):
    # 108 / 58 wall seconds per planned second, so the other 50 take 93.1 s (100 at the
    # measured pace alone)
    [left] = times_left([StageState(total=100, done=50, resumed=0, elapsed=100.0, cost=1.0)])
    assert left == pytest.approx(50 * 108 / 58, abs=0.5)


def test_a_window_with_one_burst_or_none_leans_on_the_plan():
    """The main command's first minutes: 4 slots end their first groups together after a minute.
    With 4 of 22 items of 13.6 planned seconds done in 100 s the measured pace alone says
    100 / 54.4 = 1.84 wall seconds per planned second; with 8 items at the plan's: 1.32."""
    stage = StageState(total=22, done=4, resumed=0, elapsed=100.0, cost=13.6)
    [left] = times_left([stage])
    assert left == pytest.approx(18 * 13.6 * (100 + 8 * 13.6) / (4 * 13.6 + 8 * 13.6), rel=0.01)
    # nothing done yet: the plan's time, stretched by the seconds already waited
    [left] = times_left([StageState(total=22, done=0, resumed=0, elapsed=60.0, cost=13.6)])
    assert left == pytest.approx(22 * 13.6 * (60 + 8 * 13.6) / (8 * 13.6), rel=0.01)


def test_a_stage_sharing_the_llm_with_a_backlog_slows_to_half():
    """Question writing at 90/100 with 60 answers waiting for the judges: at its own average it
    would take 11 s more; sharing the LLM half and half, its 10 items take 2 × 10 × 0.833 s."""
    writing = StageState(total=100, done=90, resumed=0, elapsed=100.0, cost=1.0)
    judging = StageState(total=100, done=30, resumed=0, elapsed=100.0, cost=1.0)
    # pace: 100 + 8 s for 90 + 30 + 8 planned seconds = 0.844 wall seconds per planned second
    assert own_time_left(writing) == pytest.approx(11.1, abs=0.1)
    left_writing, left_judging = times_left([writing, judging])
    assert left_writing == pytest.approx(2 * 10 * 108 / 128, rel=0.03)
    # the judges finish when all the LLM work left is done: (10 + 70) × 0.844 s
    assert left_judging == pytest.approx(80 * 108 / 128, rel=0.03)


def test_a_stage_without_llm_calls_finishes_with_the_stage_before_it_or_its_own_rate():
    writing = StageState(total=100, done=50, resumed=0, elapsed=100.0, cost=1.0)
    quick_bot = StageState(total=100, done=50, resumed=0, elapsed=100.0, cost=0.0)
    left_writing, left = times_left([writing, quick_bot])
    # nothing waits for it: it ends with the questions (93 s), though its own rate (gated by
    # theirs) says 100 s
    assert left == pytest.approx(left_writing, abs=1.0)
    assert left == pytest.approx(50 * 108 / 58, abs=1.0)
    slow_bot = StageState(total=100, done=10, resumed=0, elapsed=100.0, cost=0.0)
    _, left = times_left([writing, slow_bot])
    assert left == pytest.approx(900.0)  # 40 questions wait for it: 90 left at its own 0.1 a second


def test_without_the_plans_seconds_each_stage_keeps_its_own_rate():
    stages = [
        StageState(total=100, done=90, resumed=0, elapsed=100.0, cost=None),
        StageState(total=100, done=30, resumed=0, elapsed=100.0, cost=1.0),
    ]
    assert times_left(stages) == [pytest.approx(100 / 9), pytest.approx(700 / 3)]


def test_the_line_display_models_the_stages_named_in_the_plan():
    clock = [0.0]
    progress = Progress(get_time=lambda: clock[0], disable=True)
    writing = progress.add_task("generate questions", total=100, stage="write questions", resumed=0)
    judging = progress.add_task("score answers", total=100, stage="judges", resumed=0)
    other = progress.add_task("explain verdicts", total=10, resumed=0)
    clock[0] = 100.0
    progress.advance(writing, 90)
    progress.advance(judging, 30)
    progress.advance(other, 5)
    # the plan: 100 planned seconds for each stage's 100 items, 1 per item
    left = modelled_times_left(progress.tasks, {"write questions": 100.0, "judges": 100.0})
    assert left[writing] == pytest.approx(2 * 10 * 108 / 128, rel=0.03)
    assert left[judging] == pytest.approx(80 * 108 / 128, rel=0.03)
    assert left[other] == pytest.approx(100.0)  # no stage: 5 left at its own 0.05 a second


def test_the_terminal_bars_show_the_modelled_time_left():
    bars = progress_display(Console(file=io.StringIO(), force_terminal=True), {"write questions": 100.0})
    [*_, column] = bars.columns
    task_id = bars.add_task("generate questions", total=100, stage="write questions", resumed=0)
    task = bars.tasks[0]
    task.start_time -= 100.0
    bars.advance(task_id, 50)
    # 50 of 100 planned LLM seconds ended at 100 s: in the latest third of the time (33.3 s),
    # and 8 at the plan's pace: the other 50 take 50 × 41.3 / 58 = 36 s
    assert column.render(task).plain == "eta 36s"


def test_the_pace_is_the_recent_one():
    """A run slowed at its start (other work on the machine): 30 items in its first 200 s, 60 in
    the last 100 s. At its recent 0.6 items a second (and 8 at the plan's pace) the other 60
    take 60 × 108 / 68 = 95 s, not 200."""
    clock = [0.0]
    progress = SampledProgress(get_time=lambda: clock[0], disable=True, plan={"write questions": 150.0})
    task_id = progress.add_task("generate questions", total=150, stage="write questions", resumed=0)
    for second in range(10, 301, 10):
        clock[0] = float(second)
        if second > 200 or second % 20 == 0:
            progress.advance(task_id, 3 if second <= 200 else 6)
    [left] = progress.times_left().values()
    assert left == pytest.approx(60 * 108 / 68, rel=0.01)
    since_start = modelled_times_left(progress.tasks, progress.plan)  # no samples: since the start
    assert since_start[task_id] == pytest.approx(60 * 308 / 98, rel=0.01)
    # a stage with no plan keeps its own recent rate too
    stage = StageState(total=150, done=90, resumed=0, elapsed=300.0, cost=None, recent=(100.0, 60))
    assert own_time_left(stage) == pytest.approx(100.0)


def test_a_burst_of_items_gets_a_new_time_left_at_once():
    """Items that end together (a stage's cases waiting on one LLM) are shown with the time left
    their burst gives, not the one from before it (the main command's "explain verdicts" read
    4 minutes left where 13 seconds were)."""
    clock = [0.0]
    progress = SampledProgress(get_time=lambda: clock[0], disable=True)
    task_id = progress.add_task("explain verdicts", total=22, resumed=0)
    clock[0] = 10.0
    progress.advance(task_id, 2)
    [slow] = progress.times_left().values()
    progress.advance(task_id, 6)  # within the same second
    [after] = progress.times_left().values()
    assert slow == pytest.approx(20 * 10 / 2)
    assert after == pytest.approx(14 * 10 / 8)


def test_a_stage_with_nothing_done_yet_does_not_stretch_the_window_of_one_at_work():
    """The main command's third minute: questions end in bursts, the judges have answered
    nothing. Every stage's window is the run's latest third (the 50 s since 100 s: the writing
    did 2 items in it, the judges none), not the judges' 150 seconds since their start, which
    stretched the writing's (it read 42 minutes where 5 were left)."""
    clock = [0.0]
    plan = {"write questions": 22 * 13.6, "judges": 22 * 5.5}
    progress = SampledProgress(get_time=lambda: clock[0], disable=True, plan=plan)
    writing = progress.add_task("generate questions", total=22, stage="write questions", resumed=0)
    judging = progress.add_task("score answers", total=22, stage="judges", resumed=0)
    for second, items in ((60, 4), (110, 1), (140, 1)):
        clock[0] = float(second)
        progress.advance(writing, items)
    clock[0] = 150.0
    left = progress.times_left()
    pace = (50 + 8 * 13.6) / (2 * 13.6 + 8 * 13.6)
    # the LLM is never idle until the judges end: all the work left, at that pace
    assert left[judging] == pytest.approx((16 * 13.6 + 22 * 5.5) * pace, rel=0.02)
    assert left[writing] < left[judging]
