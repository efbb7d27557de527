"""Session 08 toy: one run recorded as a trace, written to a file, and replayed from it.

    python sessions/s08-tracing/toy.py                      # offline: the scripted FeedbackModel drafts
    COURSE_MODE=live python sessions/s08-tracing/toy.py     # your model drafts; the replays need no model
    python sessions/s08-tracing/toy.py --keep run.jsonl     # keep the trace file instead of a temporary one

The toy tells three short stories about table 5's order (an oat latte and a fruit salad, milk
allergy), one line per step in plain words with the technical name after:

1. The run, recorded: each span of the trace as an indented outline (the run, its attempts,
   each attempt's model call and check), then the file it was written to and its content hash.
2. The file, replayed: the same code answered by `replay_client` instead of a model. Same
   ending, same hash: the run happened again, exactly.
3. The menu changed (the fruit salad is 86'd): the replay stops at the first model call that is
   not the one recorded, and says which span and what differed.

Live, story 1 calls your endpoint (through `make_model_generator(make_client())`); stories 2
and 3 read the file only. A missing setting or an endpoint that does not answer is explained in
one message, with exit status 1; `cafe doctor` gives the full diagnosis. So is a recording the
course's own mask changed (a key such as `milk` that the model's replies also hold is masked in
the file, so it cannot replay): a trouble the mask can cause is expected, and named, not raised.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from cafe.cli import run_command
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import Script, ScriptedClient
from cafe.endpoint.secrets.redaction import REDACTED
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.repair import make_model_generator
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel
from cafe.trace import Recorder, Trace, content_hash, read_trace, record_repair, write_trace
from cafe.trace.attributes import OUTPUT_MESSAGES
from cafe.trace.replay import ReplayDiverged, replay_client
from cafe.world.menu import load_menu

ORDER = PRACTICE_ORDERS[1]  # table 5: offline, FeedbackModel needs three attempts for it
# What each kind of span is, for a reader meeting the names for the first time.
KIND_WORDS = {
    "run": "the whole run",
    "attempt": "one draft and its scoring",
    "model_call": "the model was asked",
    "check": "the draft was checked",
    "turn": "one turn",
    "tool_call": "a tool ran",
}

# Each check in plain words, for a reader who has not met the check names yet (as toy 07 says them).
CHECK_WORDS = {
    "missing_field": "a field is missing",
    "unknown_field": "a field no ticket has",
    "bad_value": "a field holds a value no ticket can have",
    "not_json": "not a ticket at all",
    "off_menu": "an item not on the menu",
    "sold_out": "an item the kitchen is out of",
    "unsafe": "unsafe for the declared allergy",
    "out_of_scope": "not what the customer ordered",
    "unknown_allergen": "an allergy the menu cannot check",
    "injection": "instructions hidden in the order",
}


def said(span: Any) -> str:
    """A few words on what one span records."""
    if span.kind == "model_call":
        return f"{span.get('gen_ai.usage.input_tokens')} tokens in, {span.get('gen_ai.usage.output_tokens')} out"
    if span.kind == "check":
        failed = span.get("cafe.check.failures")
        words = [f"{CHECK_WORDS.get(name, name)} ({name})" for name in failed or ()]
        return f"failed: {', '.join(words)}" if words else "passed"
    if span.kind == "run":
        return f"ended {span.get('cafe.run.stop_reason')}"
    return ""


def show(trace: Trace) -> None:
    for depth, span in trace.walk():
        label = f"{'  ' * depth}{KIND_WORDS[span.kind]} ({span.kind})"
        print(f"    {label:<40} {said(span)}")


# Why a recording the mask touched cannot replay: one line, never the key itself.
MASKED = (
    "the recording cannot replay: the model's replies hold your key's text (CAFE_API_KEY, or "
    f"another secret), which the recording masked as {REDACTED}, so the replay sent something "
    "else; pick a key that is not a word, such as a long random one."
)


def masked_replies(trace: Trace) -> bool:
    """Whether the recording masked text in the model's replies: a key that is also a word the
    model wrote (CAFE_API_KEY=milk) is masked there, and a replay then sends what the run never
    sent. A trouble the course's own mask causes, so it is said plainly, not raised."""
    return any(
        REDACTED in json.dumps(span.get(OUTPUT_MESSAGES) or [], ensure_ascii=False)
        for span in trace.model_calls
    )


