"""Every checker rejects its bank of wrong answers and accepts its right ones (issue 26).

Each `tests/banks/bank_sNN.py` declares `BANKS`: per compare checker, the course's reference,
wrong solutions a learner might write and right solutions shaped unlike the reference (see
`tests/banks/harness.py`). A verdict is what `cafe.course.compare` says, so it is what the learner
would read. A rejection must help and must not give the answer away: at least one problem, each
at most three lines, none holding a line of the reference's code.

`test_every_compare_checker_has_a_bank` lists the checkers the notebooks use that have no bank
yet; it fails until every session has one.
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import re
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from banks import mutants
from banks.harness import Bank, Entry, Verdict, reference_lines, verdict
from kept_draws import draws_of, shown

from cafe.exercises import search

ROOT = Path(__file__).resolve().parent.parent
BANK_FILES = sorted((ROOT / "tests" / "banks").glob("bank_s[0-9][0-9].py"))
# The bar: at least this many wrong and right solutions besides the reference.
MIN_WRONG = 5
MIN_RIGHT = 2
# A problem longer than this many lines is a wall of text, not feedback a learner acts on.
MAX_PROBLEM_LINES = 3
# The reasons a surviving mutant may be excused for (docs/AUTHORING.md, "Its exercises").
EXCUSES = ("equivalent", "text", "validation", "outside", "open")


def _bank_modules() -> list[ModuleType]:
    return [importlib.import_module(f"banks.{path.stem}") for path in BANK_FILES]


BANKS: list[Bank] = [bank for module in _bank_modules() for bank in module.BANKS]
WRONG = [(bank, entry) for bank in BANKS for entry in bank.wrong]
RIGHT = [(bank, entry) for bank in BANKS for entry in bank.right]


def _ids(pairs: list[tuple[Bank, Entry]]) -> list[str]:
    return [f"{bank.id}.{entry.name}" for bank, entry in pairs]


def _leaks(problems: tuple[str, ...], bank: Bank) -> list[str]:
    """Lines of the reference's code that a problem shows, whitespace folded on both sides."""
    shown = [" ".join(problem.split()) for problem in problems]
    code = {" ".join(line.split()) for line in reference_lines(bank)}
    return sorted(line for line in code if any(line in problem for problem in shown))


