# %% [markdown]
# # Session 16 · The capstone: a harness you make
#
# The café's restock agent reads the kitchen's stock, asks suppliers for quotes and places
# purchase orders. Its harness is one function in one file, `work/capstone/harness.py`:
# `run_restock(env)`. This notebook writes that file in steps and runs the grader after each one,
# so you watch the seven properties turn green a group at a time:
#
# 1. **The empty harness**, and what the grader makes of it.
# 2. **The loop** (session 01), the tools wired straight to the world.
# 3. **The trace** (08), with costs counted off it.
# 4. **The gate** (04, 05, 06): contract, consent and containment in one function.
# 5. **The stall stop and the pace governor** (13, 14), then a fresh seed, the terminal command
#    and the checkpoint.
#
# Every run is offline: a scripted model and scripted suppliers, on scenarios drawn from a fixed
# seed, so the notebook reads the same for everyone. Each step's file is written whole, so you
# can read it top to bottom; a file there that you wrote yourself is kept under another name
# first, never overwritten. Only the cell marked *live* uses your model.

# %%
import random

import cafe
from cafe import course
from cafe.capstone import PROPERTIES, RESTOCK_STOP_REASONS, run_scenario, scenarios
from cafe.capstone.grader import check, load_harness
from cafe.capstone.workshop import STEP_MARK, board, harness_path, live_summary, write_harness

LIVE = cafe.course_mode() == "live"
HARNESS = harness_path()
SEED = 16  # the notebook's seed: the same scenarios for everyone
LIVE_TIME_LIMIT_S = 300.0  # a real model takes seconds a call; the grader's 5 s is for scripts
N_SCENARIOS = 8  # eight scenarios, each a different kind of trouble (there are nine kinds)


def grade(source, seed=SEED):
    """Write `source` to the harness file, grade it, print the board and the first failure."""
    print(write_harness(HARNESS, source))
    verdict = check(load_harness(HARNESS), seed, N_SCENARIOS)
    print(f"seed {verdict.seed}, {verdict.n_scenarios} scenarios")
    print(board(verdict))
    if verdict.failures:
        first = verdict.failures[0]
        print(f"\nfirst failure: {first.property} ({first.runs} of {N_SCENARIOS} runs)")
        print(f"  what happened: {first.detail}")
    return verdict


print("your harness file:", HARNESS)
print("the properties:", ", ".join(PROPERTIES))

# %% [markdown]
# ## 1. How many properties does a harness that does nothing hold?
#
# The first version of the file is the one a learner starts from: `run_restock` raises
# `NotImplementedError` on every run. The grader runs it on eight scenarios and judges each of
# the seven properties on the world's record.
#
# Predict first: of the seven, how many hold?

# %%
empty_guess = course.predict(
    "s16.empty_holds",
    "run_restock raises on every run. Of the seven properties, how many hold?",
    options=["none", "three", "four", "all seven"],
)

# %%
EMPTY = f'''{STEP_MARK}
"""My restock harness: nothing written yet."""

from cafe.capstone import RestockEnv, RunReport


def run_restock(env: RestockEnv) -> RunReport:
    raise NotImplementedError("write run_restock(env) here")
'''

empty = grade(EMPTY)

# %%
held = len(PROPERTIES) - len(empty.failed)
course.show_outcome(empty_guess, {0: "none", 3: "three", 4: "four", 7: "all seven"}.get(held, held))

# %% [markdown]
# The properties about what reached the world (model calls, orders, approvals, supplier failures)
# have nothing to object to: no call was made and no order was sent. The properties about the
# report fail, because there is no report. Look at how the board shows the four that hold:
# `vacuous`, not `ok`. Each held only because nothing happened, on scenarios where the course's
# own harness made calls, sent orders and met failing suppliers, so none of them counts towards a
# pass yet. The next steps earn their marks.

# %%
assert empty.failed == {"named_stop", "traced", "costs"}
course.reveal("s16.empty_green")

# %% [markdown]
# ## 2. The loop
#
# Session 01's `run_loop`, with the run's cap as its turn budget (one model call a turn), and the
# three tools built by `restock_tools` from the world's own functions. The report holds the stop,
# the orders sent, and nothing yet for the trace and the costs.

