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


def test_a_forked_child_starts_with_no_idle_worker_and_its_call_answers() -> None:
    """A fork copies the pool of idle workers but not their threads: the child must not hand its
    call to a worker that does not exist there (it would wait for ever)."""
    import os

    from cafe.endpoint.client import deadline

    assert deadline.within_deadline(lambda: 1, 5, waiting_for="a warm-up") == 1
    assert deadline._IDLE  # the worker that answered waits here for the next call
    if not hasattr(os, "fork"):
        return
    pid = os.fork()
    if pid == 0:  # the child: exit 0 only if its pool is empty and a call answers in time
        ok = False
        try:
            ok = not deadline._IDLE and deadline.within_deadline(lambda: 2, 5, waiting_for="x") == 2
        finally:
            os._exit(0 if ok else 1)  # never back into the parent's test run
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
