"""The safe-state abort (cafe/monitors/safe_state.py): the ladder's rung 3, one test per rule (rung
2, the always-on recovery checkpoint, and the rows of the reference's decision: test_recovery.py).
Tool results are written out by hand; the work tree they describe is a real git repository."""

from __future__ import annotations

import pytest

from cafe.loop.turns import ToolResult, TurnView
from cafe.monitors import safe_state, snapshots
from cafe.monitors.recovery import EXCERPT_CHARS, MAX_EXCERPTS, abort_due
from cafe.monitors.safe_state import (
    MAX_ABORTS,
    SAFE_STATE_PREFIX,
    SafeStateMonitor,
    abort_message,
)
from cafe.monitors.snapshots import SnapshotStore
from cafe.world.workbench import open_workbench

GREEN = ToolResult("t", "run_tests", {}, True, "4 passed", "verify")
ERROR = ToolResult(
    "e", "read_file", {"path": "receipt.py"}, False, "There is no file 'receipt.py' in the project."
)
TIMEOUT = ToolResult(
    "s", "run_command", {"command": "sleep 5"}, False, "the command did not finish within 1 seconds"
)
LOOK = ToolResult("r", "read_file", {"path": "bill.py"}, True, "...")


class Harness:
    """A monitor over a real workbench, fed turn by turn."""

    def __init__(self, bench, mode: str):
        self.bench, self.store = bench, SnapshotStore()
        self.monitor = SafeStateMonitor(mode, bench.root, self.store)
        self.turn = 0

    def edit(self, text: str, path: str = "bill.py") -> ToolResult:
        self.store.capture(self.bench.root, path)
        (self.bench.root / path).write_text(text, encoding="utf-8")
        return ToolResult(
            "w", "write_file", {"path": path, "content": text}, True, "wrote", "mutate"
        )

    def step(self, *results: ToolResult):
        self.turn += 1
        return self.monitor.after_turn(TurnView(self.turn, 30, (), (), tuple(results), 0.0))

    def green_then_broken(self) -> None:
        self.step(self.edit("green\n"))
        self.step(GREEN)
        self.step(self.edit("broken\n"))


@pytest.fixture
def bench():
    with open_workbench() as opened:
        yield opened


@pytest.mark.parametrize(
    "streak, threshold, due",
    [(5, 3, False), (6, 3, True), (7, 3, True), (3, 2, False), (4, 2, True)],
)
def test_abort_due_at_twice_the_checkpoint_threshold(streak, threshold, due):
    assert abort_due(streak, threshold) is due


def test_abort_fires_when_due_with_unverified_edits_on_a_green_point(bench):
    h = Harness(bench, "advisory")
    h.green_then_broken()
    sent = [h.step(ERROR) for _ in range(6)]
    assert [s and s.source for s in sent] == [None] * 5 + ["safe_state"]
    assert sent[-1].text.startswith(SAFE_STATE_PREFIX)


def test_abort_needs_a_verified_green_point_behind_the_run(bench):
    h = Harness(bench, "advisory")
    h.step(h.edit("broken\n"))
    assert all(h.step(ERROR) is None for _ in range(6))


def test_abort_needs_a_code_edit_since_the_last_check(bench):
    h = Harness(bench, "advisory")
    h.step(h.edit("green\n"))
    h.step(GREEN)
    assert all(h.step(ERROR) is None for _ in range(6))


def test_abort_counts_any_check_as_verifying_the_edit_even_a_red_one(bench):
    h = Harness(bench, "advisory")
    h.green_then_broken()
    red = ToolResult("t", "run_tests", {}, False, "1 failed", "verify")
    assert all(h.step(s) is None for s in [red] + [ERROR] * 5)  # the streak is 6, no edit waits
    assert h.monitor.aborts == []


def test_abort_once_per_failure_streak(bench):
    h = Harness(bench, "advisory")
    h.green_then_broken()
    sources = [s and s.source for s in (h.step(ERROR) for _ in range(12))]
    assert sources.count("safe_state") == 1


def test_abort_hard_cap_of_two_per_run(bench):
    h = Harness(bench, "advisory")
    h.green_then_broken()
    fired = 0
    for _ in range(4):  # four streaks, a success between them
        fired += [s and s.source for s in (h.step(ERROR) for _ in range(6))].count("safe_state")
        h.step(LOOK)
    assert fired == MAX_ABORTS == 2


def test_abort_message_carries_the_abandoned_approaches_and_five_short_excerpts():
    text = abort_message(
        ["write_file bill.py", "run_command: sed -i x"],
        [f"failure {i} " + "x" * 300 for i in range(8)],
    )
    assert (
        text.startswith(SAFE_STATE_PREFIX)
        and "- write_file bill.py" in text
        and "ONE new approach" in text
    )
    excerpts = [line for line in text.splitlines() if line.startswith("- failure")]
    assert len(excerpts) == MAX_EXCERPTS and excerpts[0].startswith("- failure 3")
    assert all(len(line) - 2 <= EXCERPT_CHARS for line in excerpts)


