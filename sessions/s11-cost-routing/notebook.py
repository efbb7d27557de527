# %% [markdown]
# # Session 11 · What retries cost, and routing between models
#
# Session 07 capped the re-ask and counted attempts. This notebook puts a price on them: what one
# ticket that reaches the kitchen costs, with retries included, and which way of spending attempts
# across a cheap and a strong model buys tickets most cheaply. Read
# `sessions/s11-cost-routing/lesson.md` alongside; `cafe/routing/routes.py` and `cafe/routing/prices.py` are the code.
#
# Each step is *predict first*: write your guess down before you run the cell that answers it.
# Everything runs offline on scripted drafts unless you set `COURSE_MODE=live`; the cells that
# reach your model then say so. The arithmetic cells are the same in both modes.

# %%
import math
import random

import cafe
import cafe.routing
from cafe import course
from cafe.exercises.s11 import check_expected_cost, check_route_cost
from cafe.repair import CAP_DEFAULT, make_model_generator, repair_ticket
from cafe.repair.lottery import simulate_sticky
from cafe.routing import (
    CHEAP,
    STICKINESS_EXAMPLE,
    STRONG,
    Route,
    Step,
    Tier,
    cascade,
    example_routes,
    route_cost,
    routing_table,
    simulate_route,
    single,
)
from cafe.routing.prices import load_prices, measure_runs
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel

live = cafe.course_mode() == "live"
prices = load_prices()
print(f"mode: {cafe.course_mode()}   model: {cafe.model_name()}   cap: {CAP_DEFAULT}")
print("price table (dollars per million tokens):")
for price in prices.values():
    print(
        f"  {price.name:<10} input {price.input_per_million:>6.2f}   output {price.output_per_million:>6.2f}"
        f"   read on: {price.read_on}"
    )

# %% [markdown]
# The two entries are placeholders, not any provider's prices; step 6 has you add your own model.
#
# ## 1. What does one attempt cost?
#
# Every attempt `repair_ticket` makes carries the token usage its endpoint reported: prompt tokens
# (what was sent) and completion tokens (what came back). The ten practice orders from session 07
# go through the loop twice, with `naive` retries and with `curated` ones. Offline the drafts come
# from `FeedbackModel` and the usage is the scripted endpoint's estimate (a token per four
# characters); live it is your model and your endpoint's own count.
#
# Before you run it: think about what attempt 2 of a curated run sends, compared with attempt 1.

# %%
retry_guess = course.predict(
    "s11.retry_tokens",
    "Attempt 2 of a curated run, against attempt 1: how many prompt tokens does it send?",
    options=["more", "about the same", "fewer"],
)

# %%
runs = {}
for mode in ("naive", "curated"):
    generate = make_model_generator(
        cafe.make_client() if live else cafe.make_client(script=FeedbackModel())
    )
    print(
        f"{mode}: {'your model ' + cafe.model_name() if live else 'the scripted FeedbackModel'} is drafting",
        end="",
        flush=True,
    )
    runs[mode] = []
    for spec in PRACTICE_ORDERS:
        runs[mode].append(repair_ticket(spec, generate, mode=mode))
        print(".", end="", flush=True)
    print()

priced_as = cafe.model_name() if cafe.model_name() in prices else "cheap"
measured = {mode: measure_runs(found, prices[priced_as]) for mode, found in runs.items()}
for mode, m in measured.items():
    by_attempt = "  ".join(
        f"attempt {k + 1}: {tokens:.0f}" for k, tokens in enumerate(m.prompt_by_attempt)
    )
    print(
        f"{mode:<8} {m.attempts} attempts, {m.tokens_per_attempt:.0f} tokens each on average;"
        f" prompt tokens by attempt: {by_attempt}"
    )

# %%
curated_by_attempt = measured["curated"].prompt_by_attempt
if len(curated_by_attempt) < 2:
    retry = "no curated run needed a second attempt"
else:
    ratio = curated_by_attempt[1] / curated_by_attempt[0]
    retry = "more" if ratio > 1.05 else "fewer" if ratio < 0.95 else "about the same"
course.show_outcome(retry_guess, retry)

print(
    f"\nPriced at {priced_as!r}"
    + (
        ""
        if priced_as == cafe.model_name()
        else f" (your model {cafe.model_name()!r} is not in the price table yet)"
    )
)
for name, price in prices.items():
    print(
        f"  one curated attempt at {name!r} prices: ${measured['curated'].price_per_attempt_at(price):.6f}"
    )