# --- the banks ------------------------------------------------------------------------------


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("bank", BANKS, ids=[bank.id for bank in BANKS])
def test_bank_reference_is_accepted_and_keeps_what_hypothesis_draws(
    bank: Bank, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The reference passes; and what its checker's searches kept is what Hypothesis draws.

    The reference is judged with an empty store of kept inputs, so every search its checker
    makes is a real one and keeps what it drew (`cafe.exercises.search`). The next search of the
    same strategy replays those inputs instead of searching, which is safe only while they are
    exactly what a seeded `find` draws; `draws_of` asks Hypothesis again, for every strategy kept.
    A checker that makes no search keeps nothing, and nothing of it is replayed (five do not:
    s02's own check and s06's false alarms judge a value the learner hands in, s10's first fix
    runs the practice shift, s14's overruled cuts judge four observations).
    (This audit used to run every reference a second time in tests/test_generated_replay.py.)"""
    kept: dict[Any, Any] = {}
    monkeypatch.setattr(search, "_drawn", kept)
    found = verdict(bank.check, bank.reference)
    assert found.status == "accepted", f"{bank.id}: the course's reference was {found.describe()}"
    for drawn in kept.values():
        assert [shown(v) for v in drawn.values] == [
            shown(v) for v in draws_of(drawn.strategy, drawn.settings)
        ], f"{bank.id}: the inputs kept for {drawn.strategy!r} are not what Hypothesis draws"


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(("bank", "entry"), WRONG, ids=_ids(WRONG))
def test_bank_wrong_entry_is_rejected(bank: Bank, entry: Entry) -> None:
    found = verdict(bank.check, entry.fn)
    assert found.status == "rejected", (
        f"{bank.id} let a wrong answer through: {entry.name} ({entry.idea}; goes wrong on "
        f"{entry.witness or 'its own inputs'}) was {found.describe()}"
    )
    assert found.problems and all(problem.strip() for problem in found.problems), (
        f"{bank.id} rejected {entry.name} without saying why: {found.problems}"
    )
    long = [p for p in found.problems if len(p.splitlines()) > MAX_PROBLEM_LINES]
    assert not long, f"{bank.id}: problems over {MAX_PROBLEM_LINES} lines for {entry.name}: {long}"
    leaks = _leaks(found.problems, bank)
    assert not leaks, (
        f"{bank.id}: the rejection of {entry.name} shows the reference's code: {leaks}"
    )


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize(("bank", "entry"), RIGHT, ids=_ids(RIGHT))
def test_bank_right_entry_is_accepted(bank: Bank, entry: Entry) -> None:
    found = verdict(bank.check, entry.fn)
    assert found.status == "accepted", (
        f"{bank.id} rejected a right answer: {entry.name} ({entry.idea}) was {found.describe()}"
    )


@pytest.mark.parametrize("bank", BANKS, ids=[bank.id for bank in BANKS])
def test_bank_holds_enough_distinct_solutions(bank: Bank) -> None:
    assert len(bank.wrong) >= MIN_WRONG, f"{bank.id}: {len(bank.wrong)} wrong, want {MIN_WRONG}"
    assert len(bank.right) >= MIN_RIGHT, f"{bank.id}: {len(bank.right)} right, want {MIN_RIGHT}"
    names = [entry.name for _, entry in bank.entries()]
    assert len(names) == len(set(names)), f"{bank.id}: two entries share a name: {names}"
    functions = [entry.fn for _, entry in bank.entries()]
    assert len({id(fn) for fn in functions}) == len(functions), f"{bank.id}: an entry is repeated"
    assert all(entry.idea.strip() for _, entry in bank.entries()), (
        f"{bank.id}: an entry has no idea"
    )


@pytest.mark.parametrize("path", BANK_FILES, ids=[path.stem for path in BANK_FILES])
def test_bank_file_names_its_session_and_excuses_only_its_checkers(path: Path) -> None:
    module = importlib.import_module(f"banks.{path.stem}")
    session = path.stem.removeprefix("bank_")
    assert module.BANKS, f"{path.name} declares no banks"
    for bank in module.BANKS:
        assert bank.session == session, f"{path.name}: {bank.id} is not session {session}"
        inner = getattr(bank.check, "func", bank.check)
        assert inner.__module__ == f"cafe.exercises.{session}", (
            f"{path.name}: {bank.checker_name} is not a checker of cafe.exercises.{session}"
        )
    checkers = {bank.checker_name for bank in module.BANKS}
    excused = module.EQUIVALENT
    assert set(excused) <= checkers, f"{path.name}: EQUIVALENT names {set(excused) - checkers}"
    for checker, reasons in excused.items():
        for key, reason in reasons.items():
            assert reason.split(":")[0] in EXCUSES, (
                f"{path.name}: {checker} excuses {key!r} with {reason!r}; start the reason with "
                f"one of {', '.join(EXCUSES)} and a colon"
            )


@pytest.mark.usefixtures("home")
def test_bank_verdict_says_crashed_when_the_checker_itself_raises() -> None:
    def broken_checker(fn):
        return [fn(1)["missing"]]  # the checker reads a key the learner's value never had

    found = verdict(broken_checker, lambda n: {})
    assert found == Verdict("checker crashed", ("KeyError: 'missing'",))
    assert verdict(broken_checker, lambda n: {"missing": "a problem"}).status == "rejected"
    assert verdict(lambda fn: [] if fn(1) == 2 else ["no"], lambda n: n + 1).status == "accepted"


# --- coverage ---------------------------------------------------------------------------------


def _checker_names(node: ast.expr) -> set[str]:
    """`check_x` in `check=check_x`, `check=s02.check_x` or `check=partial(check_x, ...)`."""
    found = set()
    for sub in ast.walk(node):
        name = sub.id if isinstance(sub, ast.Name) else getattr(sub, "attr", None)
        if isinstance(name, str) and name.startswith("check_"):
            found.add(name)
    return found


def compare_checkers() -> set[tuple[str, str]]:
    """(session, checker name) for every `course.compare(..., check=...)` in a notebook source."""
    found = set()
    for source in sorted(ROOT.glob("sessions/s[0-9][0-9]-*/notebook.py")):
        session = re.match(r"s\d\d", source.parent.name)
        assert session is not None
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "compare":
                for keyword in node.keywords:
                    if keyword.arg == "check":
                        found |= {(session.group(), name) for name in _checker_names(keyword.value)}
    return found


def test_compare_checkers_are_found_in_the_notebooks() -> None:
    found = compare_checkers()
    assert ("s02", "check_fixture_problems") in found and ("s06", "check_false_alarm") in found
    assert len(found) >= 32, sorted(found)


def test_every_compare_checker_has_a_bank() -> None:
    banked = {(bank.session, bank.checker_name) for bank in BANKS}
    missing = sorted(compare_checkers() - banked)
    assert not missing, (
        f"{len(missing)} compare checker(s) have no wrong-answer bank in tests/banks/: "
        + ", ".join(f"{session}.{name}" for session, name in missing)
    )


# --- the mutation benchmark's ground (benchmarks/checker_mutants.py runs the mutants) -------


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("bank", BANKS, ids=[bank.id for bank in BANKS])
def test_bank_mutation_targets_copied_unmutated_still_pass(bank: Bank) -> None:
    assert mutants.judge(bank, None) == "survived", (
        f"{bank.id}: the reference compiled from {bank.mutation_module} "
        f"{bank.mutation_targets} does not pass its checker; check targets and adapt"
    )


@pytest.mark.usefixtures("home")
def test_mutants_leave_the_library_and_docstrings_alone() -> None:
    bank = next(bank for bank in BANKS if bank.checker_name == "check_fixture_problems")
    library = importlib.import_module(bank.mutation_module)
    before = {name: getattr(library, name).__code__ for name in bank.mutation_targets}
    made = list(mutants.mutants(bank))
    assert len(made) > 15 and {m.operator for m in made} >= {"compare", "constant", "return_none"}
    assert not [m.key for m in made if "Whether the judge" in m.key], "a docstring was mutated"
    fates = {mutants.judge(bank, mutant) for mutant in made[:10]}
    assert "killed" in fates
    assert {name: getattr(library, name).__code__ for name in bank.mutation_targets} == before
