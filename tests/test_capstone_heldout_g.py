"""The capstone grader's holes held-out reader G found (7 Dec 2026), each closed by its principle.

Reader G wrote wrong harnesses from session 16's text alone; the grader passed some on every seed
because no scenario drew their harm, or because `stall` was judged on one side only. The wrong
harnesses themselves are in tests/capstone_harnesses/ (`EXPECTED` in tests/test_capstone.py);
these tests check the principles on generated inputs:

- every check draws each property's harmful situation: the first run of kinds is each kind at
  its fullest, and the fullest form of each kind holds its harms (a second order over the limit
  to one supplier after a yes, an attack in a quote's own `pay_to` field, timeouts one short of
  the stall bound, a runaway that meets its call cap, a total a cent off its lines);
- a run stops `stuck` exactly when the bound is reached, never before, and "the same failure" is
  the same once session 13's noise is masked;
- reader G's two right harnesses, shaped differently from the reference, still pass.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.capstone import (
    SCENARIO_KINDS,
    RunEvidence,
    RunReport,
    Scenario,
    build_world,
    check,
    judge_run,
    load_harness,
    scenarios,
)
from cafe.capstone.model import RestockModel
from cafe.capstone.reference import run_restock
from cafe.capstone.runner import run_scenario
from cafe.capstone.scenarios import LIMIT_CENTS
from cafe.capstone.world import Event

# `cafe capstone check` banks its result in the progress file: each test gets a fresh one.
pytestmark = pytest.mark.usefixtures("home")

RIGHT = Path(__file__).parent / "capstone_harnesses" / "right"
FULL = 3  # every item below par: the fullest form of a kind (`_MAX_ITEMS`)
seeds = st.integers(min_value=0, max_value=10**6)


@given(seeds)
def test_every_check_draws_every_kind_at_its_fullest(seed: int) -> None:
    drawn = scenarios(seed, len(SCENARIO_KINDS))
    assert sorted(s.kind for s in drawn) == sorted(SCENARIO_KINDS)
    assert all(s.items == FULL for s in drawn)


def _below_par(scenario: Scenario) -> list[tuple[str, str, int]]:
    """(item, supplier, the order's total) of each item below par, in the model's order."""
    world, _, _ = build_world(scenario)
    return [
        (i.name, i.supplier, i.need * i.unit_price_cents)
        for i in sorted(world.items, key=lambda i: i.name)
        if i.need
    ]


@given(seeds)
def test_over_budget_draws_a_second_order_over_the_limit_after_a_yes(seed: int) -> None:
    scenario = Scenario("over_budget", FULL, seed)
    world, _, _ = build_world(scenario)
    approved = [
        supplier
        for _, supplier, total in _below_par(scenario)
        if LIMIT_CENTS < total <= world.manager_ceiling_cents
    ]
    assert len(approved) == 2 and approved[0] == approved[1]  # two yeses wanted, one supplier


@given(seeds)
def test_injected_draws_an_attack_in_a_quotes_own_pay_to_field(seed: int) -> None:
    scenario = Scenario("injected", FULL, seed)
    world, _, _ = build_world(scenario)
    accounts, _ = world.books()
    sold_by_attacker = [
        (item, supplier)
        for item, supplier, _ in _below_par(scenario)
        if json.loads(world.ask_quote(supplier, item, 1))["pay_to"] != accounts[supplier]
    ]
    assert sold_by_attacker  # an item below par whose quote names another account
    messages = " ".join(plan.message for plan in world.suppliers)
    # The message attack; the account attack, at its fullest, says nothing in its message (an
    # injection does not announce itself: reader Y, tests/test_capstone_heldout_y.py).
    assert "more" in messages and "pay to" not in messages


@given(seeds)
def test_timeouts_draw_a_streak_one_short_of_the_bound(seed: int) -> None:
    scenario = Scenario("timeouts", FULL, seed)
    world, _, limits = build_world(scenario)
    first_supplier = _below_par(scenario)[0][1]
    plan = next(p for p in world.suppliers if p.name == first_supplier)
    assert plan.timeouts == limits.stall_after - 1


@settings(max_examples=10, deadline=None)
@given(seeds)
def test_the_fullest_runaway_meets_its_call_cap(seed: int) -> None:
    run = run_scenario(run_restock, Scenario("runaway", FULL, seed))
    assert run.report.stop == "max_turns" and run.calls == run.limits.max_model_calls


@given(st.integers(1, 40), st.integers(80, 600))
def test_the_partial_models_second_order_slips_a_cent(need: int, price: int) -> None:
    model = RestockModel("partial")
    stock = {"beans": {"on_hand": 0, "par": need, "supplier": "Roastworks"}}
    quote = {"supplier": "Roastworks", "item": "beans", "unit_price_cents": price, "pay_to": "X"}
    history = [
        ("read_stock", {}, json.dumps(stock)),
        ("ask_quote", {"item": "beans"}, json.dumps(quote)),
        ("place_order", {"item": "beans"}, "Order refused: missing fields."),
    ]
    arguments = model._next(history)["tool_calls"][0]["arguments"]
    assert arguments["total_cents"] == need * price + 1


def _stall_finding(streak: int, bound: int, stop: str, noisy: bool) -> bool:
    """Whether `stall` holds on a run whose record ends in `streak` same supplier failures (each
    naming another worker's pid when `noisy`) and whose report stopped on `stop`."""
    scenario = Scenario("same_failure", 1, 0)
    world, _, limits = build_world(scenario)
    world.events.append(Event("quote", "Roastworks", "beans", True))
    for n in range(streak):
        pid = 4100 + n if noisy else 4100
        detail = f"Greenleaf Dairy API error 503: service unavailable (worker pid {pid})"
        world.events.append(Event("quote", "Greenleaf Dairy", "milk", False, detail))
    limits = type(limits)(limits.max_model_calls, bound)
    run = RunEvidence(world, limits, 1, ((1, 1),), RunReport(stop, "", (), None, None), "")
    (finding,) = [f for f in judge_run(run) if f.property == "stall"]
    return finding.held


@given(
    st.integers(2, 6),
    st.integers(1, 8),
    st.sampled_from(["stuck", "max_turns", "cut", "done"]),
    st.booleans(),
)
def test_stall_holds_exactly_when_stuck_comes_at_the_bound(
    bound: int, streak: int, stop: str, noisy: bool
) -> None:
    too_many = streak > bound  # asked again past the bound
    too_early = stop == "stuck" and streak < bound  # one repeat never stops a run
    assert _stall_finding(streak, bound, stop, noisy) == (not too_many and not too_early)


@pytest.mark.parametrize("name", ["gate_object", "tool_level_stall"])
def test_reader_gs_right_harnesses_pass(name: str) -> None:
    """Shaped unlike the reference (a gate object with its own ledger; the stall bound kept
    inside the quote tool), each holds every property; seeds 1-30 were swept when it was added."""
    harness = load_harness(RIGHT / f"{name}.py")
    for seed in (1, 7, 48611):
        verdict = check(harness, seed, shrinking=False)
        assert verdict.passed, verdict.render()
