"""Your record as `cafe progress` prints it: one line per session, or one session in detail, or JSON.

`cafe.course.record` reads the progress file into a `LearnerRecord`; this module only shows it,
and declares the `cafe progress` command (`cafe.cli` adds it beside `doctor` and `toy`), whose
`--reset` and `--export` are `cafe.course.progress_reset` and `cafe.course.grading.handin`.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from cafe.course.progress import progress_path
from cafe.course.record import LearnerRecord, SessionRecord, read_record
from cafe.course.syllabus import SESSIONS
from cafe.endpoint.settings.reading import file_kind

__all__ = ["render_record_text", "record_as_json", "add_progress_command", "progress_command"]


def _cell_predictions(s: SessionRecord) -> str:
    if not s.predictions:
        return "-"
    text = f"{s.matched} of {s.made} matched"
    extras = [
        f"{s.waiting} waiting" if s.waiting else "",
        f"{s.unpredicted} run unpredicted" if s.unpredicted else "",
    ]
    return ", ".join([text, *filter(None, extras)])


def _unreadable_lines(record: LearnerRecord) -> list[str]:
    return [
        f"It cannot be read: {record.unreadable}.",
        "Nothing was changed. The next notebook cell that saves will keep it, unchanged, as "
        "progress.json.corrupt-1 and start a new file; copy entries back from it if you want them.",
    ]


def _overview_lines(record: LearnerRecord) -> list[str]:
    """One line per session, then the totals."""
    lines = [f"{'session':<26} {'predictions':<28} {'exercises':<14} checkpoints"]
    for s in record.sessions:
        banked = ", ".join(f"{c.name} [{c.source}, {c.model or 'no model'}]" for c in s.checkpoints)
        ex = f"{s.passed} of {len(s.exercises)} passed" if s.touched else "-"
        lines.append(f"{s.folder:<26} {_cell_predictions(s):<28} {ex:<14} {banked or '-'}")
    shown = record.sessions
    models = ", ".join(f"{m} ({n})" for m, n in record.models.items())
    lines.append(
        f"Total: {sum(s.matched for s in shown)} of {sum(s.made for s in shown)} predictions "
        f"matched; {sum(s.passed for s in shown)} of {sum(len(s.exercises) for s in shown)} "
        f"exercises passed; {sum(len(s.checkpoints) for s in shown)} checkpoints"
        + (f" from {models}" if models else "")
    )
    lines.append("Details for one session: cafe progress --session 07")
    return lines


def _detail_lines(s: SessionRecord) -> list[str]:
    """One session: each prediction beside its outcome, each exercise, each banked figure."""
    lines = [s.folder]
    for p in s.predictions:
        waiting = "no outcome yet" if p.guess is not None else "ran unpredicted"
        verdict = waiting if p.match is None else ("match" if p.match else "no match")
        lines.append(
            f"  predicted {p.key}: {json.dumps(p.guess, ensure_ascii=False)}  "
            f"actual: {json.dumps(p.actual, ensure_ascii=False)}  ({verdict})"
        )
    for e in s.exercises:
        problem = f"  first problem: {e.problem[:100]}" if e.problem else ""
        lines.append(f"  exercise {e.key}: {e.status}{problem}")
    for c in s.checkpoints:
        when = c.saved_at or "time not saved"
        lines.append(
            f"  banked {s.session}.{c.name} [{c.source}; {c.model or 'no model'}; {when}] "
            f"{c.value_text()}"
        )
    return lines


def render_record_text(record: LearnerRecord, session: str | None = None) -> str:
    """The record as `cafe progress` prints it: every session in a line, or `session` in detail."""
    lines = [f"Your progress file: {record.path}"]
    if record.unreadable:
        return "\n".join(lines + _unreadable_lines(record))
    if not record.exists:
        lines.append(
            "No progress file yet: it is written the first time a notebook records a prediction, "
            "an exercise or a checkpoint (start with notebooks/s00-setup.ipynb)."
        )
    if session is None:
        lines += _overview_lines(record)
    else:
        for s in record.sessions:
            if s.session == session:
                lines += _detail_lines(s)
    lines += [f"Not shown: {problem}" for problem in record.problems]
    return "\n".join(lines)


def record_as_json(record: LearnerRecord) -> dict[str, Any]:
    sessions = []
    for s in record.sessions:
        sessions.append(
            {
                "session": s.session,
                "folder": s.folder,
                "predictions": {
                    "made": s.made,
                    "matched": s.matched,
                    "missed": s.missed,
                    "waiting": s.waiting,
                    "unpredicted": s.unpredicted,
                    "entries": [asdict(p) for p in s.predictions],
                },
                "exercises": {
                    "passed": s.passed,
                    "known": len(s.exercises),
                    "entries": [asdict(e) for e in s.exercises],
                },
                "checkpoints": [asdict(c) for c in s.checkpoints],
            }
        )
    return {
        "file": record.path,
        "exists": record.exists,
        "readable": record.unreadable is None,
        "unreadable": record.unreadable,
        "problems": list(record.problems),
        "sessions": sessions,
    }


def _session_tag(text: str) -> str | None:
    """'07', '7' or 's07' as 's07'; None when it names no session of this course."""
    match = re.fullmatch(r"[sS]?(\d{1,2})", text.strip())
    if match is None or int(match.group(1)) >= len(SESSIONS):
        return None
    return f"s{int(match.group(1)):02d}"


def _not_a_file(name: str) -> str | None:
    """Why `--file name` cannot be a progress file ("is empty", "is a folder", "is a device, not a
    regular file"), or None: a regular file, or nothing yet (reading says what it finds)."""
    if not name.strip():
        return "is empty"
    try:
        kind = file_kind(os.stat(name).st_mode)
    except OSError:  # missing, or a name too long to look up: `read_record` says which
        return None
    return None if kind is None else f"is {kind}, not a regular file"


def progress_command(args: argparse.Namespace) -> int:
    """`cafe progress`: 0 when the record was shown, 1 when the file cannot be read, 2 for a bad
    `--session` or a `--file` that cannot be a file (empty, a folder, a pipe or a device)."""
    session = None
    if args.session is not None:
        session = _session_tag(args.session)
        if session is None:
            print(
                f"cafe progress: {args.session!r} is not a session; give 00 to "
                f"{len(SESSIONS) - 1:02d}, e.g. --session 07.",
                file=sys.stderr,
            )
            return 2
    what = None if args.file is None else _not_a_file(args.file)
    if what is not None:
        print(
            f"cafe progress: --file {args.file!r} {what}; name a progress file, e.g. "
            "--file backup/progress.json (or leave --file out for $CAFE_HOME/progress.json).",
            file=sys.stderr,
        )
        return 2
    if getattr(args, "reset", False) or getattr(args, "export", None) is not None:
        return _reset_or_export(args, session)
    record = read_record(args.file)
    if args.json:
        print(json.dumps(record_as_json(record), indent=2, ensure_ascii=False, sort_keys=True))
    else:
        print(render_record_text(record, session))
    return 1 if record.unreadable else 0


def _reset_or_export(args: argparse.Namespace, session: str | None) -> int:
    """`--reset` (a backup kept; `cafe.course.progress_reset`) or `--export` (the hand-in zip)."""
    from cafe.course.grading.handin import main as hand_in_main
    from cafe.course.progress_reset import reset_progress

    path = Path(args.file) if args.file else progress_path()
    if args.export is not None:
        hand_in = ["--progress", str(path), "--work", args.work]
        hand_in += ["--out", args.export] if args.export else []
        return hand_in_main(hand_in + (["--learner", args.learner] if args.learner else []))
    try:
        print(reset_progress(path, session))
    except ValueError as exc:
        print(f"cafe progress: {exc}", file=sys.stderr)
        return 1
    return 0


def add_progress_command(sub: argparse._SubParsersAction) -> None:
    """Declare `cafe progress [--json] [--session NN] [--file PATH] [--reset] [--export [ZIP]]`
    on `cafe`'s subcommands."""
    progress = sub.add_parser(
        "progress", help="print your record: predictions, exercises and banked figures"
    )
    progress.add_argument("--json", action="store_true", help="the record as JSON, for tools")
    progress.add_argument("--session", help="one session in detail, e.g. --session 07")
    progress.add_argument("--file", help="a progress file other than $CAFE_HOME/progress.json")
    progress.add_argument(
        "--reset",
        action="store_true",
        help="start over: the file is kept as progress.json.backup-N (with --session: one session)",
    )
    progress.add_argument(
        "--export",
        nargs="?",
        const="",
        metavar="ZIP",
        help="hand in: work/ notebooks and this file in one zip (default hand-in-<you>.zip)",
    )
    progress.add_argument("--learner", help="with --export: your name as your instructor knows it")
    progress.add_argument("--work", default="work", help="with --export: your notebooks' folder")
    progress.set_defaults(run=progress_command)
