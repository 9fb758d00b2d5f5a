"""Noise models: how a patient's words are corrupted on their way to the bot.

``asr`` simulates speech-to-text errors word by word: phonetic substitutions and homophones
(the CMU pronouncing dictionary for English, the Kölner Phonetik for German), wrong word
boundaries, deletions (fillers above all), inserted
short words and fillers, a cut-off end and, rarely, a lost utterance. Its default parameters
are fitted to real (English) patient speech (``simpop noise fit``; ``data/asr-errors``) and
used for every language: no German recogniser's errors with a licence were found. ``typos``
simulates keyboard slips for text channels (``typos``). Both are deterministic under a seed.
"""

from __future__ import annotations

import random
import re
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from pydantic import Field
from rapidfuzz.distance import Levenshtein

from simpop.lookup_cache import cached_table
from simpop.models import Fidelity, NoiseConfig, Record
from simpop.population.phonetics_de import koelner_phonetik
from simpop.population.typos import DEFAULT_TYPO_RATE, typo_noise

FILLERS = frozenset({"um", "uh", "er", "erm", "ah", "hmm", "mm", "mhm", "uhm"})
FILLERS_BY_LANGUAGE = {"en": FILLERS, "de": frozenset({"äh", "ähm", "öh", "öhm", "hm", "hmm", "mhm", "ähh"})}
INSERTED_WORDS = {
    "en": ("um", "uh", "a", "i", "it", "no", "and", "the", "to", "so"),
    "de": ("äh", "ähm", "und", "die", "der", "ja", "also", "so", "da", "es"),
}
VOCABULARY_SIZE = 40_000  # the most frequent words of a language: what a speech recogniser writes
LEFT_OUT = frozenset({
    "shit", "fuck", "fucking", "bitch", "cunt", "dick", "piss", "crap", "ass", "tits",
    "scheiße", "scheisse", "fick", "ficken", "arsch", "fotze", "schlampe", "wichser", "titten",
})  # fmt: skip
_TOKEN = re.compile(r"^(\W*)([\w']+)(\W*)$")


class ASRParameters(Record):
    """Per-event probabilities of the ``asr`` model at its default rate."""

    dropout: float = Field(ge=0, le=1, description="the whole utterance is lost")
    truncation: float = Field(ge=0, le=1, description="the end of the utterance is cut off")
    truncated_share: float = Field(ge=0, le=1, description="mean share of words a cut removes")
    filler_deletion: float = Field(ge=0, le=1, description="a filler (um, uh) is left out")
    deletion: float = Field(ge=0, le=1, description="another word is left out")
    substitution: float = Field(ge=0, le=1, description="a word is heard as a similar-sounding one")
    boundary: float = Field(ge=0, le=1, description="two words are heard as one, or one as two")
    insertion: float = Field(ge=0, le=1, description="a short word or filler is added after a word")


# Fitted by `simpop noise fit` to the 175 utterances of data/asr-errors (seed 0); the fitted
# word error rate is the default `rate`, and another rate scales every probability.
DEFAULT_ASR = ASRParameters(
    dropout=0.1086,
    truncation=0.1603,
    truncated_share=0.2743,
    filler_deletion=0.8433,
    deletion=0.0806,
    substitution=0.1035,
    boundary=0.01,
    insertion=0.0624,
)
DEFAULT_ASR_RATE = 0.369


# --- word error rate ------------------------------------------------------------------------


@dataclass(frozen=True)
class WordErrors:
    """Edit operations that turn reference words into hypothesis words (minimal alignment)."""

    reference_words: int
    substitutions: int
    deletions: int
    insertions: int

    @property
    def errors(self) -> int:
        return self.substitutions + self.deletions + self.insertions

    @property
    def wer(self) -> float | None:
        """(S + D + I) / N, the word error rate."""
        return self.errors / self.reference_words if self.reference_words else None

    def share(self, kind: str) -> float | None:
        """The share of ``substitutions``, ``deletions`` or ``insertions`` among all errors."""
        return getattr(self, kind) / self.errors if self.errors else None

    def __add__(self, other: WordErrors) -> WordErrors:
        return WordErrors(
            self.reference_words + other.reference_words,
            self.substitutions + other.substitutions,
            self.deletions + other.deletions,
            self.insertions + other.insertions,
        )


