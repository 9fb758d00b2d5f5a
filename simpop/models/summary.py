"""What ``summary.json`` holds: per-group figures with intervals, fidelity (``fidelity_records``),
topics, labels, the judge, calibration and risk."""

from __future__ import annotations

from typing import Literal, get_args

from pydantic import Field

from simpop.models.fidelity_records import FidelitySummary
from simpop.models.inputs import Behaviour, Persona
from simpop.models.record_base import Record


class LLMUsage(Record):
    """What the LLM layer did during a run."""

    requests: int = 0
    cache_hits: int = 0
    prompt_tokens: int = 0
    completion_tokens: int = 0
    retries: int = 0
    failures: int = 0
    prefill_s: float = Field(0.0, description="server time reading prompts (llama.cpp's timings)")
    decode_s: float = Field(0.0, description="server time writing replies (llama.cpp's timings)")
    reused_prompt_tokens: int = Field(
        0, description="prompt tokens the server had cached from a shared prefix"
    )

    def plus(self, other: LLMUsage) -> LLMUsage:
        """Both together (a run's invocations)."""
        return LLMUsage(
            **{name: getattr(self, name) + getattr(other, name) for name in LLMUsage.model_fields}
        )


class GroupAccuracy(Record):
    """QAP-match accuracy of one group of probes (Reichenpfader eq. 1) with a Wilson interval."""

    group: str
    n: int
    correct: int
    wrong: int
    no_answer: int
    accuracy: float | None
    ci_low: float | None
    ci_high: float | None


class QAPAccuracy(Record):
    """QAP-match accuracy per persona and in total."""

    personas: list[GroupAccuracy]
    total: GroupAccuracy


class GroupMean(Record):
    """The mean of one metric over a group of probes, with a 95% interval.

    ``metric`` is ``family`` or ``family.value`` (e.g. ``retrieval.recall``).
    """

    group: str
    metric: str
    n: int
    mean: float | None
    ci_low: float | None
    ci_high: float | None
    interval: Literal["wilson", "bootstrap"] | None = Field(
        None, description="Wilson for rates (0/1 values), percentile bootstrap for other means"
    )
    persona_id: str | None = None
    scenario_id: str | None = None


class TopicCluster(Record):
    """One topic cluster of the knowledge base: named after its most common document title."""

    cluster: int
    name: str
    chunks: int = Field(description="chunks long enough to sample")
    sampled: int


class TopicStrata(Record):
    """How the knowledge base was stratified into topics (HCAT, section 2)."""

    chunks: int
    components: int = Field(description="PCA dimensions clustered")
    clusters: list[TopicCluster]
    silhouette: dict[int, float] = Field(description="mean silhouette per number of clusters tried")
    allocation: str


class LabelRow(Record):
    """One row of Reichenpfader et al.'s Table 2: a persona's answers as clinicians judged them."""

    group: str
    questions: int = Field(description="probes asked")
    labelled: int
    correct: int
    partially_correct: int
    incorrect: int
    no_answer: int = Field(description="labelled probes the bot gave no answer to")
    correct_share: float | None = Field(description="correct over labelled")
    partially_correct_share: float | None
    incorrect_share: float | None


class LabelTable(Record):
    """Human labels per persona and in total."""

    personas: list[LabelRow]
    total: LabelRow


class Validation(Record):
    """How far one judged figure can be trusted: the held-out agreement with people of the judge
    that decided it (the weakest one, for a figure derived from several)."""

    judge: str = Field(description="who decided it: a safety classifier file, or the LLM judge")
    kappa: float | None = Field(None, description="Cohen's kappa on labelled data it was not fitted on")
    kappa_interval: tuple[float, float] | None = None
    data: str | None = Field(None, description="the held-out data the kappa was measured on")
    validated: bool = Field(description="a held-out kappa at or above the bar (0.6)")


def weakest(found: list[Validation]) -> Validation:
    """The validation of a figure decided by several judges: the least validated, lowest kappa."""
    return min(found, key=lambda v: (v.validated, v.kappa if v.kappa is not None else -1.0))


