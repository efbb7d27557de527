"""From trace files to the shift report: each recorded repair run read back as a `RunRecord`.

Session 09 (`sessions/s09-shift-report/lesson.md`, notebook `notebooks/s09-shift-report.ipynb`).
Session 08 records each run as a trace (`cafe.trace`). This module adds the reading side the
report needs:

- `record_from_trace`: one repair run's trace as a `cafe.report.RunRecord`: it ends on the run's
  stop reason; the
  attempt spans, the tokens its model calls reported, the checks that failed, how long it took,
  and the file it came from, so the report can link the run to its trace;
- `read_shift`: every trace in a list of files, plus one sentence for each file or run that
  cannot be counted (a file cut off mid-line, a run of another harness, a run already read from
  another file), or that shares its id with a different run, never a traceback.

A trace without usage, or with a count missing from any model call, is still counted; its tokens
are unknown (`cafe.trace.spans.Trace.usage`), and `cafe.report.summarize` names it.
An order front of house sent back has no trace: the loop never ran, so there is nothing to read
back, and its record comes from `record_from_sent_back` when the shift runs. A trace that ends on
`needs_consent` was written by an earlier version of the course, whose loop sent such orders back
itself; it is refused with a sentence that says so. What it leaves out: traces of the agent loop
(session 01's `run_loop`), whose stop reasons are a different set, and replaying a run (session 08).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from pathlib import Path

from cafe.endpoint.secrets.redaction import redact
from cafe.repair.reask import StopReason
from cafe.report.records import STOP_ORDER, RunRecord
from cafe.trace.record import TraceFileError, read_traces
from cafe.trace.spans import AGENT_NAME, CHECK_FAILURES, Trace, content_hash

__all__ = ["NO_MODEL", "record_from_trace", "read_shift"]

# The model a run is filed under when its trace holds no model call (stopped before any draft).
NO_MODEL = "(no model call)"
# The stop reason an earlier version of the course's loop gave an order it sent back to the
# customer; front of house does that now, before the loop, and no loop run ends on it.
_RETIRED = "needs_consent"


def _stop_reason(trace: Trace) -> StopReason:
    """The trace's stop reason, one of the repair loop's three; ValueError naming anything else."""
    reason = trace.stop_reason
    if reason == _RETIRED:
        raise ValueError(
            f"run {trace.trace_id} ends on {reason!r}, a stop reason the repair loop no longer has: "
            "an earlier version of the course recorded an order sent back to the customer that way. "
            "Run the shift again to count it; front of house now sends it back before any run."
        )
    for known in STOP_ORDER:
        if reason == known:
            return known
    agent = trace.root.get(AGENT_NAME) or "an unnamed harness"
    raise ValueError(
        f"run {trace.trace_id} (from {agent}) ends on {reason!r}, which is not a repair stop "
        f"reason ({', '.join(STOP_ORDER)}); this report counts runs of cafe.repair only."
    )


def record_from_trace(trace: Trace, *, path: str | Path | None = None) -> RunRecord:
    """The report's view of one recorded repair run; ValueError when it is not one."""
    if not isinstance(trace, Trace):
        raise TypeError(
            f"record_from_trace() takes a cafe.trace.spans.Trace (see cafe.trace.read_traces), "
            f"not {type(trace).__name__}."
        )
    reason = _stop_reason(trace)
    attempts = len(trace.of_kind("attempt"))
    usage = trace.usage if attempts else (0, 0)  # no attempt: nothing was sent, nothing billed
    tokens_in, tokens_out = usage if usage is not None else (None, None)
    failures = Counter(
        name for span in trace.of_kind("check") for name in span.get(CHECK_FAILURES) or []
    )
    return RunRecord(
        trace.trace_id,
        reason,
        attempts,
        trace.model or NO_MODEL,
        tokens_in,
        tokens_out,
        seconds=round(trace.duration_s, 6),
        failures=dict(sorted(failures.items())),
        trace=None if path is None else redact(str(path)),  # a folder named with the key
    )


def _shared_id(run_id: str, path: str | Path, source: str | Path) -> str:
    """The note for a run whose id an earlier, different run already has (say, a run recorded
    again under a fixed id): both are counted, and a reader of the report should know why one id
    shows twice."""
    return redact(
        f"Two runs share the id {run_id}: the one from {path} differs from the one read from "
        f"{source} (another start or content); both are counted."
    )


def read_shift(paths: Iterable[str | Path]) -> tuple[tuple[RunRecord, ...], tuple[str, ...]]:
    """Every repair run in the trace files at `paths`, and a sentence for each that is left out
    or that shares its id with a different run.

    A path is shown with any secret in it masked, in the sentences and in `RunRecord.trace`, as
    `TraceFileError` shows it: a folder named with the key would otherwise print the key.

    A run found again in a later file (the same id, start time and content: a file copied, or a
    run appended to a second file) is counted once. Two different runs under one id, from two
    files, are both counted, with a sentence naming both files. Pass the sentences on as
    `summarize(runs, notes=problems)` so the report shows them.
    """
    runs: list[RunRecord] = []
    problems: list[str] = []
    seen: dict[tuple[str, str, str], tuple[int, str | Path]] = {}  # run -> (file number, file)
    by_id: dict[str, tuple[str, str, str]] = {}  # run id -> the first run counted under it
    for number, path in enumerate(paths):
        try:
            traces = read_traces(path)
        except TraceFileError as exc:
            problems.append(f"Not counted: {exc}")
            continue
        for trace in traces:
            key = (trace.trace_id, trace.started_at, trace.recorded_hash or content_hash(trace))
            first, source = seen.setdefault(key, (number, path))
            if first != number:
                problems.append(
                    redact(
                        f"Not counted twice, from {path}: run {trace.trace_id} is the same run "
                        f"as the one read from {source} (same id, start and content)."
                    )
                )
                continue
            try:
                runs.append(record_from_trace(trace, path=path))
            except ValueError as exc:
                problems.append(redact(f"Not counted, from {path}: {exc}"))
                continue
            other = by_id.setdefault(trace.trace_id, key)  # only counted runs are compared
            if other != key:
                problems.append(_shared_id(trace.trace_id, path, seen[other][1]))
    return tuple(runs), tuple(problems)
