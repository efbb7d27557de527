"""cafe.trace.replay: a recorded run answered again from its trace, proven identical or stopped where it parts."""

from __future__ import annotations

import dataclasses
import json

import openai
import pytest
from endpoints import KEY

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.server.serve import running_server
from cafe.repair.reask import make_model_generator
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace.loop import record_loop
from cafe.trace.record import Recorder, content_hash, read_trace, record_repair, write_trace
from cafe.trace.replay import (
    ReplayClient,
    ReplayDiverged,
    first_difference,
    recorded_reply,
    replay_client,
)
from cafe.world.menu import load_menu
from cafe.world.orderpad import OrderPad


def _run(client, spec, **options):
    recorder = Recorder()
    menu = options.pop("menu", None)
    generate = make_model_generator(recorder.client(client), menu=menu)
    return record_repair(spec, generate, recorder=recorder, menu=menu, **options)


@pytest.mark.parametrize("spec", PRACTICE_ORDERS)
def test_replay_client_same_code_reproduces_the_run_and_its_hash(spec):
    result, trace = _run(make_client(FeedbackModel()), spec)
    client = replay_client(trace)
    again, replayed = _run(client, spec)
    assert again == result and content_hash(replayed) == content_hash(trace)
    assert first_difference(trace, replayed) is None and client.unused == 0


def test_replay_client_from_a_file_needs_no_endpoint(tmp_path):
    spec = PRACTICE_ORDERS[1]
    _, trace = _run(make_client(FeedbackModel()), spec)
    loaded = read_trace(write_trace(trace, tmp_path / "run.jsonl"))
    assert content_hash(_run(replay_client(loaded), spec)[1]) == content_hash(trace)


def test_replay_client_changed_retry_mode_stops_at_the_second_call_naming_span_and_field():
    spec = PRACTICE_ORDERS[1]  # two attempts at least, so a second call exists
    _, trace = _run(make_client(FeedbackModel()), spec)
    with pytest.raises(ReplayDiverged) as caught:
        _run(replay_client(trace), spec, mode="naive")
    assert caught.value.call == 2 and caught.value.span == trace.model_calls[1]
    assert caught.value.difference.where == "gen_ai.input.messages (length)"
    assert f"id {trace.model_calls[1].span_id}" in str(caught.value)


def test_replay_client_changed_menu_stops_at_the_first_call_in_the_system_prompt():
    spec = PRACTICE_ORDERS[0]
    _, trace = _run(make_client(FeedbackModel()), spec)
    menu = load_menu()
    changed = dataclasses.replace(menu, sold_out=menu.sold_out | {"croissant"})
    with pytest.raises(ReplayDiverged) as caught:
        _run(replay_client(trace), spec, menu=changed)
    assert caught.value.call == 1
    assert caught.value.difference.where == "gen_ai.input.messages[0].parts[0].content"
    assert "86'd" in str(caught.value.difference.replayed)


def test_replay_client_asked_more_calls_than_recorded_says_how_many_there_were():
    spec = PRACTICE_ORDERS[3]
    result, trace = _run(make_client(FeedbackModel()), spec)
    client = replay_client(trace)
    _run(client, spec)  # uses every recorded call
    with pytest.raises(
        ReplayDiverged,
        match=rf"model call {len(result.attempts) + 1}: calls \(count\): recorded {len(result.attempts)}",
    ):
        _run(client, spec)


def test_first_difference_same_replies_different_check_names_the_check_span():
    """The scripted generator sends no menu, so a changed menu changes only what the check finds."""
    from cafe.repair.reask import make_scripted_generator

    draft = json.dumps(
        {"table": 3, "items": ["americano", "croissant"], "allergies": [], "notes": ""}
    )
    spec = PRACTICE_ORDERS[0]
    _, before = record_repair(spec, make_scripted_generator([draft]))
    menu = load_menu()
    _, after = record_repair(
        spec,
        make_scripted_generator([draft]),
        menu=dataclasses.replace(menu, sold_out=menu.sold_out | {"croissant"}),
    )
    span, difference = first_difference(before, after)
    assert span.kind == "check" and difference.where == "attributes.cafe.check.failures (length)"
    assert content_hash(before) != content_hash(after)


