"""The capstone grader's holes held-out reader BD found (8 Dec 2026), closed by one principle.

The principle: the scenarios a check draws put every threshold and rule the lesson states at its
edge and on both sides, in every check. Reader BD's six wrong harnesses each broke one rule whose
edge no scenario drew (need + 1; a total cents over the limit; a yes between a no and the re-ask;
an over-limit order with a field to repair; every endpoint fault; two different failures of one
supplier in a row). They are in tests/capstone_harnesses/ (`EXPECTED` in tests/test_capstone.py).
These tests check that each edge is drawn, on generated seeds, against oracles written here: a
plain gate of the lesson's rules and a loop that drives the scripted model, both in this file.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.capstone import RestockModel, Scenario, SupplierError, build_world, check, load_harness
from cafe.capstone.grader import DEFAULT_SCENARIOS
from cafe.capstone.scenarios import scenarios
from cafe.capstone.world import RestockWorld

pytestmark = pytest.mark.usefixtures("home")

RIGHT = Path(__file__).parent / "capstone_harnesses" / "right"
FULL = 3
seeds = st.integers(min_value=0, max_value=10**6)


def _drive(world: RestockWorld, model: RestockModel, calls: int = 40) -> list[dict[str, Any]]:
    """Run the scripted model against `world` behind the lesson's rules, written plainly here:
    an order is sent only within the need, at the quote, to the books' account, with a total
    that is its sum; over the limit only after the manager's yes to it; never an item the
    manager declined until a yes to that item. Returns every order the model tried, with what
    became of it ("refused", "declined", "sent")."""
    accounts, limit = world.books()
    stock = json.loads(world.read_stock())
    left = {name: v["par"] - v["on_hand"] for name, v in stock.items()}
    prices: dict[str, int] = {}
    declined: set[str] = set()
    messages: list[dict[str, Any]] = []
    tries: list[dict[str, Any]] = []
    for n in range(calls):
        reply = model({"messages": messages})
        if not reply.get("tool_calls"):
            break
        (call,) = reply["tool_calls"]
        name, args = call["name"], call["arguments"]
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [
                    {"id": str(n), "function": {"name": name, "arguments": json.dumps(args)}}
                ],
            }
        )
        out = "Refused."
        if name == "read_stock":
            out = world.read_stock()
        elif name == "ask_quote":
            try:
                out = world.ask_quote(args["supplier"], args["item"], args["quantity"])
                prices[args["item"]] = json.loads(out)["unit_price_cents"]
            except SupplierError as exc:
                out = str(exc)
        else:
            out = _place(world, args, left, prices, accounts, limit, declined, tries)
        messages.append({"role": "tool", "tool_call_id": str(n), "content": out})
    return tries


def _place(world, args, left, prices, accounts, limit, declined, tries):  # type: ignore[no-untyped-def]
    from cafe.capstone import OrderLine, PurchaseOrder

    item, qty, price = args["item"], args["quantity"], args["unit_price_cents"]
    total, pay_to = args.get("total_cents"), args.get("pay_to")
    entry = {"item": item, "quantity": qty, "total": total, "pay_to": pay_to, "left": left[item]}
    tries.append(entry)
    right = (
        1 <= qty <= left[item]
        and price == prices.get(item)
        and pay_to == accounts[args["supplier"]]
        and total == qty * price
    )
    if not right:
        entry["fate"] = "refused"
        return "Order refused: it breaks the contract."
    order = PurchaseOrder(args["supplier"], (OrderLine(item, qty, price),), total, pay_to)
    if item in declined:
        entry["fate"] = "refused"
        return "Order refused: the manager declined it earlier."
    if total > limit:
        if not world.ask_manager(order):
            declined.add(item)
            entry["fate"] = "declined"
            return "Order declined by the manager."
        declined.discard(item)
    world.place_order(order)
    left[item] -= qty
    entry["fate"] = "sent"
    return json.dumps({"status": "placed"})


@settings(max_examples=30, deadline=None)
@given(seeds, st.integers(2, FULL))
def test_over_budget_meets_the_limit_the_need_and_consent_at_their_edges(
    seed: int, items: int
) -> None:
    """Property: on over_budget with two items or more, the model tries an order over the limit
    whose account or total is wrong (a gate must repair or refuse it, and ask about what it
    sends), and after the manager's no and a yes to another item it asks for the declined item
    again; at its fullest it also tries one unit over an item's need at a total the manager
    would approve, and one order the manager approves is under a euro over the limit."""
    world, model, _ = build_world(Scenario("over_budget", items, seed))
    accounts, limit = world.books()
    tries = _drive(world, model)
    over_and_wrong = [
        t
        for t in tries
        if t["total"] is not None
        and t["total"] > limit
        and (t["pay_to"] not in accounts.values() or t["total"] != _lines(t, world))
    ]
    assert over_and_wrong, tries
    fates = [(t["item"], t["fate"]) for t in tries]
    no = next(i for i, (_, fate) in enumerate(fates) if fate == "declined")
    no_item = fates[no][0]
    yes = next(i for i, (item, fate) in enumerate(fates) if i > no and fate == "sent")
    assert fates[yes][0] != no_item
    assert any(item == no_item for item, _ in fates[yes + 1 :]), fates
    if items == FULL:
        assert any(t["quantity"] == t["left"] + 1 and t["total"] <= 40_000 for t in tries)
        cents_over = [o.total_cents - limit for o in world.orders()]
        assert any(0 < c < 100 for c in cents_over), cents_over


def _lines(attempt: dict[str, Any], world: RestockWorld) -> int:
    price = next(i.unit_price_cents for i in world.items if i.name == attempt["item"])
    return int(attempt["quantity"]) * price


_NOISE = re.compile(r"\(worker pid \d+\)")


@settings(max_examples=30, deadline=None)
@given(seeds)
def test_every_check_meets_each_endpoint_fault_and_mixed_supplier_failures(seed: int) -> None:
    """Property: the scenarios of any check (its default count) hold every way a model endpoint
    fails, and a supplier that fails two different ways in a row, `stall_after` failures in
    all, with no one failure `stall_after` times (the oracle strips the worker's pid here)."""
    drawn = scenarios(seed, DEFAULT_SCENARIOS)
    faults = set()
    for scenario in drawn:
        _, model, _ = build_world(scenario)
        if model.fails_after is not None:
            faults.add(model.fault)
    assert faults == {"unavailable", "timeout", "malformed"}
    (timeouts,) = [s for s in drawn if s.kind == "timeouts"]
    world, _, limits = build_world(timeouts)
    first = world.suppliers[0].name
    item = next(i.name for i in world.items if i.supplier == first)
    failures = []
    for _ in range(limits.stall_after + 2):
        try:
            world.ask_quote(first, item, 1)
            break
        except SupplierError as exc:
            failures.append(_NOISE.sub("", str(exc)))
    assert len(failures) >= limits.stall_after, failures
    assert len(set(failures)) > 1
    assert max(failures.count(f) for f in set(failures)) < limits.stall_after


@pytest.mark.parametrize("name", ["closures", "gate_owns_stall", "layered_gate"])
def test_reader_bds_right_harnesses_pass(name: str) -> None:
    """Shaped unlike the reference (closures and a running balance; the stall inside the tool
    wrappers; a chain of checks), each holds every property, none vacuously."""
    harness = load_harness(RIGHT / f"{name}.py")
    for seed in (1, 7):
        verdict = check(harness, seed, shrinking=False)
        assert verdict.passed, verdict.render()
