"""What a run will cost before it starts (``simpop run --dry-run`` and the first lines of every
run): its cells, the LLM calls to expect for generation, the bot and the judges, and about how
long they take at the pace recorded on this machine. No LLM is called."""

from __future__ import annotations

import textwrap
from collections import Counter
from dataclasses import dataclass, replace
from datetime import datetime

from simpop.aggregate import EXAMPLES_PER_SCENARIO
from simpop.judging.profile import profile_for
from simpop.judging.safety_classifier import run_paths
from simpop.llm import LLMClient, embedded_server, open_llm
from simpop.llm.client import CallKind
from simpop.llm.pace import EndpointPace, pace_key, pace_of
from simpop.metrics import Case, Metric, Planned, selected
from simpop.models import Cell, LLMConfig, Probe, Response, RunConfig
from simpop.run.conversation_summary import WORST
from simpop.run.converse import turn_behaviour
from simpop.run.generate import GroupRequest, plan_groups, uncached_requests
from simpop.run.plan import RunInputs
from simpop.run.tasks import BOT_ANSWERS, JUDGES, PATIENT_TURNS, REASONS, WRITE_QUESTIONS

# Question-writing calls per group of cells, top-ups included. Groups of one cell: 23 to 27
# calls for the main command's 22 (targets/eye-first.yaml, seven runs: 1.05–1.23 a group). The
# full study (targets/eye-qap.yaml --variants 3 --limit 10: 105 groups of one cell, 105 of
# three): 274 to 346 calls in six runs with the 1.5B (mean 323), so about
# (323 − 1.1 × 105) / 105 = 2.0 for a group of several; 468 with the 0.5B (more top-ups for
# questions that drift or repeat).
CALLS_PER_GROUP = 2.0
CALLS_PER_ONE_CELL_GROUP = 1.1
# The judge calls of each answer are the chosen metrics' own (``Metric.expected_calls``): on the
# full study (2026-11-27) a QAP bot's came to 1.0 an answer (429 calls for 420 cells, the reasons
# a report shows included), the naive RAG bot's to 4.1 (2026-11-29); the safety verdicts a
# classifier decides call no LLM.
# The reasons a report shows, per answer it shows (the worst few of each scenario and the turns
# of the worst conversations): only failing verdicts get one. A QAP bot's: 4 to 6 calls for the
# main command's 22 shown answers in three runs, 7 to 15 for the full study's 33 in three: 46 for
# 165. A bot that writes its answers fails more verdicts (faithfulness): 18 and 32 for 23 in the
# two runs above.
REASON_CALLS_PER_SHOWN_ANSWER = {"qap": 0.28}
REASON_CALLS_PER_SHOWN_WRITTEN_ANSWER = 1.1
# Prompt and reply tokens of a typical call, to turn the embedded server's measured reading and
# writing speed into seconds before any call of that kind was timed here (the same runs:
# 383 + 132 tokens per question-writing call, 1,130 prompt tokens per judged answer), and the
# reply tokens a question-writing call of those runs allowed on average (their first requests).
TYPICAL_TOKENS: dict[CallKind, tuple[int, int]] = {
    "schema": (383, 132),
    "text": (650, 70),  # the naive RAG bot's answers in the runs above: 620–660 read anew, 68–74 written
    "yes_no": (365, 1),
    # asked after the verdict in its conversation, most of the prompt a cached prefix: the main
    # command's reasons read 191–420 tokens anew (of 736–943) and wrote 15–16 in four runs
    "reason": (300, 16),
}
TYPICAL_MAX_TOKENS = 515  # the full study's 210 first requests
GENERATING_BOTS = {"llm_only": 1, "naive_rag": 1, "hyde_rag": 2}  # simpop LLM calls per answer


@dataclass(frozen=True)
class StageCost:
    """The LLM calls one stage is expected to make and the seconds they take (None: unknown)."""

    stage: str
    calls: float
    seconds: float | None
    detail: str
    llm: LLMConfig | None = None  # who makes the calls
    kind: CallKind = "schema"
    languages: tuple[str, ...] = ("en",)  # the patients'
    max_tokens: float | None = None  # reply tokens a call allows, on average (None: the kind's usual)


