"""Precision and recall of the simulated patient's per-turn checks (issue 22) against a reader's
labels of messages a real run's patient sent.

    python bench/turn_fidelity.py export RUN_DIR > labels.jsonl   # the messages, unlabelled
    python bench/turn_fidelity.py data/patient-turn-labels/eye-1.5b.jsonl

``export`` writes one row per patient message of a run's ``turns.jsonl``: the message as the
patient wrote it (a due fact simpop appended is taken off again), the turns before it, the case's
facts due at this turn and those kept until asked, and the flag the run gave it. A reader fills
``labels`` with the flaws they see, in the words of ``conversation_fidelity.turn_flaws`` (an
empty list: a believable message that says what it must). The second form re-runs the checks on
every labelled message and prints, per check and for any flaw: messages labelled, flagged,
precision and recall with 95% Wilson intervals, for each ``split`` of the file and for all.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from simpop.aggregate import wilson_interval
from simpop.config import load_conversation_cases
from simpop.models import ConversationTurn, Domain
from simpop.population.conversation_fidelity import first_person, turn_flaws
from simpop.population.conversation_patient import RenderedCase

ROOT = Path(__file__).resolve().parent.parent
LEGACY_ADDED = "what it must tell was added to it"  # how runs before 2026-11-25 marked an added fact
IDS = dict(run_id="r", cell_id="c", persona_id="p", scenario_id="case", seed_id="conversation", variant=0)


def export(run: Path) -> None:
    config = json.loads((run / "config.json").read_text(encoding="utf-8"))
    domain = Domain.model_validate(config["domain"]) if config.get("domain") else None
    cases = {
        c.id: RenderedCase.of(c, domain) for c in load_conversation_cases(ROOT / config["conversation_dir"])
    }
    turns = [json.loads(line) for line in (run / "turns.jsonl").read_text(encoding="utf-8").splitlines()]
    by_cell: dict[str, list[dict]] = {}
    for turn in sorted(turns, key=lambda t: (t["cell_id"], t["turn"])):
        by_cell.setdefault(t_cell(turn), []).append(turn)
    for cell_turns in by_cell.values():
        for i, turn in enumerate(cell_turns):
            case = cases[turn["scenario_id"]]
            due = case.due(turn["turn"])
            message = turn["text"]
            added = turn.get("added") or []
            if not added and LEGACY_ADDED in (turn.get("flag") or ""):
                added = [first_person(fact) for fact in due]
            for fact in reversed(added):
                message = message.removesuffix(" " + fact)
            row = {
                "cell": t_cell(turn),
                "persona": turn["persona_id"],
                "case": turn["scenario_id"],
                "turn": turn["turn"],
                "message": message,
                "earlier": [{"text": t["text"], "answer": t["answer"]} for t in cell_turns[:i]],
                "kept": case.kept(),
                "due": due,
                "run_flag": turn.get("flag"),
                "labels": None,
            }
            print(json.dumps(row, ensure_ascii=False))


def t_cell(turn: dict) -> str:
    return turn["cell_id"].rsplit("/t", 1)[0]


def line(name: str, labelled: list[bool], flagged: list[bool]) -> str:
    both = sum(a and b for a, b in zip(labelled, flagged, strict=True))
    precision = (
        f"{both / sum(flagged):.2f} {fmt(wilson_interval(both, sum(flagged)))}" if any(flagged) else "–"
    )
    recall = (
        f"{both / sum(labelled):.2f} {fmt(wilson_interval(both, sum(labelled)))}" if any(labelled) else "–"
    )
    counts = f"labelled {sum(labelled):3}  flagged {sum(flagged):3}"
    return f"{name:42} {counts}  precision {precision:16} recall {recall}"


def fmt(bounds: tuple[float, float]) -> str:
    return f"({bounds[0]:.2f}–{bounds[1]:.2f})"


def score(path: Path) -> None:
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    rows = [r for r in rows if r["labels"] is not None]
    splits = sorted({r.get("split") for r in rows} - {None})
    for split in splits:
        table(f"{path} ({split})", [r for r in rows if r.get("split") == split])
    table(f"{path} (all)" if splits else str(path), rows)


def table(title: str, rows: list[dict]) -> None:
    found = []
    for row in rows:
        earlier = [
            ConversationTurn(**IDS, turn=n, text=t["text"], answer=t["answer"])
            for n, t in enumerate(row["earlier"], start=1)
        ]
        found.append(set(turn_flaws(row["message"], earlier, row["kept"], row["due"])))
    labels = [set(r["labels"]) for r in rows]
    print(f"{title}: {len(rows)} messages, {sum(bool(x) for x in labels)} with a flaw by the reader")
    for name in sorted(set().union(*labels, *found)):
        print(line(name, [name in x for x in labels], [name in x for x in found]))
    print(line("any flaw", [bool(x) for x in labels], [bool(x) for x in found]))


if __name__ == "__main__":
    if sys.argv[1] == "export":
        export(Path(sys.argv[2]))
    else:
        score(Path(sys.argv[1]))
