"""Session 15's reference cases for the parts this file's tests cover, as plain table rows.

The verify-before-done gate (`cafe/monitors/gate.py`), how a claimed finish ends a run, the
recovery checkpoint (`cafe/monitors/recovery.py`), when the safe-state abort fires
(`cafe/monitors/safe_state.py`, `abort_decision`), the progress monitor and residual objectives.
Every row names the case it mirrors. Sources:

- SEED: seed 001, the run monitors' own page (section named);
- the reference implementation (dirge), module and test named: verifier.rs (the gate: status,
  record_outcome, check_before_finalize, the per-run message ceiling), run.rs (the mid-run
  fast-check reminder: MAX_VERIFY_NUDGES = 1, FAST_VERIFY_EDIT_THRESHOLD = 3), failure_tracker.rs
  (rung 2), safe_state.rs (SafeStateEngine::decide, MAX_SAFE_STATE_ABORTS = 2), progress.rs,
  residual.rs;
- ISSUE24 / COURSE: a rule the reference does not state, the course's, documented in the lesson;
- (derived ...): worked out from the reference's rules, not one of its cases.
`row_source` reads which one a row is from its case; the tests refuse a row that cites nothing.

The command rules (which command is a check, its tier, masking) have their own rows, beside
`cafe/monitors/tiers.py`'s tests.

Vocabulary of the gate rows:
  statuses:   "no_code_edited" | "verified_green" | "verified_red" | "unverified" | "fast_green_only"
  finish:     what the gate sends on a claimed finish: "red" (the last check failed), "unverified"
              (nothing ran), "masked" (a check ran, its exit status piped or sequenced away),
              "own_script" (the check was a script the agent wrote in the run),
              "suite" (fast-green-only escalation), None (nothing: the budget is spent or all is well)
  events, in order:
      ("edit", path)               one edit-tool call on one file
      ("patch", [path, ...])       one patch-tool call whose operations touch several files: one
                                   edit per distinct code file (`code_paths_touched`)
      ("read", path)               a read: not an edit, not a verification
      ("run", command, outcome)    a shell command; outcome "pass" | "fail" | "error" (error = fail)
      ("status", mode, expected)   the gate's status in `mode`
      ("finish", mode, expected)   a claimed finish in `mode`: the gate's message kind (or None)
      ("edits_since_verify", n)    code edits since the last recorded check (any outcome)
      ("fresh_green", bool)        verified, passed, and no code edit since (the safe-state green marker)
      ("mid_run", mode, expected)  a turn boundary: does the mid-run fast-check reminder fire
"""

import re

# A status event may carry a fourth item, {"course": ..., "why": ...}: the course's answer where it
# differs from the reference on purpose, and the lesson note that says why.
OFF_MODE_STALE = (
    "lesson 15, Where the reference differs: with tiers off a green still goes stale once code "
    "edits follow it, as the finish already says"
)

# --- where a row's answer comes from ------------------------------------------------------------

# A reference case as the reference names its test: snake_case, maybe a /variant, maybe a note in
# parentheses; or one that names the reference's file (`run.rs`), an issue of it, or a seed section.
_REFERENCE_NAME = re.compile(r"[a-z0-9_]+(/\S+)*( \(.+\))?")
_REFERENCE_MARK = re.compile(r"\.rs\b|dirge-|seed 00\d|SEED")


def row_source(case: str) -> str | None:
    """Where a tuple row's answer comes from, read off its case: "course" (`COURSE:` or
    `ISSUE24:`, the course's own rule, in the lesson's "Where the reference differs" note),
    "derived" (`(derived ...)`: worked out from the reference's rules, the note says which), or
    "reference" (the case is the name of the reference's test, or cites its file or a seed
    section). None: the row cites nothing, which the tests refuse."""
    if case.startswith(("COURSE:", "ISSUE24:")):
        return "course"
    if "(derived" in case:
        return "derived"
    if _REFERENCE_NAME.fullmatch(case) or _REFERENCE_MARK.search(case):
        return "reference"
    return None


# --- the verify-before-done gate, event by event ------------------------------------------------

