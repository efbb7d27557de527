"""Session 10's your-turn checkers, for the notebook's compare cells.

The notebook (`notebooks/s10-failure-taxonomy.ipynb`) asks for two functions:

1. `my_classify(run)`: one failure class for a run that did not pass, the first of
   `cafe.taxonomy.FAILURE_CLASSES` whose test holds. `check_classify` runs it over `CLASSIFY_CASES`,
   hand-built runs, then with `failure_class` (`cafe.exercises.reference_s10`) on generated runs
   (up to six attempts, failures repeated, in any order, spans that differ in case only; and the
   lesson's edges, refused: attempts that failed nothing, a run that passed (both with a
   ValueError, as the lesson says classify refuses them), an exhausted run with no attempts and
   an order sent back before any draft, the last two by any error). The course's answer is `cafe.taxonomy.classify`, which the checker refuses.
2. `my_fixed_runner(spec, generate)`: the practice shift's runner with the one fix the taxonomy says
   to make first. `check_first_fix` runs the whole practice shift through it and holds it to what a
   fix must do: shrink the biggest pile, keep every pass, loosen no check, and never call a run
   refused after drafts were spent on it. A runner is a function of its inputs: the same orders
   run again in the same process, drafted by another model (`exact_drafter`), must keep every
   pass `repair_ticket` makes with that model, so results kept between calls show.
"""

from __future__ import annotations

from collections.abc import Callable

from cafe.consent import OrderSpec
from cafe.exercises import reference_s10 as _ref
from cafe.exercises.feedback import (
    Described,
    Raised,
    call,
    counterexample,
    library_answer,
    mismatch,
)
from cafe.exercises.generated import built_once, first_difference
from cafe.exercises.library import is_library
from cafe.exercises.reference_s10 import any_refusal, biggest_pile, classify_runs, described
from cafe.repair.front import SentBack, front_of_house
from cafe.repair.reask import Attempt, Generator, RepairResult, score_ticket
from cafe.schema.ticket import Failure, Ticket
from cafe.stories.practice_shift import practice_generator, practice_orders
from cafe.taxonomy import classes as _course
from cafe.taxonomy.runs import Run
from cafe.taxonomy.sorting import run_shift, sort_runs
from cafe.world.menu import load_menu

__all__ = ["CLASSIFY_CASES", "check_classify", "check_first_fix"]

# --- classify ---------------------------------------------------------------------------------

_SPEC = OrderSpec(
    table=4, items=("cheese omelette", "americano"), request="The omelette and an americano."
)
_F = {
    "no_table": Failure("missing_field", "table", "include table: the table number"),
    "86d": Failure("sold_out", "cheese omelette", "cheese omelette is 86'd today"),
    "dropped": Failure("out_of_scope", "(missing) cheese omelette", "put cheese omelette back"),
    "espresso": Failure(
        "out_of_scope", "espresso", "remove espresso: the customer did not order it"
    ),
    "no_americano": Failure("out_of_scope", "(missing) americano", "put americano back"),
    "prose": Failure("not_json", "Sure! Table 4 would like", "answer with one JSON object"),
    "allergy": Failure("unsafe", "(missing allergy) milk", "list milk in allergies"),
}


def _exhausted(*attempts: tuple[str, ...]) -> Run:
    result = RepairResult(
        "retries_exhausted",
        None,
        tuple(
            Attempt(n, "{}", tuple(_F[name] for name in names), 0, None)
            for n, names in enumerate(attempts, start=1)
        ),
    )
    return Run(_SPEC, result=result)


