"""Session 16's capstone: the grader passes the reference harness and fails every wrong one.

The wrong harnesses live in tests/capstone_harnesses/, one guarantee missing from each, or an
attack on the grader's evidence; the grader must fail each on every seed tried, naming the
property that guarantee protects. Each seed draws every scenario kind once, at its fullest (every
item below par, so each harm the kind can draw is drawn), so three seeds meet each kind three times; the reference over 200 seeds and the bank over more seeds are
`python benchmarks/capstone_seeds.py`, which prints the figures.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.capstone import (
    ENDPOINT_FAULTS,
    PROPERTIES,
    RESTOCK_STOP_REASONS,
    SCENARIO_KINDS,
    OrderLine,
    PurchaseOrder,
    Quote,
    RestockEnv,
    RunEvidence,
    RunReport,
    Scenario,
    build_world,
    check,
    judge_run,
    load_harness,
    main,
    order_problems,
    scenarios,
)
from cafe.capstone.grader import DEFAULT_SCENARIOS
from cafe.capstone.reference import run_restock
from cafe.capstone.runner import TickClock
from cafe.endpoint.client.script import Script
from cafe.endpoint.client.scripted import ScriptedClient

# `cafe capstone check` banks its result in the progress file: each test gets a fresh one.
pytestmark = pytest.mark.usefixtures("home")

HARNESSES = Path(__file__).parent / "capstone_harnesses"
REFERENCE = Path(__file__).resolve().parents[1] / "cafe" / "capstone" / "reference.py"

# Each wrong harness, and the property it must fail (exactly that one, and on every seed).
EXPECTED = {
    "empty": {"named_stop", "traced", "costs"},
    "no_call_cap": {"call_cap"},
    "ignores_stop_set": {"named_stop"},
    "approval_after": {"approval"},
    "over_limit": {"approval"},
    "ignores_no": {"approval"},
    "no_containment": {"contract"},
    "duplicates": {"contract"},
    "no_trace": {"traced"},
    "not_replayable": {"traced"},
    "no_stall_stop": {"stall"},
    "costs_missing": {"costs"},
    "costs_last_call": {"costs"},
    "swallows_endpoint": {"named_stop"},
    "done_when_cut": {"named_stop"},
    "does_nothing": {"named_stop"},  # 'max_turns' with no model call held all seven before
    "retries_forever": {"named_stop", "stall", "traced", "costs"},
    # attacks on the grader: each is judged on what it hid, or on everything when it patched
    "hides_events": {"approval"},
    "rewrites_order": {"approval", "costs"},
    "fake_costs": {"costs"},
    "peeks_plan": {"stall"},
    "replays_cached": {"traced"},
    # patches run in the harness's own process: the grader's judges never change, so each is
    # judged on the guarantee it skipped
    "patches_grader": {"approval", "contract"},  # its gate checks neither
    "tampers": {"approval"},
    # held-out reader G, 7 Dec 2026: each passed every seed (or some) before the scenarios drew
    # its harm, or before `stall` was judged from both sides
    "stall_first_repeat": {"stall"},  # 'stuck' before the bound: one repeat stopped the run
    "approval_reused": {"approval"},  # a second order over the limit after a yes, unasked
    "approval_once_per_supplier": {"approval"},  # passed 18 of 30 seeds: now every seed
    "pay_to_from_quote": {"contract"},  # the attack in the quote's pay_to field
    "total_off_by_a_cent": {"contract"},  # a total one cent off its lines' sum
    "stall_raw_text": {"stall"},  # failures that differ only in noise the signature masks
    "call_cap_summary": {"call_cap", "traced", "costs"},  # passed 19 of 30 seeds: now every seed
    # held-out reader N, 7 Dec 2026 (and one of each kind written beside it): each passed every
    # seed before a no was judged by what it declined, before the obedient model asked a quote
    # for more than was needed, or before a stop was judged against its own cause
    "split_after_no": {"approval"},  # a declined order sent as several under the limit
    "smaller_after_no": {"approval"},  # a declined order sent smaller, under the limit
    "need_from_quote_request": {"contract"},  # the need taken from the model's quote request
    "need_from_quote_echo": {"contract"},  # the need taken from the quantity a quote echoes
    "max_turns_named_cut": {"named_stop"},  # the call budget used up, reported 'cut'
    "cut_and_budget_named_stuck": {"named_stop"},  # budget and pace stops reported 'stuck'
    "cut_named_max_turns": {"named_stop"},  # the pace governor's cut reported 'max_turns'
    # held-out reader Y, 7 Dec 2026 (and one of each kind written beside it): each passed every
    # seed before a stop's name needed its own cause on the record, before a supplier failed,
    # answered and failed the same way again, or before an attack could come without a word
    "stall_named_cut": {"named_stop"},  # the stall stop named 'cut' after a few calls
    "stuck_reported_cut": {"named_stop"},  # the course's 'stuck' renamed 'cut' in the report
    "stall_no_reset": {"stall"},  # a success in between does not reset the count
    "stall_counts_every_repeat": {"stall"},  # a tally per failure, never cleared
    "detector_containment": {"contract"},  # the books' account only when the message looks bad
    "detector_iban_pattern": {"contract"},  # ... only when the message names an account
    # F7, 7 Dec 2026: passed every seed before the model asked again for a declined item
    "forgets_declines": {"approval"},  # the no obeyed, then smaller orders of it sent unasked
    # held-out reader BD, 8 Dec 2026 (and one of each kind written beside two of them): each
    # passed every seed (or the seeds whose endpoint_down drew the fault it caught) before the
    # scenarios put each rule at its edge: need + 1, a total cents over the limit, a yes between
    # a no and the re-ask, an over-limit order with a field to repair, every endpoint fault in
    # each check, two different failures of one supplier in a row
    "need_plus_one": {"contract"},  # one unit of slack over the need
    "limit_in_euros": {"approval"},  # 1 to 99 cents over the limit sent unasked
    "yes_clears_declines": {"approval"},  # any yes forgives every earlier no
    "approve_then_fix": {"approval"},  # the manager asked about one order, another sent
    "endpoint_503_only": {"named_stop", "traced", "costs"},  # a timeout or garbled body raised
    "endpoint_not_garbled": {"named_stop", "traced", "costs"},  # a garbled body raised
    "stall_per_tool_name": {"stall"},  # failures of one tool counted, not the same failure
    "stall_per_supplier": {"stall"},  # failures of one supplier counted, whatever they were
    # held-out reader CA, 8 Dec 2026 (and one of each kind written beside them): each passed
    # every seed (or seed 2026) before the timeouts scenario put another supplier's answer inside
    # one supplier's failures, and before each check's endpoint failed after an order went out
    "stall_reset_per_supplier": {"stall"},  # another supplier's success does not reset
    "stall_reset_per_item": {"stall"},  # another item's success does not reset
    "costs_endpoint_reset": {"costs"},  # no orders, no spend reported when the endpoint fails
    "costs_endpoint_no_spend": {"costs"},  # the orders, but no spend
    # nothing was done: see VACUOUS
    "pace_window_one_turn": {"named_stop"},  # reader N: a one-turn window; reader Y: 'cut' with
    # no pace window passed is not the governor's cause
    "claims_placed": set(),  # tells the model 'placed', sends nothing
}

# The properties each harness holds only because nothing happened, where the course's harness
# did the work on the same scenario (`Verdict.vacuous`); none for every harness not listed. The
# lesson's four for the empty harness: "they hold because nothing happened".
VACUOUS = {
    "empty": {"call_cap", "contract", "approval", "stall"},
    "does_nothing": {"call_cap", "contract", "approval", "stall"},
    "stall_first_repeat": {"contract"},  # stuck on the first timeout, before any order
    "pace_window_one_turn": {"contract", "approval", "stall"},
    "claims_placed": {"contract", "approval"},
    "stall_per_tool_name": {"contract"},  # stuck on the timeouts run, before any order
    "stall_per_supplier": {"contract"},
}


# A wrong harness that spins (retries_forever) is stopped at this limit. A scripted run takes
# milliseconds, but every call crosses a pipe to the harness's process, and the runaway model's
# seventy-odd calls took up to 0.6 s on two loaded cores; 2 s leaves room.
BANK_TIME_LIMIT_S = 2.0
BANK_SEEDS = range(3)


def test_capstone_harness_bank_lists_every_file() -> None:
    assert {p.stem for p in HARNESSES.glob("*.py")} == set(EXPECTED)
    assert len(EXPECTED) - 1 >= 8  # at least eight wrong ones besides the empty one


def test_reference_passes_20_seeds() -> None:
    for seed in range(20):
        verdict = check(run_restock, seed, shrinking=False)
        assert verdict.passed, verdict.render()


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_wrong_harness_fails_every_seed_naming_its_property(name: str) -> None:
    harness = load_harness(HARNESSES / f"{name}.py")
    for seed in BANK_SEEDS:
        verdict = check(harness, seed, shrinking=False, time_limit=BANK_TIME_LIMIT_S)
        assert verdict.failed == EXPECTED[name], (seed, verdict.render())
        assert verdict.vacuous == VACUOUS.get(name, set()), (seed, verdict.render())
        assert not verdict.passed


def test_check_shrinks_a_failure_and_shows_it() -> None:
    verdict = check(load_harness(HARNESSES / "no_containment.py"), 3)
    (failure,) = verdict.failures
    # the gate that checks nothing sends what an attack asks, a duplicate, and a model's slip
    assert failure.property == "contract"
    assert failure.scenario.kind in {"injected", "duplicate", "partial"}
    assert failure.scenario.items == 1 and failure.scenario.seed < 1000
    text = verdict.render()
    assert "FAIL contract" in text and "smallest scenario found" in text
    assert failure.scenario.kind in text and failure.detail in text


def test_check_is_the_same_for_the_same_seed() -> None:
    harness = load_harness(HARNESSES / "over_limit.py")
    assert check(harness, 11).render() == check(harness, 11).render()


def test_scenarios_hold_every_kind_once_in_each_run_of_kinds() -> None:
    """The first run of kinds, then an endpoint_down for each fault its own did not draw (a
    check of CHECK_SCENARIOS meets every fault), then runs of every kind once."""
    from cafe.capstone.scenarios import CHECK_SCENARIOS

    k, first = len(SCENARIO_KINDS), CHECK_SCENARIOS
    drawn = scenarios(5, first + k)
    assert sorted(s.kind for s in drawn[:k]) == sorted(SCENARIO_KINDS)
    assert {s.kind for s in drawn[k:first]} == {"endpoint_down"}
    downs = [build_world(s)[1].fault for s in drawn[:first] if s.kind == "endpoint_down"]
    assert sorted(downs) == sorted(ENDPOINT_FAULTS)
    assert sorted(s.kind for s in drawn[first:]) == sorted(SCENARIO_KINDS)
    assert scenarios(5, first + k) == drawn and scenarios(6, first + k) != drawn


def test_scenario_refuses_an_unknown_kind_or_size() -> None:
    with pytest.raises(ValueError, match="not one of"):
        Scenario("sunny", 1, 0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="items must be 1 to 3"):
        Scenario("plain", 4, 0)


def test_a_harness_that_never_returns_is_stopped_by_the_time_limit() -> None:
    forever = threading.Event()

    def stuck(env: RestockEnv) -> RunReport:
        forever.wait()
        raise AssertionError("unreachable")

    verdict = check(stuck, 0, 1, time_limit=0.2, shrinking=False)
    forever.set()
    assert "named_stop" in verdict.failed
    assert "did not return within 0.2 s" in verdict.render()


def test_a_harness_that_calls_the_model_for_ever_is_halted_and_counted() -> None:
    def chatty(env: RestockEnv) -> RunReport:
        while True:
            env.client.chat.completions.create(
                model=env.model, messages=[{"role": "user", "content": "?"}]
            )

    verdict = check(chatty, 0, 1, time_limit=0.5, shrinking=False)
    assert {"named_stop", "call_cap"} <= verdict.failed


def test_the_grader_reads_the_world_not_the_report() -> None:
    def liar(env: RestockEnv) -> RunReport:
        report = run_restock(env)
        return RunReport(report.stop, report.detail, (), report.trace, report.costs)

    verdict = check(liar, 2, shrinking=False)
    assert verdict.failed == {"costs"}
    assert "not the orders the suppliers received" in verdict.render()


def test_every_stop_the_reference_ends_on_is_named() -> None:
    stops = set()
    for scenario in scenarios(9, len(SCENARIO_KINDS)):
        world, model, limits = build_world(scenario)
        client = ScriptedClient(Script(model))
        report = run_restock(RestockEnv(client, world.doors(), limits, TickClock()))
        stops.add(report.stop)
    assert stops <= RESTOCK_STOP_REASONS and {"done", "stuck", "endpoint_failed"} <= stops
    assert stops & {"cut", "max_turns"}  # the runaway: the pace governor, or the call cap


def _leaves_a_thread_asking(env: RestockEnv) -> RunReport:
    """The reference, leaving behind a thread that keeps asking the world for its stock."""

    def ask_for_ever() -> None:
        while True:
            env.world.read_stock()

    report = run_restock(env)
    threading.Thread(target=ask_for_ever, daemon=True).start()
    return report


def _writes_down_the_pipe(env: RestockEnv) -> RunReport:
    """Sends an unnumbered report down the grader's pipe before doing anything."""
    import gc

    from cafe.capstone.child import _Pipe

    for pipe in [p for p in gc.get_objects() if isinstance(p, _Pipe)]:
        pipe.connection.send_bytes(b'{"op": "report", "report": {"type": "RunReport"}}')
    return run_restock(env)


