# %% [markdown]
# # Session 08 · A run is data: traces and replay
#
# Session 07's re-ask ends on a stop reason and forgets the rest. This notebook records every run
# as a trace (a tree of spans written to a file), then reads the file back and *replays* it: the
# same code, answered by the recording instead of a model. Read
# `sessions/s08-tracing/lesson.md` alongside; `cafe/trace/record.py` and `cafe/trace/replay.py` are the code.
#
# Each step is *predict first*: write your guess down before you run the cell that answers it.
# The stories run offline on the scripted `FeedbackModel` from session 07 in both modes; the
# checkpoint at the end records *your* session, which reaches your model when
# `COURSE_MODE=live`.

# %%
import dataclasses
import tempfile
from pathlib import Path

from openai.types.chat import ChatCompletion  # noqa: F401  (imported now, so no span below times the import)

import cafe
import cafe.trace.replay
from cafe import course
from cafe.course.progress import progress_path
from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.exercises.s08 import check_mask, check_replay_client
from cafe.repair import STOP_REASONS, make_model_generator
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace import (
    Recorder,
    TraceFileError,
    content_hash,
    read_trace,
    read_traces,
    record_repair,
    write_trace,
    write_traces,
)
from cafe.trace.replay import (
    ReplayDiverged,
    first_difference,
    replay_client,
)
from cafe.trace.spans import scrub
from cafe.world.menu import load_menu

live = cafe.course_mode() == "live"
work = Path(tempfile.mkdtemp(prefix="cafe-s08-"))
print(f"mode: {cafe.course_mode()}   model: {cafe.model_name()}   trace files go to: {work}")


def scripted_run(spec, menu=None, mode="curated"):
    """One order through the re-ask, drafted by FeedbackModel, recorded: (result, trace)."""
    recorder = Recorder()
    generate = make_model_generator(
        recorder.client(ScriptedClient(Script(FeedbackModel()))), "cafe-scripted", menu=menu
    )
    return record_repair(spec, generate, recorder=recorder, menu=menu, mode=mode)


def outline(trace):
    """One line per span, indented by depth: kind, name, and what the span says in a few words."""
    for depth, span in trace.walk():
        said = {
            "model_call": f"{span.get('gen_ai.usage.input_tokens')} tokens in, "
            f"{span.get('gen_ai.usage.output_tokens')} out",
            "check": f"{span.get('gen_ai.evaluation.score.label')} {span.get('cafe.check.failures') or ''}",
            "run": f"ended {span.get('cafe.run.stop_reason')}",
        }.get(span.kind, "")
        print(
            f"{'  ' * depth}{span.kind:<11} {span.name:<26} {span.duration_s * 1000:7.2f} ms  {said}"
        )


# %% [markdown]
# ## 1. What does one run leave behind?
#
# Table 5 orders an oat latte and a fruit salad and declares a milk allergy. In session 07,
# `FeedbackModel` needed three attempts for this order with curated retries. The recorder wraps
# the client (every model call) and the generator (every attempt); the loop's body is untouched.
# Each attempt is scored by the checks of sessions 04 and 06.

# %%
table5 = PRACTICE_ORDERS[1]

# %%
spans_guess = course.predict(
    "s08.span_count",
    "How many spans will the trace of table 5's run hold?",
    options=["3", "4", "7", "10"],
)

# %%
result, trace = scripted_run(table5)
outline(trace)
course.show_outcome(spans_guess, str(len(trace.spans)))

# %% [markdown]
# Every model call carries the attribute names of the OpenTelemetry GenAI conventions, so the same
# span reads the same in any tool that knows them. Here is one, minus the messages:

# %%
call = trace.model_calls[0]
for name, value in sorted(call.attributes.items()):
    if not name.endswith("messages"):
        print(f"{name:<34} {value}")
print(
    f"{'gen_ai.input.messages':<34} {len(call.get('gen_ai.input.messages'))} messages "
    f"({', '.join(m['role'] for m in call.get('gen_ai.input.messages'))})"
)

# %% [markdown]
# ## 2. The same order, recorded twice: what stays the same?
#
# Run table 5 again, through a new recorder and a new client, and this time with session 07's
# `naive` retries: a failed attempt is followed by the brief again, unchanged, where the first
# recording sent the brief plus the failure view. The order, the model and the first attempt's
# request are the same as before. A trace has an id, span ids and clock times; it also has a
# content hash, `content_hash(trace)`, a digest of the spans.