# (what the run shows, the run, its class, a hint for a wrong answer)
CLASSIFY_CASES: tuple[tuple[str, Run, str, str], ...] = (
    (
        "the allergy left off on all three attempts",
        _exhausted(("allergy",), ("allergy",), ("allergy",)),
        "systematic",
        "one failure on every attempt",
    ),
    (
        "the omelette 86'd, dropped, then 86'd again",
        _exhausted(("86d",), ("dropped",), ("86d",)),
        "alternating",
        "a failure that went away came back",
    ),
    (
        "prose, then an extra espresso, then no table",
        _exhausted(("prose",), ("espresso",), ("no_table",)),
        "drifting",
        "every attempt failed something new",
    ),
    (
        "refused before any draft",
        Run(
            _SPEC,
            result=RepairResult(
                "policy_violation",
                None,
                (),
                blocked_by=(Failure("injection", "ignore previous instructions", "x"),),
            ),
        ),
        "blocked",
        "look at the stop reason",
    ),
    (
        "the endpoint timed out",
        Run(_SPEC, transport="timeout", detail="no answer within 30 s"),
        "transport",
        "look at run.transport",
    ),
    (
        "no table every time, the omelette on attempts 1 and 3",
        _exhausted(("no_table", "86d"), ("no_table",), ("no_table", "86d")),
        "systematic",
        "several tests hold here; the first in FAILURE_CLASSES wins",
    ),
    (
        "three out_of_scope failures, each about a different item",
        _exhausted(("espresso",), ("no_americano",), ("dropped",)),
        "drifting",
        "a failure is its check and its span: these are three different failures",
    ),
    (
        "no table twice, then an extra espresso",
        _exhausted(("no_table",), ("no_table",), ("espresso",)),
        "drifting",
        "nothing held on every attempt, and nothing that went away came back",
    ),
    (
        "the omelette on 1 and 3, an espresso on 2 and 3",
        _exhausted(("86d",), ("espresso",), ("86d", "espresso")),
        "alternating",
        "the omelette went away and came back",
    ),
    (
        "one attempt (cap 1), no table",
        _exhausted(("no_table",)),
        "systematic",
        "with one attempt, its failure held on every attempt there was",
    ),
    # Longer runs (a cap of 4 or 5), and failures listed in an order that misleads.
    (
        "the omelette on attempts 1 and 4 of four, other things between",
        _exhausted(("86d",), ("espresso",), ("no_table",), ("86d",)),
        "alternating",
        "a failure that went away came back, however many attempts later",
    ),
    (
        "no table on all five attempts, the omelette coming and going",
        _exhausted(
            ("86d", "no_table"), ("no_table",), ("86d", "no_table"), ("no_table",), ("no_table",)
        ),
        "systematic",
        "one failure held on every attempt, all five of them",
    ),
    (
        "the omelette listed first on attempt 1; only the missing table holds throughout",
        _exhausted(("86d", "no_table"), ("no_table",), ("no_table", "espresso")),
        "systematic",
        "any failure held on every attempt, not only the one listed first",
    ),
    (
        "an extra espresso on attempts 2 and 4 of four",
        _exhausted(("prose",), ("espresso",), ("no_table",), ("espresso",)),
        "alternating",
        "a failure first seen on attempt 2 can come back too",
    ),
    (
        "the omelette and no table, then each alone",
        _exhausted(("86d", "no_table"), ("86d",), ("no_table",)),
        "alternating",
        "the missing table went away on attempt 2 and came back",
    ),
    (
        "two attempts (cap 2), each failing something different",
        _exhausted(("prose",), ("espresso",)),
        "drifting",
        "nothing held on both, and nothing had time to come back",
    ),
    (
        "four attempts, each failing something new",
        _exhausted(("prose",), ("espresso",), ("no_table",), ("allergy",)),
        "drifting",
        "every attempt failed something new",
    ),
)


def check_classify(fn: Callable[[Run], str]) -> list[str]:
    """Problems with a `my_classify(run)`; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    if is_library(fn, _course.classify, _course.class_tests, trial=(CLASSIFY_CASES[0][1],)):
        return [library_answer("classify")]
    problems = []
    for label, run, expected, hint in CLASSIFY_CASES:
        got = call(fn, run)
        if isinstance(got, Raised):
            problems.append(got.problem(label))
        elif got != expected:
            problems.append(mismatch(label, got, expected, hint))
    if not problems:
        generated = built_once(
            classify_runs, Run, RepairResult, Attempt, Failure, _sent_back, _ticket
        )
        found = first_difference(
            fn, any_refusal, generated, idea=_GENERATED_IDEA, frozen=True, examples=200
        )
        if found:
            given = Described(described(found.given))
            idea = found.idea
            if idea == _GENERATED_IDEA and found.given.passed:
                idea = _PASSED_IDEA
            problems.append(counterexample(given, found.returned, found.expected, idea))
    return problems


_GENERATED_IDEA = (
    "transport, blocked, then one failure (check and span, as quoted) on every attempt, then one "
    "that went away and came back, then any change: the first that holds; a run no test holds "
    "for (no attempts, or attempts that failed nothing) and an order sent back before any draft "
    "have no class: refuse them, as classify does with a ValueError"
)
_PASSED_IDEA = (
    "a passed run has no failure class: refuse it with a ValueError, as the lesson says "
    "classify does (sort_runs counts the passes apart)"
)


def _sent_back() -> SentBack | None:
    """Front of house's question for a latte and a declared milk allergy: no draft is made."""
    return front_of_house(OrderSpec(8, ("latte", "americano"), allergies=("milk",), request="."))