def test_abort_message_swaps_its_closing_after_a_restore():
    plain, restored = abort_message(["x"], ["y"]), abort_message(["x"], ["y"], restored=["bill.py"])
    assert (
        "Do not undo" in restored
        and "Do not undo" not in plain
        and "return the changed files" in plain
    )


def test_advisory_writes_nothing(bench):
    h = Harness(bench, "advisory")
    h.green_then_broken()
    for _ in range(6):
        h.step(ERROR)
    assert (bench.root / "bill.py").read_text() == "broken\n" and not h.monitor.aborts[0].restored


def test_auto_restores_the_green_tree_when_every_change_was_captured(bench):
    h = Harness(bench, "auto")
    h.green_then_broken()
    last = [h.step(ERROR) for _ in range(6)][-1]
    assert (bench.root / "bill.py").read_text() == "green\n" and h.monitor.aborts[0].restored == (
        "bill.py",
    )
    assert "put bill.py back" in last.text


def test_auto_declines_after_a_shell_side_edit_and_behaves_as_advisory(bench):
    h = Harness(bench, "auto")
    h.green_then_broken()
    checks = bench.root / "check_bill.py"  # as `sed -i s/1000/1001/` would, behind the harness
    checks.write_text(checks.read_text().replace("1000", "1001"))
    h.step(
        ToolResult(
            "c",
            "run_command",
            {"command": "sed -i s/1000/1001/ check_bill.py"},
            True,
            "exit status 0",
        )
    )
    last = [h.step(ERROR) for _ in range(6)][-1]
    record = h.monitor.aborts[0]
    assert record.declined and record.restored == () and "Stop patching" in last.text
    assert (record.reason, record.path) == ("uncaptured_change", "check_bill.py")
    assert (bench.root / "bill.py").read_text() == "broken\n" and "1001" in (
        bench.root / "check_bill.py"
    ).read_text()


def test_auto_that_cannot_confirm_its_restore_says_so_and_never_claims_it(bench, monkeypatch):
    def half(root, plan, **options):
        (bench.root / "bill.py").write_text("neither\n")
        raise OSError("disk full")

    monkeypatch.setattr(snapshots, "apply", half)
    h = Harness(bench, "auto")
    h.green_then_broken()
    last = [h.step(ERROR) for _ in range(6)][-1]
    record = h.monitor.aborts[0]
    assert (record.declined, record.reason, record.path) == (True, "restore_unverified", "bill.py")
    assert "tried to put bill.py back" in last.text and "Do not undo" not in last.text


def test_off_sends_nothing(bench):
    h = Harness(bench, "off")
    h.green_then_broken()
    assert all(h.step(ERROR) is None for _ in range(8))


def test_harness_gate_results_on_a_claimed_finish_do_not_count_as_failures(bench):
    h = Harness(bench, "advisory")
    gate = ToolResult(
        "g", "verify_before_done", {}, False, "[verify-before-done] ...", "verify", forced=True
    )
    h.step(gate, gate, gate)
    assert h.monitor.streak == 0


def test_monitor_refuses_an_unknown_mode_or_threshold(bench):
    with pytest.raises(ValueError, match="advisory"):
        SafeStateMonitor("restore", bench.root, SnapshotStore())
    with pytest.raises(ValueError, match="at least 1"):
        SafeStateMonitor("auto", bench.root, SnapshotStore(), threshold=0)


def test_auto_finding_the_tree_already_back_says_so_and_claims_no_restore(bench):
    h = Harness(bench, "auto")
    h.green_then_broken()
    green = h.monitor.green
    assert green is not None  # another restore of the same tree (another process) gets there first
    assert snapshots.restore(bench.root, green.sample, h.store, green.mark).restored == ("bill.py",)
    last = [h.step(ERROR) for _ in range(6)][-1]
    record = h.monitor.aborts[0]
    assert (record.declined, record.reason, record.restored) == (True, "nothing_to_restore", ())
    assert "already as they were" in last.text and "has put" not in last.text
    assert (bench.root / "bill.py").read_text() == "green\n"


def test_auto_declined_while_another_restore_runs_says_it_wrote_nothing(bench, monkeypatch):
    monkeypatch.setattr(
        safe_state, "restore", lambda *args, **kwargs: snapshots.RestoreOutcome((), "tree_locked")
    )
    h = Harness(bench, "auto")
    h.green_then_broken()
    last = [h.step(ERROR) for _ in range(6)][-1]
    assert h.monitor.aborts[0].reason == "tree_locked"
    assert "still running, so the harness wrote nothing" in last.text
    assert (bench.root / "bill.py").read_text() == "broken\n"
