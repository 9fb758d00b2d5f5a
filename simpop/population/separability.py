"""Could a reader tell simulated patients from real ones? Three measures of a set of messages
beside real ones, as a person reading them would notice:

- stock sentences: the share of messages holding a sentence that stands verbatim in at least
  ``STOCK_MESSAGES`` messages of the set (a greeting or thank-you of at most four words aside);
- a classifier two-sample test (Lopez-Paz & Oquab, ICLR 2017): the out-of-fold ROC AUC of a
  logistic regression telling the set from the real messages on style alone — function-word
  rates and shape features, every topic word left out. 0.5: indistinguishable; 1.0: always told
  apart;
- distinct-n (Li et al., NAACL 2016: distinct n-grams over all n-grams) and self-BLEU (Zhu et
  al., SIGIR 2018, Texygen: each message's BLEU-4 against the others), each beside the same
  figure for as many real messages.

The function words are English; another language is a clear error."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache

import numpy as np

from simpop.binary_figures import roc_auc
from simpop.errors import ConfigError
from simpop.models import Separability, StockSentence
from simpop.population.fidelity import fold
from simpop.population.message_shape import message_shape, sentences, split_subject

LANGUAGES = ("en",)
STOCK_MESSAGES = 3  # a sentence in this many messages of a set is a stock sentence
STOCK_SHARE = 0.02  # no sentence should stand in more of a run's messages than this
MIN_MESSAGES = 10  # fewer messages on either side: no classifier test
SELF_BLEU_MESSAGES = 200  # self-BLEU compares every pair: on at most this many messages
_WORD = re.compile(r"[A-Za-z]+(?:'[A-Za-z]+)?")
_LETTERS = re.compile(r"[^\W\d_]+")  # a word of any language
_FORMULA = re.compile(  # English and German
    r"^\W*(?:hi|hello|hey|dear|greetings|good (?:morning|afternoon|evening|day)|thanks?|thx|"
    r"thank you|many thanks|cheers|regards|kind regards|best(?: wishes| regards)?|with thanks|"
    r"hallo|guten (?:tag|morgen|abend)|grüezi|grüß gott|sehr geehrte|liebe[rs]?|danke|vielen dank|"
    r"herzlichen dank|besten dank|(?:mit )?(?:freundlichen|lieben|besten|herzlichen) grüßen|"
    r"liebe grüße|viele grüße)\b",
    re.IGNORECASE,
)
# English function words (pronouns, determiners, auxiliaries, prepositions, conjunctions,
# particles): how people write, whatever they write about
FUNCTION_WORDS = tuple(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can can't cannot could couldn't did didn't do does doesn't doing don't
    down during each few for from further had hadn't has hasn't have haven't having he her here hers
    herself him himself his how i i'm i've if in into is isn't it it's its itself just me more most
    my myself no nor not now of off on once only or other our ours out over own same she should so
    some such than that the their theirs them themselves then there these they this those through to
    too under until up very was wasn't we were what when where which while who whom why will with
    won't would wouldn't you your yours yourself also still even ever please thank thanks yes im ive
    dont cant""".split()
)
SHAPE_FEATURES = (
    "log_words",
    "words_per_sentence",
    "question_marks",
    "commas",
    "capitals_share",
    "first_person_share",
    "exclamations",
    "digits",
    "line_breaks",
    "lower_case_i",
    "tells_story",
    "apostrophes",
)
_FIRST = {"i", "i'm", "i've", "me", "my", "myself", "im", "ive", "mine"}


def check_language(language: str) -> None:
    if language.split("-")[0].lower() not in LANGUAGES:
        raise ConfigError(
            f"realism test: no function-word list for language '{language}' (have: {', '.join(LANGUAGES)})"
        )


def is_formula(sentence: str) -> bool:
    """A greeting, thank-you or sign-off of at most four words (real people repeat those too)."""
    return len(_LETTERS.findall(sentence)) <= 4 and bool(_FORMULA.match(sentence.strip()))


