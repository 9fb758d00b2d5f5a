"""Imports flow one way through the layers ``docs/reference/contributing.md`` (Layout) names,
and no two modules of the package share a name."""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "simpop"
# lowest first; a module may import its own layer and the ones below it, never one above
LAYERS = [
    [
        "errors",
        "paths",
        "cores",
        "lookup_cache",
        "textfiles",
        "yamlfiles",
        "redact",
        "backoff",
        "spreadsheet",
        "sentences",
        "binary_figures",
        "models",
        "__init__",
    ],
    ["aggregate", "config", "store", "llm", "embed", "prompts", "knowledge"],
    ["judging", "verdicts"],
    ["population", "targets", "metrics", "labels", "validity", "sequential"],
    ["run", "evaluation", "doctor"],
    ["report", "calibration", "release"],
    ["cli", "testing", "__main__"],
]
LAYER = {unit: n for n, units in enumerate(LAYERS) for unit in units}


def unit(module: str) -> str:
    """The top-level part of ``simpop.<unit>[...]``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


STRING_IMPORTS = {"import_module", "__import__", "find_spec"}


def text(node: ast.expr) -> str | None:
    """The string ``node`` is, if it is a string literal."""
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def imported_names(source: str) -> list[tuple[str, int]]:
    """(module, line) for every import of simpop in ``source``: import statements, and calls
    that import a module named by a string (``importlib.import_module("simpop.x")``, or a
    module-level constant holding that string)."""
    tree = ast.parse(source)
    constants = {
        target.id: node.value.value
        for node in tree.body
        if isinstance(node, ast.Assign)
        and isinstance(node.value, ast.Constant)
        and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    found = []
    for node in ast.walk(tree):
        names = []
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module]
        elif isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.Call) and node.args:
            called = node.func.attr if isinstance(node.func, ast.Attribute) else getattr(node.func, "id", "")
            argument = node.args[0]
            if (
                called in STRING_IMPORTS
                and isinstance(argument, ast.Constant)
                and isinstance(argument.value, str)
            ):
                names = [argument.value]
            elif called in STRING_IMPORTS and isinstance(argument, ast.Name) and argument.id in constants:
                names = [constants[argument.id]]
        found += [(n, node.lineno) for n in names if n.startswith("simpop")]
    return found


def imports() -> list[tuple[str, str, int]]:
    """(importing file, imported module, line) for every import of simpop inside simpop."""
    return [
        (str(path.relative_to(PACKAGE.parent)), name, line)
        for path in sorted(PACKAGE.rglob("*.py"))
        for name, line in imported_names(path.read_text(encoding="utf-8"))
    ]


def test_every_top_level_unit_has_a_layer():
    units = {p.stem if p.is_file() else p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or p.is_dir()}
    units -= {"__pycache__", "builtin"}
    assert units <= set(LAYER), f"units with no layer: {sorted(units - set(LAYER))}"


def test_imports_never_go_up_a_layer():
    wrong = []
    for file, module, line in imports():
        source = unit(".".join(Path(file).with_suffix("").parts))
        target = unit(module)
        if LAYER[target] > LAYER[source]:
            wrong.append(f"{file}:{line} imports {module} (layer {LAYER[target]} above {LAYER[source]})")
    assert not wrong, "\n".join(wrong)


def test_units_of_one_layer_do_not_import_each_other_in_a_loop():
    edges = {
        (unit(".".join(Path(f).with_suffix("").parts)), unit(m))
        for f, m, _ in imports()
        if unit(".".join(Path(f).with_suffix("").parts)) != unit(m)
    }
    loops = sorted((a, b) for a, b in edges if (b, a) in edges and a < b)
    assert not loops, f"units importing each other: {loops}"


def test_no_two_modules_share_a_name():
    names = Counter(p.stem for p in PACKAGE.rglob("*.py") if p.stem != "__init__")
    assert [n for n, k in names.items() if k > 1] == []


def test_the_layer_test_sees_a_wrong_import(tmp_path):
    """The check above could fail: an import of the report from a metric is caught."""
    module = "simpop.metrics.x"
    assert LAYER[unit("simpop.report.html")] > LAYER[unit(module)]


def test_the_layer_test_sees_an_import_by_string():
    """A module imported by name at run time counts as an import, directly or through a constant."""
    source = (
        "import importlib\n"
        "KINDS = 'simpop.targets'\n"
        "def kinds():\n"
        "    importlib.import_module(KINDS)\n"
        "    return importlib.import_module('simpop.report.html'), __import__('os')\n"
    )
    assert imported_names(source) == [("simpop.targets", 4), ("simpop.report.html", 5)]