GATE_ROWS = [
    # verifier.rs edited_code_without_running_nudges_to_verify
    (
        "edited_code_without_running_nudges_to_verify",
        [("edit", "src/auth.rs"), ("finish", "off", "unverified")],
    ),
    # verifier.rs edited_code_then_passing_test_is_silent
    (
        "edited_code_then_passing_test_is_silent",
        [("edit", "src/auth.rs"), ("run", "cargo test", "pass"), ("finish", "off", None)],
    ),
    # verifier.rs edited_code_then_failing_test_nudges_to_fix
    (
        "edited_code_then_failing_test_nudges_to_fix",
        [("edit", "src/auth.rs"), ("run", "cargo test", "fail"), ("finish", "off", "red")],
    ),
    # verifier.rs rerun_green_after_failure_clears_the_nudge
    (
        "rerun_green_after_failure_clears_the_nudge",
        [
            ("edit", "src/auth.rs"),
            ("run", "cargo test", "fail"),
            ("run", "cargo test", "pass"),
            ("finish", "off", None),
        ],
    ),
    # verifier.rs non_verification_command_does_not_count_as_verified
    (
        "non_verification_command_does_not_count_as_verified",
        [("edit", "src/auth.rs"), ("run", "ls -la", "pass"), ("finish", "off", "unverified")],
    ),
    # verifier.rs tool_execution_error_counts_as_failure
    (
        "tool_execution_error_counts_as_failure",
        [("edit", "src/auth.rs"), ("run", "make test", "error"), ("finish", "off", "red")],
    ),
    # verifier.rs doc_only_edit_never_nudges
    ("doc_only_edit_never_nudges", [("edit", "README.md"), ("finish", "off", None)]),
    # verifier.rs no_edits_never_nudges
    ("no_edits_never_nudges", [("read", "src/auth.rs"), ("finish", "off", None)]),
    # verifier.rs nudge_fires_at_most_once
    (
        "nudge_fires_at_most_once",
        [("edit", "src/auth.rs"), ("finish", "off", "unverified"), ("finish", "off", None)],
    ),
    # verifier.rs apply_patch_with_code_operation_counts_as_edit
    (
        "apply_patch_with_code_operation_counts_as_edit",
        [("patch", ["src/lib.rs"]), ("finish", "off", "unverified")],
    ),
    # verifier.rs status_reflects_run_signals
    (
        "status_reflects_run_signals",
        [
            ("status", "off", "no_code_edited"),
            ("edit", "src/a.rs"),
            ("status", "off", "unverified"),
            ("run", "cargo test", "fail"),
            ("status", "off", "verified_red"),
            ("run", "cargo test", "pass"),
            ("status", "off", "verified_green"),
        ],
    ),
    # verifier.rs status_does_not_consume_the_nudge
    (
        "status_does_not_consume_the_nudge",
        [
            ("edit", "src/a.rs"),
            ("status", "off", "unverified"),
            ("status", "off", "unverified"),
            ("finish", "off", "unverified"),
        ],
    ),
    # verifier.rs a_masked_test_run_is_told_about_the_mask_not_that_it_never_ran (dirge-g4lk)
    (
        "a_masked_test_run_is_told_about_the_mask_not_that_it_never_ran",
        [
            ("edit", "src/auth.rs"),
            ("run", "pytest -v 2>&1 | tail -12", "pass"),
            ("finish", "off", "masked"),
        ],
    ),
    # verifier.rs a_masked_pass_still_does_not_count_as_verified
    (
        "a_masked_pass_still_does_not_count_as_verified",
        [
            ("edit", "src/auth.rs"),
            ("run", "pytest -v 2>&1 | tail -12", "pass"),
            ("status", "off", "unverified"),
        ],
    ),
    # verifier.rs masked_success_does_not_latch_green (three commands)
    (
        "masked_success_does_not_latch_green/||true",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test || true", "pass"),
            ("status", "off", "unverified"),
        ],
    ),
    (
        "masked_success_does_not_latch_green/|tail",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo clippy --all-targets | tail -2", "pass"),
            ("status", "off", "unverified"),
        ],
    ),
    (
        "masked_success_does_not_latch_green/;echo",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test; echo done", "pass"),
            ("status", "off", "unverified"),
        ],
    ),
    # verifier.rs newline_chained_validation_block_does_not_latch_green
    (
        "newline_chained_validation_block_does_not_latch_green",
        [
            ("edit", "src/a.rs"),
            (
                "run",
                'diff expected.txt actual.txt\ncmp -s a.bin b.bin\ntest -f out/report.json\necho "all checks passed"',
                "pass",
            ),
            ("status", "off", "unverified"),
        ],
    ),
    # DERIVED (issue 36's held-out rows: the reference declines a green from a script the agent
    # wrote in the same run; no test of the reference is named)
    (
        "a_green_from_a_script_written_this_run_is_declined (derived: issue 36, the reference declines a pass of the run's own script)",
        [
            ("edit", "bill.py"),
            ("edit", "check.sh"),
            ("run", "./check.sh", "pass"),
            ("status", "off", "unverified"),
            ("finish", "off", "own_script"),
        ],
    ),
    (
        "a_green_from_a_script_written_by_the_shell_is_declined (derived: issue 36, the reference declines a pass of the run's own script)",
        [
            ("edit", "bill.py"),
            ("run", "printf 'exit 0' > scripts/check.sh && chmod +x scripts/check.sh", "pass"),
            ("run", "timeout 60 scripts/check.sh", "pass"),
            ("status", "advisory", "unverified"),
        ],
    ),
    (
        "a_script_the_run_did_not_write_still_counts (derived: issue 36, the reference declines a pass of the run's own script)",
        [("edit", "bill.py"), ("run", "./check.sh", "pass"), ("status", "off", "verified_green")],
    ),
    (
        "a_red_from_a_script_written_this_run_is_still_red (derived: issue 36, the reference declines a pass of the run's own script)",
        [
            ("edit", "check.sh"),
            ("run", "./check.sh", "fail"),
            ("status", "off", "verified_red"),
        ],
    ),
    # verifier.rs masked_failure_is_still_recorded_as_red
    (
        "masked_failure_is_still_recorded_as_red",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test | tail -2", "fail"),
            ("status", "off", "verified_red"),
        ],
    ),
    # verifier.rs masked_newline_failure_is_still_recorded_as_red
    (
        "masked_newline_failure_is_still_recorded_as_red",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test\necho done", "error"),
            ("status", "off", "verified_red"),
        ],
    ),
    # verifier.rs unmasked_success_still_latches_green
    (
        "unmasked_success_still_latches_green",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo clippy --all-targets -- -D warnings", "pass"),
            ("status", "off", "verified_green"),
        ],
    ),
    # verifier.rs masked_command_does_not_clear_edits_since_verify
    (
        "masked_command_does_not_clear_edits_since_verify",
        [
            ("edit", "src/f0.rs"),
            ("edit", "src/f1.rs"),
            ("edit", "src/f2.rs"),
            ("edits_since_verify", 3),
            ("run", "cargo test || true", "pass"),
            ("edits_since_verify", 3),
        ],
    ),
    # verifier.rs non_build_subcommands_are_not_verification (status form)
    (
        "non_build_subcommands_are_not_verification/status",
        [("edit", "src/a.rs"), ("run", "npm install", "pass"), ("status", "off", "unverified")],
    ),
    # verifier.rs linters_and_scripts_count_as_verification (status form; the script predates the run)
    (
        "linters_and_scripts_count_as_verification/status",
        [
            ("edit", "src/a.rs"),
            ("run", "prettier --check .", "pass"),
            ("status", "off", "verified_green"),
        ],
    ),
    # verifier.rs real_build_commands_still_count (status form)
    (
        "real_build_commands_still_count/status",
        [("edit", "src/a.rs"), ("run", "make check", "pass"), ("status", "off", "verified_green")],
    ),
    # verifier.rs off_mode_status_is_legacy
    (
        "off_mode_status_is_legacy",
        [("edit", "src/a.rs"), ("run", "cargo check", "pass"), ("status", "off", "verified_green")],
    ),
    # verifier.rs fast_only_is_fast_green_only_when_tiered
    (
        "fast_only_is_fast_green_only_when_tiered",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo check", "pass"),
            ("status", "advisory", "fast_green_only"),
            ("status", "blocking", "fast_green_only"),
        ],
    ),
    # verifier.rs slow_green_is_verified_green_when_tiered
    (
        "slow_green_is_verified_green_when_tiered",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo check", "pass"),
            ("run", "cargo test", "pass"),
            ("status", "advisory", "verified_green"),
        ],
    ),
    # verifier.rs red_any_tier_is_verified_red (two cases)
    (
        "red_any_tier_is_verified_red/fast_red",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo clippy", "fail"),
            ("status", "advisory", "verified_red"),
        ],
    ),
    (
        "red_any_tier_is_verified_red/slow_green_then_fast_red",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test", "pass"),
            ("run", "cargo clippy", "fail"),
            ("status", "advisory", "verified_red"),
        ],
    ),
    # verifier.rs rerun_slow_green_after_fast_red_clears
    (
        "rerun_slow_green_after_fast_red_clears",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo clippy", "fail"),
            ("run", "cargo test", "pass"),
            ("status", "advisory", "verified_green"),
        ],
    ),
    # verifier.rs unverified_unchanged_in_all_modes
    (
        "unverified_unchanged_in_all_modes",
        [
            ("edit", "src/a.rs"),
            ("status", "off", "unverified"),
            ("status", "advisory", "unverified"),
            ("status", "blocking", "unverified"),
        ],
    ),
    # SEED "Tier flags record green coverage, not invocation": red suite then green fast check
    (
        "seed_red_suite_then_green_fast_check_is_fast_green_only",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test", "fail"),
            ("run", "cargo check", "pass"),
            ("status", "advisory", "fast_green_only"),
            ("finish", "advisory", "suite"),
        ],
    ),
    # verifier.rs green_goes_stale_when_edits_follow_it (dirge-uw2l.3)
    (
        "green_goes_stale_when_edits_follow_it",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test", "pass"),
            ("status", "advisory", "verified_green"),
            ("edit", "src/b.rs"),
            ("status", "advisory", "unverified"),
            (
                "status",
                "off",
                "verified_green",
                {"course": "unverified", "why": OFF_MODE_STALE},
            ),
            ("run", "cargo test", "pass"),
            ("status", "advisory", "verified_green"),
        ],
    ),
    # Follows from verifier.rs (tier flags are never cleared by an edit; staleness = edits_since_verify):
    # full suite green, an edit, then a green FAST check -> the suite's green still counts.
    (
        "staleness_is_edits_since_verify_not_per_tier (derived from verifier.rs status())",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test", "pass"),
            ("edit", "src/a.rs"),
            ("run", "cargo check", "pass"),
            ("status", "advisory", "verified_green"),
            ("finish", "advisory", None),
        ],
    ),
    # verifier.rs doc_edit_after_green_does_not_go_stale
    (
        "doc_edit_after_green_does_not_go_stale",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo test", "pass"),
            ("edit", "README.md"),
            ("status", "advisory", "verified_green"),
        ],
    ),
    # verifier.rs edits_since_verify_counts_code_edits_only
    (
        "edits_since_verify_counts_code_edits_only",
        [
            ("edit", "src/a.rs"),
            ("edit", "src/b.rs"),
            ("patch", ["src/c.rs"]),
            ("edit", "src/d.rs"),
            ("edit", "README.md"),
            ("read", "src/e.rs"),
            ("edits_since_verify", 4),
        ],
    ),
    # verifier.rs batched_apply_patch_counts_each_code_file (dirge-uw2l.7)
    (
        "batched_apply_patch_counts_each_code_file",
        [
            ("patch", ["src/alpha.rs", "src/beta.rs", "src/gamma.rs", "src/delta.rs"]),
            ("edits_since_verify", 4),
        ],
    ),
    # verifier.rs batched_patch_ignores_docs_and_dedupes
    (
        "batched_patch_ignores_docs_and_dedupes",
        [
            ("patch", ["src/alpha.rs", "src/alpha.rs", "README.md", "Cargo.toml"]),
            ("edits_since_verify", 1),
        ],
    ),
    # verifier.rs single_file_edit_counts_once
    ("single_file_edit_counts_once", [("edit", "src/a.rs"), ("edits_since_verify", 1)]),
    # verifier.rs edits_since_verify_resets_on_any_verification (the SAME file three times counts 3)
    (
        "edits_since_verify_resets_on_any_verification",
        [
            ("edit", "src/a.rs"),
            ("edit", "src/a.rs"),
            ("edit", "src/a.rs"),
            ("edits_since_verify", 3),
            ("run", "cargo check", "pass"),
            ("edits_since_verify", 0),
        ],
    ),
    # Follows from record_outcome: a FAILING verification resets the counter too ("any attempt")
    (
        "edits_since_verify_reset_by_a_red_run (derived from verifier.rs record_outcome)",
        [("edit", "src/a.rs"), ("run", "cargo test", "fail"), ("edits_since_verify", 0)],
    ),
    # verifier.rs edits_since_verify_not_reset_by_non_verification_bash
    (
        "edits_since_verify_not_reset_by_non_verification_bash",
        [
            ("edit", "src/a.rs"),
            ("edit", "src/a.rs"),
            ("run", "ls -la", "pass"),
            ("edits_since_verify", 2),
        ],
    ),
    # verifier.rs is_fresh_green_only_when_verified_and_unedited_since
    (
        "is_fresh_green_only_when_verified_and_unedited_since",
        [
            ("edit", "src/a.rs"),
            ("fresh_green", False),
            ("run", "cargo test", "pass"),
            ("fresh_green", True),
            ("edit", "src/a.rs"),
            ("fresh_green", False),
            ("run", "cargo test", "fail"),
            ("fresh_green", False),
        ],
    ),
    # verifier.rs off_mode_fast_only_finalize_is_silent
    (
        "off_mode_fast_only_finalize_is_silent",
        [("edit", "src/a.rs"), ("run", "cargo check", "pass"), ("finish", "off", None)],
    ),
    # verifier.rs advisory_fast_only_finalize_escalates_once
    (
        "advisory_fast_only_finalize_escalates_once",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo check", "pass"),
            ("finish", "advisory", "suite"),
            ("finish", "advisory", None),
        ],
    ),
    # verifier.rs blocking_fast_only_finalize_escalates_up_to_cap (MAX_TIER_ESCALATIONS = 2)
    (
        "blocking_fast_only_finalize_escalates_up_to_cap",
        [
            ("edit", "src/a.rs"),
            ("run", "cargo check", "pass"),
            ("finish", "blocking", "suite"),
            ("finish", "blocking", "suite"),
            ("finish", "blocking", None),
        ],
    ),
    # verifier.rs slow_green_finalize_silent_all_modes
    (
        "slow_green_finalize_silent_all_modes/advisory",
        [("edit", "src/a.rs"), ("run", "cargo test", "pass"), ("finish", "advisory", None)],
    ),
    (
        "slow_green_finalize_silent_all_modes/blocking",
        [("edit", "src/a.rs"), ("run", "cargo test", "pass"), ("finish", "blocking", None)],
    ),
    # verifier.rs red_and_unverified_nudges_unchanged_by_mode
    (
        "red_and_unverified_nudges_unchanged_by_mode/red/off",
        [("edit", "src/a.rs"), ("run", "cargo test", "fail"), ("finish", "off", "red")],
    ),
    (
        "red_and_unverified_nudges_unchanged_by_mode/red/advisory",
        [("edit", "src/a.rs"), ("run", "cargo test", "fail"), ("finish", "advisory", "red")],
    ),
    (
        "red_and_unverified_nudges_unchanged_by_mode/red/blocking",
        [("edit", "src/a.rs"), ("run", "cargo test", "fail"), ("finish", "blocking", "red")],
    ),
    (
        "red_and_unverified_nudges_unchanged_by_mode/unverified/blocking",
        [("edit", "src/a.rs"), ("finish", "blocking", "unverified")],
    ),
    # verifier.rs unverified_nudge_does_not_spend_the_escalation_budget
    (
        "unverified_nudge_does_not_spend_the_escalation_budget",
        [
            ("edit", "src/a.rs"),
            ("finish", "advisory", "unverified"),
            ("run", "cargo check", "pass"),
            ("finish", "advisory", "suite"),
            ("finish", "advisory", None),
        ],
    ),
    # verifier.rs module doc and SEED: the per-run ceiling by mode (1, 2, 3),
    # i.e. the legacy one-shot (1, every mode) + escalations (0 / 1 / 2). A run that stays red hears ONE.
    (
        "per_run_message_ceiling/red_forever/off",
        [("edit", "src/a.rs"), ("run", "cargo test", "fail")]
        + [("finish", "off", "red")]
        + [("finish", "off", None)] * 3,
    ),
    (
        "per_run_message_ceiling/red_forever/advisory",
        [("edit", "src/a.rs"), ("run", "cargo test", "fail")]
        + [("finish", "advisory", "red")]
        + [("finish", "advisory", None)] * 3,
    ),
    (
        "per_run_message_ceiling/red_forever/blocking",
        [("edit", "src/a.rs"), ("run", "cargo test", "fail")]
        + [("finish", "blocking", "red")]
        + [("finish", "blocking", None)] * 3,
    ),
    (
        "per_run_message_ceiling/total/off",
        [
            ("edit", "src/a.rs"),
            ("finish", "off", "unverified"),
            ("run", "cargo check", "pass"),
            ("finish", "off", None),
            ("finish", "off", None),
        ],
    ),
    (
        "per_run_message_ceiling/total/advisory",
        [
            ("edit", "src/a.rs"),
            ("finish", "advisory", "unverified"),
            ("run", "cargo check", "pass"),
            ("finish", "advisory", "suite"),
            ("finish", "advisory", None),
        ],
    ),
    (
        "per_run_message_ceiling/total/blocking",
        [
            ("edit", "src/a.rs"),
            ("finish", "blocking", "unverified"),
            ("run", "cargo check", "pass"),
            ("finish", "blocking", "suite"),
            ("finish", "blocking", "suite"),
            ("finish", "blocking", None),
        ],
    ),
]

