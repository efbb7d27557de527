"""A capstone check's verdict: property by property, held, failed, or held only vacuously.

Session 16, the capstone. `Verdict` is what `check` (`cafe/capstone/grader.py`) returns: the seed,
how many scenarios ran, each property that failed (`Failure`: on how many runs, its smallest
failing scenario, what happened there) and each that held only because nothing happened where the
course's own harness did the work (the first scenario it held vacuously on). `render` is the
report `cafe capstone check` prints.

Left out: the grading itself (`cafe/capstone/grader.py`), the board (`cafe/capstone/workshop.py`).
"""

from __future__ import annotations

from dataclasses import dataclass

from cafe.capstone.properties import PROPERTIES
from cafe.capstone.scenarios import Scenario, describe

__all__ = ["Failure", "Verdict"]


@dataclass(frozen=True)
class Failure:
    """A property that failed: on how many runs, and its smallest failing scenario."""

    property: str
    runs: int
    scenario: Scenario
    detail: str


@dataclass(frozen=True)
class Verdict:
    """The grade of one check: the seed, how many scenarios ran, what failed, and what held only
    vacuously (a property that failed on one run is a failure, never vacuous). Passed: neither."""

    seed: int
    n_scenarios: int
    failures: tuple[Failure, ...]
    vacuities: tuple[Failure, ...] = ()  # held, but only because nothing happened (first run)

    @property
    def passed(self) -> bool:
        return not self.failures and not self.vacuities

    @property
    def failed(self) -> frozenset[str]:
        """The names of the properties that failed."""
        return frozenset(f.property for f in self.failures)

    @property
    def vacuous(self) -> frozenset[str]:
        """The names of the properties that held only because nothing happened."""
        return frozenset(f.property for f in self.vacuities)

    def mark(self, name: str) -> str:
        """How property `name` fared: 'FAIL', 'vacuous' or 'ok'."""
        return "FAIL" if name in self.failed else "vacuous" if name in self.vacuous else "ok"

    def render(self) -> str:
        """The verdict as the command prints it: one line a property, each failure shown."""
        lines = [f"capstone check: seed {self.seed}, {self.n_scenarios} scenarios"]
        by_name = {f.property: f for f in (*self.vacuities, *self.failures)}
        for name in PROPERTIES:
            found = by_name.get(name)
            lines.append(
                f"  {self.mark(name):<4} {name}" + (f" ({found.runs} runs)" if found else "")
            )
        for failure in self.failures:
            lines += [
                "",
                f"{failure.property} failed; smallest scenario found:",
                describe(failure.scenario),
            ]
            lines.append(f"  what happened: {failure.detail}")
        for vacuity in self.vacuities:
            lines += [
                "",
                f"{vacuity.property} held only because nothing happened, first on:",
                describe(vacuity.scenario),
                f"  what happened: {vacuity.detail}",
            ]
        lines.append("")
        if self.passed:
            lines.append("PASSED: every property held.")
        if self.failures:
            lines.append(f"FAILED: {', '.join(sorted(self.failed))}.")
        if self.vacuities:
            lines.append(
                f"NOT PASSED: {', '.join(sorted(self.vacuous))} held only because nothing "
                "happened, where the course's harness did the work."
            )
        return "\n".join(lines)
