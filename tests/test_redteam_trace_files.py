"""What the held-out red team broke in reading traces: a replay that could not answer, a named pipe,
a byte-order mark, and a key in a path (A33, A11, A4, A37).

- A replay starts only from a trace that checks out (session 08; `cafe.trace.replay`'s docstring:
  every malformed recording ends in a `TraceFileError`, when read or when the replay starts). A
  model call with neither a reply nor an error used to be accepted and then fail halfway through
  the run with a bare ValueError.
- `read_shift` gives "a sentence for each file that cannot be counted" (session 09); a named pipe
  among the files used to block it forever.
- A file saved "UTF-8 with BOM" used to be called cut off; it is named for what it is.
- The key never appears in any output: a folder or file named with it used to put it in
  `read_shift`'s sentences, `RunRecord.trace`, `render_text` and the HTML page.
"""

from __future__ import annotations

import os
import shutil
import threading

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.client.chat import make_client
from cafe.repair.reask import make_model_generator
from cafe.report.figures import render_html, write_html
from cafe.report.shift import PRACTICE_PRICES, SHIFT_ORDERS, run_shift, ticking
from cafe.report.summary import summarize
from cafe.report.text import render_text
from cafe.report.traces import read_shift
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace.file import TraceFileError, read_trace, write_trace
from cafe.trace.record import Recorder, record_repair
from cafe.trace.replay import replay_client
from cafe.trace.spans import AGENT_NAME, ERROR_TYPE, OUTPUT_MESSAGES, STOP_REASON, Span, Trace

KEY = "sk-test-Hq3Zw8Lr5Tn2Vx7Pb4Md9Kf6Gc1Js0Ya"


def _recorded(spec=PRACTICE_ORDERS[1]) -> Trace:
    """A run of the re-ask recorded through its client, as a replay needs it."""
    recorder = Recorder()
    generate = make_model_generator(recorder.client(make_client(FeedbackModel())))
    return record_repair(spec, generate, recorder=recorder)[1]


RECORDED = _recorded()  # three model calls: two drafts sent back, the third passes


def _with_call(trace: Trace, number: int, attributes: dict) -> Trace:
    """`trace` with the attributes of its model call `number` (1-based) replaced."""
    call = trace.model_calls[number - 1]
    changed = Span(call.span_id, call.parent_id, call.kind, call.name, 0.1, 0.2, attributes)
    spans = tuple(changed if span is call else span for span in trace.spans)
    return Trace(trace.trace_id, trace.started_at, spans)


# --- a replay that could not answer is refused at the start (A33) ----------------------------


@settings(max_examples=12, deadline=None, suppress_health_check=list(HealthCheck))
@given(number=st.integers(1, len(RECORDED.model_calls)), reply=st.sampled_from(["gone", []]))
def test_replay_client_refuses_a_call_with_no_reply_and_no_error_before_answering(number, reply):
    attributes = dict(RECORDED.model_calls[number - 1].attributes)
    if reply == "gone":
        del attributes[OUTPUT_MESSAGES]
    else:
        attributes[OUTPUT_MESSAGES] = reply
    with pytest.raises(TraceFileError, match=f"model call {number} .*neither a reply"):
        replay_client(_with_call(RECORDED, number, attributes))


def test_replay_client_refuses_such_a_call_read_back_from_a_file(tmp_path):
    """The red team's case: the course's own writer wrote it, the reader read it back."""
    attributes = {**RECORDED.model_calls[1].attributes, OUTPUT_MESSAGES: []}
    loaded = read_trace(write_trace(_with_call(RECORDED, 2, attributes), tmp_path / "a.jsonl"))
    with pytest.raises(TraceFileError, match="model call 2 "):
        replay_client(loaded)


def test_replay_client_still_takes_a_call_that_recorded_its_error():
    """A call with no reply but an `error.type` failed live; the replay raises that again."""
    attributes = dict(RECORDED.model_calls[0].attributes)
    del attributes[OUTPUT_MESSAGES]
    client = replay_client(_with_call(RECORDED, 1, {**attributes, ERROR_TYPE: "timeout"}))
    assert client.unused == len(RECORDED.model_calls)


