"""QAP-match correctness (Reichenpfader et al., Algorithm 1 and eq. 1)."""

from __future__ import annotations

from simpop.metrics.metric import Case, Measure, Metric, Scorers, metric
from simpop.models import Probe, Response, Score

METRIC = "qap_match"


def qap_match(probe: Probe, response: Response, equivalent: tuple[str, ...] = ()) -> Score:
    """Correct iff the bot matched the probe's seed QAP, or a QAP of its catalogue ``equivalent``
    to it (the same question or answer); no answer counts as an error.

    Reichenpfader et al. count a variation as correctly answered when the predefined QAP the
    matcher returns is the one the variation was generated from; a catalogue's duplicates
    answer it as well (issue 71). Cells without a question to ask (duplicate or failed
    generation) or without a reply (target error) are excluded.
    """
    ids = probe.cell_ids()
    if response.excluded:
        return Score(**ids, metric=METRIC, value=None, excluded=response.excluded)
    if response.matched_id is None:  # no answer, or an answer that is none of its QAPs'
        label = "no_answer" if response.answer is None else "wrong"
        return Score(**ids, metric=METRIC, value=0.0, label=label, reason=response.no_answer_reason)
    correct = response.matched_id == probe.seed_id or response.matched_id in equivalent
    return Score(**ids, metric=METRIC, value=float(correct), label="correct" if correct else "wrong")


@metric
class QAPMatch(Metric):
    """For a probe written from one of the target's own QAPs."""

    name = METRIC
    shown = frozenset()
    # every probe written from one QAP (variants, in-scope, mistranscribed); the summary's
    # ``accuracy``, the report's headline, is on the variants alone
    measures = (Measure(METRIC, "QAP match, every probe from a QAP"),)

    def applies(self, case: Case) -> bool:
        return case.own_seed and case.source == "qap"

    async def score(self, cases: list[Case], scorers: Scorers, done: list[dict[str, Score]]) -> list[Score]:
        return [qap_match(c.probe, c.response, c.equivalent) for c in cases]
