"""How the offline client scales with a long conversation: 10,000 turns, time and peak memory.

    python benchmarks/scripted_turns.py                 # 10,000 turns, three ways
    python benchmarks/scripted_turns.py --turns 40000   # the same at another length

Each turn sends the whole conversation so far, as the agent loop sends its transcript (one list,
grown by two messages a turn), and appends the answer and the next user message. Three ways:

- `client`: `ScriptedClient.chat.completions.create` alone, the scripted model's own cost;
- `chat`: the same through `cafe.endpoint.client.chat.chat`, the one door every call goes through
  offline and live (reply cap, the deadline's worker thread, the check of the answer);
- `chat, rebuilt`: `chat` with a new list every turn (a caller that copies its messages), which
  costs one copy per call: the case the running log cannot help, run over `--rebuilt` turns
  (default 2,000) since it grows with the square of the length.

It prints the seconds, the microseconds per turn, and the peak memory the run added (tracemalloc,
in a second pass, since tracing slows the first). The target (issue 25) is 10,000 turns in under
2 s through `chat`; before the running log, 10,000 turns took 34 s and 821 MiB. It asserts
nothing: the figures depend on the machine, so quote the date, the core count and the Python
version with them.
"""

from __future__ import annotations

import argparse
import datetime
import os
import platform
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from cafe.endpoint.client.chat import chat  # noqa: E402
from cafe.endpoint.client.scripted import Script, ScriptedClient  # noqa: E402

MODEL = "cafe-scripted"
FIRST = {"role": "user", "content": "A latte for table 5, please. " * 4}


def run(
    turns: int, ask: Callable[[ScriptedClient, list[dict[str, Any]]], Any], rebuild: bool
) -> ScriptedClient:
    """`turns` turns of one growing conversation, each asked with `ask(client, messages)`."""
    client = ScriptedClient(Script(["ok"], cycle=True))
    messages: list[dict[str, Any]] = [dict(FIRST)]
    for turn in range(turns):
        ask(client, list(messages) if rebuild else messages)
        messages.append({"role": "assistant", "content": "ok"})
        messages.append({"role": "user", "content": f"turn {turn}: 42 items checked"})
    return client


def direct(client: ScriptedClient, messages: list[dict[str, Any]]) -> Any:
    return client.chat.completions.create(model=MODEL, messages=messages)


def through_chat(client: ScriptedClient, messages: list[dict[str, Any]]) -> Any:
    return chat(client, model=MODEL, messages=messages)


def measure(name: str, turns: int, ask: Any, rebuild: bool = False) -> None:
    run(3, ask, rebuild)  # warm: `openai` and pydantic's models load on the first call, not here
    started = time.perf_counter()
    client = run(turns, ask, rebuild)
    seconds = time.perf_counter() - started
    last = client.calls[-1]["messages"]
    assert len(last) == 2 * turns - 1 and len(client.calls[0]["messages"]) == 1
    tracemalloc.start()
    run(turns, ask, rebuild)
    peak = tracemalloc.get_traced_memory()[1] / 2**20
    tracemalloc.stop()
    print(
        f"  {name:<16} {seconds:6.2f} s  {seconds / turns * 1e6:7.1f} µs/turn  peak {peak:7.1f} MiB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--turns", type=int, default=10_000)
    parser.add_argument(
        "--rebuilt", type=int, default=2_000, help="turns for the rebuilt case (it is quadratic)"
    )
    args = parser.parse_args(argv)
    print(
        f"scripted_turns: {args.turns} turns, {datetime.date.today()}, {os.cpu_count()} cores, "
        f"Python {platform.python_version()}"
    )
    measure("client", args.turns, direct)
    measure("chat", args.turns, through_chat)
    if args.rebuilt:
        measure("chat, rebuilt", args.rebuilt, through_chat, rebuild=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
