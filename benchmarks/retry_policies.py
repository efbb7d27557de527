"""Prompt size per attempt under three retry policies, on session 07's scripted run.

    python benchmarks/retry_policies.py                   # offline: scripted endpoint
    python benchmarks/retry_policies.py --cap 6           # a longer run shows the growth
    COURSE_MODE=live python benchmarks/retry_policies.py  # your endpoint answers

The run is the lesson's worked example: table 4 orders the 86'd cheese omelette, and the drafts
alternate between a ticket with no table and a complete ticket for the omelette, so every attempt
fails and all `CAP_DEFAULT` attempts are spent. Each policy decides what attempt k is sent:

- `naive`: the identical brief (`cafe.repair.retry_messages(..., "naive")`);
- `curated`: the brief plus the failure view of the last attempt, no failed draft
  (`retry_messages(..., "curated")`, what `repair_ticket` does by default);
- `accumulate`: the brief, then every failed draft as an assistant message followed by its
  errors as a user message. This is the usual default of retry libraries for structured output
  (Instructor, and similar reask loops), implemented here by `accumulate_messages`.

For every attempt it prints the characters sent (system prompt included) and the prompt tokens
the endpoint reported. Offline the endpoint is the scripted client, whose token counts are an
estimate (one token per four characters, `cafe.endpoint.client.scripted.estimate_tokens`); live they are your
endpoint's own counts.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from dataclasses import dataclass

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import Script
from cafe.endpoint.errors import ConfigError, EndpointError
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.repair.feedback import Message, attempt_failure_view, brief_for, retry_messages
from cafe.repair.reask import (
    ALTERNATING_CANDIDATES,
    CAP_DEFAULT,
    OMELETTE_SPEC,
    make_model_generator,
    score_ticket,
)
from cafe.schema.ticket import Failure
from cafe.world.menu import load_menu

POLICIES = ("naive", "curated", "accumulate")


@dataclass(frozen=True)
class Row:
    policy: str
    attempt: int
    messages: int
    prompt_chars: int
    prompt_tokens: int | None
    checks: str


def accumulate_messages(
    brief: Sequence[Message], history: Sequence[tuple[str, Sequence[Failure]]]
) -> tuple[Message, ...]:
    """The keep-everything retry: the brief, then each failed draft and its errors, in order."""
    messages = [dict(m) for m in brief]
    for number, (draft, failures) in enumerate(history, start=1):
        messages.append({"role": "assistant", "content": draft})
        messages.append(
            {
                "role": "user",
                "content": "Please fix these errors and try again.\n"
                + attempt_failure_view(failures, number),
            }
        )
    return tuple(messages)


def run_policy(policy: str, client, cap: int = CAP_DEFAULT) -> list[Row]:
    """Spend up to `cap` attempts on the worked example under `policy`; one row per attempt."""
    menu = load_menu()
    generate = make_model_generator(client, menu=menu)
    brief = brief_for(OMELETTE_SPEC)
    messages: tuple[Message, ...] = brief
    history: list[tuple[str, Sequence[Failure]]] = []
    rows = []
    for number in range(1, cap + 1):
        draft = generate(list(messages))
        score = score_ticket(draft.text, OMELETTE_SPEC, menu)
        chars = len(generate.system_prompt) + sum(len(m["content"]) for m in messages)
        tokens = draft.usage.prompt_tokens if draft.usage is not None else None
        checks = ", ".join(f.check for f in score.failures) or "passed"
        rows.append(Row(policy, number, len(messages) + 1, chars, tokens, checks))
        if score.ticket is not None:
            break
        history.append((draft.text, score.failures))
        if policy == "accumulate":
            messages = accumulate_messages(brief, history)
        else:
            messages = retry_messages(brief, score.failures, number, policy)
    return rows


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cap", type=int, default=CAP_DEFAULT, help=f"attempts per policy (default {CAP_DEFAULT})"
    )
    cap = parser.parse_args(argv).cap
    if cap < 1:
        parser.error("--cap must be 1 or more")
    mode = course_mode()
    print(
        f"Retry policies on the session 07 scripted run ({mode}, model {model_name()}, cap {cap})"
    )
    print(
        f"{'policy':<11}{'attempt':>8}{'messages':>10}{'prompt chars':>14}{'prompt tokens':>15}  checks failed"
    )
    totals = {}
    for policy in POLICIES:
        # A fresh client per policy, so offline each one starts the alternating drafts from the top
        # (live, the script is ignored and the endpoint answers every policy).
        client = make_client(Script(ALTERNATING_CANDIDATES, cycle=True))
        rows = run_policy(policy, client, cap)
        for row in rows:
            tokens = "-" if row.prompt_tokens is None else str(row.prompt_tokens)
            print(
                f"{row.policy:<11}{row.attempt:>8}{row.messages:>10}{row.prompt_chars:>14}{tokens:>15}  {row.checks}"
            )
        totals[policy] = (
            sum(r.prompt_chars for r in rows),
            sum(r.prompt_tokens or 0 for r in rows)
            if all(r.prompt_tokens is not None for r in rows)
            else None,
        )
    print("\ntotal over the run:")
    for policy, (chars, tokens) in totals.items():
        extra = f", {tokens} prompt tokens" if tokens is not None else ""
        print(f"  {policy:<11}{chars} characters{extra}")
    if mode == "offline":
        print(
            "(offline token counts are the scripted endpoint's estimate: one token per four characters)"
        )
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except (ConfigError, EndpointError) as exc:
        print(f"retry_policies.py: {exc}", file=sys.stderr)
        sys.exit(1)
