"""The progress monitor (cafe/monitors/progress.py): one test per rule."""

from __future__ import annotations

import pytest
import run_monitor_rows

from cafe.loop.agent import TurnView
from cafe.monitors.progress import (
    BUDGET_PREFIX,
    MAX_STALL_CHECKPOINTS,
    STALL_PREFIX,
    Boundary,
    ProgressMonitor,
    ProgressMonitorState,
    budget_notice,
    fold_boundary,
    progress_events,
    stall_threshold,
)


def at(todos: int = 0, files: tuple[str, ...] = (), green: bool = False) -> Boundary:
    return Boundary(todos, frozenset(files), green)


def run(
    boundaries: list[Boundary], threshold: int = 3, max_turns: int | None = None
) -> list[str | None]:
    """Feed the boundaries to a monitor; the message source at each, or None."""
    readings = iter(boundaries)
    monitor = ProgressMonitor(lambda view: next(readings), threshold, budget=max_turns is not None)
    out = []
    for turn in range(1, len(boundaries) + 1):
        nudge = monitor.after_turn(TurnView(turn, max_turns or 100, (), (), (), 0.0))
        out.append(nudge and nudge.source)
    return out


@pytest.mark.parametrize("value, expected", [(None, None), (1, 2), (0, 2), (2, 2), (5, 5)])
def test_threshold_absent_is_off_and_a_number_is_clamped_to_two(value, expected):
    assert stall_threshold(value) == expected


@pytest.mark.parametrize("value", ["4", 2.5, True])
def test_threshold_refuses_anything_but_a_whole_number(value):
    with pytest.raises(TypeError):
        stall_threshold(value)


@pytest.mark.parametrize(
    "before, now, event",
    [
        (at(todos=3), at(todos=2), "a todo closed"),
        (at(todos=2), at(todos=3), None),
        (
            at(files=("bill.py",)),
            at(files=("bill.py", "tax.py")),
            "a file changed for the first time",
        ),
        (at(files=("bill.py",)), at(files=("bill.py",)), None),
        (at(green=False), at(green=True), "verification went green"),
        (at(green=True), at(green=True), None),
    ],
)
def test_progress_events_todo_closed_new_file_or_green_edge_and_nothing_else(before, now, event):
    state = ProgressMonitorState(previous=before, ever_changed=before.changed_files)
    assert progress_events(state, now) == ((event,) if event else ())


def test_stall_counter_arms_only_after_the_first_progress_event():
    assert run([at()] * 20, threshold=2) == [None] * 20


def test_stall_checkpoint_after_threshold_barren_boundaries():
    assert run([at(files=("bill.py",))] + [at(files=("bill.py",))] * 3, threshold=3) == [
        None,
        None,
        None,
        "stall",
    ]


def test_stall_at_most_two_per_run_rearming_for_a_full_threshold():
    fired = run([at(files=("a.py",))] + [at(files=("a.py",))] * 12, threshold=3)
    assert [i for i, s in enumerate(fired) if s == "stall"] == [3, 6] and MAX_STALL_CHECKPOINTS == 2


def test_stall_progress_in_between_resets_the_count():
    boundaries = [
        at(files=("a.py",)),
        at(files=("a.py",)),
        at(files=("a.py", "b.py")),
        at(files=("a.py", "b.py")),
    ]
    assert run(boundaries, threshold=2) == [None, None, None, None]


@pytest.mark.parametrize(
    "max_turns, first, second", [(10, 6, 9), (7, 5, 6), (20, 12, 17), (30, 18, 26)]
)
def test_budget_notices_at_60_and_85_percent_by_integer_compare(max_turns, first, second):
    fired, announced = [], ()
    for used in range(1, max_turns + 1):
        found = budget_notice(used, max_turns, announced)
        if found:
            announced += (found[0],)
            fired.append(used)
    assert fired == [first, second]


def test_budget_notice_at_most_one_per_poll_and_never_rearmed():
    assert budget_notice(3, 3, ())[0] == 60 and budget_notice(3, 3, (60,))[0] == 85
    assert budget_notice(3, 3, (60, 85)) is None


def test_budget_silent_without_a_cap():
    assert budget_notice(99, None, ()) is None


def test_budget_notice_states_used_and_remaining_turns():
    assert budget_notice(6, 10, ())[1].startswith(
        f"{BUDGET_PREFIX} You've used 6 of 10 turns; 4 remain"
    )


def test_monitor_stall_outranks_budget_which_waits_a_poll():
    # turn 6 is both the fifth barren boundary and 60% of 10 turns: the stall goes first
    fired = run([at(files=("a.py",))] + [at(files=("a.py",))] * 7, threshold=5, max_turns=10)
    assert fired == [None, None, None, None, None, "stall", "budget", None]


def test_monitor_off_without_a_threshold_sends_nothing_not_even_budget():
    monitor = ProgressMonitor(lambda view: at(), None)
    assert all(monitor.after_turn(TurnView(t, 5, (), (), (), 0.0)) is None for t in range(1, 6))


def test_monitor_messages_start_with_their_prefixes():
    readings = iter([at(files=("a.py",))] + [at(files=("a.py",))] * 9)
    monitor = ProgressMonitor(lambda view: next(readings), 2)
    for turn in range(1, 11):
        monitor.after_turn(TurnView(turn, 10, (), (), (), 0.0))
    assert monitor.sent and all(t.startswith((STALL_PREFIX, BUDGET_PREFIX)) for t in monitor.sent)


def test_fold_boundary_reads_the_whole_history_of_changed_files():
    state, _ = fold_boundary(ProgressMonitorState(), at(files=("a.py",)), 2)
    state, _ = fold_boundary(state, at(), 2)  # the file went back to HEAD: not a new state
    assert progress_events(state, at(files=("a.py",))) == ()


# --- the reference's rows (tests/run_monitor_rows.py) ----------------------------------------


@pytest.mark.parametrize(
    "case, threshold, snapshots, expected",
    run_monitor_rows.PROGRESS_ROWS,
    ids=[row[0][:70] for row in run_monitor_rows.PROGRESS_ROWS],
)
def test_progress_row_matches_the_reference(case, threshold, snapshots, expected):
    boundaries = iter(
        Boundary(todos, frozenset(f"file{i}.py" for i in range(files)), green)
        for todos, files, green in snapshots
    )
    monitor = ProgressMonitor(lambda view: next(boundaries), threshold, budget=False)
    fired = [
        monitor.after_turn(TurnView(turn, 100, (), (), (), 0.0)) is not None
        for turn in range(1, len(snapshots) + 1)
    ]
    assert fired == expected


@pytest.mark.parametrize(
    ("case", "polls"),
    run_monitor_rows.BUDGET_ROWS,
    ids=[row[0][:70] for row in run_monitor_rows.BUDGET_ROWS],
)
def test_budget_row_matches_the_reference(case, polls):
    announced: tuple[int, ...] = ()
    for used, cap, fires in polls:
        found = budget_notice(used, cap or None, announced)  # a cap of 0 is no cap
        assert (found is not None) is fires, (case, used, cap)
        if found is not None:
            announced += (found[0],)
