"""cafe.report.shift: the 20-order shift past front of house and through the repair loop, timed by a clock passed in, and a large
made-up shift whose report grows linearly."""

from __future__ import annotations

import pytest

import cafe
from cafe.repair.reask import make_model_generator
from cafe.report.shift import (
    PRACTICE_PRICES,
    SHIFT_ORDERS,
    run_shift,
    scripted_drafter,
    synthetic_runs,
    ticking,
)
from cafe.report.summary import summarize
from cafe.stories.feedback_model import FeedbackModel
from work import grows_linearly


def _lunch():
    return run_shift(SHIFT_ORDERS, scripted_drafter(), model="cafe-scripted", clock=ticking(0.5))


def test_run_shift_gives_one_named_record_per_order():
    runs = _lunch()
    assert len(runs) == len(SHIFT_ORDERS) == 20
    assert [run.run_id for run in runs[:2]] == ["run-01", "run-02"]
    assert sum(summarize(runs).endings.values()) == 20


def test_run_shift_86d_orders_exhaust_the_cap_and_allergy_orders_stop_before_any_draft():
    by_table = {order.table: run for order, run in zip(SHIFT_ORDERS, _lunch())}
    assert all(
        by_table[t].ending == "retries_exhausted" and by_table[t].attempts == 3
        for t in (2, 6, 10, 16)
    )
    # One item holds the customer's declared allergen, the other is safe: front of house sends it
    # back to the customer before any draft.
    assert all(by_table[t].ending == "sent_back" for t in (17, 19, 20))
    assert all(
        by_table[t].trace is None and by_table[t].failures == {"unsafe": 1} for t in (17, 19, 20)
    )
    # Every item holds it, or the allergy cannot be checked: refused.
    assert all(by_table[t].ending == "policy_violation" for t in (21, 22, 23))
    for table in (17, 19, 20, 21, 22, 23):
        assert (by_table[table].attempts, by_table[table].tokens, by_table[table].seconds) == (
            0,
            0,
            0,
        )


def test_run_shift_shows_every_ending_a_report_knows():
    assert all(count > 0 for count in summarize(_lunch()).endings.values())


def test_run_shift_times_each_model_call_with_the_clock_it_is_given():
    for run in _lunch():
        assert run.seconds == pytest.approx(0.5 * run.attempts)


def test_run_shift_is_the_same_every_time_offline():
    assert _lunch() == _lunch()


def test_scripted_drafter_stays_scripted_in_live_mode(monkeypatch):
    """The notebook's shift story reads the same for everyone: no request leaves the machine."""
    monkeypatch.setenv("COURSE_MODE", "live")
    monkeypatch.setenv("CAFE_BASE_URL", "http://127.0.0.1:9/v1")  # nothing listens there
    monkeypatch.setenv("CAFE_API_KEY", "sk-unused")
    monkeypatch.setenv("CAFE_MODEL", "someone-elses-model")
    runs = run_shift(
        SHIFT_ORDERS[:3], scripted_drafter(), model=cafe.OFFLINE_MODEL, clock=ticking()
    )
    assert [run.ending for run in runs] == [run.ending for run in _lunch()[:3]]


def test_run_shift_never_drafts_an_order_front_of_house_sent_back():
    calls = []

    def generate(messages):
        calls.append(messages)
        raise AssertionError("an order sent back reached the generator")

    sent_back = [order for order in SHIFT_ORDERS if order.table in (17, 19, 20)]
    runs = run_shift(sent_back, generate, model="m")
    assert [run.ending for run in runs] == ["sent_back"] * 3 and calls == []


def test_run_shift_calls_on_run_with_each_record():
    seen = []
    generate = make_model_generator(cafe.make_client(script=FeedbackModel()))
    runs = run_shift(SHIFT_ORDERS[:3], generate, model="m", on_run=seen.append)
    assert tuple(seen) == runs


def test_run_shift_refuses_a_single_order_and_says_to_pass_a_list():
    with pytest.raises(TypeError, match="list of cafe.consent.OrderSpec"):
        run_shift(SHIFT_ORDERS[0], lambda messages: "", model="m")


def test_practice_prices_cover_the_offline_model():
    assert cafe.OFFLINE_MODEL in PRACTICE_PRICES
    assert summarize(_lunch(), PRACTICE_PRICES).unpriced == ()


def test_synthetic_runs_have_every_ending_and_charge_the_stopped_ones_nothing():
    runs = synthetic_runs(500)
    summary = summarize(runs, PRACTICE_PRICES)
    assert all(count > 0 for count in summary.endings.values())
    assert summary.cost_by_ending["sent_back"] == summary.cost_by_ending["policy_violation"] == 0
    assert all(sum(run.failures.values()) == 1 for run in runs if run.ending == "sent_back")


def test_summarize_work_grows_linearly_with_the_shift():
    """Four times the runs costs about four times the steps, not sixteen (counted, not timed)."""

    def make(n):
        runs = synthetic_runs(n)
        return lambda: summarize(runs, PRACTICE_PRICES)

    assert grows_linearly(make, 500)


# --- an endpoint problem costs one order, not the shift (issue 29) ----------------------------


def _timing_out_on(call_numbers, kind="timeout"):
    """The scripted drafter, except that the given calls (1-based) raise EndpointError(kind)."""
    from cafe.endpoint.errors import EndpointError

    drafts, calls = scripted_drafter(), [0]

    def generate(messages):
        calls[0] += 1
        if calls[0] in call_numbers:
            raise EndpointError("The endpoint did not answer within 60 s.", kind=kind)
        return drafts(messages)

    return generate


def test_run_shift_endpoint_timeout_costs_only_its_order(tmp_path):
    failed = []
    runs = run_shift(
        SHIFT_ORDERS,
        _timing_out_on({1}),
        model="m",
        clock=ticking(),
        trace_dir=tmp_path,
        on_failure=failed.append,
    )
    assert len(runs) + len(failed) == len(SHIFT_ORDERS)
    assert [(f.run_id, f.table, f.kind) for f in failed] == [
        ("run-01", SHIFT_ORDERS[0].table, "timeout")
    ]
    assert "run-01" not in {run.run_id for run in runs}
    assert failed[0].trace is not None and "error.type" in (tmp_path / "run-01.jsonl").read_text()
    assert "run-01" in failed[0].note() and "timeout" in failed[0].note()
    assert sum(summarize(runs, notes=[f.note() for f in failed]).endings.values()) == len(runs)


def test_run_shift_endpoint_error_without_a_handler_stops_the_shift():
    from cafe.endpoint.errors import EndpointError

    with pytest.raises(EndpointError):
        run_shift(SHIFT_ORDERS, _timing_out_on({1}), model="m", clock=ticking())


def test_run_shift_setup_problem_stops_the_shift_even_with_a_handler():
    from cafe.endpoint.errors import EndpointError

    failed = []
    with pytest.raises(EndpointError):
        run_shift(
            SHIFT_ORDERS,
            _timing_out_on({1}, kind="key_refused"),
            model="m",
            clock=ticking(),
            on_failure=failed.append,
        )
    assert failed == []
