"""The shape of `cafe`: every module has a session, imports run in session order, modules stay small.

Each module's session comes from the one declared map, `cafe/course/syllabus.py`; the checks read
the source with `ast` (tools/style_check.py), so an import inside a function counts too. The
first half runs the checks on the real package; the second half runs them on small fake packages
written under `tmp_path`, so each rule is shown to catch what it is meant to catch.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import style_check  # noqa: E402

from cafe.course.syllabus import MODULE_SESSIONS, SESSIONS, Session, session  # noqa: E402

PACKAGE = ROOT / "cafe"
WRITTEN = {
    entry.number for entry in SESSIONS if (ROOT / "sessions" / entry.folder / "lesson.md").exists()
}


def _listing(problems: list[str]) -> str:
    return "\n".join(f"  - {problem}" for problem in problems)


# ---------------------------------------------------------------------------------------------
# The real package


def test_every_cafe_module_belongs_to_a_session_of_the_syllabus() -> None:
    problems = style_check.unmapped_modules(PACKAGE, MODULE_SESSIONS)
    assert not problems, "modules with no session:\n" + _listing(problems)


def test_every_module_a_written_session_lists_exists() -> None:
    problems = style_check.missing_modules(PACKAGE, MODULE_SESSIONS, WRITTEN)
    assert not problems, "the syllabus names modules that are not there:\n" + _listing(problems)


def test_imports_run_in_session_order() -> None:
    problems = style_check.import_order_problems(PACKAGE, MODULE_SESSIONS)
    assert not problems, f"{len(problems)} import(s) against session order:\n" + _listing(problems)


def test_cafe_has_no_import_cycle() -> None:
    cycles = style_check.import_cycles(PACKAGE)
    assert not cycles, "import cycles:\n" + _listing([" -> ".join(cycle) for cycle in cycles])


def test_no_module_over_the_line_limit() -> None:
    problems = style_check.long_modules(PACKAGE)
    assert not problems, f"modules over {style_check.MAX_MODULE_LINES} lines:\n" + _listing(
        problems
    )


def test_no_function_over_the_line_limit() -> None:
    problems = style_check.long_functions(PACKAGE)
    assert not problems, f"functions over {style_check.MAX_FUNCTION_LINES} lines:\n" + _listing(
        problems
    )


def test_syllabus_gives_each_session_its_modules_once() -> None:
    assert [entry.number for entry in SESSIONS] == list(range(17))
    assert MODULE_SESSIONS["cafe.loop"] == 1 and MODULE_SESSIONS["cafe.stall"] == 13
    assert MODULE_SESSIONS["cafe.endpoint"] == 0 and MODULE_SESSIONS["cafe.course"] == 0
    assert sum(len(entry.modules) for entry in SESSIONS) == len(MODULE_SESSIONS)


def test_syllabus_entry_refuses_a_bad_slug_path_or_module() -> None:
    good = dict(
        number=2,
        slug="evals",
        topic="evals",
        path="core",
        modules=("cafe/evals.py",),
        ships="checks",
    )
    assert Session(**good).folder == "s02-evals" and Session(**good).module_names == ("cafe.evals",)
    for change, message in [
        ({"slug": "Evals"}, "lower-case"),
        ({"path": "middle"}, "setup, core, harness"),
        ({"modules": ("evals.py",)}, "not a module of cafe"),
        ({"modules": ["cafe/evals.py"]}, "tuple"),
        ({"ships": "two\nlines"}, "one line"),
    ]:
        with pytest.raises((ValueError, TypeError), match=message):
            Session(**{**good, **change})
    assert session(7).slug == "repair-loop"
    with pytest.raises(ValueError, match="sessions run 0 to 16"):
        session(17)


def test_lessons_ship_only_modules_their_session_owns() -> None:
    import yaml

    for entry in SESSIONS:
        lesson = ROOT / "sessions" / entry.folder / "lesson.md"
        if not lesson.exists():
            continue
        front = yaml.safe_load(lesson.read_text(encoding="utf-8").split("---")[1])
        for shipped in front["ships"]:
            name = style_check.owner(
                shipped["module"].removesuffix(".py").strip("/").replace("/", "."), MODULE_SESSIONS
            )
            assert MODULE_SESSIONS.get(name) == entry.number, (
                f"{lesson.relative_to(ROOT)} ships {shipped['module']}, but cafe/course/syllabus.py gives "
                f"{name} to session {MODULE_SESSIONS.get(name)}; list it under session {entry.number} there"
            )


# ---------------------------------------------------------------------------------------------
# The checks themselves, on fake packages


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    """Write a fake `cafe` package: {"loop.py": source, "endpoint/__init__.py": source, ...}."""
    package = tmp_path / "cafe"
    for name, source in {"__init__.py": "", **files}.items():
        path = package / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return package


FAKE_SESSIONS = {"cafe.endpoint": 0, "cafe.loop": 1, "cafe.stall": 13, "cafe.facts": 14}


def test_import_order_catches_a_backward_import_even_inside_a_function(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "loop.py": "def later():\n    from cafe.stall import detect\n",
            "stall.py": "from . import facts\nfrom cafe.loop import run\nfrom cafe.endpoint import client\n",
            "facts.py": "",
            "endpoint/__init__.py": "",
            "endpoint/client.py": "",
        },
    )
    problems = style_check.import_order_problems(package, FAKE_SESSIONS)
    assert len(problems) == 2, problems
    assert problems[0].startswith(
        "cafe/loop.py:2 imports cafe.stall (session 13), but cafe.loop is session 01"
    )
    assert problems[1].startswith(
        "cafe/stall.py:1 imports cafe.facts (session 14), but cafe.stall is session 13"
    )


def test_import_order_keeps_exercises_apart_from_the_library(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "loop.py": "import cafe.exercises.s01\n",
            "stall.py": "",
            "facts.py": "",
            "exercises/__init__.py": "",
            "exercises/s01.py": "from cafe.loop import run\n",
            "exercises/s13.py": "from cafe.stall import x\nfrom cafe.facts import y\n",
            # the checkers' shared helpers may import one another, and nothing of the library
            "exercises/generated.py": "from cafe.exercises.search import find\n",
            "exercises/search.py": "",
            "exercises/feedback.py": "from cafe.loop import run\n",
        },
    )
    problems = style_check.import_order_problems(package, FAKE_SESSIONS)
    assert len(problems) == 3, problems
    assert problems[0].startswith(
        "cafe/exercises/feedback.py: exercise modules are named cafe.exercises.sNN"
    )
    assert problems[1].startswith(
        "cafe/exercises/s13.py:2 imports cafe.facts (session 14), but cafe.exercises.s13 is session 13"
    )
    assert problems[2].startswith(
        "cafe/loop.py:1 imports cafe.exercises.s01: only cafe.exercises may import"
    )


def test_package_root_imports_only_session_zero(tmp_path: Path) -> None:
    package = _package(
        tmp_path, {"endpoint/__init__.py": "", "loop.py": "", "stall.py": "", "facts.py": ""}
    )
    (package / "__init__.py").write_text(
        "from cafe.endpoint import x\nfrom cafe import loop\n", encoding="utf-8"
    )
    problems = style_check.import_order_problems(package, FAKE_SESSIONS)
    assert len(problems) == 1 and problems[0].startswith(
        "cafe/__init__.py:2 imports cafe.loop, but the package root"
    ), problems


def test_unmapped_module_is_named_with_where_to_add_it(tmp_path: Path) -> None:
    package = _package(
        tmp_path, {"loop.py": "", "evidence.py": "", "data/till/bill.py": "", "__main__.py": ""}
    )
    assert style_check.unmapped_modules(package, FAKE_SESSIONS) == [
        "cafe/evidence belongs to no session: add it to the modules of its session in cafe/course/syllabus.py"
    ]


def test_missing_module_of_a_written_session_is_named(tmp_path: Path) -> None:
    package = _package(tmp_path, {"loop.py": "", "endpoint/__init__.py": ""})
    problems = style_check.missing_modules(package, FAKE_SESSIONS, written={0, 1, 13})
    assert problems == [
        "cafe/course/syllabus.py lists cafe.stall for session 13, which is written, but there is "
        "no such module; create it or correct the syllabus"
    ]


def test_import_cycle_is_found_through_a_lazy_import(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "loop.py": "from cafe.stall import x\n",
            "stall.py": "def f():\n    import cafe.facts\n",
            "facts.py": "from cafe import loop\n",
        },
    )
    assert style_check.import_cycles(package) == [
        ["cafe.facts", "cafe.loop", "cafe.stall", "cafe.facts"]
    ]


def test_size_checks_name_the_offender_and_the_limit(tmp_path: Path) -> None:
    body = "\n".join(f"    x{i} = {i}" for i in range(50))
    package = _package(tmp_path, {"loop.py": f"def run():\n{body}\n", "stall.py": "x = 1\n" * 351})
    assert style_check.long_functions(package) == [
        "cafe/loop.py:1 run() is 51 lines (limit 50); split it into named steps"
    ]
    assert style_check.long_modules(package) == [
        "cafe/stall.py is 351 lines (limit 350); split it along a seam into modules of one concept each"
    ]


# ---------------------------------------------------------------------------------------------
# The endpoint's rooms

ENDPOINT = PACKAGE / "endpoint"
# What a session's harness may not import: the command line and the tests use these rooms.
COMMAND_LINE_ROOMS = ("cafe.endpoint.server", "cafe.endpoint.doctor")


def test_endpoint_opens_on_at_most_eight_entries() -> None:
    entries = sorted(p.name for p in ENDPOINT.iterdir() if p.name != "__pycache__")
    assert len(entries) <= 8, f"cafe/endpoint/ has {len(entries)} entries: {entries}"


@pytest.mark.parametrize(
    "room",
    sorted(p for p in ENDPOINT.iterdir() if (p / "__init__.py").exists()),
    ids=lambda p: p.name,
)
def test_each_endpoint_room_lists_its_files_in_its_docstring(room: Path) -> None:
    import ast

    doc = ast.get_docstring(ast.parse((room / "__init__.py").read_text(encoding="utf-8"))) or ""
    files = sorted(p.stem for p in room.glob("*.py") if p.name != "__init__.py")
    unlisted = [name for name in files if f"`{name}`" not in doc]
    assert files and not unlisted, (
        f"cafe/endpoint/{room.name}/__init__.py does not list {unlisted} in its docstring"
    )


def test_no_session_module_imports_the_server_or_the_doctor() -> None:
    machinery = ("cafe.endpoint", "cafe.cli", *style_check.PACKAGE_ENTRY)
    problems = [
        str(edge)
        for edge in style_check.imports(PACKAGE)
        if edge.target.startswith(COMMAND_LINE_ROOMS)
        and not (edge.source in machinery or edge.source.startswith("cafe.endpoint."))
    ]
    assert not problems, "a session's module reaches the server or the doctor:\n" + _listing(
        problems
    )


def test_the_rooms_rule_catches_a_session_module_that_imports_the_doctor(tmp_path: Path) -> None:
    package = _package(
        tmp_path,
        {
            "loop.py": "from cafe.endpoint.doctor.health import doctor\n",
            "endpoint/__init__.py": "",
            "endpoint/doctor/__init__.py": "",
            "endpoint/doctor/health.py": "",
        },
    )
    targets = [e.target for e in style_check.imports(package) if e.source == "cafe.loop"]
    assert targets == ["cafe.endpoint.doctor.health"]
