"""The labelling round trip: ``simpop export-labels`` and ``simpop import-labels`` on a run
made against a fake LLM on 127.0.0.1, with every kind of bad label file."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest
from helpers import ROOT, assert_one_line_error, simpop, write_config

from simpop.labels.clinicians import COLUMNS
from simpop.testing.fake_openai import FakeOpenAIServer, Reply
from simpop.testing.patients import count, reworded, with_judges

PERSONAS = ["high-literacy", "low-literacy"]


def same_question(request: dict) -> Reply:
    """Every message of a group is the same rewording of the seed: variant 0 is asked, variant 1
    is a duplicate."""
    return Reply(json.dumps({"questions": [reworded(request)[0]] * count(request)}))


@pytest.fixture(scope="module")
def finished_run(tmp_path_factory) -> Path:
    """A QAP run: 3 seeds x 2 personas x 2 variants = 12 cells, 6 asked, 6 skipped duplicates
    (--no-cache: other tests of the session ask the same prompts with other fake replies)."""
    project = tmp_path_factory.mktemp("labels")
    shutil.copytree(ROOT / "personas", project / "personas")
    (project / "data").mkdir()
    shutil.copy(ROOT / "data/medquad-eye/qaps.jsonl", project / "data/qaps.jsonl")
    with FakeOpenAIServer(default=with_judges(same_question)) as llm:
        config = (
            "name: lab\ntarget: {kind: qap, qaps: data/qaps.jsonl}\npersonas: personas\nvariants: 2\n"
            f"limit: 3\nscenarios: []\nllm: {{base_url: '{llm.base_url}'}}\n"
        )
        path = write_config(project, config)
        result = simpop("run", str(path), "--personas", ",".join(PERSONAS), "--no-cache", cwd=project)
    assert result.returncode == 0, result.stderr
    [run] = (project / "runs").iterdir()
    return run


@pytest.fixture
def run_dir(finished_run: Path, tmp_path: Path) -> Path:
    """A fresh copy of the finished run for each test."""
    copy = tmp_path / "runs" / finished_run.name
    shutil.copytree(finished_run, copy)
    return copy


def read_rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="", encoding="utf-8-sig") as handle:
        return list(csv.DictReader(handle))


def write_rows(path: Path, rows: list[dict[str, str]], delimiter: str = ",", header=None) -> Path:
    header = header or list(rows[0])
    with path.open("w", newline="", encoding="utf-8") as handle:
        writer = csv.writer(handle, delimiter=delimiter)
        writer.writerow(header)
        writer.writerows([[row.get(c, "") for c in header] for row in rows])
    return path


def export(run_dir: Path) -> list[dict[str, str]]:
    result = simpop("export-labels", str(run_dir), cwd=run_dir.parent)
    assert result.returncode == 0, result.stderr
    return read_rows(run_dir / "labels.csv")


def test_export_writes_one_row_per_asked_probe(run_dir):
    rows = export(run_dir)
    responses = {r["cell_id"]: r for r in map(json.loads, (run_dir / "responses.jsonl").open())}
    asked = [cid for cid, r in responses.items() if not r["skipped"] and not r["error"]]
    assert len(asked) == 6 and [r["cell_id"] for r in rows] == asked
    assert list(rows[0]) == COLUMNS
    for row in rows:
        response = responses[row["cell_id"]]
        assert row["question"] == response["question"]
        assert row["answer"] == (response["answer"] or "")
        assert row["correct"] == row["partially_correct"] == row["incorrect"] == ""
    # an existing file is not overwritten
    again = simpop("export-labels", str(run_dir), cwd=run_dir.parent)
    assert_one_line_error(again, "labels.csv: exists")
    forced = simpop("export-labels", str(run_dir), "--force", cwd=run_dir.parent)
    none = sum(not r["answer"] for r in responses.values() if r["cell_id"] in asked)
    said = f"6 answers ({none} of them no answer: is that right?)" if none else "6 answers → "
    assert said in " ".join(forced.stdout.split())


def test_import_shows_table_2_per_persona_and_merges_later_labels(run_dir):
    rows = export(run_dir)
    by_persona = {p: [r for r in rows if r["persona"] == p] for p in PERSONAS}
    high, low = by_persona["high-literacy"], by_persona["low-literacy"]
    # high literacy: correct, correct, incorrect; low literacy: partially correct, one unlabelled,
    # one with a comment only. Marks as spreadsheets write them; semicolons as a German Excel does.
    high[0]["correct"], high[1]["correct"], high[2]["incorrect"] = "x", "X", "\u2713"
    low[0]["partially_correct"], low[0]["comment"], low[0]["labeller"] = "1", "leaves out drops", "dr a"
    low[2]["comment"] = "not sure"
    for row in low[1:]:
        row["incorrect"] = "0"  # a zero is not a mark
    filled = write_rows(run_dir.parent / "filled.csv", high + low, delimiter=";")
    result = simpop(
        "import-labels", run_dir.name, str(filled), "--runs", str(run_dir.parent), cwd=run_dir.parent
    )
    assert result.returncode == 0, result.stderr
    assert "1 rows have a comment but no label" in result.stderr
    table = json.loads((run_dir / "summary.json").read_text())["labels"]
    rows_by_group = {row["group"]: row for row in [*table["personas"], table["total"]]}
    high_row, low_row, total = (
        rows_by_group["high-literacy"],
        rows_by_group["low-literacy"],
        rows_by_group["total"],
    )
    assert (high_row["questions"], high_row["labelled"], high_row["correct"], high_row["incorrect"]) == (
        3,
        3,
        2,
        1,
    )
    assert high_row["correct_share"] == pytest.approx(2 / 3, abs=1e-4)
    assert (low_row["labelled"], low_row["partially_correct"], low_row["partially_correct_share"]) == (
        1,
        1,
        1.0,
    )
    assert (total["questions"], total["labelled"], total["correct"]) == (6, 4, 2)
    assert total["correct_share"] == 0.5 and total["incorrect_share"] == 0.25
    assert "human labels" in result.stdout and "2 (67%)" in result.stdout
    labels = [json.loads(line) for line in (run_dir / "labels.jsonl").open()]
    assert {
        (x["label"], x["comment"], x["labeller"]) for x in labels if x["persona_id"] == "low-literacy"
    } == {("partially_correct", "leaves out drops", "dr a")}
    # a new export carries the labels; a second import with one changed verdict replaces it
    second = simpop(
        "export-labels", str(run_dir), "-o", str(run_dir.parent / "again.csv"), cwd=run_dir.parent
    )
    assert second.returncode == 0, second.stderr
    again = read_rows(run_dir.parent / "again.csv")
    assert sum(1 for r in again if r["correct"] == "x") == 2
    changed = next(r for r in again if r["incorrect"] == "x")
    changed["incorrect"], changed["correct"] = "", "x"
    write_rows(run_dir.parent / "changed.csv", [changed])
    result = simpop("import-labels", str(run_dir), str(run_dir.parent / "changed.csv"), cwd=run_dir.parent)
    assert result.returncode == 0, result.stderr
    total = json.loads((run_dir / "summary.json").read_text())["labels"]["total"]
    assert (total["labelled"], total["correct"], total["incorrect"]) == (4, 3, 0)


def test_a_later_import_of_ratings_alone_keeps_the_verdicts_and_the_reverse(run_dir):
    """A row replaces what it carries and keeps what it leaves empty: a ratings-only file after
    a verdict file loses no verdict, a verdict-only file after it loses no rating."""
    rows = export(run_dir)
    rows[0]["correct"], rows[0]["comment"] = "x", "fine"
    write_rows(run_dir.parent / "verdicts.csv", [rows[0]])
    assert (
        simpop(
            "import-labels", str(run_dir), str(run_dir.parent / "verdicts.csv"), cwd=run_dir.parent
        ).returncode
        == 0
    )
    rated = dict(rows[0], correct="", comment="", harm="none", helpful="yes")
    write_rows(run_dir.parent / "ratings.csv", [rated])
    result = simpop("import-labels", str(run_dir), str(run_dir.parent / "ratings.csv"), cwd=run_dir.parent)
    assert result.returncode == 0, result.stderr
    [label] = [json.loads(line) for line in (run_dir / "labels.jsonl").open()]
    assert (label["label"], label["comment"], label["ratings"]) == (
        "correct",
        "fine",
        {"harm": "none", "helpful": "yes"},
    )
    assert json.loads((run_dir / "summary.json").read_text())["labels"]["total"]["correct"] == 1
    flipped = dict(rows[0], correct="", incorrect="x", comment="")
    write_rows(run_dir.parent / "flipped.csv", [flipped])
    assert (
        simpop(
            "import-labels", str(run_dir), str(run_dir.parent / "flipped.csv"), cwd=run_dir.parent
        ).returncode
        == 0
    )
    [label] = [json.loads(line) for line in (run_dir / "labels.jsonl").open()]
    assert (label["label"], label["ratings"]) == ("incorrect", {"harm": "none", "helpful": "yes"})
    total = json.loads((run_dir / "summary.json").read_text())["labels"]["total"]
    assert (total["correct"], total["incorrect"]) == (0, 1)


def skipped_cell(run_dir: Path) -> str:
    return next(r["cell_id"] for r in map(json.loads, (run_dir / "responses.jsonl").open()) if r["skipped"])


@pytest.mark.parametrize(
    ("edit", "message"),
    [
        (lambda rows, run: None, "nowhere.csv: label file not found"),
        (
            lambda rows, run: rows[0].update(cell_id="abc123"),
            "row 2, column 'cell_id': 'abc123' is not a cell of run",
        ),
        (lambda rows, run: rows[1].update(correct="maybe"), "row 3, column 'correct': 'maybe' is not a mark"),
        (lambda rows, run: rows[0].update(correct="x", incorrect="x"), "row 2: more than one of correct"),
        (lambda rows, run: rows.append(dict(rows[0])), "row 8: cell"),
        (lambda rows, run: rows[2].update(cell_id=skipped_cell(run)), "row 4: cell"),
        (lambda rows, run: [r.update(correct="") for r in rows], "no labelled rows"),
    ],
)
def test_bad_label_files_are_one_line_errors_and_keep_earlier_labels(run_dir, edit, message):
    rows = export(run_dir)
    rows[0]["correct"] = "x"
    good = write_rows(run_dir.parent / "good.csv", rows)
    assert simpop("import-labels", str(run_dir), str(good), cwd=run_dir.parent).returncode == 0
    before = (run_dir / "labels.jsonl").read_bytes(), (run_dir / "summary.json").read_bytes()
    for row in rows:
        row["correct"] = "x"
    edit(rows, run_dir)
    bad = run_dir.parent / ("nowhere.csv" if "not found" in message else "bad.csv")
    if "not found" not in message:
        write_rows(bad, rows)
    result = simpop("import-labels", str(run_dir), str(bad), cwd=run_dir.parent)
    assert_one_line_error(result, message)
    assert ((run_dir / "labels.jsonl").read_bytes(), (run_dir / "summary.json").read_bytes()) == before


def test_label_file_of_another_shape_is_one_line_error(run_dir):
    rows = export(run_dir)
    header = [c for c in COLUMNS if c != "incorrect"]
    path = write_rows(run_dir.parent / "cut.csv", rows, header=header)
    assert_one_line_error(
        simpop("import-labels", str(run_dir), str(path), cwd=run_dir.parent), "missing column 'incorrect'"
    )
    latin = run_dir.parent / "latin.csv"
    latin.write_bytes(",".join(COLUMNS).encode() + b"\nx,caf\xe9\n")
    assert_one_line_error(simpop("import-labels", str(run_dir), str(latin), cwd=run_dir.parent), "not UTF-8")
    assert not (run_dir / "labels.jsonl").exists()