# %%
LOOP = f'''{STEP_MARK}
"""My restock harness, step 1: session 01's loop, its turn budget as the call cap."""

from cafe.capstone import RestockEnv, RunReport, order_from_arguments, restock_tools
from cafe.loop import run_loop


def run_restock(env: RestockEnv) -> RunReport:
    placed = []

    def place(arguments):
        order = order_from_arguments(arguments)
        placed.append(order)
        return env.world.place_order(order)

    tools = restock_tools(env.world.read_stock, env.world.ask_quote, place)
    messages = [{{"role": "system", "content": env.brief}}, {{"role": "user", "content": "Restock."}}]
    result = run_loop(
        env.client,
        messages,
        tools,
        model=env.model,
        max_turns=env.limits.max_model_calls,
        clock=env.clock,
    )
    return RunReport(result.stop_reason, result.detail, tuple(placed), None, None)
'''

loop = grade(LOOP)

# %% [markdown]
# Two properties are earned now: every run ends on a named stop, and the cap holds by
# construction. Everything about orders broke: the model that obeys the supplier's "our bank
# details changed" paid the wrong account, an order over the limit went out unapproved, and a
# supplier that timed out again and again was asked again and again. With no trace and no costs,
# those two fail too.

# %%
assert {"named_stop", "call_cap"}.isdisjoint(loop.failed)
assert {"contract", "approval", "stall", "traced", "costs"} <= loop.failed

# %% [markdown]
# ## 3. The trace
#
# The same loop through `record_loop` (session 08), with a `Recorder` on the environment's clock
# so that the grader's replay meets the same times. An endpoint that fails ends the run on
# `endpoint_failed`, with the trace recorded so far. The costs are read off the trace (calls and
# tokens) and off the orders actually sent (money).

# %%
TRACED = f'''{STEP_MARK}
"""My restock harness, step 2: the loop recorded (session 08), its costs read off the trace."""

from cafe.capstone import Costs, RestockEnv, RunReport, order_from_arguments, restock_tools
from cafe.endpoint.errors import EndpointError
from cafe.trace import Recorder, record_loop


def costs_of(trace, placed):
    tokens_in, tokens_out = trace.usage or (0, 0)
    spend = sum(order.total_cents for order in placed)
    return Costs(len(trace.model_calls), tokens_in, tokens_out, spend)


def run_restock(env: RestockEnv) -> RunReport:
    placed = []

    def place(arguments):
        order = order_from_arguments(arguments)
        placed.append(order)
        return env.world.place_order(order)

    tools = restock_tools(env.world.read_stock, env.world.ask_quote, place)
    messages = [{{"role": "system", "content": env.brief}}, {{"role": "user", "content": "Restock."}}]
    recorder = Recorder(clock=env.clock, trace_id="restock", started_at="2026-01-01T00:00:00+00:00")
    try:
        result, trace = record_loop(
            env.client,
            messages,
            tools,
            recorder=recorder,
            model=env.model,
            max_turns=env.limits.max_model_calls,
            clock=env.clock,
        )
        stop, detail = result.stop_reason, result.detail
    except EndpointError as exc:
        stop, detail, trace = "endpoint_failed", str(exc), recorder.trace()
    return RunReport(stop, detail, tuple(placed), trace, costs_of(trace, placed))
'''

traced = grade(TRACED)

# %%
assert {"traced", "costs"}.isdisjoint(traced.failed) and "contract" in traced.failed

# %% [markdown]
# ## 4. What does the gate leave red?
#
# Now `place_order` becomes the only way an order reaches a supplier. It parses the arguments,
# asks `order_problems` whether the order holds to the contract against what is still needed, the
# quotes received and the café's registered accounts, asks the manager first when the total is
# over the limit, and only then sends. A no is to the item, not to one order's shape: the gate
# remembers what the manager declined and refuses any later order of it, however small. A
# refusal is a `ToolOutput` that is not ok, naming each problem, so the model can read it and try
# again under the cap (session 07). Quotes are kept as they arrive: their price is the only price
# an order may pay.
#
# Predict first: with the gate in place, which properties are still red?

# %%
gate_guess = course.predict(
    "s16.after_gate",
    "The gate guards every order. After it, which properties are still red?",
    options=["none", "stall", "stall and costs", "approval and stall"],
)

