"""Session 11 toy: what an accepted ticket costs once retries are paid for, and which route pays least.

    python sessions/s11-cost-routing/toy.py                      # offline: scripted drafts
    COURSE_MODE=live python sessions/s11-cost-routing/toy.py     # the same orders, your model

Three short stories, each line in plain words with the code's name after:

1. Ten orders go through the repair loop (`repair_ticket`) twice, once re-sending the same brief
   (`naive` retries) and once saying what failed (`curated`). Every attempt's token usage is
   priced from the price table (`cafe/data/prices.json`, placeholders you replace with real prices).
2. Five routes across a cheap model (passes 6 attempts in 10) and a strong one (19 in 20), priced
   per attempt from the measured tokens and the table: each alone, two cascades, and the cheap one
   with a bigger cap. Pass rate and dollars per 1,000 accepted tickets, with independent retries
   and with sticky ones; a seeded simulation checks every figure.
3. The measured cost per accepted ticket of story 1 against the closed form's price / p.

Offline the drafts come from `FeedbackModel`; live they come from your endpoint. Against
`cafe serve` started without `--session 11`, the toy says the replies are its default rule.
"""

from __future__ import annotations

import math
from typing import Any

from cafe.cli import run_command
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL, default_rehearsal_note, rehearsal_script
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.repair import CAP_DEFAULT, make_model_generator, repair_ticket
from cafe.routing import (
    CHEAP,
    STICKINESS_EXAMPLE,
    STRONG,
    Tier,
    example_routes,
    expected_cost,
    routing_table,
)
from cafe.routing.prices import Measured, load_prices, measure_runs
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel

# How far a simulated figure may sit from the formula before the toy calls it a disagreement: 3%.
AGREE = 0.03


def drafted(mode: str, live: bool) -> list[Any]:
    """The ten practice orders through the repair loop with `mode` retries, a dot per order."""
    generate = make_model_generator(make_client() if live else make_client(script=FeedbackModel()))
    print(f"   {mode} retries ", end="", flush=True)
    results = []
    for spec in PRACTICE_ORDERS:
        results.append(repair_ticket(spec, generate, mode=mode))
        print(".", end="", flush=True)
    print()
    return results


def per_thousand(value: float) -> str:
    return f"{value * 1000:>10.4f}" if math.isfinite(value) else f"{'no ticket':>10}"


def route_lines(curated: Measured, prices: Any) -> list[str]:
    """The routing table at the price table's prices, independent and sticky, checked by simulation."""
    cheap = Tier("cheap", CHEAP.p, curated.price_per_attempt_at(prices["cheap"]))
    strong = Tier("strong", STRONG.p, curated.price_per_attempt_at(prices["strong"]))
    routes = example_routes(cheap, strong)
    tables = [routing_table(routes, stickiness=s) for s in (0.0, STICKINESS_EXAMPLE)]
    worst = max(
        abs(row.simulated.cost_per_accepted / row.formula.cost_per_accepted - 1)
        for table in tables
        for row in table
    )
    lines = [
        f"   {'route':<24}{'independent retries':>24}{f'sticky retries ({STICKINESS_EXAMPLE})':>28}",
        f"   {'':<24}{'pass rate':>10}{'$ per 1,000':>14}{'pass rate':>14}{'$ per 1,000':>14}",
    ]
    for free, sticky in zip(*tables):
        lines.append(
            f"   {free.route.name:<24}"
            f"{free.formula.pass_rate:>10.4f}{per_thousand(free.formula.cost_per_accepted):>14}"
            f"{sticky.formula.pass_rate:>14.4f}{per_thousand(sticky.formula.cost_per_accepted):>14}"
        )
    agree = "agrees" if worst <= AGREE else "DISAGREES"
    lines.append(
        f"   (the formula, route_cost; a seeded simulation of 40,000 orders per route {agree}: "
        f"at most {worst:.1%} apart)"
    )
    return lines


def measured_line(mode: str, m: Measured) -> str:
    closed = expected_cost(m.first_pass_rate, m.price_per_attempt, CAP_DEFAULT)
    if not math.isfinite(closed) or not math.isfinite(m.cost_per_accepted):
        return (
            f"   {mode} retries: {m.accepted} of {m.orders} tickets; no first draft passed, "
            "so there is no closed form to compare"
        )
    return (
        f"   {mode} retries: {m.accepted} of {m.orders} tickets, {m.attempts} attempts; "
        f"${m.cost_per_accepted * 1000:.4f} per 1,000 accepted against ${closed * 1000:.4f} predicted "
        f"({m.cost_per_accepted / closed:.2f}x)"
    )


def main() -> int:
    mode = course_mode()
    live = mode == "live"
    prices = load_prices()
    print(
        f"Session 11 toy ({mode}): what an accepted ticket costs once every attempt is paid for, and which\n"
        f"way of spending {CAP_DEFAULT} attempts across a cheap and a strong model buys tickets most cheaply.\n"
    )
    if live and rehearsal_script(make_client(), model_name()) == DEFAULT_LABEL:
        print(default_rehearsal_note("11") + "\n")
    source = (
        f"your model, {model_name()}"
        if live
        else "a scripted model that fixes only what it is told"
    )
    print(f"1. The ten practice orders through the repair loop, drafted by {source}.")
    runs = {m: drafted(m, live) for m in ("naive", "curated")}
    priced_as = model_name() if model_name() in prices else "cheap"
    measured = {m: measure_runs(found, prices[priced_as]) for m, found in runs.items()}
    curated = measured["curated"]
    by_attempt = ", ".join(f"{tokens:.0f}" for tokens in curated.prompt_by_attempt)
    print(
        f"   A curated attempt uses {curated.tokens_per_attempt:.0f} tokens on average "
        f"(prompt tokens at attempt 1, 2, ...: {by_attempt})."
    )
    print(
        "   One attempt costs "
        + " and ".join(
            f"${curated.price_per_attempt_at(p):.6f} at {name!r} prices"
            for name, p in prices.items()
        )
        + " (placeholders: edit cafe/data/prices.json)."
    )
    print(
        f"\n2. Five routes, the cheap model passing {CHEAP.p:.0%} of attempts and the strong one {STRONG.p:.0%}:"
    )
    print("\n".join(route_lines(curated, prices)))
    print(
        f"\n3. Measured on the ten orders against the closed form, price per attempt / p, with p the share of\n"
        f"   first drafts that passed ({curated.first_passed} of {curated.orders}), priced at {priced_as!r}:"
    )
    for name, found in measured.items():
        print(measured_line(name, found))
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
