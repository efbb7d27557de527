"""cafe.routing.prices: a price table you edit, one attempt priced, and a batch of repair runs measured."""

import json
import math

import pytest

import cafe
from cafe.consent import OrderSpec
from cafe.repair.reask import (
    UNSAFE_SPEC,
    Attempt,
    RepairResult,
    make_model_generator,
    make_scripted_generator,
    repair_ticket,
)
from cafe.routing.prices import PRICES_PATH, ModelPrice, attempt_price, load_prices, measure_runs
from cafe.routing.routes import expected_cost
from cafe.schema.ticket import Usage
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel

PRICE = ModelPrice("m", input_per_million=2.0, output_per_million=8.0)


def test_load_prices_reads_the_shipped_placeholders():
    table = load_prices()
    assert set(table) >= {"cheap", "strong"}
    assert all(price.read_on == "placeholder" for price in table.values())
    with pytest.raises(TypeError):
        table["mine"] = PRICE  # read-only: edit the file, not the loaded table


def test_load_prices_reads_your_copy(tmp_path):
    data = json.loads(PRICES_PATH.read_text(encoding="utf-8"))
    data["models"].append(
        {
            "name": "my-model",
            "input_per_million": 0.1,
            "output_per_million": 0.4,
            "read_on": "2026-11-30",
        }
    )
    mine = tmp_path / "prices.json"
    mine.write_text(json.dumps(data), encoding="utf-8")
    assert load_prices(mine)["my-model"] == ModelPrice("my-model", 0.1, 0.4, "2026-11-30")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('{"models": {}}', "a price table is"),
        (
            '{"models": [{"name": "a", "input_per_million": -1, "output_per_million": 1}]}',
            "input_per_million is -1",
        ),
        (
            '{"models": [{"name": "a", "input_per_million": 1, "output_per_million": 1},'
            ' {"name": "a", "input_per_million": 2, "output_per_million": 2}]}',
            "priced twice",
        ),
        ('{"models": [{"input_per_million": 1, "output_per_million": 1}]}', "the model's name"),
    ],
)
def test_load_prices_a_broken_table_says_what_to_fix(tmp_path, text, message):
    path = tmp_path / "prices.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError, match=message):
        load_prices(path)


def test_load_prices_a_missing_file_says_where_to_copy_from(tmp_path):
    with pytest.raises(ValueError, match="copy"):
        load_prices(tmp_path / "nowhere.json")


def test_attempt_price_prices_prompt_and_completion_tokens_separately():
    # 1,000 prompt tokens at $2/M plus 100 completion tokens at $8/M.
    assert attempt_price(Usage(1_000, 100), PRICE) == pytest.approx(0.002 + 0.0008)


def test_attempt_price_needs_a_usage():
    with pytest.raises(TypeError, match="Usage"):
        attempt_price(1000, PRICE)


def _runs(mode):
    generate = make_model_generator(cafe.make_client(script=FeedbackModel()))
    return [repair_ticket(spec, generate, mode=mode) for spec in PRACTICE_ORDERS]


def test_measure_runs_counts_what_the_attempts_spent():
    runs = _runs("curated")
    measured = measure_runs(runs, PRICE)
    attempts = [a for run in runs for a in run.attempts]
    assert measured.attempts == len(attempts)
    assert measured.accepted == sum(run.stop_reason == "passed" for run in runs)
    assert measured.spend == pytest.approx(sum(attempt_price(a.usage, PRICE) for a in attempts))
    assert measured.cost_per_accepted == pytest.approx(measured.spend / measured.accepted)
    assert (
        measured.prompt_by_attempt[1] > measured.prompt_by_attempt[0]
    )  # a curated retry adds a failure view


def test_measure_runs_naive_retries_cost_far_more_than_the_closed_form():
    # FeedbackModel's slips recur on an unchanged prompt: sticky failures, measured.
    for mode, above in (("naive", True), ("curated", False)):
        measured = measure_runs(_runs(mode), PRICE)
        closed = expected_cost(measured.first_pass_rate, measured.price_per_attempt, 3)
        assert (measured.cost_per_accepted > 1.5 * closed) is above, mode


def test_measure_runs_skips_blocked_runs_and_refuses_runs_without_usage():
    blocked = repair_ticket(UNSAFE_SPEC, make_scripted_generator(["{}"]))
    spec = OrderSpec(table=6, items=("latte",), request="A latte.")
    good = '{"table": 6, "items": ["latte"], "allergies": [], "notes": ""}'
    plain = repair_ticket(spec, make_scripted_generator([good]))
    with pytest.raises(ValueError, match="no token usage"):
        measure_runs([blocked, plain], PRICE)
    with pytest.raises(ValueError, match="reached the generator"):
        measure_runs([blocked], PRICE)
    priced = RepairResult(
        "retries_exhausted", None, (Attempt(1, "x", (), 1, Usage(10, 1)),), usage=Usage(10, 1)
    )
    measured = measure_runs([blocked, priced], PRICE)
    assert (measured.orders, measured.accepted, measured.cost_per_accepted) == (1, 0, math.inf)


def test_measured_price_per_attempt_at_its_own_prices_is_its_price_per_attempt():
    measured = measure_runs(_runs("curated"), PRICE)
    assert measured.price_per_attempt_at(PRICE) == pytest.approx(measured.price_per_attempt)
    five_times = ModelPrice("x5", PRICE.input_per_million * 5, PRICE.output_per_million * 5)
    assert measured.price_per_attempt_at(five_times) == pytest.approx(
        5 * measured.price_per_attempt
    )
