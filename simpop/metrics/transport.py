"""The 1-Wasserstein (earth mover's) distance between uniform weights on the rows and on the
columns of a cost matrix (Rubner, Tomasi & Guibas, IJCV 2000), solved exactly, and kept in the
cache folder by its cost matrix: a re-run, and a QAP bot's answer met again, solve nothing."""

from __future__ import annotations

import hashlib
import math
import sqlite3
import threading
from collections.abc import Callable
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from simpop.paths import cache_dir

ASSIGNMENT_LIMIT = 240  # lcm(n, m) up to which the assignment form is solved instead of the LP
SOLVED_FILE = "transport.sqlite"


@cache
def linear_sum_assignment() -> Callable[[np.ndarray], Any]:
    """scipy's assignment solver (``scipy.optimize.linear_sum_assignment``). Its compiled module
    is loaded alone where it can be: ``import scipy.optimize`` also loads linprog, FFT and linear
    algebra, about half a second of a cached re-run on two cores (a problem too large for the
    assignment form still needs it, for ``linprog``)."""
    import importlib.util
    import sys

    import scipy

    name = "scipy.optimize._lsap"
    if name not in sys.modules:
        found = sorted((Path(scipy.__file__).parent / "optimize").glob("_lsap.*"))
        spec = importlib.util.spec_from_file_location(name, found[0]) if found else None
        if spec is None or spec.loader is None:
            from scipy.optimize import linear_sum_assignment as solver

            return solver
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        sys.modules[name] = module
    return sys.modules[name].linear_sum_assignment


def solve(cost: np.ndarray) -> float:
    """min Σ T_ij C_ij over transport plans T with row sums 1/n, column sums 1/m.

    With one row or one column the plan is fixed: the mean cost. Otherwise, with L = lcm(n, m),
    each row copied L/n times and each column L/m times, every vertex of this transport polytope
    is 1/L times a permutation (Birkhoff-von Neumann), so the optimum is an L x L assignment
    problem (``linear_sum_assignment``, milliseconds); a linear programme (HiGHS) only when L is
    large."""
    n, m = cost.shape
    if n == 1 or m == 1:
        return float(cost.mean())
    size = math.lcm(n, m)
    if size <= ASSIGNMENT_LIMIT:
        expanded = np.repeat(np.repeat(cost, size // n, axis=0), size // m, axis=1)
        rows, columns = linear_sum_assignment()(expanded)
        return float(expanded[rows, columns].sum() / size)
    from scipy.optimize import linprog

    rows_sum = np.kron(np.eye(n), np.ones((1, m)))
    columns_sum = np.kron(np.ones((1, n)), np.eye(m))
    result = linprog(
        cost.ravel(),
        A_eq=np.vstack([rows_sum, columns_sum]),
        b_eq=np.concatenate([np.full(n, 1 / n), np.full(m, 1 / m)]),
        bounds=(0, None),
        method="highs",
    )
    return float(result.fun)


class SolvedProblems:
    """Distances by a hash of their cost matrix (its type, shape and bytes), in SQLite (WAL:
    shared by runs and processes). A file that cannot be opened or written is done without."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._db: sqlite3.Connection | None = None
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(path, isolation_level=None, check_same_thread=False, timeout=30)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute("PRAGMA synchronous=NORMAL")
            self._db.execute("CREATE TABLE IF NOT EXISTS solved (key TEXT PRIMARY KEY, distance REAL)")
        except (OSError, sqlite3.Error):
            self._db = None

    @staticmethod
    def key(cost: np.ndarray) -> str:
        matrix = np.ascontiguousarray(cost)
        return hashlib.sha256(f"{matrix.dtype.str}{matrix.shape}".encode() + matrix.tobytes()).hexdigest()

    def get(self, key: str) -> float | None:
        if self._db is None:
            return None
        try:
            row = self._db.execute("SELECT distance FROM solved WHERE key = ?", (key,)).fetchone()
        except sqlite3.Error:
            return None
        return None if row is None else float(row[0])

    def put(self, key: str, distance: float) -> None:
        if self._db is not None:
            try:
                self._db.execute("INSERT OR REPLACE INTO solved VALUES (?, ?)", (key, distance))
            except sqlite3.Error:
                pass  # a full or read-only disk: solved again next time


_LOCK = threading.Lock()
_SOLVED: dict[Path, SolvedProblems] = {}


def wasserstein(cost: np.ndarray) -> float:
    """``solve(cost)``, looked up first among the problems solved on this machine."""
    if 1 in cost.shape:
        return solve(cost)
    path = cache_dir() / SOLVED_FILE
    with _LOCK:
        solved = _SOLVED.get(path)
        if solved is None:
            solved = _SOLVED[path] = SolvedProblems(path)
        key = solved.key(cost)
        found = solved.get(key)
    if found is not None:
        return found
    distance = solve(cost)
    with _LOCK:
        solved.put(key, distance)
    return distance
