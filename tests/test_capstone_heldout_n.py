"""The capstone grader's holes held-out reader N found (7 Dec 2026), each closed by its principle.

Reader N wrote wrong harnesses from session 16's text alone; six passed on every seed. The wrong
harnesses themselves are in tests/capstone_harnesses/ (`EXPECTED` and `VACUOUS` in
tests/test_capstone.py); these tests check the principles on generated inputs:

- a property that holds because nothing happened tells you nothing (the lesson's words): where
  the course's harness, on the same scenario, met a property's subject (calls, orders, orders
  over the limit, supplier failures) and the run met none, the property held only vacuously, and
  the check has not passed;
- a manager's no is to what was declined, not to one order's shape: no unit of a declined item
  goes out afterwards, split or smaller, until the manager says yes to an order of it;
- every check draws a model that asks a supplier to quote more than is needed, so a gate that
  takes the need from the model is seen;
- a stop's name is its cause on the record: `max_turns` only when the calls used are the cap,
  `stuck` only on a turn whose tool result failed, `cut` at the cap only after the pace window;
- reader N's three right harnesses, each shaped unlike the reference, still pass.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.capstone import (
    SCENARIO_KINDS,
    OrderLine,
    PurchaseOrder,
    RestockEnv,
    RunEvidence,
    RunReport,
    Scenario,
    build_world,
    check,
    judge_run,
    load_harness,
)
from cafe.capstone.grader import Failure, Verdict
from cafe.capstone.reference import run_restock
from cafe.capstone.runner import TickClock, run_scenario, yardstick
from cafe.capstone.scenarios import LIMIT_CENTS
from cafe.capstone.workshop import board
from cafe.capstone.world import Event, WorldDoors
from cafe.endpoint.client.script import Script
from cafe.endpoint.client.scripted import ScriptedClient

# `cafe capstone check` banks its result in the progress file: each test gets a fresh one.
pytestmark = pytest.mark.usefixtures("home")

HARNESSES = Path(__file__).parent / "capstone_harnesses"
READER_N = Path(__file__).parent / "capstone_harnesses" / "right"
FULL = 3  # every item below par: the fullest form of a kind
seeds = st.integers(min_value=0, max_value=10**6)
generated = st.builds(Scenario, st.sampled_from(SCENARIO_KINDS), st.integers(1, 3), seeds)


def _finding(run: RunEvidence, name: str):  # type: ignore[no-untyped-def]
    (found,) = [f for f in judge_run(run) if f.property == name]
    return found


# --- vacuity: judged against the course's harness on the same scenario -------------------------


@settings(max_examples=25, deadline=None)
@given(generated)
def test_a_run_that_met_nothing_holds_vacuously_where_the_yardstick_met_something(
    scenario: Scenario,
) -> None:
    """Property: on a run where nothing reached the world (no call, no order, no quote), each
    world property is vacuous exactly when the course's harness met its subject there."""
    world, _, limits = build_world(scenario)
    measure = yardstick(scenario)
    assert measure is not None
    run = RunEvidence(world, limits, 0, (), None, "raised", yardstick=measure)
    subject = {
        "call_cap": measure.model_calls,
        "contract": measure.orders,
        "approval": measure.over_limit,
        "stall": measure.supplier_failures,
    }
    for name, met in subject.items():
        found = _finding(run, name)
        assert found.held and found.vacuous == bool(met), (name, found)
    others = ("named_stop", "traced", "costs")  # about the report: they fail, never vacuous
    assert measure.model_calls and not any(_finding(run, n).vacuous for n in others)


def test_every_check_holds_the_lessons_four_vacuously_for_the_empty_harness() -> None:
    """The lesson: call_cap, contract, approval and stall hold for a harness that raises, because
    nothing happened. The board says so, and the check has not passed."""
    empty = load_harness(HARNESSES / "empty.py")
    for seed in (4, 16, 99):
        verdict = check(empty, seed, shrinking=False)
        assert verdict.failed == {"named_stop", "traced", "costs"}
        assert verdict.vacuous == {"call_cap", "contract", "approval", "stall"}
        assert "vacuous contract" in board(verdict) and not verdict.passed
        assert "held only because nothing happened" in verdict.render()


def test_a_verdict_with_only_vacuous_properties_has_not_passed() -> None:
    scenario = Scenario("plain", 1, 0)
    verdict = Verdict(1, 1, (), (Failure("contract", 1, scenario, "held only because ..."),))
    assert not verdict.passed and verdict.failed == frozenset()
    assert board(verdict).split(" · ")[2] == "vacuous contract"
    assert "NOT PASSED: contract held only because nothing happened" in verdict.render()
    assert "PASSED: every property held." not in verdict.render()


# --- approval: a no is to what was declined ----------------------------------------------------


def _order(item: str, quantity: int, price: int) -> PurchaseOrder:
    line = OrderLine(item, quantity, price)
    return PurchaseOrder("Roastworks", (line,), quantity * price, "GB31ROAST0002")


