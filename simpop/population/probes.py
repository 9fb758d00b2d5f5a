"""Probes: the LLM, acting as a persona, writes one message for a cell of the plan
(Reichenpfader et al.'s semi-automated mode), from the scenario's situation and seed."""

from __future__ import annotations

import hashlib
import json
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Annotated

import jinja2
from jinja2.sandbox import SandboxedEnvironment
from pydantic import BaseModel, ConfigDict, Field, StringConstraints, create_model

from simpop.errors import ConfigError
from simpop.llm import LLMClient
from simpop.models import Domain, Persona, Scenario, Urgency
from simpop.population.fidelity import split_sentences
from simpop.population.languages import LANGUAGE_NAMES
from simpop.population.message_style import register
from simpop.population.people_words import in_peoples_words
from simpop.population.scaffolds import Scaffold, pool_version
from simpop.prompts import load_prompt, load_prompt_data

MAX_EVERYDAY_WORDS = 8
_NUMBERING = re.compile(r"^\s*(?:[-*\u2022]+|\(?\d+[.)\]:]|[a-z][.)])\s*", re.IGNORECASE)
_WHAT_IS_ARE = re.compile(r"^\s*what is \(are\)\s+(.+?)\s*\?\s*$", re.IGNORECASE)
_TEMPLATES = SandboxedEnvironment(undefined=jinja2.StrictUndefined, trim_blocks=True, lstrip_blocks=True)


OVERSAMPLE = 3  # messages asked for per probe needed; the most distinct valid ones are kept
QUESTION_OVERSAMPLE = 3  # the same for questions alone (a reply's sentences are candidates too)
MAX_MESSAGE_CHARS = 300  # a patient's message; the schema caps it, so a list cannot run away
MAX_QUESTION_CHARS = 120  # a question alone (its story is added apart)
MAX_SHAPED_CHARS = 500  # a message shaped like a real one (MeQSum's: median 269, 90th centile 647)
TOKENS_PER_CHAR = 0.3  # the reply's token budget per character of a message, JSON quoting included
SITUATION_CHARS = 500  # one situation of the patient's (three or four sentences)
SITUATION_EXAMPLES = 2  # examples of a situation shown with the task
SITUATION_TOKENS = 110  # the reply's budget per situation asked for


@lru_cache(maxsize=None)
def messages_model(n: int, max_chars: int = MAX_MESSAGE_CHARS, situations: int = 0) -> type[BaseModel]:
    """The reply schema: exactly ``n`` patient messages of at most ``max_chars`` characters, and
    up to ``situations`` short stories of the patient's (optional: a reply without them is
    still used, the stories then come from sentence frames)."""
    message = Annotated[str, StringConstraints(min_length=1, max_length=max_chars)]
    fields: dict = {"questions": (list[message], Field(min_length=n, max_length=n))}
    if situations:
        story = Annotated[str, StringConstraints(min_length=1, max_length=SITUATION_CHARS)]
        fields["situations"] = (list[story], Field(default_factory=list, max_length=situations))
    return create_model("PatientMessages", __config__=ConfigDict(extra="forbid"), **fields)


def readable(question: str) -> str:
    """A seed question as a leaflet prints it: MedQuAD's "What is (are) Eye Injuries ?" reads
    "What are Eye Injuries?" (a small model copies the "(are)" otherwise)."""
    match = _WHAT_IS_ARE.match(question)
    if match:
        topic = match.group(1)
        last = topic.split()[-1].lower()
        plural = last.endswith("s") and not last.endswith(("ss", "is", "us", "tes"))
        question = f"What {'are' if plural else 'is'} {topic}?"
    return re.sub(r"\s*([?.!])(?:\s*[?.!])*$", r"\1", question.strip())


@dataclass(frozen=True)
class ProbeSource:
    """What one probe is written from: seed question(s), a vignette or knowledge-base passages."""

    questions: list[str]
    vignette: str | None = None
    urgency: Urgency | None = None
    passages: tuple[str, ...] = ()
    titles: tuple[str, ...] = ()
    topic: str | None = None  # of a single seed QAP: what it is about, and its question type
    qtype: str | None = None
    language: str = "en"  # of the seed questions

    @property
    def shown_questions(self) -> list[str]:
        """The seed questions as the patient reads them in the prompt: as a leaflet prints them,
        the topic in a person's words (English's catalogue wordings; another language's as
        written)."""
        if self.language != "en":
            return list(self.questions)
        return [in_peoples_words(readable(q), self.topic) for q in self.questions]

    @property
    def seed_text(self) -> str | None:
        if self.questions:
            return " | ".join(self.questions)
        return self.vignette or ("\n\n".join(self.passages) if self.passages else None)


