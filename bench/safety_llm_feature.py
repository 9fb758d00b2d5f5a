"""Does the LLM judge's P(yes) help the safety classifiers? Measured on the dev split only
(the test split stays unseen): the classifier fitted on the train split (as the built-in
profile's, without the LLM) gives each dev answer a P(yes); a logistic regression over that
P's log-odds with and without the LLM judge's P(yes) is then cross-validated on dev (5 folds
grouped by message). Prints kappa and ROC AUC of both, per judge, with the LLM judge alone.

    python bench/safety_llm_feature.py [--model qwen2.5-coder-1.5b-instruct-q4_k_m] [--judge NAME ...]

The LLM's replies are cached: a second run (and ``simpop judge-eval``) reuses them."""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path

import numpy as np

from simpop.binary_figures import cohen_kappa, roc_auc
from simpop.embed import Embedder
from simpop.evaluation.agreement import opened_judge
from simpop.evaluation.safety_agreement import classifier_scores, llm_scores
from simpop.evaluation.safety_training import select_and_fit
from simpop.judging.crossval import Predictor, best_threshold, out_of_fold
from simpop.judging.safety_classifier import SafetyClassifier, fit_classifier, safety_features
from simpop.labels.safety_pairs import load_corpus, pairs_for
from simpop.models import DEFAULT_LOCAL_MODEL, LLMConfig
from simpop.verdicts import by_option, options


def figures(y: np.ndarray, p: np.ndarray, verdict: np.ndarray) -> str:
    return f"kappa {cohen_kappa(y, verdict):.3f}, AUC {roc_auc(y, p):.3f}"


async def main(model: str, judges: list[str]) -> None:
    items = load_corpus(Path("data/safety-labels"))
    embedder = Embedder()
    for judge in judges:
        train, dev = pairs_for(items, judge, {"train"}), pairs_for(items, judge, {"dev"})
        fitted, _ = select_and_fit(judge, train, dev, by_option(judge).kinds, embedder, "train")
        # the chosen features refitted on train alone, so dev is out of sample
        x = safety_features(embedder, [(p.message, p.answer) for p in train], fitted.blocks)
        y_train = np.array([p.label for p in train], dtype=int)
        on_train = fit_classifier(x, y_train, fitted.verdict, fitted.c, fitted.blocks, "train", "")
        scored = [p for p in dev if p.kind in by_option(judge).kinds]
        p_cls, _ = classifier_scores(SafetyClassifier(on_train, embedder, judge), scored)
        async with opened_judge(LLMConfig(model=model)) as llm_judge:
            p_llm, v_llm, errors = await llm_scores(llm_judge, judge, scored)
        y = np.array([p.label for p in scored], dtype=int)
        groups = [p.group for p in scored]
        logit = np.log(np.clip(p_cls, 1e-6, 1 - 1e-6) / np.clip(1 - p_cls, 1e-6, 1)).reshape(-1, 1)
        print(f"{judge} (dev, {len(y)} answers, {y.sum()} yes; LLM errors {errors}):")
        print(f"  LLM judge alone, threshold 0.5:        {figures(y, p_llm, v_llm)}")
        for name, columns in (
            ("classifier", logit),
            ("classifier + LLM P(yes)", np.hstack([logit, p_llm.reshape(-1, 1)])),
        ):
            p, verdict, _ = out_of_fold(columns, y, groups, stacked)
            print(f"  {name + ', out of fold on dev:':38s} {figures(y, p, verdict)}")
    embedder.close()


def stacked(x: np.ndarray, y: np.ndarray) -> Predictor:
    """A logistic regression over the given columns, its threshold the best kappa on them."""
    from sklearn.linear_model import LogisticRegression

    model = LogisticRegression(class_weight="balanced").fit(x, y)
    return Predictor(
        lambda rows: model.predict_proba(rows)[:, 1], best_threshold(model.predict_proba(x)[:, 1], y)
    )


if __name__ == "__main__":
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--model", default=DEFAULT_LOCAL_MODEL)
    parser.add_argument("--judge", action="append", choices=list(options()))
    args = parser.parse_args()
    asyncio.run(main(args.model, args.judge or list(options())))
