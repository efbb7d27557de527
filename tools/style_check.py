"""The shape of `cafe`, checked statically: imports follow session order, no cycles, small modules.

`python tools/style_check.py` prints every offender and exits 1 when there is one;
`tests/test_architecture.py` runs the same checks, one test per rule. The rules (STYLE.md):

- every module at the top of `cafe/` (a file or a sub-package) belongs to one session of the
  syllabus, `cafe/course/syllabus.py`, and every module a written session lists exists;
- a module imports only modules of its own or an earlier session. Session 00's modules are the
  course machinery (`cafe.endpoint`, `cafe.course`, `cafe.cli`), so any module may import them;
  the package root (`cafe/__init__.py`, `cafe/__main__.py`) imports only those;
- `cafe.exercises.sNN` holds session NN's your-turn checkers: it may import modules of sessions up
  to NN, and no other module imports `cafe.exercises`;
- no import cycle between `cafe` modules;
- no module over 350 lines, no function over 50.

Imports are read from the source with `ast`, nothing is imported, and an import inside a function
counts as much as one at the top of the file: it is still a dependency.
"""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "MAX_FUNCTION_LINES",
    "MAX_MODULE_LINES",
    "Import",
    "cafe_modules",
    "import_cycles",
    "import_order_problems",
    "imports",
    "long_functions",
    "long_modules",
    "main",
    "missing_modules",
    "unmapped_modules",
]

ROOT = Path(__file__).resolve().parent.parent
SYLLABUS = "cafe/course/syllabus.py"
EXERCISES = "cafe.exercises"
EXERCISE_RE = re.compile(r"cafe\.exercises\.s(\d\d)")
PACKAGE_ENTRY = ("cafe", "cafe.__main__")  # the package root and `python -m cafe`

# STYLE.md: a module reads in one sitting, a function on one screen.
MAX_MODULE_LINES = 350
MAX_FUNCTION_LINES = 50


@dataclass(frozen=True)
class Import:
    """One import statement's dependency: `source` (a cafe module) needs `target` (a cafe module)."""

    source: str  # e.g. "cafe.stall"
    target: str  # e.g. "cafe.governor.facts"
    file: str  # repository-relative path of the source, e.g. "cafe/stall/detector.py"
    line: int

    def __str__(self) -> str:
        return f"{self.file}:{self.line} imports {self.target}"


def _source_files(package: Path) -> list[Path]:
    """The package's Python modules: files in folders that are packages (not data like `cafe/data/`)."""
    return [
        path
        for path in sorted(package.rglob("*.py"))
        if all(
            (folder / "__init__.py").exists()
            for folder in path.parents
            if folder.is_relative_to(package)
        )
    ]