def _sentence_keys(text: str) -> list[str]:
    """The sentences of a message body, case and spacing folded (how stock sentences match)."""
    return [fold(s) for s in sentences(split_subject(text)[1])]


def stock_sentences(texts: Sequence[str], at_least: int = STOCK_MESSAGES) -> list[StockSentence]:
    """The sentences that stand verbatim (case and spacing aside) in ``at_least`` messages,
    most widespread first, with the share of messages holding each."""
    holding: Counter[str] = Counter()
    shown: dict[str, str] = {}
    for text in texts:
        seen = set()
        for sentence in sentences(split_subject(text)[1]):
            key = fold(sentence)
            if key not in seen and not is_formula(sentence):
                seen.add(key)
                shown.setdefault(key, sentence)
        holding.update(seen)
    found = [(key, n) for key, n in holding.items() if n >= at_least]
    found.sort(key=lambda kv: (-kv[1], kv[0]))
    return [
        StockSentence(sentence=shown[key], messages=n, share=round(n / len(texts), 4)) for key, n in found
    ]


def stock_share(texts: Sequence[str], stock: Sequence[StockSentence]) -> float | None:
    """The share of ``texts`` holding at least one of the ``stock`` sentences."""
    if not texts:
        return None
    keys = {fold(s.sentence) for s in stock}
    holding = sum(1 for t in texts if keys.intersection(_sentence_keys(t)))
    return round(holding / len(texts), 4)


def _most_held(texts: Sequence[str], stock: Sequence[StockSentence], top: int = 5) -> list[StockSentence]:
    """The ``top`` stock sentences most widespread in ``texts``, counted in them."""
    keys = {fold(s.sentence): s.sentence for s in stock}
    holding: Counter[str] = Counter()
    for text in texts:
        holding.update(keys.keys() & set(_sentence_keys(text)))
    return [
        StockSentence(sentence=keys[k], messages=n, share=round(n / len(texts), 4))
        for k, n in sorted(holding.items(), key=lambda kv: (-kv[1], kv[0]))[:top]
    ]


@lru_cache(maxsize=8192)
def style_features(text: str) -> tuple[float, ...]:
    """Function-word rates (per word) and the ``SHAPE_FEATURES`` of one message's body: nothing
    that names a topic. A subject line is left out on either side (MeQSum's web-form fields
    ``SUBJECT: ... MESSAGE:`` are not what a patient types into a chat, and their capitals and
    line break alone told every simulated message from the real ones)."""
    text = split_subject(text)[1].strip() or text
    words = [w.lower() for w in _WORD.findall(text)]
    n = max(len(words), 1)
    counts = Counter(words)
    parts = sentences(text) or [text]
    letters = [c for c in text if c.isalpha()]
    shape = message_shape(text)
    rates = [counts[w] / n for w in FUNCTION_WORDS]
    return (
        *rates,
        math.log1p(len(words)),
        len(words) / len(parts),
        text.count("?") / len(parts),
        text.count(",") / n,
        sum(c.isupper() for c in letters) / max(len(letters), 1),
        sum(counts[w] for w in _FIRST) / n,
        float(text.count("!")),
        float(sum(c.isdigit() for c in text) > 0),
        float(text.strip().count("\n")),
        float(bool(re.search(r"(?:^|\s)i(?:\s|$|')", text))),
        float(shape.context),
        text.count("'") / n,
    )


