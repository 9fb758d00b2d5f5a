"""The figures of ``bench/predictive_validity.py score``: a zoo of bots re-asked the simulated
and real messages of a run, per bot simulated vs real accuracy, across bots slope, Kendall's
tau and mean |gap| with bootstrap intervals, the importance-weighted simulated figure (with its
effective sample size), and the corrected estimate from 50 labelled real messages (its coverage
and width against the 50 alone).

Where a set has blind answer labels (``bench/data/<set>/answer-labels.jsonl``: does this
catalogue entry answer this message, or this seed's question?), a reply the set's own grouping
counts wrong is right when the labels say the entry answers it, on both sides alike."""

from __future__ import annotations

import json
import random
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from rapidfuzz import fuzz, process
from scipy.stats import kendalltau
from sklearn.feature_extraction.text import TfidfVectorizer

from simpop.embed import Embedder
from simpop.models import DEFAULT_EMBEDDING_MODEL, MULTILINGUAL_EMBEDDING_MODEL, QAP, EmbeddingConfig
from simpop.population.gold import equivalent_qaps
from simpop.targets.qap import QAPMatcher, QAPTargetConfig, matchable
from simpop.validity.corrected import corrected, labelled_only
from simpop.validity.predictor import Reply as Seen
from simpop.validity.predictor import cross_fitted, fit_predictor, margin_of

LABELLED = 50  # labelled real messages of the corrected estimate
DRAWS = 200  # draws of them, for its coverage
BOOTSTRAP = 1000
DATA = Path(__file__).resolve().parent / "data"
PRODUCT_BOT = "minilm@0.6"  # the run's own bot (simpop's default matcher threshold of the demos)


@dataclass(frozen=True)
class Item:
    """A message and the catalogue ids a right answer may carry."""

    key: str  # the seed (simulated) or the message id (real): the bootstrap's unit
    text: str
    accepted: frozenset[str]
    persona: str
    asks: str  # what the answer labels name: the seed's question, or the real message


@dataclass(frozen=True)
class Reply:
    matched: str | None
    similarity: float | None
    margin: float | None = None  # the best similarity above the runner-up's


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def latest_run(folder: Path, population: str) -> Path:
    runs = sorted(folder.glob(f"runs/pv-{folder.name}-{population}-*"))
    finished = [r for r in runs if (r / "summary.json").exists()]
    if not finished:
        raise SystemExit(f"no finished {population} run in {folder / 'runs'}: run the bench's `run` step")
    return finished[-1]


def simulated_items(run: Path, same: dict[str, list[str]], questions: dict[str, str]) -> list[Item]:
    """The run's valid simulated probes that its QAP-match accuracy scored."""
    scored = {
        s["cell_id"]
        for s in read_jsonl(run / "scores.jsonl")
        if s["metric"] == "qap_match" and s.get("excluded") is None and s.get("value") is not None
    }
    items = []
    for probe in read_jsonl(run / "probes.jsonl"):
        if probe["cell_id"] in scored:
            text = probe["noisy_text"] if probe.get("noisy_text") is not None else probe["text"]
            seed = probe["seed_id"]
            accepted = frozenset([seed, *same.get(seed, ())])
            items.append(Item(seed, text, accepted, probe["persona_id"], questions[seed]))
    return items


def real_items(folder: Path, same: dict[str, list[str]]) -> list[Item]:
    items = []
    for row in read_jsonl(folder / "real.jsonl"):
        accepted = frozenset(i for s in row["seed_ids"] for i in (s, *same.get(s, ())))
        items.append(Item(row["id"], row["message"], accepted, "real", row["message"]))
    return items


