"""The patient's situation, written by the LLM beside the questions (what is going on in their
life that makes them ask: a symptom, what a doctor said, a relative, a test coming up), and the
checks that keep it the patient's own story: cut where a question starts, no word of the
simulation, told in the first person, not the persona's description copied, no age for the
writer or a relative that the persona's contradicts, no sentence of another situation or of an
example. A situation that fails is dropped; the message then gets a sentence frame of
``prompts/stories.yaml`` (counted)."""

from __future__ import annotations

import re
from collections.abc import Sequence

from rapidfuzz import fuzz

from simpop.population.fidelity import split_sentences
from simpop.population.message_style import ages_fit, described_age
from simpop.population.out_of_role import out_of_role

MIN_WORDS = 4
MAX_WORDS = 90
COPY_RATIO = 85.0  # rapidfuzz partial ratio of a situation inside the persona's description
SAME_SENTENCE = 90.0  # rapidfuzz ratio of two sentences that are one sentence reworded
# "..., and I'm wondering if it could be glaucoma": an indirect question, cut off where it starts
_WONDERING = re.compile(
    r"[,;:]?\s*(?:\b(?:and|so|but|which is why|that's why|now)\s+)?"
    r"\b(?:i'?m|i am|i was|i've been|i have been|i|we're|we are|we)?\s*"
    r"(?:wondering|curious|interested in (?:learning|knowing|finding|reading|understanding)|"
    r"(?:want(?:ed)?|would like|'d like|need(?:ed)?) to (?:know|find out|learn|understand|ask)|"
    r"(?:not sure|unsure) (?:if|whether|what|how)|"
    r"frage mich|(?:möchte|würde gerne|will|wollte) (?:gerne |mal )?(?:wissen|fragen|erfahren))\b.*$",
    re.IGNORECASE | re.DOTALL,
)
_SIMULATION = re.compile(
    r"\b(?:chat ?bot|bot|assistant|ai|artificial intelligence|simulat\w*|persona|role[- ]?play|vignette|"
    r"leaflet|prompt|language model|json|"
    r"assistent\w*|ki|künstliche intelligenz|simuliert\w*|rolle|informationsblatt|merkblatt|sprachmodell)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)
_FIRST_PERSON = re.compile(
    r"\b(?:i|i'm|i've|i'd|im|me|my|we|our|us|ich|mich|mir|mein\w*|wir|uns|unser\w*)\b", re.IGNORECASE
)  # English and German


def checked_situation(text: str, vignette: str) -> str | None:
    """The situation as a message tells it (cut where a question, direct or indirect, starts),
    or None where it is not a usable story: simulation wording, too short or long, not told in the
    first person, a copy of the persona's description, or an age of the writer's or a relative's
    that the description contradicts."""
    sentences = []
    for sentence in split_sentences(" ".join(text.split())):
        if "?" in sentence:
            break  # the story ends where the patient starts asking
        kept = _WONDERING.sub("", sentence).strip().rstrip(",;:")
        if kept != sentence.strip():
            if len(_WORD.findall(kept)) >= MIN_WORDS:
                sentences.append(kept.rstrip(".!") + ".")
            break  # what follows an indirect question belongs to it
        sentences.append(sentence.strip())
    story = " ".join(sentences).strip()
    words = len(_WORD.findall(story))
    if not MIN_WORDS <= words <= MAX_WORDS or _SIMULATION.search(story):
        return None
    if out_of_role(story, vignette):
        return None  # "I am 47 with average health literacy", "my patients"
    if not _FIRST_PERSON.search(story):
        return None  # "A 65-year-old patient is being evaluated": told about someone, not by them
    if fuzz.partial_ratio(story.lower(), vignette.lower()) >= COPY_RATIO and words >= 6:
        return None
    if ages_fit(story, described_age(vignette)) is False:
        return None  # "I am 52" from an 81-year-old; her mother is not 81
    return story


def usable_situations(
    texts: list[str], vignette: str, shown: Sequence[str] = (), had: Sequence[str] = ()
) -> list[str]:
    """The checked situations of a reply (see ``checked_situation``) in order, each without the
    sentences it shares with another, with those ``had`` already or with the ``shown`` examples
    (near-copies would make stock sentences of a run), and dropped where too little is left."""
    found: list[str] = []
    told = [sentence for story in [*shown, *had] for sentence in _long_sentences(story)]
    for story in (checked_situation(t, vignette) for t in texts):
        if not story:
            continue
        rest = " ".join(s for s in split_sentences(story) if not _told(s, told))
        if len(_WORD.findall(rest)) >= MIN_WORDS and _FIRST_PERSON.search(rest):
            found.append(rest)
            told += _long_sentences(rest)
    return found


def _told(sentence: str, told: list[str]) -> bool:
    return any(fuzz.ratio(sentence.lower(), t) >= SAME_SENTENCE for t in told)


def _long_sentences(story: str) -> list[str]:
    """A story's sentences of at least ``MIN_WORDS`` words, lower-cased (how near-copies compare)."""
    return [s.lower() for s in split_sentences(story) if len(_WORD.findall(s)) >= MIN_WORDS]
