"""The stall detector's reference cases (sessions 13 and 14), as table rows: one row per case.

Each row names the reference case it mirrors (`case`) and the part of the design it checks
(`seed`: seed 000 is the evidence-aware repair loop, 003 the host-supplied facts; "stall.harn" is
the reference implementation, for what the seeds leave unsaid). Each row also says where its
`expect` comes from (`source`): "reference" when a named reference case or a seed line states
that answer (`cite`), "derived" when the course worked it out from the reference's rules (`basis`
says which: most trip turns and streak lists are derived, from the one-turn lag and the fold
rules, since the references state outcomes, not turn numbers). `provenance_problem` is the rule. `tests/test_stall_reference.py`
runs every row through `run_with_stall` and compares with `expect`, which was derived from the
reference, not from the course's code. A row the course answers differently on purpose also
carries `course`: the course's outcome, and `why`, naming the lesson's "Where the reference
differs" note that explains it.

Tools the rows use (kinds from `cafe.loop.tools.ToolKind`):
    run_test   kind "verify"   returns the row's (ok, output)
    apply_fix  kind "mutate"   returns the row's (ok, output)
    read_file  kind "observe"  returns the row's (ok, output)
A turn is a list of calls (tool, arguments, ok, output); `[]` is a turn where the model answers
without calling a tool. A row has a verify entrypoint only when it says `verify`, so without one
a `[]` turn ends the run `done` and the post-edit re-verify cannot fire.

`knobs` are `stall_diagnostics` knobs and session 14's thresholds, by their reference names.
`host` names host callbacks:
    progress_signal:       "passing_count"   the count before "passed" in the turn's last run_test
                                             output, 0 when run_test ran with none, None when no
                                             run_test ran
                           "always_zero"     0 every turn
    remediation_delivered: "always"          True on every call
                           "prev_turn_wrote" True when the previous turn had a successful apply_fix

`expect`:
    warnings   [(turn, pattern, sent)]: every trip, in order. `turn` is the turn at whose START
               the detector fired (it folds the previous turn's results: the one-turn lag).
               sent: True = the text went to the model and the run went on; False = recorded,
               not sent (`max_feedback`, 1, was spent); "stop" = this trip stopped the run.
               The verify-state cut (`no_net_progress`) is not listed here: it is the `stop`.
    stop       (stop_reason, turn): how the run ends, in the reference's numbering: a detector
               stop at turn T means turn T's calls never ran. The course decides the verify-state
               cut right after turn T-1 instead, which is the same moment (before turn T's calls).
    streaks    same_diagnostic_streak after the fold at the start of turns 1, 2, ...
    other keys as named.
"""

# Where a row's `expect` comes from (`source`), the labels every ported table uses.
SOURCES = frozenset({"reference", "derived", "course"})
# A citation names a reference case (a .harn or .rs test, `file::test`), a seed section, or one
# of the reference implementation's names (stall.harn, governors.harn, verifier.rs).
_CITATION_MARKS = (".harn", ".rs", "::", "seed 00", "§")


def provenance_problem(row: dict) -> str | None:
    """What is wrong with a row's label, or None: `source` must be one of `SOURCES`; a
    `reference` row cites the case or seed line (`cite`), a `derived` row says from what
    (`basis`), and a `course` answer names the lesson note that explains it (`why`)."""
    source = row.get("source")
    if source not in SOURCES:
        return f"source is {source!r}, not one of {sorted(SOURCES)}"
    if source == "reference" and not any(m in row.get("cite", "") for m in _CITATION_MARKS):
        return "a reference row without a citation (cite: the case, or the seed section)"
    if source == "derived" and not row.get("basis", "").strip():
        return "a derived row that does not say what it is derived from (basis)"
    if (source == "course" or "course" in row) and "Where the reference differs" not in row.get(
        "why", ""
    ):
        return "a course answer that names no lesson note (why)"
    return None


FAIL_A = "AssertionError: expected 5 got 4"
FAIL_B = "AssertionError: expected 5 got 6"
FAIL_C = "AssertionError: expected 5 got 7"
FAIL_D = "AssertionError: expected 5 got 8"
PASS_3 = "3 passed in 0.01s"
LONG_TRACEBACK = (
    "Traceback (most recent call last):\n"
    + '  File "till.py", line 3, in split\n' * 300
    + "AssertionError: expected 5 got 9"
)
FAIL_3 = "1 failed, 3 passed in 0.01s\nE   assert 999 == 1000"


def test(output=FAIL_A, ok=False, tag=None):
    return ("run_test", {} if tag is None else {"tag": tag}, ok, output)


def fix(tag=None):
    return ("apply_fix", {} if tag is None else {"tag": tag}, True, "edit applied")


def refused(tag=None):
    return ("apply_fix", {} if tag is None else {"tag": tag}, False, "refused: no such folder src/")


def read(output, path="bill.py"):
    return ("read_file", {"path": path}, True, output)


