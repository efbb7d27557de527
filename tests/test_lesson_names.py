"""Lessons and notebooks name only what the code has (issue 37).

Two checks a reader cannot make by eye across sixteen sessions:

- **Outcome names.** A backticked lower-case name in a lesson sentence about how a run ends (a
  stop reason, an ending, an outcome, what a check reports or fails on) is a member of one of the
  closed sets `cafe` declares: a `Literal[...]` or a `frozenset({...})` of names. Any string in
  the package is not enough (`tests/test_lessons.py` accepts that for identifiers at large): a
  name that survives only in an error message or a retired constant is not an outcome any more.
- **Helpers an exercise names.** Every `name(...)` a your-turn exercise tells the learner to
  call (in the markdown just above its stub, or in the stub's cell) is bound by a cell at or
  above the stub, when `cafe` defines it: otherwise the learner's first run is a `NameError`.
"""

from __future__ import annotations

import ast
import builtins
import keyword
import re
from functools import cache
from pathlib import Path

import pytest
from spoilers import Cell, notebook_cells
from test_lessons import cafe_names

ROOT = Path(__file__).resolve().parent.parent
LESSONS = sorted(ROOT.glob("sessions/s[0-9][0-9]-*/lesson.md"))
NOTEBOOKS = sorted(ROOT.glob("sessions/s[0-9][0-9]-*/notebook.py"))
# A sentence about how a run ends, or what a check finds.
ABOUT_ENDINGS = re.compile(
    r"stop reason|stop_reason|stops? on|ends? on|ending|outcome|reports?|"
    r"fail(?:s|ed|ure)? (?:on|as)|named stop|verdict",
    re.I,
)
_NAME = re.compile(r"`([a-z][a-z0-9_]*)`")
# Outcome-like names a lesson quotes from another library, not from cafe.
FOREIGN_NAMES = {
    "extra_forbidden": "pydantic's error type for an unknown field (lesson 04 maps it to ours)",
    "missing": "pydantic's error type for a missing field (lesson 04 maps it to ours)",
}
# Exercises that name a helper their notebook does not import yet, in sessions this change could
# not edit. Each entry is temporary: issue 37 asks for the import above the stub.
HELPERS_NOT_IMPORTED_YET: dict[tuple[str, str, str], str] = {}


@cache
def closed_set_members() -> frozenset[str]:
    """Every string in a `Literal[...]` or a `frozenset({...})` anywhere in cafe."""
    found: set[str] = set()
    for path in sorted((ROOT / "cafe").rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            literal = isinstance(node, ast.Subscript) and "Literal" in (
                getattr(node.value, "id", None),
                getattr(node.value, "attr", None),
            )
            frozen = isinstance(node, ast.Call) and getattr(node.func, "id", None) == "frozenset"
            if literal or frozen:
                found |= {
                    c.value
                    for c in ast.walk(node)
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                }
    return frozenset(found)


def _is_code_name(name: str) -> bool:
    """A function, module, field or parameter of cafe: a name, not a value."""
    names = cafe_names()
    return name in names.module_level or f"cafe.{name}" in names.modules or name in names.members


def _python(name: str) -> bool:
    return keyword.iskeyword(name) or hasattr(builtins, name)


def unknown_outcome_names(text: str) -> list[str]:
    """The backticked outcome-like names in sentences about endings that no closed set holds."""
    members = closed_set_members()
    found = []
    for sentence in re.split(r"(?<=[.!?;:])\s+|\n\s*\n", text):
        if not ABOUT_ENDINGS.search(sentence):
            continue
        for name in _NAME.findall(sentence):
            if name in members or name in FOREIGN_NAMES or _is_code_name(name) or _python(name):
                continue
            found.append(f"`{name}` in: {' '.join(sentence.split())[:160]}")
    return found


@pytest.mark.parametrize("path", LESSONS, ids=lambda p: p.parent.name)
def test_lesson_outcome_names_are_members_of_a_closed_set(path: Path) -> None:
    assert unknown_outcome_names(path.read_text(encoding="utf-8")) == []


def test_lesson_outcome_names_check_catches_a_made_up_reason() -> None:
    text = "The run ends on `retries_exhausted`. The gate reports `dropped_silently` or `lost`."
    found = unknown_outcome_names(text)
    assert [line.split("`")[1] for line in found] == ["dropped_silently", "lost"]
    assert unknown_outcome_names("It stops on `max_turns`; `run_loop` ends it.") == []


# --- helpers an exercise names ---------------------------------------------------------------


def _bound(cell: Cell) -> set[str]:
    """The names a code cell binds: imports, definitions, assignments."""
    try:
        tree = ast.parse(cell.source)
    except SyntaxError:
        return set()
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            names |= {(alias.asname or alias.name).split(".")[0] for alias in node.names}
        elif isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def _stubs(cell: Cell) -> list[ast.FunctionDef]:
    """The your-turn stubs of a code cell: functions that raise NotImplementedError."""
    try:
        tree = ast.parse(cell.source)
    except SyntaxError:
        return []
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef)
        and any(
            isinstance(n, ast.Raise) and "NotImplementedError" in ast.unparse(n)
            for n in ast.walk(node)
        )
    ]


def unimported_helpers(folder: str, cells: list[Cell]) -> list[tuple[str, str, str]]:
    """(folder, stub, helper) for each `helper(...)` an exercise names that no cell at or above
    its stub binds, when cafe defines it."""
    names = cafe_names()
    bound: set[str] = set()
    missing = []
    for i, cell in enumerate(cells):
        if cell.kind != "code":
            continue
        bound |= _bound(cell)
        above = cells[i - 1].source if i and cells[i - 1].kind == "markdown" else ""
        for stub in _stubs(cell):
            named = set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)\(", above + "\n" + cell.source))
            parameters = {a.arg for a in (*stub.args.posonlyargs, *stub.args.args)}
            missing += [
                (folder, stub.name, name)
                for name in sorted(named - bound - parameters)
                if any(callable(v) for v in names.module_level.get(name, ()))
            ]
    return missing


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.parent.name)
def test_notebook_exercise_helpers_are_imported_above_the_stub(path: Path) -> None:
    cells = notebook_cells(path.read_text(encoding="utf-8"))
    missing = [
        f"{stub} names `{helper}(...)`, which no cell above binds: import it above the stub"
        for folder, stub, helper in unimported_helpers(path.parent.name, cells)
        if (folder, stub, helper) not in HELPERS_NOT_IMPORTED_YET
    ]
    assert missing == []


def test_notebook_exercise_helpers_check_catches_a_missing_import() -> None:
    cells = [
        Cell("code", "import cafe\nfrom cafe.repair import brief_for"),
        Cell("markdown", "Use `brief_for(spec)` and `score_ticket(draft, spec, menu)`."),
        Cell("code", "def mine(spec):\n    raise NotImplementedError('your turn')\n"),
    ]
    assert unimported_helpers("s99", cells) == [("s99", "mine", "score_ticket")]


def test_notebook_exercise_helpers_check_skips_the_stubs_own_parameters() -> None:
    cells = [
        Cell("code", "import cafe"),
        Cell("markdown", "A judge is called as `judge(spec, ticket)`."),
        Cell("code", "def mine(judge, labelled):\n    raise NotImplementedError('your turn')\n"),
    ]
    assert unimported_helpers("s99", cells) == []
