"""Fit and check the "speaks as the chatbot" classifier of ``simpop/population/bot_voice.py``
(issue 42) on ``data/patient-turn-labels/eye-1.5b.jsonl``.

    python bench/bot_voice.py fit     # writes simpop/population/reference/bot-voice.json
    python bench/bot_voice.py score   # precision/recall per split, alone and with the patterns

``fit`` trains on the splits in FIT (messages labelled "speaks as the chatbot" and the bots'
answers in their transcripts on one side; MeQSum's real messages and the other labelled messages
on the other) plus the NIH eye leaflet answers of ``data/medquad-eye`` (bot side), and keeps
the threshold chosen on TUNE (the lowest at which the patterns of ``conversation_fidelity``
and the classifier together flag with precision 0.9 there). Splits
after TUNE are held out: nothing was chosen on them.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression

from simpop.aggregate import wilson_interval
from simpop.population.bot_voice import WEIGHTS, bot_voice_probability
from simpop.population.conversation_fidelity import AS_THE_BOT

ROOT = Path(__file__).resolve().parent.parent
LABELS = ROOT / "data/patient-turn-labels/eye-1.5b.jsonl"
OUT = ROOT / "simpop/population/reference" / WEIGHTS
FIT = ("dev", "test", "test-2")
TUNE = "test-3"
AS_BOT = "speaks as the chatbot"
C = 1.0
MAX_TERMS = 2000
PRECISION = 0.9


def read(path: Path) -> list[dict]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def training_texts() -> tuple[list[str], list[int]]:
    rows = [r for r in read(LABELS) if r["split"] in FIT]
    patients = [r["message"] for r in read(ROOT / "simpop/population/reference/meqsum.jsonl")]
    patients += [r["message"] for r in rows if AS_BOT not in r["labels"]]
    bots = sorted({e["answer"] for r in rows for e in r["earlier"] if e["answer"]})
    bots += [r["message"] for r in rows if AS_BOT in r["labels"]]
    bots += [r["answer"] for r in read(ROOT / "data/medquad-eye/qaps.jsonl")]
    return patients + bots, [0] * len(patients) + [1] * len(bots)


def fit() -> None:
    texts, y = training_texts()
    vectorizer = TfidfVectorizer(ngram_range=(1, 2), sublinear_tf=True, min_df=2, max_features=MAX_TERMS)
    model = LogisticRegression(C=C, max_iter=5000, class_weight="balanced").fit(
        vectorizer.fit_transform(texts), y
    )
    weights = {
        t: (float(vectorizer.idf_[i]), float(model.coef_[0][i])) for t, i in vectorizer.vocabulary_.items()
    }
    intercept = float(model.intercept_[0])
    tune = [r for r in read(LABELS) if r["split"] == TUNE]
    p = np.array([bot_voice_probability(r["message"], weights, intercept) for r in tune])
    labelled = np.array([AS_BOT in r["labels"] for r in tune])
    patterns = np.array([bool(AS_THE_BOT.search(r["message"])) for r in tune])

    def precision(t: float) -> float:
        flagged = (p >= t) | patterns
        return (flagged & labelled).sum() / flagged.sum()

    # the lowest threshold at which the patterns and the classifier together keep PRECISION on TUNE
    threshold = float(min((t for t in np.unique(p) if t >= 0.3 and precision(t) >= PRECISION), default=0.9))
    sklearn_p = model.predict_proba(vectorizer.transform([r["message"] for r in tune]))[:, 1]
    assert np.allclose(p, sklearn_p), "the hand-written scorer differs from scikit-learn's"
    OUT.write_text(
        json.dumps(
            {
                "about": "bench/bot_voice.py fit: TF-IDF (1-2 grams, sublinear) + logistic regression",
                "fitted_on": list(FIT),
                "threshold_from": TUNE,
                "threshold": round(threshold, 6),
                "intercept": intercept,
                "terms": sorted([t, round(idf, 6), round(w, 6)] for t, (idf, w) in weights.items()),
            },
            ensure_ascii=False,
        )
        + "\n",
        encoding="utf-8",
    )
    print(f"{len(y)} texts ({sum(y)} bot side), {len(weights)} terms, threshold {threshold:.3f} → {OUT}")


def score() -> None:
    from simpop.population.bot_voice import speaks_as_the_bot

    rows = read(LABELS)
    for split in dict.fromkeys(r["split"] for r in rows):
        group = [r for r in rows if r["split"] == split]
        labelled = [AS_BOT in r["labels"] for r in group]
        model = [speaks_as_the_bot(r["message"]) for r in group]
        patterns = [bool(AS_THE_BOT.search(r["message"])) for r in group]
        role = "fitted on" if split in FIT else ("threshold from" if split == TUNE else "held out")
        either = [a or b for a, b in zip(patterns, model, strict=True)]
        for name, flagged in (("patterns", patterns), ("classifier", model), ("either", either)):
            both = sum(a and b for a, b in zip(labelled, flagged, strict=True))
            low, high = wilson_interval(both, sum(flagged))
            prec = f"{both / sum(flagged):.2f} ({low:.2f}–{high:.2f})" if any(flagged) else "–"
            rec = f"{both / sum(labelled):.2f}" if any(labelled) else "–"
            print(
                f"{split:7} ({role:14}) {name:10} labelled {sum(labelled):3} flagged {sum(flagged):3}  "
                f"precision {prec:16} recall {rec}"
            )


if __name__ == "__main__":
    fit() if sys.argv[1] == "fit" else score()
