"""Session 14's banks: `check_overruled` and `check_reading` (cafe/exercises/s14.py).

The exercise ideas. `my_overruled`: the governor checks its cut reasons in a fixed order, so a
cut's own fact can hold and still lose the turn, to an earlier check or to the rest of its own
condition (before the checkpoint and for a finished run it decides nothing at all, and the first
reason after the checkpoint can never be overruled). `my_reading`: a host reading counts what the
tests verified: None when nothing ran, a number when they ran (red included, an edit before them
in the same turn included), higher for every test that passes.
"""

from __future__ import annotations

import re
from typing import Any

from banks.harness import Bank, Entry
from cafe.exercises.s14 import check_overruled, check_reading
from cafe.governor.pacing import passing_tests

# One run at its checkpoint: a 30 s budget armed, 90 s expected in all, progress so far.
RUN = {
    "armed_budget_ms": 30_000,
    "checkpoint_ms": 30_000,
    "expected_total_ms": 90_000,
    "elapsed_ms": 30_000,
    "made_progress": True,
}

# --- my_overruled: the reference, learner-shaped -----------------------------------------------


def my_overruled() -> dict[str, dict[str, Any]]:
    """Each cut's own fact holds; an earlier check, or the rest of its condition, decides."""
    return {
        "no_verifier_progress": {
            **RUN,
            "made_progress": False,
            "verifier_signature_unchanged": True,
        },
        "env_blame_without_infra": {
            **RUN,
            "verifier_signature_unchanged": True,
            "env_blame_without_infra": True,
        },
        "extend_budget_exhausted": {**RUN, "elapsed_ms": 120_000, "extends_used": 6},
        "pace_check_budget_exhausted": {**RUN, "pace_checks_used": 2},
    }


# --- my_overruled: wrong ----------------------------------------------------------------------


def each_cut_itself() -> dict[str, Any]:
    """The fact alone, with nothing earlier in the way: every budget cut wins its own turn."""
    return {
        **my_overruled(),
        "extend_budget_exhausted": {**RUN, "extends_used": 6},
        "pace_check_budget_exhausted": {**RUN, "elapsed_ms": 120_000, "pace_checks_used": 2},
    }


def no_progress_everywhere() -> dict[str, Any]:
    """One earlier check overrules all four: the same decision four times."""
    return {reason: {**obs, "made_progress": False} for reason, obs in my_overruled().items()}


def before_the_checkpoint() -> dict[str, Any]:
    """Before the checkpoint the governor decides nothing: it just proceeds."""
    return {reason: {**obs, "elapsed_ms": 10_000} for reason, obs in my_overruled().items()}


def done_runs() -> dict[str, Any]:
    """A finished run: the governor has nothing left to decide."""
    return {reason: {**obs, "done": True} for reason, obs in my_overruled().items()}


def one_short_of_the_cap() -> dict[str, Any]:
    """extends_used 5 of 6: the budget is not exhausted, so its fact does not hold."""
    return {
        **my_overruled(),
        "extend_budget_exhausted": {**RUN, "elapsed_ms": 120_000, "extends_used": 5},
    }


def with_the_first_reason() -> dict[str, Any]:
    """Includes the first check after the checkpoint, which nothing can overrule."""
    return {**my_overruled(), "no_progress_at_checkpoint": {**RUN, "made_progress": False}}


def three_of_four() -> dict[str, Any]:
    """Forgets one reason."""
    answer = my_overruled()
    del answer["env_blame_without_infra"]
    return answer


def misspelt_key() -> dict[str, Any]:
    """A field the governor does not know: it refuses the observation."""
    return {
        **my_overruled(),
        "no_verifier_progress": {**RUN, "made_progress": False, "verifier_unchanged": True},
    }


def a_list_of_pairs() -> list[tuple[str, dict[str, Any]]]:
    """The right observations, handed back as a list of pairs instead of a dict."""
    return list(my_overruled().items())


# --- my_overruled: right ----------------------------------------------------------------------