class Fuzzy:
    """A fuzzy string matcher (rapidfuzz's token-set ratio) over the QAP questions."""

    def __init__(self, qaps: list[QAP], cutoff: float) -> None:
        self.qaps, self.cutoff = matchable(qaps), cutoff
        self.questions = [q.question.lower() for q in self.qaps]

    def replies(self, texts: list[str]) -> list[Reply]:
        found = []
        for text in texts:
            top = process.extract(text.lower(), self.questions, scorer=fuzz.token_set_ratio, limit=2)
            best = top[0]
            hit = best[1] >= self.cutoff
            margin = (best[1] - top[1][1]) / 100 if len(top) > 1 else None
            found.append(Reply(self.qaps[best[2]].id if hit else None, best[1] / 100, margin))
        return found


class Tfidf:
    """A TF-IDF cosine matcher over the QAP questions."""

    def __init__(self, qaps: list[QAP], cutoff: float) -> None:
        self.qaps, self.cutoff = matchable(qaps), cutoff
        self.vectorizer = TfidfVectorizer(stop_words="english", sublinear_tf=True)
        self.matrix = self.vectorizer.fit_transform([q.question for q in self.qaps])

    def replies(self, texts: list[str]) -> list[Reply]:
        similarities = (self.vectorizer.transform(texts) @ self.matrix.T).toarray()
        top = np.sort(similarities, axis=1)[:, ::-1]
        best = similarities.argmax(axis=1)
        return [
            Reply(self.qaps[b].id if row[b] >= self.cutoff else None, float(row[b]), float(t[0] - t[1]))
            for b, row, t in zip(best, similarities, top, strict=True)
        ]


class Embedded:
    """simpop's own QAP matcher at a model and threshold."""

    def __init__(self, qaps: list[QAP], embedder: Embedder, threshold: float) -> None:
        config = QAPTargetConfig(kind="qap", qaps=Path("-"), threshold=threshold, min_words=3)
        self.matcher = QAPMatcher(config, qaps, embedder)

    def replies(self, texts: list[str]) -> list[Reply]:
        self.matcher.embedder.embed(texts)  # batched once, then cached
        answers = [self.matcher.match(t) for t in texts]
        return [Reply(a.matched_id, a.similarity, margin_of(c.score for c in a.contexts)) for a in answers]


def zoo(qaps: list[QAP]) -> dict[str, object]:
    minilm = Embedder(EmbeddingConfig(model=DEFAULT_EMBEDDING_MODEL))
    e5 = Embedder(EmbeddingConfig(model=MULTILINGUAL_EMBEDDING_MODEL))
    bots: dict[str, object] = {f"minilm@{t}": Embedded(qaps, minilm, t) for t in (0.4, 0.5, 0.6, 0.7, 0.8)}
    bots |= {f"e5-small@{t}": Embedded(qaps, e5, t) for t in (0.85, 0.9)}
    bots |= {f"fuzzy@{c}": Fuzzy(qaps, c) for c in (50, 70)}
    bots["tfidf@0.3"] = Tfidf(qaps, 0.3)
    return bots


def answer_labels(name: str) -> dict[tuple[str, str], bool]:
    """The set's blind answer labels, by (message or seed question, catalogue id); none where
    it has no label file."""
    path = DATA / name / "answer-labels.jsonl"
    rows = read_jsonl(path) if path.exists() else []
    return {(r["message"], r["faq_id"]): r["answers"] == "yes" for r in rows}


def right(items: list[Item], replies: list[Reply], labels: dict[tuple[str, str], bool]) -> np.ndarray:
    """1 where the bot returned an accepted entry, or one the answer labels say answers it."""
    return np.array(
        [
            float(r.matched in i.accepted or labels.get((i.asks, r.matched or ""), False))
            for i, r in zip(items, replies, strict=True)
        ]
    )


def unlabelled_wrong(items: list[Item], replies: list[Reply], labels: dict[tuple[str, str], bool]) -> int:
    """Replies counted wrong for want of a label: an entry outside the accepted ones, unlabelled."""
    return sum(
        1
        for i, r in zip(items, replies, strict=True)
        if r.matched is not None and r.matched not in i.accepted and (i.asks, r.matched) not in labels
    )