# %% [markdown]
# Why does the retry's prompt differ from the first attempt's, and what could make the repeated
# part cheaper? Decide, then flip the switch.

# %%
course.reveal("s11.why_retry_dearer")

# %% [markdown]
# ## 2. Which route costs least per accepted ticket?
#
# Now the lesson's question, with round numbers. A cheap model passes an attempt with p = 0.6 and
# costs $1 an attempt; a strong one passes with p = 0.95 and costs $5. The repair loop's cap is 3.
# Three ways to spend those three attempts:
#
# - the cheap model alone, up to 3 attempts;
# - the strong model alone, up to 3 attempts;
# - a cascade: the cheap model once, then the strong one for the other two, only if needed.
#
# Attempts are independent here (a retry is a fresh draw). Which buys an accepted ticket most cheaply?

# %%
cap3_routes = [single(CHEAP, 3), single(STRONG, 3), cascade(CHEAP, STRONG, 1, 3)]
cheapest_guess = course.predict(
    "s11.cheapest",
    "Cheapest per accepted ticket, at cap 3:",
    options=[route.name for route in cap3_routes],
)

# %% [markdown]
# `routing_table` works each route out twice: exactly (`route_cost`) and by simulating 40,000
# orders with a seeded random generator (`simulate_route`), so the formula is checked, not trusted.
# It adds two routes: the cascade that escalates later, and the cheap model with a cap of 5.


# %%
def show_table(rows, title):
    print(title)
    print(f"  {'route':<24} {'pass rate':>17} {'attempts':>15} {'$ per accepted ticket':>23}")
    print(f"  {'':<24} {'formula  sim':>17} {'formula  sim':>15} {'formula    sim':>23}")
    for row in rows:
        f, s = row.formula, row.simulated
        print(
            f"  {row.route.name:<24} {f.pass_rate:>8.4f} {s.pass_rate:>7.4f} {f.attempts:>7.3f} {s.attempts:>6.3f}"
            f" {f.cost_per_accepted:>13.3f} {s.cost_per_accepted:>8.3f}"
        )


independent = routing_table(stickiness=0.0)
show_table(independent, "Independent attempts:")
for row in independent:
    assert (
        abs(row.simulated.cost_per_accepted - row.formula.cost_per_accepted)
        < 0.03 * row.formula.cost_per_accepted
    )

# %%
per_ticket = {row.route.name: row.formula.cost_per_accepted for row in independent}
course.show_outcome(cheapest_guess, min((route.name for route in cap3_routes), key=per_ticket.get))

# %% [markdown]
# Look at the cheap model's two rows: cap 3 and cap 5. The pass rate moved; did the cost per
# accepted ticket? Work out why from the lesson's formula before you flip the switch.

# %%
course.reveal("s11.why_cap_free")

# %% [markdown]
# ## 3. Your turn: the cost of an accepted ticket
#
# Write `expected_cost(p, price, cap)`: the money one accepted ticket costs when each attempt
# passes with probability p, independently, and costs `price`, with at most `cap` attempts.
# Two pieces, both from the lesson: the expected number of attempts an order spends, and the share
# of orders that end with a ticket (`cafe.repair.lottery.pass_within_cap`). When p is 0, no order ever
# passes: return `math.inf`.
#
# The compare cell checks your function against the *simulation*, not against the course's
# formula: 40,000 simulated orders per case, within 4%.


# %%
def expected_cost(p, price, cap):
    """Money per accepted ticket: price x expected attempts / pass rate within the cap."""
    raise NotImplementedError("your turn: write the cost per accepted ticket")


# %%
course.compare(expected_cost, check=check_expected_cost, key="s11.expected_cost")

# %% [markdown]
# Tried it? Flip the switch for the course's version, `cafe.routing.expected_cost`.

# %%
course.reveal("s11.expected_cost", source=cafe.routing.expected_cost)

# %% [markdown]
# ## 4. When retries are not fresh draws, how wrong is the formula?
#
# Session 07's lottery table had a sticky column: a retry of the same model repeats the last
# failure outright half the time (stickiness 0.5), and draws fresh otherwise. A cascade's second
# model starts fresh on its first attempt: it is a different model. Same five routes, same prices.

# %%
gap_options = ["within 5%", "about a quarter above", "about double", "below it"]
gap_guess = course.predict(
    "s11.sticky_gap",
    "Cheap model, cap 3, stickiness 0.5: the true cost per accepted ticket against the "
    "independent formula's price / p?",
    options=gap_options,
)
most_guess = course.predict(
    "s11.sticky_most",
    "Stickiness 0.5: which route passes the most orders?",
    options=[route.name for route in example_routes()],
)

