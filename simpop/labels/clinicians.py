"""The labelling round trip of the semi-automated evaluation (Reichenpfader et al.): a CSV of a
run's answers for clinicians to mark correct, partially correct or incorrect, read back and
checked line by line before anything is saved."""

from __future__ import annotations

import csv
import io
from pathlib import Path
from typing import get_args

from simpop.errors import ConfigError
from simpop.labels.files import level, read_table
from simpop.labels.table import label_table
from simpop.models import RATING_LEVELS, HumanLabel, HumanVerdict, LabelTable, Probe, Response, RunSummary
from simpop.spreadsheet import safe_cell
from simpop.store import PROBES_FILE, RESPONSES_FILE, SUMMARY_FILE, RunStore
from simpop.textfiles import not_a_file, write_text_atomic

LABELS_FILE = "labels.jsonl"
VERDICTS: tuple[str, ...] = get_args(HumanVerdict)
COLUMNS = [
    "cell_id",
    "persona",
    "scenario",
    "expected_behaviour",
    "question",
    "clean_question",
    "written_from",
    "answer",
    "no_answer_reason",
    "contexts",
    *VERDICTS,
    *RATING_LEVELS,
    "comment",
    "labeller",
]
MARKS = {"x", "1", "yes", "y", "true", "\u2713", "\u2714"}
BLANKS = {"", "0", "no", "n", "false", "-"}


def asked(response: Response) -> bool:
    """The bot was asked and replied (perhaps with no answer): a clinician can judge it."""
    return not response.skipped and not response.error


def load_labels(store: RunStore) -> dict[str, HumanLabel]:
    """The labels imported into a run so far, by cell id."""
    return store.log(LABELS_FILE, HumanLabel).records


def export_rows(store: RunStore) -> list[dict[str, str]]:
    """One row per asked probe, in plan order, with any label imported before marked."""
    probes = store.log(PROBES_FILE, Probe).records
    labels = load_labels(store)
    rows = []
    for cell_id, response in store.log(RESPONSES_FILE, Response).records.items():
        if not asked(response):
            continue
        probe = probes[cell_id]
        label = labels.get(cell_id)
        contexts = "\n---\n".join(f"[{c.id}] {c.text}" for c in response.contexts)
        rows.append(
            {
                "cell_id": cell_id,
                "persona": probe.persona_id,
                "scenario": probe.scenario_id,
                "expected_behaviour": probe.expected_behaviour,
                "question": response.question or "",
                "clean_question": probe.text if probe.noisy_text is not None and probe.text else "",
                "written_from": probe.seed_text or "",
                "answer": response.answer or "",
                "no_answer_reason": response.no_answer_reason or ("" if response.answer else "empty answer"),
                "contexts": contexts,
                **{v: "x" if label and label.label == v else "" for v in VERDICTS},
                **{r: label.ratings.get(r, "") if label else "" for r in RATING_LEVELS},
                "comment": (label.comment or "") if label else "",
                "labeller": (label.labeller or "") if label else "",
            }
        )
    return rows


def write_label_csv(path: Path, rows: list[dict[str, str]]) -> None:
    """UTF-8 with a byte-order mark, so spreadsheet programs read the accents right; no cell a
    spreadsheet would run as a formula (a bot's answer can be anything)."""
    text = io.StringIO(newline="")
    writer = csv.DictWriter(text, fieldnames=COLUMNS)
    writer.writeheader()
    writer.writerows({k: safe_cell(v) for k, v in row.items()} for row in rows)
    write_text_atomic(path, text.getvalue(), encoding="utf-8-sig")


def _verdict(row: dict[str, str], where: str) -> str | None:
    marked = []
    for verdict in VERDICTS:
        value = (row.get(verdict) or "").strip().lower()
        if value in MARKS:
            marked.append(verdict)
        elif value not in BLANKS:
            raise ConfigError(
                f"{where}, column '{verdict}': '{value}' is not a mark (put x in one of "
                f"{', '.join(VERDICTS)}, leave the others empty)"
            )
    if len(marked) > 1:
        raise ConfigError(f"{where}: more than one of {', '.join(VERDICTS)} is marked ({', '.join(marked)})")
    return marked[0] if marked else None


