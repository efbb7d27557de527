"""Tests for cafe/loop/clock.py and the time limits that read it (`run_loop`'s clock, session 14's
`wall_timeout` and `PaceGovernor`): a limit the harness cannot measure is not a limit that passed.

Clock sequences are generated: finite and never decreasing, with a fault (NaN, an infinity, a value
that is not a number, a step backwards) at any position or none. The oracle, `first_bad`, is
written here from the principle alone and shares no code with `cafe/loop/clock.py`: the first
reading that is not a finite int or float, or is below the reading before it. Every check counts
readings and calls; nothing sleeps or times anything.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.scripted import Reply, Responder, ScriptedClient
from cafe.governor.pacing import PACE_STOP_REASONS, PaceGovernor, TurnClock, wall_timeout
from cafe.loop import ClockError, Stopwatch, TurnView, run_loop, tool

# Derandomized, as in the rest of the suite; no deadline: a first run pays for imports.
FAST = settings(max_examples=80, deadline=None, derandomize=True)
NOT_NUMBERS = (None, "12.5", True, [1.0])
NON_FINITE = (math.nan, math.inf, -math.inf)


def look() -> str:
    """Look at the till."""
    return "the till is open"


LOOK = tool(look)
USER = [{"role": "user", "content": "Look at the till, then stop."}]


# --- the oracle and the generated sequences --------------------------------------------------


def first_bad(readings: list[object], floor: float | None = None) -> int | None:
    """The index of the first reading no limit can be measured against, or None: not an int or
    a float (a bool is not a time), not finite, below `floor`, or below the reading before it."""
    before = floor
    for index, value in enumerate(readings):
        if type(value) not in (int, float):
            return index
        number = float(value)  # type: ignore[arg-type]
        if number != number or number in (math.inf, -math.inf):
            return index
        if before is not None and number < before:
            return index
        before = number
    return None


@st.composite
def clock_sequences(draw: st.DrawFn, *, start: st.SearchStrategy[float], size: int = 12) -> list:
    """Readings that start at `start` and never go down, then maybe one fault at any position:
    a non-finite value, a value that is not a number, or a step back from the reading before."""
    first = draw(start)
    steps = draw(st.lists(st.floats(0, 1e4), min_size=1, max_size=size))
    readings: list[object] = [first]
    for step in steps:
        readings.append(float(readings[-1]) + step)  # type: ignore[arg-type]
    fault = draw(st.sampled_from(["none", "non_finite", "not_a_number", "backwards"]))
    if fault == "none":
        return readings
    at = draw(st.integers(1 if fault == "backwards" else 0, len(readings) - 1))
    if fault == "non_finite":
        readings[at] = draw(st.sampled_from(NON_FINITE))
    elif fault == "not_a_number":
        readings[at] = draw(st.sampled_from(NOT_NUMBERS))
    else:
        readings[at] = float(readings[at - 1]) - draw(st.floats(1e-3, 1e4))  # type: ignore[arg-type]
    return readings


def looks(turns: int) -> Responder:
    """A model that calls `look` until it has seen `turns` results, then says it is done (a
    function, not a list of replies: a list is checked reply by reply, which costs more)."""

    def answer(request: dict) -> Reply:
        seen = sum(m.get("role") == "tool" for m in request["messages"])
        return {"tool_calls": [{"name": "look", "arguments": {}}]} if seen < turns else "done"

    return answer


class Played:
    """A clock that plays `readings` in order and counts how many it gave."""

    def __init__(self, readings: list[object]) -> None:
        self.readings, self.read = readings, 0

    def __call__(self) -> float:
        value = self.readings[self.read]
        self.read += 1
        return value  # type: ignore[return-value]


def views(elapsed: list[object]) -> list[TurnView]:
    return [TurnView(n, len(elapsed), (), (), (), e) for n, e in enumerate(elapsed, 1)]  # type: ignore[arg-type]


# --- run_loop's clock ------------------------------------------------------------------------


@FAST
@given(clock_sequences(start=st.floats(-1e6, 1e6)))
def test_run_loop_clock_stops_at_the_first_reading_no_limit_can_be_measured_against(readings):
    # The run reads the clock once at the start, once per after-turn hook, once at the end:
    # len(readings) - 2 turns that call a tool, then a finish, read every reading exactly once.
    clock, seen = Played(readings), []
    turns = len(readings) - 2
    run = lambda: run_loop(  # noqa: E731
        ScriptedClient(looks(turns)),
        USER,
        [LOOK],
        max_turns=turns + 1,
        after_turn=[lambda view: seen.append(view.elapsed)],
        clock=clock,
    )
    bad = first_bad(readings)
    if bad is None:
        result = run()
        assert result.stop_reason == "done"
        assert clock.read == len(readings)
        assert seen == [r - readings[0] for r in readings[1:-1]]
        assert result.elapsed == readings[-1] - readings[0]
    else:
        with pytest.raises(ClockError, match=r"run_loop's clock \(Played\)"):
            run()
        assert clock.read == bad + 1  # stopped at the bad reading, read nothing after it
        assert len(seen) == max(0, bad - 1)  # no hook was shown a time from it


def test_run_loop_with_a_nan_clock_raises_instead_of_running_past_a_wall_timeout():
    # The red team's run: the clock starts fine, then reads NaN. A one-millisecond timeout used to
    # compare False on every turn, and the run went on to max_turns.
    readings = [5.0] + [math.nan] * 20
    replies = [{"tool_calls": [{"name": "look", "arguments": {}}]}] * 10
    with pytest.raises(ClockError, match=r"gave nan, not a finite number of seconds"):
        run_loop(
            ScriptedClient(replies),
            USER,
            [LOOK],
            after_turn=[wall_timeout(1)],
            stop_reasons=PACE_STOP_REASONS,
            clock=Played(readings),
        )


def test_run_loop_clock_that_goes_backwards_names_both_readings_and_the_fix():
    with pytest.raises(ClockError) as raised:
        run_loop(ScriptedClient(["done"]), USER, clock=Played([10.0, 4.0]))
    message = str(raised.value)
    assert "gave 4.0 after 10.0: the time went backwards" in message
    assert "time.monotonic" in message


def test_stopwatch_readings_too_far_apart_to_subtract_raise():
    watch = Stopwatch(Played([-1.5e308, 1.5e308]))
    with pytest.raises(ClockError, match="too far apart"):
        watch.elapsed()


def test_stopwatch_refuses_a_clock_that_is_not_a_function():
    with pytest.raises(TypeError, match="clock must be a function returning seconds"):
        Stopwatch(12.0)  # type: ignore[arg-type]


def test_turn_clock_passes_the_stopwatch_check():
    clock = TurnClock(10.0)
    watch = Stopwatch(clock)
    clock.tick(views([0.0])[0])
    assert watch.elapsed() == 10.0


# --- the hooks that compare elapsed time with a limit ----------------------------------------


@FAST
@given(clock_sequences(start=st.floats(0, 1e6)), st.floats(1, 1e10))
def test_wall_timeout_raises_at_the_first_bad_elapsed_time_else_cuts_at_its_budget(
    elapsed, budget_ms
):
    hook = wall_timeout(budget_ms)
    bad = first_bad(elapsed, floor=0.0)
    answers = []
    for index, view in enumerate(views(elapsed)):
        if index == bad:
            with pytest.raises(ClockError, match=r"wall_timeout: view.elapsed gave"):
                hook(view)
            break
        answers.append(hook(view))
    assert len(answers) == (len(elapsed) if bad is None else bad)
    cut = [i for i, answer in enumerate(answers) if answer is not None]
    due = [i for i, e in enumerate(elapsed[: len(answers)]) if e * 1000 >= budget_ms]  # type: ignore[operator]
    assert cut == due and all(answers[i].reason == "cut" for i in cut)  # type: ignore[union-attr]


@settings(FAST, max_examples=60)
@given(clock_sequences(start=st.floats(0, 1e6)))
def test_pace_governor_raises_at_the_first_bad_elapsed_time_and_keeps_no_turn_for_it(elapsed):
    governor = PaceGovernor(1e12)  # a deadline no sequence reaches: every turn is only recorded
    bad = first_bad(elapsed, floor=0.0)
    for index, view in enumerate(views(elapsed)):
        if index == bad:
            with pytest.raises(ClockError, match=r"PaceGovernor: view.elapsed gave"):
                governor(view)
            break
        assert governor(view) is None
    assert len(governor.turns) == (len(elapsed) if bad is None else bad)
    assert [t.elapsed_ms for t in governor.turns] == [
        e * 1000 for e in elapsed[: len(governor.turns)]
    ]  # type: ignore[operator]


def test_pace_governor_elapsed_below_zero_raises():
    with pytest.raises(ClockError, match=r"gave -1.0 after 0.0"):
        PaceGovernor(30_000)(views([-1.0])[0])


def test_a_time_limit_hook_reused_for_a_second_run_says_to_make_a_new_one():
    hook = wall_timeout(60_000)
    first_run, second_run = views([0.0, 20.0]), views([0.0])
    for view in first_run:
        hook(view)
    with pytest.raises(ClockError, match="make a new hook for each run"):
        hook(second_run[0])
