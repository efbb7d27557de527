# %% [markdown]
# # Session 11 · What retries cost, and routing between models
#
# Session 07 capped the re-ask and counted attempts. This notebook puts a price on them: what one
# ticket that reaches the kitchen costs, with retries included, and which way of spending attempts
# across a cheap and a strong model buys tickets most cheaply. Read
# `sessions/s11-cost-routing/lesson.md` alongside; `cafe/routing/routes.py` and `cafe/routing/prices.py` are the code.
#
# Each step is *predict first*: write your guess down before you run the cell that answers it.
# The stories run on scripted drafts in both modes, so everyone predicts the same runs; with
# `COURSE_MODE=live` the cells marked *live* run your model through the same steps and print its
# figures beside the scripted ones. The arithmetic cells are the same in both modes.

# %%
import math
import random

import cafe
import cafe.routing
from cafe import course
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.evals import wilson_interval
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
# go through the loop twice, with `naive` retries and with `curated` ones. The drafts come from
# session 07's `FeedbackModel`, and the usage is the scripted endpoint's estimate (a token per four
# characters).
#
# Before you run it, size attempt 1. It sends the generator's system prompt and the order's brief;
# the next cell measures both in characters (the scripted endpoint counts a token per four). Then
# recall what session 07's curated retry sends, and work out attempt 2.

# %%
from cafe.repair import brief_for, system_prompt
from cafe.world.menu import load_menu

system_chars = len(system_prompt(load_menu()))
brief_chars = len(brief_for(PRACTICE_ORDERS[0])[0]["content"])
print(f"attempt 1 of the first order: system prompt {system_chars} characters, brief {brief_chars}")

# %%
retry_guess = course.predict(
    "s11.retry_tokens",
    "Attempt 2 of a curated run, against attempt 1: how many prompt tokens does it send?",
    options=[
        "fewer: only the feedback is new",
        "about the same (within 5%)",
        "between 5% and 30% more",
        "about twice as many or more",
    ],
)


# %%
def drafted(client, mode):
    """The ten practice orders through the repair loop with `mode` retries, a dot per order."""
    generate = make_model_generator(client)
    print(f"  {mode:<8}", end="", flush=True)
    found = []
    for spec in PRACTICE_ORDERS:
        found.append(repair_ticket(spec, generate, mode=mode))
        print(".", end="", flush=True)
    print()
    return found


def show_tokens(measured):
    for mode, m in measured.items():
        by_attempt = "  ".join(
            f"attempt {k + 1}: {tokens:.0f}" for k, tokens in enumerate(m.prompt_by_attempt)
        )
        print(
            f"  {mode:<8} {m.attempts} attempts, {m.tokens_per_attempt:.0f} tokens each on average;"
            f" prompt tokens by attempt: {by_attempt}"
        )


print("the scripted FeedbackModel is drafting")
runs = {mode: drafted(ScriptedClient(FeedbackModel()), mode) for mode in ("naive", "curated")}
measured = {mode: measure_runs(found, prices["cheap"]) for mode, found in runs.items()}
show_tokens(measured)


# %%
def retry_against_first(m):
    """How attempt 2's prompt compares with attempt 1's, in the prediction's words."""
    if len(m.prompt_by_attempt) < 2:
        return "no run needed a second attempt"
    ratio = m.prompt_by_attempt[1] / m.prompt_by_attempt[0]
    if ratio < 0.95:
        return "fewer: only the feedback is new"
    if ratio <= 1.05:
        return "about the same (within 5%)"
    return "between 5% and 30% more" if ratio < 1.3 else "about twice as many or more"


course.show_outcome(retry_guess, retry_against_first(measured["curated"]))
for name, price in prices.items():
    print(
        f"  one curated attempt at {name!r} prices: ${measured['curated'].price_per_attempt_at(price):.6f}"
    )

# %% [markdown]
# **Live:** with `COURSE_MODE=live` the cell below sends the same twenty runs to your model and
# prints its token counts beside the scripted ones. A curated retry sends what attempt 1 sent plus
# the failure view, so its prompt grows by that view on any model; if your model's attempt 2 is
# not dearer, either it passed everything on the first draft or your endpoint counts differently.
# An order whose request meets an endpoint problem (a timeout, say) is left out of the figures,
# and the cell says how many; if every order of a mode fails, the live cells below say skipped.


# %%
def drafted_live(client, mode):
    """The ten orders through your model, each one that meets an endpoint problem set aside."""
    generate = make_model_generator(client)
    print(f"  {mode:<8}", end="", flush=True)

    def one(spec):
        result = repair_ticket(spec, generate, mode=mode)
        print(".", end="", flush=True)
        return result

    batch = course.each_live(f"s11.live_{mode}", PRACTICE_ORDERS, one, model=cafe.model_name())
    print()
    return batch


live_measured = None
live_batches = {}
priced_as = cafe.model_name() if cafe.model_name() in prices else "cheap"
if live:
    print(f"(live) your model {cafe.model_name()} is drafting the same orders")
    client = cafe.make_client()
    live_batches = {mode: drafted_live(client, mode) for mode in ("naive", "curated")}