# run.rs should_nudge_fast_verify / build_fast_verify_reminder: the mid-run fast-check reminder.
# Tiers on only; fires when edits_since_verify >= 3; one per run (MAX_VERIFY_NUDGES = 1), its own
# budget, not part of the finalization ceiling. SEED: after three code edits with no check in
# between, a single reminder to run a fast check. Each ("mid_run", ...) is one turn boundary.
MID_RUN_ROWS = [
    (
        "mid_run_fires_at_three_edits_even_on_one_file (run.rs FAST_VERIFY_EDIT_THRESHOLD)",
        [
            ("edit", "src/a.rs"),
            ("mid_run", "advisory", False),
            ("edit", "src/a.rs"),
            ("mid_run", "advisory", False),
            ("edit", "src/a.rs"),
            ("mid_run", "advisory", True),
        ],
    ),
    (
        "mid_run_off_never (run.rs should_nudge_fast_verify: mode != Off)",
        [
            ("edit", "src/a.rs"),
            ("edit", "src/b.rs"),
            ("edit", "src/c.rs"),
            ("mid_run", "off", False),
        ],
    ),
    (
        "mid_run_once_per_run (run.rs MAX_VERIFY_NUDGES = 1)",
        [
            ("patch", ["src/a.rs", "src/b.rs", "src/c.rs"]),
            ("mid_run", "blocking", True),
            ("run", "cargo check", "pass"),
            ("patch", ["src/d.rs", "src/e.rs", "src/f.rs"]),
            ("mid_run", "blocking", False),
        ],
    ),
    (
        "mid_run_counter_reset_by_a_red_run (verifier.rs: any verification attempt resets)",
        [
            ("edit", "src/a.rs"),
            ("edit", "src/b.rs"),
            ("run", "cargo test", "fail"),
            ("edit", "src/c.rs"),
            ("mid_run", "advisory", False),
        ],
    ),
    (
        "mid_run_not_reset_by_a_masked_pass (verifier.rs masked_command_does_not_clear_edits_since_verify)",
        [
            ("edit", "src/a.rs"),
            ("edit", "src/b.rs"),
            ("run", "cargo test || true", "pass"),
            ("edit", "src/c.rs"),
            ("mid_run", "advisory", True),
        ],
    ),
    (
        "mid_run_doc_edits_do_not_count (verifier.rs code_paths_touched)",
        [
            ("edit", "README.md"),
            ("edit", "notes.md"),
            ("edit", "CHANGES.md"),
            ("mid_run", "advisory", False),
        ],
    ),
    (
        "mid_run_does_not_spend_the_finish_budget (run.rs verify_nudges vs verifier.rs fired)",
        [
            ("patch", ["src/a.rs", "src/b.rs", "src/c.rs"]),
            ("mid_run", "advisory", True),
            ("finish", "advisory", "unverified"),
        ],
    ),
]