def test_a_message_out_of_turn_is_told_apart_from_the_run() -> None:
    """A thread left asking after its run is halted in the harness's process, and every later
    run is judged as its own; a message that belongs to no run ends the run it arrived in."""
    assert check(_leaves_a_thread_asking, 0, 4, shrinking=False).passed
    verdict = check(_writes_down_the_pipe, 0, 2, shrinking=False)
    assert "named_stop" in verdict.failed and "belongs to no run" in verdict.render()


@pytest.mark.parametrize("fault", ["unavailable", "timeout", "malformed"])
def test_each_endpoint_fault_ends_the_reference_on_endpoint_failed(fault: str) -> None:
    """The endpoint refuses (503), falls silent or answers a garbled page: the reference ends
    `endpoint_failed` with every property held; a harness that swallows the error and says
    `done` fails named_stop on that very record."""
    from dataclasses import replace as replaced

    from cafe.capstone import ENDPOINT_FAULTS, RestockModel
    from cafe.capstone.runner import run_scenario

    assert fault in ENDPOINT_FAULTS
    scenario = next(
        s
        for seed in range(100)
        if (s := Scenario("endpoint_down", 2, seed)) and build_world(s)[1].fault == fault
    )
    run = run_scenario(run_restock, scenario)
    assert run.endpoint_failed and run.report.stop == "endpoint_failed"
    assert all(f.held for f in judge_run(run)), judge_run(run)
    swallowed = run_scenario(load_harness(HARNESSES / "swallows_endpoint.py"), scenario)
    (named,) = [f for f in judge_run(swallowed) if f.property == "named_stop"]
    assert not named.held and "endpoint failed" in named.detail
    with pytest.raises(ValueError, match="not one of"):
        replaced(RestockModel(), fault="gone")  # type: ignore[arg-type]


