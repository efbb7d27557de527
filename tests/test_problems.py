"""The one table of endpoint problems: every declared kind has words, and both readers use them."""

from __future__ import annotations

import io
from typing import get_args

import pytest

from cafe.endpoint.client.chat import WAIT_NOTICE_S, classify_error, within_deadline
from cafe.endpoint.client.problems import (
    PROBLEM_KINDS,
    PROBLEM_WORDS,
    EndpointProblem,
    ProblemKind,
    describe,
)
from cafe.endpoint.errors import EndpointError, RequestRejected


def test_problem_words_keys_equal_the_declared_kinds():
    assert set(PROBLEM_WORDS) == PROBLEM_KINDS == set(get_args(ProblemKind))


def test_problem_words_is_read_only():
    with pytest.raises(TypeError):
        PROBLEM_WORDS["timeout"] = ("x", "y")  # type: ignore[index]


@pytest.mark.parametrize("kind", sorted(PROBLEM_KINDS))
def test_describe_words_every_kind_with_the_url_and_a_fix(kind):
    what, fix = describe(
        EndpointProblem(kind, status=500, said="boom"), url="http://h/v1", key=None, seconds=3
    )
    assert "http://h/v1" in what and "{" not in what and fix


def test_endpoint_problem_rejects_an_unknown_kind():
    with pytest.raises(ValueError, match="not one of"):
        EndpointProblem("gremlins")  # type: ignore[arg-type]


def test_endpoint_error_keeps_its_kind():
    assert EndpointError("x", kind="timeout").kind == "timeout"
    assert RequestRejected("x").kind == "rejected"


def test_classify_error_masks_a_key_that_straddles_the_clip():
    key = "sk-test-SECRET-1234567890abcdef"
    said = "x" * 290 + " " + key + " and more words after it"
    import httpx
    import openai

    request = httpx.Request("POST", "http://h/v1/chat/completions")
    response = httpx.Response(500, request=request, json={"error": {"message": said}})
    exc = openai.InternalServerError(said, response=response, body={"message": said})
    shown = classify_error(exc, key).said
    assert key[:8] not in shown and "…cdef" in shown


def test_within_deadline_says_once_that_it_is_waiting_and_for_how_long():
    import time

    notice = io.StringIO()
    with pytest.raises(TimeoutError):
        within_deadline(
            lambda: time.sleep(WAIT_NOTICE_S + 2),
            WAIT_NOTICE_S + 0.3,
            waiting_for="the endpoint",
            notice=notice,
        )
    assert notice.getvalue().count("waiting for the endpoint") == 1
    assert f"{WAIT_NOTICE_S + 0.3:g} s" in notice.getvalue()


def test_within_deadline_says_it_waits_at_most_once_a_minute_on_one_stream():
    import time

    from cafe.endpoint.client.deadline import NOTICE_EVERY_S

    first, second = io.StringIO(), io.StringIO()
    for stream in (first, first, second):
        within_deadline(
            lambda: time.sleep(WAIT_NOTICE_S + 0.2),
            WAIT_NOTICE_S + 2,
            waiting_for="x",
            notice=stream,
        )
    assert first.getvalue().count("waiting for x") == 1  # the second slow call stayed quiet
    assert second.getvalue().count("waiting for x") == 1  # a fresh stream hears it
    assert NOTICE_EVERY_S >= 30


def test_within_deadline_passes_on_the_value_and_the_error():
    assert within_deadline(lambda: 42, 1, waiting_for="x") == 42
    with pytest.raises(KeyError):
        within_deadline(lambda: {}["missing"], 1, waiting_for="x")
