"""Session 10's banks: `check_classify` and `check_first_fix` (cafe/exercises/s10.py).

The exercise ideas: a run's class is the first of `FAILURE_CLASSES` whose test holds, where a
failure is its check and its span, "systematic" means one failure on every attempt however many
there were, and "alternating" means a failure that went away came back, whenever; and the first
fix is the one that changes how every order of the biggest pile ends, before the loop, without
loosening a check, losing a pass, or calling a run refused after drafts were spent on it.
"""

from __future__ import annotations

import re
from typing import Any

from banks.harness import Bank, Entry
from cafe.exercises.reference_s10 import failure_class as classify  # the wrong ones' fall-back
from cafe.exercises.s10 import check_classify, check_first_fix
from cafe.repair.reask import RepairResult, repair_ticket
from cafe.schema.ticket import Failure, Ticket
from cafe.taxonomy import classes as course
from cafe.world.menu import load_menu

MENU = load_menu()

# --- classify: wrong ---------------------------------------------------------------------------


def _keys(run: Any) -> list[set[tuple[str, str]]]:
    return [{(f.check, f.span) for f in a.failures} for a in run.result.attempts]


def _head(run: Any) -> str | None:
    if run.transport is not None:
        return "transport"
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    return None


def three_attempts_assumed(run: Any) -> str:
    """Alternating read as: in attempt 1, gone in 2, back in 3."""
    keys = _keys(run) if _head(run) is None else []
    if _head(run):
        return str(_head(run))
    if set.intersection(*keys):
        return "systematic"
    if len(keys) >= 3 and (keys[0] - keys[1]) & keys[2]:
        return "alternating"
    return "drifting"


def first_failure_throughout(run: Any) -> str:
    """Systematic read from attempt 1's first failure only."""
    if _head(run):
        return str(_head(run))
    keys = _keys(run)
    first = run.result.attempts[0].failures[0]
    if all((first.check, first.span) in k for k in keys):
        return "systematic"
    for key in set().union(*keys):
        present = [key in k for k in keys]
        start, end = present.index(True), len(present) - present[::-1].index(True)
        if not all(present[start:end]):
            return "alternating"
    return "drifting"


def same_set_every_time(run: Any) -> str:
    """Systematic only when every attempt failed exactly the same things."""
    if _head(run):
        return str(_head(run))
    keys = _keys(run)
    if all(k == keys[0] for k in keys):
        return "systematic"
    found = classify(run)
    return found if found != "systematic" else "alternating"


def by_check_name(run: Any) -> str:
    """Failures compared by check name alone: three different out_of_scope items read as one."""
    if _head(run):
        return str(_head(run))
    names = [{f.check for f in a.failures} for a in run.result.attempts]
    return "systematic" if set.intersection(*names) else classify(run)


def drifting_first(run: Any) -> str:
    """The classes tested out of order: any change reads as drifting."""
    if _head(run):
        return str(_head(run))
    keys = _keys(run)
    if any(a != b for a, b in zip(keys, keys[1:])):
        return "drifting"
    return "systematic"


def last_attempt_decides(run: Any) -> str:
    """The first attempt against the last only."""
    if _head(run):
        return str(_head(run))
    keys = _keys(run)
    if keys[0] & keys[-1]:
        return "systematic" if all(keys[0] & k for k in keys) else "alternating"
    return "drifting"


def back_from_attempt_one_only(run: Any) -> str:
    """Only a failure of attempt 1 can come back."""
    if _head(run):
        return str(_head(run))
    keys = _keys(run)
    if set.intersection(*keys):
        return "systematic"
    if any(key not in later for key in keys[0] for later in keys[1:-1]) and keys[0] & keys[-1]:
        return "alternating"
    return "drifting"


def blocked_first(run: Any) -> str:
    """Reads the stop reason before asking whether the endpoint failed: a transport run has none."""
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    if run.transport is not None:
        return "transport"
    return classify(run)