# %%
sticky = routing_table(stickiness=STICKINESS_EXAMPLE)
show_table(sticky, f"Stickiness {STICKINESS_EXAMPLE}:")
for row in sticky:
    assert abs(row.simulated.pass_rate - row.formula.pass_rate) < 0.01

# The simulation is session 07's lottery, counting money too: for one model it draws exactly as
# cafe.repair.lottery.simulate_sticky does, so with the same seed the two pass rates are the same number.
ours = simulate_route(single(CHEAP, 3), STICKINESS_EXAMPLE, 10_000, random.Random(7)).pass_rate
lottery = simulate_sticky(CHEAP.p, 3, STICKINESS_EXAMPLE, 10_000, random.Random(7))
print(
    f"\ncheap, cap 3, 10,000 orders, seed 7: simulate_route passes {ours:.4f}, cafe.repair.lottery.simulate_sticky {lottery:.4f}"
)
assert ours == lottery

cheap_sticky = sticky[0].formula.cost_per_accepted
closed = CHEAP.price / CHEAP.p
print(
    f"\ncheap, cap 3: the independent formula says ${closed:.3f}; with stickiness it is ${cheap_sticky:.3f}"
    f" ({cheap_sticky / closed - 1:+.0%})"
)

# %%
ratio = cheap_sticky / closed
gap = (
    "below it"
    if ratio < 0.95
    else "within 5%"
    if ratio < 1.05
    else "about double"
    if ratio > 1.6
    else "about a quarter above"
)
course.show_outcome(gap_guess, gap)
course.show_outcome(most_guess, max(sticky, key=lambda row: row.formula.pass_rate).route.name)

# %% [markdown]
# The strong model alone has the best pass rate of any single attempt, yet one route beats it
# here. What does escalating to a different model break? Decide, then flip the switch.

# %%
course.reveal("s11.why_switch_breaks")

# %% [markdown]
# ## 5. Real runs: where does the measured cost land?
#
# Back to step 1's twenty runs. Each mode gives a measured p (the share of first drafts that
# passed), a measured price per attempt, and what was really spent per accepted ticket. The
# closed form predicts that last figure from the first two. The first drafts are the same in both
# modes; only what a retry is told differs.

# %%
naive_guess = course.predict(
    "s11.naive_measured",
    "The naive runs: measured cost per accepted ticket against the closed form's?",
    options=["well below it", "within 10% of it", "well above it"],
)


# %%
def verdict(measured_cost, closed_cost):
    if not math.isfinite(closed_cost):
        return "no first draft passed"
    if not math.isfinite(measured_cost):
        return "no ticket passed at all"
    ratio = measured_cost / closed_cost
    return (
        "well below it" if ratio < 0.9 else "well above it" if ratio > 1.1 else "within 10% of it"
    )


closed_forms = {}
for mode, m in measured.items():
    closed_forms[mode] = cafe.routing.expected_cost(
        m.first_pass_rate, m.price_per_attempt, CAP_DEFAULT
    )
    print(
        f"{mode:<8} first drafts passed {m.first_passed}/{m.orders} (p = {m.first_pass_rate:.2f}), "
        f"tickets {m.accepted}/{m.orders}, {m.attempts} attempts"
    )
    print(
        f"         per accepted ticket: measured ${m.cost_per_accepted * 1000:.4f} per 1,000, closed form "
        f"${closed_forms[mode] * 1000:.4f} per 1,000 -> {verdict(m.cost_per_accepted, closed_forms[mode])}"
    )
course.show_outcome(
    naive_guess, verdict(measured["naive"].cost_per_accepted, closed_forms["naive"])
)
if not live:  # the scripted demonstration; a real model owes you no such result
    assert measured["naive"].cost_per_accepted > measured["curated"].cost_per_accepted

# %%
course.reveal("s11.why_measured")

# %% [markdown]
# ## 6. Your turn, open-ended: price a route of your own
#
# Write `my_route_cost(steps)`. A route is a list of steps, each `(p, price, attempts)`: one
# model's pass rate, its price per attempt, and how many attempts it gets before the next model
# takes over. Return `(pass_rate, cost_per_accepted)`. Attempts are independent; an order stops at
# the first pass. Hint: walk the attempts in order, keeping the chance that an order is still
# without a ticket when each attempt starts. The compare cell checks it against simulation.


# %%
def my_route_cost(steps):
    """(pass rate, cost per accepted ticket) for models tried in order, each (p, price, attempts)."""
    raise NotImplementedError("your turn: price a route")