# --- how a claimed finish ENDS the run (issue 24; the reference finalizes once its gate is silent,
#     and its recorded status stays what it is: it never reports a red or unverified run as passed)
#     (case, events, (stop_reason, the detail must not contain, must contain, the run's status))

END_ROWS = [
    (
        "ISSUE24: red run with the budget spent never ends done (streak_shell_edit shape)",
        [
            ("edit", "bill.py"),
            ("run", "pytest", "fail"),
            ("finish", "off", "red"),
            ("finish", "off", None),
        ],
        ("verify_failed", ["passed"], ["failed"], "verified_red"),
    ),
    (
        "ISSUE24: red run, advisory, budget spent",
        [
            ("edit", "bill.py"),
            ("run", "pytest", "fail"),
            ("finish", "advisory", "red"),
            ("finish", "advisory", None),
        ],
        ("verify_failed", ["passed"], ["failed"], "verified_red"),
    ),
    (
        "ISSUE24: never verified, budget spent",
        [("edit", "bill.py"), ("finish", "off", "unverified"), ("finish", "off", None)],
        ("verify_failed", ["passed"], ["no check"], "unverified"),
    ),
    # COURSE choice: the run ends done (the reference finalizes too), the detail does not claim a
    # pass, and the run's recorded verification status says only fast checks passed
    (
        "ISSUE24: fast-green-only after the escalation was ignored (advisory)",
        [
            ("edit", "bill.py"),
            ("run", "pytest -k split", "pass"),
            ("finish", "advisory", "suite"),
            ("finish", "advisory", None),
        ],
        ("done", ["verification passed"], [], "fast_green_only"),
    ),
    (
        "COURSE: a green that code edits came after, tiers off: the run ends as its status says",
        [
            ("edit", "bill.py"),
            ("run", "pytest", "pass"),
            ("edit", "bill.py"),
            ("finish", "off", "unverified"),
            ("finish", "off", None),
        ],
        ("verify_failed", ["passed"], ["code changed"], "unverified"),
    ),
    (
        "ISSUE24: green suite ends done and may say so",
        [("edit", "bill.py"), ("run", "pytest", "pass"), ("finish", "advisory", None)],
        ("done", ["failed"], [], "verified_green"),
    ),
]