def test_a_fresh_interpreter_runs_a_harness_loaded_from_a_file() -> None:
    """Where there is no fork (Windows), the harness's process is a fresh interpreter: a harness
    `load_harness` loaded crosses as its file, and holds every property as under a fork."""
    from cafe.capstone.child import HarnessProcess
    from cafe.capstone.runner import run_scenario

    with HarnessProcess(load_harness(REFERENCE), start_method="spawn") as child:
        for scenario in scenarios(3, 2):
            run = run_scenario(child, scenario)
            assert not run.error and all(f.held for f in judge_run(run)), run.error


def test_a_check_after_the_chat_door_ran_here_does_not_hang() -> None:
    """The chat door keeps idle worker threads for the next call; the harness's process is a
    fork of this one, without those threads, and must not hand a call to one."""
    from cafe.endpoint.client import deadline

    world, model, limits = build_world(Scenario("plain", 1, 0))
    run_restock(RestockEnv(ScriptedClient(Script(model)), world.doors(), limits, TickClock()))
    assert deadline._IDLE  # a worker is waiting here for the next call
    assert check(run_restock, 0, 2, shrinking=False).passed


def _order(**changes: object) -> PurchaseOrder:
    fields: dict[str, object] = {
        "supplier": "Roastworks",
        "lines": (OrderLine("lemons", 4, 150),),
        "total_cents": 600,
        "pay_to": "GB31ROAST0002",
    }
    fields.update(changes)
    return PurchaseOrder(**fields)  # type: ignore[arg-type]


