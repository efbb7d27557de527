"""Session 02's your-turn checkers: the fixture invariant, and a check of your own.

- `check_fixture_problems(fn)` judges your `fixture_problems(checks)`: it must pass a sound check
  and name every check that is missing a fixture, fails its passing fixture, passes its failing
  one (vacuous), or whose judge crashes or answers with something that is not a finding.
- `check_own_check(fn)` judges the open-ended exercise: `fn(menu)` returns a `cafe.evals.Check`
  that keeps the invariant, passes every labelled ticket in `cafe/data/orders.json`, and catches
  at least one order the session 01 loop gets wrong offline. `reference_check` is one answer.

Notebook: notebooks/s02-evals.ipynb. The library code they exercise: `cafe.evals`, `cafe.evals.run`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable
from typing import Any

from cafe.endpoint.scripted import ScriptedClient
from cafe.evals.checks import Case, Check, Observation, fixture_problems
from cafe.evals.run import load_cases, run_order
from cafe.evals.ticket_checks import labelled_observations
from cafe.stories.waiter import make_waiter
from cafe.world.menu import load_menu

__all__ = ["check_fixture_problems", "check_own_check", "reference_check", "offline_observations"]

# How many false alarms a report lists before it stops: enough to see the pattern.
_SHOWN = 3


def _is_even(n: int) -> str | None:
    return None if n % 2 == 0 else f"{n} is odd"


def _crashes_on_odd(n: int) -> str | None:
    if n % 2:
        raise ZeroDivisionError("the judge divided by zero")
    return None


# Sample checks over whole numbers, each with the problem your function must find (None: none).
_SAMPLES: tuple[tuple[str, Check, bool], ...] = (
    ("a sound check", Check("even", "Is it even?", _is_even, 2, 3), False),
    (
        "a vacuous check (its failing fixture passes)",
        Check("always_ok", "Is it fine?", lambda n: None, 2, 3),
        True,
    ),
    (
        "a check that fails its passing fixture",
        Check("upside_down", "Is it even?", _is_even, 3, 2),
        True,
    ),
    ("a check with no failing fixture", Check("half_done", "Is it even?", _is_even, 2), True),
    (
        "a check with no passing fixture",
        Check("other_half", "Is it even?", _is_even, None, 3),
        True,
    ),
    (
        "a judge that crashes on its failing fixture",
        Check("fragile", "Is it even?", _crashes_on_odd, 2, 3),
        True,
    ),
    (
        "a judge that answers False instead of a finding",
        Check("yes_no", "Is it even?", lambda n: n % 2 == 0, 2, 3),
        True,
    ),
)


def check_fixture_problems(fn: Callable[[list[Check]], Any]) -> list[str]:
    """Problems with a learner's `fixture_problems`; empty when every sample is judged right."""
    problems = []
    for label, check, broken in _SAMPLES:
        try:
            found = fn([check])
        except NotImplementedError:
            raise
        except Exception as exc:
            problems.append(f"{label}: your function raised {type(exc).__name__}: {exc}")
            continue
        if not isinstance(found, list) or not all(isinstance(p, str) for p in found):
            return [f"return a list of problem strings, not {found!r}"]
        if broken and not any(check.name in p for p in found):
            problems.append(
                f"{label} ({check.name}): expected a problem naming {check.name!r}, got {found}"
            )
        if not broken and found:
            problems.append(f"{label} ({check.name}): expected no problems, got {found}")
    return problems


@functools.lru_cache(maxsize=1)
def offline_observations() -> tuple[Observation, ...]:
    """Every labelled order run once through the session 01 loop with the scripted waiter."""
    client = ScriptedClient(make_waiter(load_menu().items))
    return tuple(run_order(case, client) for case in load_cases())


def check_own_check(fn: Callable[[Any], Any]) -> list[str]:
    """Problems with a learner's own check: built by `fn(menu)`, judged three ways."""
    check = fn(load_menu())
    if not isinstance(check, Check):
        return [f"return a cafe.evals.Check, not {type(check).__name__}"]
    problems = fixture_problems([check])
    alarms = [
        (o.case.id, f)
        for o in labelled_observations(load_cases())
        if (f := check.judge(o)) is not None
    ]
    if alarms:
        shown = "; ".join(f"{case_id}: {finding}" for case_id, finding in alarms[:_SHOWN])
        problems.append(f"it fails {len(alarms)} labelled (correct) ticket(s), e.g. {shown}")
    if not any(check.judge(o) is not None for o in offline_observations()):
        problems.append(
            "it catches none of the orders the session 01 loop gets wrong offline; "
            "read report.misses and pick one"
        )
    return problems


def reference_check(menu: Any) -> Check:
    """One answer: the loop puts on the ticket an item the customer said "no" to."""

    def judge(obs: Observation) -> str | None:
        said_no = [
            n for n, _ in obs.ticket if re.search(rf"\bno {re.escape(n)}", obs.case.request.lower())
        ]
        return f"the customer said no to {', '.join(said_no)}" if said_no else None

    case = Case("fixture", "A latte, no croissant this time.", (("latte", 1),))
    return Check(
        "said_no",
        "Is every item on the ticket one the customer did not refuse?",
        judge,
        Observation(case, (("latte", 1),), "done"),
        Observation(case, (("latte", 1), ("croissant", 1)), "done"),
    )