# %%
GATED = (
    TRACED.replace(
        "step 2: the loop recorded (session 08), its costs read off the trace.",
        "step 3: a gate on place_order, the only way to a supplier (sessions 04-07).",
    )
    .replace(
        "from cafe.capstone import Costs, RestockEnv, RunReport, order_from_arguments, restock_tools\n",
        "import json\n\n"
        "from cafe.capstone import Costs, Quote, RestockEnv, RunReport, restock_tools\n"
        "from cafe.capstone import order_from_arguments, order_problems\n",
    )
    .replace(
        "from cafe.endpoint.errors import EndpointError\n",
        "from cafe.endpoint.errors import EndpointError\nfrom cafe.loop import ToolOutput\n",
    )
)
GATED = GATED.replace(
    """    placed = []

    def place(arguments):
        order = order_from_arguments(arguments)
        placed.append(order)
        return env.world.place_order(order)

    tools = restock_tools(env.world.read_stock, env.world.ask_quote, place)
""",
    """    placed, quotes, declined = [], {}, set()
    accounts, limit_cents = env.world.books()
    stock = json.loads(env.world.read_stock())
    need = {item: max(0, v["par"] - v["on_hand"]) for item, v in stock.items()}

    def ask_quote(supplier, item, quantity):
        answer = env.world.ask_quote(supplier, item, quantity)
        quotes[(supplier, item)] = Quote(**json.loads(answer))
        return answer

    def place(arguments):
        try:
            order = order_from_arguments(arguments)
        except ValueError as exc:
            return ToolOutput(False, f"Order refused: {exc}.")
        if any(line.item in declined for line in order.lines):
            return ToolOutput(False, "Order refused: the manager declined this item earlier.")
        left = dict(need)
        for sent in placed:
            for line in sent.lines:
                left[line.item] -= line.quantity
        problems = order_problems(order, left, quotes, accounts)
        if problems:
            return ToolOutput(False, "Order refused: " + "; ".join(problems) + ".")
        if order.total_cents > limit_cents and not env.world.ask_manager(order):
            declined.update(line.item for line in order.lines)
            return ToolOutput(False, "Order declined by the manager.")
        answer = env.world.place_order(order)
        placed.append(order)
        return answer

    tools = restock_tools(env.world.read_stock, ask_quote, place)
""",
)
assert "order_problems(order" in GATED  # the gate went in
print(GATED)

# %%
gated = grade(GATED)

# %%
course.show_outcome(gate_guess, " and ".join(sorted(gated.failed)) or "none")

# %% [markdown]
# The gate judges orders, and it judges them well: the injected account, the unapproved total and
# the order beyond the need are all refused before a supplier sees them, with no detector
# involved. But a supplier that fails the same way on every quote never reaches the gate at all.
# The model keeps asking, and the harness keeps passing the question on.

# %%
assert {"contract", "approval", "traced", "costs"}.isdisjoint(gated.failed)
course.reveal("s16.gate_and_stall")

# %% [markdown]
# ## 5. The stall stop and the pace governor
#
# Two after-turn hooks on the loop. `SupplierStall` compares each failed tool result's
# `failure_signature` (session 13) with the last; the same failure `stall_after` times in a row
# stops the run `stuck`, and a success in between resets the count. The pace governor (session
# 14) reads the units ordered so far on a clock that charges one second a turn, and cuts a run
# with no order placed for eight turns. Both stop reasons are declared to the loop.

# %%
HOOKS = '''

class SupplierStall:
    """After each turn: stop `stuck` when the same failure comes back `after` times in a row."""

    def __init__(self, after):
        self.after, self.last, self.count = after, None, 0

    def __call__(self, view):
        for result in view.dispatch:
            if result.ok:
                self.last, self.count = None, 0
                continue
            signature = failure_signature(result)
            self.count = self.count + 1 if signature == self.last else 1
            self.last = signature
            if self.count >= self.after:
                return Stop("stuck", f"{result.name} failed the same way {self.count} times")
        return None


def run_restock('''

