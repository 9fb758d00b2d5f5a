"""Files for other tools: one CSV row per probe, and JUnit XML (one test case per persona ×
scenario, failed where the release policy fails) for CI dashboards."""

from __future__ import annotations

from xml.etree import ElementTree

from simpop.redact import clip
from simpop.report.gate_checks import RUN_COMPLETE, GateResult
from simpop.spreadsheet import csv_text
from simpop.store import RunRecords

PROBES_CSV = "probes.csv"
JUNIT_FILE = "junit.xml"
FIXED = (
    "run_id",
    "cell_id",
    "persona_id",
    "health_literacy",
    "scenario_id",
    "seed_id",
    "variant",
    "expected_behaviour",
    "question",
    "noisy_question",
    "answer",
    "matched_id",
    "context_ids",
    "not_scored",
)


def probes_csv(records: RunRecords) -> str:
    """One row per probe: who asked what, what came back, and every metric's value."""
    metrics = records.metrics
    rows = []
    for cell, probe in records.probes.items():
        response = records.responses.get(cell)
        persona = records.personas.get(probe.persona_id)
        values = records.values.get(cell, {})
        excluded = sorted({s.excluded for s in records.by_cell.get(cell, {}).values() if s.excluded})
        rows.append(
            [
                records.run_id,
                cell,
                probe.persona_id,
                persona.health_literacy if persona else "",
                probe.scenario_id,
                probe.seed_id,
                probe.variant,
                probe.expected_behaviour,
                probe.text or "",
                probe.noisy_text or "",
                (response.answer if response else None) or "",
                (response.matched_id if response else None) or "",
                " ".join(c.id for c in response.contexts) if response else "",
                " ".join(excluded),
                *("" if m not in values else f"{values[m]:.6g}" for m in metrics),
            ]
        )
    return csv_text([*FIXED, *metrics], rows)


def junit_xml(records: RunRecords, result: GateResult) -> str:
    """A test suite per run: one test case per persona × scenario that has probes, failed by
    every violation its probes took part in; a violation with no probes (nothing measured), and
    an incomplete run, fail a test case of their own; a check the policy allows is skipped."""
    pairs = list(dict.fromkeys(f"{p.persona_id} × {p.scenario_id}" for p in records.probes.values()))
    failures: dict[str, list[str]] = {}
    for check in result.violations:
        line = (
            f"rule {check.rule}: {check.figure} in {check.group}: {check.why} "
            f"(mean {_fmt(check.mean)}, {'confidence sequence' if check.basis == 'sequence' else '95% CI'} "
            f"{_fmt(check.ci_low)}-{_fmt(check.ci_high)}, n={check.n})"
        )
        # an incomplete run fails a test case of its own, whatever its other checks say
        own = "run completeness" if check.metric == RUN_COMPLETE else f"policy: {check.group}"
        for case in check.pairs or [own]:
            failures.setdefault(case, []).append(line)
    cases = [(pair, failures.get(pair, [])) for pair in pairs]
    cases += [(name, lines) for name, lines in failures.items() if name not in pairs]
    allowed = [c for c in result.checks if c.allowed]  # passed only because the policy accepts them
    suite = ElementTree.Element(
        "testsuite",
        name=f"simpop {records.summary.target} · {result.policy}",
        tests=str(len(cases) + len(allowed)),
        failures=str(sum(1 for _, lines in cases if lines)),
        errors="0",
        skipped=str(len(allowed)),
    )
    for name, lines in cases:
        case = ElementTree.SubElement(suite, "testcase", classname=records.run_id, name=name)
        if lines:
            kind = "undecided" if all(" undecided: " in line for line in lines) else "policy"
            failure = ElementTree.SubElement(case, "failure", message=clip(lines[0], 200), type=kind)
            failure.text = "\n".join(lines)
    for check in allowed:
        case = ElementTree.SubElement(
            suite,
            "testcase",
            classname=records.run_id,
            name=f"policy allows: {check.figure} in {check.group}",
        )
        ElementTree.SubElement(case, "skipped", message=clip(f"rule {check.rule}: {check.why}", 200))
    ElementTree.indent(suite)
    return '<?xml version="1.0" encoding="utf-8"?>\n' + ElementTree.tostring(suite, encoding="unicode") + "\n"


def _fmt(value: float | None) -> str:
    return "-" if value is None else f"{value:.3f}"
