"""A model call the course's deadline gave up on is still recorded (issue 29, session 08).

The deadline (`cafe.endpoint.client.chat.within_deadline`) leaves the call running in its worker thread
and raises `EndpointError(kind="timeout")`. `record_repair` closes the run with `error.type`; the
call under way is recorded as failed there, with its request, so the trace file keeps the failed
order and its replay raises the same error. The worker, finishing late, records nothing more.
"""

from __future__ import annotations

import threading

import pytest

from cafe.consent import OrderSpec
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.errors import EndpointError
from cafe.repair import make_model_generator
from cafe.trace import Recorder, content_hash, read_traces, record_repair, write_traces
from cafe.trace.replay import replay_client

ORDER = OrderSpec(4, ("latte",), request="A latte, please.")
TICKET = '{"table": 4, "items": ["latte"], "allergies": [], "notes": ""}'


def _slow_then_done(release: threading.Event, workers: list[threading.Thread]):
    def responder(request):
        workers.append(threading.current_thread())  # the thread the deadline will abandon
        release.wait(5)  # held until the test lets it finish, after the deadline fired
        return TICKET

    return responder


def test_a_call_past_its_deadline_is_recorded_as_failed_and_replays_as_the_same_error(tmp_path):
    release, workers = threading.Event(), []
    client = ScriptedClient(_slow_then_done(release, workers), timeout=0.2)
    recorder = Recorder()
    generate = make_model_generator(recorder.client(client), "cafe-scripted")
    with pytest.raises(EndpointError) as stopped:
        record_repair(ORDER, generate, recorder=recorder)
    assert stopped.value.kind in {"timeout", "slow"}
    trace = recorder.trace()
    (call,) = trace.model_calls
    assert call.get("error.type") == "EndpointError"
    assert call.get("gen_ai.input.messages")  # the request is kept, so a replay can compare it
    release.set()
    # the worker finishes late (an abandoned worker ends after its call): wait until it has,
    # then check that it added no second model call
    (worker,) = workers
    worker.join(timeout=10)
    assert not worker.is_alive(), "the abandoned call still running 10 s after it was released"
    assert len(recorder.trace().model_calls) == 1

    path = write_traces([trace], tmp_path / "session.jsonl")
    (stored,) = read_traces(path)
    assert content_hash(stored) == content_hash(trace)
    again = Recorder()
    replayed = make_model_generator(again.client(replay_client(stored)), "cafe-scripted")
    with pytest.raises(EndpointError):
        record_repair(ORDER, replayed, recorder=again)
    assert content_hash(again.trace()) == content_hash(stored)


def test_a_call_that_answers_in_time_is_recorded_once():
    recorder = Recorder()
    generate = make_model_generator(recorder.client(ScriptedClient([TICKET])), "cafe-scripted")
    result, trace = record_repair(ORDER, generate, recorder=recorder)
    assert result.stop_reason == "passed" and len(trace.model_calls) == 1