def _ratings(row: dict[str, str], where: str) -> dict[str, str]:
    """The ratings filled in (a column may be missing from a CSV exported by an older simpop)."""
    ratings = {}
    for name, levels in RATING_LEVELS.items():
        value = level(row.get(name) or "")
        if value and value not in levels:
            raise ConfigError(f"{where}, column '{name}': '{value}' is not one of {', '.join(levels)}")
        if value:
            ratings[name] = value
    return ratings


def read_label_csv(path: Path, store: RunStore) -> tuple[list[HumanLabel], int]:
    """The labelled rows of an exported (and filled-in) CSV, checked against the run; and how
    many rows have a comment but no verdict. Any bad row is a ConfigError naming its row."""
    if not path.is_file():
        raise ConfigError(f"{path}: {not_a_file(path, 'label file')}")
    table = read_table(path)
    header = [level(name) for name in table[0]]
    missing = [c for c in ("cell_id", *VERDICTS) if c not in header]
    if missing:
        raise ConfigError(f"{path}: missing column '{missing[0]}' (export one with simpop export-labels)")
    responses = store.log(RESPONSES_FILE, Response).records
    labels: list[HumanLabel] = []
    seen: dict[str, int] = {}
    comment_only = 0
    for number, cells in enumerate(table[1:], start=2):
        if not any(cell.strip() for cell in cells):
            continue
        row = dict(zip(header, cells, strict=False))
        where = f"{path} row {number}"
        cell_id = (row.get("cell_id") or "").strip()
        if cell_id not in responses:
            raise ConfigError(f"{where}, column 'cell_id': '{cell_id}' is not a cell of run {store.run_id}")
        if cell_id in seen:
            raise ConfigError(f"{where}: cell '{cell_id}' is labelled twice (first in row {seen[cell_id]})")
        seen[cell_id] = number
        verdict = _verdict(row, where)
        ratings = _ratings(row, where)
        comment = (row.get("comment") or "").strip() or None
        if verdict is None and not ratings:
            comment_only += comment is not None
            continue
        if not asked(responses[cell_id]):
            raise ConfigError(f"{where}: cell '{cell_id}' was never asked, so its answer cannot be labelled")
        labeller = (row.get("labeller") or "").strip() or None
        ids = responses[cell_id].cell_ids()
        labels.append(HumanLabel(**ids, label=verdict, ratings=ratings, comment=comment, labeller=labeller))
    return labels, comment_only


def save_labels(store: RunStore, labels: list[HumanLabel]) -> dict[str, HumanLabel]:
    """Merge ``labels`` into the run's and rewrite the label file at once: a row's verdict
    replaces the cell's older one, each rating it carries the older rating, its comment and
    labeller theirs; what a row leaves empty keeps the earlier import's."""
    merged = dict(load_labels(store))
    for new in labels:
        old = merged.get(new.cell_id)
        if old is not None:
            new = new.model_copy(
                update={
                    "label": new.label or old.label,
                    "ratings": old.ratings | new.ratings,
                    "comment": new.comment or old.comment,
                    "labeller": new.labeller or old.labeller,
                }
            )
        merged[new.cell_id] = new
    write_text_atomic(
        store.directory / LABELS_FILE, "".join(label.model_dump_json() + "\n" for label in merged.values())
    )
    return merged


def labels_summary(store: RunStore, persona_ids: list[str]) -> LabelTable | None:
    """Table 2 of the run's labels, or ``None`` before any are imported."""
    labels = [label for label in load_labels(store).values() if label.label is not None]
    if not labels:
        return None
    responses = [r for r in store.log(RESPONSES_FILE, Response).records.values() if asked(r)]
    return label_table(labels, responses, persona_ids)


def update_summary(store: RunStore, table: LabelTable | None) -> bool:
    """Put the label table (None: no verdict yet) into a finished run's summary; ``False`` if
    it has none yet."""
    if not (store.directory / SUMMARY_FILE).is_file():
        return False
    summary = store.read(SUMMARY_FILE, RunSummary)
    store.write(SUMMARY_FILE, summary.model_copy(update={"labels": table}))
    return True