def normalise(text: str) -> list[str]:
    """Lower-case words without punctuation, as word error rates are counted."""
    return re.findall(r"[a-z0-9']+", text.lower().replace("\u2019", "'"))


def word_errors(reference: str, hypothesis: str) -> WordErrors:
    """Substitutions, deletions and insertions of a minimal word-level Levenshtein alignment."""
    ref, hyp = normalise(reference), normalise(hypothesis)
    tags = [op.tag for op in Levenshtein.editops(ref, hyp)]
    return WordErrors(len(ref), tags.count("replace"), tags.count("delete"), tags.count("insert"))


def total_errors(pairs: Iterable[tuple[str, str]]) -> WordErrors:
    total = WordErrors(0, 0, 0, 0)
    for reference, hypothesis in pairs:
        total = total + word_errors(reference, hypothesis)
    return total


# --- the pronouncing dictionary -------------------------------------------------------------


@dataclass(frozen=True)
class Lexicon:
    """A language's frequent words by pronunciation (English: CMU phones, stress removed;
    German: the digits of the Kölner Phonetik), for phonetic confusions."""

    ranks: dict[str, int]
    phones: dict[str, tuple[str, ...]]
    by_phones: dict[tuple[str, ...], list[str]]
    by_deletion: dict[tuple[str, ...], list[tuple[str, int]]]  # one phone left out, and where
    by_spelling: bool = False

    def similar(self, word: str) -> list[str]:
        """Words that sound like ``word``: homophones first, then words one phone away (with a
        coarse code, as the Kölner Phonetik's, the closest in spelling first within each)."""
        phones = self.phones.get(word)
        if phones is None:
            return []
        found = [w for w in self.similar_sounds(phones) if w != word]
        if not self.by_spelling:
            return found
        same = set(self.by_phones.get(phones, []))
        return sorted(found, key=lambda w: (w not in same, -Levenshtein.normalized_similarity(word, w)))

    def similar_sounds(self, phones: tuple[str, ...]) -> list[str]:
        """Words pronounced ``phones``, then words one phone away (one phone substituted,
        added or left out), most frequent first."""
        same = self.by_phones.get(phones, [])
        near = {w for w, _ in self.by_deletion.get(phones, [])}  # one phone more
        for i in range(len(phones)):
            reduced = phones[:i] + phones[i + 1 :]
            near.update(self.by_phones.get(reduced, []))  # one phone less
            near.update(w for w, j in self.by_deletion.get(reduced, []) if j == i)  # one other
        return same + sorted(near - set(same), key=self.rank)

    def rank(self, word: str) -> int:
        return self.ranks[word]

    def word_for(self, phones: tuple[str, ...]) -> str | None:
        """The most frequent word pronounced exactly so."""
        words = self.by_phones.get(phones)
        return words[0] if words else None


def _frequent_words(language: str) -> dict[str, int]:
    from wordfreq import top_n_list

    words = [
        w for w in top_n_list(language, VOCABULARY_SIZE) if (w.isalpha() or "'" in w) and w not in LEFT_OUT
    ]
    return {w: i for i, w in enumerate(words)}


def _index(rank: dict[str, int], phones: dict[str, tuple[str, ...]]) -> tuple[dict, dict, dict, dict]:
    """The tables of a ``Lexicon``: words by pronunciation and by pronunciation less one phone,
    most frequent first."""
    by_phones: dict[tuple[str, ...], list[str]] = defaultdict(list)
    by_deletion: dict[tuple[str, ...], list[tuple[str, int]]] = defaultdict(list)
    for word in sorted(phones, key=rank.__getitem__):
        sounds = phones[word]
        by_phones[sounds].append(word)
        for i in range(len(sounds)):
            by_deletion[sounds[:i] + sounds[i + 1 :]].append((word, i))
    return rank, phones, dict(by_phones), dict(by_deletion)