def importance_weighted(
    simulated: list[Reply], outcomes: np.ndarray, real: list[Reply]
) -> tuple[float, float]:
    """The simulated figure reweighted to the real messages' replies (covariate shift; Shimodaira,
    J. Stat. Plan. Inference 2000): each simulated cell weighs p(real | reply) / p(simulated |
    reply) by a logistic model of whether the reply was to a real message, on the reply's
    answered, similarity and margin; and the weights' effective sample size (Kish)."""
    from sklearn.linear_model import LogisticRegression

    def features(replies: list[Reply]) -> np.ndarray:
        return np.array(
            [[r.matched is not None, r.similarity or 0.0, r.margin or 0.0] for r in replies], float
        )

    x_sim, x_real = features(simulated), features(real)
    x = np.vstack([x_sim, x_real])
    centre, spread = x.mean(axis=0), x.std(axis=0) + 1e-9
    side = np.r_[np.zeros(len(x_sim)), np.ones(len(x_real))]
    model = LogisticRegression(C=1.0).fit((x - centre) / spread, side)
    p = model.predict_proba((x_sim - centre) / spread)[:, 1]
    w = p / (1 - p)
    return float((w * outcomes).sum() / w.sum()), float(w.sum() ** 2 / (w**2).sum())


def cluster_mean(values: np.ndarray, keys: list[str], rng: np.random.Generator, draws: int) -> np.ndarray:
    """``draws`` bootstrap means, resampling whole clusters (a seed's cells together)."""
    groups = defaultdict(list)
    for v, k in zip(values, keys, strict=True):
        groups[k].append(v)
    sums = np.array([sum(g) for g in groups.values()])
    counts = np.array([len(g) for g in groups.values()])
    picks = rng.integers(0, len(sums), size=(draws, len(sums)))
    return sums[picks].sum(axis=1) / counts[picks].sum(axis=1)


def ci(samples: np.ndarray) -> str:
    low, high = np.percentile(samples, [2.5, 97.5])
    return f"{low:.2f}–{high:.2f}"


def predictor_replies(replies: list[Reply]) -> list[Seen]:
    return [Seen(r.matched is not None, r.similarity, r.margin) for r in replies]


@dataclass
class BotFigures:
    name: str
    simulated: np.ndarray  # 0/1 per simulated item
    real: np.ndarray  # 0/1 per real item
    predicted: np.ndarray  # P(right) per real item, from its reply, fitted on the simulated ones
    simulated_replies: list  # (reply, outcome) of each simulated item, for the corrected estimate
    real_replies: list
    weighted: tuple[float, float]  # the importance-weighted simulated figure and its effective n


def corrected_check(bot: BotFigures, rng: random.Random) -> tuple[float, float, float]:
    """Over ``DRAWS`` draws of ``LABELLED`` labelled real messages: how often the corrected 95%
    interval covers the real figure, and the median width of the labelled messages' own interval
    over the corrected one; and the share of draws the corrected interval is the narrower."""
    truth = float(bot.real.mean())
    covered, ratios = 0, []
    for _ in range(DRAWS):
        labelled = set(rng.sample(range(len(bot.real)), LABELLED))
        rest = [i for i in range(len(bot.real)) if i not in labelled]
        index = sorted(labelled)
        pairs = [(bot.real_replies[i], float(bot.real[i])) for i in index]
        f, f_rest = cross_fitted(bot.simulated_replies, pairs, [bot.real_replies[i] for i in rest])
        found = corrected(bot.real[index], f, f_rest)
        alone = labelled_only(bot.real[index])
        covered += found.ci_low <= truth <= found.ci_high
        ratios.append(alone.width / found.width if found.width > 0 else float("inf"))
    return covered / DRAWS, float(np.median(ratios)), float(np.mean(np.array(ratios) >= 1.5))


