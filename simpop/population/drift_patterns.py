"""Drift an embedding cannot see: the probe's words are the seed's, their relation is not.

With the topic masked, "What does it cause?" and "What causes it?" embed alike, and "Am I at
risk of it?" sits next to "Who is at risk of it?". Word patterns catch what the aspect
check (``meaning``) misses (issue 41, part 6; set on hand-labelled gallstone and osteoporosis
candidates, ``data/meaning-labels/``):

- **a second question in the same sentence**: "What are the symptoms and how is it treated?";
- **a reversed relation**: a seed asking what causes the condition, a probe asking what the
  condition causes or leads to (its consequences);
- **a personalised or narrowed scope**: a seed asking in general, a probe asking about the
  writer's own case ("Am I at risk?", "the risk for me"), about the bot's as if it were the
  patient ("Do you have any signs of it?"), or about a narrower group or setting ("in
  children", "at home", "again"), which the seed's answer does not settle.

Each pattern applies only where the seed does not show it itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# a question word (or a verb opening a yes/no question) after "and"/"or": a second question
_SECOND_QUESTION = re.compile(
    r"\b(?:and|or)\s+(?:also\s+)?(?:what|how|why|when|where|who|which|"
    r"(?:is|are|can|could|do|does|should|will|would)\s+(?:it|they|i|there|my|this|that)\b)",
    re.IGNORECASE,
)
# words that name one aspect each; two different ones joined by "and"/"or" ask two things
_ASPECT_WORDS = {
    "symptoms": r"symptoms?|signs?",
    "causes": r"causes?|caused",
    "treatment": r"treat(?:ed|ments?|ing)?|cured?|therapy|therapies",
    "diagnosis": r"diagnos(?:e|ed|is|ing)|tests?|tested|detect(?:ed)?",
    "prevention": r"prevent(?:ed|ion|ing)?",
    "susceptibility": r"risks?",
    "outlook": r"outlook|prognosis",
    "complications": r"complications?",
}
_ASPECT_OF = re.compile(
    "|".join(f"(?P<{name}>\\b(?:{words})\\b)" for name, words in _ASPECT_WORDS.items()), re.IGNORECASE
)
_AND_ASPECT = re.compile(
    r"\b(?:it|they|them)\s+and\s+(?:its|their|the)\s+(?:\w+\s+)?(?:"
    + "|".join(_ASPECT_WORDS.values())
    + r")\b",
    re.IGNORECASE,
)
_JOINED = re.compile(r"^\s*(?:and|or|&|as well as)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
# the masked topic ("it") as the cause: what it causes, leads to, does to you
_ITS_EFFECTS = re.compile(
    r"\b(?:does|do|can|could|will|would|might|did)\s+(?:it|they)\s+(?:\w+\s+)?"
    r"(?:cause|lead to|result in|bring on|trigger|do to)\b"
    r"|\b(?:it|they)\s+(?:causes?|leads? to|results? in)\b"
    r"|\b(?:effects?|consequences?|complications?|results?)\s+of\s+(?:it|them|having it)\b"
    r"|\bwhat happens\s+(?:to\s+(?:me|you|my|your|the|a|people)|if|when|after)\b",
    re.IGNORECASE,
)
# a narrower group of people or setting than the seed's ("in children", "at home")
_NARROWED = re.compile(
    r"\b(?:in|for|among)\s+(?:the\s+)?(?:men|women|males|females|children|kids|babies|infants|"
    r"teenagers|teens|adolescents|elderly|seniors|older\s+(?:people|adults|individuals|women|men)|"
    r"pregnancy|pregnant\s+women|people\s+(?:with|who)|those\s+(?:with|who)|my\s+age)\b"
    r"|\bas\s+you\s+get\s+older\b|\bat\s+home\b|\bagain\b",
    re.IGNORECASE,
)
# the bot asked about its own case, as if it were the patient ("Do you have any signs of it?")
_BOTS_CASE = re.compile(
    r"\b(?:do|did|have|are)\s+you\s+(?:have|had|got|get|feel|suffer|notice)\b"
    r"|\bif\s+you\s+(?:have|had|are|might)\b|\bfor\s+you\s*[?.!]?\s*$|\byour\s+(?:own\s+)?it\b",
    re.IGNORECASE,
)
# the writer's own case as a yes/no question, or whether they are at risk, where the seed asks
# in general ("How can I tell if I have it?" for a symptoms seed is the seed's question)
_OWN_CASE = re.compile(
    r"\b(?:am i|do i have|have i got|will i (?:get|have)|could i (?:have|get|be)|"
    r"might i (?:have|get|be)|should i (?:worry|be worried)|is my|are my|is it my|"
    r"(?:if|whether) i(?:'m| am) at risk|risk\b[^?.]*\bfor (?:me|my)|my risk\b[^?.]*\bhigher)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:i|me|my|mine|myself)\b", re.IGNORECASE)
_WH_QUESTION = re.compile(r"^\s*(?:what|who|how|why|when|where|which)\b", re.IGNORECASE)


@dataclass(frozen=True)
class DriftPatterns:
    """One language's patterns of the drift above (the German ones: ``drift_patterns_de``)."""

    second_question: re.Pattern[str]  # a question word after "and"/"or"
    aspect_of: re.Pattern[str]  # one named group per aspect word
    joined: re.Pattern[str]  # what may stand between two aspect words asked together
    its_effects: re.Pattern[str]  # the masked topic as the cause
    narrowed: re.Pattern[str]  # a narrower group or setting
    bots_case: re.Pattern[str]  # the bot asked about as if it were the patient
    own_case: re.Pattern[str]  # the writer's own case
    first_person: re.Pattern[str]
    general_question: re.Pattern[str]  # a question word opening a general question
    and_aspect: re.Pattern[str] | None = None  # "it and its symptoms"
    filler: re.Pattern[str] | None = None  # words dropped between aspect words first (articles)


