"""How many mutants of each reference solution does its checker reject? (issue 26)

    python benchmarks/checker_mutants.py                 # every bank in tests/banks/
    python benchmarks/checker_mutants.py --only s02      # one session (or one checker's name)
    python benchmarks/checker_mutants.py --json out.json # the rows, for a note

For every bank (`tests/banks/bank_sNN.py`), the reference's code and the helpers that belong to
the exercise (`Bank.mutation_targets`) are mutated one site at a time by the small AST mutator in
`tests/banks/mutants.py`, and each mutant goes through `cafe.course.compare` with the checker,
exactly as a learner's function would. A surviving mutant is either a hole in the checker or not
a wrong solution at all; the second kind is excused, with its reason, in the bank file's
`EQUIVALENT` table. The kill rate is killed / (mutants - excused).

Printed per checker: whether the reference passes, mutants, killed (crashes of the checker and
timeouts count as killed, and are listed), excused, survived, the rate, and every survivor's key
(the line to paste into `EQUIVALENT` with a reason, if it is not wrong). Excuses that no longer
match a surviving mutant are listed as stale. Exit status 1 when a checker is under the bar
(`KILL_RATE_BAR`), its reference fails, or it has a stale excuse; 2 when `--only` matches no bank.

`--strict` (issue 35) also gives the strict rate, which excuses a mutant only when its reason is
an "equivalent:" argument (no input in the exercise's domain tells it from the reference) AND a
generated search `WIDER` times as wide as the checker's own still cannot tell it apart. The other
kinds of excuse ("text:", "open:", "outside:": a mutant that is still a right answer because it
differs only where the lesson leaves the answer to the learner, or only on inputs the exercise
never gives) are counted apart, as "same answer", and must pass the wider search too; an excuse
the wider search refutes is listed and counted as a survivor.

This is the mutation analysis the test suite leaves out (it takes minutes); the suite keeps the
banks' wrong solutions and checks that every mutation target, copied unmutated, still passes.
Run it when a checker, a reference or a bank changes.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

TESTS = Path(__file__).resolve().parent.parent / "tests"
sys.path.insert(0, str(TESTS))  # the banks live with the tests
os.environ.setdefault("CAFE_HEADLESS", "1")
os.environ.setdefault("CAFE_HOME", tempfile.mkdtemp(prefix="cafe-mutants-"))  # never yours

from banks.harness import Bank  # noqa: E402
from banks.mutants import MUTANT_SECONDS, judge, mutants  # noqa: E402

from cafe.exercises import search  # noqa: E402

# The bar: every checker rejects at least this share of its non-excused mutants.
KILL_RATE_BAR = 0.90
# --strict: how many times the checker's own generated examples the search behind an excuse tries.
WIDER = 10


@dataclass
class Row:
    """One checker's figures."""

    session: str
    checker: str
    reference_passes: bool
    mutants: int = 0
    killed: int = 0
    excused: int = 0
    survivors: list[str] = field(default_factory=list)
    crashed: list[str] = field(default_factory=list)
    timeouts: list[str] = field(default_factory=list)
    stale: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # --strict: excuses that held under the wider search, by kind, and those it refuted
    equivalent: int = 0
    same_answer: int = 0
    refuted: list[str] = field(default_factory=list)

    @property
    def rate(self) -> float:
        counted = self.mutants - self.excused
        return self.killed / counted if counted else 1.0

    @property
    def strict_rate(self) -> float:
        """Killed over every mutant but those proven equivalent (and not refuted)."""
        counted = self.mutants - self.equivalent
        return self.killed / counted if counted else 1.0

    @property
    def below_bar(self) -> bool:
        return self.rate < KILL_RATE_BAR or not self.reference_passes


def banks(only: str | None) -> list[tuple[Bank, dict[str, str]]]:
    """Every bank with its excused mutants, in session order; `only` keeps a session or checker."""
    found = []
    for path in sorted((TESTS / "banks").glob("bank_s[0-9][0-9].py")):
        module = importlib.import_module(f"banks.{path.stem}")
        for bank in module.BANKS:
            if only in (None, bank.session, bank.checker_name):
                found.append((bank, dict(module.EQUIVALENT.get(bank.checker_name, {}))))
    return found


@contextlib.contextmanager
def wider_search(factor: int) -> Iterator[None]:
    """Every generated search a checker makes (`cafe.exercises.search`) tries `factor` times
    its examples, within this block. The benchmark's own measuring device: swapped here, never in
    the course, and put back on the way out."""
    original = search.seeded
    search.seeded = lambda examples: original(examples * factor)  # type: ignore[assignment]
    try:
        yield
    finally:
        search.seeded = original  # type: ignore[assignment]