def counts_occurrences(run: Any) -> str:
    """Systematic when a failure was counted as many times as there were attempts: one listed
    twice on one attempt and missing from another still reaches the count."""
    if _head(run):
        return str(_head(run))
    attempts = run.result.attempts
    seen: dict[tuple[str, str], int] = {}
    for attempt in attempts:
        for f in attempt.failures:
            seen[(f.check, f.span)] = seen.get((f.check, f.span), 0) + 1
    if any(count == len(attempts) for count in seen.values()):
        return "systematic"
    return classify(run)


def neighbours_only(run: Any) -> str:
    """Alternating only when a failure is back two attempts later (A, B, A), not after a longer
    gap, and with A, B, B read as a streak that came back."""
    if _head(run):
        return str(_head(run))
    keys = _keys(run)
    if set.intersection(*keys):
        return "systematic"
    if any(k & keys[n + 2] - keys[n + 1] for n, k in enumerate(keys[:-2])):
        return "alternating"
    return "drifting" if len(keys) > 1 else "systematic"


def calls_the_course(run: Any) -> str:
    """Hands the course's classify back instead of writing one."""
    return course.classify(run)


# --- classify: right ---------------------------------------------------------------------------
# Each refuses a passed run with a ValueError: "A passed run has no failure class: classify
# refuses one with a ValueError" (the lesson). Checked on generated runs since readerL's round.


class PassedRun(ValueError):
    """A learner's own error for a run that passed."""


def right_positions(run: Any) -> str:
    """Each failure's attempt numbers: on all of them, or with a gap between two of them."""
    if run.transport is not None:
        return "transport"
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    if run.passed:
        raise ValueError("this run passed: it has no failure class")
    attempts = run.result.attempts
    where: dict[tuple[str, str], set[int]] = {}
    for n, attempt in enumerate(attempts):
        for f in attempt.failures:
            where.setdefault((f.check, f.span), set()).add(n)
    if any(len(at) == len(attempts) for at in where.values()):
        return "systematic"
    if any(max(at) - min(at) + 1 > len(at) for at in where.values()):
        return "alternating"
    if not where:  # no attempt failed anything: no test holds, so refuse it
        raise ValueError("no class test holds for this run")
    return "drifting"


def reference_classify(run: Any) -> str:
    """`cafe.taxonomy.classify` in one function, as a learner writes it (the library spreads it
    over `CLASS_TESTS` and three helpers); the mutation benchmark mutates this one."""
    if run.transport is not None:
        return "transport"
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    if run.result.stop_reason == "passed":
        raise ValueError("a passed run has no failure class")
    keys = [frozenset((f.check, f.span) for f in a.failures) for a in run.result.attempts]
    if frozenset.intersection(*keys):
        return "systematic"
    for key in frozenset().union(*keys):
        present = [key in attempt for attempt in keys]
        first, last = present.index(True), len(present) - 1 - present[::-1].index(True)
        if not all(present[first : last + 1]):
            return "alternating"
    if any(before != after for before, after in zip(keys, keys[1:])):
        return "drifting"
    raise ValueError("no class test holds for this run")


def right_index_walk(run: Any) -> str:
    """Gaps between a failure's first and last sighting."""
    if run.transport:
        return "transport"
    if run.result.ticket is not None:  # a ticket exists exactly when the run passed
        raise ValueError("a passed run has no failure class")
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    attempts = [[(f.check, f.span) for f in a.failures] for a in run.result.attempts]
    if any(all(key in later for later in attempts) for key in attempts[0]):
        return "systematic"
    for key in {key for attempt in attempts for key in attempt}:
        where = [i for i, attempt in enumerate(attempts) if key in attempt]
        if where[-1] - where[0] + 1 != len(where):
            return "alternating"
    if not any(attempts):  # no attempt failed anything: no test holds, so refuse it
        raise ValueError("no class test holds for this run")
    return "drifting"