MIN_QUESTION_WORDS = 3


def one_question_each(texts: list[str]) -> list[str]:
    """Messages split into their sentences, each a candidate of its own (a small model often
    writes a run of questions into one message); fragments left out, and the last sentence of a
    message cut off at the length limit (repeats stay, for the near-duplicate check to count)."""
    result: list[str] = []
    for text in texts:
        sentences = split_sentences(text)
        if sentences and len(text) >= MAX_QUESTION_CHARS - 5 and not sentences[-1].endswith((".", "?", "!")):
            sentences.pop()
        for sentence in sentences:
            if len(sentence.split()) >= MIN_QUESTION_WORDS:
                result.append(sentence)
    return result


def clean_question(text: str) -> str:
    """Strip list numbering, bullets, quotes and surrounding blanks."""
    text = _NUMBERING.sub("", text.strip())
    return text.strip().strip("\"'\u201c\u201d").strip()


def angles(kind: str = "message", persona: Persona | None = None) -> list[str]:
    """Angles of wording: ``wording`` for a seed's question alone, in the ``persona``'s register
    (standard without one), ``message`` for a message."""
    data = load_prompt_data("angles", persona.language if persona else "en")[0][kind]
    return data[register(persona) if persona else "standard"] if kind == "wording" else data


def everyday_lexicon(domain: Domain | None = None, language: str = "en") -> dict[str, str]:
    """Medical terms and everyday words for them: the built-in ones, then the domain's."""
    return load_prompt_data("everyday_words", language)[0] | (domain.everyday_words if domain else {})


def everyday_words(persona: Persona, text: str, domain: Domain | None = None) -> list[tuple[str, str]]:
    """For low health literacy: everyday words for the medical terms in ``text``."""
    if persona.health_literacy != "low":
        return []
    lexicon = everyday_lexicon(domain, persona.language).items()
    found = [(t, w) for t, w in lexicon if _term(t).search(text)]
    return found[:MAX_EVERYDAY_WORDS]


@lru_cache(maxsize=4096)
def _term(term: str) -> re.Pattern[str]:
    return re.compile(rf"\b{re.escape(term)}\b", re.IGNORECASE)


def scenario_prompt(scenario: Scenario, language: str = "en") -> str:
    """The scenario's prompt in ``language``; a one-line error where it has none."""
    if language == "en":
        return scenario.prompt
    if language not in scenario.prompt_in:
        raise ConfigError(
            f"scenario '{scenario.id}': field 'prompt_in': no prompt in language '{language}' "
            f"(have: en{''.join(', ' + k for k in scenario.prompt_in)})"
        )
    return scenario.prompt_in[language]


@lru_cache(maxsize=256)
def _compiled(source: str) -> jinja2.Template:
    return _TEMPLATES.from_string(source)


def situation(scenario: Scenario, domain: Domain | None, source: ProbeSource, language: str = "en") -> str:
    """The scenario's prompt template in ``language``, filled in."""
    try:
        template = _compiled(scenario_prompt(scenario, language))
        return template.render(
            domain=domain,
            seed=source.shown_questions[0] if source.questions else None,
            seeds=source.shown_questions,
            vignette=source.vignette,
            passages=source.passages,
            titles=source.titles,
        ).strip()
    except jinja2.TemplateError as error:
        raise ConfigError(f"scenario '{scenario.id}': field 'prompt': {error}") from None


def scenario_version(scenario: Scenario, language: str = "en") -> str:
    """The version of a scenario's prompt (in ``language``) and examples: their content hash."""
    text = scenario_prompt(scenario, language) + "\x00" + "\x00".join(scenario.examples)
    return hashlib.sha256(text.encode()).hexdigest()[:8]


def prompt_id(scenario: Scenario, language: str = "en") -> str:
    """The versions of the prompts (in ``language``) that write a probe, recorded on it."""
    templates = [load_prompt(name, language).id for name in ("patient_system", "probe_task")]
    names = ("angles", "everyday_words", "stories", "situation_examples")
    data = [f"{name}@{load_prompt_data(name, language)[1]}" for name in names]
    tag = "" if language == "en" else f"{language}:"
    if scenario.scaffold:
        data.append(f"scaffolds@{pool_version()}")
    return tag + "+".join([*templates, *data, f"{scenario.id}@{scenario_version(scenario, language)}"])


