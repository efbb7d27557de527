"""The capstone grader's holes held-out reader CA found (8 Dec 2026), closed by one principle.

The principle: the scenarios a check draws put every rule the lesson states at its edge, in
every check. Reader CA's two wrong harnesses passed because no scenario drew the edge they broke:
a stall counted per supplier (another supplier's success between one supplier's same failures
did not reset it: the scripted model never asked another supplier mid-streak), and costs
reported as nothing when the endpoint failed (seed 2026's endpoint failures all came before any
order). Banked in tests/capstone_harnesses/ (`EXPECTED` in tests/test_capstone.py). These tests
check both edges on generated seeds against an oracle written here: a loop that drives the
scripted model against the world, and the two ways of counting a stall, counted here.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.capstone import RestockModel, SupplierError, build_world, check, load_harness
from cafe.capstone.grader import DEFAULT_SCENARIOS
from cafe.capstone.scenarios import scenarios
from cafe.capstone.world import RestockWorld
from cafe.endpoint.errors import EndpointError

pytestmark = pytest.mark.usefixtures("home")

HARNESSES = Path(__file__).parent / "capstone_harnesses"
seeds = st.integers(min_value=0, max_value=10**6)
_NOISE = re.compile(r"\(worker pid \d+\)")


def _drive(world: RestockWorld, model: RestockModel, calls: int) -> tuple[list[Any], int | None]:
    """Run the scripted model against `world`, sending every order as written (the scenarios
    here draw no order a gate must stop). Returns the tool results as (supplier, failure or ""
    for a success) and, when the endpoint failed, how many orders had gone out before."""
    messages: list[dict[str, Any]] = []
    results: list[Any] = []
    for n in range(calls):
        try:
            reply = model({"messages": messages})
        except EndpointError:
            return results, len(world.orders())
        if not reply.get("tool_calls"):
            break
        (call,) = reply["tool_calls"]
        name, args = call["name"], call["arguments"]
        raw = json.dumps(args)
        messages.append(
            {
                "role": "assistant",
                "tool_calls": [{"id": str(n), "function": {"name": name, "arguments": raw}}],
            }
        )
        out, failure = "", ""
        if name == "read_stock":
            out = world.read_stock()
        elif name == "ask_quote":
            try:
                out = world.ask_quote(args["supplier"], args["item"], args["quantity"])
            except SupplierError as exc:
                out = failure = _NOISE.sub("", str(exc))
        else:
            from cafe.capstone import order_from_arguments

            out = world.place_order(order_from_arguments(args))
        results.append((args.get("supplier", ""), failure))
        messages.append({"role": "tool", "tool_call_id": str(n), "content": out})
    return results, None


def _streaks(results: list[Any]) -> tuple[int, int]:
    """The longest same failure in a row, any success resetting it (the lesson's count), and
    the longest counted per supplier, only that supplier's success resetting it."""
    in_a_row = per_supplier = 0
    run, last = 0, ""
    own: dict[str, tuple[str, int]] = {}
    for supplier, failure in results:
        run, last = (run + 1 if failure == last else 1, failure) if failure else (0, "")
        in_a_row = max(in_a_row, run)
        if failure:
            before, count = own.get(supplier, ("", 0))
            own[supplier] = (failure, count + 1 if failure == before else 1)
            per_supplier = max(per_supplier, own[supplier][1])
        elif supplier:
            own.pop(supplier, None)
    return in_a_row, per_supplier


@settings(max_examples=10, deadline=None)
@given(seeds)
def test_every_check_puts_a_success_inside_one_suppliers_failures(seed: int) -> None:
    """Property: in every default check, the timeouts run's same failure is one short of the bound
    in a row, and reaches the bound when another supplier's success between does not reset it."""
    (timeouts,) = [s for s in scenarios(seed, DEFAULT_SCENARIOS) if s.kind == "timeouts"]
    world, model, limits = build_world(timeouts)
    results, down = _drive(world, model, limits.max_model_calls)
    assert down is None
    in_a_row, per_supplier = _streaks(results)
    assert in_a_row == limits.stall_after - 1, results
    assert per_supplier >= limits.stall_after, results


@settings(max_examples=10, deadline=None)
@given(seeds)
def test_every_check_fails_the_endpoint_before_and_after_an_order(seed: int) -> None:
    """Property: in every default check, one endpoint_down run's endpoint fails after an order
    went out, and one before any did."""
    sent = []
    for scenario in scenarios(seed, DEFAULT_SCENARIOS):
        if scenario.kind == "endpoint_down":
            world, model, limits = build_world(scenario)
            _, down = _drive(world, model, limits.max_model_calls)
            assert down is not None
            sent.append(down)
    assert max(sent) >= 1 and min(sent) == 0, sent


@pytest.mark.parametrize(
    ("name", "seed", "failed"),
    [
        ("stall_reset_per_supplier", 3, {"stall"}),  # reader CA's: passed every seed
        ("stall_reset_per_item", 11, {"stall"}),
        ("costs_endpoint_reset", 2026, {"costs"}),  # reader CA's: passed seed 2026
        ("costs_endpoint_no_spend", 2026, {"costs"}),
    ],
)
def test_reader_cas_cases_fail_the_seeds_they_passed(
    name: str, seed: int, failed: set[str]
) -> None:
    verdict = check(load_harness(HARNESSES / f"{name}.py"), seed, shrinking=False)
    assert verdict.failed == failed, verdict.render()


@pytest.mark.parametrize("name", ["hand_loop", "repairing_gate", "world_ledger"])
def test_reader_cas_right_harnesses_pass(name: str) -> None:
    harness = load_harness(HARNESSES / "right" / f"{name}.py")
    for seed in (3,):
        verdict = check(harness, seed, shrinking=False)
        assert verdict.passed, verdict.render()
