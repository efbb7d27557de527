"""Session 13's notebook banks the learner's own figures only from exercises that passed (issue 26).

The checkers themselves are tested through their banks (tests/banks/bank_s13.py, run by
tests/test_exercise_banks.py) and in tests/test_stall.py.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path

from cafe import course

NOTEBOOK = Path(__file__).resolve().parents[1] / "sessions" / "s13-stall-detection" / "notebook.py"

# The stubs' bodies, and right answers shaped unlike the course's to put in their place.
_SOLVED = {
    'raise NotImplementedError("your turn: fold one turn\'s results into the failure state")': (
        "from cafe.stall.failure_state import classify_turn\n"
        "    from dataclasses import replace\n"
        "    kind, deciding = classify_turn(dispatch)\n"
        "    epoch = state.write_epoch + sum(r.kind == 'mutate' and r.ok for r in dispatch)\n"
        "    if kind == 'fail':\n"
        "        sig = failure_signature(deciding)\n"
        "        again = (state.last_diagnostic_class, state.last_diagnostic_signature) == ('fail', sig)\n"
        "        owed = edited_after_last_check(dispatch)\n"
        "        streak = state.same_diagnostic_streak + 1 if again else 1\n"
        "        return FailureState('fail', sig, epoch, streak, owed, owed)\n"
        "    if kind == 'edit':\n"
        "        live = state.last_diagnostic_class == 'fail'\n"
        "        return replace(state, write_epoch=epoch,\n"
        "                       edit_since_failure=state.edit_since_failure or live,\n"
        "                       reverify_owed=state.reverify_owed or live)\n"
        "    if kind == 'pass':\n"
        "        return FailureState('pass', None, epoch)\n"
        "    return state"
    ),
    'raise NotImplementedError("your turn: normalise the output, then hash it")': (
        "return normalize_evidence(output)"
    ),
}


def test_notebook_with_the_exercises_solved_banks_the_learners_own_figures(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    source = NOTEBOOK.read_text(encoding="utf-8")
    for stub, body in _SOLVED.items():
        assert stub in source, f"the notebook's stub changed: {stub}"
        source = source.replace(stub, body)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(NOTEBOOK), "exec"), {"__name__": "__notebook__"})
    checkpoints = course.load_progress()["checkpoints"]["s13"]
    assert checkpoints["stall_trips"]["source"] == "scripted"
    assert checkpoints["stall_trips"]["value"] == {
        "thrash_trip_turn": 6,
        "blind_caught_thrash": False,
        "changing_error_false_alarms": 0,
        "productive_false_alarms": 0,
    }
    yours = checkpoints["your_fold_and_signature"]
    assert yours["source"] == "yours" and yours["model"] is None
    assert yours["value"] == {
        "fold_streak_3_on_turn": 5,
        "detector_trip_turn": 6,
        "failures_by_your_signature": 2,
        "failures_by_failure_signature": 2,
    }
    assert course.load_progress()["exercises"]["s13.fold"]["status"] == "passed"