# --- a file that is not a regular file, and a byte-order mark (A11, A4) ---------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are a POSIX thing")
def test_read_shift_names_a_named_pipe_instead_of_waiting_on_it(tmp_path):
    good = write_trace(RECORDED, tmp_path / "good.jsonl")
    pipe = tmp_path / "pipe.jsonl"
    os.mkfifo(pipe)
    found: list = []
    reader = threading.Thread(target=lambda: found.append(read_shift([good, pipe])), daemon=True)
    reader.start()
    reader.join(timeout=60)  # a deadline on the event, not a timing: it returns at once or never
    try:
        assert not reader.is_alive(), "read_shift blocked on a named pipe"
    finally:  # an old reader still blocked on the pipe: a writer that opens and closes frees it
        try:
            os.close(os.open(pipe, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
    runs, notes = found[0]
    assert len(runs) == 1
    assert notes == (
        f"Not counted: {pipe}: is not a regular file (a folder, a named pipe or a "
        "device); give the path of a trace file.",
    )


def test_read_shift_names_a_folder_as_not_a_regular_file(tmp_path):
    (tmp_path / "runs.jsonl").mkdir()
    runs, notes = read_shift([tmp_path / "runs.jsonl"])
    assert runs == () and "is not a regular file" in notes[0]


def test_a_file_saved_with_a_byte_order_mark_is_named_for_it(tmp_path):
    path = write_trace(RECORDED, tmp_path / "run.jsonl")
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())  # Notepad's "UTF-8 with BOM"
    with pytest.raises(TraceFileError, match="line 1: starts with a byte-order mark") as caught:
        read_trace(path)
    assert "save it as UTF-8 without BOM" in str(caught.value)
    assert "cut off" not in str(caught.value)


# --- the key in a path never reaches the report (A37) ---------------------------------------


def _holds_key(text: str) -> bool:
    """Whether `text` holds the key, or any 8 characters of it in a row."""
    return any(KEY[i : i + 8] in text for i in range(len(KEY) - 7))


def _another_harness() -> Trace:
    """A run of the agent loop (stop reason `done`), which the shift report does not count."""
    root = {STOP_REASON: "done", AGENT_NAME: "cafe.loop"}
    return Trace(
        "loop-1", "2026-12-07T11:00:00+00:00", (Span("r", None, "run", "run", 0, 1, root),)
    )


@pytest.mark.parametrize("where", ["folder", "file"])
def test_a_path_named_with_the_key_reaches_no_note_record_text_or_page(
    tmp_path, monkeypatch, where
):
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    folder = tmp_path / (f"shift-{KEY}" if where == "folder" else "shift")
    folder.mkdir()
    name = f"-{KEY}" if where == "file" else ""
    good = write_trace(RECORDED, folder / f"a{name}.jsonl")
    shutil.copy(good, folder / f"b{name}.jsonl")  # the same run again: "Not counted twice"
    write_trace(_another_harness(), folder / f"c{name}.jsonl")  # "Not counted, from ..."
    cut = folder / f"d{name}.jsonl"
    cut.write_bytes(good.read_bytes()[:-40])  # a TraceFileError, "Not counted: ..."
    runs, notes = read_shift(sorted(folder.glob("*.jsonl")))
    assert len(runs) == 1 and len(notes) == 3
    summary = summarize(runs, PRACTICE_PRICES, notes=notes)
    page = write_html(tmp_path / "report.html", summary).read_text(encoding="utf-8")
    shown = {
        "notes": " ".join(notes),
        "RunRecord.trace": runs[0].trace,
        "render_text": render_text(summary),
        "render_html": render_html(summary),
        "write_html": page,
    }
    assert [name for name, text in shown.items() if _holds_key(text)] == []
    assert "a" in runs[0].trace and runs[0].trace.endswith(".jsonl")  # still names the file


def test_run_shift_into_a_folder_named_with_the_key_keeps_it_out_of_the_records(
    tmp_path, monkeypatch
):
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    generate = make_model_generator(make_client(FeedbackModel()))
    folder = tmp_path / f"traces-{KEY}"
    runs = run_shift(
        SHIFT_ORDERS[:2], generate, model="cafe-scripted", clock=ticking(), trace_dir=folder
    )
    assert all(run.trace and not _holds_key(run.trace) for run in runs)
    assert not _holds_key(render_text(summarize(runs)))