def writes_question_only(scenario: Scenario, source: ProbeSource) -> bool:
    """A probe that must ask one seed QAP's question: the LLM writes the question alone, and
    the persona's story is put around it apart (``message_style``), so it cannot drift."""
    single = scenario.source == "qap" and len(source.questions) == 1
    return scenario.keeps_meaning and single and not scenario.scaffold


def persona_system(persona: Persona) -> str:
    """The system prompt of the LLM acting as ``persona``."""
    return load_prompt("patient_system", persona.language).render(
        vignette=persona.vignette.strip(),
        language_name=LANGUAGE_NAMES.get(persona.language, persona.language),
        language_level=persona.language_level,
        health_literacy=persona.health_literacy,
    )


def probe_messages(
    persona: Persona,
    scenario: Scenario,
    domain: Domain | None,
    source: ProbeSource,
    n: int,
    situations: int = 0,
    shown: list[str] | None = None,
    scaffolds: tuple[Scaffold, ...] = (),
) -> list[dict[str, str]]:
    """The persona as system prompt; the scenario's situation and ``n`` messages to write as
    the task (and ``situations`` stories of the patient's, for questions written alone, with
    the ``shown`` examples of ``situation_examples``). ``scaffolds``: real messages put first as
    the persona's own earlier answers to the same task for their questions (a small model
    copies the shape of a turn it has written more readily than one it is told of)."""
    turns = [{"role": "system", "content": persona_system(persona)}]
    for scaffold in scaffolds:
        asked = ProbeSource(questions=[scaffold.asks], language=source.language)
        turns.append({"role": "user", "content": _task(persona, scenario, domain, asked, 1, situations=0)})
        turns.append({"role": "assistant", "content": json.dumps({"questions": [scaffold.message]})})
    task = _task(persona, scenario, domain, source, n, situations, shown)
    return [*turns, {"role": "user", "content": task}]


def _task(
    persona: Persona,
    scenario: Scenario,
    domain: Domain | None,
    source: ProbeSource,
    n: int,
    situations: int = 0,
    shown: list[str] | None = None,
) -> str:
    language = persona.language
    text = situation(scenario, domain, source, language)
    one_question = writes_question_only(scenario, source)
    # a real-shaped message takes its shape from the real ones before it, not from an angle
    kind = "wording" if one_question else "message"
    shown_angles = [] if scenario.scaffold else angles(kind, persona if one_question else None)
    return load_prompt("probe_task", language).render(
        situation=text,
        examples=scenario.examples,
        n=n,
        one_question=one_question,
        angles=shown_angles[: max(n, 3)],
        everyday_words=everyday_words(persona, " ".join(source.questions) or text, domain),
        situations=situations if one_question else 0,
        situation_examples=shown or [],
    )


def situation_examples(persona: Persona, seed: int, k: int = SITUATION_EXAMPLES) -> list[str]:
    """``k`` examples of a situation in the persona's register and language, drawn by ``seed``."""
    pool = load_prompt_data("situation_examples", persona.language)[0][register(persona)]
    return random.Random(seed).sample(pool, min(k, len(pool)))


def reply_budget(n: int, max_chars: int, situations: int) -> int:
    """The reply tokens allowed for ``n`` messages of up to ``max_chars`` and ``situations``."""
    return int(TOKENS_PER_CHAR * max_chars * n) + SITUATION_TOKENS * situations + 32


def _reply(n: int, max_chars: int, situations: int) -> tuple[type[BaseModel], int]:
    """The reply schema and its token budget."""
    return messages_model(n, max_chars, situations), reply_budget(n, max_chars, situations)


async def write_probes(
    llm: LLMClient,
    messages: list[dict[str, str]],
    n: int,
    seed: int,
    max_chars: int = MAX_MESSAGE_CHARS,
    situations: int = 0,
) -> tuple[list[str], list[str]]:
    """``n`` patient messages (cleaned; some may be empty) and the situations written with them."""
    schema, budget = _reply(n, max_chars, situations)
    reply = await llm.structured(messages, schema, seed=seed, max_tokens=budget)
    return [clean_question(text) for text in reply.questions], list(getattr(reply, "situations", []))


def probes_cached(
    llm: LLMClient,
    messages: list[dict[str, str]],
    n: int,
    seed: int,
    max_chars: int = MAX_MESSAGE_CHARS,
    situations: int = 0,
) -> bool:
    """Whether ``write_probes`` with these arguments is answered from the LLM cache."""
    schema, budget = _reply(n, max_chars, situations)
    return llm.cached(messages, schema, seed=seed, max_tokens=budget)