def across(sims: np.ndarray, reals: np.ndarray) -> tuple[float, float, float]:
    """Slope of real on simulated, Kendall's tau, mean |simulated - real|, across bots."""
    slope = float(np.polyfit(sims, reals, 1)[0]) if np.ptp(sims) > 0 else float("nan")
    tau = float(kendalltau(sims, reals).statistic)
    return slope, tau, float(np.mean(np.abs(sims - reals)))


def score_set(folder: Path, population: str) -> dict:
    run = latest_run(folder, population)
    qaps = [QAP.model_validate(r) for r in read_jsonl(folder / "qaps.jsonl")]
    same = equivalent_qaps(qaps)
    questions = {q.id: q.question for q in qaps}
    sim_items, real_items_ = simulated_items(run, same, questions), real_items(folder, same)
    labels = answer_labels(folder.name)
    print(f"\n## {folder.name} ({population}): run {run.name}")
    print(
        f"{len(sim_items)} valid simulated messages of {len({i.key for i in sim_items})} seeds; "
        f"{len(real_items_)} real messages (test half)"
    )
    bots, unlabelled = [], 0
    for name, bot in zoo(qaps).items():
        sim_replies = bot.replies([i.text for i in sim_items])
        real_replies = bot.replies([i.text for i in real_items_])
        simulated = right(sim_items, sim_replies, labels)
        seen_sim, seen_real = predictor_replies(sim_replies), predictor_replies(real_replies)
        predictor = fit_predictor(seen_sim, list(simulated))
        pairs = list(zip(seen_sim, simulated.tolist(), strict=True))
        real = right(real_items_, real_replies, labels)
        weighted = importance_weighted(sim_replies, simulated, real_replies)
        bots.append(
            BotFigures(name, simulated, real, predictor.predict(seen_real), pairs, seen_real, weighted)
        )
        if labels:
            unlabelled += unlabelled_wrong(sim_items, sim_replies, labels)
            unlabelled += unlabelled_wrong(real_items_, real_replies, labels)
    if labels:
        print(
            f"answer labels: {len(labels)} pairs; {unlabelled} replies outside the grouping have none (wrong)"
        )
    rng = np.random.default_rng(0)
    keys = [i.key for i in sim_items]
    sim_boot = {b.name: cluster_mean(b.simulated, keys, rng, BOOTSTRAP) for b in bots}
    real_picks = rng.integers(0, len(real_items_), size=(BOOTSTRAP, len(real_items_)))
    real_boot = {b.name: b.real[real_picks].mean(axis=1) for b in bots}
    draw = random.Random(0)
    print(
        f"{'bot':12} {'simulated':>17} {'real':>17} {'gap':>6} {'predicted':>9} {'weighted (n_eff)':>16} "
        f"{'corrected: covers':>18} {'narrower':>8}"
    )
    rows = []
    for b in bots:
        coverage, ratio, _ = corrected_check(b, draw)
        sim, real = float(b.simulated.mean()), float(b.real.mean())
        rows.append((b.name, sim, real, float(b.predicted.mean()), coverage, ratio, *b.weighted))
        print(
            f"{b.name:12} {sim:6.3f} ({ci(sim_boot[b.name])}) {real:6.3f} ({ci(real_boot[b.name])}) "
            f"{sim - real:+6.3f} {b.predicted.mean():9.3f} {b.weighted[0]:9.3f} ({b.weighted[1]:4.1f}) "
            f"{coverage:18.2f} {ratio:7.2f}x"
        )
    sims = np.array([r[1] for r in rows])
    reals = np.array([r[2] for r in rows])
    preds = np.array([r[3] for r in rows])
    boot = np.array(
        [
            across(
                np.array([sim_boot[b.name][k] for b in bots]), np.array([real_boot[b.name][k] for b in bots])
            )
            for k in range(BOOTSTRAP)
        ]
    )
    slope, tau, gap = across(sims, reals)
    print(
        f"across {len(bots)} bots: slope {slope:.2f} ({ci(boot[:, 0])}), Kendall tau {tau:.2f} "
        f"({ci(boot[:, 1])}), mean |gap| {gap:.3f} ({ci(boot[:, 2])})"
    )
    p_slope, p_tau, p_gap = across(preds, reals)
    print(
        f"predicted from the bots' replies to the real messages (no label): slope {p_slope:.2f}, "
        f"tau {p_tau:.2f}, mean |gap| {p_gap:.3f}"
    )
    weighted = np.array([r[6] for r in rows])
    w_slope, w_tau, w_gap = across(weighted, reals)
    print(
        f"importance-weighted simulated figure: slope {w_slope:.2f}, tau {w_tau:.2f}, "
        f"mean |gap| {w_gap:.3f}; "
        f"effective n median {np.median([r[7] for r in rows]):.1f} of {len(sim_items)}"
    )
    coverage = np.array([r[4] for r in rows])
    ratio = np.array([r[5] for r in rows])
    print(
        f"corrected ({LABELLED} labelled, {DRAWS} draws): covers in >= 90% of draws for "
        f"{int((coverage >= 0.9).sum())} of {len(bots)} bots (mean coverage {coverage.mean():.3f}); "
        f"median width ratio {np.median(ratio):.2f}x (>= 1.5x for {int((ratio >= 1.5).sum())} bots)"
    )
    personas(bots, sim_items, rng)
    return {
        "set": folder.name,
        "population": population,
        "slope": slope,
        "tau": tau,
        "gap": gap,
        "predicted": p_gap,
        "weighted": w_gap,
        "rows": rows,
    }


