"""Evals you can trust: checks proven by two fixtures, pass rates reported with their uncertainty.

Session 02. Session 01 built a loop that writes a kitchen ticket; this module asks how we know
the ticket is right, and how much to believe the answer. It adds:

- `Check`: a named, deterministic judge with two fixtures, one it must pass and one it must fail.
  `fixture_problems` enforces that invariant: a check whose failing fixture passes is vacuous.
- `registry(*groups)`: the course's checks by name, built from explicit lists. Nothing registers
  itself on import; later sessions hand their checks in (`findings_check` adapts the `Failure`
  lists that sessions 04 and 06 produce), and `uncovered` names any check left without fixtures.
- `wilson_interval`, `Rate` and `score_observations`: a pass rate per check and overall, with its
  95% interval and the sample size, because a rate from 25 orders is not a rate from 400.

The café's own five checks are in `cafe.evals.ticket_checks`, and running the session 01 loop
over the labelled orders is `cafe.evals.run`. What it leaves out: what the model is shown (session 03, `cafe.context`), the ticket
contract's checks (session 04, `cafe.schema`) and detection beyond the menu (session 06,
`cafe.detect`), whose checks join the registry from their side; and judging with a model
(session 12).

Lesson: sessions/s02-evals/lesson.md. Notebook: notebooks/s02-evals.ipynb.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

__all__ = [
    "Z_95",
    "Line",
    "Case",
    "Observation",
    "Check",
    "Rate",
    "EvalReport",
    "wilson_interval",
    "merge_lines",
    "fixture_problems",
    "registry",
    "uncovered",
    "findings_check",
    "score_observations",
]

# 1.96: the standard normal quantile for a two-sided 95% interval, the usual level for a rate.
Z_95 = 1.96

Line = tuple[str, int]  # one ticket line: (menu item name, quantity)
Judge = Callable[[Any], "str | None"]  # a finding when the thing fails, None when it passes


# --- small pure helpers ---------------------------------------------------------------------


def wilson_interval(passed: int, n: int, z: float = Z_95) -> tuple[float, float]:
    """The Wilson score interval for `passed` successes out of `n`: (low, high), both in [0, 1]."""
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ValueError(f"n is {n!r}; an interval needs at least one observation (n >= 1).")
    if isinstance(passed, bool) or not isinstance(passed, int) or not 0 <= passed <= n:
        raise ValueError(f"passed is {passed!r}; it must be a whole number from 0 to n ({n}).")
    p = passed / n
    denominator = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denominator
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def merge_lines(lines: Iterable[Line]) -> tuple[Line, ...]:
    """Ticket lines with one line per item (quantities added), in the order items first appear."""
    totals: dict[str, int] = {}
    for name, quantity in lines:
        totals[name] = totals.get(name, 0) + quantity
    return tuple(totals.items())


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One labelled order: the customer's words and the ticket a careful waiter writes for them.

    `probes` names the checks this order was written to exercise (a sold-out item, an allergy).
    """

    id: str
    request: str
    expected: tuple[Line, ...]
    allergies: tuple[str, ...] = ()
    probes: tuple[str, ...] = ()


@dataclass(frozen=True)
class Observation:
    """What a run did with one case: the ticket it wrote (one line per item) and how it stopped."""

    case: Case
    ticket: tuple[Line, ...]
    stop_reason: str


@dataclass(frozen=True)
class Check:
    """A deterministic check: `judge(thing)` returns a finding (text) or None for a pass.

    `passes` is a fixture the judge must pass and `fails` one it must fail; None means missing.
    A check is trusted only when both fixtures exist and behave (`fixture_problems`).
    """

    name: str
    question: str
    judge: Judge = field(repr=False)
    passes: Any = field(default=None, repr=False)
    fails: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not re.fullmatch(r"[a-z][a-z0-9_]*", self.name):
            raise ValueError(
                f"Check name {self.name!r} must be a snake_case word, like 'items_match'."
            )
        if not callable(self.judge):
            raise TypeError(
                f"Check {self.name}: judge must be a function returning a finding or None."
            )


@dataclass(frozen=True)
class Rate:
    """How many of `n` observations passed, with the Wilson 95% interval around the rate."""

    name: str
    passed: int
    n: int

    @property
    def rate(self) -> float:
        return self.passed / self.n

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.passed, self.n)

    def text(self) -> str:
        low, high = self.interval
        return (
            f"{self.name:<18} {self.passed:>3}/{self.n:<3} {self.rate:>5.0%}   "
            f"95% interval {low:.0%} to {high:.0%}"
        )


