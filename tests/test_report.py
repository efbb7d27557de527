"""cafe.report: every order under one named ending, counts that add up, cost per accepted ticket,
and bad input (an empty shift, a run without usage, a model without a price) reported in words."""

from __future__ import annotations

import re
from types import SimpleNamespace

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cafe.consent import OrderSpec
from cafe.repair.front import front_of_house
from cafe.repair.reask import (
    ALTERNATING_CANDIDATES,
    OMELETTE_SPEC,
    STOP_REASONS,
    UNSAFE_SPEC,
    attempts_to_pass,
    make_scripted_generator,
    repair_ticket,
)
from cafe.report.records import (
    ENDINGS,
    STOP_ORDER,
    Price,
    RunRecord,
    record_from_result,
    record_from_sent_back,
)
from cafe.report.summary import (
    ShiftSummary,
    cost_by_ending,
    count_endings,
    run_cost,
    summarize,
)
from cafe.report.text import render_text

PRICES = {"m": Price(input_per_million=2.0, output_per_million=10.0)}


def _run(
    run_id: str, ending: str, attempts: int, tokens: tuple[int, int] | None = (100, 10), **extra
) -> RunRecord:
    counts = tokens if tokens is not None else (None, None)
    return RunRecord(run_id, ending, attempts, extra.pop("model", "m"), *counts, **extra)


def _shift() -> list[RunRecord]:
    return [
        _run("a", "passed", 1, seconds=1.0),
        _run("b", "passed", 2, (200, 20), seconds=2.0),
        _run(
            "c",
            "retries_exhausted",
            3,
            (300, 30),
            seconds=3.0,
            failures={"sold_out": 3},
            trace="t/c.jsonl",
        ),
        _run("d", "policy_violation", 0, (0, 0), failures={"unsafe": 1}),
    ]


# An order whose croissant holds the milk the customer declared, beside a safe americano: front of
# house sends it back to the customer before any draft, and the loop never runs.
CONSENT_SPEC = OrderSpec(
    3, ("americano", "croissant"), ("milk",), request="Americano and a croissant; no milk."
)


# --- the worked example: a shift of three kinds of ending ----------------------------------------


def test_endings_are_the_loops_three_stop_reasons_then_sent_back():
    assert ENDINGS == (*STOP_ORDER, "sent_back") and set(STOP_ORDER) == STOP_REASONS


def test_summarize_counts_every_run_under_its_ending():
    summary = summarize(_shift(), PRICES)
    assert dict(summary.endings) == {
        "passed": 2,
        "retries_exhausted": 1,
        "policy_violation": 1,
        "sent_back": 0,
    }
    assert dict(summary.attempts_to_pass) == {
        "1": 1,
        "2": 1,
        "3": 0,
        "exhausted": 1,
        "blocked": 1,
        "sent back": 0,
    }
    assert summary.accepted == 2 and summary.runs == 4


def test_summarize_counts_an_order_sent_back_to_the_customer_under_sent_back():
    sent = front_of_house(CONSENT_SPEC)
    assert sent is not None
    record = record_from_sent_back(sent, run_id="consent", model="m")
    summary = summarize([*_shift(), record], PRICES)
    assert summary.endings["sent_back"] == 1 and summary.attempts_to_pass["sent back"] == 1
    assert summary.cost_by_ending["sent_back"] == 0 and summary.accepted == 2
    assert dict(record.failures) == {"unsafe": 1}  # the item the customer is asked about
    assert (record.attempts, record.tokens, record.trace) == (0, 0, None)
    assert re.search(r"^  sent_back +1$", render_text(summary), re.MULTILINE)


def test_record_from_sent_back_refuses_a_repair_result():
    result = repair_ticket(UNSAFE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES))
    with pytest.raises(TypeError, match="SentBack"):
        record_from_sent_back(result, run_id="x", model="m")  # type: ignore[arg-type]


def test_run_record_sent_back_with_attempts_cannot_be_built():
    with pytest.raises(ValueError, match="before any draft"):
        _run("x", "sent_back", 2)