# %%
twice_guess = course.predict(
    "s08.twice",
    "Table 5 again, naive retries: across the two recordings, what is equal?",
    options=["trace ids and hash", "the hash alone", "the trace ids alone", "neither"],
)

# %%
_, again = scripted_run(table5, mode="naive")
same_ids, same_hash = again.trace_id == trace.trace_id, content_hash(again) == content_hash(trace)
print(f"trace ids: {trace.trace_id[:12]}… vs {again.trace_id[:12]}…   equal: {same_ids}")
print(f"hashes:    {content_hash(trace)[:19]}… vs {content_hash(again)[:19]}…   equal: {same_hash}")
course.show_outcome(
    twice_guess,
    {
        (True, True): "trace ids and hash",
        (False, True): "the hash alone",
        (True, False): "the trace ids alone",
        (False, False): "neither",
    }[same_ids, same_hash],
)

# %%
course.reveal("s08.why_hash")

# %% [markdown]
# ## 3. On disk, and back
#
# A trace file is JSON Lines: a header line for the run, then one span per line, keys always in
# the same order. Write it, look at the first lines, read it back.

# %%
path = write_trace(trace, work / "table5.jsonl")
for line in path.read_text(encoding="utf-8").splitlines()[:3]:
    print(line[:150] + ("…" if len(line) > 150 else ""))
loaded = read_trace(path)
assert loaded == trace and content_hash(loaded) == content_hash(trace)
print(f"... {len(loaded.spans)} spans read back, hash unchanged")

# %% [markdown]
# Files get cut short (a full disk, a killed process) and edited by hand. Reading one never ends
# in a traceback: the error names the file, the line and what is wrong. The header also records
# a digest of every span line and the run's content hash, so an edit that still reads as a
# perfectly good trace (one letter of a reply, in another case) is found too, on its line.

# %%
text = path.read_text(encoding="utf-8")
reply_at = text.index('"content": "', text.index('"gen_ai.output.messages"')) + 12
letter = next(i for i in range(reply_at, len(text)) if text[i].isalpha())
for label, broken in [
    ("cut off", text[:-30]),
    ("edited into nonsense", text.replace('"kind": "check"', '"kind": "chek"', 1)),
    ("one letter of a reply", text[:letter] + text[letter].swapcase() + text[letter + 1 :]),
    ("from a newer course", text.replace('"schema_version": 2', '"schema_version": 3', 1)),
]:
    (work / "broken.jsonl").write_text(broken, encoding="utf-8")
    try:
        read_trace(work / "broken.jsonl")
    except TraceFileError as error:
        print(f"{label}: {error}\n")

# %% [markdown]
# ## 4. Replay: does the run happen again?
#
# `replay_client(trace)` is a scripted client built from the file alone: asked for model call k,
# it answers with the reply the recording got at call k. Run the same code against it, recorded
# again, with no model and no endpoint anywhere.

# %%
replay_guess = course.predict(
    "s08.replay",
    "Replaying table 5's file with the same code: what comes out?",
    options=[
        "same ending, same hash",
        "same ending, new hash",
        "another ending",
        "an error: no model",
    ],
)

# %%
recorder = Recorder()
replayed_result, replayed = record_repair(
    table5,
    make_model_generator(recorder.client(replay_client(loaded)), "cafe-scripted"),
    recorder=recorder,
)
same_end, same = (
    replayed.stop_reason == loaded.stop_reason,
    content_hash(replayed) == loaded.recorded_hash,  # the hash the file recorded when written
)
print(f"recorded: {loaded.stop_reason}, {loaded.recorded_hash[:19]}…")
print(f"replayed: {replayed.stop_reason}, {content_hash(replayed)[:19]}…")
course.show_outcome(
    replay_guess,
    "same ending, same hash"
    if same_end and same
    else "same ending, new hash"
    if same_end
    else "another ending",
)
assert first_difference(loaded, replayed) is None

# %% [markdown]
# ## 5. After the menu changes?
#
# Table 3 ordered an americano and a croissant. Record that run; then the kitchen runs out of
# croissants (it goes on the day's 86'd list) and the same recording is replayed against the new
# menu.

# %%
table3 = PRACTICE_ORDERS[0]
_, table3_trace = scripted_run(table3)
menu = load_menu()
croissant_gone = dataclasses.replace(menu, sold_out=menu.sold_out | {"croissant"})

# %%
where_guess = course.predict(
    "s08.menu_changed",
    "Replayed against the new menu, where does the replay stop?",
    options=["nowhere: same hash", "model call 1", "the last model call", "attempt 1's check"],
)

