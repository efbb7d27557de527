"""Session 02's your-turn checkers: the fixture invariant, and a check of your own.

- `check_fixture_problems(fn)` judges your `fixture_problems(checks)`: it must pass a sound check
  and name every check that is missing a fixture, fails its passing fixture, passes its failing
  one (vacuous), or whose judge crashes or answers other than a finding (a problem for each: names
  are not identities, two checks may share one), leaving the caller's list. The course's: refused.
- `check_own_check(fn)` judges the open-ended exercise: `fn(menu)` returns a `cafe.evals.Check`
  that keeps the invariant, passes every labelled ticket in `cafe/data/orders.json`, and catches
  at least one order the session 01 loop gets wrong offline, with a judge of its own (the
  session's checks and `reference_check`, one answer, are refused as the course's).
- `your_figures(fixture_fn, check_fn, observations)` is what the checkpoint banks as yours: what
  your invariant finds in the course's checks, and what your check catches offline (and, given
  your model's observations, there). Pass only the functions whose exercise passed.

Notebook: notebooks/s02-evals.ipynb. The library code they exercise: `cafe.evals`, `cafe.evals.run`.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Callable
from typing import Any

from cafe.endpoint.client.scripted import ScriptedClient
from cafe.evals.checks import Case, Check, Observation, fixture_problems
from cafe.evals.run import load_cases, run_order
from cafe.evals.ticket_checks import first_try_no_sold_out, labelled_observations, session_checks
from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
    shown,
    wrong_type,
)
from cafe.exercises.generated import built_once, first_difference
from cafe.exercises.library import is_library
from cafe.exercises.reference_s02 import (
    accounted,
    broken_checks,
    call_sequences,
    changed,
    divides_by_zero_on_odd,
    false_for_even,
    key_error_on_even,
    named_in,
    odd_fails,
    shown_calls,
    unquoted,
    yes_for_odd,
)
from cafe.stories.waiter import make_waiter
from cafe.world.menu import load_menu

__all__ = [
    "check_fixture_problems",
    "check_own_check",
    "reference_check",
    "offline_observations",
    "your_figures",
]

# How many false alarms a report lists before it stops: enough to see the pattern.
_SHOWN = 3


# Sample checks over whole numbers, each with the problem your function must find (None: none).
_SAMPLES: tuple[tuple[str, Check, bool], ...] = (
    ("a sound check", Check("even", "Is it even?", odd_fails, 2, 3), False),
    (
        "a vacuous check (its failing fixture passes)",
        Check("always_ok", "Is it fine?", lambda n: None, 2, 3),
        True,
    ),
    (
        "a check that fails its passing fixture",
        Check("upside_down", "Is it even?", odd_fails, 3, 2),
        True,
    ),
    ("a check with no failing fixture", Check("half_done", "Is it even?", odd_fails, 2), True),
    (
        "a check with no passing fixture",
        Check("other_half", "Is it even?", odd_fails, None, 3),
        True,
    ),
    (
        "a judge that crashes on its failing fixture",
        Check("fragile", "Is it even?", divides_by_zero_on_odd, 2, 3),
        True,
    ),
    (
        "a judge that answers False instead of a finding",
        Check("yes_no", "Is it even?", lambda n: n % 2 == 0, 2, 3),
        True,
    ),
)


def _sample_problems(fn: Callable[[list[Check]], Any]) -> list[str]:
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
        if broken and not any(check.name in unquoted(p, [check]) for p in found):
            problems.append(
                f"{label} ({check.name}): expected a problem naming {check.name!r}, got {found}"
            )
        if not broken and found:
            problems.append(f"{label} ({check.name}): expected no problems, got {found}")
    return problems


_BY_NAME = {check.name: check for _, check, _ in _SAMPLES}
_ZERO_OK = Check("zero_ok", "Is it even?", odd_fails, 0, 3)  # 0 is a fixture, not a missing one
# (label, the list handed in, the names the problems must name, the idea it bears on)
_LISTS: tuple[tuple[str, list[Check], frozenset[str], str], ...] = (
    (
        "a sound check whose passing fixture is 0",
        [_ZERO_OK],
        frozenset(),
        "a fixture of 0 is still a fixture: test it against None",
    ),
    (
        "three checks in one list: sound, vacuous, upside down",
        [_BY_NAME["even"], _BY_NAME["always_ok"], _BY_NAME["upside_down"]],
        frozenset({"always_ok", "upside_down"}),
        "every check in the list is judged, and every broken one named",
    ),
    (
        "a list whose broken check comes last",
        [_ZERO_OK, _BY_NAME["even"], _BY_NAME["fragile"]],
        frozenset({"fragile"}),
        "every check in the list is judged, not only the first",
    ),
    (
        "a check that fails its passing fixture (3) and fails its failing one (5) too",
        [Check("odd_one_out", "Is it even?", odd_fails, 3, 5)],
        frozenset({"odd_one_out"}),
        "the passing fixture must pass, whatever the failing one does",
    ),
    (
        "a judge that answers False (not None) for its passing fixture",
        [_BY_NAME["even"], Check("falsy_pass", "Is it even?", false_for_even, 2, 3)],
        frozenset({"falsy_pass"}),
        "a judge answers a finding (text) or None; False is neither",
    ),
    (
        "a judge that raises KeyError on its passing fixture",
        [Check("brittle", "Is it even?", key_error_on_even, 2, 3), _ZERO_OK],
        frozenset({"brittle"}),
        "a judge that crashes on either fixture, with any error, is a broken check",
    ),
    (
        "a judge that answers True (not a finding) on its failing fixture",
        [Check("yes_odd", "Is it even?", yes_for_odd, 2, 3), _BY_NAME["even"]],
        frozenset({"yes_odd"}),
        "a finding is text; True, a list or any other answer is neither a finding nor None",
    ),
    ("an empty list", [], frozenset(), "no checks, no problems"),
)


def _list_problems(fn: Callable[[list[Check]], Any]) -> list[str]:
    problems = []
    for label, checks, broken, idea in _LISTS:
        given = list(checks)
        found = call(fn, given)
        if isinstance(found, Raised):
            problems.append(found.problem(label))
        elif not isinstance(found, list) or not all(isinstance(p, str) for p in found):
            return [wrong_type(label, found, "a list of problem strings")]
        elif changed(given, checks):
            problems.append(f"{label}: {changed(given, checks)}")
        elif named_in(found, checks) != broken:
            want = f"problems naming {sorted(broken)}" if broken else "no problems"
            problems.append(mismatch(label, found, Described(want), idea))
    return problems


def check_fixture_problems(fn: Callable[[list[Check]], Any]) -> list[str]:
    """Problems with a learner's `fixture_problems`: one check at a time, then whole lists, then
    generated lists handed in one after another, beside `reference_s02.broken_checks`. The
    course's own `fixture_problems` is refused: the exercise is to write it."""
    if is_library(fn, fixture_problems, trial=([_SAMPLES[0][1]],)):
        return [library_answer("fixture_problems")]
    problems = _sample_problems(fn) or _list_problems(fn)
    found = None if problems else _generated_lists(fn)
    return [found] if found else problems


