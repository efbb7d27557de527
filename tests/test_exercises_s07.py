"""cafe.exercises.s07: the checker passes the reference, says "not attempted" for the stub, fails vague views."""

import pytest

from cafe import course
from cafe.exercises.s07 import check_attempt_failure_view
from cafe.repair import attempt_failure_view


# --- the checker -----------------------------------------------------------------------------------


def _stub(failures, attempt):
    raise NotImplementedError("write your failure view here")


def test_check_attempt_failure_view_reference_passes_compare():
    assert check_attempt_failure_view(attempt_failure_view) == []
    assert course.compare(attempt_failure_view, check=check_attempt_failure_view).status == "passed"


def test_check_attempt_failure_view_stub_is_not_attempted():
    assert course.compare(_stub, check=check_attempt_failure_view).status == "not_attempted"


@pytest.mark.parametrize("attempt", [
    lambda failures, attempt: "Something went wrong, please try again.",
    lambda failures, attempt: "\n".join(f.check for f in failures),
    lambda failures, attempt: f"Attempt {attempt}\n" + "\n".join(f"{f.check} {f.span}" for f in failures),
    lambda failures, attempt: None,
    lambda failures, attempt: 1 / 0,
])
def test_check_attempt_failure_view_vague_views_fail(attempt):
    assert check_attempt_failure_view(attempt)
    assert course.compare(attempt, check=check_attempt_failure_view).status == "failed"


# --- the notebook's your-turn cell ---------------------------------------------------------------


def test_notebook_stub_is_not_attempted_and_the_reference_passes(tmp_path, monkeypatch):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))  # the notebook banks a checkpoint
    namespace = run_notebook_source("s07-repair-loop")
    stub = course.compare(namespace["attempt_failure_view"], check=check_attempt_failure_view)
    reference = course.compare(attempt_failure_view, check=check_attempt_failure_view)
    assert stub.status == "not_attempted"
    assert reference.status == "passed"
    assert namespace["distribution"] == {"1": 1, "2": 1, "3": 0, "exhausted": 1, "blocked": 0}