def strict_judge(bank: Bank, mutant: Any, reason: str, row: Row) -> None:
    """An excused survivor, tried again with the wider search (and WIDER times the time): counted
    by its kind if it still survives, listed as refuted if the wider search rejects it, and as
    unsettled if the search crashed or ran out of time (both count as survivors here)."""
    with wider_search(WIDER):
        fate = judge(bank, mutant, seconds=MUTANT_SECONDS * WIDER)
    if fate == "killed":
        row.refuted.append(f"{mutant.key}  (rejected by the wider search)")
    elif fate != "survived":
        row.refuted.append(f"{mutant.key}  (unsettled: the wider search {fate})")
    elif reason.startswith("equivalent:"):
        row.equivalent += 1
    else:
        row.same_answer += 1


def measure(bank: Bank, excused: dict[str, str], strict: bool = False) -> Row:
    """Every mutant of one bank's targets through its checker."""
    started = time.perf_counter()
    row = Row(bank.session, bank.checker_name, judge(bank, None) == "survived")
    matched = set()
    for mutant in mutants(bank):
        row.mutants += 1
        fate = judge(bank, mutant)
        if fate == "survived" and mutant.key in excused:
            row.excused += 1
            matched.add(mutant.key)
            if strict:
                strict_judge(bank, mutant, excused[mutant.key], row)
        elif fate == "survived":
            row.survivors.append(mutant.key)
        else:
            row.killed += 1
            {"crashed": row.crashed, "timeout": row.timeouts}.get(fate, []).append(mutant.key)
    # an excuse belongs to this bank when it names one of its targets (two banks may share a
    # checker, and so an EQUIVALENT table)
    mine = {key for key in excused if key.split(":")[0] in bank.mutation_targets}
    row.stale = sorted(mine - matched)
    row.seconds = time.perf_counter() - started
    return row


def report(row: Row, strict: bool = False) -> str:
    """The row as the benchmark prints it: one line of figures, then what to look at."""
    reference = "passes" if row.reference_passes else "FAILS"
    flag = "" if not row.below_bar else "   < bar"
    lines = [
        f"{row.session} {row.checker:<28} reference {reference:<6} mutants {row.mutants:>4}  "
        f"killed {row.killed:>4}  excused {row.excused:>3}  survived {len(row.survivors):>3}  "
        f"rate {row.rate:6.1%}  ({row.seconds:.0f} s){flag}"
    ]
    if strict:
        survived = len(row.survivors) + len(row.refuted)
        lines.append(
            f"      strict: equivalent {row.equivalent:>3}  same answer {row.same_answer:>3}  "
            f"survived {survived:>3}  strict rate {row.strict_rate:6.1%}"
        )
        lines += [f"      excuse not held: {key}" for key in row.refuted]
    lines += [f"      survived: {key}" for key in row.survivors]
    lines += [f"      crashed the checker: {key}" for key in row.crashed]
    lines += [f"      timed out: {key}" for key in row.timeouts]
    lines += [f"      stale excuse (no such survivor): {key}" for key in row.stale]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--only", help="one session (s02) or one checker (check_own_check)")
    parser.add_argument("--json", help="also write the rows as JSON to this file")
    parser.add_argument(
        "--strict", action="store_true", help="also the strict rate (equivalent excuses only)"
    )
    args = parser.parse_args(argv)
    selected = banks(args.only)
    if not selected:
        print(f"no bank matches {args.only!r}; the banks are in {TESTS / 'banks'}")
        return 2
    sys.setrecursionlimit(3000)  # deep copies of large function trees
    rows = []
    for bank, excused in selected:
        rows.append(measure(bank, excused, args.strict))
        print(report(rows[-1], args.strict), flush=True)
    below = [row.checker for row in rows if row.below_bar]
    stale = [row.checker for row in rows if row.stale]
    print(
        f"\n{len(rows)} checkers, {sum(row.mutants for row in rows)} mutants; "
        f"{len(below)} below the {KILL_RATE_BAR:.0%} bar: {', '.join(below) or 'none'}; "
        f"stale excuses in {', '.join(stale) or 'none'}"
    )
    if args.json:
        data = [{**asdict(row), "rate": row.rate, "strict_rate": row.strict_rate} for row in rows]
        Path(args.json).write_text(json.dumps(data, indent=1) + "\n", encoding="utf-8")
    return 1 if below or stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