def right_budgets_cross() -> dict[str, Any]:
    """Each budget cut overruled by the other budget's cut."""
    return {
        **my_overruled(),
        "extend_budget_exhausted": {
            **RUN,
            "elapsed_ms": 120_000,
            "extends_used": 6,
            "pace_checks_used": 2,
        },
        "pace_check_budget_exhausted": {**RUN, "pace_checks_used": 2, "extends_used": 6},
    }


def right_other_run() -> dict[str, Any]:
    """Another run (a later checkpoint, other numbers), the same reasoning."""
    run = {
        "armed_budget_ms": 60_000,
        "checkpoint_ms": 45_000,
        "expected_total_ms": 100_000,
        "elapsed_ms": 50_000,
        "made_progress": True,
    }
    return {
        "no_verifier_progress": {
            **run,
            "made_progress": False,
            "verifier_signature_unchanged": True,
        },
        "env_blame_without_infra": {
            **run,
            "verifier_signature_unchanged": True,
            "env_blame_without_infra": True,
        },
        "extend_budget_exhausted": {
            **run,
            "elapsed_ms": 200_000,
            "extends_used": 9,
            "pace_checks_used": 1,
        },
        "pace_check_budget_exhausted": {**run, "pace_checks_used": 5, "extends_used": 2},
    }


# --- my_reading: wrong ------------------------------------------------------------------------

_PASSED = re.compile(r"(\d+) passed")


def _checks(view: Any) -> list[Any]:
    return [result for result in view.dispatch if result.kind == "verify"]


def green_or_not(view: Any) -> float | None:
    """1 for a green run, 0.5 for a red one with passes, 0 for none: counts nothing."""
    checks = _checks(view)
    if not checks:
        return None
    if any(r.ok for r in checks):
        return 1.0
    return 0.5 if any(_PASSED.search(r.output) for r in checks) else 0.0


def first_result_only(view: Any) -> float | None:
    """Reads dispatch[0] only, so an edit in front of the tests hides them."""
    if not view.dispatch or view.dispatch[0].kind != "verify":
        return None
    found = _PASSED.search(view.dispatch[0].output)
    return float(found.group(1)) if found else 0.0


def zero_for_nothing(view: Any) -> float:
    """0 when nothing was verified, as if a quiet turn had run every test red."""
    found = [_PASSED.search(r.output) for r in _checks(view)]
    return float(found[0].group(1)) if found and found[0] else 0.0


def ok_only(view: Any) -> float | None:
    """Whether the run was green, as the reading: 3 of 4 reads like none."""
    checks = _checks(view)
    return None if not checks else float(any(r.ok for r in checks))


def minus_failures(view: Any) -> float | None:
    """Minus the failures: a suite that did not load reads 0, above 1 of 4 passing."""
    checks = _checks(view)
    if not checks:
        return None
    failed = [int(m.group(1)) for r in checks for m in [re.search(r"(\d+) failed", r.output)] if m]
    return -float(sum(failed))


def previous_turn(view: Any) -> float | None:
    """Reads the turn before (prev_dispatch), not this one."""
    checks = [r for r in view.prev_dispatch if r.kind == "verify"]
    found = _PASSED.search(checks[-1].output) if checks else None
    return None if not checks else float(found.group(1)) if found else 0.0


def passed_as_text(view: Any) -> str | None:
    """The count, as the text pytest printed ("3 passed")."""
    checks = _checks(view)
    if not checks:
        return None
    found = _PASSED.search(checks[-1].output)
    return found.group(0) if found else "0 passed"


def none_when_red(view: Any) -> float | None:
    """None for a red run, as if failing tests had verified nothing."""
    checks = _checks(view)
    if not checks or not any(r.ok for r in checks):
        return None
    return right_count_plus_green(view)


def last_count_in_summary(view: Any) -> float | None:
    """The summary's last count, taken to be the passes: '3 passed, 2 warnings' reads 2."""
    checks = _checks(view)
    if not checks:
        return None
    summary = checks[-1].output.strip("= \n").splitlines()[-1].strip("= ")
    counts = re.findall(r"(\d+) \w+", summary)
    return float(counts[-1]) if counts and "passed" in summary else 0.0