ROWS = [
    # ---- seed 000: the four behaviours, the conformance cases it names --------------------------
    dict(
        source="derived",
        basis="the trip is the case's; its turn from seed 000 §One-turn fold lag (a trip lands the turn after the failure that reaches N); the streaks from seed 000 §The signature IS the progress signal (same signature +1, new signature 1, pass 0)",
        case="conformance/tests/agents/repair_edit_retest_thrash_trips.harn",
        seed="000 §The signature IS the progress signal (the primary case); §One-turn fold lag",
        knobs={
            "repair_aware": True,
            "stuck_same_diagnostic_after": 2,
            "inject_feedback": True,
            "max_feedback": 1,
        },
        turns=[[test()], [fix()], [test()], [fix()], [test()], []],
        expect={
            "warnings": [(4, "stuck_same_diagnostic", True)],
            "stop": ("done", 6),
            "streaks": [0, 1, 1, 2, 2, 3],
            "current_failure": None,
        },
    ),
    dict(
        source="derived",
        basis="the trip is the case's (one turn, first failing result); turn and streaks from seed 000 §One-turn fold lag (a trip lands the turn after the failure that reaches N) and seed 000 §The signature IS the progress signal (same signature +1, new signature 1, pass 0)",
        case="conformance/tests/agents/repair_edit_and_test_same_turn_thrash.harn (as seed 000 describes it: "
        "single-turn edit+retest, same signature)",
        seed="000 §The signature IS the progress signal: first FAILING result of a turn is its diagnostic",
        knobs={"repair_aware": True, "stuck_same_diagnostic_after": 2},
        turns=[[fix(), test()], [fix(), test()], [fix(), test()], []],
        expect={
            "warnings": [(3, "stuck_same_diagnostic", True)],
            "stop": ("done", 4),
            "streaks": [0, 1, 2, 3],
        },
    ),
    dict(
        source="derived",
        basis="no trip is the case's; the streaks from seed 000 §The signature IS the progress signal (same signature +1, new signature 1, pass 0)",
        case="conformance/tests/agents/repair_post_edit_resets_streak.harn",
        seed="000 §The signature IS the progress signal: different signature resets to 1 (false-positive safety)",
        knobs={"repair_aware": True, "stuck_same_diagnostic_after": 2, "max_feedback": 3},
        turns=[
            [test(FAIL_A, tag="A")],
            [fix()],
            [test(FAIL_B, tag="B")],
            [fix()],
            [test(FAIL_C, tag="C")],
            [fix()],
            [test(FAIL_D, tag="D")],
            [],
        ],
        expect={"warnings": [], "stop": ("done", 8), "streaks": [0, 1, 1, 1, 1, 1, 1, 1]},
    ),
    dict(
        source="derived",
        basis="the trip is the test's; its turn from seed 000 §One-turn fold lag (a trip lands the turn after the failure that reaches N); the streaks from seed 000 §The signature IS the progress signal (same signature +1, new signature 1, pass 0)",
        case="tests/agent/stall_test.harn::test_fold_edit_retest_thrash_increments_streak (as a run)",
        seed="000 §The signature IS the progress signal; default stuck_same_diagnostic_after 3",
        knobs={"repair_aware": True},
        turns=[[test()], [fix()], [test()], [fix()], [test()], []],
        expect={
            "warnings": [(6, "stuck_same_diagnostic", True)],
            "stop": ("done", 6),
            "streaks": [0, 1, 1, 2, 2, 3],
        },
    ),
    dict(
        source="reference",
        cite="seed 000 §One-turn fold lag (threshold N: the trip comes on turn N+1); §The four behaviors 3 (the nudge quotes the snippet)",
        case="tests/agent/stall_test.harn::test_fold_same_failure_no_edit_increments_streak; "
        "seed 000 §One-turn fold lag (trip on turn N+1)",
        seed="000 §One-turn fold lag",
        knobs={"repair_aware": True, "stuck_same_diagnostic_after": 3},
        turns=[[test()], [test()], [test()], []],
        expect={
            "warnings": [(4, "stuck_same_diagnostic", True)],
            "stop": ("done", 4),
            "streaks": [0, 1, 2, 3],
            "nudge_quotes": FAIL_A,
        },
    ),
    dict(
        source="derived",
        basis="the reset is the test's; the streak list from seed 000 §The signature IS the progress signal (same signature +1, new signature 1, pass 0)",
        case="tests/agent/stall_test.harn::test_fold_different_failure_resets_streak",
        seed="000 §The signature IS the progress signal",
        knobs={"repair_aware": True, "stuck_same_diagnostic_after": 3},
        turns=[[test(FAIL_A, tag="A")], [test(FAIL_A, tag="A")], [test(FAIL_B, tag="B")], []],
        expect={"warnings": [], "stop": ("done", 4), "streaks": [0, 1, 2, 1]},
    ),
    dict(
        source="derived",
        basis="the clear is the test's; the streak list from seed 000 §The signature IS the progress signal (same signature +1, new signature 1, pass 0)",
        case="tests/agent/stall_test.harn::test_fold_pass_clears_model",
        seed="000 §The signature IS the progress signal: pass clears streak, reverify_owed, edit_since_failure",
        knobs={"repair_aware": True},
        turns=[[test()], [test()], [test(PASS_3, ok=True)], []],
        expect={
            "warnings": [],
            "stop": ("done", 4),
            "streaks": [0, 1, 2, 0],
            "current_failure": None,
        },
    ),
    dict(
        source="derived",
        basis="once per episode is seed 000 §The four behaviors 3; the turns from seed 000 §One-turn fold lag (a trip lands the turn after the failure that reaches N); sent/not sent from stall.harn's escalation (max_feedback 1, hard_stop_after_trips 3)",
        case="stuck_same_diagnostic fires once per stuck episode and re-arms after a reset",
        seed="000 §The four behaviors 3 (it trips once, when the streak first reaches the threshold); "
        "escalation from stall.harn (max_feedback 1, consecutive trips reset by a non-tripping turn)",
        knobs={"repair_aware": True},
        turns=[
            [test()],
            [test()],
            [test()],
            [test()],
            [test(FAIL_B, tag="B")],
            [test()],
            [test()],
            [test()],
            [],
        ],
        expect={
            "warnings": [(4, "stuck_same_diagnostic", True), (9, "stuck_same_diagnostic", False)],
            "stop": ("done", 9),
            "streaks": [0, 1, 2, 3, 4, 1, 1, 2, 3],
        },
    ),
    dict(
        source="reference",
        cite="conformance/tests/agents/repair_success_clears_current_failure.harn; seed 000 §The four behaviors 4: a successful termination clears the model first",
        case="conformance/tests/agents/repair_success_clears_current_failure.harn, scenario A (success)",
        seed="000 §The four behaviors 4: a successful termination clears the model first",
        knobs={"repair_aware": True, "stuck_same_diagnostic_after": 2},
        turns=[[test()], [fix()], []],
        expect={"warnings": [], "stop": ("done", 3), "current_failure": None},
    ),
    dict(
        source="derived",
        basis="the carried block is the case's; the stop turn from seed 000 §One-turn fold lag (a trip lands the turn after the failure that reaches N) with hard_stop_after_trips 1",
        case="conformance/tests/agents/repair_success_clears_current_failure.harn, scenario B (stuck, "
        "hard_stop_after_trips 1)",
        seed="000 §The four behaviors 4 (failure-carrying hand-back); stall.harn __agent_stall_register_trip",
        knobs={"repair_aware": True, "stuck_same_diagnostic_after": 2, "hard_stop_after_trips": 1},
        turns=[[test()] for _ in range(8)],
        expect={
            "warnings": [(3, "stuck_same_diagnostic", "stop")],
            "stop": ("stuck", 3),
            "current_failure": {
                "class": "fail",
                "snippet_has": "expected 5 got 4",
                "same_diagnostic_streak": 2,
            },
        },
    ),
    dict(
        source="reference",
        cite="conformance/tests/agents/repair_diagnostics_off_is_noop.harn; seed 000: default OFF, every repair field inert",
        case="conformance/tests/agents/repair_diagnostics_off_is_noop.harn (seed version: repair_aware off, "
        "every repair knob inert)",
        seed="000 §It is default OFF: every repair field inert",
        knobs={"repair_aware": False},
        verify=[
            (True, PASS_3)
        ],  # a verify entrypoint that passes: the loop's own claim check, not the mandate
        turns=[[test()], [fix()], []],
        expect={
            "warnings": [],
            "stop": ("done", 3),
            "current_failure": None,
            "forced_after_edit": False,
        },
        by_hand=True,
    ),
    dict(
        source="derived",
        basis="the kept model is the test's; the streak list from seed 000 §The signature IS the progress signal (same signature +1, new signature 1, pass 0)",
        case="tests/agent/stall_test.harn::test_reset_action_preserves_failure_model (a different action keeps "
        "the failure model)",
        seed="000 §The signature IS the progress signal: not cleared by __agent_stall_reset_action",
        knobs={"repair_aware": True},
        turns=[[test()], [test()], [fix()], []],
        expect={"warnings": [], "stop": ("done", 4), "streaks": [0, 1, 2, 2]},
    ),
    # ---- seed 000: post-edit re-verify, reserved terminal verify (need a verify entrypoint) -----
    dict(
        source="derived",
        basis="seed 000 §The four behaviors 2 (an edit on a live failure forces a check); turn 3 is the loop's own check of the claimed finish",
        case="post-edit re-verify mandate",
        seed="000 §The four behaviors 2: an edit on a live failure forces a verification through the existing "
        "entrypoint, within max_verify_attempts",
        knobs={"repair_aware": True},
        verify=[(True, PASS_3), (True, PASS_3)],
        turns=[[test()], [fix()], []],
        expect={
            "forced_verify_turns": [2, 3],
            "stop": ("done", 3),
        },  # 3: the loop's own check of the claimed finish
        by_hand=True,
    ),
    dict(
        source="derived",
        basis="seed 000 §The four behaviors 2 (within max_verify_attempts), applied with a cap of 1",
        case="post-edit re-verify is bounded by max_verify_attempts",
        seed="000 §The four behaviors 2: routes through the existing max_verify_attempts cap",
        knobs={"repair_aware": True},
        max_verify_attempts=1,
        verify=[(False, FAIL_A)],
        turns=[[test()], [fix()], [test()], [fix()], [test()], [fix()]],
        expect={"forced_verify_turns": [2]},
        by_hand=True,
    ),
    dict(
        source="reference",
        cite="stall.harn STALL_RESERVED_TERMINAL_VERIFY_ITERATIONS: 'a passing verify ends the run as done'",
        case="reserved terminal verify: a passing reserved check ends the run done",
        seed="000 §Surface (reserved_terminal_verify false, reserved_terminal_verify_iterations 2); semantics from "
        "stall.harn STALL_RESERVED_TERMINAL_VERIFY_ITERATIONS ('a passing verify ends the run as done')",
        knobs={"repair_aware": True, "post_edit_reverify": False, "reserved_terminal_verify": True},
        max_turns=2,
        verify=[(True, PASS_3)],
        turns=[[test()], [fix()]],
        expect={"forced_verify_turns": [2], "stop": ("done", 2)},
        course={"forced_verify_turns": [2], "stop": ("max_turns", 2)},
        why="lesson 13, Where the reference differs: only the model's claimed finish ends a run done",
        by_hand=True,
    ),
    # ---- seed 000: the hard cap and the extension guard -----------------------------------------
    dict(
        source="derived",
        basis="the stop is the test's; the turn from seed 000 §One-turn fold lag (a trip lands the turn after the failure that reaches N)",
        case="tests/agent/stall_test.harn::test_no_net_progress_hard_cap_trips_on_varied_failures (seed gating: "
        "repair_aware on)",
        seed="000 §Surface: hard cap counts every failing verification turn, crossing it stops through stuck",
        knobs={
            "repair_aware": True,
            "no_net_progress_extend_guard": True,
            "no_net_progress_hard_cap_after": 3,
            "stuck_same_diagnostic_after": 99,
        },
        turns=[
            [test(FAIL_A, tag="A")],
            [test(FAIL_B, tag="B")],
            [test(FAIL_C, tag="C")],
            [test(FAIL_D, tag="D")],
            [],
        ],
        expect={
            "warnings": [(4, "no_net_progress_hard_cap", "stop")],
            "stop": ("stuck", 4),
            "streaks": [0, 1, 1, 1],
        },
    ),
    dict(
        source="derived",
        basis="seed 000 §Surface: the cap resets only on a clean non-edit pass; the script is the course's",
        case="tests/agent/stall_test.harn::test_no_net_progress_hard_cap_resets_only_on_clean_verify",
        seed="000 §Surface: resets only on a clean non-edit verification pass",
        knobs={
            "repair_aware": True,
            "no_net_progress_extend_guard": True,
            "no_net_progress_hard_cap_after": 3,
            "stuck_same_diagnostic_after": 99,
        },
        turns=[
            [test(FAIL_A, tag="A")],
            [test(FAIL_B, tag="B")],
            [test(PASS_3, ok=True)],
            [test(FAIL_C, tag="C")],
            [test(FAIL_D, tag="D")],
            [],
        ],
        expect={"warnings": [], "stop": ("done", 6)},
    ),
    dict(
        source="derived",
        basis="seed 000 §Surface: edits between red checks do not reset the cap; the turn from the fold lag",
        case="tests/agent/stall_test.harn::test_no_net_progress_hard_cap_preserves_across_edit_success",
        seed="000 §Surface: a model cannot evade the cap by interleaving successful edits",
        knobs={
            "repair_aware": True,
            "no_net_progress_extend_guard": True,
            "no_net_progress_hard_cap_after": 3,
            "stuck_same_diagnostic_after": 99,
        },
        turns=[
            [test(FAIL_A, tag="A")],
            [fix()],
            [test(FAIL_B, tag="B")],
            [test(FAIL_C, tag="C")],
            [],
        ],
        expect={"warnings": [(5, "no_net_progress_hard_cap", "stop")], "stop": ("stuck", 5)},
    ),
    dict(
        source="derived",
        basis="seed 000 §Surface: no_net_progress_extend_after 3; the turns from the fold lag",
        case="tests/agent/stall_test.harn::test_no_net_progress_thrash_trips_once_armed (extension guard)",
        seed="000 §Surface: same-diagnostic streak >= no_net_progress_extend_after (3) suppresses budget extension",
        knobs={
            "repair_aware": True,
            "no_net_progress_extend_guard": True,
            "stuck_same_diagnostic_after": 99,
        },
        turns=[[test()], [test()], [test()], [test()], []],
        expect={"extension_refused_at": [4, 5], "stop": ("done", 5)},
    ),
    dict(
        source="derived",
        basis="seed 000 §Surface: a productive edit never suppresses an extension",
        case="tests/agent/stall_test.harn::test_no_net_progress_productive_run_keeps_budget",
        seed="000 §Surface: a productive edit changes the signature; genuine progress is never suppressed",
        knobs={"repair_aware": True, "no_net_progress_extend_guard": True},
        turns=[
            [fix(), test(FAIL_A, tag="A")],
            [fix(), test(FAIL_B, tag="B")],
            [fix(), test(FAIL_C, tag="C")],
            [],
        ],
        expect={"extension_refused_at": [], "warnings": [], "stop": ("done", 4)},
    ),
    # ---- stall.harn escalation (issue item 6) and the blind core (item 7) -------------------------
    dict(
        source="derived",
        basis="stall.harn STALL_REPEAT_SAME_ERROR 3 with stall.harn's escalation (max_feedback 1, hard_stop_after_trips 3)",
        case="blind repeated_error escalates: feedback once (max_feedback 1), hard stop at 3 consecutive trips",
        seed="000 §Interaction with the legacy patterns (repeated_error); stall.harn STALL_REPEAT_SAME_ERROR 3, "
        "STALL_HARD_STOP_AFTER_TRIPS 3, max_feedback 1",
        knobs={"repair_aware": False},
        turns=[[test()] for _ in range(8)],
        expect={
            "warnings": [
                (4, "repeated_error", True),
                (5, "repeated_error", False),
                (6, "repeated_error", "stop"),
            ],
            "stop": ("stuck", 6),
        },
    ),
    dict(
        source="derived",
        basis="stall.harn __agent_stall_register_recovery with stall.harn's escalation (max_feedback 1, hard_stop_after_trips 3)",
        case="a non-tripping turn resets the consecutive-trip count",
        seed="stall.harn __agent_stall_register_recovery ('a non-tripping step recovers')",
        knobs={"repair_aware": False},
        turns=[
            [test()],
            [test()],
            [test()],
            [test()],
            [test()],
            [read("ok")],
            [test()],
            [test()],
            [test()],
            [test()],
            [],
        ],
        expect={
            "warnings": [
                (4, "repeated_error", True),
                (5, "repeated_error", False),
                (10, "repeated_error", False),
            ],
            "stop": ("done", 11),
        },
    ),
    dict(
        source="derived",
        basis="stall.harn STALL_REPEAT_SAME_OBSERVATION 4 with stall.harn's escalation (max_feedback 1, hard_stop_after_trips 3)",
        case="blind repeated_same_observation trips at 4 (count includes the proposed call)",
        seed="000 §Interaction with the legacy patterns; stall.harn STALL_REPEAT_SAME_OBSERVATION 4",
        knobs={"repair_aware": False},
        turns=[[read("v1")] for _ in range(7)],
        expect={
            "warnings": [
                (4, "repeated_same_observation", True),
                (5, "repeated_same_observation", False),
                (6, "repeated_same_observation", "stop"),
            ],
            "stop": ("stuck", 6),
        },
    ),
    dict(
        source="derived",
        basis="stall.harn __agent_stall_process_call (a changed observation restarts the count)",
        case="blind repeated_same_observation after the observation changed: the count restarts at 1",
        seed="stall.harn __agent_stall_process_call (observation_changed resets to 1); threshold 4",
        knobs={"repair_aware": False},
        turns=[
            [read("v1")],
            [read("v2")],
            [read("v2")],
            [read("v2")],
            [read("v2")],
            [read("v2")],
            [read("v2")],
            [],
        ],
        expect={
            "warnings": [
                (6, "repeated_same_observation", True),
                (7, "repeated_same_observation", False),
            ],
            "stop": ("done", 8),
        },
    ),
    dict(
        source="derived",
        basis="stall.harn __agent_stall_process_call (the proposed call compared with the last)",
        case="blind trip needs the PROPOSED call to be the repeated one",
        seed="stall.harn __agent_stall_process_call: same_action compares this turn's call with the last call",
        knobs={"repair_aware": False},
        turns=[[test()], [test()], [test()], [fix()], []],
        expect={"warnings": [], "stop": ("done", 5)},
    ),
    dict(
        source="derived",
        basis="seed 000's intro (a blind counter cannot tell thrash from progress), run on an alternating script",
        case="blind detector misses the edit/re-test thrash (alternating actions)",
        seed="000 §intro (a blind counter cannot tell thrash from progress)",
        knobs={"repair_aware": False},
        turns=[[test()], [fix()], [test()], [fix()], [test()], [fix()], [test()], []],
        expect={"warnings": [], "stop": ("done", 8)},
    ),
    dict(
        source="derived",
        basis="stall.harn __agent_stall_observe_core (calls processed one by one)",
        case="blind counters work per CALL: an edit+re-test turn repeated is not 'the same action'",
        seed="stall.harn __agent_stall_observe_core: each substantive call is processed in order against the "
        "previous call",
        knobs={"repair_aware": False},
        turns=[
            [fix(), test()],
            [fix(), test()],
            [fix(), test()],
            [fix(), test()],
            [fix(), test()],
            [],
        ],
        expect={"warnings": [], "stop": ("done", 6)},
    ),
    dict(
        source="reference",
        cite="stall.harn __agent_stall_fold_diagnostic: a non-failing result on a non-edit turn is a pass",
        case="[course choice to document] a successful read between two identical failures",
        seed="stall.harn __agent_stall_turn_result/__agent_stall_fold_diagnostic: a non-failing result on a "
        "non-edit turn is a pass and clears the model (the course keeps reads 'quiet')",
        knobs={"repair_aware": True},
        turns=[[test()], [read("text")], [test()], [test()], []],
        expect={"warnings": [], "stop": ("done", 5), "streaks": [0, 1, 0, 1, 2]},
        course={
            "warnings": [(5, "stuck_same_diagnostic", True)],
            "stop": ("done", 5),
            "streaks": [0, 1, 1, 2, 3],
        },
        why="lesson 13, Where the reference differs: a read is not evidence about the bug "
        "(cafe.stall.failure_state.classify_turn calls it quiet)",
    ),
    # ---- issue 36: a turn read in the order it ran; a failing tool that is not the check ---------
    dict(
        source="derived",
        basis="seed 000 §The signature IS the progress signal (an edit turn's non-failing result owes a re-verify) and §The four behaviors 4",
        case="a fix verified green later in the same turn, then the budget runs out",
        seed="000 §The signature IS the progress signal (on a turn with an edit, a result that did not "
        "fail is taken for the edit's success: a re-verify is owed, the model kept); §The four "
        "behaviors 4 (a stop that is not a success carries current_failure)",
        knobs={"repair_aware": True},
        max_turns=3,
        turns=[[test()], [test()], [fix(), test(PASS_3, ok=True)]],
        expect={
            "stop": ("max_turns", 3),
            "current_failure": {
                "class": "fail",
                "snippet_has": "expected 5 got 4",
                "same_diagnostic_streak": 2,
            },
        },
        course={"stop": ("max_turns", 3), "streaks": [0, 1, 2], "current_failure": None},
        why="lesson 13, Where the reference differs: a turn's results are read in the order they "
        "ran, so a check after the edit is the edit verified",
    ),
    dict(
        source="derived",
        basis="seed 000 §Surface (the cap resets only on a clean non-edit pass), on an edit+pass turn",
        case="the hard cap resets on a fix verified green in the same turn as its edit",
        seed="000 §Surface: the hard cap 'resets only on a clean non-edit verification pass'",
        knobs={
            "repair_aware": True,
            "no_net_progress_extend_guard": True,
            "no_net_progress_hard_cap_after": 3,
            "stuck_same_diagnostic_after": 99,
        },
        turns=[
            [test(FAIL_A, tag="A")],
            [test(FAIL_B, tag="B")],
            [fix(), test(PASS_3, ok=True)],
            [test(FAIL_C, tag="C")],
            [test(FAIL_D, tag="D")],
            [],
        ],
        expect={"warnings": [(5, "no_net_progress_hard_cap", "stop")], "stop": ("stuck", 5)},
        course={"warnings": [], "stop": ("done", 6)},
        why="lesson 13, Where the reference differs: a turn's results are read in the order they "
        "ran, so a check after the edit is the edit verified",
    ),
    # ---- reader V's H1 and H2: a green check, then an edit nobody checked -------------------------
    dict(
        source="derived",
        basis="seed 000 §The signature IS the progress signal (green on a turn that also edits vouches only for the edit: the failure is kept and owed a check) and §The four behaviors 4; lesson 13 agrees (an edit after the turn's last check still owes a re-verify)",
        case="a green check, then an edit in the same turn, then the budget runs out (reader V s40/s41)",
        seed="000 §The signature IS the progress signal: green on a turn that also edits does not "
        "clear the failure; a check is still owed",
        knobs={"repair_aware": True},
        max_turns=2,
        turns=[[test()], [test(PASS_3, ok=True), fix()]],
        expect={
            "stop": ("max_turns", 2),
            "streaks": [0, 1],
            "current_failure": {
                "class": "fail",
                "snippet_has": "expected 5 got 4",
                "same_diagnostic_streak": 1,
            },
        },
    ),
    dict(
        source="derived",
        basis="seed 000 §The four behaviors 2 (a successful edit on a live failure forces a verification through the existing verify entrypoint)",
        case="a green check, then an edit in the same turn: the post-edit re-verify runs (reader V s41)",
        seed="000 §The four behaviors 2: the mandate forces a verification after an edit on a live failure",
        knobs={"repair_aware": True},
        max_turns=3,
        verify=[(True, PASS_3)],
        turns=[[test()], [test(PASS_3, ok=True), fix()], [read("text")]],
        expect={"forced_verify_turns": [2], "stop": ("max_turns", 3), "current_failure": None},
    ),
    dict(
        source="derived",
        basis="seed 000 §Surface (the cap resets only on a clean non-edit pass), on a pass-then-edit turn; the turn from the fold lag",
        case="the hard cap does not reset on a green check followed by an edit in its turn (reader V s42)",
        seed="000 §Surface: the hard cap 'resets only on a clean non-edit verification pass'",
        knobs={
            "repair_aware": True,
            "no_net_progress_extend_guard": True,
            "no_net_progress_hard_cap_after": 3,
            "stuck_same_diagnostic_after": 99,
        },
        turns=[
            [test(FAIL_A, tag="A")],
            [test(FAIL_B, tag="B")],
            [test(PASS_3, ok=True), fix()],
            [test(FAIL_C, tag="C")],
            [test(FAIL_D, tag="D")],
            [],
        ],
        expect={"warnings": [(5, "no_net_progress_hard_cap", "stop")], "stop": ("stuck", 5)},
    ),
    dict(
        source="derived",
        basis="seed 000 §The signature IS the progress signal (the first failing result is the diagnostic), on an alternating script",
        case="a red test alternating with a refused write is flagged",
        seed="000 §The signature IS the progress signal: '__agent_stall_turn_result returns the first "
        "*failing* dispatch result' (so the refused write becomes the diagnostic and resets the streak)",
        knobs={"repair_aware": True},
        turns=[[test()], [refused()], [test()], [refused()], [test()], []],
        expect={"warnings": [], "stop": ("done", 6), "streaks": [0, 1, 1, 1, 1, 1]},
        course={
            "warnings": [(6, "stuck_same_diagnostic", True)],
            "stop": ("done", 6),
            "streaks": [0, 1, 1, 2, 2, 3],
        },
        why="lesson 13, Where the reference differs: a failing tool that is not the check is "
        "evidence about that tool, not a new live failure",
    ),
    dict(
        source="derived",
        basis="seed 000 §The signature IS the progress signal (the first failing result is the diagnostic)",
        case="a red test and a refused write in one turn, again and again, is flagged",
        seed="000 §The signature IS the progress signal (first failing dispatch result is the diagnostic)",
        knobs={"repair_aware": True},
        turns=[[refused(), test()] for _ in range(4)] + [[]],
        expect={"warnings": [], "stop": ("done", 5), "streaks": [0, 1, 1, 1, 1]},
        course={
            "warnings": [(4, "stuck_same_diagnostic", True)],
            "stop": ("done", 5),
            "streaks": [0, 1, 2, 3, 4],
        },
        why="lesson 13, Where the reference differs: a failing tool that is not the check is "
        "evidence about that tool, not a new live failure",
    ),
    dict(
        source="derived",
        basis="the refused write as the diagnostic (seed 000), its trip turn from seed 000 §One-turn fold lag (a trip lands the turn after the failure that reaches N)",
        case="a write refused the same way again and again, repair-aware",
        seed="000 §The signature IS the progress signal (the refused write is the diagnostic, so its "
        "streak trips stuck_same_diagnostic); §Interaction with the legacy patterns (blind trips "
        "suppressed)",
        knobs={"repair_aware": True},
        turns=[[refused()] for _ in range(5)] + [[]],
        expect={"warnings": [(4, "stuck_same_diagnostic", True)], "stop": ("done", 6)},
        course={
            "warnings": [(4, "repeated_error", True), (5, "repeated_error", False)],
            "stop": ("done", 6),
        },
        why="lesson 13, Where the reference differs: a failing tool that is not the check is "
        "evidence about that tool, so the blind repeated_error keeps watching it",
    ),
    dict(
        source="derived",
        basis="issue 36's held-out row: the reference keeps up to 4,000 characters, head and tail",
        case="the hand-back of a long traceback keeps its last line",
        seed="000 §The four behaviors 4 (current_failure's snippet); the reference keeps up to "
        "4,000 characters of the failing output, head and tail",
        knobs={"repair_aware": True},
        max_turns=3,
        turns=[[test(LONG_TRACEBACK)] for _ in range(3)],
        expect={
            "stop": ("max_turns", 3),
            "current_failure": {
                "class": "fail",
                "snippet_has": "AssertionError: expected 5 got 9",
                "same_diagnostic_streak": 3,
            },
        },
    ),
    dict(
        source="derived",
        basis="seed 000 §Interaction with the legacy repeated-failure patterns; the turn from seed 000 §One-turn fold lag (a trip lands the turn after the failure that reaches N)",
        case="repair_aware suppresses the blind repeated_error trip",
        seed="000 §Interaction with the legacy repeated-failure patterns",
        knobs={"repair_aware": True},
        turns=[[test()] for _ in range(5)] + [[]],
        expect={"warnings": [(4, "stuck_same_diagnostic", True)], "stop": ("done", 6)},
    ),
    # ---- seed 003: remediation_delivered ----------------------------------------------------------
    dict(
        source="derived",
        basis="the repeated asking is the test's; the turns from seed 003 §remediation_delivered (asked at a streak of 2, when it advanced, no warning yet) and the fold lag",
        case="tests/agent/stall_test.harn::test_remediation_bool_true_trips_each_qualifying_turn",
        seed="003 §remediation_delivered: asked when failing, streak >= STALL_DELIVERED_FIX_AFTER (2), advanced, "
        "no warning yet; asked again every such turn",
        knobs={"repair_aware": True, "stuck_same_diagnostic_after": 99},
        host={"remediation_delivered": "always"},
        turns=[[test()], [test()], [test()], [test()], []],
        expect={
            "warnings": [
                (3, "delivered_fix_not_landing", True),
                (4, "delivered_fix_not_landing", False),
                (5, "delivered_fix_not_landing", False),
            ],
            "stop": ("done", 5),
        },
    ),
    dict(
        source="derived",
        basis="seed 003 §remediation_delivered (asked at a streak of 2, when it advanced, no warning yet); precedence over stuck_same_diagnostic; stall.harn's escalation (max_feedback 1, hard_stop_after_trips 3)",
        case="delivered fix outranks stuck_same_diagnostic and does not stop the run (the s14 notebook's story, "
        "edit and re-test in one turn)",
        seed="003 §remediation_delivered (highest precedence, one turn sooner); stall.harn escalation",
        knobs={"repair_aware": True},
        host={"remediation_delivered": "prev_turn_wrote"},
        turns=[[test()], [fix(), test()], [fix(), test()], [fix(), test()], [fix(), test()], []],
        expect={
            "warnings": [
                (3, "delivered_fix_not_landing", True),
                (4, "delivered_fix_not_landing", False),
                (5, "delivered_fix_not_landing", False),
                (6, "delivered_fix_not_landing", False),
            ],
            "stop": ("done", 6),
        },
    ),
    dict(
        source="derived",
        basis="seed 003 §remediation_delivered (asked at a streak of 2, when it advanced, no warning yet); it works with repair_aware off",
        case="remediation_delivered works without repair_aware",
        seed="003 §remediation_delivered: works with repair_aware off as well",
        knobs={"repair_aware": False},
        host={"remediation_delivered": "always"},
        turns=[[fix(), test()], [fix(), test()], [fix(), test()], [fix(), test()], []],
        expect={
            "warnings": [
                (3, "delivered_fix_not_landing", True),
                (4, "delivered_fix_not_landing", False),
                (5, "delivered_fix_not_landing", False),
            ],
            "stop": ("done", 5),
            "current_failure": None,
        },
    ),
    dict(
        source="derived",
        basis="seed 003 §remediation_delivered (asked at a streak of 2, when it advanced, no warning yet); stall.harn's escalation (max_feedback 1, hard_stop_after_trips 3)",
        case="remediation_delivered is not asked on a turn another warning took",
        seed="003 §remediation_delivered: 'no warning has already fired'",
        knobs={"repair_aware": False},
        host={"remediation_delivered": "always"},
        turns=[[test()] for _ in range(7)],
        expect={
            "warnings": [
                (3, "delivered_fix_not_landing", True),
                (4, "repeated_error", False),
                (5, "repeated_error", "stop"),
            ],
            "stop": ("stuck", 5),
        },
    ),
    # ---- seed 003: progress_signal --------------------------------------------------------------
    dict(
        source="derived",
        basis="seed 003 §progress_signal (its thresholds and the two cuts): the write-axis cut, no_verifier_progress_limit 3",
        case="write-axis short cut (edits land, the verifier never moves)",
        seed="003 §progress_signal: no_verifier_progress_limit 3 non-advancing turns with a write",
        knobs={"repair_aware": False},
        host={"progress_signal": "passing_count"},
        turns=[[test(FAIL_3)], [fix()], [test(FAIL_3)], [fix()], [test(FAIL_3)], [fix()], []],
        expect={"warnings": [], "stop": ("stuck", 5), "why": "no_net_progress (write axis)"},
    ),
    dict(
        source="derived",
        basis="seed 003 §progress_signal (its thresholds and the two cuts): the long stall, verify_state_stall_turns lowered to 2",
        case="long stall: same diagnostic >= verify_state_streak and flat >= verify_state_stall_turns",
        seed="003 §progress_signal: long stall (verify_state_streak 3, verify_state_stall_turns lowered to 2)",
        knobs={
            "repair_aware": True,
            "verify_state_stall_turns": 2,
            "verify_state_recurrence_hard": 99,
        },
        host={"progress_signal": "passing_count"},
        turns=[[test(FAIL_3)] for _ in range(8)],
        expect={
            "warnings": [(4, "stuck_same_diagnostic", True)],
            "stop": ("stuck", 4),
            "why": "no_net_progress (long stall)",
        },
        course={"warnings": [], "stop": ("stuck", 4)},
        why="lesson 14, Where the reference differs: the cut is decided right after the turn, so a "
        "warning the reference records on the stopping boundary is never raised",
    ),
    dict(
        source="derived",
        basis="seed 003 §progress_signal (its thresholds and the two cuts): verify_state_recurrence_hard 4",
        case="hard recurrence, consecutive: the same diagnostic 4 times",
        seed="003 §progress_signal: verify_state_recurrence_hard 4",
        knobs={"repair_aware": True},
        host={"progress_signal": "passing_count"},
        turns=[[test(FAIL_3)] for _ in range(8)],
        expect={
            "warnings": [(4, "stuck_same_diagnostic", True)],
            "stop": ("stuck", 5),
            "why": "no_net_progress (hard recurrence)",
        },
    ),
    dict(
        source="derived",
        basis="seed 003 §progress_signal (its thresholds and the two cuts): recurrences counted per signature over the run (stall.harn verify_signature_counts)",
        case="hard recurrence counts a signature's recurrences over the RUN (interleaved A,B,A,B,...)",
        seed="003 §progress_signal ('hard-recurred verify_state_recurrence_hard times'); stall.harn "
        "verify_signature_counts (per-signature TOTAL, never reset on a signature change)",
        knobs={
            "repair_aware": True,
            "stuck_same_diagnostic_after": 99,
            "verify_state_streak": 99,
            "verify_state_stall_turns": 99,
            "no_verifier_progress_limit": 99,
        },
        host={"progress_signal": "always_zero"},
        turns=[[test(FAIL_A, tag="A")], [test(FAIL_B, tag="B")]] * 3
        + [[test(FAIL_A, tag="A")], [test(FAIL_B, tag="B")], []],
        expect={"warnings": [], "stop": ("stuck", 8), "why": "no_net_progress (A seen 4 times)"},
    ),
    dict(
        source="derived",
        basis="seed 003 §progress_signal (its thresholds and the two cuts): a number above the high-water mark is an advance",
        case="a verifier that advances keeps the run alive",
        seed="003 §progress_signal: a number above the high-water mark is an advance and resets the streak",
        knobs={"repair_aware": True},
        host={"progress_signal": "passing_count"},
        turns=[
            [test("2 failed, 2 passed")],
            [fix()],
            [test("1 failed, 3 passed")],
            [fix()],
            [test("4 passed", ok=True)],
            [],
        ],
        expect={"warnings": [], "stop": ("done", 6)},
    ),
]

