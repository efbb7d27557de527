"""How many of mutmut's mutants of each reference solution does its checker reject? (issue 35)

    python3 -m venv /tmp/mutvenv && /tmp/mutvenv/bin/pip install -e ".[test]" mutmut==3.8.1
    nice -n 10 /tmp/mutvenv/bin/python benchmarks/checker_mutmut.py --only s12 --only s06
    nice -n 10 /tmp/mutvenv/bin/python benchmarks/checker_mutmut.py          # every bank

The course's own mutator (`benchmarks/checker_mutants.py`, `tests/banks/mutants.py`) is checked
here by a maintained one: mutmut (https://github.com/boxed/mutmut), with its own operators and its
own runner. mutmut rewrites the module it mutates, so it is never pointed at `cafe/`: a checker
compares the learner's function with a reference that lives in `cafe/exercises/`, and a mutant of
that module would move the oracle with the solution. Instead this script writes a scratch project
(`--work`, default /tmp/cafe-mutmut) holding:

- `solutions/sNN_<checker>_<i>.py`: a copy of each bank's mutation targets (`Bank.mutation_targets`,
  the reference solution and the helpers that belong to the exercise), compiled over a copy of
  their module's globals, exactly what the in-house mutator mutates;
- `tests/test_checkers.py`: one test per bank, which hands the copied reference to its checker
  through `cafe.course.compare`, as a learner's cell does, and asserts "passed".

mutmut then mutates `solutions/` and runs, for each mutant, the test that calls its function. The
test failing means the checker rejected the mutated solution: mutmut's "killed". A survivor is a
mutated solution the checker still passes: a hole in the checker, a still-right answer (another
wording, a stricter rule), or a mutant equivalent in the exercise's domain (`EQUIVALENT` below,
each with the argument). The strict score is killed / (mutants - equivalent); timeouts count as
killed (a learner sees a hang), and so do mutants that crash the checker's compare (the test
fails). docs/notes/checker-mutation.md keeps the figures and the survivors' verdicts.

mutmut is not a dependency of the course: install it in a venv of its own, as above. Its run
takes minutes per session on two busy cores; `--only` scopes it to one session or one checker.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import os
import subprocess
import sys
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"
sys.path.insert(0, str(TESTS))  # the banks live with the tests

# The bar: every checker rejects at least this share of its non-equivalent mutants.
KILL_RATE_BAR = 0.90

# mutmut's exit codes by what they mean here (mutmut/stats.py: 1 and 3 killed, 0 survived, 36 and
# the SIGXCPU codes timed out; anything else is "suspicious" or "not checked").
KILLED_CODES = frozenset({1, 3})
SURVIVED_CODES = frozenset({0})
TIMEOUT_CODES = frozenset({36, 24, -24, 152, 255})

# mutmut survivors proven equivalent in the exercise's domain, by checker, each keyed by its
# function and the changed line ("function: before -> after", as `mutant_key` writes it), with
# the argument. The survivors that are still right answers but not equivalent (another wording,
# a stricter rule) are not excused here: docs/notes/checker-mutation.md lists them.
_NO_DEFAULT = (
    "equivalent: every Calibration has a `failed` field, so getattr's default is never read"
)
_SAME_SIDE = (
    "equivalent: another number on the same side of the same threshold; the fact still holds "
    "and the same earlier check still takes the turn (bank_s14's in-house excuse)"
)
_AT_HEAD_DEFAULT = (
    "equivalent: the default is read only for a path the green fingerprint names and the abort's "
    "leaves out, and a fingerprint maps a path to its blob hash or ABSENT, never to AT_HEAD (the "
    "notebook's step 5), so the green content differs from None as it does from AT_HEAD "
    "(tests/test_settled_s15.py)"
)
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_can_restore": {
        "right_loop: then, now = at_green.get(path, AT_HEAD), at_abort.get(path, AT_HEAD) -> "
        f"then, now = at_green.get(path, AT_HEAD), at_abort.get(path, {default})": _AT_HEAD_DEFAULT
        for default in ("None", "")
    },
    "check_within_consent": {
        "_same_notes: want = read_notes(spec.notes, spec.items, MENU, spec.allergies) -> "
        "want = read_notes(spec.notes, spec.items, MENU, )": (
            "equivalent: the allergies only make a clause restating a declared one skipped "
            "instead of read, and no restatement of any group, read without them, is a modifier; "
            "_same_notes compares modifiers alone (tests/test_settled_s05.py)"
        ),
    },
    "check_repair_loop": {
        "loop: text = draft if isinstance(draft, str) else draft.text -> "
        "text = draft if (isinstance(draft, str)) or True else draft.text": (
            "equivalent: the exercise's generator is 'messages in, draft text out' (the notebook's "
            "step 4) and every generator the checker hands a loop answers with text, so "
            "isinstance(draft, str) is always true (tests/test_settled_s07.py)"
        ),
    },
    "check_delimit": {
        'right_html_escape: return f"{OPEN_TAG}{html.escape(text, quote=False)}{CLOSE_TAG}" -> '
        'return f"{OPEN_TAG}{html.escape(text, quote=None)}{CLOSE_TAG}"': (
            "equivalent: html.escape tests `if quote:`, and None is false as False is"
        ),
    },
    "check_detection_rule": {
        r'learner_rule: r"\b(?:the|my|your)\s+(?:owner|manager|boss|chef)\s+(?:said|says|told|wants|approved)\b", -> '
        r'r"\b(?:THE|MY|YOUR)\s+(?:OWNER|MANAGER|BOSS|CHEF)\s+(?:SAID|SAYS|TOLD|WANTS|APPROVED)\b",': (
            "equivalent: the pattern is compiled with re.IGNORECASE"
        ),
    },
    "check_classify": {
        "reference_classify: first, last = present.index(True), len(present) - 1 - "
        "present[::-1].index(True) -> first, last = present.index(True), len(present) - 2 - "
        "present[::-1].index(True)": (
            "equivalent: a gap lies strictly between a failure's first and last sighting, so a "
            "slice that stops one short of the last still holds it (bank_s10's in-house excuse)"
        ),
    },
    "check_first_fix": {
        "stop_86d_first: return _stop_86d(spec, sold) if sold else repair_ticket(spec, generate) "
        "-> return _stop_86d(None, sold) if sold else repair_ticket(spec, generate)": (
            "equivalent: _stop_86d never reads its spec argument"
        ),
    },
    "check_overruled": {
        'my_overruled: "extend_budget_exhausted": {**RUN, "elapsed_ms": 120_000, '
        f'"extends_used": 6}}, -> "extend_budget_exhausted": {{**RUN, {after}}},': _SAME_SIDE
        for after in (
            '"elapsed_ms": 120001, "extends_used": 6',
            '"elapsed_ms": 120_000, "extends_used": 7',
        )
    }
    | {
        'my_overruled: "pace_check_budget_exhausted": {**RUN, "pace_checks_used": 2}, -> '
        '"pace_check_budget_exhausted": {**RUN, "pace_checks_used": 3},': _SAME_SIDE
    },
    "check_trust_rule": {
        'floor_trusts: and not getattr(calibration, "failed", 0) -> '
        f'and not getattr(calibration, "failed", {default})': _NO_DEFAULT
        for default in ("None", "", "1")
    },
}

PYPROJECT = """\
# Written by benchmarks/checker_mutmut.py; rewritten on every run.
[tool.mutmut]
source_paths = ["solutions/"]
pytest_add_cli_args_test_selection = ["tests/"]
pytest_add_cli_args = ["-p", "no:randomly", "-p", "no:cacheprovider", "-q"]
use_git_change_detection = false
# fork from a single-threaded server: a fork of mutmut's own (threaded) process can deadlock
process_isolation = "forkserver"
"""

TEST_HEADER = '''\
"""Written by benchmarks/checker_mutmut.py: each bank's reference, copied into solutions/, must
pass its checker. A mutant of the copy that makes a test fail is one the checker rejects."""

import contextlib
import importlib
import io
import os
import sys
import tempfile

sys.path.insert(0, {tests!r})
os.environ.setdefault("CAFE_HEADLESS", "1")
os.environ.setdefault("CAFE_HOME", tempfile.mkdtemp(prefix="cafe-mutmut-"))

from cafe import course  # noqa: E402


def _passes(solution: str, bank_module: str, index: int) -> None:
    module = importlib.import_module("solutions." + solution)
    bank = importlib.import_module(bank_module).BANKS[index]
    fn = bank.learner_function(vars(module))
    quiet = io.StringIO()
    with contextlib.redirect_stdout(quiet), contextlib.redirect_stderr(quiet):
        result = course.compare(fn, check=bank.check)
    assert result.status == "passed", result.problems
'''


@dataclass(frozen=True)
class Target:
    """One bank: where it is, and the name its copied solution module takes."""

    session: str
    checker: str
    bank_module: str
    index: int

    @property
    def solution(self) -> str:
        return f"{self.session}_{self.checker}_{self.index}"


@dataclass
class Row:
    """One checker's figures under mutmut."""

    target: Target
    mutants: int = 0
    killed: int = 0
    timeouts: int = 0
    equivalent: int = 0
    survivors: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)  # not checked, suspicious, no tests

    @property
    def rate(self) -> float:
        counted = self.mutants - self.equivalent
        return self.killed / counted if counted else 1.0