def test_summarize_attempt_bins_agree_with_the_repair_loop_on_every_ending():
    second_time = (
        '{"items": ["flat white"], "allergies": [], "notes": ""}',
        '{"table": 8, "items": ["flat white"], "allergies": [], "notes": ""}',
    )
    flat_white = OrderSpec(8, ("flat white",), request="A flat white.")
    results = [
        repair_ticket(order, make_scripted_generator(drafts))
        for order, drafts in [
            (OMELETTE_SPEC, ALTERNATING_CANDIDATES),
            (UNSAFE_SPEC, ALTERNATING_CANDIDATES),
            (flat_white, second_time),
        ]
    ]
    assert {result.stop_reason for result in results} == STOP_REASONS
    records = [
        record_from_result(result, run_id=str(n), model="m") for n, result in enumerate(results)
    ]
    bins = dict(summarize(records).attempts_to_pass)
    assert bins == {**attempts_to_pass(results), "sent back": 0}


def test_summarize_charges_wasted_runs_to_the_accepted_tickets():
    summary = summarize(_shift(), PRICES)
    assert summary.tokens == 660 and summary.tokens_per_accepted == 330
    expected = {
        "a": (100 * 2 + 10 * 10) / 1e6,
        "b": (200 * 2 + 20 * 10) / 1e6,
        "c": (300 * 2 + 30 * 10) / 1e6,
    }
    assert summary.cost == pytest.approx(sum(expected.values()))
    assert summary.cost_per_accepted == pytest.approx(sum(expected.values()) / 2)
    assert summary.cost_by_ending["retries_exhausted"] == pytest.approx(expected["c"])
    assert summary.cost_by_ending["policy_violation"] == 0


def test_summarize_names_slowest_and_costliest_runs_with_their_traces():
    summary = summarize(_shift(), PRICES, top=2)
    assert [run.run_id for run in summary.slowest] == ["c", "b"]
    assert [run.run_id for run, _ in summary.costliest] == ["c", "b"]
    text = render_text(summary)
    assert "trace t/c.jsonl" in text and "no trace recorded" in text


def test_summarize_counts_failures_by_check_name():
    summary = summarize(
        _shift() + [_run("e", "retries_exhausted", 3, failures={"sold_out": 1, "unsafe": 2})]
    )
    assert dict(summary.failures_by_check) == {"sold_out": 4, "unsafe": 3}


@given(st.lists(st.sampled_from(ENDINGS), max_size=40))
def test_summarize_counts_always_add_up_to_the_runs(endings):
    runs = [
        _run(f"r{i}", ending, {"passed": 1, "retries_exhausted": 3}.get(ending, 0))
        for i, ending in enumerate(endings)
    ]
    summary = summarize(runs)
    assert sum(summary.endings.values()) == len(runs) == sum(summary.attempts_to_pass.values())
    assert list(summary.endings) == list(ENDINGS)
    assert [summary.endings[e] for e in ENDINGS] == [endings.count(e) for e in ENDINGS]


# --- no "other" bucket ---------------------------------------------------------------------------


@pytest.mark.parametrize("ending", ["timeout", "needs_consent", None])
def test_count_endings_refuses_an_unnamed_ending_instead_of_calling_it_other(ending):
    runs = [SimpleNamespace(ending="passed"), SimpleNamespace(ending=ending)]
    with pytest.raises(ValueError, match=f"{ending!r}.*name every ending"):
        count_endings(runs)


@pytest.mark.parametrize("tokens", [(1000, 200), (None, None), (0, 0)])
@pytest.mark.parametrize("ending", ["timeout", "Passed", None])
def test_cost_by_ending_refuses_an_unnamed_ending_priced_or_not(ending, tokens):
    # lesson 09: a run that ends any other way is refused with a ValueError naming it, before
    # anything is counted; a cost split that dropped it (or raised a bare KeyError) hid it
    odd = SimpleNamespace(ending=ending, model="m", input_tokens=tokens[0], output_tokens=tokens[1])
    runs = [SimpleNamespace(ending="passed", model="m", input_tokens=10, output_tokens=1), odd]
    with pytest.raises(ValueError, match=f"{ending!r}.*name every ending"):
        cost_by_ending(runs, PRICES)


@pytest.mark.parametrize("ending", ["crashed", "needs_consent"])
def test_run_record_refuses_an_ending_outside_the_set(ending):
    with pytest.raises(ValueError, match="no 'other' bucket"):
        _run("x", ending, 1)