def two_sample_auc(
    simulated: Sequence[str], real: Sequence[str], folds: int = 5, reps: int = 1000, seed: int = 0
) -> tuple[float, tuple[float, float]] | None:
    """Out-of-fold ROC AUC of a logistic regression telling ``simulated`` from ``real`` messages
    on ``style_features`` (stratified ``folds``-fold, classes weighted equally), with a 95%
    bootstrap interval over messages; None with fewer than ``MIN_MESSAGES`` on a side."""
    if min(len(simulated), len(real)) < MIN_MESSAGES:
        return None
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    x = np.array([style_features(t) for t in [*simulated, *real]])
    y = np.array([1] * len(simulated) + [0] * len(real))
    model = make_pipeline(StandardScaler(), LogisticRegression(C=0.1, class_weight="balanced", max_iter=2000))
    split = StratifiedKFold(n_splits=min(folds, len(simulated)), shuffle=True, random_state=seed)
    p = cross_val_predict(model, x, y, cv=split, method="predict_proba")[:, 1]
    auc = roc_auc(y, p)
    rng = np.random.default_rng(seed)
    sim, ref = np.flatnonzero(y == 1), np.flatnonzero(y == 0)
    samples = []
    for _ in range(reps):
        picked = np.concatenate([rng.choice(sim, len(sim)), rng.choice(ref, len(ref))])
        samples.append(roc_auc(y[picked], p[picked]))
    low, high = np.percentile(samples, [2.5, 97.5])
    return round(auc, 3), (round(float(low), 3), round(float(high), 3))


