"""Tokens into money: a price table you edit, and what a batch of repair runs actually spent.

Session 11 (`sessions/s11-cost-routing/lesson.md`, notebook `notebooks/s11-cost-routing.ipynb`).
Every attempt of session 07's `repair_ticket` carries the token usage its endpoint reported. This
module prices it:

- `ModelPrice` and `load_prices`: per-token prices read from `cafe/data/prices.json` or a copy you
  keep. The shipped entries are placeholders, not any provider's prices: prices change, so the
  course ships none as facts, and the lesson says where each provider publishes its own;
- `attempt_price`: one attempt's prompt and completion tokens at one model's prices;
- `measure_runs`: from a batch of `RepairResult`s, the orders, tickets and attempts, the share
  that passed on the first attempt, tokens and money per attempt, and the measured cost per
  accepted ticket, which `cafe.routing.expected_cost` predicts from the first two.

What it leaves out: discounts that depend on how you call the endpoint (cached prompt prefixes,
batch processing), which change the price per attempt but not the arithmetic; the lesson's state
of the art covers them. `cafe.routing` turns prices and pass rates into a routing table.
"""

from __future__ import annotations

import json
import math
import types
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from cafe.repair.reask import RepairResult
from cafe.schema.ticket import Usage

__all__ = [
    "PRICES_PATH",
    "TOKENS_PER_PRICE_UNIT",
    "ModelPrice",
    "Measured",
    "load_prices",
    "attempt_price",
    "measure_runs",
]

# The shipped price table. Copy it, edit it, and pass your copy's path to `load_prices`.
PRICES_PATH = Path(__file__).resolve().parents[1] / "data" / "prices.json"
# Providers quote prices per million tokens, so the table does too.
TOKENS_PER_PRICE_UNIT = 1_000_000


def _rate(value: object, what: str, name: str) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 <= value < math.inf:
        raise ValueError(
            f"{name}: {what} is {value!r}; give the price in dollars per million tokens, 0 or more."
        )
    return float(value)


@dataclass(frozen=True)
class ModelPrice:
    """One model's prices, in dollars per million tokens, and the day you read them."""

    name: str
    input_per_million: float
    output_per_million: float
    read_on: str = "placeholder"

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise ValueError("A price needs the model's name, as you set it in CAFE_MODEL.")
        _rate(self.input_per_million, "input_per_million", self.name)
        _rate(self.output_per_million, "output_per_million", self.name)


def load_prices(path: str | Path | None = None) -> Mapping[str, ModelPrice]:
    """The price table at `path` (default `PRICES_PATH`), read-only, keyed by model name."""
    where = Path(path) if path is not None else PRICES_PATH
    try:
        data = json.loads(where.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(
            f"No price table at {where}; copy {PRICES_PATH} there and edit it."
        ) from None
    entries = data.get("models") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise ValueError(
            f'{where}: a price table is {{"models": [{{"name": ..., "input_per_million": ..., '
            '"output_per_million": ...}, ...]}; see the shipped one for an example.'
        )
    table: dict[str, ModelPrice] = {}
    for entry in entries:
        price = ModelPrice(
            entry.get("name", ""),
            entry.get("input_per_million"),
            entry.get("output_per_million"),
            str(entry.get("read_on", "not given")),
        )
        if price.name in table:
            raise ValueError(f"{where}: {price.name!r} is priced twice; keep one entry per model.")
        table[price.name] = price
    return types.MappingProxyType(table)


def attempt_price(usage: Usage, price: ModelPrice) -> float:
    """Dollars for one attempt: prompt tokens at the input price plus completion tokens at the output price."""
    if not isinstance(usage, Usage):
        raise TypeError(
            f"attempt_price() takes a cafe.schema.Usage (an Attempt's .usage), not {type(usage).__name__}."
        )
    return (
        usage.prompt_tokens * price.input_per_million
        + usage.completion_tokens * price.output_per_million
    ) / TOKENS_PER_PRICE_UNIT


@dataclass(frozen=True)
class Measured:
    """What a batch of repair runs did and spent, priced at one model's prices."""

    price: ModelPrice
    orders: int  # runs that reached the generator (a policy_violation run spends nothing)
    accepted: int
    attempts: int
    first_passed: int
    prompt_tokens: int
    completion_tokens: int
    spend: float
    prompt_by_attempt: tuple[
        float, ...
    ]  # mean prompt tokens at attempt 1, 2, ... of the runs that got there

    @property
    def first_pass_rate(self) -> float:
        """The share of orders whose first draft passed: the p of the closed form."""
        return self.first_passed / self.orders

    @property
    def pass_rate(self) -> float:
        return self.accepted / self.orders

    @property
    def price_per_attempt(self) -> float:
        return self.spend / self.attempts

    @property
    def tokens_per_attempt(self) -> float:
        return (self.prompt_tokens + self.completion_tokens) / self.attempts

    @property
    def cost_per_accepted(self) -> float:
        """Everything spent, divided by the tickets it bought (infinite when none passed)."""
        return self.spend / self.accepted if self.accepted else math.inf

    def price_per_attempt_at(self, other: ModelPrice) -> float:
        """What one of these attempts would cost at `other`'s prices, its average tokens unchanged.

        (Another model's tokenizer counts the same text a little differently; close enough to rank routes.)
        """
        return (
            (
                self.prompt_tokens * other.input_per_million
                + self.completion_tokens * other.output_per_million
            )
            / TOKENS_PER_PRICE_UNIT
            / self.attempts
        )


def _usages(results: Sequence[RepairResult]) -> list[list[Usage]]:
    runs = []
    for result in results:
        if not isinstance(result, RepairResult):
            raise TypeError(
                f"measure_runs() takes repair_ticket results, not {type(result).__name__}."
            )
        if not result.attempts:
            continue
        usages = [a.usage for a in result.attempts if a.usage is not None]
        if len(usages) != len(result.attempts):
            missing = [a.number for a in result.attempts if a.usage is None]
            raise ValueError(
                f"attempt(s) {missing} carry no token usage: the endpoint did not report it. "
                "Use a generator from make_model_generator, or price attempts by hand."
            )
        runs.append(usages)
    return runs


def measure_runs(results: Sequence[RepairResult], price: ModelPrice) -> Measured:
    """Count and price the attempts of `results` (from `repair_ticket`) at `price`."""
    runs = _usages(results)
    if not runs:
        raise ValueError(
            "None of these runs reached the generator; measure runs that drafted at least once."
        )
    attempted = [r for r in results if r.attempts]
    flat = [usage for run in runs for usage in run]
    longest = max(len(run) for run in runs)
    by_attempt = tuple(
        sum(run[k].prompt_tokens for run in runs if len(run) > k)
        / sum(1 for run in runs if len(run) > k)
        for k in range(longest)
    )
    return Measured(
        price=price,
        orders=len(runs),
        accepted=sum(r.stop_reason == "passed" for r in attempted),
        attempts=len(flat),
        first_passed=sum(not r.attempts[0].failures for r in attempted),
        prompt_tokens=sum(u.prompt_tokens for u in flat),
        completion_tokens=sum(u.completion_tokens for u in flat),
        spend=sum(attempt_price(u, price) for u in flat),
        prompt_by_attempt=by_attempt,
    )