def cafe_modules(package: Path) -> dict[str, Path]:
    """Every module of the package by dotted name: `cafe.loop`, `cafe.endpoint` (its __init__.py), ..."""
    found: dict[str, Path] = {}
    for path in _source_files(package):
        parts = path.relative_to(package.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def unit(name: str) -> str:
    """The top-level module a name belongs to: `cafe.endpoint.client.chat` -> `cafe.endpoint`."""
    return ".".join(name.split(".")[:2])


def owner(name: str, module_sessions: Mapping[str, int]) -> str | None:
    """The syllabus entry a module falls under: itself, or its longest listed parent.

    `cafe.repair.reask` -> `cafe.repair` (a topic package), `cafe.world.menu` -> `cafe.world.menu`
    (a file on a shelf); None when no entry covers it.
    """
    parts = name.split(".")
    for end in range(len(parts), 1, -1):
        prefix = ".".join(parts[:end])
        if prefix in module_sessions:
            return prefix
    return None


def _shelves(package: Path, module_sessions: Mapping[str, int]) -> set[str]:
    """Packages whose files the syllabus lists one by one (`cafe.world`, `cafe.stories`)."""
    return {name.rsplit(".", 1)[0] for name in module_sessions if name.count(".") == 2}


def _resolve(
    node: ast.Import | ast.ImportFrom, source: str, is_package: bool, modules: Mapping[str, Path]
) -> list[str]:
    """The cafe modules one import statement needs (relative imports resolved against `source`)."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names if alias.name.split(".")[0] == "cafe"]
    base = node.module or ""
    if node.level:
        parts = source.split(".") if is_package else source.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        base = ".".join(parts + ([base] if base else []))
    if base.split(".")[0] != "cafe":
        return []
    # `from cafe import loop` needs cafe.loop; `from cafe.loop.agent import run_loop` needs cafe.loop
    named = [f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in modules]
    return named if len(named) == len(node.names) else [base, *named]


def imports(package: Path) -> list[Import]:
    """Every import of a cafe module by a cafe module, at any depth (inside functions too)."""
    modules = cafe_modules(package)
    found: list[Import] = []
    for source, path in modules.items():
        rel = path.relative_to(package.parent).as_posix()
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=rel)
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                for target in _resolve(node, source, path.name == "__init__.py", modules):
                    if target != source:
                        found.append(Import(source, target, rel, node.lineno))
    return sorted(found, key=lambda i: (i.file, i.line, i.target))


def unmapped_modules(package: Path, module_sessions: Mapping[str, int]) -> list[str]:
    """Top-level modules the syllabus gives no session to, each with what to do about it."""
    shelves = _shelves(package, module_sessions)
    names = [
        name
        for name in cafe_modules(package)
        if unit(name) not in {"cafe", "cafe.__main__", EXERCISES} and name not in shelves
    ]
    unmapped = sorted(
        {
            name if unit(name) in shelves else unit(name)
            for name in names
            if owner(name, module_sessions) is None
        }
    )
    return [
        f"{name.replace('.', '/')} belongs to no session: add it to the modules of its session in {SYLLABUS}"
        for name in unmapped
    ]


def missing_modules(package: Path, listed: Mapping[str, int], written: set[int]) -> list[str]:
    """Modules the syllabus lists for a written session that do not exist."""
    units = set(cafe_modules(package))
    return [
        f"{SYLLABUS} lists {name} for session {number:02d}, which is written, but there is no such module; "
        "create it or correct the syllabus"
        for name, number in sorted(listed.items())
        if number in written and name not in units
    ]


def _session_of(name: str, module_sessions: Mapping[str, int]) -> int | None:
    """The session a module is read in; exercises.sNN belong to session NN; None when unknown."""
    found = EXERCISE_RE.match(name)
    if found:
        return int(found.group(1))
    listed = owner(name, module_sessions)
    return None if listed is None else module_sessions[listed]


def _order_problem(edge: Import, module_sessions: Mapping[str, int]) -> str | None:
    """What is wrong with one import under the session-order rules, or None."""
    source, target = edge.source, edge.target
    if unit(target) == EXERCISES and unit(source) != EXERCISES:
        return f"{edge}: only cafe.exercises may import the your-turn checkers; move the shared code into the library"
    shared_helper = unit(source) == EXERCISES and not EXERCISE_RE.fullmatch(source)
    if shared_helper and source != EXERCISES and unit(target) != EXERCISES:
        # the checkers' shared helpers (feedback, generated, search, ...) belong to no session, so
        # they may import one another but nothing of the library
        return f"{edge.file}: exercise modules are named cafe.exercises.sNN after their session; rename it"
    if source in _shelves(Path(), module_sessions):
        return f"{edge}, but {source} is a shelf: its files belong to different sessions, so it imports nothing"
    if target == "cafe" or unit(target) == EXERCISES:
        return None
    wanted = _session_of(target, module_sessions)
    if source in PACKAGE_ENTRY:
        if wanted != 0:
            return f"{edge}, but the package root imports only session 00's machinery (so `import cafe` stays cheap)"
        return None
    have = _session_of(source, module_sessions)
    if have is None or wanted is None or wanted <= have:
        return None
    return (
        f"{edge} (session {wanted:02d}), but {source} is session {have:02d}: a module imports only modules of "
        f"its own or an earlier session; move the code, or let the later module plug into this one"
    )


def import_order_problems(package: Path, module_sessions: Mapping[str, int]) -> list[str]:
    """Every import that runs against session order, or touches the exercises from the library."""
    problems = (_order_problem(edge, module_sessions) for edge in imports(package))
    return [problem for problem in problems if problem]


def import_cycles(package: Path) -> list[list[str]]:
    """Each import cycle between cafe modules once, as the modules around it (first repeated last)."""
    graph: dict[str, set[str]] = {}
    for edge in imports(package):
        graph.setdefault(edge.source, set()).add(edge.target)
    cycles: list[list[str]] = []
    seen: set[frozenset[str]] = set()
    state: dict[str, int] = {}  # 1: on the current path, 2: finished

    def visit(name: str, path: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph.get(name, ())):
            if state.get(target) == 1:
                loop = path[path.index(target) :] + [target]
                if frozenset(loop) not in seen:
                    seen.add(frozenset(loop))
                    cycles.append(loop)
            elif target not in state:
                visit(target, path + [target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return cycles


def long_modules(package: Path, limit: int = MAX_MODULE_LINES) -> list[str]:
    """Modules longer than `limit` lines."""
    found = []
    for path in _source_files(package):
        lines = len(path.read_text(encoding="utf-8").splitlines())
        if lines > limit:
            found.append(
                f"{path.relative_to(package.parent).as_posix()} is {lines} lines (limit {limit}); "
                "split it along a seam into modules of one concept each"
            )
    return found


def long_functions(package: Path, limit: int = MAX_FUNCTION_LINES) -> list[str]:
    """Functions and methods (nested ones too) longer than `limit` lines, from `def` to their last line."""
    found = []
    for path in _source_files(package):
        rel = path.relative_to(package.parent).as_posix()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=rel)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                lines = (node.end_lineno or node.lineno) - node.lineno + 1
                if lines > limit:
                    found.append(
                        f"{rel}:{node.lineno} {node.name}() is {lines} lines (limit {limit}); "
                        "split it into named steps"
                    )
    return found


def _written_sessions(root: Path, folders: Mapping[int, str]) -> set[int]:
    return {
        number
        for number, folder in folders.items()
        if (root / "sessions" / folder / "lesson.md").exists()
    }


def main(argv: list[str] | None = None) -> int:
    """Print every offender under the repository's `cafe/`; 0 when there is none."""
    sys.path.insert(0, str(ROOT))
    from cafe.course.syllabus import MODULE_SESSIONS, SESSIONS

    package = ROOT / "cafe"
    written = _written_sessions(ROOT, {entry.number: entry.folder for entry in SESSIONS})
    problems = [
        *unmapped_modules(package, MODULE_SESSIONS),
        *missing_modules(package, MODULE_SESSIONS, written),
        *import_order_problems(package, MODULE_SESSIONS),
        *(f"import cycle: {' -> '.join(cycle)}" for cycle in import_cycles(package)),
        *long_modules(package),
        *long_functions(package),
    ]
    for problem in problems:
        print(problem)
    print(f"style check: {len(problems)} problem(s)", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
