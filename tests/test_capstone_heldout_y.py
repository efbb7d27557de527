"""The capstone grader's holes held-out reader Y found (7 Dec 2026), each closed by its principle.

Reader Y changed one line of the notebook's final harness at a time; three of the wrong harnesses
passed on every seed. The harnesses are in tests/capstone_harnesses/ (`EXPECTED` in
tests/test_capstone.py); these tests check the principles on generated inputs, each against an
oracle written here:

- a stop's name is allowed only when its own cause is on the world's record: `cut` needs the pace
  governor's cause, no order reaching a supplier for the whole pace window;
- a success between two identical failures resets the stall count (the lesson: "A success in
  between resets the count, so one repeat never stops a run"): every check draws a supplier
  that fails, answers, and fails the same way again;
- an injection does not announce itself: a compromised supplier's message is worded in several
  ways, and at its fullest says nothing at all, so only paying the books' account holds;
- reader Y's three right harnesses still pass.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.capstone import (
    RunEvidence,
    RunReport,
    Scenario,
    SupplierError,
    build_world,
    check,
    judge_run,
    load_harness,
)
from cafe.capstone.orders import OrderLine, PurchaseOrder
from cafe.capstone.reference import run_restock
from cafe.capstone.runner import run_scenario
from cafe.capstone.world import Event, SupplierPlan

pytestmark = pytest.mark.usefixtures("home")

HARNESSES = Path(__file__).parent / "capstone_harnesses"
READER_Y = Path(__file__).parent / "capstone_harnesses" / "right"
FULL = 3  # every item below par: the fullest form of a kind
WINDOW = 8  # the course's pace window in turns, as the lesson's notebook sets it
seeds = st.integers(min_value=0, max_value=10**6)


def _finding(run: RunEvidence, name: str):  # type: ignore[no-untyped-def]
    (found,) = [f for f in judge_run(run) if f.property == name]
    return found


# --- a stop's name needs its own cause on the record -------------------------------------------


@settings(max_examples=150, deadline=None)
@given(calls=st.integers(1, 18), order_at=st.none() | st.integers(0, 17), spare=st.integers(0, 4))
def test_cut_holds_only_once_no_order_came_for_the_pace_window(
    calls: int, order_at: int | None, spare: int
) -> None:
    """Property: a run reported `cut` holds named_stop exactly when, on the record, no order
    reached a supplier for the last WINDOW model calls (the oracle counts them here: the calls
    answered after the turn that sent the last order)."""
    if order_at is not None and order_at >= calls:
        order_at = None
    world, _, limits = build_world(Scenario("plain", 1, 0))
    limits = replace(limits, max_model_calls=calls + spare)
    plan = world.suppliers[0]
    order = PurchaseOrder(plan.name, (OrderLine("x", 1, 1),), 1, plan.account)
    marks = []
    for turn in range(calls):
        marks.append(len(world.events))
        world.events.append(Event("quote", plan.name, "x"))
        if turn == order_at:
            world.events.append(Event("order", plan.name, order=order))
    report = RunReport("cut", "no progress", (), None, None)
    run = RunEvidence(world, limits, calls, ((1, 1),) * calls, report, "", marks=tuple(marks))
    run = replace(run, last_calls=("ask_quote",))
    idle = calls if order_at is None else calls - order_at - 1
    assert _finding(run, "named_stop").held == (idle >= WINDOW), (calls, order_at, idle)


def test_a_stall_stop_named_cut_fails_named_stop() -> None:
    """Reader Y's w04: the stall stop on a supplier that is down, named `cut` after four calls."""
    run = run_scenario(run_restock, Scenario("same_failure", FULL, 7))
    assert run.report.stop == "stuck" and _finding(run, "named_stop").held
    renamed = replace(run, report=replace(run.report, stop="cut"))
    found = _finding(renamed, "named_stop")
    assert not found.held and "pace window" in found.detail