def test_shift_summary_refuses_counts_that_do_not_add_up():
    good = summarize(_shift())
    fields = {name: getattr(good, name) for name in good.__dataclass_fields__}
    with pytest.raises(ValueError, match="counts 3 runs but the shift has 4"):
        ShiftSummary(
            **{
                **fields,
                "endings": {
                    "passed": 2,
                    "retries_exhausted": 1,
                    "policy_violation": 0,
                    "sent_back": 0,
                },
            }
        )


# --- bad input, in words ---------------------------------------------------------------------------


def test_summarize_empty_shift_says_so_and_leaves_per_ticket_figures_undefined():
    summary = summarize([], PRICES)
    assert (
        summary.runs == 0
        and summary.tokens_per_accepted is None
        and summary.cost_per_accepted is None
    )
    assert any("no runs" in note for note in summary.notes)
    assert "undefined" in render_text(summary)


def test_summarize_run_without_usage_is_left_out_of_tokens_and_said_to_be_a_floor():
    summary = summarize(_shift() + [_run("quiet", "passed", 1, None)], PRICES)
    assert summary.unreported == ("quiet",) and summary.tokens == 660
    assert "quiet" in summary.unpriced
    assert any(
        "reported no token usage" in note and "(quiet)" in note and "floor" in note
        for note in summary.notes
    )


def test_summarize_two_runs_with_the_same_id_are_both_costed():
    twins = [_run("run-01", "passed", 1), _run("run-01", "retries_exhausted", 3, (300, 30))]
    summary = summarize(twins, PRICES)
    assert summary.cost == pytest.approx(sum(run_cost(run, PRICES) for run in twins))
    assert summary.unpriced == ()


def test_summarize_model_without_a_price_is_named_and_not_costed():
    summary = summarize(_shift() + [_run("z", "passed", 1, model="other-model")], PRICES)
    assert any("No price for model 'other-model'" in note for note in summary.notes)
    assert "z" in summary.unpriced


def test_summarize_without_prices_shows_no_cost_and_says_how_to_add_them():
    summary = summarize(_shift())
    assert summary.cost is None and "Cost:" not in render_text(summary)
    assert any("prices={model: Price(...)}" in note for note in summary.notes)


def test_summarize_no_passed_run_says_per_ticket_figures_are_undefined():
    summary = summarize([_run("c", "retries_exhausted", 3)], PRICES)
    assert summary.cost_per_accepted is None
    assert any("No run passed" in note for note in summary.notes)


def test_summarize_refuses_a_repair_result_and_says_how_to_convert_it():
    result = repair_ticket(UNSAFE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES))
    with pytest.raises(TypeError, match="record_from_result"):
        summarize([result])


def test_price_refuses_a_negative_or_missing_figure():
    with pytest.raises(ValueError, match="per million tokens"):
        Price(input_per_million=-1.0, output_per_million=1.0)


def test_summarize_refuses_a_price_table_in_two_currencies():
    prices = {"m": PRICES["m"], "n": Price(1.0, 1.0, currency="EUR")}
    with pytest.raises(ValueError, match="mixes currencies"):
        summarize(_shift(), prices)


# --- from the repair loop's own results ------------------------------------------------------------


def test_record_from_result_keeps_attempts_failures_and_unknown_usage():
    result = repair_ticket(OMELETTE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES))
    record = record_from_result(result, run_id="omelette", model="m", trace="runs/omelette.jsonl")
    assert record.ending == "retries_exhausted" and record.attempts == 3
    assert dict(record.failures) == {"missing_field": 2, "sold_out": 1}
    assert (
        record.input_tokens is None and run_cost(record, PRICES) is None
    )  # scripted drafts carry no usage
    assert record.trace == "runs/omelette.jsonl"


def test_record_from_result_refused_order_cost_nothing():
    result = repair_ticket(UNSAFE_SPEC, make_scripted_generator(ALTERNATING_CANDIDATES))
    record = record_from_result(result, run_id="latte", model="m")
    assert (record.attempts, record.input_tokens, record.output_tokens) == (0, 0, 0)
    assert dict(record.failures) == {"unsafe": 1} and run_cost(record, PRICES) == 0