def targets(only: list[str] | None) -> list[Target]:
    """Every bank in session order; `only` keeps the sessions (s05) and checkers it names."""
    found = []
    for path in sorted((TESTS / "banks").glob("bank_s[0-9][0-9].py")):
        name = f"banks.{path.stem}"
        for index, bank in enumerate(importlib.import_module(name).BANKS):
            if only is None or bank.session in only or bank.checker_name in only:
                found.append(Target(bank.session, bank.checker_name, name, index))
    return found


def solution_source(target: Target) -> str:
    """The bank's mutation targets as one module: their own module's globals, then their code."""
    bank = importlib.import_module(target.bank_module).BANKS[target.index]
    module = importlib.import_module(bank.mutation_module)
    functions = "\n\n".join(
        textwrap.dedent(inspect.getsource(getattr(module, name))) for name in bank.mutation_targets
    )
    return (
        f'"""Copied by benchmarks/checker_mutmut.py from {module.__name__}: '
        f'{", ".join(bank.mutation_targets)}."""\n\n'
        "from __future__ import annotations\n\n"
        "import importlib as _importlib\n\n"
        f"_ORIGIN = _importlib.import_module({module.__name__!r})\n"
        "globals().update({k: v for k, v in vars(_ORIGIN).items() if not k.startswith('__')})\n\n\n"
        f"{functions}\n"
    )