def _named_in_turn(fn: Callable[[list[Check]], Any], calls: tuple[tuple[Check, ...], ...]) -> Any:
    """What `fn` said of each list in turn: the checks it named, or the problems it returned
    when they name none of the list's checks ([] is the only answer for a sound list)."""
    said = []
    for checks in calls:
        given = list(checks)
        found = fn(given)
        if not isinstance(found, list) or not all(isinstance(p, str) for p in found):
            return f"{shown(found)}, not a list of problem strings"
        if changed(given, checks):
            return changed(given, checks)
        named = named_in(found, list(checks))  # a name counts once per problem: see accounted
        said.append(accounted(found, list(checks)) if named else tuple(found))
    return tuple(said)


def _generated_lists(fn: Callable[[list[Check]], Any]) -> str | None:
    found = first_difference(
        lambda calls: _named_in_turn(fn, calls),
        lambda calls: tuple(broken_checks(checks) for checks in calls),
        built_once(call_sequences, Check),
        idea="name every check whose fixture is None (whatever its judge makes of None), whose "
        "passing fixture gets anything but None, or whose failing one no finding, a problem for "
        "each, two checks that share a name too; [] when all are sound, whatever earlier calls "
        "found",
        frozen=True,
        examples=200,
    )
    if found is None:
        return None
    given = Described(shown_calls(found.given))
    return counterexample(given, found.returned, found.expected, found.idea)


