"""The patient's situation, written by the LLM beside the questions (what is going on in their
life that makes them ask: a symptom, what a doctor said, a relative, a test coming up), and the
checks that keep it a story: no question in it, nothing that asks for more than the question
does, no word of the simulation, not the persona's description copied. A situation that fails
is dropped; the message then gets a sentence frame of ``prompts/stories.yaml`` (counted)."""

from __future__ import annotations

import re

from rapidfuzz import fuzz

from simpop.population.fidelity import split_sentences

MIN_WORDS = 4
MAX_WORDS = 60
MAX_CHARS = 240  # the reply schema's cap on one situation
COPY_RATIO = 85.0  # rapidfuzz partial ratio of a situation inside the persona's description
# "..., and I'm wondering if it could be glaucoma": an indirect question, cut off where it starts
_WONDERING = re.compile(
    r"[,;:]?\s*(?:\b(?:and|so|but|which is why|that's why|now)\s+)?"
    r"\b(?:i'?m|i am|i was|i've been|i have been|i|we're|we are|we)?\s*"
    r"(?:wondering|curious|interested in (?:learning|knowing|finding|reading|understanding)|"
    r"(?:want(?:ed)?|would like|'d like|need(?:ed)?) to (?:know|find out|learn|understand|ask)|"
    r"(?:not sure|unsure) (?:if|whether|what|how))\b.*$",
    re.IGNORECASE | re.DOTALL,
)
_SIMULATION = re.compile(
    r"\b(?:chat ?bot|bot|assistant|ai|artificial intelligence|simulat\w*|persona|role[- ]?play|vignette|"
    r"leaflet|prompt|language model|json)\b",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]+", re.UNICODE)


def checked_situation(text: str, vignette: str) -> str | None:
    """The situation as a message tells it (an indirect question cut off), or None where it is
    not a usable story: a question, simulation wording, too short or long, or a copy of the
    persona's description."""
    sentences = []
    for sentence in split_sentences(" ".join(text.split())):
        kept = _WONDERING.sub("", sentence).strip().rstrip(",;:")
        if kept != sentence.strip():
            if len(_WORD.findall(kept)) >= MIN_WORDS:
                sentences.append(kept.rstrip(".!") + ".")
            break  # what follows an indirect question belongs to it
        sentences.append(sentence.strip())
    story = " ".join(sentences).strip()
    words = len(_WORD.findall(story))
    if "?" in story or not MIN_WORDS <= words <= MAX_WORDS or _SIMULATION.search(story):
        return None
    if fuzz.partial_ratio(story.lower(), vignette.lower()) >= COPY_RATIO and words >= 6:
        return None
    return story


def usable_situations(texts: list[str], vignette: str) -> list[str]:
    """The checked situations of a reply (see ``checked_situation``), each once, in order."""
    found = [s for s in (checked_situation(t, vignette) for t in texts) if s]
    return list(dict.fromkeys(found))