def test_first_difference_identical_traces_is_none():
    _, trace = _run(make_client(FeedbackModel()), PRACTICE_ORDERS[0])
    assert first_difference(trace, trace) is None


def test_replay_client_replays_the_agent_loop_tool_call_ids_included():
    script = [{"tool_calls": [{"name": "look_up", "arguments": {"item": "latte"}}]}, "Done."]
    with running_server(script, api_key=KEY) as server:
        live = openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0)
        result, trace = record_loop(
            live,
            [{"role": "user", "content": "A latte."}],
            OrderPad(load_menu()).tools,
            model="cafe-scripted",
        )
    again, replayed = record_loop(
        replay_client(trace),
        [{"role": "user", "content": "A latte."}],
        OrderPad(load_menu()).tools,
        model="cafe-scripted",
    )
    assert again.stop_reason == result.stop_reason == "done"
    assert content_hash(replayed) == content_hash(trace)
    assert [c.id for c in again.turns[0].calls] == [c.id for c in result.turns[0].calls]


def test_recorded_reply_of_a_failed_call_says_it_cannot_be_replayed():
    _, trace = _run(make_client(FeedbackModel()), PRACTICE_ORDERS[2])
    call = trace.model_calls[0]
    broken = dataclasses.replace(
        call, attributes={k: v for k, v in call.attributes.items() if k != "gen_ai.output.messages"}
    )
    with pytest.raises(ValueError, match="recorded no reply"):
        recorded_reply(broken)


def test_replay_client_takes_a_trace_not_a_path():
    with pytest.raises(TypeError, match="read_trace"):
        replay_client("run.jsonl")
    assert isinstance(
        replay_client(_run(make_client(FeedbackModel()), PRACTICE_ORDERS[2])[1]), ReplayClient
    )


def test_replay_of_a_cafe_serve_session_08_rehearsal_matches_and_holds_no_key(tmp_path):
    """The learner's checkpoint, rehearsed: a live run over HTTP against `cafe serve --session 08`,
    with a key the server requires, recorded to a file, then replayed from the file alone."""
    from cafe.endpoint.scripts.rehearsals import session_script

    spec = PRACTICE_ORDERS[1]
    with running_server(session_script("08"), api_key=KEY) as server:
        live = openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0)
        result, trace = _run(live, spec)
    path = write_trace(trace, tmp_path / "session.jsonl")
    assert (
        result.stop_reason == "passed" and len(result.attempts) == 2
    )  # the drafter fixes the table when told
    assert KEY not in path.read_text(encoding="utf-8")
    again, replayed = _run(replay_client(read_trace(path)), spec)
    assert again == result and content_hash(replayed) == content_hash(trace)


def test_replay_refuses_where_the_endpoint_refused_so_the_format_steps_down_alike():
    """A server without strict JSON schema refuses the first format; the generator steps down. The
    refusal is recorded (status, blamed field, message) and the replay refuses the same call."""
    from cafe.endpoint.errors import RequestRejected
    from cafe.trace.replay import recorded_failure

    spec = PRACTICE_ORDERS[2]
    ticket = json.dumps({"table": 7, "items": ["green tea"], "allergies": [], "notes": ""})
    with running_server([ticket], supports_json_schema=False, api_key=KEY) as server:
        live = openai.OpenAI(base_url=server.base_url, api_key=KEY, max_retries=0)
        result, trace = _run(live, spec)
    refused, answered = trace.model_calls
    assert result.stop_reason == "passed" and refused.get("http.response.status_code") in (400, 422)
    assert refused.get("error.type") == str(refused.get("http.response.status_code"))
    assert isinstance(recorded_failure(refused), RequestRejected)
    again, replayed = _run(replay_client(trace), spec)
    assert again == result and content_hash(replayed) == content_hash(trace)
