"""A simulated patient who steps out of the role (issue 71): a message that names the persona's
attributes ("with average health literacy", "my English is at level A2"), or that is written by
someone else than a patient or their family ("I am a healthcare provider trying to educate my
patients", "I'm a student doing a science project"), or that carries the service's side of the
exchange ("REPLY: I'm sorry, but I can't assist with that"). All are invalid: no real patient
writes them, and the first tell the bot what it should not know. The attributes and the
profession in English and German; a persona whose own description gives such a role may write
it. The wordings of the service and of a school task were added after the first blind read of
300 messages (`docs/measured.md`), the second read is their held-out check."""

from __future__ import annotations

import re

_ATTRIBUTES = re.compile(
    r"\b(?:health[- ]literacy|literacy level|(?:cefr|language) level|level [abc][12]\b|"
    r"(?:at|on) (?:an? )?[abc][12] level|non-native (?:speaker|english)|"
    r"gesundheitskompetenz|sprachniveau|niveau [abc][12]\b)",
    re.IGNORECASE,
)
_PROFESSIONAL = re.compile(
    r"\b(?:my patients|our patients|(?:i am|i'm|as) an? (?:doctor|nurse|physician|pharmacist|"
    r"clinician|gp|health ?care (?:provider|professional|worker)|medical (?:professional|student))|"
    r"meine patient(?:en|innen)|(?:ich bin|als) (?:arzt|ärztin|krankenpfleger\w*|pflegefachkraft|"
    r"apotheker\w*))\b",
    re.IGNORECASE,
)
# the service's side of the exchange in the patient's message: a refusal, a reply, an offer
_THE_SERVICE = re.compile(
    r"\b(?:i'?m|i am) (?:really |very )?sorry,? but i (?:can'?t|cannot) (?:help|assist)|(?:^|\n)\s*reply:|"
    r"\bplease let me know if you have any (?:other |more |further )?questions\b",
    re.IGNORECASE,
)
# asking for a school or research task, not for oneself or someone one cares for
_NOT_FOR_ONESELF = re.compile(
    r"\b(?:science|school|class|research|university) project\b|"
    r"\bfor (?:my|a) (?:class|assignment|paper|thesis|essay)\b|"
    r"\b(?:i'?m|i am) (?:a )?(?:student|researcher) (?:from|at|in|doing|working)\b",
    re.IGNORECASE,
)
_A_PROFESSION = re.compile(
    r"\b(?:doctor|nurse|physician|pharmacist|clinician|health ?care (?:provider|professional|worker)|"
    r"medical student|arzt|ärztin|krankenpfleger\w*|pflegefachkraft|apotheker\w*)\b",
    re.IGNORECASE,
)


def out_of_role(text: str, vignette: str = "") -> str | None:
    """Why ``text`` is not a patient's message in the persona's role, if it is not."""
    if _ATTRIBUTES.search(text):
        return "names the persona's attributes"
    if _PROFESSIONAL.search(text) and not _A_PROFESSION.search(vignette):
        return "writes as a health professional, not a patient"
    if _THE_SERVICE.search(text):
        return "writes the service's side too (a reply, a refusal, an offer of help)"
    if _NOT_FOR_ONESELF.search(text):
        return "asks for a school or research task, not as a patient"
    return None