ENGLISH = DriftPatterns(
    second_question=_SECOND_QUESTION,
    aspect_of=_ASPECT_OF,
    joined=_JOINED,
    its_effects=_ITS_EFFECTS,
    narrowed=_NARROWED,
    bots_case=_BOTS_CASE,
    own_case=_OWN_CASE,
    first_person=_FIRST_PERSON,
    general_question=_WH_QUESTION,
    and_aspect=_AND_ASPECT,
)


def asks_two_things(text: str, patterns: DriftPatterns = ENGLISH) -> bool:
    """A second question joined to the first ("... and how is it treated?") or two aspects
    asked together ("the symptoms and treatments")."""
    x = patterns
    if x.second_question.search(text) or (x.and_aspect is not None and x.and_aspect.search(text)):
        return True
    found = [(m.lastgroup, m.start(), m.end()) for m in x.aspect_of.finditer(text)]

    def joined(between: str) -> bool:
        return bool(x.joined.match(x.filler.sub(" ", between) if x.filler is not None else between))

    return any(
        a != b and joined(text[end:start])
        for (a, _, end), (b, start, _) in zip(found, found[1:], strict=False)
    )


def pattern_drift(
    masked_seed: str, masked_probe: str, seed_aspect: str | None, patterns: DriftPatterns = ENGLISH
) -> str | None:
    """Why a probe does not ask its seed's question, by ``patterns`` (``None``: no pattern
    fits). Both texts have the topic masked (``meaning.mask_topic``)."""
    x = patterns

    def new(pattern: re.Pattern[str]) -> bool:  # in the probe, not in the seed
        return bool(pattern.search(masked_probe)) and not pattern.search(masked_seed)

    if asks_two_things(masked_probe, x) and not asks_two_things(masked_seed, x):
        return "asks a second question beside the seed's"
    if seed_aspect == "causes" and new(x.its_effects):
        return "asks what it causes, not what causes it"
    if new(x.bots_case):
        return "asks about the bot's own case, as if it were the patient"
    if new(x.narrowed):
        return "narrows the seed to a group or setting"
    general = x.general_question.match(masked_seed) and not x.first_person.search(masked_seed)
    if general and x.own_case.search(masked_probe):
        return "asks about the writer's own case, not in general"
    return None
