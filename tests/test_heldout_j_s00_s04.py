"""The holes held-out reader J found in sessions 01-04's checkers (7 Dec 2026), each closed by the
rule the lesson states and tested here on generated inputs or on other functions that break the
same rule, not on the reader's own input.

The reader's solutions are in the banks (tests/banks/bank_s00.py .. bank_s04.py, "reader J");
docs/notes/checker-mutation.md, "7 Dec 2026 (evening): reader J", records the decisions.
"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, find, settings
from hypothesis.errors import NoSuchExample

from cafe.evals.checks import Check, Observation
from cafe.exercises import s01, s02
from cafe.exercises.reference_s01 import repeats, turns
from cafe.exercises.reference_s02 import broken_checks, call_sequences
from cafe.exercises.s04 import check_closed_table_schema
from cafe.loop.turns import Stop, ToolCall, ToolResult, TurnView
from cafe.schema import strict_ticket_schema

SEEDED = settings(
    max_examples=100,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def _drawn(strategy: Any) -> list[Any]:
    """Every input a seeded search of `strategy` draws (no condition holds, so no shrinking)."""
    drawn: list[Any] = []
    try:
        find(strategy, lambda value: drawn.append(value) or False, settings=SEEDED)
    except NoSuchExample:
        pass
    return drawn


# --- s01 repeat_guard: a repeat after failed results; a stop that says why ----------------------


def test_generated_turns_hold_repeats_whose_results_failed():
    """Counted over the failing draws: some turns repeat calls whose results failed, and
    `repeats` calls them repeats (nothing in the rule reads `ok`)."""
    drawn = _drawn(turns(ToolCall, ToolResult, True))
    failed_repeats = [
        (calls, seen)
        for calls, seen in drawn
        if repeats(calls, seen) and not all(r.ok for r in seen)
    ]
    assert len(failed_repeats) >= 5, len(failed_repeats)


def _pairs(items: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(i.name, dict(i.arguments)) for i in items]


def test_check_repeat_guard_refuses_a_guard_that_waits_for_a_failure_to_repeat_twice():
    """Another guard that reads `ok`: it lets a failed call be retried once more before stopping.
    The generated turns (not a hand-picked case) show it, with the failed result named."""

    def patient(view: TurnView) -> Stop | None:
        same = view.calls and _pairs(view.calls) == _pairs(view.prev_dispatch)
        if same and any(not r.ok for r in view.prev_dispatch):
            return None  # "give it another go"
        return Stop("stuck", "the same calls again") if same else None

    shown = s01._generated_guard(patient)
    assert shown is not None and "(failed)" in shown and "expected \"Stop('stuck')\"" in shown
    assert s01._generated_guard(s01.reference_guard) is None


def test_check_repeat_guard_refuses_a_stop_with_a_blank_reason_on_every_case_that_stops():
    """`Stop("stuck", <a short reason>)`: an empty or blank detail is no reason."""

    def blank(view: TurnView) -> Stop | None:
        same = view.calls and _pairs(view.calls) == _pairs(view.prev_dispatch)
        return Stop("stuck", "   ") if same else None

    problems = s01.check_repeat_guard(blank)
    stops = sum(stop for *_, stop, _ in s01.GUARD_CASES)
    assert len(problems) == stops and all("say why" in p for p in problems)


# --- s02 fixture_problems: a truthy non-finding; the caller's list -------------------------------


def test_generated_check_lists_hold_a_truthy_non_finding_on_a_sound_passing_fixture():
    """Counted: some drawn checks pass their passing fixture and answer True or a list on their
    failing one, and `broken_checks` names them."""
    drawn = _drawn(call_sequences(Check))
    shapes = [
        c
        for calls in drawn
        for checks in calls
        for c in checks
        if c.passes in (2, 0)
        and c.fails == 3
        and c.judge.__name__ in ("yes_for_odd", "listed_for_odd")
    ]
    assert len(shapes) >= 3 and all(broken_checks([c]) == (c.name,) for c in shapes)


def test_check_fixture_problems_generated_lists_refuse_reading_any_answer_as_a_finding():
    """`bool(answer)` on the failing fixture (another way not to ask for text) is found on the
    generated lists alone, without the hand-picked ones."""

    def truthy_finding(checks: list[Check]) -> list[str]:
        problems = []
        for c in checks:
            if c.passes is None or c.fails is None:
                problems.append(f"{c.name}: missing fixture")
                continue
            try:
                good, bad = c.judge(c.passes), c.judge(c.fails)
            except Exception:
                problems.append(f"{c.name}: crashed")
                continue
            if good is not None or not bad:
                problems.append(f"{c.name}: broken")
        return problems

    shown = s02._generated_lists(truthy_finding)
    assert shown is not None and ("yes_for_odd" in shown or "listed_for_odd" in shown)


def test_check_fixture_problems_refuses_any_change_to_the_caller_s_list():
    """Sorting, reversing or emptying the list it was handed: each is named, with the list as it
    was and as it is now; a function that reads a copy passes."""

    def own(checks: list[Check]) -> list[str]:
        return [f"{name}: broken" for name in broken_checks(checks)]

    def reverses(checks: list[Check]) -> list[str]:
        checks.reverse()
        return own(checks)

    def sorts(checks: list[Check]) -> list[str]:
        checks.sort(key=lambda c: c.name, reverse=True)
        return own(checks)

    def reads_a_copy(checks: list[Check]) -> list[str]:
        mine = list(checks)
        mine.reverse()
        return own(mine)

    for changes in (reverses, sorts):
        problems = s02.check_fixture_problems(changes)
        assert problems and "the caller's checks are the caller's" in problems[0], problems
        assert s02._generated_lists(changes) is not None
    assert s02.check_fixture_problems(reads_a_copy) == []


def test_check_fixture_problems_refuses_the_course_s_function_however_it_is_wrapped():
    import cafe.evals

    def wrapped(checks: list[Check]) -> list[str]:
        return [p.upper() for p in cafe.evals.fixture_problems(checks)]

    (refused,) = s02.check_fixture_problems(wrapped)
    assert "course's `fixture_problems`" in refused


# --- s02 own_check: the customers' words are asked again ---------------------------------------


def test_reworded_offline_orders_keep_every_miss_and_share_no_request_or_id():
    """The loop makes the same mistakes on the greeted requests (the check must catch the kind of
    mistake), and no request or id of the plain run comes back."""
    plain, reworded = s02.offline_observations(), s02.offline_observations(reworded=True)
    assert len(plain) == len(reworded)
    for before, after in zip(plain, reworded):
        assert after.case.request == f"Hi! {before.case.request} Thanks!"
        assert after.ticket == before.ticket and after.case.expected == before.case.expected
    assert not {o.case.request for o in plain} & {o.case.request for o in reworded}
    assert not {o.case.id for o in plain} & {o.case.id for o in reworded}


def test_check_own_check_refuses_a_judge_that_recalls_the_words_of_the_misses():
    """Every request the plain run got wrong, recalled word for word: it catches them all there
    and none once the customers greet the waiter."""
    plain = s02.offline_observations()
    seen = {o.case.request for o in plain if o.ticket != o.case.expected}
    reference = s02.reference_check(None)

    def recalls(menu: Any) -> Check:
        def judge(obs: Observation) -> str | None:
            return "known" if obs.case.request in seen and obs.ticket != obs.case.expected else None

        return Check(
            "recalled", "Is it an order I remember?", judge, reference.passes, reference.fails
        )

    problems = s02.check_own_check(recalls)
    assert any("catches none of the orders" in p for p in problems), problems


# --- s04 closed_schema: calling the course's function, not equalling its value ---------------------


def test_check_closed_table_schema_refuses_a_call_and_passes_an_equal_value_written_by_hand():
    """A value cannot be refused for being the course's (a learner may write the same schema);
    a function that calls `closed_table_schema` can, however it is reached."""
    from cafe.schema import trials

    def by_hand() -> dict[str, Any]:
        schema = strict_ticket_schema()
        schema["properties"]["table"]["enum"] = [*range(1, 31)]
        return schema

    def through_the_module() -> dict[str, Any]:
        return {**trials.closed_table_schema()}

    assert by_hand() == trials.closed_table_schema()
    assert check_closed_table_schema(by_hand) == []
    (refused,) = check_closed_table_schema(through_the_module)
    assert "course's `closed_table_schema`" in refused
