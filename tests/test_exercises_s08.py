"""cafe.exercises.s08: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

from __future__ import annotations

import re

import pytest

from cafe import course
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.exercises.feedback import library_answer
from cafe.exercises.reference_s08 import MASK_PLAIN, MASK_SECRETS, masked
from cafe.exercises.s08 import (
    check_mask,
    check_replay_client,
    reference_replay,
)
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
    assert check_replay_client(reference_replay) == []
    assert course.compare(reference_replay, check=check_replay_client).status == "passed"


def test_check_replay_client_refuses_the_course_s_replay_client():
    assert check_replay_client(replay_client) == [library_answer("replay_client")]


def test_check_replay_client_a_replay_blind_to_the_output_format_is_stopped():
    def format_blind(trace):  # compares the model and the messages, not the response_format
        left = list(trace.model_calls)

        def answer(request):
            span = left.pop(0)
            asked = {k: v for k, v in request.items() if k != "response_format"}
            recorded_format = span.get("gen_ai.output.type")
            difference = request_difference(span, asked)
            if difference is not None and recorded_format is None:
                raise LookupError("differs")
            if difference is not None and "output" not in str(difference):
                raise LookupError("differs")
            return recorded_reply(span)

        return ScriptedClient(answer)

    problems = check_replay_client(format_blind)
    assert any("another output format" in problem for problem in problems), problems


def test_check_replay_client_the_hinted_solution_passes():
    assert check_replay_client(_learner_replay_client) == []


def test_check_replay_client_stub_is_not_attempted():
    assert course.compare(_stub, check=check_replay_client).status == "not_attempted"


def test_check_replay_client_replies_without_checking_the_request_is_told_to_stop():
    blind = lambda trace: ScriptedClient([recorded_reply(span) for span in trace.model_calls])  # noqa: E731
    problems = check_replay_client(blind)
    assert problems[0].startswith(
        "table 3's run replayed with naive retries: the replay answered 2"
    )
    assert "expected a stop after answering 1 call(s)" in problems[0]
    assert any("croissant 86'd" in p for p in problems)  # the system prompt changed
    assert any("another model" in p for p in problems)


def test_check_replay_client_answering_past_the_end_is_caught():
    def past_the_end(trace):
        calls, answered = list(trace.model_calls), []

        def responder(request):
            span = calls[min(len(answered), len(calls) - 1)]
            if len(answered) < len(calls) and request_difference(span, request) is not None:
                raise RuntimeError("differs")
            answered.append(span)
            return recorded_reply(span)

        return ScriptedClient(responder)

    (problem,) = check_replay_client(past_the_end)
    assert problem.startswith("a one-call recording of table 3, replayed with 3 attempts")


def test_check_replay_client_a_fresh_model_instead_of_the_recording_is_caught():
    problems = check_replay_client(lambda trace: make_client(FeedbackModel()))
    assert any("content hash" in p for p in problems)


def test_check_replay_client_first_reply_over_and_over_names_the_ending_or_hash():
    repeat = lambda trace: ScriptedClient([recorded_reply(trace.model_calls[0])] * 9)  # noqa: E731
    problems = check_replay_client(repeat)
    assert problems[0].startswith(
        "table 3's recorded run, replayed unchanged: the replay ended retries_exhausted, "
        "expected it ends passed"
    )


def test_check_replay_client_not_a_client_says_what_to_return():
    (problem,) = check_replay_client(lambda trace: None)
    assert "returned None; return a client" in problem


# --- the mask ---------------------------------------------------------------------------------


def test_check_mask_reference_passes_and_stub_is_not_attempted():
    assert check_mask(masked) == []
    assert course.compare(_stub, check=check_mask).status == "not_attempted"


def test_check_mask_refuses_the_course_s_scrub():
    assert check_mask(scrub) == [library_answer("scrub")]


def test_check_mask_shows_a_shrunk_generated_secret_the_cases_never_try():
    import re

    def title_case_labels_missed(text):  # 'password' and 'PASSWORD' yes; 'Password' no
        text = re.sub(r"\bsk-[\w-]{8,}|\bAKIA[0-9A-Z]{16}\b|(?<=Bearer )\S{8,}", "[m]", text)
        labels = r"(api[_-]?key|API[_-]?KEY|token|TOKEN|password|PASSWORD|secret|Secret|SECRET)"
        return re.sub(rf"\b{labels}(\s*[:=]\s*)[^\s,;]+", r"\1\2[m]", text)

    problems = check_mask(title_case_labels_missed)
    assert len(problems) == 1 and problems[0].startswith("on '"), problems
    assert "mask every credential" in problems[0]


def test_check_mask_identity_leaves_every_secret():
    problems = check_mask(lambda text: text)
    assert len(problems) == len(MASK_SECRETS) and all("is still there" in p for p in problems)


def test_check_mask_blanking_everything_changes_ordinary_text():
    problems = check_mask(lambda text: "[redacted]")
    assert sum(p.startswith("ordinary text") for p in problems) == len(MASK_PLAIN)
    assert sum("text that still says" in p for p in problems) == len(MASK_SECRETS)


def test_check_mask_only_sk_keys_misses_the_other_shapes_and_bites_ordinary_words():
    import re

    sk_only = lambda text: re.sub(r"sk-[\w-]+", "[redacted]", text)  # noqa: E731
    problems = check_mask(sk_only)
    assert sum("is still there" in p for p in problems) == len(MASK_SECRETS) - 1
    assert "Bearer" in problems[0]
    assert any("ask-me-anything" in p for p in problems)  # "ask-me" is not a key


def test_check_mask_leaving_most_of_a_secret_is_caught():
    import re

    def half(text):  # masks the key's tell-tale start and four characters, keeps the rest
        if "sk-proj-" in text:
            return re.sub(r"sk-proj-\w{4}", "[redacted]", text)
        return masked(text)

    (problem,) = check_mask(half)
    assert "'LxV9mN' is still there" in problem


def test_check_mask_returning_not_text_says_so():
    (problem,) = check_mask(lambda text: None)
    assert "returned None; return the text, masked" in problem


# --- generated recordings and texts (issue 35: red team, then the checkers) -------------------


def _hinted(trace, reply=lambda recorded: recorded):
    """The hinted replay, answering with `reply(recorded reply)`."""
    calls, answered = list(trace.model_calls), []

    def responder(request):
        if len(answered) == len(calls) or request_difference(calls[len(answered)], request):
            raise RuntimeError("not the recorded call")
        answered.append(calls[len(answered)])
        return reply(recorded_reply(answered[-1]))

    return ScriptedClient(responder)


def test_check_replay_client_a_reply_that_loses_its_finish_reason_is_caught_on_a_generated_run():
    def always_stop(trace):
        return _hinted(trace, lambda recorded: {**recorded, "finish_reason": "stop"})

    (problem,) = check_replay_client(always_stop)
    assert problem.startswith("on a generated recording of 1 call(s), unchanged: call 1: ")
    assert "'stop'" in problem and "'length'" in problem


def test_check_replay_client_a_recording_played_again_from_the_start_is_caught():
    from banks.bank_s08 import cycles_when_out

    (problem,) = check_replay_client(cycles_when_out)
    assert "asked again at the end" in problem and "refused" in problem


def test_check_mask_every_secret_of_a_text_not_the_first_only():
    # right on every text with one key (the cases), blind to a text that holds two
    problems = check_mask(lambda text: text if text.count("sk-") > 1 else masked(text))
    assert len(problems) == 1 and problems[0].count("'sk-") >= 2, problems


def test_check_mask_feedback_shows_the_secret_through_the_cell_s_own_masking(capsys):
    import re

    def akia_only(text):  # the reference, blind to the temporary AWS key ids (ASIA...)
        parts = re.split(r"(\bASIA[0-9A-Z]{16}\b)", text)
        return "".join(part if part.startswith("ASIA") else masked(part) for part in parts)

    assert course.compare(akia_only, check=check_mask).status == "failed"
    shown = capsys.readouterr().out
    assert "'ASIA' + '" in shown and "is still there" in shown, shown


def test_check_mask_ordinary_text_keeps_its_whitespace():
    problems = check_mask(lambda text: masked(text).strip())
    assert len(problems) == 1 and problems[0].startswith("on "), problems


def _api_key_written_as(label):
    """The reference mask, its api key label written as `label` (a regex) and no other way."""
    from cafe.exercises.reference_s08 import _SHAPES

    def mask(text):
        for shape in _SHAPES:
            text = re.sub(shape, "[m]", text)
        labels = rf"(?:{label}|secret|token|password)"
        return re.sub(rf"(?i)(?<![A-Za-z])({labels}\s*[:=]\s*)[^\s,;\"']+", r"\1[m]", text)

    return mask


@pytest.mark.parametrize("label", ["api_key", "api[-_]key", "api[-_]?key", "api[ _-]key"])
def test_check_mask_an_api_key_label_written_one_way_only_is_refused(label):
    # the notebook: "an api key ... the label in any case": api key, api-key, api_key, apikey
    problems = check_mask(_api_key_written_as(label))
    assert len(problems) == 1 and "api key however it is written" in problems[0], problems
    assert re.search(r"(?i)api.?key", problems[0].split(": returned")[0]), problems


def test_check_mask_passes_an_api_key_label_written_any_way():
    assert check_mask(_api_key_written_as("api[ _-]?key")) == []


def test_check_mask_a_fine_grained_github_token_is_a_github_token():
    from banks.bank_s08 import github_pat_letters_and_digits, no_github_pat

    for wrong in (no_github_pat, github_pat_letters_and_digits):
        (problem,) = check_mask(wrong)
        assert "'gith' + 'ub_pat_" in problem and "is still there" in problem, problem