# --- rung 2: the recovery checkpoint (always on in the reference; threshold 3). Outcomes: "error"
#     (weight 1), "timeout" (weight 2), "ok" (clears). ("poll", n) is a boundary: how many
#     checkpoints it sends. ("due", bool) is the abort's due (2 x threshold). ("says", text) must be
#     in the last checkpoint. (case, threshold, steps)

RECOVERY_ROWS = [
    ("below_threshold_is_silent", 3, ["error", "error", ("poll", 0)]),
    (
        "distinct_failures_trip_at_threshold",
        3,
        ["error", "error", "error", ("poll", 1), ("says", "3 tool calls in a row have failed")],
    ),
    (
        "two_timeouts_trip_a_threshold_three_tracker",
        3,
        ["timeout", ("poll", 0), "timeout", ("poll", 1), ("says", "2 tool calls in a row")],
    ),  # call count, not weight
    (
        "error_then_timeout_reaches_threshold_three",
        3,
        ["error", ("poll", 0), "timeout", ("poll", 1)],
    ),
    ("success_clears_the_streak", 3, ["error", "error", "ok", "error", ("poll", 0)]),
    (
        "nudges_once_per_streak_not_per_call",
        3,
        ["error", "error", "error", ("poll", 1), "error", ("poll", 0)],
    ),
    (
        "re_arms_after_another_threshold",
        3,
        [
            "error",
            "error",
            "error",
            ("poll", 1),
            "error",
            "error",
            "error",
            ("poll", 1),
            ("says", "6 tool calls in a row"),
        ],
    ),
    ("poll_is_idempotent_within_a_streak", 2, ["error", "error", ("poll", 1), ("poll", 0)]),
    (
        "re-arm is 'threshold since the last checkpoint', not 'crossing a multiple' (failure_tracker.rs poll)",
        3,
        [
            "error",
            "error",
            "timeout",
            ("poll", 1),
            "error",
            "error",
            ("poll", 0),
            "error",
            ("poll", 1),
        ],
    ),
    (
        "safe_state_due_false_below_double_threshold",
        3,
        ["error", "error", "error", ("due", False), "error", "error", ("due", False)],
    ),
    ("safe_state_due_true_at_double_threshold", 3, ["error"] * 6 + [("due", True)]),
    ("safe_state_due_true_at_double_threshold/timeouts", 3, ["timeout"] * 3 + [("due", True)]),
    ("safe_state_due_resets_on_success", 3, ["error"] * 6 + ["ok", ("due", False)]),
    ("only_last_five_failures_quoted (MAX_QUOTED = 5)", 3, ["error"] * 7 + [("poll", 1)]),
]
RECOVERY_MESSAGE_FACTS = {
    "tag": "[Recovery checkpoint]",  # the course uses "[recovery]": a stated naming choice
    "max_quoted": 5,
    "excerpt_cap": 160,  # condense(): one line, 160 chars then "…"
    "counts": "consecutive CALLS (truthful), weighting only decides when it fires",
    "asks_for": "name the root cause, then a DIFFERENT next step",
    "always_on": True,  # run.rs: FailureTracker::new(FAILURE_REFLECTION_THRESHOLD) always wired
}