def _english_tables() -> tuple[dict, dict, dict, dict]:
    import pronouncing

    pronouncing.init_cmu()
    rank = _frequent_words("en")
    phones: dict[str, tuple[str, ...]] = {}
    for word, pron in pronouncing.pronunciations:
        if word in rank and word not in phones:
            phones[word] = tuple(re.sub(r"\d", "", p) for p in pron.split())
    return _index(rank, phones)


def _german_tables() -> tuple[dict, dict, dict, dict]:
    from wordfreq import zipf_frequency

    # German text quotes English ("and", "king"): a German recogniser writes German words, so
    # a word ten times as frequent in English is left out ("was", "hand" and "in" stay)
    german = [w for w in _frequent_words("de") if zipf_frequency(w, "en") - zipf_frequency(w, "de") < 1.0]
    rank = {w: i for i, w in enumerate(german)}
    phones = {word: tuple(code) for word in rank if (code := koelner_phonetik(word))}
    return _index(rank, phones)


_TABLES = {"en": ("asr-lexicon", "1", _english_tables), "de": ("asr-lexicon-de", "3", _german_tables)}


def lexicon_tables(language: str = "en") -> tuple[dict, dict, dict, dict]:
    """Word ranks, pronunciations, words by pronunciation and by pronunciation less one phone;
    built once, then read from the cache folder."""
    name, version, build = _TABLES[language]
    return cached_table(name, f"{VOCABULARY_SIZE}-{version}", build)


@lru_cache(maxsize=None)
def lexicon(language: str = "en") -> Lexicon:
    return Lexicon(*lexicon_tables(language), by_spelling=language != "en")


# --- the models -----------------------------------------------------------------------------


@dataclass
class Token:
    """A word with the punctuation around it, so a changed word keeps its commas and case."""

    before: str
    word: str
    after: str

    @classmethod
    def parse(cls, raw: str) -> Token:
        match = _TOKEN.match(raw)
        return cls(*match.groups()) if match else cls("", raw, "")

    def render(self) -> str:
        return f"{self.before}{self.word}{self.after}"

    def replaced(self, word: str) -> Token:
        if self.word[:1].isupper():
            word = word[:1].upper() + word[1:]
        return Token(self.before, word, self.after)


def _pick(rng: random.Random, options: list[str]) -> str:
    """Mostly the first (most likely) option, sometimes one of the next few."""
    return options[0] if rng.random() < 0.6 else rng.choice(options[:5])


def _substitute(token: Token, lex: Lexicon, rng: random.Random) -> Token | None:
    options = lex.similar(token.word.lower())
    return token.replaced(_pick(rng, options)) if options else None


def _merge(first: Token, second: Token, lex: Lexicon) -> Token | None:
    """Two words heard as one: "a part" -> "apart"."""
    a, b = lex.phones.get(first.word.lower()), lex.phones.get(second.word.lower())
    if a is None or b is None:
        return None
    word = lex.word_for(a + b) or next(iter(lex.similar_sounds(a + b)), None)
    return Token(first.before, first.word, second.after).replaced(word) if word else None


def _split(token: Token, lex: Lexicon) -> list[Token] | None:
    """One word heard as two: "airport" -> "air port"."""
    phones = lex.phones.get(token.word.lower())
    if phones is None:
        return None
    for cut in range(1, len(phones)):
        left, right = lex.word_for(phones[:cut]), lex.word_for(phones[cut:])
        if left and right:
            return [Token(token.before, token.word, "").replaced(left), Token("", right, token.after)]
    return None


def _resegment(first: Token, second: Token, lex: Lexicon) -> list[Token] | None:
    """The boundary between two words heard in the wrong place: "ice cream" -> "i scream"."""
    a, b = lex.phones.get(first.word.lower()), lex.phones.get(second.word.lower())
    if a is None or b is None:
        return None
    joined = a + b
    for cut in range(1, len(joined)):
        if cut == len(a):
            continue
        left, right = lex.word_for(joined[:cut]), lex.word_for(joined[cut:])
        if left and right:
            return [first.replaced(left), Token(second.before, right, second.after)]
    return None


