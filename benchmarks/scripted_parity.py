"""What offline parity with live costs a long transcript: the surrogate check and the responder's copy.

    python benchmarks/scripted_parity.py                # 4,000 turns; the full passes over 1,000
    python benchmarks/scripted_parity.py --turns 10000 --full 0

The scripted client checks each message for a lone surrogate once, as it enters its log, and
hands a responder `Copies`, which deep-copies only the messages it reads
(`cafe.endpoint.client.scripted`). This times one growing conversation (one list, two messages
a turn, as the agent loop sends its transcript, with a menu of tools) answered by a responder
that reads the customer's last message, through `ScriptedClient.chat.completions.create`, and
prints seconds and microseconds per turn. Run it from a checkout of the previous commit too
(`git archive HEAD~1 | tar -x -C /tmp/before`) to compare before and after.

For scale it then times, over the same transcript, the two full passes per call that were not
chosen: encoding every message as the SDK does (`json.dumps(..., ensure_ascii=False)` then UTF-8
strict) and deep-copying every message, over `--full` turns (default 1,000), since each grows
with the square of the run's length. It asserts nothing: quote the date, the core count and the Python version with the figures.
"""

from __future__ import annotations

import argparse
import copy
import datetime
import json
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cafe.endpoint.client.scripted import ScriptedClient  # noqa: E402

MODEL = "cafe-scripted"
FIRST = {"role": "user", "content": "A latte for table 5, please. " * 4}
# Two tools with small schemas, as the course's loops offer them.
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": name,
            "parameters": {
                "type": "object",
                "properties": {"item": {"type": "string"}, "table": {"type": "integer"}},
                "required": ["item"],
            },
        },
    }
    for name in ("add_item", "remove_item")
]


def conversation(turns: int) -> float:
    """Seconds for `turns` turns through the scripted client, one list grown by appends."""
    client = ScriptedClient(lambda request: request["messages"][-1]["content"][:20])
    messages: list[dict[str, Any]] = [dict(FIRST)]
    started = time.perf_counter()
    for turn in range(turns):
        client.chat.completions.create(model=MODEL, messages=messages, tools=TOOLS)
        messages.append({"role": "assistant", "content": "Added a latte for table 5."})
        messages.append({"role": "user", "content": f"turn {turn}: and a flat white, please"})
    return time.perf_counter() - started


def full_pass(turns: int, each: Callable[[list[dict[str, Any]]], Any]) -> float:
    """Seconds spent in `each` over the whole transcript so far, on every one of `turns` calls."""
    messages: list[dict[str, Any]] = [dict(FIRST)]
    seconds = 0.0
    for turn in range(turns):
        started = time.perf_counter()
        each(messages)
        seconds += time.perf_counter() - started
        messages.append({"role": "assistant", "content": "Added a latte for table 5."})
        messages.append({"role": "user", "content": f"turn {turn}: and a flat white, please"})
    return seconds


def show(name: str, seconds: float, turns: int) -> None:
    print(f"  {name:<34} {seconds:7.2f} s  {seconds / turns * 1e6:8.1f} µs/turn")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=4_000)
    parser.add_argument("--full", type=int, default=1_000, help="turns for the full passes")
    args = parser.parse_args(argv)
    turns, full = args.turns, args.full
    print(
        f"scripted_parity: {turns} turns, {datetime.date.today()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}, cafe from {Path(__file__).resolve().parent.parent}"
    )
    conversation(3)  # warm: `openai` and pydantic's models load on the first call, not here
    show("client, a responder reading the last", conversation(turns), turns)
    encode = lambda m: json.dumps(m, ensure_ascii=False).encode("utf-8")  # noqa: E731
    if full:
        print(f"  over {full} turns:")
        show("client, a responder reading the last", conversation(full), full)
        show("not chosen: encode all, every call", full_pass(full, encode), full)
        show("not chosen: deep-copy all, every call", full_pass(full, copy.deepcopy), full)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