def build(work: Path, selected: list[Target]) -> None:
    """Write the scratch project mutmut runs in (a fresh one: old mutants are thrown away)."""
    subprocess.run(["rm", "-rf", str(work)], check=True)
    (work / "solutions").mkdir(parents=True)
    (work / "tests").mkdir()
    (work / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    (work / "solutions" / "__init__.py").write_text("", encoding="utf-8")
    tests = [TEST_HEADER.format(tests=str(TESTS))]
    for target in selected:
        source = solution_source(target)
        (work / "solutions" / f"{target.solution}.py").write_text(source, encoding="utf-8")
        call = f"{target.solution!r}, {target.bank_module!r}, {target.index}"
        tests.append(f"\n\ndef test_{target.solution}() -> None:\n    _passes({call})\n")
    (work / "tests" / "test_checkers.py").write_text("".join(tests), encoding="utf-8")


def mutant_key(work: Path, name: str, mutmut: str) -> str:
    """`function: before -> after` from `mutmut show NAME` (the lines the mutant changed)."""
    shown = subprocess.run(
        [mutmut, "show", name], cwd=work, capture_output=True, text=True, check=False
    ).stdout
    removed = [line[1:].strip() for line in shown.splitlines() if line.startswith("-  ")]
    added = [line[1:].strip() for line in shown.splitlines() if line.startswith("+  ")]
    function = name.split("__mutmut_")[0].split(".")[-1].removeprefix("x_").removeprefix("xǁ")
    return f"{function}: {' / '.join(removed)} -> {' / '.join(added)}"


def tally(work: Path, selected: list[Target], mutmut: str) -> list[Row]:
    """Each bank's mutants and their fates, from mutmut's own records (mutants/**/*.meta)."""
    rows = []
    for target in selected:
        row = Row(target)
        meta = work / "mutants" / "solutions" / f"{target.solution}.py.meta"
        codes = (
            json.loads(meta.read_text(encoding="utf-8"))["exit_code_by_key"]
            if meta.exists()
            else {}
        )
        excused = EQUIVALENT.get(target.checker, {})
        for name, code in sorted(codes.items()):
            row.mutants += 1
            if code in KILLED_CODES or code in TIMEOUT_CODES:
                row.killed += 1
                row.timeouts += code in TIMEOUT_CODES
            elif code in SURVIVED_CODES:
                key = mutant_key(work, name, mutmut)
                if key in excused:
                    row.equivalent += 1
                else:
                    row.survivors.append(f"{name}  {key}")
            else:
                row.other.append(f"{name} (exit code {code})")
        rows.append(row)
    return rows


def report(row: Row) -> str:
    target = row.target
    flag = "   < bar" if row.rate < KILL_RATE_BAR else ""
    lines = [
        f"{target.session} {target.checker:<28} mutants {row.mutants:>4}  killed {row.killed:>4}"
        f" (timeouts {row.timeouts})  equivalent {row.equivalent:>3}  survived"
        f" {len(row.survivors):>3}  strict {row.rate:6.1%}{flag}"
    ]
    lines += [f"      survived: {key}" for key in row.survivors]
    lines += [f"      not judged: {key}" for key in row.other]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument(
        "--only",
        action="append",
        help="a session (s12) or a checker (check_trust_rule); repeatable",
    )
    parser.add_argument("--work", default="/tmp/cafe-mutmut", help="the scratch project")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    parser.add_argument("--tally-only", action="store_true", help="count the last run again")
    args = parser.parse_args(argv)
    selected = targets(args.only)
    if not selected:
        print(f"no bank matches {args.only!r}; the banks are in {TESTS / 'banks'}")
        return 2
    work = Path(args.work)
    mutmut = str(Path(sys.executable).parent / "mutmut")
    if not args.tally_only:
        build(work, selected)
        environment = {**os.environ, "PYTHONPATH": str(ROOT)}
        with open(work / "mutmut.log", "w", encoding="utf-8") as log:  # its progress spinner
            run = [mutmut, "run", "--max-children", "1"]
            subprocess.run(run, cwd=work, env=environment, stdout=log, stderr=log, check=False)
    rows = tally(work, selected, mutmut)
    for row in rows:
        print(report(row), flush=True)
    below = [row.target.checker for row in rows if row.rate < KILL_RATE_BAR]
    print(
        f"\n{len(rows)} checkers, {sum(row.mutants for row in rows)} mutmut mutants; "
        f"{len(below)} below the {KILL_RATE_BAR:.0%} bar: {', '.join(below) or 'none'}"
    )
    if args.json:
        data = [
            {**vars(row.target), "mutants": row.mutants, "killed": row.killed,
             "timeouts": row.timeouts, "equivalent": row.equivalent,
             "survivors": row.survivors, "other": row.other, "rate": row.rate}
            for row in rows
        ]  # fmt: skip
        Path(args.json).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 1 if below else 0


if __name__ == "__main__":
    raise SystemExit(main())