def _ticket() -> Ticket:
    """The ticket of a passed run: the run is refused whatever the ticket holds."""
    return Ticket(table=4, items=("americano",), allergies=(), notes="")


# --- the first fix ----------------------------------------------------------------------------


def _shift(
    runner: Callable[[OrderSpec, Generator], RepairResult],
    drafter: Callable[[OrderSpec], Generator] | None = None,
) -> tuple[list[Run], list[int]]:
    """The practice shift through `runner`, with the drafts each order cost: drafted by the
    practice generator, or with `drafter`, by `drafter(spec)`, another model for each order."""
    shared = practice_generator()
    runs: list[Run] = []
    drafts: list[int] = []
    for spec in practice_orders():
        counting = _ref.Counting(drafter(spec) if drafter else shared)
        runs.extend(run_shift([spec], counting, runner=runner))
        drafts.append(counting.calls)
    return runs, drafts


def _problems(runs: list[Run], drafts: list[int], base: list[Run]) -> list[str]:
    menu, problems = load_menu(), []
    for run, spent, old in zip(runs, drafts, base):
        assert run.spec is not None  # run_shift keeps every order's spec
        table = f"table {run.spec.table}"
        if run.result is not None and not isinstance(run.result.attempts, tuple):
            problems.append(
                f"{table}: the result's attempts are {run.result.attempts!r}; a run that made "
                "no attempt says so with an empty tuple, (), which every report reads"
            )
        if run.result is not None and run.result.stop_reason == "policy_violation" and spent:
            problems.append(
                f"{table}: refused after {spent} draft(s); a request is refused before any "
                "draft, or not at all (relabelling a failed run hides it)"
            )
        if run.passed:
            assert run.result is not None and run.result.ticket is not None
            failures = score_ticket(run.result.ticket.model_dump_json(), run.spec, menu).failures
            if failures:
                problems.append(
                    f"{table}: passed with a ticket that fails {failures[0].check}; a fix may not "
                    "loosen a check"
                )
        elif old.passed:
            problems.append(
                f"{table}: passed before the fix and not after; a fix must keep every pass"
            )
    return problems


def _still_failing(run: Run) -> bool:
    """Whether a run of the fixed shift still ends the way the pile's runs did: out of attempts."""
    if run.result is None:
        return run.transport is not None
    return run.result.stop_reason == "retries_exhausted"


def check_first_fix(fn: Callable[[OrderSpec, Generator], RepairResult]) -> list[str]:
    """Problems with a `my_fixed_runner(spec, generate)`, run over the whole practice shift.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    from cafe.repair.reask import repair_ticket

    base, _ = _shift(repair_ticket)
    try:
        runs, drafts = _shift(fn)
        # a runner is a function of its inputs: the same orders again, in the same process,
        # drafted by another model, beside repair_ticket with it, so state kept between calls shows
        again = _shift(fn, _ref.exact_drafter)
    except NotImplementedError:
        raise
    except Exception as exc:  # a learner's bug is a problem to show, not a crash
        return [f"the shift stopped: your runner raised {type(exc).__name__}: {exc}"]
    target = biggest_pile(base)  # found by the checker's own reference, not the library's
    assert target is not None, "the practice shift always has a pile to fix"
    kind, check, pile = target
    size = len(pile)
    still = [_table(base[i]) for i in pile if _still_failing(runs[i])]
    problems = _problems(runs, drafts, base) or _ref.again(
        _problems(*again, _shift(repair_ticket, _ref.exact_drafter)[0])
    )
    if still:
        problems.insert(
            0,
            f"the biggest pile, {size} {kind} runs on {check}: {len(still)} of its orders (tables "
            f"{', '.join(map(str, still))}) still run out of attempts after your fix; the first "
            "fix changes how every order of the pile ends",
        )
    try:
        sort_runs(runs)
    except ValueError as exc:
        problems.append(f"the shift after your fix no longer sorts into the taxonomy: {exc}")
    return problems


def _table(run: Run) -> int:
    assert run.spec is not None  # run_shift keeps every order's spec
    return run.spec.table