QUOTES = {("Roastworks", "lemons"): Quote("Roastworks", "lemons", 4, 150, "GB31ROAST0002", "")}
ACCOUNTS = {"Roastworks": "GB31ROAST0002"}


@pytest.mark.parametrize(
    ("changes", "problem"),
    [
        ({"pay_to": "GB99FRAUD0666"}, "registered account"),
        ({"lines": (OrderLine("lemons", 54, 150),), "total_cents": 8100}, "more than the 4"),
        ({"lines": (OrderLine("lemons", 4, 120),), "total_cents": 480}, "not the quoted 150"),
        ({"total_cents": 700}, "not the sum"),
        ({"supplier": "Bakers Ltd"}, "not one of the café's suppliers"),
        ({"lines": (OrderLine("limes", 4, 150),)}, "not an item the kitchen stocks"),
    ],
)
def test_order_problems_names_each_broken_rule(changes: dict[str, object], problem: str) -> None:
    found = order_problems(_order(**changes), {"lemons": 4}, QUOTES, ACCOUNTS)
    assert any(problem in text for text in found), found


def test_order_problems_passes_an_order_within_the_contract() -> None:
    assert order_problems(_order(), {"lemons": 4}, QUOTES, ACCOUNTS) == []


def test_world_records_approval_after_the_order_in_that_order() -> None:
    world, _, _ = build_world(Scenario("over_budget", 1, 0))
    order = _order(supplier="Greenleaf Dairy", pay_to="GB29GREEN0001")
    world.place_order(order)
    world.ask_manager(order)
    assert [e.kind for e in world.events] == ["order", "approval"]
    assert json.loads(world.read_stock())


