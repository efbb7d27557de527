"""The stall detector and the host facts against the reference cases (tests/stall_rows.py).

Every row of `stall_rows.ROWS` is one reference case, scripted through the real loop with three
small fake tools; `expect` was derived from the reference, and a row the course answers
differently on purpose says so (`course`, `why`). The governor's rows are in test_governor.py.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
import stall_rows

from cafe.endpoint.client.chat import make_client
from cafe.governor.facts import HostFacts
from cafe.loop.tools import ToolOutput, tool
from cafe.loop.turns import TurnView
from cafe.stall import STALL_KNOB_DEFAULTS, StallDetector, run_with_stall, stall_config
from cafe.stall.verify import VerifyEntrypoint

ASK = [{"role": "user", "content": "Make the failing test pass."}]
HOST_KNOBS = {
    "verify_state_streak",
    "verify_state_stall_turns",
    "verify_state_recurrence_hard",
    "no_verifier_progress_limit",
}
_PASSED = re.compile(r"(\d+) passed")


def _passing_count(view: TurnView) -> int | None:
    runs = [r for r in view.dispatch if r.name == "run_test"]
    if not runs:
        return None
    found = _PASSED.search(runs[-1].output)
    return int(found.group(1)) if found else 0


PROGRESS = {"passing_count": _passing_count, "always_zero": lambda view: 0}
REMEDIATION = {
    "always": lambda info: True,
    "prev_turn_wrote": lambda info: any(r.kind == "mutate" and r.ok for r in info.prev_dispatch),
}


def _script(row: dict[str, Any]):
    """The scripted model's replies, the three tools (answering from the row), the verify tool."""
    queues: dict[str, list[tuple[bool, str]]] = {"run_test": [], "apply_fix": [], "read_file": []}
    replies: list[Any] = []
    for calls in row["turns"]:
        if not calls:
            replies.append("Done.")
            continue
        replies.append(
            {"content": None, "tool_calls": [{"name": n, "arguments": a} for n, a, _, _ in calls]}
        )
        for name, _, ok, output in calls:
            queues[name].append((ok, output))
    checks = list(row.get("verify", []))

    def run_test(tag: str = "") -> ToolOutput:
        """Run the tests."""
        return ToolOutput(*queues["run_test"].pop(0))

    def apply_fix(tag: str = "") -> ToolOutput:
        """Apply a fix."""
        return ToolOutput(*queues["apply_fix"].pop(0))

    def read_file(path: str = "") -> ToolOutput:
        """Read a file."""
        return ToolOutput(*queues["read_file"].pop(0))

    def check() -> ToolOutput:
        """The verify entrypoint's check."""
        return ToolOutput(*(checks.pop(0) if checks else (True, "3 passed")))

    tools = [
        tool(run_test, kind="verify"),
        tool(apply_fix, kind="mutate"),
        tool(read_file, kind="observe"),
    ]
    return replies, tools, tool(check, kind="verify") if "verify" in row else None


def run_row(row: dict[str, Any]) -> dict[str, Any]:
    """Run one row; return what the course did, in the rows' vocabulary."""
    knobs = dict(row.get("knobs", {}))
    host_knobs = {k: knobs.pop(k) for k in list(knobs) if k in HOST_KNOBS}
    host = row.get("host", {})
    facts = HostFacts(
        progress_signal=PROGRESS.get(host.get("progress_signal", "")),
        remediation_delivered=REMEDIATION.get(host.get("remediation_delivered", "")),
        **host_knobs,
    )
    replies, tools, verify = _script(row)
    verifier = None
    if verify is not None:
        verifier = VerifyEntrypoint(verify, max_attempts=row.get("max_verify_attempts", 3))
    detector = StallDetector(stall_config(**knobs), checks=facts.checks(), verifier=verifier)
    refused: list[int] = []

    def guard(view: TurnView) -> None:
        if not detector.extension_allowed():
            refused.append(view.turn)

    run = run_with_stall(
        make_client(replies),
        ASK,
        tools,
        detector=detector,
        observers=[guard],
        max_turns=row.get("max_turns", len(row["turns"])),
    )
    turns = run.result.turns
    warnings = [(w.turn, w.pattern, "stop" if w.stopped else w.sent) for w in run.warnings]
    stop = (run.stop_reason, len(turns))
    if warnings and warnings[-1][1] == "no_net_progress":
        # decided right after turn T: the reference's stop at the start of turn T + 1
        stop, warnings = (run.stop_reason, warnings[-1][0] + 1), warnings[:-1]
    return {
        "warnings": warnings,
        "stop": stop,
        "streaks": [s.failure_state.same_diagnostic_streak for s in run.timeline],
        "current_failure": run.current_failure,
        "forced_verify_turns": [t.turn for t in turns for r in t.dispatch if r.forced],
        "extension_refused_at": refused,
        "nudges": [n.text for t in turns for n in t.nudges],
        "detail": run.result.detail,
    }