def right_string_pattern(run: Any) -> str:
    """Each failure's presence as a string of 1s and 0s; '1+0+1' is a comeback."""
    if run.transport is not None:
        return "transport"
    if run.passed:
        raise PassedRun("a passed run has no failure class")
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    seen = _keys(run)
    if set.intersection(*seen):
        return "systematic"
    for key in set.union(*seen):
        if re.search(r"10+1", "".join("1" if key in s else "0" for s in seen)):
            return "alternating"
    if not set.union(*seen):  # no attempt failed anything: no test holds, so refuse it
        raise ValueError("no class test holds for this run")
    return "drifting"


# --- first fix ---------------------------------------------------------------------------------


def _stop_86d(spec: Any, items: Any) -> RepairResult:
    return RepairResult(
        "policy_violation",
        None,
        (),
        blocked_by=tuple(
            Failure("sold_out", item, "tell the customer; take a new order") for item in items
        ),
    )


def stop_86d_first(spec: Any, generate: Any) -> RepairResult:
    """The course's fix (cafe/data/answers/s10.json): an 86'd item stops the order before the loop."""
    sold = [item for item in spec.items if MENU.is_sold_out(item)]
    return _stop_86d(spec, sold) if sold else repair_ticket(spec, generate)


def refused_with_no_attempts_tuple(spec: Any, generate: Any) -> RepairResult:
    """The course's fix, its refusals holding attempts=None instead of () (found by mutmut)."""
    sold = [item for item in spec.items if MENU.is_sold_out(item)]
    if not sold:
        return repair_ticket(spec, generate)
    blocked = tuple(
        Failure("sold_out", item, "tell the customer; take a new order") for item in sold
    )
    return RepairResult("policy_violation", None, None, blocked_by=blocked)  # type: ignore[arg-type]


def one_order_only(spec: Any, generate: Any) -> RepairResult:
    """Fixes the first example it read: table 14."""
    if spec.table == 14:
        return _stop_86d(spec, ["cheese omelette"])
    return repair_ticket(spec, generate)


def omelette_alone_only(spec: Any, generate: Any) -> RepairResult:
    """Stops only orders made entirely of 86'd items; the mixed orders still go round."""
    if all(MENU.is_sold_out(item) for item in spec.items):
        return _stop_86d(spec, spec.items)
    return repair_ticket(spec, generate)


def bigger_cap(spec: Any, generate: Any) -> RepairResult:
    """More attempts for the same circle."""
    return repair_ticket(spec, generate, cap=5)


def relabel(spec: Any, generate: Any) -> RepairResult:
    """Runs the loop, then calls every exhausted run a refusal."""
    result = repair_ticket(spec, generate)
    if result.stop_reason == "retries_exhausted":
        return RepairResult("policy_violation", None, (), blocked_by=result.attempts[-1].failures)
    return result


def waive_86d(spec: Any, generate: Any) -> RepairResult:
    """Passes an 86'd order with the omelette left off: the scope check loosened."""
    result = repair_ticket(spec, generate)
    if any(MENU.is_sold_out(item) for item in spec.items):
        kept = tuple(item for item in spec.items if not MENU.is_sold_out(item)) or ("americano",)
        ticket = Ticket(table=spec.table, items=kept, allergies=spec.allergies, notes="")
        return RepairResult("passed", ticket, result.attempts)
    return result


def block_allergies(spec: Any, generate: Any) -> RepairResult:
    """Fixes the wrong pile, and bluntly: every order with an allergy is refused."""
    if spec.allergies:
        return _stop_86d(spec, spec.allergies)
    return repair_ticket(spec, generate)


def stop_after_drafting(spec: Any, generate: Any) -> RepairResult:
    """Drafts once, then refuses the 86'd order: the right pile, a draft spent first."""
    result = repair_ticket(spec, generate, cap=1)
    sold = [item for item in spec.items if MENU.is_sold_out(item)]
    if sold:
        return _stop_86d(spec, sold)
    return result if result.stop_reason == "passed" else repair_ticket(spec, generate)


