"""Labelled (message, answer) pairs for the safety judges: simpop's corpus
(``data/safety-labels``, split by patient message into train / dev / test) and a team's own
label file (CSV or JSONL: ``message``, ``answer``, optional ``context``, a yes/no ``label``)."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Literal

from pydantic import ValidationError

from simpop.errors import ConfigError
from simpop.labels.files import BOOLEAN, load_label_file
from simpop.models import Record
from simpop.textfiles import read_text

CORPUS = Path("data/safety-labels")
CORPUS_FILE = "safety-labels.jsonl"
Split = Literal["train", "dev", "test"]
Kind = Literal["emergency", "out_of_scope", "garbled", "answerable"]


class LabelledPair(Record):
    """A (message, answer) pair with one yes/no label, as the judges are evaluated on."""

    id: str
    group: str
    message: str
    answer: str
    label: bool
    kind: str | None = None


class SafetyItem(Record):
    """One labelled exchange of the corpus (fields: ``data/safety-labels/GUIDE.md``)."""

    id: str
    group: str
    split: Split
    kind: Kind
    message: str
    answer: str
    context: str | None = None
    escalated: bool | None
    false_reassurance: bool | None
    refused: bool | None
    clarify: bool | None
    hard_case: str | None = None
    origin: str
    labelled_by: str
    language: str = "en"

    def pair(self, label: bool) -> LabelledPair:
        """This exchange with one yes/no label."""
        return LabelledPair(
            id=self.id,
            group=self.group,
            message=self.message,
            answer=self.answer,
            label=label,
            kind=self.kind,
        )


def load_corpus(folder: Path = CORPUS) -> list[SafetyItem]:
    """The labelled items of the corpus file in ``folder``."""
    path = folder / CORPUS_FILE if folder.is_dir() else folder
    if not path.is_file():
        raise ConfigError(f"{path}: safety label corpus not found")
    items = []
    for number, line in enumerate(read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        try:
            items.append(SafetyItem.model_validate(json.loads(line)))
        except (json.JSONDecodeError, ValidationError) as error:
            raise ConfigError(f"{path} line {number}: {str(error).splitlines()[0]}") from None
    return items


def pairs_for(
    items: list[SafetyItem],
    label: str,
    splits: set[str],
    kinds: set[str] | frozenset[str] | None = None,
    language: str = "en",
) -> list[LabelledPair]:
    """The items of ``splits`` (and ``kinds``) in ``language`` that carry ``label``, as labelled
    pairs."""
    return [
        i.pair(value)
        for i in items
        if i.split in splits
        and i.language == language
        and (kinds is None or i.kind in kinds)
        and (value := getattr(i, label)) is not None
    ]


def load_team_labels(path: Path, columns: dict[str, str]) -> list[LabelledPair]:
    """A team's labelled file: ``message``, ``answer``, optional ``context`` and a yes/no ``label``
    (yes/no, 1/0 or true/false); ``columns`` maps the roles message, answer, context, label, id
    to other column names. Items sharing a message are one group."""
    unknown = sorted(set(columns) - {"message", "answer", "context", "label", "id"})
    if unknown:
        raise ConfigError(
            f"--column {unknown[0]}=…: unknown role (roles: message, answer, context, label, id)"
        )
    roles = {"question": columns.get("message", "message"), "answer": columns.get("answer", "answer")}
    roles |= {r: columns[r] for r in ("context", "id") if r in columns}
    label = columns.get("label", "label")
    pairs = []
    for item in load_label_file(path, roles):
        value = item.labels.get(label, "")
        where = f"{path}, item {item.id}"
        if value == "":
            raise ConfigError(f"{where}: no '{label}' label")
        if BOOLEAN.get(value) is None:
            raise ConfigError(f"{where}, column '{label}': {value!r} is not yes/no, 1/0 or true/false")
        if not item.question.strip() or not item.answer.strip():
            raise ConfigError(f"{where}: a message and an answer are both needed")
        group = hashlib.sha256(item.question.strip().lower().encode()).hexdigest()[:12]
        pairs.append(
            LabelledPair(
                id=item.id,
                group=group,
                message=item.question,
                answer=item.answer,
                label=BOOLEAN[value] == "yes",
            )
        )
    return pairs


def data_hash(pairs: list[LabelledPair]) -> str:
    """The SHA-256 of the labelled pairs (message, answer, label), in order."""
    digest = hashlib.sha256()
    for p in pairs:
        digest.update(json.dumps([p.message, p.answer, p.label], ensure_ascii=False).encode())
    return digest.hexdigest()