# --- rung 3: when the abort fires (safe_state.rs SafeStateEngine::decide tests). Each boundary:
#     (mode, fresh_green, due, edits_since_verify, resolver_result, expected, resolver_called).
#     `fresh_green` stamps the green marker at that boundary; `expected` None (no message),
#     "advisory", or "restored:N". The restore's own rows live with the restore's tests.

SAFE_STATE_ROWS = [
    ("off_mode_is_a_no_op", [("off", True, True, 1, 5, None, False)]),
    (
        "advisory_fires_when_due_mutated_and_green_seen",
        [
            ("advisory", True, False, 0, None, None, False),
            ("advisory", False, True, 1, None, "advisory", False),
        ],
    ),
    ("declines_when_green_never_seen", [("advisory", False, True, 1, None, None, False)]),
    (
        "declines_when_no_unverified_edits",
        [
            ("advisory", True, False, 0, None, None, False),
            ("advisory", False, True, 0, None, None, False),
        ],
    ),
    (
        "bounded_at_max_two_aborts",
        [
            ("advisory", True, False, 0, None, None, False),
            ("advisory", False, True, 1, None, "advisory", False),
            ("advisory", False, False, 1, None, None, False),
            ("advisory", False, True, 1, None, "advisory", False),
            ("advisory", False, False, 1, None, None, False),
            ("advisory", False, True, 1, None, None, False),
        ],
    ),
    (
        "once_per_streak",
        [
            ("advisory", True, False, 0, None, None, False),
            ("advisory", False, True, 1, None, "advisory", False),
            ("advisory", False, True, 1, None, None, False),
            ("advisory", False, False, 1, None, None, False),
            ("advisory", False, True, 1, None, "advisory", False),
        ],
    ),
    (
        "green_marker_stamps_only_on_fresh_green (a red boundary keeps the earlier stamp)",
        [
            ("advisory", True, False, 0, None, None, False),
            ("advisory", False, True, 1, None, "advisory", False),
        ],
    ),
    (
        "advisory_never_invokes_the_restore_resolver",
        [
            ("advisory", True, False, 0, None, None, False),
            ("advisory", False, True, 1, 3, "advisory", False),
        ],
    ),
    (
        "auto_declines_to_advisory_when_coverage_is_incomplete",
        [
            ("auto", True, False, 0, None, None, False),
            ("auto", False, True, 1, None, "advisory", True),
        ],
    ),
    (
        "auto_restore_replaces_the_undo_instruction",
        [
            ("auto", True, False, 0, None, None, False),
            ("auto", False, True, 1, 3, "restored:3", True),
        ],
    ),
    (
        "resolver_is_not_invoked_when_gates_decline/no_green",
        [("auto", False, True, 1, 1, None, False)],
    ),
    (
        "resolver_is_not_invoked_when_gates_decline/no_edits",
        [("auto", True, False, 0, None, None, False), ("auto", False, True, 0, 1, None, False)],
    ),
    ("off_never_invokes_the_resolver", [("off", True, True, 9, 1, None, False)]),
]
# Columns of a SAFE_STATE_ROWS boundary:
SAFE_STATE_COLUMNS = (
    "mode",
    "fresh_green",
    "due",
    "edits_since_verify",
    "resolver_result",
    "expected",
    "resolver_called",
)
SAFE_STATE_MESSAGE_FACTS = {
    # safe_state.rs message_carries_reflections_excerpts_and_green_turn / message_asks_for_one_approach_not_a_menu
    "tag": "[safe-state]",
    "carries": [
        "the abandoned approaches (reflexion log)",
        "the streak's failure excerpts as 'tool: excerpt'",
    ],
    "never_contains": ["the internal green-turn id", "/rewind", "any restore command"],
    "advisory_closing_contains": "undoing the edits",  # your post-check changes only, not unrelated tree state
    "restored_closing_contains": "reverted {n} file(s)",  # and must NOT also say "Consider undoing"
    "both_closings_ask_for": "ONE new approach (not a menu)",
    "replaces_the_rung2_checkpoint_at_its_boundary": True,
    "max_aborts_per_run": 2,
    "due_at": "2 x the rung-2 threshold (3) = 6 weighted failures; timeouts weigh 2",
}

