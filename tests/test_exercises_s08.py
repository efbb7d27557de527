"""cafe.exercises.s08: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

from __future__ import annotations

from cafe import course
from cafe.endpoint.client import make_client
from cafe.endpoint.scripted import ScriptedClient
from cafe.exercises.s08 import MASK_PLAIN, MASK_SECRETS, check_mask, check_replay_client
from cafe.stories.feedback_model import FeedbackModel
from cafe.trace.replay import recorded_reply, replay_client, request_difference
from cafe.trace.spans import scrub


def _stub(*args):
    raise NotImplementedError("your turn")


# --- the replay client ------------------------------------------------------------------------


def _learner_replay_client(trace):
    """What the notebook's hints lead to: a responder that checks, then answers, call by call."""
    calls, answered = list(trace.model_calls), []

    def responder(request):
        if len(answered) == len(calls):
            raise RuntimeError("the recording has no call left")
        span = calls[len(answered)]
        if request_difference(span, request) is not None:
            raise RuntimeError(f"call {len(answered) + 1} is not the recorded one")
        answered.append(span)
        return recorded_reply(span)

    return ScriptedClient(responder)


def test_check_replay_client_reference_passes_compare():
    assert check_replay_client(replay_client) == []
    assert course.compare(replay_client, check=check_replay_client).status == "passed"


def test_check_replay_client_the_hinted_solution_passes():
    assert check_replay_client(_learner_replay_client) == []


def test_check_replay_client_stub_is_not_attempted():
    assert course.compare(_stub, check=check_replay_client).status == "not_attempted"


def test_check_replay_client_replies_without_checking_the_request_is_told_to_stop():
    blind = lambda trace: ScriptedClient([recorded_reply(span) for span in trace.model_calls])  # noqa: E731
    (problem,) = check_replay_client(blind)
    assert "must stop at the first call that differs" in problem


def test_check_replay_client_a_fresh_model_instead_of_the_recording_is_caught():
    problems = check_replay_client(lambda trace: make_client(FeedbackModel()))
    assert any("the recording passed" in p or "content hash" in p for p in problems)


def test_check_replay_client_first_reply_over_and_over_names_the_ending_or_hash():
    repeat = lambda trace: ScriptedClient([recorded_reply(trace.model_calls[0])] * 9)  # noqa: E731
    problems = check_replay_client(repeat)
    assert (
        "table 3's recorded run: the replay ended retries_exhausted, the recording passed"
        in problems
    )


def test_check_replay_client_not_a_client_says_what_to_return():
    (problem, *_) = check_replay_client(lambda trace: None)
    assert "return a client" in problem


# --- the mask ---------------------------------------------------------------------------------


def test_check_mask_reference_passes_and_stub_is_not_attempted():
    assert check_mask(scrub) == []
    assert course.compare(_stub, check=check_mask).status == "not_attempted"


def test_check_mask_identity_leaves_every_secret():
    problems = check_mask(lambda text: text)
    assert len(problems) == len(MASK_SECRETS) and all(p.startswith("left ") for p in problems)


def test_check_mask_blanking_everything_changes_ordinary_text():
    problems = check_mask(lambda text: "[redacted]")
    assert sum(p.startswith("changed ordinary text") for p in problems) == len(MASK_PLAIN)
    assert sum(p.startswith("masked more than the secret") for p in problems) == len(MASK_SECRETS)


def test_check_mask_only_sk_keys_misses_the_other_shapes_and_bites_ordinary_words():
    import re

    sk_only = lambda text: re.sub(r"sk-[\w-]+", "[redacted]", text)  # noqa: E731
    problems = check_mask(sk_only)
    assert (
        sum(p.startswith("left ") for p in problems) == len(MASK_SECRETS) - 1
        and "Bearer" in problems[0]
    )
    assert any(
        "ask-me-anything" in p for p in problems
    )  # "ask-me" is not a key: a word boundary matters


def test_check_mask_returning_not_text_says_so():
    assert check_mask(lambda text: None) == ["my_mask returned NoneType; return the text, masked"]
