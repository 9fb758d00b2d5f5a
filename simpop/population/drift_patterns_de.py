"""German drift an embedding cannot see: the patterns of ``drift_patterns`` for German messages,
the topic masked as "es" (``meaning.mask_topic``). Written from the English patterns before any
German message was labelled:

- **a second question in the same sentence**: "Was sind die Symptome und wie wird es behandelt?";
- **a reversed relation**: a seed asking what causes the condition, a message asking what it
  causes or leads to ("Wozu führt es?", "die Folgen davon");
- **a personalised or narrowed scope**: a seed asking in general, a message asking about the
  writer's own case ("Habe ich es?", "mein Risiko"), about the bot's as if it were the patient
  ("Haben Sie es?"), or about a narrower group or setting ("bei Kindern", "zu Hause").

Each pattern applies only where the seed does not show it itself; ``drift_patterns`` applies
them (``pattern_drift(..., GERMAN)``).
"""

from __future__ import annotations

import re

from simpop.population.drift_patterns import DriftPatterns

_SECOND_QUESTION = re.compile(
    r"\b(?:und|oder)\s+(?:auch\s+)?(?:was|wie|warum|wieso|wann|wo|wer|welche[rsnm]?|"
    r"(?:ist|sind|kann|muss|soll|sollte|wird|gibt)\s+(?:es|man|ich|das|sie)\b)",
    re.IGNORECASE,
)
_ASPECT_WORDS = {
    "symptoms": r"symptom\w*|anzeichen",
    "causes": r"ursache\w*|verursach\w*",
    "treatment": r"behandl\w*|therapie\w*|heilung",
    "diagnosis": r"diagnos\w*|untersuchung\w*|tests?",
    "prevention": r"vorbeug\w*|vorsorge|verhinder\w*|vermeid\w*",
    "susceptibility": r"risik\w*",
    "outlook": r"aussicht\w*|prognose|heilungschancen",
    "complications": r"komplikation\w*",
    "stages": r"stadi\w*",
}
_ASPECT_OF = re.compile(
    "|".join(f"(?P<{name}>\\b(?:{words})\\b)" for name, words in _ASPECT_WORDS.items()), re.IGNORECASE
)
_JOINED = re.compile(r"^\s*(?:,\s*)?(?:und|oder|&|sowie)\s+(?:\w+\s+){0,2}$", re.IGNORECASE)
# the masked topic as the cause: what it causes, leads to, does to you
_ITS_EFFECTS = re.compile(
    r"\b(?:kann|könnte|wird|würde)\s+es\s+(?:\w+\s+){0,2}(?:verursachen|auslösen|führen|bewirken)\b"
    r"|\bes\s+(?:verursacht|führt\s+zu|löst\s+\w+\s+aus)\b|\bwozu\s+führt\b"
    r"|\b(?:folgen|auswirkungen|komplikationen|spätfolgen)\s+(?:von\s+es|davon|daraus)\b"
    r"|\bwas\s+passiert\s+(?:mit\s+(?:mir|ihnen|dem|der)|wenn|nach)\b",
    re.IGNORECASE,
)
_NARROWED = re.compile(
    r"\b(?:bei|für|unter)\s+(?:den\s+|der\s+|jungen\s+|älteren\s+)?(?:männern|frauen|kindern|"
    r"jugendlichen|babys|säuglingen|älteren|senioren|rentnern|schwangeren|schwangerschaft|"
    r"(?:menschen|leuten|personen|patienten|patientinnen)\s+(?:mit|die|über|unter)|jungen)\b"
    r"|\bim\s+alter\b|\bin\s+meinem\s+alter\b|\bzu\s+hause\b|\bwieder\b|\berneut\b",
    re.IGNORECASE,
)
_BOTS_CASE = re.compile(
    r"\b(?:haben|hatten|spüren|merken|bemerken|fühlen)\s+(?:sie|du)\s+(?:selbst\s+|auch\s+)?"
    r"(?:es|schon|eine?n?|symptome|anzeichen|schmerzen)\b"
    r"|\bwenn\s+(?:sie|du)\s+(?:es\s+)?(?:haben|hast|hätten)\b|\bihr(?:e|en)?\s+(?:eigene[sn]?\s+)?es\b"
    r"|\b(?:dein|ihr)\s+alter\b",
    re.IGNORECASE,
)
_OWN_CASE = re.compile(
    r"\b(?:habe\s+ich|hab\s+ich|bekomme\s+ich|kriege\s+ich|könnte\s+ich|muss\s+ich\s+mir\s+sorgen|"
    r"sollte\s+ich\s+mir\s+sorgen|bin\s+ich\s+(?:gefährdet|betroffen)|ist\s+mein|sind\s+meine|"
    r"mein\s+risiko|risiko\b[^?.]*\bfür\s+mich)\b",
    re.IGNORECASE,
)
_FIRST_PERSON = re.compile(r"\b(?:ich|mich|mir|mein\w*)\b", re.IGNORECASE)
_W_QUESTION = re.compile(r"^\s*(?:was|wer|wie|warum|wann|wo|welche[rsnm]?|in\s+welche)\b", re.IGNORECASE)


GERMAN = DriftPatterns(
    second_question=_SECOND_QUESTION,
    aspect_of=_ASPECT_OF,
    joined=_JOINED,
    its_effects=_ITS_EFFECTS,
    narrowed=_NARROWED,
    bots_case=_BOTS_CASE,
    own_case=_OWN_CASE,
    first_person=_FIRST_PERSON,
    general_question=_W_QUESTION,
    filler=re.compile(r"\b(?:die|der|das|den|dem|des|ihre?n?)\b", re.IGNORECASE),
)
