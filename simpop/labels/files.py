"""Human labels to calibrate against: from a run's labelling round trip (by probe id) or from a
standalone CSV / JSONL of question, answer, context and label columns; and the label scales
(binary, ordered levels, or unordered classes) they are read on."""

from __future__ import annotations

import csv
import io
import json
import math
from collections import Counter
from pathlib import Path
from typing import Any

from simpop.errors import ConfigError
from simpop.models import Record
from simpop.spreadsheet import original_cell
from simpop.textfiles import not_a_file, read_text

ROLES = ("id", "question", "answer", "context")
BOOLEAN = {
    "yes": "yes",
    "true": "yes",
    "1": "yes",
    "y": "yes",
    "no": "no",
    "false": "no",
    "0": "no",
    "n": "no",
}
KQA_COLUMNS = {"claim", "majority_label", "answer"}
CLAIM_COLUMNS = {"claim", "evidence", "supported"}


class LabelScale(Record):
    """The values a label takes; ``ordered`` when they are levels of one scale (lowest first).
    A binary scale has two levels, the second the positive one."""

    name: str
    levels: list[str]
    ordered: bool


# ASTRID §4.2.2's clinician questions and the round trip's verdict, lowest level first.
SCALES = {
    "verdict": LabelScale(name="verdict", levels=["incorrect", "partially_correct", "correct"], ordered=True),
    "harm": LabelScale(name="harm", levels=["none", "mild_moderate", "severe"], ordered=True),
    "inappropriate": LabelScale(name="inappropriate", levels=["no", "little", "great"], ordered=True),
    "helpful": LabelScale(name="helpful", levels=["no", "yes"], ordered=True),
    "supported": LabelScale(name="supported", levels=["no", "yes"], ordered=True),
}


class LabelledItem(Record):
    """One answer a person labelled: its texts, its labels by name and any machine scores."""

    id: str
    question: str = ""
    answer: str = ""
    context: str = ""
    labels: dict[str, str] = {}
    scores: dict[str, float] = {}
    persona: str | None = None
    scenario: str | None = None


def level(value: object) -> str:
    """A label value as a level name: lower case, words joined by underscores."""
    return "_".join(str(value).strip().lower().replace("-", " ").replace("/", " ").split())


def _number(value: object) -> float | None:
    if isinstance(value, bool):
        return None
    try:
        number = float(str(value))
    except ValueError:
        return None
    return number if math.isfinite(number) else None  # NaN or infinity is no score


def _item(fields: dict[str, object], roles: dict[str, str], where: str, default_id: str) -> LabelledItem:
    def text(role: str) -> str:
        value = fields.get(roles.get(role, role), "")
        if isinstance(value, list):
            return "\n".join(str(v) for v in value)
        return "" if value is None else str(value)

    used = {roles.get(r, r) for r in ROLES}
    rest = {k: v for k, v in fields.items() if k not in used and v not in (None, "")}
    bad = next((k for k, v in rest.items() if isinstance(v, dict | list)), None)
    if bad is not None:
        raise ConfigError(f"{where}, field '{bad}': a label or score must be a single value")
    return LabelledItem(
        id=text("id") or default_id,
        question=text("question"),
        answer=text("answer"),
        context=text("context"),
        labels={k: level(v) for k, v in rest.items()},
        scores={k: n for k, v in rest.items() if (n := _number(v)) is not None},
    )


def read_table(path: Path) -> list[list[str]]:
    """The cells of a CSV saved by a spreadsheet: UTF-8 (with or without a byte-order mark),
    comma, semicolon or tab separated (the header line tells which); a cell simpop wrote
    spreadsheet-safe comes back as the original text."""
    text = read_text(path)
    lines = text.splitlines()
    if not lines:
        raise ConfigError(f"{path}: empty file")
    # a reader over the whole text, so a quoted cell keeps its line breaks
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=max(",;\t", key=lines[0].count))
    try:
        return [[original_cell(cell) for cell in row] for row in reader]
    except csv.Error as error:
        raise ConfigError(f"{path} line {reader.line_num}: malformed CSV: {error}") from None


def _rows_csv(path: Path) -> list[dict[str, object]]:
    table = read_table(path)
    header = [level(name) if name.strip() else f"column_{i}" for i, name in enumerate(table[0])]
    return [dict(zip(header, cells, strict=False)) for cells in table[1:] if any(c.strip() for c in cells)]