# Story-level consequences of the reference trigger (edits_since_verify > 0, any verification resets).
SAFE_STATE_STORY_ROWS = [
    (
        "course streak shape: green, bad edit, RED suite, 6 failures -> reference DECLINES (counter reset by the red run) (derived from seed 001 §Safe-state abort)",
        ["edit", "green", "edit", "red_verification", "streak6"],
        None,
    ),
    (
        "green, bad edit, 6 failures with no verification in between -> fires (derived from seed 001 §Safe-state abort)",
        ["edit", "green", "edit", "streak6"],
        "advisory",
    ),
    (
        "green, only a shell (sed) change, 6 failures -> reference DECLINES (no edit-tool code edit) (derived from seed 001 §Safe-state abort)",
        ["edit", "green", "shell_edit", "streak6"],
        None,
    ),
    (
        "green, a doc-only edit, 6 failures -> reference DECLINES (doc edits are not code edits) (derived from seed 001 §Safe-state abort)",
        ["edit", "green", "edit_doc", "streak6"],
        None,
    ),
    (
        "(derived from seed 001 §Safe-state abort) green, bad edit committed by the shell, 6 failures -> advisory FIRES (counter, not tree diff); "
        "auto: nothing differs from green-vs-now -> declines to advisory wording ('claiming a restore would be a lie')",
        ["edit", "green", "edit", "shell_commit", "streak6"],
        "advisory",
    ),
]