@dataclass(frozen=True)
class RunEstimate:
    cells: int
    per_persona: Counter[str]
    per_scenario: Counter[str]
    stages: list[StageCost]
    paces: list[str]  # where each known pace comes from
    conversations: int = 0
    configs: tuple[LLMConfig, ...] = ()  # the LLMs that will be called

    def retimed(self) -> RunEstimate:
        """The same calls at the pace recorded now (after ``time_servers``)."""
        stages = [
            replace(s, seconds=_seconds(s.calls, s.llm, s.kind, s.languages, s.max_tokens)) if s.llm else s
            for s in self.stages
        ]
        return replace(self, stages=stages, paces=[_where(c) for c in self.configs])

    @property
    def seconds(self) -> float | None:
        known = [s.seconds for s in self.stages if s.calls]
        return None if any(s is None for s in known) else sum(s or 0.0 for s in known)


def wall_per_call(
    pace: EndpointPace | None,
    kind: CallKind,
    languages: tuple[str, ...] = ("en",),
    max_tokens: float | None = None,
) -> float | None:
    """Seconds of wall time per call of ``kind``.

    On the embedded server, the tokens a call of that kind read anew and wrote in the last run
    in these languages (its replies scaled to ``max_tokens``), at the server's reading and
    writing speed now: on a CPU its slots share the arithmetic, so the calls' times add up
    whether they run together or not (the full study: wall ÷ that time 1.05; four slots write
    at about one slot's speed, ``docs/measured.md``). Where no call of the kind has its tokens
    recorded, a typical call's. Elsewhere (a remote endpoint), that run's time per call over
    the requests it had in flight at once."""
    if pace is None:
        return None
    then = pace.kinds.get(pace_key(kind, list(languages)))
    if pace.prefill and pace.decode:
        if then is not None and then.prompt_tokens is not None and then.completion_tokens is not None:
            new = then.prompt_tokens - (then.reused_prompt_tokens or 0.0)
            reply = then.completion_tokens
            if max_tokens and then.max_tokens:  # replies grow with the tokens they may take
                reply *= max_tokens / then.max_tokens
        else:
            new, reply = TYPICAL_TOKENS[kind]
            if max_tokens and kind == "schema":
                reply *= max_tokens / TYPICAL_MAX_TOKENS
        return new / pace.prefill + reply / pace.decode
    if then is not None:
        return then.wall_per_call
    return None


def _seconds(
    calls: float, config: LLMConfig, kind: CallKind, languages: tuple[str, ...], max_tokens: float | None
) -> float | None:
    per_call = wall_per_call(pace_of(config), kind, languages, max_tokens)
    return None if per_call is None else calls * per_call


def _cost(
    stage: str,
    calls: float,
    config: LLMConfig,
    kind: CallKind,
    detail: str,
    languages: tuple[str, ...],
    max_tokens: float | None = None,
) -> StageCost:
    seconds = _seconds(calls, config, kind, languages, max_tokens)
    return StageCost(stage, calls, seconds, detail, config, kind, languages, max_tokens)


def _where(config: LLMConfig) -> str:
    pace = pace_of(config)
    endpoint = config.base_url or "the embedded server"
    if pace is None:
        return f"{config.model} at {endpoint}: no pace recorded on this machine yet"
    when = datetime.fromtimestamp(pace.updated).strftime("%Y-%m-%d %H:%M")
    return f"{config.model} at {endpoint}: pace recorded {when}"


def _to_write(config: RunConfig, inputs: RunInputs, use_cache: bool) -> list[GroupRequest]:
    """The groups' first requests the LLM cache does not answer."""
    if not use_cache:
        return uncached_requests(inputs, None, config.seed)
    llm: LLMClient = open_llm(config.llm, use_cache=True)
    try:
        return uncached_requests(inputs, llm, config.seed)
    finally:
        if llm.cache is not None:
            llm.cache.close()


def _bot_answers(config: RunConfig, cells: int, languages: tuple[str, ...]) -> StageCost:
    bot_calls = GENERATING_BOTS.get(config.target.kind, 0)
    if not bot_calls:
        return StageCost(BOT_ANSWERS, 0, 0.0, f"up to {cells} questions to the bot; it calls no simpop LLM")
    bot_llm = getattr(config.target, "llm", None) or config.llm
    detail = f"up to {cells} questions, {bot_calls} call{'s' if bot_calls > 1 else ''} each"
    return _cost(BOT_ANSWERS, bot_calls * cells, bot_llm, "text", detail, languages)


_UNWRITTEN = {"sampling_seed": 0, "prompt": "", "llm_model": ""}