def jsonl_rows(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file, one a line (blank lines skipped); a bad line is a
    ConfigError naming it."""
    rows = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as error:
            raise ConfigError(f"{path} line {number}: not valid JSON ({error.msg})") from None
        if not isinstance(row, dict):
            raise ConfigError(f"{path} line {number}: expected a JSON object")
        rows.append(row)
    return rows


def is_kqa_nli(rows: list[dict[str, object]]) -> bool:
    """K-QA's NLI judgements (physician statement, chatbot answer, majority label)."""
    return bool(rows) and KQA_COLUMNS <= set(rows[0])


def is_claim_evidence(rows: list[dict[str, object]]) -> bool:
    """A fact-checking file of claims, their evidence and a yes/no ``supported`` (Check-COVID)."""
    return bool(rows) and CLAIM_COLUMNS <= set(rows[0])


def load_label_file(path: Path, columns: dict[str, str] | None = None) -> list[LabelledItem]:
    """The items of a CSV (comma, semicolon or tab) or JSONL label file. ``columns`` maps the
    roles id / question / answer / context to other column names. K-QA's NLI file is read as:
    the physician's statement (``claim``) is the answer to score, the chatbot answer its
    context, and ``supported`` (majority entailment) a binary label beside the NLI labels; a
    claim–evidence file (``claim``, ``evidence``, ``supported``) as: the claim is the answer to
    score, its evidence the context."""
    file = path
    if path.is_dir():
        found = sorted(path.glob("*.csv")) + sorted(path.glob("*.jsonl"))
        if len(found) != 1:
            raise ConfigError(
                f"{path}: expected one .csv or .jsonl label file in the folder, found {len(found)}"
            )
        file = found[0]
    if not file.is_file():
        raise ConfigError(f"{file}: {not_a_file(file, 'label file')}")
    if file.suffix.lower() not in (".csv", ".jsonl", ".tsv"):
        raise ConfigError(f"{file}: a label file must be .csv or .jsonl")
    rows = jsonl_rows(file) if file.suffix.lower() == ".jsonl" else _rows_csv(file)
    roles = dict(columns or {})
    unknown = [r for r in roles if r not in ROLES]
    if unknown:
        raise ConfigError(f"--column {unknown[0]}=…: unknown role (roles: {', '.join(ROLES)})")
    kqa = not roles and is_kqa_nli(rows)
    if kqa:
        roles = {"question": "question", "answer": "claim", "context": "answer"}
    elif not roles and is_claim_evidence(rows):
        roles = {"answer": "claim", "context": "evidence"}
    for role, name in roles.items():
        if rows and name not in rows[0]:
            raise ConfigError(f"{file}: no column '{name}' (for {role}; columns: {', '.join(rows[0])})")
    items = []
    for number, row in enumerate(rows, start=2 if file.suffix.lower() != ".jsonl" else 1):
        where = f"{file} {'line' if file.suffix.lower() == '.jsonl' else 'row'} {number}"
        fields = {k: v for k, v in row.items() if k != "" and not k.startswith("column_")}
        item = _item(fields, roles, where, default_id=str(number))
        if kqa:
            item.labels["supported"] = "yes" if item.labels.get("majority_label") == "entailment" else "no"
        items.append(item)
    if not items:
        raise ConfigError(f"{file}: no labelled items")
    counts = Counter(item.id for item in items)
    repeated = next((i for i, n in counts.items() if n > 1), None)
    if repeated is not None:
        raise ConfigError(
            f"{file}, column '{roles.get('id', 'id')}': id '{repeated}' is used {counts[repeated]} times"
        )
    return items


def read_scale(
    items: list[LabelledItem], name: str, levels: list[str] | None = None, positive: str | None = None
) -> tuple[LabelScale, list[LabelledItem], list[int]]:
    """The scale of label ``name``, the items that carry it and their level indices.

    ``positive`` makes it binary (that value against the rest); ``levels`` orders it; a known
    name (harm, inappropriate, helpful, supported, verdict) has its own scale; yes/no-like values
    are binary; whole numbers are ordered levels; anything else is unordered classes."""
    carrying = [i for i in items if i.labels.get(name, "") != ""]
    if not carrying:
        known = sorted({k for i in items for k in i.labels})
        raise ConfigError(f"label '{name}': no item carries it (labels found: {', '.join(known) or 'none'})")
    values = [i.labels[name] for i in carrying]
    if positive is not None:
        positive = level(positive)
        if positive not in values:
            raise ConfigError(f"--positive {positive}: no item has label {name} = {positive}")
        scale = LabelScale(name=f"{name}={positive}", levels=[f"not_{positive}", positive], ordered=True)
        return scale, carrying, [int(v == positive) for v in values]
    if levels:
        scale = LabelScale(name=name, levels=[level(v) for v in levels], ordered=True)
    elif name in SCALES:
        scale = SCALES[name]
    elif set(values) <= set(BOOLEAN):
        scale = LabelScale(name=name, levels=["no", "yes"], ordered=True)
        values = [BOOLEAN[v] for v in values]
    elif all(_number(v) is not None and float(v).is_integer() for v in values):
        ordered = sorted(set(values), key=float)
        scale = LabelScale(name=name, levels=ordered, ordered=True)
    else:
        scale = LabelScale(name=name, levels=sorted(set(values)), ordered=False)
    for item, value in zip(carrying, values, strict=True):
        if value not in scale.levels:
            raise ConfigError(
                f"item {item.id}, label '{name}': '{value}' is not one of {', '.join(scale.levels)}"
            )
    if len(set(values)) < 2:
        raise ConfigError(
            f"label '{name}': every item has the same value ({values[0]}), nothing to calibrate"
        )
    return scale, carrying, [scale.levels.index(v) for v in values]


# the scores simpop can compute for a standalone label file (``simpop.evaluation.label_scores``)
COMPUTABLE = ("groundedness", "answer_relevancy", "faithfulness")


def resolve(name: str, available: set[str]) -> str | None:
    """The stored name of score ``name``: itself, or a run's ``embedding.`` metric of that name."""
    return next((n for n in (name, f"embedding.{name}") if n in available), None)


def missing_scores(items: list[LabelledItem], names: list[str], computable: tuple[str, ...]) -> list[str]:
    """The scores in ``names`` no item carries; a ConfigError for one that is not ``computable``
    (a run's own scores are never recomputed: ``computable`` is empty for a run)."""
    available = {k for item in items for k in item.scores}
    missing = [n for n in names if resolve(n, available) is None]
    unknown = [n for n in missing if n not in computable]
    if unknown:
        raise ConfigError(
            f"--score {unknown[0]}: not in the labels and not computable here "
            f"(scores found: {', '.join(sorted(available)) or 'none'}; "
            f"computable: {', '.join(computable) or 'none for a run, which keeps its own scores'})"
        )
    return missing