def _check_current_failure(expected: Any, got: Any) -> None:
    if expected is None:
        assert got is None
        return
    assert got is not None and got.diagnostic_class == expected["class"]
    assert expected["snippet_has"] in got.snippet
    assert got.same_diagnostic_streak == expected["same_diagnostic_streak"]


@pytest.mark.parametrize("row", stall_rows.ROWS, ids=lambda row: row["case"][:80])
def test_stall_row_matches_the_reference_or_the_documented_course_choice(row):
    expected = row.get("course", row["expect"])
    got = run_row(row)
    for key in ("warnings", "stop", "forced_verify_turns", "extension_refused_at"):
        if key in expected:
            assert got[key] == expected[key], f"{key} for {row['case']}"
    if "streaks" in expected:
        assert got["streaks"][: len(expected["streaks"])] == expected["streaks"]
    if "current_failure" in expected:
        _check_current_failure(expected["current_failure"], got["current_failure"])
    if "forced_after_edit" in expected:
        assert (2 in got["forced_verify_turns"]) is expected["forced_after_edit"]
    if "nudge_quotes" in expected:
        assert any(expected["nudge_quotes"] in text for text in got["nudges"])


@pytest.mark.parametrize(
    "row", stall_rows.ROWS + stall_rows.CONFIG_ROWS, ids=lambda row: row["case"][:80]
)
def test_stall_row_says_where_its_expectation_comes_from(row):
    assert stall_rows.provenance_problem(row) is None, row["case"]


def test_a_reference_row_without_a_citation_is_refused():
    row = {"source": "reference", "cite": "it is obvious", "case": "x"}
    assert "without a citation" in stall_rows.provenance_problem(row)
    assert stall_rows.provenance_problem({**row, "cite": "seed 000 §Surface"}) is None
    assert "basis" in stall_rows.provenance_problem({"source": "derived", "case": "x"})
    assert "source" in stall_rows.provenance_problem({"case": "x"})
    chosen = {"source": "derived", "basis": "b", "course": {}, "why": "because"}
    assert "lesson note" in stall_rows.provenance_problem(chosen)


def test_every_course_choice_row_names_its_lesson_note():
    chosen = [row for row in stall_rows.ROWS if "course" in row]
    assert chosen and all("Where the reference differs" in row["why"] for row in chosen)
    assert all(row["course"] != row["expect"] for row in chosen)


@pytest.mark.parametrize("row", stall_rows.CONFIG_ROWS[:3], ids=lambda row: row["case"][:80])
def test_stall_config_row_matches_the_reference(row):
    config = stall_config(row["given"])
    assert {k: getattr(config, k) for k in row["expect"]} == row["expect"]


def test_stall_config_below_the_reference_minimum_is_refused_naming_it():
    row = stall_rows.CONFIG_ROWS[3]
    with pytest.raises(ValueError, match="stuck_same_diagnostic_after must be .* at least 2"):
        stall_config(row["given"])


def test_stall_knob_defaults_are_the_references():
    expected = stall_rows.CONFIG_ROWS[2]["expect"]
    assert dict(STALL_KNOB_DEFAULTS) == expected


def test_host_fact_defaults_are_the_references():
    from cafe.governor.facts import STALL_DELIVERED_FIX_AFTER

    facts = HostFacts()
    defaults = {k: getattr(facts, k) for k in HOST_KNOBS}
    defaults["STALL_DELIVERED_FIX_AFTER"] = STALL_DELIVERED_FIX_AFTER
    assert defaults == stall_rows.HOST_FACT_DEFAULTS