class JudgeSummary(Record):
    """Who judged the answers and how often a judgement failed or was undefined."""

    model: str
    profile: str = Field("uncalibrated", description="the judge profile: thresholds and verifier")
    agreement: str = Field(
        "agreement with humans not measured for this judge", description="the profile's measured agreement"
    )
    judged_by: dict[str, int] = Field(
        {}, description="judged scores by how: probability, structured, verifier, classifier, gold"
    )
    yes_no: str | None = Field(None, description="yes/no verdicts: 'log-probabilities' or 'structured'")
    prompts: list[str] = Field(description="judge prompts used, as name@version")
    judged: int = Field(description="probes with judged scores")
    judged_turns: int = Field(0, description="conversation turns with judged scores")
    errors: dict[str, int] = Field(
        description="judge errors per metric, of probes and conversation turns (the reply never validated)"
    )
    no_information: int = Field(description="answers with no informative sentence: CF is null, counted apart")
    llm: LLMUsage | None = Field(None, description="the judge's own LLM use, when it is not the run's llm")
    validation: dict[str, Validation] = Field(
        {},
        description="per judged figure: its judge's held-out agreement, and whether it is validated (safe "
        "behaviour: the weakest of the verdicts of the behaviours the run's scenarios expect)",
    )
    verdicts: dict[str, Validation] = Field(
        {},
        description="per judge verdict (refused, urges_urgent_help, addressed, ...): who decided it and its "
        "held-out agreement; a figure's validation in one scenario or gate rule is built from these",
    )


class ScenarioBrief(Record):
    """A scenario as a report names it: its hazard and what the safe bot does."""

    id: str
    name: str
    question_type: str
    hazard: str
    safe_concept: str
    expected_behaviour: Behaviour
    also_safe: list[Behaviour] = []
    severity: str


class Untested(Record):
    """A scenario, conversation case or persona of which no cell was scored: a hazard or a
    patient the run did not test, however good its other figures."""

    kind: Literal["scenario", "case", "persona"]
    id: str
    planned: int = Field(description="its planned cells (probes and conversations)")
    not_scored: dict[str, int] = Field(
        {}, description="why its cells have no score: reason (invalid, duplicate, target_error, ...) → cells"
    )

    @property
    def name(self) -> str:
        return "conversation case" if self.kind == "case" else self.kind

    @property
    def why(self) -> str:
        reasons = ", ".join(f"{reason} {n}" for reason, n in self.not_scored.items())
        return f"none of its {self.planned} cells was scored" + (f" ({reasons})" if reasons else "")


SUMMARY_SCHEMA_VERSION = "1"


CalibrationMethod = Literal["platt", "isotonic", "ordinal"]
CALIBRATION_METHODS: tuple[str, ...] = get_args(CalibrationMethod)


class PredictedGroup(Record):
    """The predicted label shares of a group of probes: mean calibrated probabilities, or the
    share a clinical-risk model predicts for each level."""

    group: str
    by: Literal["total", "persona", "scenario"]
    n: int
    shares: dict[str, float] = Field(description="label level → share of the group's probes")
    review: int | None = Field(None, description="probes whose prediction set is empty or ambiguous")


class CalibrationSummary(Record):
    """A calibrator applied to the run (``--calibrator``): HCAT §5's calibrated probabilities and
    conformal review queue."""

    calibrator: str
    label: str
    levels: list[str]
    method: str
    scores: list[str]
    alpha: float
    quantile: float
    calibrated: int = Field(description="probes with every score the calibrator maps")
    without_score: int = Field(description="asked probes missing one of its scores")
    review: int = Field(description="probes in the review queue (empty or ambiguous prediction set)")
    groups: list[PredictedGroup]


class RiskSummary(Record):
    """A clinical-risk model applied to the run (``simpop risk apply``, ASTRID §4.2.2)."""

    model: str
    kind: str = Field(description="the classifier chosen on the validation split")
    label: str
    levels: list[str]
    features: list[str]
    predicted: int = Field(description="probes with a prediction")
    groups: list[PredictedGroup]


class StageFailures(Record):
    """How many of its cells a stage could not do, and the commonest error."""

    stage: Literal["generate", "ask", "judge", "converse"] = Field(
        description="judge counts probes and conversation turns; converse, conversations"
    )
    planned: int
    failed: int
    error: str | None = Field(None, description="the commonest error of the failed cells")

    @property
    def share(self) -> float:
        return self.failed / self.planned if self.planned else 0.0


class CaseBrief(Record):
    """A conversation case as the report names it."""

    id: str
    name: str
    scenario: str = Field(description="the SACE scenario it comes from")
    expected: Behaviour
    by_turn: int | None = None
    due_turn: int = Field(1, description="the patient's message from which it is due")
    severity: str
    max_turns: int