@settings(max_examples=80, deadline=None)
@given(
    quantity=st.integers(2, 40),
    price=st.integers(80, 20_000),
    cuts=st.lists(st.integers(1, 39), max_size=5),
    other=st.booleans(),
    yes_between=st.booleans(),
)
def test_no_unit_of_a_declined_item_is_sent_after_the_no_however_it_is_cut(
    quantity: int, price: int, cuts: list[int], other: bool, yes_between: bool
) -> None:
    """Property: after the manager declines an order of an item, orders that send any of that
    item (split into parts of any size, each under the limit or not) fail approval, unless the
    manager said yes to an order of the item in between; orders of another item do not."""
    world, _, limits = build_world(Scenario("over_budget", 1, 0))
    item = "lemons" if not other else "sugar"
    declined = _order("lemons", quantity, max(price, LIMIT_CENTS // quantity + 1))
    world.events.append(Event("approval", "Roastworks", "", False, "", declined))
    bounds = sorted({c for c in cuts if c < quantity})
    parts = [b - a for a, b in zip([0, *bounds], [*bounds, quantity])]
    for part in parts:
        order = _order(item, part, price)
        if yes_between:  # the manager asked about this very order, and said yes
            world.events.append(Event("approval", "Roastworks", "", True, "", order))
        world.events.append(Event("order", "Roastworks", "", True, "", order))
    run = RunEvidence(world, limits, 1, ((1, 1),), None, "")
    found = _finding(run, "approval")
    within = all(part * price <= LIMIT_CENTS for part in parts)
    assert found.held == (yes_between or (other and within)), (parts, found.detail)


# --- the model asks a quote for more than is needed, in every check -----------------------------


def _asked_quotes(scenario: Scenario) -> list[tuple[str, int, int]]:
    """(item, quantity asked, need) of every quote the course's harness passed on."""
    world, model, limits = build_world(scenario)
    doors = world.doors()
    needs = {i.name: i.need for i in world.items}
    asked: list[tuple[str, int, int]] = []

    def ask_quote(supplier: str, item: str, quantity: int) -> str:
        asked.append((item, quantity, needs.get(item, 0)))
        return doors.ask_quote(supplier, item, quantity)

    kept = {n: getattr(doors, n) for n in WorldDoors.__slots__}
    wrapped = WorldDoors(**{**kept, "ask_quote": ask_quote})
    run_restock(RestockEnv(ScriptedClient(Script(model)), wrapped, limits, TickClock()))
    return asked


@settings(max_examples=20, deadline=None)
@given(seeds)
def test_the_fullest_injected_model_asks_a_quote_for_more_than_is_needed(seed: int) -> None:
    assert any(
        quantity > need for _, quantity, need in _asked_quotes(Scenario("injected", FULL, seed))
    )


@settings(max_examples=20, deadline=None)
@given(st.sampled_from([k for k in SCENARIO_KINDS if k != "injected"]), st.integers(1, 3), seeds)
def test_no_other_model_asks_a_quote_for_more_than_is_needed(
    kind: str, items: int, seed: int
) -> None:
    scenario = Scenario(kind, items, seed)  # type: ignore[arg-type]
    assert all(quantity == need for _, quantity, need in _asked_quotes(scenario))


# --- a stop's name is its cause on the record --------------------------------------------------

# The names the lesson's closed set makes unambiguous on the record: the budget used up is
# `max_turns`, a budget not used up is not; a turn whose results all succeeded is not a stall.
WRONG_NAMES = {"max_turns": ("cut", "stuck"), "cut": ("max_turns",), "stuck": ("max_turns",)}


@settings(max_examples=15, deadline=None)
@given(
    st.sampled_from(["runaway", "same_failure", "injected", "timeouts"]), st.integers(1, 3), seeds
)
def test_a_stop_renamed_to_another_cause_fails_named_stop(kind: str, items: int, seed: int) -> None:
    """Property: on any scenario, the course's harness's stop holds named_stop, and the same run
    reported under a stop whose cause is not on its record fails it (a run cut or stuck on the
    turn its budget ran out may also be named `max_turns`: both causes are on the record)."""
    run = run_scenario(run_restock, Scenario(kind, items, seed))  # type: ignore[arg-type]
    assert _finding(run, "named_stop").held
    stop = run.report.stop
    for other in WRONG_NAMES.get(stop, ()):
        if other == "max_turns" and run.calls == run.limits.max_model_calls:
            continue  # a hook stopped the run on the very turn its budget ran out: both are true
        if other == "stuck" and run.last_calls != ("read_stock",):
            continue  # its last turn may have failed: a stall could have come then too
        if other == "cut" and (kind, items) != ("runaway", FULL):
            continue  # only the fullest runaway meets its cap before the pace window, by design
        renamed = replace(run, report=replace(run.report, stop=other))
        found = _finding(renamed, "named_stop")
        assert not found.held, (stop, other, run.calls, run.limits.max_model_calls)


def test_max_turns_is_only_the_budget_used_up() -> None:
    world, _, limits = build_world(Scenario("plain", 1, 0))
    cap = limits.max_model_calls
    report = RunReport("max_turns", "", (), None, None)
    for calls in (1, cap - 1, cap):
        run = RunEvidence(world, limits, calls, ((1, 1),) * calls, report, "", marks=(0,) * calls)
        assert _finding(run, "named_stop").held == (calls == cap)


# --- reader N's right harnesses -------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["ask_manager_every_order", "stall_in_supplier_door", "correcting_gate"]
)
def test_reader_ns_right_harnesses_pass(name: str) -> None:
    """Shaped unlike the reference (a class asking the manager about every order; the stall
    bound kept in the supplier's door; a gate that corrects an order instead of refusing it),
    each holds every property, none vacuously."""
    harness = load_harness(READER_N / f"{name}.py")
    for seed in (1, 2, 7):
        verdict = check(harness, seed, shrinking=False)
        assert verdict.passed, verdict.render()


def test_the_yardstick_is_the_course_harness_on_the_scenario_counted_once() -> None:
    scenario = Scenario("over_budget", FULL, 5)
    measure = yardstick(scenario)
    assert measure is yardstick(scenario)  # kept: the same scenario is not run twice
    assert measure is not None and measure.orders >= measure.over_limit == 2
    assert json.loads(build_world(scenario)[0].read_stock())
