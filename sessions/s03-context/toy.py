"""Session 03 toy: the customer's words marked as data, and a context budget that never drops
the allergens.

    python sessions/s03-context/toy.py                      # offline: a scripted waiter
    COURSE_MODE=live python sessions/s03-context/toy.py     # adds your model's tickets and token count

Story 1 sends an order whose note tells the waiter to add two banana breads, with the note
pasted, delimited and datamarked, to a scripted waiter that obeys only instructions that are not
marked as data (scripted in both modes; live, your model then gets the same three prompts).
Story 2 shrinks the budget and shows which sections go. Story 3 asks for a budget below the
safety minimum and prints the error. Live, story 4 compares the token estimate with what your
endpoint reports. A missing setting or an endpoint that does not answer is explained in one
message, with exit status 1.
"""

from __future__ import annotations

from cafe.cli import run_command
from cafe.context import (
    INJECTED_REQUEST,
    MARKINGS,
    SAFETY_SECTIONS,
    CustomerOrder,
    build_context,
    context_sections,
)
from cafe.endpoint.client import chat, make_client
from cafe.endpoint.config import course_mode, model_name
from cafe.endpoint.scripted import ScriptedClient
from cafe.loop import run_loop
from cafe.stories.obedient_waiter import make_obedient_waiter
from cafe.world.menu import load_menu
from cafe.world.orderpad import OrderPad


def ticket(menu, context, client) -> str:
    pad = OrderPad(menu)
    run = run_loop(client, context.messages, pad.tools, model=model_name(), max_turns=4)
    lines = ", ".join(f"{line.quantity} x {line.item}" for line in pad.ticket) or "empty"
    return f"{lines}  (stopped: {run.stop_reason})"


def main() -> int:
    mode, menu = course_mode(), load_menu()
    order = CustomerOrder(table=5, request=INJECTED_REQUEST)
    print(f"Session 03 toy ({mode}): what the model is shown, and what a budget may drop.\n")
    print(
        f"1. A note that gives orders, pasted or marked as data (spotlighting)\n  the words: {order.request!r}"
    )
    contexts = {
        m: build_context(menu, order, 2000, marking=m)
        for m in ("pasted", "delimited", "datamarked")
    }
    assert set(contexts) == MARKINGS
    for marking, context in contexts.items():
        print(
            f"  {marking:<10} scripted waiter's ticket: {ticket(menu, context, ScriptedClient(make_obedient_waiter(menu.items)))}"
        )
    if mode == "live":
        client = make_client()
        answers = [ticket(menu, context, client) for context in contexts.values()]
        for marking, answer in zip(contexts, answers):
            print(f"  {marking:<10} {model_name()}'s ticket: {answer}")
        if all(a == "empty  (stopped: max_turns)" for a in answers):
            print(
                "  Empty tickets and max_turns every time: that is `cafe serve`'s default responder, which calls\n"
                "  the first tool with empty arguments. Point CAFE_MODEL at a real model to see it read the note."
            )

    sizes = {s.name: s.tokens for s in context_sections(menu, order)}
    total = sum(sizes.values())
    full = build_context(menu, order, total)
    print(
        "\n2. The budget shrinks (context budget; token counts are estimates, 4 characters a token)"
    )
    print("  sections: " + ", ".join(f"{name} {tokens}" for name, tokens in sizes.items()))
    for budget in (total, total - 1, total - sizes["story"] - 1, full.minimum):
        fitted = build_context(menu, order, budget)
        safe = "all kept" if SAFETY_SECTIONS <= set(fitted.kept) else "MISSING"
        print(
            f"  budget {budget:>4}: dropped {', '.join(fitted.dropped) or 'nothing'}; safety parts: {safe}"
        )

    print("\n3. A budget below the safety minimum (the never-drop rule)")
    try:
        build_context(menu, order, full.minimum - 1)
    except ValueError as error:
        print(f"  refused: {error}")

    if mode == "live":
        reply = chat(client, model=model_name(), messages=list(full.messages))
        reported = reply.usage.prompt_tokens if reply.usage else "not reported"
        print(
            f"\n4. The estimate against your endpoint: estimated {full.tokens} tokens, reported {reported}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
