"""Whether a recording can be replayed: checked once, before the replay answers anything.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). A replay
(`cafe.trace.replay`) starts only from a trace that checks out, so a recording that could not
answer fails at the start, with the file's own error, and never halfway through a run. This
module adds `check_replayable(trace)`, which refuses, as a `TraceFileError`:

- a span whose attributes do not have the shapes a replay reads (`cafe.trace.attribute_shapes`);
- a trace read from a file that no longer hashes to what the file recorded;
- a model call that recorded neither a reply nor an error (`error.type`): asked for that call,
  the replay would have nothing to answer and nothing to raise.

What it leaves out: answering the calls, and telling a changed run from its recording
(`cafe.trace.replay`).
"""

from __future__ import annotations

from cafe.trace.attribute_shapes import ShapeError, check_attributes
from cafe.trace.attributes import ERROR_TYPE, OUTPUT_MESSAGES
from cafe.trace.lines import TraceFileError
from cafe.trace.spans import Trace, content_hash

__all__ = ["check_replayable"]


def check_replayable(trace: Trace) -> None:
    """Refuse, as a `TraceFileError` naming the trace and the span, a `trace` that a replay could
    not answer from: attributes of the wrong shape, a content hash that changed since the file
    was read, or a model call with no reply and no error."""
    where = f"trace {trace.trace_id!r}"
    for span in trace.spans:
        try:
            check_attributes(span.attributes)
        except ShapeError as exc:
            raise TraceFileError(
                where, 0, f"span {span.name!r} (id {span.span_id}): {exc}."
            ) from None
    if trace.recorded_hash is not None and content_hash(trace) != trace.recorded_hash:
        raise TraceFileError(
            where,
            0,
            f"hashes to {content_hash(trace)}, but its file recorded {trace.recorded_hash}; "
            "it was changed after it was read.",
        )
    for number, call in enumerate(trace.model_calls, start=1):
        if not call.get(OUTPUT_MESSAGES) and call.get(ERROR_TYPE) is None:
            raise TraceFileError(
                where,
                0,
                f"model call {number} (span {call.name!r}, id {call.span_id}) recorded neither "
                f"a reply ({OUTPUT_MESSAGES}) nor an error ({ERROR_TYPE}), so a replay could not "
                "answer it; re-record the run.",
            )