def record(client: Any) -> Trace:
    recorder = Recorder()
    return record_repair(ORDER, make_model_generator(recorder.client(client)), recorder=recorder)[1]


def replay(trace: Trace, **menu: Any) -> Trace:
    recorder = Recorder()
    generate = make_model_generator(recorder.client(replay_client(trace)), trace.model, **menu)
    return record_repair(ORDER, generate, recorder=recorder, **menu)[1]


def reserve_keep(name: str) -> Path | str:
    """The --keep file, created empty and new (never an existing file, never through a link), or
    one line saying why not and what to pass instead."""
    if not name.strip():
        return "--keep needs a file name, such as --keep run.jsonl"
    path = Path(name)  # as given: the shell has already expanded any ~
    if os.path.lexists(path):
        return f"--keep {name!r}: that already exists; name a new file (the toy never overwrites)"
    if not path.parent.is_dir():
        return f"--keep {name!r}: the folder {str(path.parent)!r} is not an existing folder; create it first"
    try:
        os.close(os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)))
    except (OSError, ValueError) as error:
        why = error.strerror if isinstance(error, OSError) and error.strerror else str(error)
        return f"--keep {name!r}: cannot create it ({why}); name a file in a folder you can write"
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Record one run, write it to a file, replay it.")
    parser.add_argument(
        "--keep", metavar="FILE", help="write the trace here instead of a temporary file"
    )
    args = parser.parse_args(argv)
    keep = reserve_keep(args.keep) if args.keep is not None else None
    if isinstance(keep, str):
        print(f"cafe toy 08: {keep}", file=sys.stderr)
        return 2
    live = course_mode() == "live"
    source = (
        f"your model, {model_name()}"
        if live
        else "a scripted model that fixes only what it is told"
    )
    print(
        f"Session 08 toy ({course_mode()}): a run becomes data. It is recorded as a trace (a tree of\n"
        "spans), written to a file, and replayed from that file with no model at all.\n"
    )
    print(
        f"1. Table {ORDER.table}'s {' and '.join(ORDER.items)}, drafted by {source}, recorded:",
        flush=True,
    )
    trace = record(make_client() if live else ScriptedClient(Script(FeedbackModel())))
    show(trace)
    folder = None if keep else tempfile.TemporaryDirectory(prefix="cafe-s08-")
    path = write_trace(trace, keep or Path(folder.name) / "run.jsonl")  # type: ignore[union-attr]
    where = path if keep else f"{path.name}, a temporary file (--keep FILE keeps it)"
    print(f"    written to {where}: {len(trace.spans)} spans, one per line")
    print(f"    content hash: {content_hash(trace)[:23]}… (the file's header records it)")

    print("\n2. The file, replayed with the same code and no model (replay_client):")
    loaded = read_trace(path)  # checks every line's digest, then the hash the file recorded
    try:
        again: Trace | None = replay(loaded)
    except ReplayDiverged as diverged:
        again, parted = None, diverged
    same = again is not None and content_hash(again) == loaded.recorded_hash
    trouble = MASKED if not same and masked_replies(loaded) else None
    if again is None:
        trouble = trouble or f"the replay of the file just written diverged: {parted}"
    if trouble is not None:
        if folder is not None:
            folder.cleanup()
        print(f"cafe toy 08: {trouble}", file=sys.stderr)
        return 1
    print(
        f"    ended {again.stop_reason}, hash {content_hash(again)[:23]}…: "
        + ("the same run, exactly" if same else "a different run")
    )

    menu = load_menu()
    changed = dataclasses.replace(menu, sold_out=menu.sold_out | {ORDER.items[-1]})
    print(f"\n3. The same file replayed after the {ORDER.items[-1]} went on the 86'd list:")
    try:
        replay(read_trace(path), menu=changed)
        print("    the replay matched: the change did not reach what the model was sent")
    except ReplayDiverged as diverged:
        first = diverged.difference.where.startswith("gen_ai.input.messages[0]")
        what = (
            "its first message (the system prompt, which lists the menu)"
            if first
            else f"what it sends ({diverged.difference.where})"
        )
        print(f"    stopped at model call {diverged.call} (ReplayDiverged): {what}")
        print(
            "    is not what the recording sent, so no recorded reply fits; the replay says so instead"
        )
        print("    of guessing.")
    if folder is not None:
        folder.cleanup()
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