# --- the progress monitor (progress.rs tests). Snapshots are (open todos, files changed so far
#     (a count), latched green). Expected: one boolean per boundary, "a [stall] checkpoint".

PROGRESS_ROWS = [
    ("exploration_prologue_never_stalls", 3, [(0, 0, False)] * 20, [False] * 20),
    ("stall_fires_at_threshold_after_arming", 3, [(0, 1, False)] * 4, [False, False, False, True]),
    (
        "any_progress_event_resets_the_counter/new_file",
        3,
        [(0, 1, False), (0, 1, False), (0, 1, False), (0, 2, False), (0, 2, False), (0, 2, False)],
        [False] * 6,
    ),
    (
        "any_progress_event_resets_the_counter/went_green",
        3,
        [(0, 1, False), (0, 1, False), (0, 1, False), (0, 1, True), (0, 1, True), (0, 1, True)],
        [False] * 6,
    ),
    (
        "closing_a_todo_is_progress",
        2,
        [(3, 1, False), (3, 1, False), (2, 1, False), (2, 1, False)],
        [False] * 4,
    ),
    (
        "adding_todos_is_not_progress",
        2,
        [(1, 1, False), (5, 1, False), (9, 1, False)],
        [False, False, True],
    ),
    ("re_editing_one_file_is_not_progress", 3, [(0, 1, False)] * 4, [False, False, False, True]),
    (
        "green_suite_thrash_on_one_file_still_stalls",
        3,
        [(2, 1, True)] * 4,
        [False, False, False, True],
    ),
    ("staying_green_is_not_repeated_progress", 2, [(0, 1, True)] * 3, [False, False, True]),
    (
        "stall_is_bounded_and_re_arms",
        2,
        [(0, 1, False)] * 15,
        [False, False, True, False, True] + [False] * 10,
    ),
    ("threshold_is_clamped_to_two", 0, [(0, 1, False)] * 3, [False, False, True]),
]
# A boundary's green is the latched, untiered one (SEED "One subtlety..."): reading the tiered
# staleness would make every edit-then-test cycle a fresh edge and disable the monitor.
# NOTE for porting: the reference's verified_green is status(Off) == VerifiedGreen, which needs a CODE
# edit first (NoCodeEdited otherwise): a passing check before any code edit is not a progress event.

BUDGET_ROWS = [
    # (case, [(used, max_turns, expected_fires)])
    (
        "budget_marks_fire_once_each_in_order",
        [
            (50, 100, False),
            (60, 100, True),
            (70, 100, False),
            (84, 100, False),
            (85, 100, True),
            (99, 100, False),
        ],
    ),
    (
        "budget_marks_never_double_fire_in_one_poll",
        [(90, 100, True), (90, 100, True), (90, 100, False)],
    ),
    ("budget_silent_without_a_cap", [(1000, 0, False)]),
    (
        "budget 60% of 10 is turn 6 (derived: seed 001's 60% mark, compared in whole turns)",
        [(5, 10, False), (6, 10, True)],
    ),
]
BUDGET_MESSAGE_FACTS = {
    "tag": "[budget]",
    "states": ["'{used} of {max} turns'", "'{remaining} remain'"],
    "marks_percent": (60, 85),
    "requires_cap": True,
    "stall_and_budget_budgets_are_independent": True,
}

# --- residual objectives (residual.rs tests)

RESIDUAL_ROWS = [
    ("empty_board_is_none_so_the_notice_is_unchanged", [], None),
    (
        "lists_outstanding_count_and_titles",
        ["ship the residual handoff", "wire the digest reuse"],
        "Objectives still outstanding (2):\n- ship the residual handoff\n- wire the digest reuse",
    ),
    (
        "caps_titles_at_ten_with_more_count",
        [f"task {i}" for i in range(12)],
        "Objectives still outstanding (12):\n"
        + "\n".join(f"- task {i}" for i in range(10))
        + "\n+2 more",
    ),
    (
        "trims_title_whitespace",
        ["  padded title  "],
        "Objectives still outstanding (1):\n- padded title",
    ),
]
TRUNCATION_FACTS = {
    # run.rs max_turns_notice / max_turns_notice_keeps_truncation_prefix
    "prefix_first": "[dirge] Max agent turns",  # the course's TRUNCATION_PREFIX "[harness]": a stated naming choice
    "first_line": "{prefix} ({cap}) reached. Stopping the run.",
    "block_separator": "\n\n",  # the course uses a single "\n"
    "outstanding_only": True,  # no done/remaining split
}
