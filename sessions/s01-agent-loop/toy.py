"""Session 01 toy: the agent loop takes a café order through tools, and stops on a name.

    python sessions/s01-agent-loop/toy.py                    # offline: a scripted waiter
    COURSE_MODE=live python sessions/s01-agent-loop/toy.py   # your model takes the order

Two runs. In the first, the model looks the items up on the menu, writes them on the kitchen
ticket, and says it is done. In the second, offline, a runaway model keeps looking up the same
latte; the turn budget stops it, and then `repeat_guard` stops it sooner. Offline the output is
the same on every run. Live, a missing variable or an unusable endpoint is explained in one
message and the toy exits with status 1.
"""

from __future__ import annotations

import sys

import cafe
from cafe.cli import run_command
from cafe.loop import repeat_guard, run_loop
from cafe.menu import load_menu
from cafe.orderpad import OrderPad

ORDER = [
    {"role": "system", "content": "You take orders at a café. Look items up on the menu, add what the "
                                  "customer wants to the kitchen ticket, then say what you wrote."},
    {"role": "user", "content": "Two lattes and a croissant, please."},
]


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


# What the scripted waiter says, turn by turn (offline only).
WAITER = [
    {"content": None, "tool_calls": [call("look_up", item="latte"), call("look_up", item="croissant")]},
    {"content": None, "tool_calls": [call("add_to_ticket", item="latte", quantity=2),
                                     call("add_to_ticket", item="croissant", quantity=1)]},
    "On the ticket: 2 x latte, 1 x croissant.",
]
RUNAWAY = [{"content": None, "tool_calls": [call("look_up", item="latte")]}] * 6


def describe(result, pad: OrderPad) -> list[str]:
    lines = []
    for turn in result.turns:
        asked = ", ".join(f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})"
                          for c in turn.calls) or "no tools: answers"
        lines.append(f"  turn {turn.turn}: {asked}")
    ticket = "; ".join(f"{line.quantity} x {line.item}" for line in pad.ticket) or "empty"
    lines.append(f"  stop: {result.stop_reason} ({result.detail}); ticket: {ticket}")
    return lines


def main() -> int:
    try:
        live = cafe.course_mode() == "live"
        print(f"mode: {cafe.course_mode()} (model {cafe.model_name()})")
        pad = OrderPad(load_menu())
        result = run_loop(cafe.make_client(None if live else WAITER), ORDER, pad.tools, max_turns=6)
        print("the order:")
        print("\n".join(describe(result, pad)))
        if not live:
            pad = OrderPad(load_menu())
            result = run_loop(cafe.make_client(RUNAWAY), ORDER, pad.tools, max_turns=4)
            print("a runaway model, max_turns=4:")
            print("\n".join(describe(result, pad)[-1:]))
            result = run_loop(cafe.make_client(RUNAWAY), ORDER, pad.tools, max_turns=4, observers=[repeat_guard])
            print("the same, with repeat_guard watching:")
            print("\n".join(describe(result, pad)[-1:]))
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"toy s01: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