def _tokens(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def distinct_n(texts: Sequence[str], n: int) -> float | None:
    """Distinct n-grams over all n-grams of ``texts`` (Li et al., 2016)."""
    grams = [tuple(t[i : i + n]) for t in map(_tokens, texts) for i in range(len(t) - n + 1)]
    return round(len(set(grams)) / len(grams), 4) if grams else None


def _ngrams(tokens: list[str], n: int) -> Counter[tuple[str, ...]]:
    return Counter(tuple(tokens[i : i + n]) for i in range(len(tokens) - n + 1))


def self_bleu(texts: Sequence[str], max_n: int = 4) -> float | None:
    """Mean BLEU-``max_n`` (uniform weights, add-one smoothing of the higher orders as in Lin &
    Och 2004, the brevity penalty against the closest reference length) of each message against
    all the others as references (Zhu et al., 2018). 1.0: every message repeats the others."""
    tokens = [t for t in map(_tokens, texts) if t]
    if len(tokens) < 2:
        return None
    grams = [[_ngrams(t, n) for n in range(1, max_n + 1)] for t in tokens]
    # per n-gram the two largest counts over all messages and who holds the largest: a message's
    # clipping count against the others is the largest held by someone else
    top: list[dict[tuple[str, ...], tuple[int, int, int]]] = [{} for _ in range(max_n)]
    for i, per_n in enumerate(grams):
        for k, counter in enumerate(per_n):
            for gram, c in counter.items():
                first, holder, second = top[k].get(gram, (0, -1, 0))
                if c > first:
                    top[k][gram] = (c, i, first)
                elif c > second:
                    top[k][gram] = (first, holder, c)
    lengths = sorted(len(t) for t in tokens)
    scores = []
    for i, per_n in enumerate(grams):
        logs = []
        for k, counter in enumerate(per_n):
            total = sum(counter.values())
            clipped = 0
            for gram, c in counter.items():
                first, holder, second = top[k][gram]
                clipped += min(c, second if holder == i else first)
            if k == 0:
                if clipped == 0:
                    logs = None
                    break
                logs.append(math.log(clipped / total))
            else:
                logs.append(math.log((clipped + 1) / (total + 1)))
        if logs is None:
            scores.append(0.0)
            continue
        length = len(tokens[i])
        others = list(lengths)
        others.remove(length)
        closest = min(others, key=lambda r: (abs(r - length), r))
        penalty = 1.0 if length > closest else math.exp(1 - closest / length)
        scores.append(penalty * math.exp(sum(logs) / max_n))
    return round(float(np.mean(scores)), 4)


def separability(
    simulated: Sequence[str], real: Sequence[str], stock: Sequence[StockSentence] | None = None, seed: int = 0
) -> Separability:
    """The three measures of ``simulated`` beside ``real`` messages: stock sentences are those
    of ``stock`` where given (a whole run's, for one persona's messages), else of ``simulated``;
    the lexical measures on as many real messages as there are simulated ones (distinct-n and
    self-BLEU depend on how many)."""
    stock = stock_sentences(simulated) if stock is None else stock
    rng = np.random.default_rng(seed)
    size = min(len(simulated), len(real), SELF_BLEU_MESSAGES)
    ours = [simulated[i] for i in sorted(rng.choice(len(simulated), size, replace=False))] if size else []
    theirs = [real[i] for i in sorted(rng.choice(len(real), size, replace=False))] if size else []
    test = two_sample_auc(simulated, real, seed=seed)
    return Separability(
        n=len(simulated),
        stock_share=stock_share(simulated, stock),
        stock=_most_held(simulated, stock),
        auc=test[0] if test else None,
        auc_interval=test[1] if test else None,
        distinct_1=distinct_n(ours, 1),
        distinct_2=distinct_n(ours, 2),
        real_distinct_1=distinct_n(theirs, 1),
        real_distinct_2=distinct_n(theirs, 2),
        self_bleu=self_bleu(ours),
        real_self_bleu=self_bleu(theirs),
    )


def repeats_only(texts: Sequence[str], stock: Sequence[StockSentence]) -> Separability:
    """The stock sentences of messages in a language with no real messages to compare with."""
    beside_real = ("auc", "auc_interval", "distinct_1", "distinct_2", "real_distinct_1", "real_distinct_2")
    return Separability(
        n=len(texts),
        stock_share=stock_share(texts, stock),
        stock=_most_held(texts, stock),
        **dict.fromkeys((*beside_real, "self_bleu", "real_self_bleu")),
    )


TYPICAL_AUC = 0.80  # a persona meant to write like a typical adult should not be told apart more easily
OTHER_AUC = 0.90  # learners and low literacy are meant to differ, but not to read as a phrase bank


def realism_tests(
    texts: dict[str, list[str]], languages: dict[str, str], typical: set[str], real: Sequence[str]
) -> tuple[dict[str, Separability], list[str]]:
    """Per persona (``texts`` by persona id) and for the whole run (key ``all``), the three
    measures beside ``real`` messages, and warnings: a sentence in more than 2% of the run's
    messages, personas told apart more easily than ``TYPICAL_AUC`` (typical) or ``OTHER_AUC``,
    and which persona is told apart most easily. Personas in a language without a function-word
    list are left out and named."""
    warnings = []
    covered = {}
    found: dict[str, Separability] = {}
    everything = [t for mine in texts.values() for t in mine]
    stock = stock_sentences(everything)  # verbatim repeats, in any language
    for pid, mine in texts.items():
        if languages[pid].split("-")[0].lower() in LANGUAGES:
            covered[pid] = mine
        elif mine:
            found[pid] = repeats_only(mine, stock)
            warnings.append(f"persona '{pid}': no realism test for language '{languages[pid]}' (have: en)")
    found |= {pid: separability(mine, real, stock) for pid, mine in covered.items() if mine}
    in_covered = [t for mine in covered.values() for t in mine]
    found["all"] = separability(in_covered, real, stock) if in_covered else repeats_only(everything, stock)
    widespread = [s for s in stock if s.share > STOCK_SHARE]
    if widespread:
        top = widespread[0]
        warnings.append(
            f"{len(widespread)} sentence(s) each stand in more than {STOCK_SHARE:.0%} of the run's messages, "
            f'the most widespread in {top.messages} of {len(everything)}: "{top.sentence}"'
        )
    for pid, test in found.items():
        bound = TYPICAL_AUC if pid in typical else OTHER_AUC
        if pid != "all" and test.auc is not None and test.auc > bound:
            warnings.append(
                f"persona '{pid}': a classifier tells its messages from real ones at AUC {test.auc:.2f} "
                f"(style alone; at most {bound:.2f} expected)"
            )
    scored = [(test.auc, pid) for pid, test in found.items() if pid != "all" and test.auc is not None]
    if scored:
        auc, pid = max(scored)
        warnings.append(f"most separable from real messages: persona '{pid}' (AUC {auc:.2f})")
    return found, warnings