PACED = (
    GATED.replace(
        "step 3: a gate on place_order, the only way to a supplier (sessions 04-07).",
        "step 4: a stall stop (session 13) and the pace governor (14).",
    )
    .replace(
        "from cafe.loop import ToolOutput\n",
        "from cafe.governor import PACE_STOP_REASONS, PaceGovernor, TurnClock\n"
        "from cafe.loop import Stop, ToolOutput\n"
        "from cafe.stall import STALL_STOP_REASONS, failure_signature\n",
    )
    .replace("\n\ndef run_restock(", HOOKS)
    .replace(
        "    try:\n        result, trace = record_loop(",
        "    # Pace by turns: one second a turn; eight turns with no unit ordered is going nowhere.\n"
        "    clock = TurnClock(1.0)\n"
        "    units = lambda view: sum(line.quantity for order in placed for line in order.lines)\n"
        "    governor = PaceGovernor(8 * 1000.0, reading=lambda view: units(view) or None)\n"
        "    try:\n        result, trace = record_loop(",
    )
    .replace(
        "            clock=env.clock,\n        )",
        "            clock=clock,\n"
        "            observers=[clock.tick],\n"
        "            after_turn=[SupplierStall(env.limits.stall_after), governor],\n"
        "            stop_reasons=STALL_STOP_REASONS | PACE_STOP_REASONS,\n"
        "        )",
    )
)
assert "SupplierStall(env.limits.stall_after)" in PACED and "PaceGovernor(" in PACED
paced = grade(PACED)

# %%
assert paced.passed, paced.render()

# %% [markdown]
# Every property holds on the notebook's seed. That seed is known, and a harness could be fitted
# to it; the grader's answer is to draw a fresh seed each time it is run from the command line.
# The cell below does the same: a seed nobody chose, eight new scenarios.

# %%
fresh_seed = random.randrange(1_000_000)
fresh = check(load_harness(HARNESS), fresh_seed, N_SCENARIOS)
print(f"fresh seed {fresh_seed}:", board(fresh))
assert fresh.passed, fresh.render()

# %% [markdown]
# In a terminal, from the course folder, the same grader is one command; it reads
# `work/capstone/harness.py` by default, draws a fresh seed and prints it, so any failure can be
# run again with `--seed`:
#
# ```
# cafe capstone check
# cafe capstone check work/capstone/harness.py --seed 16 --scenarios 20
# ```
#
# The command also banks its verdict in your progress file, as your capstone result. The cell
# below only prints the report the command would print, for your file on three scenarios, and
# banks nothing: the result to bank is the one of a harness you wrote.

# %%
print(check(load_harness(HARNESS), SEED, 3).render())

# %% [markdown]
# ## 6. Your model in the harness (live mode only), and the checkpoint
#
# With `COURSE_MODE=live` this cell runs your harness file once with your model in place of the
# scripted one, on the notebook's scenario with an injected instruction, and says in two lines
# what reached the suppliers and which properties held on the world's record. It is a *live*
# cell: a real model may order, refuse or wander, so it asserts only what the harness
# guarantees, a named stop. Offline it is skipped.

# %%
live_run = None
if LIVE:
    scenario = next(s for s in scenarios(SEED, N_SCENARIOS) if s.kind == "injected")
    yours_live = (cafe.make_client(), cafe.model_name())
    live_run = course.live_story(
        "s16.your_model",
        lambda: run_scenario(load_harness(HARNESS), scenario, LIVE_TIME_LIMIT_S, live=yours_live),
        model=cafe.model_name(),
    )
    if not live_run.skipped("your model's restock run"):
        print(f"live, {cafe.model_name()}:", live_summary(live_run.value))
        assert getattr(live_run.value.report, "stop", None) in RESTOCK_STOP_REASONS
else:
    print("offline: skipped (set COURSE_MODE=live and the CAFE_* variables to run your model)")

# %% [markdown]
# ## Checkpoint
#
# Bank which properties failed at each step, on the notebook's seed. Then, if the file now holds
# a harness you wrote or changed yourself (it no longer starts with the notebook's mark), bank the
# grader's verdict on it, on a fresh seed: that figure is yours.

# %%
steps = {"empty": empty, "loop": loop, "trace": traced, "gate": gated, "stall_and_pace": paced}
banked = {name: sorted(verdict.failed) for name, verdict in steps.items()}
print(banked)
course.checkpoint("s16", "properties_failed", banked, source="scripted")

if HARNESS.read_text(encoding="utf-8").startswith(STEP_MARK):
    print("your_harness: the file is still the notebook's; change it, then run this cell again.")
else:
    yours = check(load_harness(HARNESS), random.randrange(1_000_000), N_SCENARIOS)
    print(board(yours))
    course.checkpoint(
        "s16",
        "your_harness",
        {"seed": yours.seed, "failed": sorted(yours.failed)},
        source="yours",
    )

# %% [markdown]
# That is the course. The arrangement you just built fits the next agent you meet: find its one
# way to act and put the gate there, ask consent before the act, trace the run, stop the stall,
# pace the busy run, and judge the end on the world's record.
