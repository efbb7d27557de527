"""cafe.exercises.s00: each checker passes a reference, says "not attempted" for the notebook's stub,
and fails a plausible wrong answer with a complaint that says what is wrong."""

import json

from cafe import course
from cafe.exercises.s00 import (
    check_responder,
    check_tool_arguments,
    reference_responder,
    reference_tool_arguments,
)


def tool_arguments(message) -> dict:
    if not message.tool_calls:
        return {}
    return json.loads(message.tool_calls[0].function.arguments)


def responder(request):
    if not request.get("tools"):
        return "You're welcome!"
    said = request["messages"][-1]["content"].casefold().rstrip(".!?").removesuffix(", please")
    item = said.split(" ", 1)[1] if said.split(" ", 1)[0] in ("a", "an", "one") else said
    return {"tool_calls": [{"name": "add_item", "arguments": {"item": item}}]}


def test_check_tool_arguments_reference_passes_and_raw_json_text_fails():
    assert course.compare(tool_arguments, check=check_tool_arguments).status == "passed"

    def raw_text(message):
        return message.tool_calls[0].function.arguments if message.tool_calls else {}  # noqa: E731

    problems = check_tool_arguments(raw_text)
    assert problems[0].startswith('one call: returned str (\'{"item": "latte"')
    assert "return a dict, such as {'item': 'latte', 'size': 'large'}" in problems[0]


def test_check_tool_arguments_crashing_on_plain_text_is_reported():
    result = course.compare(
        lambda message: json.loads(message.tool_calls[0].function.arguments),
        check=check_tool_arguments,
    )
    assert result.status == "failed" and "TypeError" in result.problems[0]


def test_check_responder_reference_passes():
    assert check_responder(responder) == []


def test_check_responder_always_latte_fails_naming_the_order_it_misread():
    def always_latte(request):
        return {"tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}]}  # noqa: E731

    problems = check_responder(always_latte)
    assert problems[0].startswith("for 'A croissant, please.': returned {'tool_calls'")
    assert "expected an add_item call with item 'croissant'" in problems[0]
    assert problems[-1].startswith("for 'A latte, please.' with no tools offered: returned")


def test_the_references_pass_and_a_reply_no_script_can_hold_is_named_not_a_crash():
    assert check_tool_arguments(reference_tool_arguments) == []
    assert check_responder(reference_responder) == []
    result = course.compare(lambda request: None, check=check_responder)
    assert result.status == "failed"
    assert "returned None; return text, or a dict" in result.problems[0]
    result = course.compare(lambda request: {"item": "latte"}, check=check_responder)
    assert result.status == "failed" and "returned dict" in result.problems[0]


def test_notebook_stubs_are_not_attempted(tmp_path, monkeypatch):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    namespace = run_notebook_source("s00-setup")
    assert (
        course.compare(namespace["tool_arguments"], check=check_tool_arguments).status
        == "not_attempted"
    )
    assert course.compare(namespace["responder"], check=check_responder).status == "not_attempted"
