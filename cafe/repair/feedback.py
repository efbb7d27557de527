"""What a retry is told: the brief, the failure view, and the two retry modes.

Session 07 (`sessions/s07-repair-loop/lesson.md`, notebook `notebooks/s07-repair-loop.ipynb`).
A retry helps only as much as it tells the model something the first attempt did not know, so
what it is sent is an interface to design. This module holds that interface, apart from the loop
that uses it (`cafe.repair.reask`):

- `brief_for`: the first attempt's messages, the approved order with the customer's words marked
  as untrusted data;
- `attempt_failure_view` / `failure_view`: one line per failed check (its name, the span it
  quotes, the fix), under the change-nothing-else line, never more than `VIEW_FAILURES_MAX` lines;
- `retry_messages`: what the next attempt is sent in each of the two `RETRY_MODES`: the brief again
  (`naive`) or the brief plus the failure view (`curated`); never the failed draft.

A failure view stays short whatever the draft held: every `Failure` clips its span and fix where
it is made (`cafe.schema.clip`), and `failure_view` lists at most `VIEW_FAILURES_MAX` of them.
What it leaves out: scoring a draft and the loop itself (`cafe.repair.reask`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Literal, get_args

from cafe.consent import OrderSpec
from cafe.context import customer_words
from cafe.schema.ticket import Failure

__all__ = [
    "RETRY_MODES",
    "RetryMode",
    "CHANGE_NOTHING_ELSE",
    "VIEW_FAILURES_MAX",
    "Message",
    "attempt_failure_view",
    "failure_view",
    "brief_for",
    "check_mode",
    "retry_messages",
]

# What a retry may see: the identical brief (`naive`) or the brief plus a failure view (`curated`).
RetryMode = Literal["naive", "curated"]
RETRY_MODES: tuple[RetryMode, ...] = get_args(RetryMode)

# The first line of every failure view. Without it, models fix the named defect and "improve"
# something else on the way, which the next scoring then fails.
CHANGE_NOTHING_ELSE = (
    "Your last ticket was rejected. Write the ticket for the same order again, "
    "fixing only what is listed below. Change nothing else."
)

# The most failures one view lists. A draft can fail once per item, and a draft of a thousand
# items would otherwise send a thousand lines; the first few are enough to fix, and the next
# attempt's scoring shows the rest. Eight covers every failure of any real order in the course.
VIEW_FAILURES_MAX = 8

# One chat message: a role and its content.
Message = dict[str, str]


def attempt_failure_view(failures: Sequence[Failure], attempt: int) -> str:
    """One short line per failure, under a line naming the attempt. (The notebook's exercise.)"""
    lines = [f"Attempt {attempt} failed {len(failures)} check{'' if len(failures) == 1 else 's'}:"]
    lines += [f"- {failure.line()}" for failure in failures]
    return "\n".join(lines)


def failure_view(failures: Sequence[Failure], attempt: int) -> str:
    """What a curated retry adds to the brief: the change-nothing-else line, then the failures.

    At most `VIEW_FAILURES_MAX` failures are listed, then one line counting the rest.
    """
    shown = attempt_failure_view(failures[:VIEW_FAILURES_MAX], attempt)
    hidden = len(failures) - VIEW_FAILURES_MAX
    more = (
        f"\n({hidden} more failure{'' if hidden == 1 else 's'} not shown: fix these first.)"
        if hidden > 0
        else ""
    )
    return f"{CHANGE_NOTHING_ELSE}\n{shown}{more}"


def brief_for(spec: OrderSpec) -> tuple[Message, ...]:
    """The first attempt's messages: the approved order, with the customer's words marked untrusted."""
    text = (
        f"Order for table {spec.table}.\n"
        f"Items: {', '.join(spec.items)}\n"
        f"Declared allergies: {', '.join(spec.allergies) or 'none'}\n"
        f"Notes for the kitchen: {spec.notes or '(none)'}\n"
        f"{customer_words(spec.request)}\n"
        "Write the kitchen ticket for this order."
    )
    return ({"role": "user", "content": text},)


def check_mode(mode: object) -> RetryMode:
    """`mode` as a `RetryMode`, or a ValueError naming the two modes (callers pass plain text)."""
    for known in RETRY_MODES:
        if mode == known:
            return known
    raise ValueError(f"Unknown retry mode {mode!r}; use one of: {', '.join(RETRY_MODES)}.")


def retry_messages(
    brief: Sequence[Message],
    failures: Sequence[Failure],
    attempt: int,
    mode: RetryMode = "curated",
) -> tuple[Message, ...]:
    """The messages for the attempt after `attempt`. Never includes a failed draft.

    `naive`: the identical brief again. `curated`: the brief plus `failure_view(failures, attempt)`.
    """
    mode = check_mode(mode)
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        raise ValueError(
            f"attempt is {attempt!r}; pass the number (1, 2, ...) of the attempt that failed."
        )
    copied = tuple(dict(message) for message in brief)
    if mode == "naive":
        return copied
    if not failures:
        raise ValueError("A curated retry needs the failures that rejected the draft; got none.")
    return copied + ({"role": "user", "content": failure_view(failures, attempt)},)