# %%
recorder = Recorder()
try:
    record_repair(
        table3,
        make_model_generator(
            recorder.client(replay_client(table3_trace)), "cafe-scripted", menu=croissant_gone
        ),
        recorder=recorder,
        menu=croissant_gone,
    )
    stopped = "nowhere: same hash"
except ReplayDiverged as diverged:
    print(diverged)
    stopped = (
        f"model call {diverged.call}"
        if diverged.call < len(table3_trace.model_calls)
        else "the last model call"
    )
course.show_outcome(where_guess, stopped)

# %%
course.reveal("s08.why_menu")

# %% [markdown]
# A generator with no system prompt sends no menu, so the same change reaches only the checks.
# `first_difference` compares two traces span by span, in the order the spans ended, and names
# the first that differs.

# %%
from cafe.repair import make_scripted_generator  # noqa: E402  (drafts from a fixed list, no prompt)

draft = '{"table": 3, "items": ["americano", "croissant"], "allergies": [], "notes": ""}'
_, before = record_repair(table3, make_scripted_generator([draft]))
_, after = record_repair(table3, make_scripted_generator([draft]), menu=croissant_gone)
span, difference = first_difference(before, after)
print(f"first difference: span {span.name!r} ({span.kind}): {difference}")

# %% [markdown]
# ## 6. Your turn: build the replay client
#
# Write `my_replay_client(trace)`: a client that answers the recorded run's model calls in
# order, and *raises* at the first call that is not the one the recording made. The pieces:
#
# - `trace.model_calls`: the recorded model-call spans, in order.
# - `recorded_reply(span)`: the reply a call got, as a reply a scripted model accepts.
# - `request_difference(span, request)`: None when `request` (the arguments of
#   `chat.completions.create`: model, messages, ...) is the call `span` recorded; otherwise
#   where they differ.
# - `ScriptedClient(responder)`: a client that calls `responder(request)` for every request and
#   answers with what it returns.
#
# The compare cell replays three runs recorded from replies no model would write, so only the
# trace can reproduce them; then runs whose code changed (the retries, the menu, the model asked
# for) and a recording that runs out before the code stops asking; then recordings it generates,
# replayed unchanged or changed at one call, where every answer (text, tool calls, finish reason,
# tokens) must be the recording's and every changed call refused. Handing in the course's
# `replay_client` (or a wrapper round it) is refused: write your own. Until you replace the stub
# it says "not attempted yet".


# %%
from cafe.trace.replay import recorded_reply, request_difference  # noqa: F401  (your client's pieces)


def my_replay_client(trace):
    """A client answering `trace`'s model calls in order; it raises at a call the recording did not make."""
    raise NotImplementedError("your turn: build the replay client")


# %%
replay_check = course.compare(my_replay_client, check=check_replay_client, key="s08.replay_client")

# %% [markdown]
# Tried it? Flip the switch for the course's version: `ReplayClient.reply_for` is its core.

# %%
course.reveal("s08.reply_for", source=cafe.trace.replay.ReplayClient.reply_for)

# %% [markdown]
# ## 7. Your turn, open-ended: what must never reach a trace?
#
# A trace keeps what the model was sent and what it said, and customers type anything. The
# recorder masks the client's own key by value and anything that *looks* like a credential by
# its shape. Write `my_mask(text)`: the text with credential-looking parts replaced (by
# `[redacted]`, say), and ordinary café text left exactly as it was. The compare cell tries eight
# secrets in sentences, of the lesson's shapes and as a value after a label (`token=`, `Secret:`,
# an api key or a password, the label in any case); no piece of six characters of a secret may
# stay. Then seven ordinary texts, a model's name and a trace's ids among them; after those hand-picked cases, generated
# secrets and generated ordinary text. The course's `scrub` is refused if handed in. Then add the shapes *you* worry about (a card
# number? a phone number?) and run the last cell of this step.
#
# **Live stretch:** run this notebook with `COURSE_MODE=live`, then search the trace file the
# checkpoint writes for your key, and for anything else you would not want in a log.


# %%
def my_mask(text):
    """`text` with anything that looks like a credential masked; ordinary text unchanged."""
    raise NotImplementedError("your turn: mask the credentials")


# %%
mask_check = course.compare(my_mask, check=check_mask, key="s08.mask")

# %%
samples = [
    "Charge it to card 4242 4242 4242 4242, exp 12/29",
    "call me on +44 20 7946 0958",
    "my token=cafe-till-778899",
    "Two flat whites for table 9.",
]
mask = my_mask if mask_check.status != "not_attempted" else scrub
for sample in samples:
    print(f"{sample!r:55} -> {mask(sample)!r}")