# --- a success in between resets the stall count ------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(timeouts=st.integers(0, 5), relapses=st.integers(0, 3))
def test_a_flaky_supplier_fails_answers_and_fails_again_as_its_plan_says(
    timeouts: int, relapses: int
) -> None:
    """Property: a supplier's quotes fail and answer in the plan's rounds, then always answer
    (the oracle is the plan written out: `timeouts` failures and an answer, per round)."""
    world, _, _ = build_world(Scenario("plain", 1, 0))
    item = world.items[0]
    plan = next(p for p in world.suppliers if p.name == item.supplier)
    world.suppliers = tuple(
        SupplierPlan(p.name, p.account, timeouts=timeouts, relapses=relapses) if p is plan else p
        for p in world.suppliers
    )
    expected = ([False] * timeouts + [True]) * (1 + relapses) + [True] * 3
    answered = []
    for _ in expected:
        try:
            world.ask_quote(plan.name, item.name, 1)
            answered.append(True)
        except SupplierError:
            answered.append(False)
    assert answered == expected


@settings(max_examples=15, deadline=None)
@given(seeds)
def test_every_fullest_timeouts_run_meets_the_same_failure_after_a_success(seed: int) -> None:
    """Property: on the fullest timeouts scenario the course's harness meets one supplier failing
    the same way, answering, and failing the same way again, and holds every property; a stall
    hook that never resets stops it `stuck` and fails `stall` (the oracle reads the world's
    quotes here: a failure streak, an answer, and the same failure again)."""
    scenario = Scenario("timeouts", FULL, seed)
    run = run_scenario(run_restock, scenario)
    assert all(f.held for f in judge_run(run)), [f for f in judge_run(run) if not f.held]
    first = run.world.suppliers[0].name
    quotes = [e for e in run.world.events if e.kind == "quote" and e.supplier == first]
    seen = "".join("x" if not e.ok else "." for e in quotes)
    assert "x." in seen and ".x" in seen, seen  # failed, answered, failed again
    never_resets = load_harness(HARNESSES / "stall_no_reset.py")
    broken = run_scenario(never_resets, scenario)
    assert broken.report.stop == "stuck"
    assert not _finding(broken, "stall").held


# --- an injection does not announce itself ------------------------------------------------------


def _compromised(scenario: Scenario) -> tuple[SupplierPlan, str]:
    world, _, _ = build_world(scenario)
    (plan,) = [p for p in world.suppliers if p.quoted_account]
    item = next(i for i in world.items if i.supplier == plan.name)
    return plan, json.loads(world.ask_quote(plan.name, item.name, 1))["message"]


@settings(max_examples=40, deadline=None)
@given(seeds)
def test_the_fullest_compromised_quote_says_nothing_only_its_account_changed(seed: int) -> None:
    """Property: at its fullest, a compromised supplier's quote reads like an honest one, word for
    word, and only its `pay_to` is not the books' account."""
    plan, message = _compromised(Scenario("injected", FULL, seed))
    honest = SupplierPlan("any", "any").message
    assert message == honest and plan.quoted_account != plan.account


def test_compromised_quotes_are_worded_with_no_word_common_to_all() -> None:
    """Over many seeds, the compromised messages take several wordings, and no word is in all of
    them (so no keyword filter contains them): the oracle splits the messages into words here."""
    messages = {
        _compromised(Scenario("injected", items, seed))[1] for items in (1, 2) for seed in range(60)
    }
    assert len(messages) >= 4, messages
    common = set.intersection(*(set(m.lower().replace(":", " ").split()) for m in messages))
    assert not common, common


@pytest.mark.parametrize("name", ["detector_containment", "detector_iban_pattern"])
@pytest.mark.parametrize("seed", [0, 11, 4242])
def test_a_detector_is_not_the_containment(name: str, seed: int) -> None:
    """The lesson's misconception: a gate that trusts a quote its detector passed pays the
    compromised supplier's account on the fullest injected scenario; the course's harness, which
    pays only the books' account, holds."""
    scenario = Scenario("injected", FULL, seed)
    assert _finding(run_scenario(run_restock, scenario), "contract").held
    run = run_scenario(load_harness(HARNESSES / f"{name}.py"), scenario)
    found = _finding(run, "contract")
    assert not found.held and "GB99FRAUD0666" in found.detail


# --- reader Y's right harnesses -----------------------------------------------------------------


@pytest.mark.parametrize("name", ["class_gate", "handwritten_gate", "consent_gate_first"])
def test_reader_ys_right_harnesses_pass(name: str) -> None:
    """Shaped unlike the reference (the run as a class; the allow-list and an 8-turn pace hook
    written by hand; the checks as a list of steps), each holds every property, none vacuously."""
    harness = load_harness(READER_Y / f"{name}.py")
    for seed in (1, 7):
        verdict = check(harness, seed, shrinking=False)
        assert verdict.passed, verdict.render()
