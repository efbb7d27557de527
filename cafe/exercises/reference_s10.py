"""Session 10's reference classifier, written apart from `cafe.taxonomy.classes`, and the runs to
try it on.

`check_classify` (`cafe.exercises.s10`) compares the learner's `my_classify` with `failure_class`
on generated runs (`cafe.exercises.generated`); `tests/test_exercise_references.py` holds it to
the library's `classify` on the same runs. The classes and their order are pinned here as the
lesson states them.

This module imports nothing from `cafe` (only `cafe.exercises.sNN` may): the course's records
(`Run`, `RepairResult`, `Attempt`, `Failure`) are passed in to build the generated runs.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["CLASSES", "failure_class", "any_refusal", "described", "failure_check", "biggest_pile"]
__all__ += ["runs", "classify_runs", "again", "Counting", "exact_drafter"]

# The five classes in the lesson's order: when several tests hold, the earliest wins.
CLASSES = ("transport", "blocked", "systematic", "alternating", "drifting")


def _returns(present: list[bool]) -> bool:
    """Whether a failure was there, went away, and was there again."""
    on = [n for n, here in enumerate(present) if here]
    return bool(on) and on[-1] - on[0] + 1 != len(on)


def failure_class(run: Any) -> str:
    """The first class whose test holds for a run that did not pass. A passed run has none
    ("classify refuses one with a ValueError", the lesson), nor has an order front of house sent
    back: both are counted apart, so both are refused."""
    if getattr(run, "sent_back", None) is not None:
        raise ValueError("an order sent back before any draft has no failure class")
    if run.result is not None and run.result.stop_reason == "passed":
        raise ValueError("a passed run has no failure class")
    if run.transport is not None:
        return "transport"
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    attempts = [{(f.check, f.span) for f in a.failures} for a in run.result.attempts]
    every = set().union(*attempts)
    if attempts and any(all(key in seen for seen in attempts) for key in every):
        return "systematic"
    if any(_returns([key in seen for seen in attempts]) for key in every):
        return "alternating"
    if any(a != b for a, b in zip(attempts, attempts[1:])):
        return "drifting"
    raise ValueError("no class test holds: every attempt of an exhausted run fails something")


def any_refusal(run: Any) -> str:
    """What `check_classify` holds a learner to: `failure_class`, but on two shapes any refusal
    is right, and they raise a bare `Exception` (every error a learner's function raises is one).
    An order sent back has no `run.result` (the notebook names only `transport` and `result`,
    so tripping on it refuses it too). An exhausted run with no attempts matches no test: its
    stop reason is not `policy_violation`, so it is not blocked, and with no attempt no failure
    holds throughout, comes back or changes; the notebook never says how to refuse, so an
    IndexError on `attempts[0]` refuses it as well as a ValueError does. A class is a guess."""
    result = run.result
    if run.sent_back is not None:
        raise Exception("no class: the order was sent back before any draft")
    if result is not None and result.stop_reason == "retries_exhausted" and not result.attempts:
        raise Exception("no class: an exhausted run with no attempts matches no test")
    return failure_class(run)


def described(run: Any) -> str:
    """A generated run as its failures per attempt: 'missing_field table, ... | ...'."""
    if run.sent_back is not None:
        return "an order front of house sent back before any draft (run.sent_back is set)"
    if run.result is not None and run.result.stop_reason == "passed":
        logs = [
            ", ".join(f"{f.check} {f.span!r}" for f in a.failures) or "nothing"
            for a in run.result.attempts
        ]
        return f"a run that passed on attempt {len(logs)}: " + " | ".join(logs)
    if run.transport is not None:
        return f"a run stopped by the endpoint ({run.transport})"
    if run.result.stop_reason == "policy_violation":
        return f"a run refused before any draft ({run.result.blocked_by[0].check})"
    if not run.result.attempts:
        return f"a run that stopped on {run.result.stop_reason} with no attempts (attempts=())"
    attempts = [", ".join(f"{f.check} {f.span!r}" for f in a.failures) for a in run.result.attempts]
    return "attempts: " + " | ".join(attempts)


def failure_check(run: Any) -> str:
    """The check a run is filed under: the endpoint's problem; the first check that refused it;
    the first failure of attempt one that is on every attempt; the failure that came back
    first (seen earliest, then by check and span); or the last attempt's first failure."""
    kind = failure_class(run)
    if kind == "transport":
        return str(run.transport)
    if kind == "blocked":
        return str(run.result.blocked_by[0].check)
    attempts = [{(f.check, f.span) for f in a.failures} for a in run.result.attempts]
    if kind == "systematic":
        first = [(f.check, f.span) for f in run.result.attempts[0].failures]
        return next(key for key in first if all(key in seen for seen in attempts))[0]
    if kind == "alternating":

        def seen_at(key: tuple[str, str]) -> tuple[int, tuple[str, str]]:
            return next(n for n, seen in enumerate(attempts) if key in seen), key

        back = [k for k in set().union(*attempts) if _returns([k in seen for seen in attempts])]
        return min(back, key=seen_at)[0]
    return str(run.result.attempts[-1].failures[0].check)


def biggest_pile(shift: Sequence[Any]) -> tuple[str, str, list[int]] | None:
    """The pile the first fix goes to: (class, check, the indices of its runs in `shift`), the
    most runs first, then the earlier class, then the check's name; passed runs, runs sent back
    and refused runs (the policy did its job) are in no pile. None when no run is left."""
    piles: dict[tuple[str, str], list[int]] = {}
    for n, run in enumerate(shift):
        if run.passed or run.sent_back is not None or failure_class(run) == "blocked":
            continue
        piles.setdefault((failure_class(run), failure_check(run)), []).append(n)
    if not piles:
        return None
    (kind, check), found = min(
        piles.items(), key=lambda pile: (-len(pile[1]), CLASSES.index(pile[0][0]), pile[0][1])
    )
    return kind, check, found


# --- generated runs ----------------------------------------------------------------------------

# Failures that share a check or a span with another: only check and span together name one.
_FAILURES = (
    ("missing_field", "table"),
    ("sold_out", "cheese omelette"),
    ("out_of_scope", "cheese omelette"),
    ("out_of_scope", "espresso"),
    ("out_of_scope", "Espresso"),  # another quote: a span is compared as the draft held it
    ("unsafe", "(missing allergy) milk"),
)


def runs(
    make_run: Callable[..., Any],
    make_result: Callable[..., Any],
    make_attempt: Callable[..., Any],
    make_failure: Callable[..., Any],
) -> Any:
    """Runs that did not pass: exhausted after 1 to 6 attempts, each failing 1 to 3 failures
    (one listed twice now and then), in any order; refused; or stopped by the endpoint."""
    from hypothesis import strategies as st

    failure = st.sampled_from(_FAILURES).map(lambda cs: make_failure(cs[0], cs[1], "fix it"))
    attempt = st.lists(failure, min_size=1, max_size=3)

    def exhausted(logs: list[list[Any]]) -> Any:
        made = tuple(make_attempt(n, "{}", tuple(f), 0, None) for n, f in enumerate(logs, 1))
        return make_run(None, result=make_result("retries_exhausted", None, made))

    blocked = failure.map(
        lambda f: make_run(None, result=make_result("policy_violation", None, (), blocked_by=(f,)))
    )
    transport = st.sampled_from(("timeout", "rate_limited")).map(
        lambda kind: make_run(None, transport=kind)
    )
    many = st.lists(attempt, min_size=1, max_size=6).map(exhausted)
    return st.one_of(many, many, many, blocked, transport)


def classify_runs(
    make_run: Callable[..., Any],
    make_result: Callable[..., Any],
    make_attempt: Callable[..., Any],
    make_failure: Callable[..., Any],
    make_sent_back: Callable[[], Any] | None = None,
    make_ticket: Callable[[], Any] | None = None,
) -> Any:
    """The runs `check_classify` draws: `runs`, and now and then the lesson's edge, an exhausted
    run whose attempts failed nothing, or that has none. No class test holds for it, and classify
    refuses it rather than guess (repair_ticket never makes one, so no shift of `first_fix` holds
    one; with no attempts, "blocked" is a guess: its test is the stop reason). With
    `make_sent_back` (it returns a `SentBack`), also an order front of house sent back: it did
    not pass, yet it has no class either (the lesson counts it apart, beside the passes). With
    `make_ticket` (it returns a `Ticket`), also a run that passed, after 0 to 5 failed attempts
    of any shape: "A passed run has no failure class: classify refuses one with a ValueError"."""
    from hypothesis import strategies as st

    def nothing(attempts: int) -> Any:
        made = tuple(make_attempt(n, "{}", (), 0, None) for n in range(1, attempts + 1))
        return make_run(None, result=make_result("retries_exhausted", None, made))

    some = runs(make_run, make_result, make_attempt, make_failure)
    edges = [st.integers(0, 3).map(nothing)]
    if make_sent_back is not None:
        edges.append(st.just(None).map(lambda _: make_run(None, sent_back=make_sent_back())))
    if make_ticket is not None:
        failure = st.sampled_from(_FAILURES).map(lambda cs: make_failure(cs[0], cs[1], "fix it"))

        def passed(logs: list[list[Any]]) -> Any:
            made = tuple(
                make_attempt(n, "{}", tuple(f), 0, None) for n, f in enumerate([*logs, []], 1)
            )
            return make_run(None, result=make_result("passed", make_ticket(), made))

        edges.append(st.lists(st.lists(failure, min_size=1, max_size=3), max_size=5).map(passed))
    return st.one_of(some, some, some, some, some, *edges)


# --- the first fix: counted drafts, and a second model ------------------------------------------


class Counting:
    """Wraps a generator and counts the drafts asked of it."""

    def __init__(self, generate: Callable[[Any], Any]):
        self.generate, self.calls = generate, 0

    def __call__(self, messages: Any) -> Any:
        self.calls += 1
        return self.generate(messages)


def again(problems: list[str]) -> list[str]:
    """The second shift's problems as one: what changed, what "before" means there, the first."""
    if not problems:
        return []
    more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
    return [
        "the same orders again, each drafted right at once by another model (a runner must use "
        "the generator it is handed, on every call; 'before the fix' is repair_ticket with that "
        f"model): {problems[0]}{more}"
    ]


def exact_drafter(spec: Any) -> Callable[[Any], str]:
    """A model that drafts `spec`'s ticket right at once, whatever it is asked. `check_first_fix`
    runs the practice shift's orders a second time with it: a runner is a function of its inputs,
    so one that keeps results (or the first generator) between calls answers the second shift
    with the first's, and loses passes `repair_ticket` makes with this model."""
    fields = {"table": spec.table, "items": list(spec.items), "allergies": list(spec.allergies)}
    ticket = json.dumps({**fields, "notes": spec.notes})
    return lambda messages: ticket
