"""Session 07 toy: two orders through the bounded re-ask, each ending on a named stop.

    python sessions/s07-repair-loop/toy.py                      # offline: scripted drafts
    COURSE_MODE=live python sessions/s07-repair-loop/toy.py     # the same orders, your model

Order 1 is table 4's cheese omelette, which is 86'd today. Offline, the scripted drafts alternate
between a ticket with no table and a complete ticket for the omelette, so every attempt fails a
check and the run ends `retries_exhausted` with no ticket. Order 2 is a latte for a customer who
declared a milk allergy: it is stopped as `policy_violation` before anything is generated.

Live, order 1's drafts come from your endpoint through `make_model_generator(make_client())`; order
2 still never reaches it. A missing setting or an endpoint that does not answer is explained in
one message, with exit status 1; `cafe doctor` gives the full diagnosis.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from cafe.cli import run_command
from cafe.endpoint.client import make_client
from cafe.endpoint.config import course_mode, model_name
from cafe.endpoint.errors import ConfigError, EndpointError
from cafe.repair import (
    ALTERNATING_CANDIDATES, CAP_DEFAULT, OMELETTE_SPEC, UNSAFE_SPEC, RepairResult,
    make_model_generator, make_scripted_generator, repair_ticket,
)


class Counted:
    """Wraps a generator and counts its calls, so the toy can show the blocked order made none."""

    def __init__(self, generate: Callable[[list], Any]):
        self.generate, self.calls = generate, 0

    def __call__(self, messages: list) -> Any:
        self.calls += 1
        return self.generate(messages)


def describe(title: str, result: RepairResult, calls: int) -> list[str]:
    """A few readable lines for one run: each attempt's failed checks, then how it ended."""
    lines = [title]
    for attempt in result.attempts:
        found = "; ".join(f"{f.check} {f.span!r}" for f in attempt.failures) or "passed every check"
        lines.append(f"  attempt {attempt.number}: {found}")
    for failure in result.blocked_by:
        lines.append(f"  blocked before generation: {failure.check} {failure.span!r}")
    ticket = "none" if result.ticket is None else result.ticket.model_dump_json()
    lines.append(f"  stop_reason: {result.stop_reason}; ticket: {ticket}; generator calls: {calls}")
    return lines


def main() -> int:
    mode = course_mode()
    if mode == "offline":
        generate = make_scripted_generator(ALTERNATING_CANDIDATES)
        source = "scripted drafts alternating a missing table with the 86'd omelette"
    else:
        generate = make_model_generator(make_client())
        source = f"model {model_name()}"
    print(f"Session 07 toy ({mode}): the bounded re-ask, cap {CAP_DEFAULT}, curated retries.")
    for title, spec in ((f"Order 1: table 4, the cheese omelette ({source})", OMELETTE_SPEC),
                        ("Order 2: table 2, a latte, customer declared a milk allergy", UNSAFE_SPEC)):
        counted = Counted(generate)
        result = repair_ticket(spec, counted)
        print("\n".join(describe(title, result, counted.calls)))
    return 0


if __name__ == "__main__":
    try:
        sys.exit(run_command(main))
    except (ConfigError, EndpointError) as exc:
        print(f"toy.py: {exc}", file=sys.stderr)
        sys.exit(1)