def _planned(inputs: RunInputs, cell: Cell, turn: bool = False) -> Case:
    """A cell's probe as the plan knows it (no text, no answer), for the metrics to cost."""
    ids = cell.fields() | {"run_id": ""}
    if turn:
        case = inputs.cases[cell.scenario_id]
        expected = turn_behaviour(case.expected)
        probe = Probe(**ids, text=None, expected_behaviour=expected, also_safe=case.also_safe, **_UNWRITTEN)
        return Case(probe=probe, response=Response(**ids, target="", question=None))
    scenario = inputs.scenarios[cell.scenario_id]
    questions = inputs.source(cell).questions if scenario.source == "multi_question" else None
    probe = Probe(
        **ids,
        text=None,
        expected_behaviour=scenario.expected_behaviour,
        also_safe=scenario.also_safe,
        sub_questions=questions or None,
        gold_ids=inputs.gold_ids(cell),
        **_UNWRITTEN,
    )
    return Case(probe=probe, response=Response(**ids, target="", question=None), source=scenario.source)


def _judges(config: RunConfig, inputs: RunInputs, metrics: list[Metric]) -> StageCost:
    """The chosen metrics' expected calls on every planned answer, in the language it will be
    answered in (a QAP bot's: its own; a bot that writes: the patient's), and one contradiction
    call per conversation. A conversation's turns are scored by the metrics that call no LLM
    unless ``scoring.turn_judges`` names them."""
    if not config.scoring.judges:
        return StageCost(JUDGES, 0, 0.0, "off")
    writes = config.target.kind != "qap"
    paths = run_paths(profile_for((config.judge or config.llm).model), config.scoring)
    personas = {p.id: p.language for p in inputs.personas}
    planned = {
        language: Planned(writes, frozenset(v for v, by in paths.items() if language in by))
        for language in {inputs.language, *personas.values()}
    }
    on_turns = [m for m in metrics if not m.calls_llm or m.name in config.scoring.turn_judges]

    def calls(cell: Cell, turn: bool) -> float:
        answered_in = planned[personas[cell.persona_id] if writes else inputs.language]
        case = _planned(inputs, cell, turn)
        scored = [m for m in (on_turns if turn else metrics) if m.applies(case)]
        return sum(m.expected_calls(case, answered_in) for m in scored)

    answers = sum(calls(cell, False) for cell in inputs.cells)
    turns = [(c, inputs.cases[c.scenario_id].max_turns) for c in inputs.conversations]
    answers += sum(n * calls(cell, True) for cell, n in turns)
    judged = len(inputs.cells) + sum(n for _, n in turns)
    per = [f"about {answers / judged:.1f} per answer, up to {judged} answers"] if judged else []
    detail = ", ".join(per + (["1 per conversation"] if inputs.conversations else []))
    calls_in_all = answers + len(inputs.conversations)
    return _cost(JUDGES, calls_in_all, config.judge or config.llm, "yes_no", detail, tuple(inputs.languages))


def _reasons(config: RunConfig, inputs: RunInputs) -> StageCost:
    if not config.scoring.judges:
        return StageCost(REASONS, 0, 0.0, "off")
    per_scenario = Counter(c.scenario_id for c in inputs.cells)
    worst = sorted((inputs.cases[c.scenario_id].max_turns for c in inputs.conversations), reverse=True)
    shown = sum(min(n, EXAMPLES_PER_SCENARIO) for n in per_scenario.values()) + sum(worst[:WORST])
    detail = f"for failing verdicts of the up to {shown} answers a report shows"
    per_shown = REASON_CALLS_PER_SHOWN_ANSWER.get(config.target.kind, REASON_CALLS_PER_SHOWN_WRITTEN_ANSWER)
    calls = per_shown * shown
    return _cost(REASONS, calls, config.judge or config.llm, "reason", detail, tuple(inputs.languages))


