"""Live cells that survive a slow or dead endpoint: one line, and the notebook goes on.

A live cell calls your model. When the endpoint times out, refuses the key or drops the
connection, the cell should not stop the notebook with a traceback (every cell after it, the
checkpoint included, would never run). Instead:

- `live_story(key, run)` runs one story. An `EndpointError` prints one line naming the problem,
  is noted under `live_failures` in your progress file, and comes back as a `LiveStory` whose
  `failed` says which problem it was. A `ConfigError` (a variable missing or malformed) is still
  raised: that is set-up, and the fix is yours to make before anything else runs.
- `LiveStory.skipped(what)` is how a later cell that needs the story's result asks: when the story
  failed it prints "skipped: ..." and answers True.
- `each_live(key, items, run)` does the same per item (a shift of orders, a list of requests), so
  one timeout costs one order, not the nineteen that went well.

In strict mode (`CAFE_STRICT=1`, `cafe.course.strict`, for instructors) the endpoint problem also
fails the cell, once per story or batch. Nothing you banked earlier is touched: `cafe.course.checkpoint(..., needs=[story])` keeps an
earlier figure when a story it needs failed (see `cafe.course.toolkit`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from cafe.course.cells import say, split_key, stamp
from cafe.course.progress import record
from cafe.course.strict import fail_cell
from cafe.endpoint.errors import EndpointError

__all__ = ["LiveStory", "LiveBatch", "live_story", "each_live"]

T = TypeVar("T")
Item = TypeVar("Item")


def _first_sentence(text: str) -> str:
    """The error's first sentence: enough for one line (the message is already key-scrubbed)."""
    head = text.strip().split("\n", 1)[0]
    cut = head.find(". ")
    return head[: cut + 1] if cut > 0 else head


@dataclass(frozen=True)
class LiveStory(Generic[T]):
    """One live story: what it returned, or the endpoint problem that stopped it.

    `failed` is the `EndpointError`'s kind ("timeout", "connection", "key_refused", ...), None when
    the story ran to its end; `reason` is the error's first sentence.
    """

    key: str
    value: T | None = None
    failed: str | None = None
    reason: str = ""

    @property
    def ok(self) -> bool:
        return self.failed is None

    def skipped(self, what: str) -> bool:
        """True, after saying so in one line, when this story failed and `what` cannot run."""
        if self.ok:
            return False
        say(
            f"skipped: {what} needs {self.key}, which stopped on an endpoint problem ({self.failed})."
        )
        return True


def _note_failure(key: str, exc: EndpointError, model: str | None) -> LiveStory[Any]:
    """Say what stopped `key` in one line, note it in the progress file, return the failed story."""
    reason = _first_sentence(str(exc))
    say(
        f"live: {key} stopped: {reason}\n"
        f"  The cells that need it will say they are skipped; what you banked earlier is kept."
    )
    entry = {"kind": exc.kind, "reason": reason, "model": model, "saved_at": stamp()}
    record("live_failures", key, entry)
    fail_cell(f"live story {key} stopped on an endpoint problem ({exc.kind}): {reason}")
    return LiveStory(key, failed=exc.kind, reason=reason)


def live_story(key: str, run: Callable[[], T], *, model: str | None = None) -> LiveStory[T]:
    """Run one live story; an endpoint problem becomes a failed `LiveStory`, never a traceback."""
    split_key(key)  # a bad key is the notebook author's mistake: say so before calling the model
    try:
        return LiveStory(key, value=run())
    except EndpointError as exc:
        return _note_failure(key, exc, model)


@dataclass(frozen=True)
class LiveBatch(Generic[Item, T]):
    """`each_live`'s answer: the items that ran with their results, and those that did not."""

    key: str
    done: list[tuple[Item, T]] = field(default_factory=list)
    failed: list[tuple[Item, str]] = field(default_factory=list)

    @property
    def values(self) -> list[T]:
        return [value for _, value in self.done]

    def summary(self, noun: str = "items") -> str:
        """One line: how many of the batch hit an endpoint problem, and what the figures cover."""
        total = len(self.done) + len(self.failed)
        if not self.failed:
            return f"all {total} {noun} reached your model."
        kinds = sorted({kind for _, kind in self.failed})
        return (
            f"{len(self.failed)} of {total} {noun} hit an endpoint problem ({', '.join(kinds)}); "
            f"the figures below cover the other {len(self.done)}."
        )

    def skipped(self, what: str) -> bool:
        """True, after one line, when no item ran at all (nothing for `what` to work on)."""
        if self.done or not self.failed:
            return False
        say(f"skipped: {what} needs {self.key}, and every item hit an endpoint problem.")
        return True


def each_live(
    key: str, items: Iterable[Item], run: Callable[[Item], T], *, model: str | None = None
) -> LiveBatch[Item, T]:
    """`run(item)` for every item; an item whose call hits an endpoint problem is set aside.

    The first problem is noted under `live_failures` like `live_story`'s; the rest are counted in
    the batch (`LiveBatch.summary` says how many), so one timeout costs one item.
    """
    split_key(key)
    batch: LiveBatch[Item, T] = LiveBatch(key)
    for item in items:
        try:
            batch.done.append((item, run(item)))
        except EndpointError as exc:
            if not batch.failed:
                _note_failure(key, exc, model)
            batch.failed.append((item, exc.kind))
    if batch.failed:
        say(f"live: {key}: {batch.summary()}")
    return batch