# Config rows: stall_config / StallConfig (old module cafe/stall.py).
CONFIG_ROWS = [
    dict(
        source="reference",
        cite="tests/agent/stall_test.harn::test_repair_diagnostics_nested_config_lowers_to_stall_fields; seed 000 §Surface",
        case="tests/agent/stall_test.harn::test_repair_diagnostics_nested_config_lowers_to_stall_fields",
        seed="000 §Surface: knobs flat on stall_diagnostics or nested under repair_diagnostics",
        given={
            "repair_diagnostics": {
                "repair_aware": True,
                "stuck_same_diagnostic_after": 4,
                "post_edit_reverify": True,
                "no_net_progress_extend_guard": True,
                "no_net_progress_extend_after": 5,
                "no_net_progress_hard_cap_after": 12,
                "reserved_terminal_verify": True,
                "reserved_terminal_verify_iterations": 3,
            }
        },
        expect={
            "repair_aware": True,
            "stuck_same_diagnostic_after": 4,
            "post_edit_reverify": True,
            "no_net_progress_extend_guard": True,
            "no_net_progress_extend_after": 5,
            "no_net_progress_hard_cap_after": 12,
            "reserved_terminal_verify": True,
            "reserved_terminal_verify_iterations": 3,
        },
    ),
    dict(
        source="reference",
        cite="tests/agent/stall_test.harn::test_repair_diagnostics_flat_fields_override_nested; seed 000 §Surface: flat fields win",
        case="tests/agent/stall_test.harn::test_repair_diagnostics_flat_fields_override_nested",
        seed="000 §Surface: flat fields win",
        given={
            "repair_aware": False,
            "post_edit_reverify": False,
            "reserved_terminal_verify": False,
            "repair_diagnostics": {
                "repair_aware": True,
                "post_edit_reverify": True,
                "reserved_terminal_verify": True,
            },
        },
        expect={
            "repair_aware": False,
            "post_edit_reverify": False,
            "reserved_terminal_verify": False,
        },
    ),
    dict(
        source="reference",
        cite="seed 000 §Surface (the eight knobs and their defaults); stall.harn __agent_stall_default_config (the other five)",
        case="defaults (seed 000 §Surface, stall.harn __agent_stall_default_config, seed 003)",
        seed="000 §Surface; 003 §progress_signal, §remediation_delivered",
        given={},
        expect={
            "repair_aware": False,
            "stuck_same_diagnostic_after": 3,
            "post_edit_reverify": True,
            "no_net_progress_extend_guard": False,
            "no_net_progress_extend_after": 3,
            "no_net_progress_hard_cap_after": 16,
            "reserved_terminal_verify": False,
            "reserved_terminal_verify_iterations": 2,
            # stall.harn, not the seeds:
            "hard_stop_after_trips": 3,
            "max_feedback": 1,
            "inject_feedback": True,
            "repeat_same_error": 3,
            "repeat_same_observation": 4,
        },
    ),
    dict(
        source="reference",
        cite="stall.harn __agent_stall_config: __agent_stall_int(..., 2) falls back to the default",
        case="stuck_same_diagnostic_after below the reference minimum (2)",
        seed="stall.harn __agent_stall_config: __agent_stall_int(..., 2) falls back to the default for values < 2",
        given={"stuck_same_diagnostic_after": 1},
        expect={"reference": "silently 3", "proposed": "ValueError naming the minimum 2"},
    ),
]

# Host-fact defaults (seed 003).
HOST_FACT_DEFAULTS = {
    "verify_state_streak": 3,
    "verify_state_stall_turns": 12,
    "verify_state_recurrence_hard": 4,
    "no_verifier_progress_limit": 3,
    "STALL_DELIVERED_FIX_AFTER": 2,
}