@dataclass(frozen=True)
class EvalReport:
    """One eval run: a `Rate` per check, the overall rate (every check passed), and each miss."""

    model: str
    rates: tuple[Rate, ...]
    overall: Rate
    misses: Mapping[str, tuple[str, ...]]  # case id -> the findings of the checks it failed
    # case id -> the endpoint problem that kept the order from the model (`ProblemKind`): such
    # an order was never observed, so it is in no rate (`cafe.evals.run.run_eval` fills this)
    unreached: Mapping[str, str] = field(default_factory=lambda: MappingProxyType({}))

    def table(self) -> str:
        lines = [f"model: {self.model}   orders: {self.overall.n}"]
        lines += [rate.text() for rate in self.rates] + [self.overall.text()]
        if self.unreached:
            kinds = ", ".join(sorted(set(self.unreached.values())))
            total = self.overall.n + len(self.unreached)
            lines.append(
                f"{len(self.unreached)} of {total} orders hit an endpoint problem ({kinds}); "
                f"the rates above cover the other {self.overall.n}"
            )
        return "\n".join(lines)


# --- the registry and its invariant -----------------------------------------------------------


def _verdict(check: Check, fixture: Any) -> tuple[str | None, str | None]:
    """(finding, error): what the judge said about a fixture, or why it could not say."""
    try:
        finding = check.judge(fixture)
    except Exception as exc:  # a judge that crashes on its own fixture is a broken check
        return None, f"{type(exc).__name__}: {exc}"
    if finding is not None and not (isinstance(finding, str) and finding.strip()):
        return None, f"returned {finding!r}; a judge returns a finding (text) or None"
    return finding, None


def fixture_problems(checks: Iterable[Check]) -> list[str]:
    """Every way `checks` break the invariant: both fixtures present, the passing one passes, the
    failing one fails. An empty list means every check can be trusted to tell good from bad."""
    problems = []
    for check in checks:
        for role in ("passes", "fails"):
            fixture = getattr(check, role)
            if fixture is None:
                problems.append(
                    f"{check.name}: no fixture it {'must pass' if role == 'passes' else 'must fail'}"
                )
                continue
            finding, error = _verdict(check, fixture)
            if error:
                problems.append(f"{check.name}: on its {role} fixture the judge {error}")
            elif role == "passes" and finding is not None:
                problems.append(f"{check.name}: fails its own passing fixture ({finding})")
            elif role == "fails" and finding is None:
                problems.append(
                    f"{check.name}: passes its failing fixture, so it cannot fail: vacuous"
                )
    return problems


def registry(*groups: Iterable[Check]) -> Mapping[str, Check]:
    """The checks of every group by name, read-only. Two checks with one name is an error."""
    found: dict[str, Check] = {}
    for group in groups:
        for check in group:
            if not isinstance(check, Check):
                raise TypeError(
                    f"registry() takes lists of Check records, not {type(check).__name__}."
                )
            if check.name in found:
                raise ValueError(
                    f"Two checks are called {check.name!r}; rename one so reports can tell them apart."
                )
            found[check.name] = check
    return MappingProxyType(found)


def uncovered(names: Iterable[str], checks: Mapping[str, Check]) -> list[str]:
    """The check names in `names` that have no registered `Check` (so no fixtures) in `checks`."""
    return sorted(set(names) - set(checks))


def findings_check(
    name: str,
    question: str,
    find: Callable[[Any], Iterable[Any]],
    passes: Any = None,
    fails: Any = None,
) -> Check:
    """A `Check` from a function that returns findings carrying a `.check` name (the `Failure`
    records of sessions 04 and 06): the check fails on the first finding named `name`."""

    def judge(thing: Any) -> str | None:
        hit = next((f for f in find(thing) if f.check == name), None)
        return None if hit is None else (hit.line() if hasattr(hit, "line") else str(hit))

    return Check(name, question, judge, passes, fails)


def score_observations(
    observations: Sequence[Observation], checks: Sequence[Check], model: str = ""
) -> EvalReport:
    """Judge every observation with every check: a `Rate` per check, overall, and each miss."""
    if not observations:
        raise ValueError("No observations to score; run at least one case.")
    misses: dict[str, tuple[str, ...]] = {}
    passed = {check.name: 0 for check in checks}
    for obs in observations:
        found = []
        for check in checks:
            finding = check.judge(obs)
            if finding is None:
                passed[check.name] += 1
            else:
                found.append(f"{check.name}: {finding}")
        if found:
            misses[obs.case.id] = tuple(found)
    n = len(observations)
    rates = tuple(Rate(check.name, passed[check.name], n) for check in checks)
    return EvalReport(model, rates, Rate("overall", n - len(misses), n), MappingProxyType(misses))