if live and all(batch.done for batch in live_batches.values()):
    live_measured = {
        mode: measure_runs(batch.values, prices[priced_as]) for mode, batch in live_batches.items()
    }
    show_tokens(live_measured)
    print(
        f"  attempt 2 of a curated run: scripted {retry_against_first(measured['curated'])}, "
        f"your model {retry_against_first(live_measured['curated'])}"
    )
    if priced_as != cafe.model_name():
        print(
            f"  (your model {cafe.model_name()!r} is not in the price table yet: priced as 'cheap')"
        )
elif live:
    print("skipped: your model's figures: every order of a mode hit an endpoint problem")
else:
    print("offline: live mode runs your model here, beside the scripted figures above")

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
cap3_names = [route.name for route in cap3_routes]

# %%
cheapest_guess = course.predict(
    "s11.cheapest",
    "Cheapest per accepted ticket, at cap 3:",
    options=cap3_names,
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
course.show_outcome(cheapest_guess, min(cap3_names, key=per_ticket.get))

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
# formula: 40,000 simulated orders per case, within 4%. After those hand-picked cases it compares
# it on generated inputs (pass rates at and beside 0 and 1, free models, caps 1 to 8) with an
# exact answer the checker works out on its own. Handing in the course's `expected_cost` (or a
# wrapper round it) is refused: write your own.


# %%
def expected_cost(p, price, cap):
    """Money per accepted ticket: price x expected attempts / pass rate within the cap."""
    raise NotImplementedError("your turn: write the cost per accepted ticket")


# %%
cost_check = course.compare(expected_cost, check=check_expected_cost, key="s11.expected_cost")

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
route_names = [route.name for route in example_routes()]

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
    options=route_names,
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
# Back to step 1's twenty scripted runs. Each mode gives a measured p (the share of first drafts
# that passed), a measured price per attempt, and what was really spent per accepted ticket. The
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


def against_closed_form(measured):
    """Each mode's measured cost per accepted ticket beside the closed form's, printed; the
    closed forms, by mode."""
    closed = {}
    for mode, m in measured.items():
        closed[mode] = cafe.routing.expected_cost(
            m.first_pass_rate, m.price_per_attempt, CAP_DEFAULT
        )
        print(
            f"  {mode:<8} first drafts passed {m.first_passed}/{m.orders} (p = {m.first_pass_rate:.2f}), "
            f"tickets {m.accepted}/{m.orders}, {m.attempts} attempts"
        )
        print(
            f"           per accepted ticket: measured ${m.cost_per_accepted * 1000:.4f} per 1,000, "
            f"closed form ${closed[mode] * 1000:.4f} per 1,000 -> "
            f"{verdict(m.cost_per_accepted, closed[mode])}"
        )
    return closed


print("the scripted FeedbackModel:")
closed_forms = against_closed_form(measured)
course.show_outcome(
    naive_guess, verdict(measured["naive"].cost_per_accepted, closed_forms["naive"])
)
assert measured["naive"].cost_per_accepted > measured["curated"].cost_per_accepted

# %% [markdown]
# **Live:** the same comparison for your model's twenty runs from step 1. The scripted model
# repeats a slip unless a retry names it, so its naive retries pass far less often than its first
# drafts. On a real model the measured p comes from ten orders and one run, so it carries a wide
# interval (session 02's `wilson_interval`); the cell works the closed form out at both ends of
# it, and when the measured cost falls between them it says "not enough orders to tell" rather
# than calling your model's retries fresh draws or repeats. Then naive against curated: the
# difference in orders accepted within the cap, with its interval and a verdict.

# %%
live_closed = None
if live_measured is not None:
    print(f"(live) your model {cafe.model_name()}:")
    live_closed = against_closed_form(live_measured)
    for mode, m in live_measured.items():
        low, high = wilson_interval(m.first_passed, m.orders)
        at_ends = sorted(
            cafe.routing.expected_cost(p, m.price_per_attempt, CAP_DEFAULT) for p in (low, high)
        )
        inside = at_ends[0] <= m.cost_per_accepted <= at_ends[1]
        print(
            f"  {mode:<8} {m.orders} orders, one run: p between {low:.2f} and {high:.2f} (95%); "
            + (
                "not enough orders to tell how its retries behave"
                if inside
                else "the measured cost lies outside the closed form's whole range"
            )
        )
    # Naive against curated as `cafe experiment 11` judges them: the difference in orders
    # accepted within the cap, with its 95% interval (session 02's Newcombe interval). Fewer
    # accepted for the same cap is what makes a naive accepted ticket dearer.
    from cafe.evals.compare import judge as verdict_on
    from cafe.evals.experiment import EXPERIMENTS

    print(f"the claim, as `cafe experiment 11` puts it: {EXPERIMENTS['11'].claim}")
    naive_m, curated_m = live_measured["naive"], live_measured["curated"]
    versus = verdict_on(
        "naive", naive_m.accepted, naive_m.orders, "curated", curated_m.accepted, curated_m.orders
    )
    print(f"  accepted within the cap: {versus.sentence()}")
    print("  for 50 orders per mode, saved and resumable: `cafe experiment 11 --orders 50`")
elif live:
    print(
        "skipped: the closed form for your model needs step 1's live runs, which did not reach it"
    )
else:
    print("offline: live mode prints your model's runs here, beside the scripted ones")
    print("  (`cafe experiment 11 --orders 50` compares naive and curated on 50 orders each, live)")

# %%
course.reveal("s11.why_measured")

# %% [markdown]
# ## 6. Your turn, open-ended: price a route of your own
#
# Write `my_route_cost(steps)`. A route is a list of steps, each `(p, price, attempts)`: one
# model's pass rate, its price per attempt, and how many attempts it gets before the next model
# takes over. Return `(pass_rate, cost_per_accepted)`. Attempts are independent; an order stops at
# the first pass. Hint: walk the attempts in order, keeping the chance that an order is still
# without a ticket when each attempt starts. The compare cell checks it against simulation, then
# on generated routes against an exact answer of its own; the course's `route_cost` is refused.


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
if live_measured is not None:
    mine = my_prices.get(cafe.model_name(), my_prices["cheap"])
    yours = live_measured["curated"]
    tiers["yours"] = Tier("yours", yours.first_pass_rate, yours.price_per_attempt_at(mine))
    print(
        f"(live) your model {cafe.model_name()}: p = {yours.first_pass_rate:.2f} over {yours.orders} orders, "
        f"priced at {mine.name!r}: ${tiers['yours'].price:.6f} an attempt"
    )

my_routes = [
    single(tiers["cheap"], 3),
    single(tiers["strong"], 3),
    cascade(tiers["cheap"], tiers["strong"], 1, 3),
    single(tiers["cheap"], 5),
]
if live_measured is not None:
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


def route_table(price_route):
    """Each route of `my_routes` priced by `price_route`: pass rate and $ per 1,000 tickets."""
    table = {}
    for route in my_routes:
        rate, cost = price_route(
            [(step.tier.p, step.tier.price, step.attempts) for step in route.steps]
        )
        table[route.name] = {
            "pass_rate": round(rate, 4),
            "per_1000_accepted": round(cost * 1000, 4) if math.isfinite(cost) else None,
        }
    return table


course_table = route_table(course_route_cost)
my_table = route_table(my_route_cost) if route_check.passed else None
if my_table is None:
    print("(my_route_cost has not passed its check yet: the table is cafe.routing.route_cost's)")
print(f"{'route':<24} {'pass rate':>10} {'$ per 1,000 accepted tickets':>30}")
for name, row in (my_table or course_table).items():
    print(f"{name:<24} {row['pass_rate']:>10.4f} {row['per_1000_accepted'] or math.inf:>30.4f}")

# %% [markdown]
# Flip the switch for the course's `route_cost`, and compare it with yours.

# %%
course.reveal("s11.route_cost", source=cafe.routing.route_cost)

# %% [markdown]
# ## 7. Checkpoint: what an accepted ticket costs you
#
# Two entries. The first holds the runs: offline the scripted stand-in's, live your model's, each
# with the model that produced them, and the routing table from step 6 at the prices in
# `my_prices`, worked out by the course's `route_cost`. The second is yours: what your own
# `expected_cost` says a ticket costs on the lesson's two models, and the same routing table priced
# by your `my_route_cost`. It holds only what your functions produced once they passed their checks.


# %%
def finite(value, digits=8):
    return round(value, digits) if math.isfinite(value) else None


runs_banked = live_measured or measured
closed_banked = live_closed or closed_forms
curated = runs_banked["curated"]
course.checkpoint(
    "s11",
    "cost_per_accepted",
    {
        "priced_as": priced_as if live else "cheap",
        "first_pass_rate": finite(curated.first_pass_rate, 4),
        "tokens_per_attempt": finite(curated.tokens_per_attempt, 1),
        "price_per_attempt": finite(curated.price_per_attempt),
        "measured_per_accepted": {
            mode: finite(m.cost_per_accepted) for mode, m in runs_banked.items()
        },
        "closed_form_per_accepted": {mode: finite(cost) for mode, cost in closed_banked.items()},
        "routes": course_table,
    },
    model=cafe.model_name(),
    needs=list(live_batches.values()),
)

your_costs = {}
if cost_check.passed:
    your_costs["expected_cost_cap_3"] = {
        tier.name: finite(expected_cost(tier.p, tier.price, 3), 4) for tier in (CHEAP, STRONG)
    }
if my_table is not None:
    your_costs["routes"] = my_table
if your_costs:
    course.checkpoint(
        "s11", "your_costs", your_costs, model=cafe.model_name() if live else None, source="yours"
    )
else:
    print(
        "[checkpoint s11.your_costs] nothing banked yet: expected_cost and my_route_cost have not passed"
    )

# %% [markdown]
# Session 12 asks a model to grade tickets where no deterministic check exists, and prices that
# judge the same way: its own attempts, its own cost per verdict.