def right_policy_wrapper(spec: Any, generate: Any) -> RepairResult:
    """One failure per distinct 86'd item, the menu loaded per call."""
    menu = load_menu()
    gone = tuple(
        Failure("sold_out", item, f"{item} is 86'd today: ask the customer for something else")
        for item in dict.fromkeys(spec.items)
        if menu.is_sold_out(item)
    )
    return (
        RepairResult("policy_violation", None, (), blocked_by=gone)
        if gone
        else repair_ticket(spec, generate)
    )


def right_first_item_check(spec: Any, generate: Any) -> RepairResult:
    """Stops at the first 86'd item it meets."""
    for item in spec.items:
        if item in MENU.sold_out:
            return _stop_86d(spec, [item])
    return repair_ticket(spec, generate)


# --- held-out reader BA, 8 Dec 2026: a runner is a function of its inputs ----------------------

_BY_TABLE: dict[int, RepairResult] = {}
_FIRST_GENERATOR: list[Any] = []


def cache_by_table(spec: Any, generate: Any) -> RepairResult:
    """Reader BA's: the course's fix, its results kept by table, so a second shift (another
    model, the live stretch's) gets the first shift's result and never calls its generator."""
    if spec.table not in _BY_TABLE:
        _BY_TABLE[spec.table] = stop_86d_first(spec, generate)
    return _BY_TABLE[spec.table]


def first_generator_kept(spec: Any, generate: Any) -> RepairResult:
    """The course's fix, drafting with the first generator it was ever handed: a second shift
    is drafted by the first shift's model, whatever model it was given."""
    if not _FIRST_GENERATOR:
        _FIRST_GENERATOR.append(generate)
    return stop_86d_first(spec, _FIRST_GENERATOR[0])


# --- held-out reader, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def drifting_when_nothing_holds(run: Any) -> str:
    """Falls back on 'drifting' when no test holds: an exhausted run whose attempts failed
    nothing is called drifting instead of refused."""
    try:
        return classify(run)
    except ValueError:
        return "drifting"


def classify_imported_inside(run: Any) -> str:
    """The course's classify, imported inside the function body."""
    from cafe.taxonomy import classify as course_classify

    return course_classify(run)


# --- held-out readerE, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def no_result_is_transport(run: Any) -> str:
    """Half of the transport test: "the run has no result". An order front of house sent back
    has no result either, and is called an outage."""
    if run.result is None:
        return "transport"
    return classify(run)


def folded_spans(run: Any) -> str:
    """Compares spans after .strip().lower(): 'Espresso' and 'espresso' read as one failure."""
    if _head(run) or run.sent_back is not None:
        return classify(run)
    keys = [{(f.check, f.span.strip().lower()) for f in a.failures} for a in run.result.attempts]
    if set.intersection(*keys):
        return "systematic"
    return classify(run)


# --- held-out readerL, 7 Dec 2026 (evening): written from the lesson alone --------------------
# The principle: a passed run has no failure class; classify refuses one with a ValueError (the
# lesson), so a passed run given any answer, or another error, is wrong.


def no_passed_refusal(run: Any) -> str:
    """readerL's wrong_05: never asks whether the run passed, so a run that passed on attempt 2
    falls through the attempt tests (its failures changed: 'drifting')."""
    if run.transport:
        return "transport"
    if run.result is None:
        raise ValueError("sent back before any draft: no failure class")
    if run.result.stop_reason == "policy_violation":
        return "blocked"
    sets = [{(f.check, f.span) for f in a.failures} for a in run.result.attempts]
    if sets and set.intersection(*sets):
        return "systematic"
    for key in set().union(*sets):
        seen = [key in found for found in sets]
        rest = seen[seen.index(True) :]
        if False in rest and True in rest[rest.index(False) :]:
            return "alternating"
    if any(a != b for a, b in zip(sets, sets[1:])):
        return "drifting"
    raise ValueError("no class test holds for this run")