# %%
course.reveal("s08.scrub", source=cafe.trace.spans.Scrubber.text)

# %% [markdown]
# ## 8. Checkpoint: your own session, recorded and replayed
#
# Three orders through the re-ask, recorded into one file: in live mode your model writes the
# drafts (`cafe serve --session 08` is a rehearsal model if you have no key), offline the
# scripted `FeedbackModel` does. Then the file is replayed, run by run, with no model. The
# checkpoint banks each run's hash, how it ended, and whether every replay matched.
#
# **Live:** this cell calls your model three to nine times, and asserts only what any model
# guarantees: each run ends on a named stop reason, and a replay of what was recorded matches.
# When your endpoint fails on an order (a timeout, a dropped connection), that run is not lost:
# its trace is written with the others, its spans closed with the error's type, and its replay
# raises the same error, which counts as a match. The cell names the order and goes on.

# %%
from cafe.endpoint.errors import EndpointError

session_path = progress_path().parent / "traces" / "s08-session.jsonl"
session_path.parent.mkdir(parents=True, exist_ok=True)
source = cafe.make_client() if live else ScriptedClient(Script(FeedbackModel()))


def record_order(spec):
    """One order recorded: (spec, trace, the endpoint problem's kind or None)."""
    recorder = Recorder()
    generate = make_model_generator(recorder.client(source))
    try:
        run = record_repair(spec, generate, recorder=recorder)[1]
    except EndpointError as problem:  # the trace keeps the failed call, closed with error.type
        print(f"table {spec.table}: endpoint {problem.kind}, recorded as failed")
        return spec, recorder.trace(), problem.kind
    print(f"table {spec.table}: {run.stop_reason} after {len(run.model_calls)} model call(s)")
    return spec, run, None


session = [record_order(spec) for spec in PRACTICE_ORDERS[:3]]
write_traces([run for _, run, _ in session], session_path)


def replay_matches(spec, stored, failed, client_for):
    """Replay `stored` with `client_for(stored)`: does it end as the recording did, same hash?"""
    recorder = Recorder()
    generate = make_model_generator(recorder.client(client_for(stored)), stored.model)
    try:
        record_repair(spec, generate, recorder=recorder)
    except EndpointError:  # a recorded failure replays as the same error, the same message
        return failed is not None
    except Exception as error:  # the code changed, or the file cannot repeat the run
        print(f"table {spec.table}: replay stopped: {error}")
        return False
    return failed is None and content_hash(recorder.trace()) == content_hash(stored)


stored_runs = read_traces(session_path)
matched = []
for (spec, run, failed), stored in zip(session, stored_runs):
    assert failed is not None or run.stop_reason in STOP_REASONS
    matched.append(replay_matches(spec, stored, failed, replay_client))
print(f"trace file: {session_path}\nevery replay matched: {all(matched)}")
if live:
    print(
        "Offline, the scripted session replays to the same hashes. Your model's runs are frozen "
        "in the file the same way, so a replay that did not match is not the model: either the "
        "code or the file changed between recording and replay, or a reply held something that "
        "looked like a key and was recorded masked, so the replay answers with [redacted] and "
        "the run takes another path (the line above names the call)."
    )
course.checkpoint(
    "s08",
    "session_replay",
    {
        "hashes": [content_hash(run) for _, run, _ in session],
        "stop_reasons": [
            run.stop_reason if failed is None else f"endpoint:{failed}"
            for _, run, failed in session
        ],
        "replay_matched": all(matched),
        "trace_file": str(session_path),
    },
    model=cafe.model_name(),
)

# %% [markdown]
# Your replay client and your mask, on the same file: once each has passed its check, the
# second entry banks what *your* code did with your session (whether your client replays every
# run of the file to the same hash, and how many of the four samples above your mask changed),
# marked as yours. Nothing is banked under your name for an exercise that has not passed.

# %%
yours = {}
if replay_check.status == "passed":
    yours["your_replay_matched"] = all(
        replay_matches(spec, stored, failed, my_replay_client)
        for (spec, _, failed), stored in zip(session, stored_runs)
    )
if mask_check.status == "passed":
    yours["your_mask_changed"] = sum(my_mask(sample) != sample for sample in samples)
if yours:
    course.checkpoint("s08", "your_replay", yours, model=None, source="yours")
else:
    print("[checkpoint s08.your_replay] not banked: neither exercise has passed yet.")

# %% [markdown]
# Session 09 reads files like this one: many runs, each ending under one name, counted into a
# shift report.