def _boundary(tokens: list[Token], i: int, lex: Lexicon) -> tuple[list[Token], int] | None:
    """A wrong word boundary at token ``i``: the new tokens and how many old ones they replace."""
    if i + 1 < len(tokens):
        for fn in (_resegment, _merge):
            result = fn(tokens[i], tokens[i + 1], lex)
            if result:
                return (result if isinstance(result, list) else [result]), 2
    split = _split(tokens[i], lex)
    return (split, 1) if split else None


LOST_TO_NOISE = "the noise left "  # how the reason of a probe it emptied or cut short starts


def asr_noise(
    text: str, rate: float | None, seed: int, params: ASRParameters = DEFAULT_ASR, language: str = "en"
) -> str:
    """``text`` as a speech recogniser might transcribe it; ``rate`` scales the fitted
    probabilities (the default rate reproduces the real word error rate)."""
    rng = random.Random(seed)
    scale = (DEFAULT_ASR_RATE if rate is None else rate) / DEFAULT_ASR_RATE
    p = {name: min(1.0, value * scale) for name, value in params.model_dump().items()}
    p["truncated_share"] = params.truncated_share
    tokens = [Token.parse(raw) for raw in text.split()]
    if not tokens or rng.random() < p["dropout"]:
        return ""
    if len(tokens) > 1 and rng.random() < p["truncation"]:
        share = min(1.0, rng.uniform(0, 2 * p["truncated_share"]))
        keep = max(1, len(tokens) - max(1, round(share * len(tokens))))
        tokens = tokens[:keep]
    lex, fillers, inserted = lexicon(language), FILLERS_BY_LANGUAGE[language], INSERTED_WORDS[language]
    out: list[Token] = []
    i = 0
    while i < len(tokens):
        token, draw = tokens[i], rng.random()
        step = 1
        if token.word.lower() in fillers:
            if draw >= p["filler_deletion"]:
                out.append(token)
        elif draw < p["deletion"]:
            pass  # not heard: the word is left out
        elif draw < p["deletion"] + p["substitution"]:
            out.append(_substitute(token, lex, rng) or token)
        elif draw < p["deletion"] + p["substitution"] + p["boundary"] and (
            found := _boundary(tokens, i, lex)
        ):
            new, step = found
            out.extend(new)
        else:
            out.append(token)
        if rng.random() < p["insertion"]:
            out.append(Token("", rng.choice(inserted), ""))
        i += step
    return " ".join(t.render() for t in out)


def apply_noise(text: str, noise: NoiseConfig, seed: int, language: str = "en") -> str | None:
    """The noisy text of ``text`` (in ``language``) under ``noise``; ``None`` when the model is
    ``none``."""
    if noise.model == "asr":
        return asr_noise(text, noise.rate, seed, language=language)
    if noise.model == "typos":
        return typo_noise(text, noise.rate, seed, language)
    return None


def expected_rate(noise: NoiseConfig) -> float:
    """The rate a noise model runs at (its default when none is set)."""
    if noise.rate is not None:
        return noise.rate
    return {"asr": DEFAULT_ASR_RATE, "typos": DEFAULT_TYPO_RATE}.get(noise.model, 0.0)


def noise_label(noise: NoiseConfig) -> str:
    """How a probe records the noise it went through, e.g. 'asr@0.369'."""
    return f"{noise.model}@{expected_rate(noise):g}"


def lost_to_noise(fidelity: Fidelity | None, text: str, noisy: str, min_words: int) -> Fidelity | None:
    """``fidelity``, made invalid where the noise left the bot nothing it answers: an empty
    message (speech-to-text lost the whole utterance, ``ASRParameters.dropout``) or one cut under
    ``min_words`` words. The simulator's failure, never the bot's: such a probe is not asked."""
    words = len(noisy.split())
    if words >= max(1, min_words) or (fidelity is not None and not fidelity.valid):
        return fidelity
    left = "nothing" if words == 0 else f"{words} words, under the {min_words} the bot answers,"
    reason = f"{LOST_TO_NOISE}{left} of the message"
    base = fidelity or Fidelity(reading_grade=None, words=len(text.split()))
    return base.model_copy(update={"valid": False, "reason": reason})