def personas(bots: list[BotFigures], items: list[Item], rng: np.random.Generator) -> None:
    """Per persona, the product's bot: its simulated figure, and whether the real one is inside
    the simulated persona mixture's interval (and inside each persona's)."""
    bot = next(b for b in bots if b.name == PRODUCT_BOT)
    real = float(bot.real.mean())
    mixture = cluster_mean(bot.simulated, [i.key for i in items], rng, BOOTSTRAP)
    low, high = np.percentile(mixture, [2.5, 97.5])
    parts = []
    for persona in sorted({i.persona for i in items}):
        index = [k for k, i in enumerate(items) if i.persona == persona]
        values = bot.simulated[index]
        boot = cluster_mean(values, [items[k].key for k in index], rng, BOOTSTRAP)
        p_low, p_high = np.percentile(boot, [2.5, 97.5])
        inside = "in" if p_low <= real <= p_high else "OUT"
        parts.append(f"{persona} {values.mean():.2f} ({p_low:.2f}–{p_high:.2f}, real {inside})")
    inside = "inside" if low <= real <= high else "outside"
    print(f"{PRODUCT_BOT} per persona: " + "; ".join(parts))
    print(f"real {real:.3f} is {inside} the persona mixture's interval {low:.2f}–{high:.2f}")


def score(out: Path, populations: list[str], sets: list[str]) -> None:
    """Every set's figures for each population, then the goal figures side by side."""
    results = [score_set(out / name, population) for name in sets for population in populations]
    print("\n## goal figures (test halves): mean |gap| <= 0.05, slope >= 0.8, tau >= 0.8; corrected covers")
    print("## for >= 90% of bots and is >= 1.5x narrower than 50 labels alone")
    print(
        f"{'set':8} {'population':11} {'mean |gap|':>10} {'slope':>6} {'tau':>5} "
        f"{'|gap| predicted':>15} {'|gap| weighted':>14} {'covers>=90%':>11} {'narrower':>8}"
    )
    for r in results:
        covered = sum(1 for row in r["rows"] if row[4] >= 0.9)
        ratio = float(np.median([row[5] for row in r["rows"]]))
        print(
            f"{r['set']:8} {r['population']:11} {r['gap']:10.3f} {r['slope']:6.2f} {r['tau']:5.2f} "
            f"{r['predicted']:15.3f} {r['weighted']:14.3f} {covered:>5}/{len(r['rows']):<5} {ratio:7.2f}x"
        )
