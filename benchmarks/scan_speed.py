"""Speed of session 13's evidence scanning and of the agent loop, against their targets.

Prints, for 1 MB of hostile text (long runs of the characters each normalising rule scans), the
time `normalize_evidence` and `failure_snippet` take (target: under 0.2 s each), and the time of
1,000 scripted loop turns through `run_loop` and `run_with_stall` (target: under 1 s), each
beside the time at a quarter of the size (linear work: about 4x). The loop is timed with a model
that answers at once and keeps nothing, so the figure is the loop's own; the course's
`ScriptedClient` is timed too, since it keeps a copy of every request it is sent.
Usage: python benchmarks/scan_speed.py [--repeat N]
"""

from __future__ import annotations

import argparse
import time
from types import SimpleNamespace

from cafe.endpoint.client.scripted import ScriptedClient
from cafe.loop.agent import run_loop
from cafe.loop.tools import tool
from cafe.stall.detector import run_with_stall, stall_config
from cafe.stall.evidence import failure_snippet, normalize_evidence

HOSTILE = [
    "a.b\\c/",
    "x",
    "\n",
    "/tmp",
    "{'a', ",
    "1.1.",
    'File "',
    "pid ",
    "took 1",
    "E x\n",
    ".py:1",
    "\x1b[",
    "12:34:",
    " in 0.1s",
    "at 0x",
    "pytest-",
    "127.0.0.1:54321 ",
]
TEXT_TARGET, LOOP_TARGET = 0.2, 1.0


def _best(function, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        best = min(best, time.perf_counter() - start)
    return best


def _instant_model() -> SimpleNamespace:
    def create(**request):
        call = SimpleNamespace(
            id=None, function=SimpleNamespace(name="add_item", arguments='{"item": "latte"}')
        )
        return SimpleNamespace(
            choices=[SimpleNamespace(message=SimpleNamespace(content=None, tool_calls=[call]))]
        )

    return SimpleNamespace(chat=SimpleNamespace(completions=SimpleNamespace(create=create)))


def add_item(item: str) -> str:
    """Add an item to the ticket."""
    return f"added {item}"


def _loop_runs(turns: int) -> dict[str, object]:
    reply = {"content": None, "tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}]}
    ask, tools = [{"role": "user", "content": "latte"}], [tool(add_item)]
    aware = stall_config(repair_aware=True, stuck_same_diagnostic_after=turns + 1)
    return {
        "run_loop, instant model": lambda: run_loop(
            _instant_model(), ask, tools, model="m", max_turns=turns
        ),
        "run_with_stall, instant model": lambda: run_with_stall(
            _instant_model(), ask, tools, model="m", max_turns=turns, config=aware
        ),
        "run_loop, ScriptedClient": lambda: run_loop(
            ScriptedClient([reply] * turns), ask, tools, model="m", max_turns=turns
        ),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="best of N runs (default 3)")
    args = parser.parse_args()
    print(f"1 MB of hostile text (target < {TEXT_TARGET} s); in brackets: 256 KB")
    worst = 0.0
    for unit in HOSTILE:
        big = (unit * (1_000_000 // len(unit) + 1))[:1_000_000]
        row = []
        for function in (normalize_evidence, failure_snippet):
            large = _best(lambda f=function, text=big: f(text), args.repeat)
            small = _best(lambda f=function, text=big[:250_000]: f(text), args.repeat)
            worst = max(worst, large)
            row.append(f"{function.__name__} {large:.3f} s ({small:.3f})")
        print(f"  {unit!r:22} " + "   ".join(row))
    print(f"  slowest: {worst:.3f} s ({'within' if worst < TEXT_TARGET else 'OVER'} target)")
    print(f"\n1,000 loop turns (target < {LOOP_TARGET} s); in brackets: 250 turns")
    small_runs, large_runs = _loop_runs(250), _loop_runs(1_000)
    for name, run in large_runs.items():
        large = _best(run, args.repeat)
        small = _best(small_runs[name], args.repeat)
        verdict = "within" if large < LOOP_TARGET else "OVER"
        print(f"  {name:32} {large:.3f} s ({small:.3f})  {verdict} target")


if __name__ == "__main__":
    main()