@functools.lru_cache(maxsize=2)
def offline_observations(reworded: bool = False) -> tuple[Observation, ...]:
    """Every labelled order run once through the session 01 loop with the scripted waiter; with
    `reworded`, each customer greets and thanks ("Hi! ... Thanks!") and each id is another, so a
    check must catch the kind of mistake, not recall the orders `report.misses` showed."""
    client, cases = ScriptedClient(make_waiter(load_menu().items)), load_cases()
    if reworded:
        cases = tuple(
            dataclasses.replace(c, id=f"h{i:02d}", request=f"Hi! {c.request} Thanks!")
            for i, c in enumerate(cases)
        )
    return tuple(run_order(case, client) for case in cases)


def _judge_on(
    check: Check, observations: list[Observation]
) -> tuple[list[tuple[str, str]], str | None]:
    """(case id, finding) for each observation the judge flags, or the problem when it raised."""
    flagged = []
    for obs in observations:
        said = call(check.judge, obs)
        if isinstance(said, Raised):
            return [], Raised("your check's judge", said.error, said.message).problem(
                f"order {obs.case.request!r} (ticket {obs.ticket})"
            )
        if said is not None:
            flagged.append((obs.case.id, said))
    return flagged, None


def check_own_check(fn: Callable[[Any], Any]) -> list[str]:
    """Problems with a learner's own check: built by `fn(menu)`, judged three ways. A check whose
    judge is one of the course's checks' (or calls one) is refused: the exercise is to write one."""
    menu = load_menu()
    check = call(fn, menu)
    if isinstance(check, Raised):
        return [check.problem("building your check")]
    if not isinstance(check, Check):
        return [wrong_type("building your check", check, "a cafe.evals.Check")]
    if not isinstance(check.question, str) or not check.question.strip():  # a check asks in words
        return [wrong_type("your check's question", check.question, "the question it asks")]
    problems = fixture_problems([check])
    course = (*session_checks(menu), first_try_no_sold_out(menu), reference_check(menu))
    trial = (labelled_observations(load_cases())[0],)
    theirs = [c.name for c in course if is_library(check.judge, c.judge, trial=trial)]
    if theirs and not problems:
        return [library_answer(theirs[0])]
    alarms, raised = _judge_on(check, list(labelled_observations(load_cases())))
    if raised:
        return [*problems, raised]
    if alarms:
        shown = "; ".join(f"{case_id}: {finding}" for case_id, finding in alarms[:_SHOWN])
        problems.append(f"it fails {len(alarms)} labelled (correct) ticket(s), e.g. {shown}")
    caught, raised = _judge_on(check, list(offline_observations(reworded=True)))
    if raised:
        return [*problems, raised]
    if not caught:
        problems.append(
            "it catches none of the orders the session 01 loop gets wrong offline (asked again "
            "with a greeting, under other ids): judge what the ticket says against what the "
            "customer said; read report.misses"
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


def _caught(check: Check, observations: list[Observation]) -> int | str:
    """How many observations your check flags, or what went wrong (it raised on one)."""
    flagged, raised = _judge_on(check, observations)
    return raised if raised else len(flagged)


def your_figures(
    fixture_fn: Callable[[list[Check]], Any] | None,
    check_fn: Callable[[Any], Any] | None,
    observations: list[Observation] | None = None,
) -> dict[str, Any]:
    """The figures your own work produced, for the checkpoint: only for the functions given
    (give a function only once its exercise passed; `{}` when none is given)."""
    menu, figures = load_menu(), dict[str, Any]()
    if fixture_fn is not None:
        checks = [*session_checks(menu), first_try_no_sold_out(menu)]
        found = call(fixture_fn, checks)
        named = sorted(named_in(found, checks)) if isinstance(found, list) else shown(found)
        figures["fixture_problems"] = {"checks_judged": len(checks), "named_broken": named}
    if check_fn is not None:
        check = call(check_fn, menu)
        if isinstance(check, Check):
            offline = list(offline_observations())
            mine: dict[str, Any] = {"name": check.name, "orders_offline": len(offline)}
            mine["caught_offline"] = _caught(check, offline)
            if observations is not None:
                mine["orders_on_your_model"] = len(observations)
                mine["caught_on_your_model"] = _caught(check, list(observations))
            figures["own_check"] = mine
    return figures
