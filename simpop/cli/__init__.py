"""The ``simpop`` command: a click group and one module per family of commands. Each command
parses its options, calls the library and prints; nothing else lives here.

A command's module is imported only when the command is named: ``COMMANDS`` keeps each one's
module and one-line help for ``simpop --help`` (``tests/test_cli.py`` keeps the help equal to
the command's own)."""

from __future__ import annotations

from simpop.cli.common import cli

COMMANDS = {
    "benchmark": ("simpop.cli.parts", "Benchmarks with gold answers: compare targets on a fixed dataset."),
    "calibrate": (
        "simpop.cli.labels",
        "Calibrate machine scores against human LABELS (a label CSV / JSONL, or a run with imported "
        "labels): HCAT's probability calibration, then split conformal prediction sets.",
    ),
    "compare": (
        "simpop.cli.report",
        "Each metric's change from RUN_A to RUN_B per persona and scenario, with paired tests.",
    ),
    "doctor": (
        "simpop.cli.parts",
        "Check the embedding model, the local LLM, the configured endpoint and Chroma.",
    ),
    "export-labels": (
        "simpop.cli.labels",
        "Write a CSV of RUN's answers for clinicians to mark correct / partially correct / incorrect.",
    ),
    "fidelity": (
        "simpop.cli.parts",
        "How RUN's simulated patients write, per persona, beside real patients' messages.",
    ),
    "gate": (
        "simpop.cli.report",
        "Check RUN against a release policy: exit 0 when every rule is met, 1 when one is not, 3 when "
        "the run is incomplete.",
    ),
    "import-labels": (
        "simpop.cli.labels",
        "Read clinicians' labels from FILE (an exported CSV) into RUN and show them per persona.",
    ),
    "judge": (
        "simpop.cli.judging",
        "Fit what the judge decides with: its support verifier, or a safety judge's classifier.",
    ),
    "judge-eval": (
        "simpop.cli.judging",
        "Agreement with people of the support judge, its verifier and embedding groundedness "
        "(physicians, K-QA), of the conversation contradiction judge (--judge contradiction), of the "
        "refusal LLM judge (--judge refusal) or of a safety judge (--judge escalated, "
        "false_reassurance, refused, clarify).",
    ),
    "noise": ("simpop.cli.parts", "The speech-to-text and typo noise models."),
    "personas": ("simpop.cli.parts", "List the personas in a folder with their attributes."),
    "report": (
        "simpop.cli.report",
        "Write RUN's HTML report (report.html) and per-probe CSV (probes.csv).",
    ),
    "risk": (
        "simpop.cli.labels",
        "Clinical-risk models (ASTRID §4.2.2): predict clinicians' harm, helpfulness or "
        "inappropriateness labels from the triad and scope.",
    ),
    "run": (
        "simpop.cli.run",
        "Generate patient questions, ask the target, score the answers: CONFIG is a run config.",
    ),
    "scenarios": (
        "simpop.cli.parts",
        "List the hazard scenarios in a folder with their expected behaviour.",
    ),
    "sweep-threshold": (
        "simpop.cli.report",
        "At each threshold of RUN's QAP matcher: answerable questions matched correctly, and questions "
        "it must not answer (decline, escalate) answered anyway.",
    ),
}
cli.lazy = COMMANDS


def main() -> None:
    cli()