class ConversationSummary(Record):
    """The conversations of a run: how they ended, and each outcome metric (``conversation`` or
    ``conversation.<value>``) per persona, per case and per pair, with 95% intervals."""

    planned: int
    played: int
    endings: dict[str, int] = Field({}, description="conversations by how they ended")
    turns: int = Field(0, description="the patients' messages sent")
    flagged: dict[str, dict[str, int]] = Field(
        {}, description="per persona: messages sent though not believable (speaks as the chatbot ...), by why"
    )
    added: dict[str, int] = Field(
        {}, description="per persona: messages that left out a fact due at their turn, which simpop added"
    )
    cases: list[CaseBrief] = []
    metrics: list[GroupMean] = Field([], description="per persona and in total")
    metrics_by_case: list[GroupMean] = []
    metrics_by_persona_case: list[GroupMean] = []
    failed_turns: dict[str, dict[str, int]] = Field(
        {}, description="per case: conversations whose outcome was not met, by the turn it failed at"
    )
    worst: list[str] = Field([], description="cell ids of the ten conversations that went worst, worst first")


class CorrectedFigure(Record):
    """Real patients' figure from the simulated cells and the labelled real messages together
    (prediction-powered inference, ``simpop.validity.corrected``), beside the real ones alone."""

    mean: float
    ci_low: float
    ci_high: float
    n: int = Field(description="the labelled real messages it rests on")
    tuning: float = Field(description="the weight given to the simulated predictions (0: none)")
    predictions: Literal["replies", "seeds"] = Field(
        description="replies: each real message predicted from the bot's reply to it (the run has "
        "unlabelled real messages); seeds: from the simulated figure of its seed"
    )
    narrower: float | None = Field(description="how many times narrower than the real messages' own interval")


class Predictive(Record):
    """One metric: the simulated figure, the real one, their gap and the corrected estimate."""

    metric: str
    simulated: GroupMean
    real: GroupMean
    gap: float | None = Field(description="simulated mean minus real mean")
    predicted: float | None = Field(
        None,
        description="the real figure predicted from the bot's replies to every real message asked, "
        "by what such replies meant on the simulated cells (no label used; no interval)",
    )
    corrected: CorrectedFigure | None = None


class RealPatientsSummary(Record):
    """The real-patients arm of a run."""

    file: str
    messages: int
    labelled: int = Field(description="messages with seed_ids (the rest are unlabelled)")
    asked: int = Field(description="messages the bot answered (or said it has no answer to)")
    errors: int = Field(description="messages the bot could not be asked")
    metrics: list[GroupMean] = Field(description="each metric over the real messages")
    predictive: list[Predictive] = Field(description="per metric: simulated, real, gap, corrected")


class RunSummary(Record):
    """What ``summary.json`` holds (its JSON schema: ``docs/summary.schema.json``)."""

    schema_version: str = Field(SUMMARY_SCHEMA_VERSION, description="changes when a field changes meaning")
    run_id: str
    target: str
    target_kind: str
    planned_cells: int
    excluded: dict[str, int]
    seeds_without_gold: list[str] = Field(
        [], description="seed QAPs with no gold chunk in the knowledge base: no retrieval scores"
    )
    seed_equivalents: dict[str, list[str]] = Field(
        {},
        description="seed QAPs with equivalents in the bot's catalogue (the same question or answer): "
        "a match to one of them counts as right",
    )
    accuracy: QAPAccuracy | None = None
    metrics: list[GroupMean] = Field([], description="every metric per persona and in total")
    metrics_by_scenario: list[GroupMean] = []
    metrics_by_persona_scenario: list[GroupMean] = []
    judge: JudgeSummary | None = None
    fidelity: FidelitySummary | None = None
    scenarios: dict[str, int] = Field({}, description="planned cells per scenario")
    topics: TopicStrata | None = None
    labels: LabelTable | None = None
    personas: list[Persona] = Field([], description="the simulated patients of the run")
    scenario_briefs: list[ScenarioBrief] = Field([], description="the scenarios of the run")
    calibration: CalibrationSummary | None = None
    risk: list[RiskSummary] = Field([], description="predicted clinician labels, one model per label")
    stages: list[StageFailures] = Field([], description="cells each stage planned and lost")
    incomplete: bool = Field(False, description="a stage lost at least failures.incomplete_at of its cells")
    untested: list[Untested] = Field(
        [], description="scenarios, cases and personas with no cell scored (the gate fails on them)"
    )
    conversations: ConversationSummary | None = None
    llm: LLMUsage
    duration_s: float = Field(description="seconds, all invocations of the run together (resumes too)")
    invocations: int = Field(1, description="how many times the run was started (1 + resumes)")
    real_patients: RealPatientsSummary | None = Field(
        None,
        description="real patients' messages asked beside the simulated ones (run config: real_patients)",
    )