def one_digit(view: Any) -> float | None:
    """Reads one digit before 'passed': 12 passing reads 2."""
    checks = _checks(view)
    if not checks:
        return None
    found = re.search(r"(\d) passed", checks[-1].output)
    return float(found.group(1)) if found else 0.0


# --- my_reading: right ------------------------------------------------------------------------


def right_fraction(view: Any) -> float | None:
    """The share passing, best of the turn's runs."""
    best = None
    for result in _checks(view):
        passed = int(m.group(1)) if (m := re.search(r"(\d+) passed", result.output)) else 0
        failed = sum(int(n) for n in re.findall(r"(\d+) (?:failed|errors?)", result.output))
        score = passed / (passed + failed) if passed + failed else 0.0
        best = score if best is None else max(best, score)
    return best


def right_summary_words(view: Any) -> float | None:
    """Every 'N word' of the last run's output in a dict; passes, plus one for a green run."""
    checks = _checks(view)
    if not checks:
        return None
    counts = {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", checks[-1].output)}
    return counts.get("passed", 0) + (1 if checks[-1].ok else 0)


def right_count_plus_green(view: Any) -> float | None:
    """The count passing, with half a point more for a green run."""
    checks = _checks(view)
    if not checks:
        return None
    counts = [int(m.group(1)) if (m := _PASSED.search(r.output)) else 0 for r in checks]
    return max(counts) + (0.5 if any(r.ok for r in checks) else 0.0)


# --- held-out reader, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def sums_every_run(view: Any) -> float | None:
    """Adds up the passes of every run in the turn: the same suite run twice at 3 of 4 reads 6,
    above a later turn where all 4 pass."""
    checks = _checks(view)
    found = [_PASSED.search(r.output) for r in checks]
    return float(sum(int(m.group(1)) for m in found if m)) if checks else None


def skips_forced(view: Any) -> float | None:
    """Leaves out the results a hook ran itself (forced): a turn whose only check was forced
    reads None, though its tests ran."""
    checks = [r for r in _checks(view) if not r.forced]
    found = _PASSED.search(checks[-1].output) if checks else None
    return None if not checks else float(found.group(1)) if found else 0.0


def reading_imported_inside(view: Any) -> float | None:
    """The course's passing_tests, imported inside the function body."""
    from cafe.governor.pacing import passing_tests as course_reading

    return course_reading(view)


def right_last_run(view: Any) -> float | None:
    """The last verify result's count passing; 0 when none passed."""
    checks = _checks(view)
    found = re.findall(r"(\d+) passed", checks[-1].output) if checks else []
    return None if not checks else float(found[-1]) if found else 0.0


def right_best_counts(view: Any) -> float | None:
    """The best of the turn's runs, each summary read into a dict of counts."""
    best = None
    for result in _checks(view):
        counts = {word: int(n) for n, word in re.findall(r"(\d+) (passed|failed)", result.output)}
        best = max(best or 0, counts.get("passed", 0))
    return None if best is None else float(best)


# --- held-out readerF, 7 Dec 2026: written from the lesson alone, without the checkers -----------
# The reader filed both as wrong, "arguable"; decided right (docs/notes/checker-mutation.md, 7 Dec
# 2026 morning, reader F): the notebook's cell says "Any scale works (a count, a fraction, a score
# you design)", and a host reading is the host's own: the till's one verify tool is run_tests
# (a forced re-check runs under that name too), which the lesson calls passing_tests' tool.


def right_last_fraction(view: Any) -> float | None:
    """The share of the last run's tests that passed; 0 when a check ran and none passed."""
    checks = _checks(view)
    if not checks:
        return None
    passed, failed = (
        int(m.group(1)) if (m := re.search(rf"(\d+) {word}", checks[-1].output)) else 0
        for word in ("passed", "failed")
    )
    return passed / (passed + failed) if passed + failed else 0.0


def right_by_tool_name(view: Any) -> float | None:
    """The till's own tool by name: the last run_tests result's count passing."""
    checks = [r for r in view.dispatch if r.name == "run_tests"]
    found = _PASSED.findall(checks[-1].output) if checks else []
    return None if not checks else float(found[-1]) if found else 0.0


# --- held-out readerI, 7 Dec 2026 (afternoon): written from the lesson alone ----------------------
# Both filed "arguable" by the reader; decided (docs/notes/checker-mutation.md, 7 Dec 2026
# afternoon, reader I). The cell asks for "a number that rises as the till gets greener": the
# till a turn leaves is what its last run measured, so a reading of the first run alone is
# wrong (an edit and a green re-test leave it where it was); and "Any scale works (a count, a
# fraction, ...)", so the last run's share passing is right, errors counted with the failures.


def first_verify_run_only(view: Any) -> float | None:
    """The count passing in the turn's first test run, before the edit's re-test."""
    checks = _checks(view)
    found = _PASSED.search(checks[0].output) if checks else None
    return None if not checks else float(found.group(1)) if found else 0.0


def right_fraction_with_errors(view: Any) -> float | None:
    """The last run's passes over its passes, failures and errors; 0 when none of them."""
    checks = _checks(view)
    if not checks:
        return None
    passed, failed, errors = (
        int(m.group(1)) if (m := re.search(rf"(\d+) {word}", checks[-1].output)) else 0
        for word in ("passed", "failed", "error")
    )
    ran = passed + failed + errors
    return passed / ran if ran else 0.0


# The reader's rd_r_score, left open that afternoon, decided right (docs/notes/checker-mutation.md,
# 7 Dec 2026 evening): on a turn whose later run is redder it reads the earlier, greener run, as
# the lesson's host does ("the best verify-state it has"); the notebook asks only for a number
# that rises as the till gets greener, which the last run's count gives as well, so the checker
# never compares such turns. It does ask that they read a number.


def right_best_run_of_the_turn(view: Any) -> float | None:
    """The most tests passing in any of the turn's runs: a redder re-test does not lower it."""
    counts = [int(m.group(1)) if (m := _PASSED.search(r.output)) else 0 for r in _checks(view)]
    return float(max(counts)) if counts else None


def none_when_it_fell(view: Any) -> float | None:
    """Wrong: None when the turn's last run passed fewer than its best, as if a turn that left
    the till redder than it had been verified nothing."""
    counts = [int(m.group(1)) if (m := _PASSED.search(r.output)) else 0 for r in _checks(view)]
    return None if not counts or counts[-1] < max(counts) else float(counts[-1])


# --- held-out reader M, 7 Dec 2026 (evening), and more of the same kind ------------------------
# The lesson: "A verifier is the only honest witness of progress", and "an honest host never
# invents a reading". What a read file says passed (notes, an old log) is no run of this turn.


def any_output_says_passed(view: Any) -> float | None:
    """Every result's output searched for 'N passed', whatever the call: a read of notes that
    say '14 passed' reads 14 on a turn that verified nothing (reader M's wrong_08)."""
    found = [int(m) for r in view.dispatch for m in re.findall(r"(\d+) passed", r.output)]
    if not found:
        return None if not any(r.kind == "verify" for r in view.dispatch) else 0
    return max(found)


def last_output_like_a_summary(view: Any) -> float | None:
    """A turn verified when some output reads like pytest's summary ('N passed', 'N failed',
    'N error'), whatever the call; the last such output read: a log read after the run speaks
    for it."""
    summary = re.compile(r"\d+ (passed|failed|errors?)\b")
    summaries = [r.output for r in view.dispatch if summary.search(r.output)]
    found = _PASSED.search(summaries[-1]) if summaries else None
    return None if not summaries else float(found.group(1)) if found else 0.0


def last_call_only(view: Any) -> float | None:
    """Only the turn's last call is asked whether it verified: a read after the tests hides
    them."""
    last = view.dispatch[-1] if view.dispatch else None
    if last is None or last.kind != "verify":
        return None
    found = _PASSED.search(last.output)
    return float(found.group(1)) if found else 0.0


# --- the banks --------------------------------------------------------------------------------

BANKS = (
    Bank(
        "s14",
        check_overruled,
        my_overruled,
        wrong=(
            Entry(
                "each_cut_itself",
                each_cut_itself,
                "a fact that holds with nothing earlier in the way wins its own turn",
                "extends_used 6 at the checkpoint: cut extend_budget_exhausted",
            ),
            Entry(
                "no_progress_everywhere",
                no_progress_everywhere,
                "four different decisions, not one earlier check four times",
                "made_progress False in all four: cut no_progress_at_checkpoint four times",
            ),
            Entry(
                "before_the_checkpoint",
                before_the_checkpoint,
                "before the checkpoint the governor decides nothing",
                "elapsed 10 s of a 30 s checkpoint: proceed",
            ),
            Entry(
                "done_runs",
                done_runs,
                "a finished run has nothing left to decide",
                "done True: proceed",
            ),
            Entry(
                "one_short_of_the_cap",
                one_short_of_the_cap,
                "the cut's own fact must hold",
                "extends_used 5 of 6",
            ),
            Entry(
                "with_the_first_reason",
                with_the_first_reason,
                "the first check after the checkpoint cannot be overruled",
                "no_progress_at_checkpoint included",
            ),
            Entry(
                "three_of_four",
                three_of_four,
                "one observation for each of the four reasons",
                "env_blame_without_infra missing",
            ),
            Entry(
                "misspelt_key",
                misspelt_key,
                "an observation the governor can read",
                "verifier_unchanged: refused",
            ),
            Entry(
                "a_list_of_pairs",
                a_list_of_pairs,
                "a dict of cut reason -> observation",
                "a list of pairs",
            ),
        ),
        right=(
            Entry("right_budgets_cross", right_budgets_cross, "each budget overruled by the other"),
            Entry("right_other_run", right_other_run, "another run's numbers, the same reasoning"),
        ),
    ),
    Bank(
        "s14",
        check_reading,
        right_fraction,
        wrong=(
            # held-out reader, 7 Dec 2026
            Entry(
                "sums_every_run",
                sums_every_run,
                "the reading is the number passing, not a sum over the turn's runs",
                "3 of 4 passing run twice reads 6, above 4 of 4 run once",
            ),
            Entry(
                "skips_forced",
                skips_forced,
                "a check a hook ran itself verified too",
                "a turn whose only run was forced, 4 of 4 passing: None",
            ),
            Entry(
                "reading_imported_inside",
                reading_imported_inside,
                "a reading of your own",
                "passing_tests imported inside the body",
            ),
            Entry(
                "course_passing_tests",
                passing_tests,
                "write your own: the course's passing_tests is refused",
                "itself",
            ),
            Entry(
                "last_count_in_summary",
                last_count_in_summary,
                "the passes are the count before 'passed', whatever else the summary holds",
                "'1 failed, 3 passed, 2 warnings' and '3 failed, 1 passed, 2 warnings' both read 2",
            ),
            Entry(
                "one_digit",
                one_digit,
                "a suite may have more than nine tests",
                "9 of 12 passing reads 9, 10 of 12 reads 0",
            ),
            Entry(
                "green_or_not",
                green_or_not,
                "a reading counts the tests that pass",
                "1 of 4 and 3 of 4 both read 0.5",
            ),
            Entry(
                "first_result_only",
                first_result_only,
                "every verification of the turn counts, an edit before it too",
                "an edit, then 3 of 4 passing: None",
            ),
            Entry(
                "zero_for_nothing",
                zero_for_nothing,
                "nothing verified reads None",
                "a turn that only read a file: 0.0",
            ),
            Entry(
                "ok_only",
                ok_only,
                "a reading counts the tests that pass",
                "3 of 4 reads 0.0, like none",
            ),
            Entry(
                "minus_failures",
                minus_failures,
                "more passing tests read higher",
                "a suite that did not load reads 0, above 1 of 4 (-3)",
            ),
            Entry(
                "previous_turn",
                previous_turn,
                "the reading is of this turn",
                "every view: None",
            ),
            Entry(
                "passed_as_text",
                passed_as_text,
                "a reading is a number",
                "'4 passed'",
            ),
            Entry(
                "none_when_red",
                none_when_red,
                "red tests verified something: a number, not None",
                "0 of 4 passed: None",
            ),
            Entry(
                "none_when_it_fell",
                none_when_it_fell,
                "a turn whose tests ran verified something, even when they got redder: a number",
                "4 of 4, then 1 of 4 after an edit: None",
            ),
            # held-out reader M, 7 Dec 2026 (evening), and more of the same kind
            Entry(
                "any_output_says_passed",
                any_output_says_passed,
                "only the turn's test runs verify: a file that says tests passed is no run",
                "a turn that only read notes saying '14 passed': 14",
            ),
            Entry(
                "last_output_like_a_summary",
                last_output_like_a_summary,
                "only the turn's test runs verify: a file that quotes a run is no run",
                "a turn that only read notes saying '14 passed': 14.0",
            ),
            Entry(
                "last_call_only",
                last_call_only,
                "a turn whose tests ran verified something, whatever it did after them",
                "tests with 1 of 1 passing, then a read of bill.py: None",
            ),
            # held-out readerI, 7 Dec 2026 (afternoon) (filed arguable; decided wrong, see above)
            Entry(
                "first_verify_run_only",
                first_verify_run_only,
                "the till a turn leaves is what its last run measured",
                "1 of 4, then all 4 after an edit: 1.0",
            ),
        ),
        right=(
            # held-out readerI, 7 Dec 2026 (afternoon): left open, decided right in the evening
            Entry(
                "right_best_run_of_the_turn",
                right_best_run_of_the_turn,
                "the best run of the turn, as the lesson's host reads it: a redder re-test keeps it",
            ),
            # held-out readerI, 7 Dec 2026 (afternoon) (filed arguable; decided right, see above)
            Entry(
                "right_fraction_with_errors",
                right_fraction_with_errors,
                "the last run's share passing, errors among the failures",
            ),
            # held-out readerF, 7 Dec 2026 (filed wrong by the reader; decided right, see above)
            Entry("right_last_fraction", right_last_fraction, "the last run's share passing"),
            Entry("right_by_tool_name", right_by_tool_name, "the till's run_tests by its name"),
            # held-out reader, 7 Dec 2026
            Entry("right_last_run", right_last_run, "the last run's count"),
            Entry("right_best_counts", right_best_counts, "the best run, its summary as a dict"),
            Entry("right_summary_words", right_summary_words, "a dict of the output's counts"),
            Entry(
                "right_count_plus_green",
                right_count_plus_green,
                "the count, half a point for green",
            ),
        ),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}.
_ALSO_HOLDS = (
    "equivalent: another number on the same side of the same threshold; the fact still holds "
    "and the same earlier check still takes the turn, so the answer is as right as before"
)
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_reading": {
        "right_fraction:7: binop: `passed / (passed + failed)` -> `passed * (passed + failed)`": (
            "open: any scale that rises with the passes of one suite is a reading (the lesson: "
            "a count, a fraction, a score you design); this one still does"
        ),
        "right_fraction:7: constant: `0.0` -> `1.0`": (
            "outside: a run whose output holds no count at all; every case and generated turn "
            "prints one, and the lesson states no reading for it"
        ),
    },
    "check_overruled": {
        "my_overruled:14: constant: `120000` -> `120001`": _ALSO_HOLDS,
        "my_overruled:14: constant: `6` -> `7`": _ALSO_HOLDS,
        "my_overruled:15: constant: `2` -> `3`": _ALSO_HOLDS,
    },
}