# %%
route_check = course.compare(my_route_cost, check=check_route_cost, key="s11.route_cost")

# %% [markdown]
# Now the open-ended part: the routing table from *your* price table. Edit `my_prices` below: add
# your model under the name you give `CAFE_MODEL`, with its input and output price per million
# tokens from the provider's pricing page and the date you read them (the lesson says where each
# provider publishes them). Change the routes too: which escalates least and still passes 99%?
#
# Each tier's price per attempt is step 1's curated attempts, re-priced at that tier's prices. The
# placeholder tiers keep the lesson's pass rates (0.6 and 0.95).
#
# **Live stretch:** run with `COURSE_MODE=live` and a tier called "yours" joins the table with your
# model's measured first-draft pass rate, priced from your entry in `my_prices` (from "cheap"'s
# placeholder prices until you add one).

# %%
my_prices = {**prices}
# my_prices["your-model-name"] = ModelPrice("your-model-name", input_per_million=0.0, output_per_million=0.0,
#                                           read_on="2026-11-30")

tokens = measured["curated"]
tiers = {
    "cheap": Tier("cheap", CHEAP.p, tokens.price_per_attempt_at(my_prices["cheap"])),
    "strong": Tier("strong", STRONG.p, tokens.price_per_attempt_at(my_prices["strong"])),
}
if live:
    mine = my_prices.get(cafe.model_name(), my_prices["cheap"])
    tiers["yours"] = Tier("yours", tokens.first_pass_rate, tokens.price_per_attempt_at(mine))
    print(
        f"(live) your model {cafe.model_name()}: p = {tokens.first_pass_rate:.2f} over {tokens.orders} orders, "
        f"priced at {mine.name!r}: ${tiers['yours'].price:.6f} an attempt"
    )

my_routes = [
    single(tiers["cheap"], 3),
    single(tiers["strong"], 3),
    cascade(tiers["cheap"], tiers["strong"], 1, 3),
    single(tiers["cheap"], 5),
]
if live:
    my_routes += [single(tiers["yours"], 3), cascade(tiers["yours"], tiers["strong"], 1, 3)]


def course_route_cost(steps):
    """The course's route_cost, taking steps as my_route_cost does."""
    found = route_cost(
        Route(
            "r",
            tuple(
                Step(Tier(f"model {i + 1}", p, price), n) for i, (p, price, n) in enumerate(steps)
            ),
        )
    )
    return found.pass_rate, found.cost_per_accepted


priced = my_route_cost if route_check.passed else course_route_cost
if not route_check.passed:
    print("(my_route_cost has not passed its check yet: cafe.routing.route_cost stands in for it)")
my_table = {}
print(f"{'route':<24} {'pass rate':>10} {'$ per 1,000 accepted tickets':>30}")
for route in my_routes:
    rate, cost = priced([(step.tier.p, step.tier.price, step.attempts) for step in route.steps])
    my_table[route.name] = {
        "pass_rate": round(rate, 4),
        "per_1000_accepted": round(cost * 1000, 4) if math.isfinite(cost) else None,
    }
    print(f"{route.name:<24} {rate:>10.4f} {cost * 1000:>30.4f}")

# %% [markdown]
# Flip the switch for the course's `route_cost`, and compare it with yours.

# %%
course.reveal("s11.route_cost", source=cafe.routing.route_cost)

# %% [markdown]
# ## 7. Checkpoint: what an accepted ticket costs you
#
# Bank your numbers with the model that produced them: offline the scripted stand-in, live your
# model. The routing table is the one from step 6, at the prices in `my_prices`.


# %%
def finite(value, digits=8):
    return round(value, digits) if math.isfinite(value) else None


curated = measured["curated"]
course.checkpoint(
    "s11",
    "cost_per_accepted",
    {
        "priced_as": priced_as,
        "first_pass_rate": finite(curated.first_pass_rate, 4),
        "tokens_per_attempt": finite(curated.tokens_per_attempt, 1),
        "price_per_attempt": finite(curated.price_per_attempt),
        "measured_per_accepted": {
            mode: finite(m.cost_per_accepted) for mode, m in measured.items()
        },
        "closed_form_per_accepted": {mode: finite(cost) for mode, cost in closed_forms.items()},
        "routes": my_table,
    },
    model=cafe.model_name(),
)

# %% [markdown]
# Session 12 asks a model to grade tickets where no deterministic check exists, and prices that
# judge the same way: its own attempts, its own cost per verdict.
