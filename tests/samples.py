"""Sample values and helpers shared by several test modules (pytest puts this folder on the path)."""

from __future__ import annotations

import ast
import contextlib
import functools
import io
import json
import os
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from spoilers import Cell, notebook_cells

ROOT = Path(__file__).resolve().parents[1]

# The answer text the reveal tests hide and then load.
ANSWER = "The cap turns a repeated defect into an honest stop."


def run_notebook_source(folder: str) -> dict:
    """Run `sessions/<folder>/notebook.py` top to bottom, quietly; return its namespace.

    How a test reaches a notebook's your-turn stub without a kernel.
    """
    source = ROOT / "sessions" / folder / "notebook.py"
    namespace: dict = {"__name__": "__notebook__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source.read_text(encoding="utf-8"), str(source), "exec"), namespace)
    return namespace


@dataclass(frozen=True)
class NotebookRun:
    """A notebook source run cell by cell: each cell with what it printed, and the outcomes
    `course.show_outcome` saved (prediction key -> actual value)."""

    cells: tuple[Cell, ...]
    outcomes: dict[str, Any]


@contextlib.contextmanager
def _environ(**values: str) -> Iterator[None]:
    before = {name: os.environ.get(name) for name in values}
    os.environ.update(values)
    try:
        yield
    finally:
        for name, value in before.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def _shown(value: Any) -> None:
    """What Jupyter does with a cell's last expression: its display hook, else its repr."""
    if value is None:
        return
    if hasattr(value, "_ipython_display_"):
        value._ipython_display_()
    else:
        print(repr(value))


def _run_cell(source: str, namespace: dict, name: str) -> str:
    """Run one code cell in `namespace`; return what it printed (its last expression shown too)."""
    tree = ast.parse(source)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    if last is not None and source.rstrip().endswith(";"):
        last = None  # a trailing semicolon hides the value in Jupyter
    body = ast.Module(body=tree.body[:-1] if last else tree.body, type_ignores=[])
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(body, name, "exec"), namespace)
        if last is not None:
            _shown(eval(compile(ast.Expression(last.value), name, "eval"), namespace))
    return printed.getvalue()


def run_cells(path: Path) -> NotebookRun:
    """Run a jupytext percent source cell by cell in one namespace, headless and offline, with a
    progress file of its own; keep each cell's printed output and the outcomes it saved."""
    namespace: dict = {"__name__": "__notebook__"}
    cells = []
    with tempfile.TemporaryDirectory(prefix="cafe-notebook-") as folder:  # gone once read
        home = Path(folder)
        with _environ(CAFE_HOME=str(home), CAFE_HEADLESS="1"):
            for i, cell in enumerate(notebook_cells(path.read_text(encoding="utf-8"))):
                if cell.kind == "code" and cell.source.strip():
                    cell = Cell(
                        "code", cell.source, _run_cell(cell.source, namespace, f"{path} cell {i}")
                    )
                cells.append(cell)
        saved = home / "progress.json"
        progress = json.loads(saved.read_text(encoding="utf-8")) if saved.exists() else {}
    outcomes = {key: entry["actual"] for key, entry in progress.get("outcomes", {}).items()}
    return NotebookRun(tuple(cells), outcomes)


@functools.cache
def notebook_run(folder: str) -> NotebookRun:
    """`sessions/<folder>/notebook.py` run cell by cell, once per test session."""
    return run_cells(ROOT / "sessions" / folder / "notebook.py")


def notebook_outcomes(folder: str) -> dict:
    """The outcomes a session's notebook saved, run once per test session (`notebook_run`)."""
    return notebook_run(folder).outcomes