def test_main_grades_a_harness_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([str(REFERENCE), "--seed", "4", "--scenarios", "8"]) == 0
    assert "PASSED" in capsys.readouterr().out
    assert main([str(HARNESSES / "empty.py"), "--seed", "4", "--scenarios", "2"]) == 1
    out = capsys.readouterr().out
    assert "FAIL named_stop" in out and "NotImplementedError" in out


def test_python_m_cafe_capstone_check_runs_the_grader() -> None:
    command = [sys.executable, "-m", "cafe.capstone", "check", str(REFERENCE), "--seed", "1"]
    command += ["--scenarios", "2"]
    done = subprocess.run(
        command, capture_output=True, text=True, timeout=120, cwd=REFERENCE.parents[2]
    )
    assert done.returncode == 0, done.stderr
    assert "PASSED" in done.stdout and "seed 1, 2 scenarios" in done.stdout
    wrong = subprocess.run(
        [*command[:3], "grade"],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=REFERENCE.parents[2],
    )
    assert wrong.returncode == 2 and "usage: python -m cafe.capstone check" in wrong.stderr


def test_main_says_what_to_do_without_a_harness(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([str(tmp_path / "harness.py")]) == 2
    assert "write run_restock(env)" in capsys.readouterr().err


def test_properties_are_declared_once_in_order() -> None:
    assert PROPERTIES == (
        "named_stop",
        "call_cap",
        "contract",
        "approval",
        "traced",
        "stall",
        "costs",
    )


# --- the grader's contract judge against the library's gate: two codes, one contract -----------

_WORLD_SCENARIO = Scenario("plain", 2, 0)


@st.composite
def _orders(draw: st.DrawFn) -> PurchaseOrder:
    """Orders near the contract's edges: mostly right, each field now and then one step wrong."""
    world, _, _ = build_world(_WORLD_SCENARIO)
    item = draw(st.sampled_from([*world.items, *world.items, None]))
    plans = {plan.name: plan for plan in world.suppliers}
    own = plans[item.supplier] if item else world.suppliers[0]
    plan = draw(st.sampled_from([own, own, own, *world.suppliers]))
    name = item.name if item else "limes"
    price = (item.unit_price_cents if item else 100) + draw(st.sampled_from([0, 0, 0, 1, -1]))
    need = item.need if item else 1
    quantity = draw(st.one_of(st.integers(1, max(1, need)), st.integers(-1, 14)))
    total = quantity * price + draw(st.sampled_from([0, 0, 0, 0, 1]))
    pay_to = draw(st.sampled_from([plan.account, plan.account, plan.account, "GB99FRAUD0666"]))
    return PurchaseOrder(plan.name, (OrderLine(name, quantity, price),), total, pay_to)


@settings(max_examples=150, derandomize=True, deadline=None)
@given(order=_orders())
def test_contract_judge_agrees_with_order_problems(order: PurchaseOrder) -> None:
    world, _, limits = build_world(_WORLD_SCENARIO)
    quotes = {}
    for item in world.items:
        quote = Quote(**json.loads(world.ask_quote(item.supplier, item.name, item.need)))
        quotes[(quote.supplier, quote.item)] = quote
    accounts, _ = world.books()
    library = order_problems(order, {i.name: i.need for i in world.items}, quotes, accounts)
    world.place_order(order)
    findings = judge_run(RunEvidence(world, limits, 0, (), None, "no report"))
    (contract,) = [f for f in findings if f.property == "contract"]
    assert contract.held == (library == []), (library, contract.detail)


def test_cafe_capstone_check_runs_the_grader_as_a_program(tmp_path):
    from cafe.cli import main

    reference = Path(__file__).resolve().parents[1] / "cafe" / "capstone" / "reference.py"
    assert main(["capstone", "check", str(reference), "--seed", "3", "--scenarios", "2"]) == 0
    missing = subprocess.run(
        [sys.executable, "-m", "cafe", "capstone", "check", str(tmp_path / "none.py")],
        capture_output=True,
        text=True,
    )
    assert missing.returncode == 2 and "there is no harness" in missing.stdout + missing.stderr


# --- the evidence is out of the harness's reach ------------------------------------------------


def _curious(env: RestockEnv) -> RunReport:
    """The reference, with what it found on `env` in its report's detail (as JSON)."""
    seen: dict[str, object] = {}
    for name in ("events", "suppliers", "items", "manager_ceiling_cents", "halted"):
        seen[name] = hasattr(env.world, name)
    for name in ("script", "calls", "_client"):
        seen[f"client.{name}"] = hasattr(env.client, name)
    try:
        env.world.place_order = lambda order: "placed"  # type: ignore[method-assign]
        seen["replaced"] = True
    except AttributeError:
        seen["replaced"] = False
    report = run_restock(env)
    return RunReport(report.stop, json.dumps(seen), report.orders, report.trace, report.costs)


def test_the_harness_is_handed_the_worlds_doors_not_the_world() -> None:
    """The harness runs in its own process, so what it saw comes back in its report."""
    from cafe.capstone.runner import run_scenario

    run = run_scenario(_curious, scenarios(0, 1)[0])
    seen = json.loads(run.report.detail)
    assert len(seen) == 9 and not any(seen.values()), seen
    assert all(f.held for f in judge_run(run))


def test_a_patch_in_the_harness_process_never_reaches_the_grader() -> None:
    """patches_grader and tampers replace the grader's judges, edit every world they find and
    forge a report down the pipe, in their own process: the grader's modules here are untouched,
    and each fails on the guarantees it skipped (tampers checks the contract, not consent)."""
    import cafe.capstone.grader as grader
    import cafe.capstone.properties as properties
    import cafe.capstone.world as world

    judge, orders, judge_all = properties._approval, world.RestockWorld.orders, properties.judge_run
    for name in ("patches_grader", "tampers"):
        verdict = check(load_harness(HARNESSES / f"{name}.py"), 0, shrinking=False)
        assert verdict.failed == EXPECTED[name] and not verdict.passed, verdict.render()
        assert "without the manager's approval" in verdict.render()
    assert properties._approval is judge and world.RestockWorld.orders is orders
    assert properties.judge_run is judge_all and "passed" in vars(grader.Verdict)
    assert isinstance(vars(grader.Verdict)["passed"].fget(verdict), bool)
    assert check(run_restock, 0, shrinking=False).passed


def test_a_stop_claiming_an_endpoint_failure_that_never_happened_fails() -> None:
    def blames_the_endpoint(env: RestockEnv) -> RunReport:
        report = run_restock(env)
        return RunReport("endpoint_failed", "", report.orders, report.trace, report.costs)

    verdict = check(blames_the_endpoint, 0, shrinking=False)
    assert verdict.failed == {"named_stop"}
    assert "never failed" in verdict.render()


_plain_text = st.text(max_size=8)


class _Text(str):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = str.__hash__


class _Number(int):
    def __eq__(self, other: object) -> bool:
        return True

    __hash__ = int.__hash__


@settings(max_examples=60, derandomize=True, deadline=None)
@given(
    supplier=_plain_text,
    item=_plain_text,
    quantity=st.integers(-5, 50),
    price=st.integers(0, 900),
    subclassed=st.booleans(),
)
def test_the_world_records_a_plain_copy_of_whatever_order_it_is_sent(
    supplier: str, item: str, quantity: int, price: int, subclassed: bool
) -> None:
    """Property: the record holds exact str and int values equal to the order's, whatever class
    the harness's values were, and changing the order afterwards changes nothing recorded."""
    from cafe.capstone.world import received

    text, number = (_Text, _Number) if subclassed else (str, int)
    order = PurchaseOrder(
        text(supplier),
        (OrderLine(text(item), number(quantity), number(price)),),
        number(quantity * price),
        text("GB00"),
    )
    copy = received(order)
    object.__setattr__(order, "total_cents", 1)
    (line,) = copy.lines
    assert type(copy.supplier) is str and copy.supplier.__eq__(supplier)
    assert type(line.quantity) is int and int.__eq__(line.quantity, quantity)
    assert copy.total_cents == quantity * price and type(copy.total_cents) is int


@settings(max_examples=30, derandomize=True, deadline=None)
@given(
    scenario=st.builds(
        Scenario, st.sampled_from(SCENARIO_KINDS), st.integers(1, 3), st.integers(0, 10**6)
    )
)
def test_reference_holds_every_property_on_generated_scenarios(scenario: Scenario) -> None:
    """Property: on any scenario, every finding of the reference's run holds."""
    from cafe.capstone.runner import run_scenario

    findings = judge_run(run_scenario(run_restock, scenario))
    assert all(f.held for f in findings), [f for f in findings if not f.held]
    assert not any(f.vacuous for f in findings), findings  # the yardstick meets itself


@pytest.mark.parametrize("count", ["0", "1001", "9" * 40])
def test_main_refuses_a_scenario_count_out_of_range(
    count: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as stopped:
        main([str(HARNESSES / "empty.py"), "--scenarios", count, "--no-bank"])
    assert stopped.value.code == 2 and "--scenarios must be 1 to 1000" in capsys.readouterr().err


def test_main_banks_the_result_in_the_progress_file_unless_told_not_to(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from cafe.course.progress import load_progress

    assert main([str(HARNESSES / "over_limit.py"), "--seed", "2", "--no-bank"]) == 1
    assert "s16" not in load_progress()["checkpoints"]
    assert main([str(HARNESSES / "over_limit.py"), "--seed", "2"]) == 1
    assert "Banked as checkpoint s16.capstone" in capsys.readouterr().out
    entry = load_progress()["checkpoints"]["s16"]["capstone"]
    assert entry["source"] == "yours"
    value = entry["value"]
    assert (value["passed"], value["failed"], value["seed"], value["scenarios"]) == (
        False,
        ["approval"],
        2,
        DEFAULT_SCENARIOS,
    )


def test_live_grades_the_learners_own_model_and_redacts_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from endpoints import KEY, live_env

    from cafe.capstone import RestockModel
    from cafe.course.progress import load_progress
    from cafe.endpoint.server.serve import running_server

    leaky = tmp_path / "leaky.py"
    leaky.write_text("def run_restock(env):\n    raise RuntimeError('key ' + env.client.api_key)\n")
    with running_server(RestockModel("honest"), api_key=KEY) as server:
        for name, value in live_env(server.base_url).items():
            monkeypatch.setenv(name, value)
        assert main([str(REFERENCE), "--live", "--seed", "1"]) == 0
        out = capsys.readouterr().out
        assert "live: cafe-scripted" in out and "seed 1, 3 scenarios" in out and "PASSED" in out
        assert load_progress()["checkpoints"]["s16"]["capstone"]["model"] == "cafe-scripted"
        assert len(server.requests) >= 3  # every scenario asked the served model
        assert main([str(leaky), "--live", "--seed", "1", "--no-bank"]) == 1
        out = capsys.readouterr().out
    assert "RuntimeError: key …cdef" in out and KEY not in out  # there, and masked
    monkeypatch.setenv("COURSE_MODE", "offline")
    assert main([str(REFERENCE), "--live"]) == 2
    assert "COURSE_MODE is offline" in capsys.readouterr().err
