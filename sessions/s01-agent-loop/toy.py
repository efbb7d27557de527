"""Session 01 toy: the agent loop takes a café order through tools, and always stops on a name.

    python sessions/s01-agent-loop/toy.py                    # offline: every story is scripted
    COURSE_MODE=live python sessions/s01-agent-loop/toy.py   # the order is taken by your model

Three stories. A waiter looks the items up on the menu, writes them on the kitchen ticket and
says it is done (live, your model takes this order). A runaway model keeps looking up the same
latte until the turn budget stops it, and then `repeat_guard` stops it sooner. A confused model
orders a unicorn cake and a sold-out omelette, reads why each failed, and recovers. The last two
show a mechanism, so they are scripted in both modes. Against `cafe serve`'s default rule the toy
says so (`cafe serve --session 01` answers with a waiter written for this toy). Live, a missing
variable or an unusable endpoint is explained in one message and the toy exits with status 1.
"""

from __future__ import annotations

import sys
import textwrap

import cafe
from cafe.cli import run_command
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.loop import GUARD_STOP_REASONS, repeat_guard, run_loop
from cafe.world.menu import load_menu
from cafe.world.orderpad import OrderPad

ORDER = [
    {
        "role": "system",
        "content": "You take orders at a café. Look items up on the menu, add what the "
        "customer wants to the kitchen ticket, then say what you wrote.",
    },
    {"role": "user", "content": "Two lattes and a croissant, please."},
]


def call(name: str, **arguments) -> dict:
    return {"name": name, "arguments": arguments}


def asks(*calls: dict) -> dict:
    return {"content": None, "tool_calls": list(calls)}


# The scripted waiter, turn by turn (offline only; live, your model takes the order).
WAITER = [
    asks(call("look_up", item="latte"), call("look_up", item="croissant")),
    asks(
        call("add_to_ticket", item="latte", quantity=2),
        call("add_to_ticket", item="croissant", quantity=1),
    ),
    "On the ticket: 2 x latte, 1 x croissant.",
]
# A model that never stops asking for the same thing (scripted in both modes).
RUNAWAY = [asks(call("look_up", item="latte"))] * 6
# A model that orders what the café cannot serve, then recovers (scripted in both modes).
CONFUSED = [
    asks(call("add_to_ticket", item="unicorn cake")),
    asks(call("add_to_ticket", item="cheese omelette")),
    asks(call("add_to_ticket", item="tofu scramble")),
    "The omelette is sold out, so I put a tofu scramble on the ticket.",
]
# How each way a run here can end reads in plain words; the name in brackets is `stop_reason`:
# the loop's own two, and the one the repeat guard declares.
ENDINGS = {
    "done": "the model said it was finished",
    "max_turns": "the turn budget ran out",
    "stuck": "the repeat guard saw it asking for the same thing again",
}


def describe(result, pad: OrderPad) -> list[str]:
    """A line per turn (what the model asked for, and whether each call worked), then the ending."""
    lines = []
    for turn in result.turns:
        failed = {r.call_id for r in turn.dispatch if not r.ok}
        asked = (
            ", ".join(
                f"{c.name}({', '.join(f'{k}={v!r}' for k, v in c.arguments.items())})"
                + (" -> failed, told the model why" if c.id in failed else "")
                for c in turn.calls
            )
            or "no tools: answers in words"
        )
        lines.append(f"    turn {turn.turn}: {asked}")
    ticket = "; ".join(f"{line.quantity} x {line.item}" for line in pad.ticket) or "empty"
    ending = ENDINGS.get(result.stop_reason, result.stop_reason)
    lines.append(
        f"    ended: {ending} ({result.stop_reason}) after {len(result.turns)} turns; ticket: {ticket}"
    )
    return lines


def take_order(live: bool) -> list[str]:
    pad = OrderPad(load_menu())
    client = cafe.make_client(None if live else WAITER)
    if live:
        model = cafe.model_name()
        if rehearsal_script(client, model) == "default":
            print(
                textwrap.fill(
                    default_rehearsal_note("01"),
                    96,
                    initial_indent="    note: ",
                    subsequent_indent="          ",
                )
            )
        print(f"    (asking {model}; each turn waits for its reply...)", flush=True)
    result = run_loop(client, ORDER, pad.tools, max_turns=6)
    return describe(result, pad)


def main() -> int:
    try:
        live = cafe.course_mode() == "live"
        print(
            f"Session 01 toy ({'live' if live else 'offline'}): the agent loop asks the model, runs "
            "the tools it asks for,\nand stops on a named reason."
        )
        print(f"mode: {cafe.course_mode()} (model {cafe.model_name()})")
        print(
            f"1. A waiter takes an order ({'live: ' + cafe.model_name() if live else 'scripted'}):"
        )
        print("\n".join(take_order(live)))
    except (cafe.ConfigError, cafe.EndpointError) as exc:
        print(f"toy s01: {exc}", file=sys.stderr)
        return 1
    print(
        "2. A runaway model asks for the same look-up forever, with a budget of 4 turns (scripted):"
    )
    pad = OrderPad(load_menu())
    print(
        "\n".join(
            describe(run_loop(ScriptedClient(RUNAWAY), ORDER, pad.tools, max_turns=4), pad)[-1:]
        )
    )
    print("   The same model, with repeat_guard watching for a repeated call (an observer):")
    guarded = run_loop(
        ScriptedClient(RUNAWAY),
        ORDER,
        pad.tools,
        max_turns=4,
        observers=[repeat_guard],
        stop_reasons=GUARD_STOP_REASONS,
    )
    print("\n".join(describe(guarded, pad)[-1:]))
    print("3. A confused model orders a unicorn cake, then a sold-out omelette (scripted):")
    pad = OrderPad(load_menu())
    print("\n".join(describe(run_loop(ScriptedClient(CONFUSED), ORDER, pad.tools), pad)))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