def passed_is_a_class(run: Any) -> str:
    """Answers 'passed' for a run that passed, as if it were a sixth class."""
    if run.passed:
        return "passed"
    return classify(run)


def passed_as_none(run: Any) -> str | None:
    """Returns None for a passed run ("no class") instead of refusing it."""
    if run.result is not None and run.result.ticket is not None:
        return None
    return classify(run)


# --- held-out reader H, 7 Dec 2026: written from the lessons alone -----------------------------


def no_attempts_is_blocked(run: Any) -> str:
    """Reads an exhausted run with no attempt log as refused: "blocked" where no test holds."""
    if run.result is not None and not run.result.attempts:
        return "blocked"
    return classify(run)


BANKS = (
    Bank(
        "s10",
        check_classify,
        reference_classify,
        wrong=(
            # held-out readerL, 7 Dec 2026 (evening): passed before passed runs were drawn
            Entry(
                "no_passed_refusal",
                no_passed_refusal,
                "a passed run has no failure class: refused with a ValueError",
                "failed the table on attempt 1, passed on attempt 2 -> 'drifting'",
            ),
            Entry(
                "passed_is_a_class",
                passed_is_a_class,
                "a passed run has no failure class: refused with a ValueError",
                "passed on attempt 1 -> 'passed'",
            ),
            Entry(
                "passed_as_none",
                passed_as_none,
                "a passed run is refused, not answered with None",
                "passed on attempt 1 -> None",
            ),
            # held-out reader H, 7 Dec 2026
            Entry(
                "no_attempts_is_blocked",
                no_attempts_is_blocked,
                "blocked's test is the stop reason: a run no test holds for is refused, not guessed",
                "retries_exhausted with attempts=() -> 'blocked'",
            ),
            # held-out readerE, 7 Dec 2026
            Entry(
                "no_result_is_transport",
                no_result_is_transport,
                "an order sent back before any draft has no class: it is counted apart",
                "Run(spec, sent_back=front_of_house(spec)) -> 'transport'",
            ),
            Entry(
                "folded_spans",
                folded_spans,
                "a span quotes the draft: two quotes that differ are two failures",
                "out_of_scope 'espresso' | out_of_scope 'Espresso' -> 'systematic'",
            ),
            # held-out reader, 7 Dec 2026
            Entry(
                "drifting_when_nothing_holds",
                drifting_when_nothing_holds,
                "no test holds: refuse, do not guess",
                "an exhausted run whose two attempts failed nothing -> 'drifting'",
            ),
            Entry(
                "classify_imported_inside",
                classify_imported_inside,
                "write your own",
                "classify imported inside the body",
            ),
            Entry(
                "counts_occurrences",
                counts_occurrences,
                "a failure listed twice on one attempt is still one failure of that attempt",
                "(no table, no table), (espresso) -> systematic",
            ),
            Entry(
                "neighbours_only",
                neighbours_only,
                "a failure that came back after any gap alternates; a streak does not",
                "86d, espresso, no table, 86d -> drifting",
            ),
            Entry("calls_the_course", calls_the_course, "write your own", "classify"),
            Entry("course_classify", course.classify, "the course's own classify", "itself"),
            Entry(
                "three_attempts_assumed",
                three_attempts_assumed,
                "a comeback can happen on any later attempt",
                "86d, espresso, no table, 86d -> drifting",
            ),
            Entry(
                "first_failure_throughout",
                first_failure_throughout,
                "any failure held throughout makes it systematic",
                "(86d, no table), (no table), (no table, espresso) -> alternating",
            ),
            Entry(
                "same_set_every_time",
                same_set_every_time,
                "systematic needs one failure on every attempt, not identical attempts",
                "no table throughout, the omelette on 1 and 3 -> alternating",
            ),
            Entry(
                "by_check_name",
                by_check_name,
                "a failure is its check and its span",
                "three different out_of_scope items -> systematic",
            ),
            Entry(
                "drifting_first",
                drifting_first,
                "the classes are tested in FAILURE_CLASSES order",
                "86d, dropped, 86d -> drifting",
            ),
            Entry(
                "last_attempt_decides",
                last_attempt_decides,
                "every attempt counts, not the first and last",
                "prose, espresso, no table, espresso -> drifting",
            ),
            Entry(
                "back_from_attempt_one_only",
                back_from_attempt_one_only,
                "a failure first seen later can come back too",
                "prose, espresso, no table, espresso -> drifting",
            ),
            Entry(
                "blocked_first",
                blocked_first,
                "transport comes first: a run the endpoint failed has no log to read",
                "a timeout -> AttributeError",
            ),
        ),
        right=(
            Entry("right_index_walk", right_index_walk, "gaps between first and last sighting"),
            Entry("right_string_pattern", right_string_pattern, "presence pattern '10+1'"),
            Entry(
                "right_positions",
                right_positions,
                "each failure's attempt numbers: all of them, or a gap between two",
            ),
        ),
    ),
    Bank(
        "s10",
        check_first_fix,
        stop_86d_first,
        wrong=(
            Entry(
                "refused_with_no_attempts_tuple",
                refused_with_no_attempts_tuple,
                "a refusal made no attempt: attempts=(), which every report reads",
                "every sold-out order: attempts None",
            ),
            Entry(
                "one_order_only",
                one_order_only,
                "every order of the pile",
                "tables 4, 6, 16, 19 still exhausted",
            ),
            Entry(
                "omelette_alone_only",
                omelette_alone_only,
                "every order holding an 86'd item, not only those made of them",
                "omelette and americano still exhausted",
            ),
            Entry(
                "bigger_cap", bigger_cap, "a circle is not fixed by more laps", "5 still exhausted"
            ),
            Entry("relabel", relabel, "refused means before any draft", "refused after 3 drafts"),
            Entry(
                "waive_86d",
                waive_86d,
                "a fix may not loosen a check",
                "passed without the omelette",
            ),
            Entry(
                "block_allergies",
                block_allergies,
                "the pile the taxonomy names",
                "table 5 no longer passes",
            ),
            Entry(
                "stop_after_drafting",
                stop_after_drafting,
                "the fix belongs before the loop",
                "refused after 1 draft",
            ),
            # held-out reader BA, 8 Dec 2026: state kept between calls
            Entry(
                "cache_by_table",
                cache_by_table,
                "a runner is a function of its inputs: every call drafts with its own generator",
                "a second shift, a model drafting right at once: table 6 still exhausted",
            ),
            Entry(
                "first_generator_kept",
                first_generator_kept,
                "a runner is a function of its inputs: every call drafts with its own generator",
                "a second shift, a model drafting right at once: table 6 still exhausted",
            ),
        ),
        right=(
            Entry(
                "right_policy_wrapper", right_policy_wrapper, "one failure per distinct 86'd item"
            ),
            Entry("right_first_item_check", right_first_item_check, "stops at the first 86'd item"),
        ),
        targets=("stop_86d_first", "_stop_86d"),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}.
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_classify": {
        "reference_classify:15: constant: `1` -> `2`": (
            "equivalent: a gap lies strictly between a failure's first and last sighting, so a "
            "slice that stops one short of the last still holds it"
        ),
    },
    "check_first_fix": {
        "_stop_86d:7: constant: `'sold_out'` -> `'XXsold_outXX'`": (
            "open: the exercise is open-ended; the check a refusal is filed under is the "
            "learner's to name (the before/after table and the piles show it)"
        ),
        "_stop_86d:7: constant: `'tell the customer; take a new order'` -> "
        "`'XXtell the customer; take a new orderXX'`": "text: the refusal's fix, for people",
    },
}