def estimate(config: RunConfig, inputs: RunInputs, use_cache: bool = True) -> RunEstimate:
    """The run's cells and expected LLM calls; the question-writing calls the cache already
    answers are left out."""
    metrics = selected(config.metrics, config.scoring.judges)
    groups = len(plan_groups(inputs))
    requests = _to_write(config, inputs, use_cache)
    to_write, cached = len(requests), groups - len(requests)
    languages = tuple(inputs.languages)
    turns = sum(inputs.cases[c.scenario_id].max_turns for c in inputs.conversations)
    cells = len(inputs.cells) + turns  # a conversation's turns are answered and judged like cells
    written = (
        f"{groups} groups of cells, {cached} answered from the cache"
        if to_write
        else f"no LLM call: the cache answers all {groups} groups of cells"
        if groups
        else "no cells"
    )
    allowed = sum(r.max_tokens for r in requests) / to_write if to_write else None
    calls = sum(CALLS_PER_ONE_CELL_GROUP if r.cells == 1 else CALLS_PER_GROUP for r in requests)
    stages = [_cost(WRITE_QUESTIONS, calls, config.llm, "schema", written, languages, allowed)]
    if inputs.conversations:
        talks = f"{len(inputs.conversations)} conversations, up to {turns} messages"
        stages.append(_cost(PATIENT_TURNS, turns, config.llm, "schema", talks, languages))
    stages += [
        _bot_answers(config, cells, languages),
        _judges(config, inputs, metrics),
        _reasons(config, inputs),
    ]
    configs: dict[str, LLMConfig] = {}
    for stage in stages:  # the first stage's config of each model
        if stage.llm is not None and stage.calls:
            configs.setdefault(stage.llm.model, stage.llm)
    return RunEstimate(
        cells=len(inputs.cells),
        per_persona=Counter(c.persona_id for c in inputs.cells),
        per_scenario=Counter(c.scenario_id for c in inputs.cells),
        stages=stages,
        paces=[_where(c) for c in configs.values()],
        conversations=len(inputs.conversations),
        configs=tuple(configs.values()),
    )


WRITING = (WRITE_QUESTIONS, PATIENT_TURNS)  # the stages whose cached calls the plan knows


def time_servers(found: RunEstimate) -> RunEstimate:
    """Start the embedded servers the run will call and time them now (the run then uses them),
    so that a fresh machine gets an estimate and a busy one a longer one. Where the cache holds
    every question (a re-run), none is started: the later stages' calls are then mostly cached
    too, and a server that is needed starts at its first call."""
    if not any(s.calls for s in found.stages if s.stage in WRITING):
        return found
    servers = [embedded_server(c) for c in found.configs if c.base_url is None and c.timeout is None]
    for server in dict.fromkeys(servers):
        server.start()
    return found.retimed() if servers else found


def duration(seconds: float) -> str:
    minutes = round(seconds / 60)
    if minutes < 1:
        return f"{seconds:.0f} s"
    return f"{minutes} min" if minutes < 90 else f"{minutes / 60:.1f} h"


def estimate_lines(found: RunEstimate) -> list[str]:
    """The estimate in a few lines of at most about 80 columns."""

    def counts(counter: Counter[str]) -> str:
        values = set(counter.values())
        if len(values) == 1 and len(counter) > 1:
            return f"{len(counter)} × {values.pop()}"
        return ", ".join(f"{name} {n}" for name, n in counter.items())

    n_talks = found.conversations
    talks = f"; {n_talks} conversation{'s' * (n_talks > 1)}" if n_talks else ""
    lines = [f"plan: {found.cells} cell{'s' * (found.cells != 1)}{talks}"]
    if found.cells:
        lines[0] += f"; per persona: {counts(found.per_persona)}"
        lines.append(
            textwrap.fill(
                f"per scenario: {counts(found.per_scenario)}",
                78,
                initial_indent="  ",
                subsequent_indent="    ",
                break_on_hyphens=False,
            )
        )
    for stage in found.stages:
        if not stage.calls:
            lines.append(f"  {stage.stage}: {stage.detail}")
            continue
        cost = f", about {duration(stage.seconds)}" if stage.seconds is not None else ", time unknown"
        calls = f"{stage.calls:,.0f}"
        lines.append(f"  {stage.stage}: about {calls} LLM call{'s' * (calls != '1')}{cost} ({stage.detail})")
    total = found.seconds
    lines.append(
        f"  in all: about {duration(total)} of LLM time"
        if total is not None
        else "  in all: time unknown until a run records the pace (it does at its end)"
    )
    writing = [s for s in found.stages if s.stage in WRITING]
    if found.cells and not any(s.calls for s in writing) and any(s.calls for s in found.stages):
        lines.append(
            "  every question is in the cache: where the bot and the judges are unchanged since, "
            "their calls are cached too and the run takes seconds"
        )
    lines += [f"  {where}" for where in found.paces]
    return lines
