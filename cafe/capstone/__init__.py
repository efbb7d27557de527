"""Session 16, the capstone: the café's restock agent, a harness the learner makes, and its grader.

Every session so far handed the learner a harness to read, run and change; this one asks them to
make one, for a new agent with new risks. The restock agent reads the kitchen's stock, asks
suppliers for quotes and places purchase orders; orders over a spending limit need the manager's
approval first, and suppliers' messages may carry instructions. The learner writes
`run_restock(env) -> RunReport` from the course's pieces (the loop, 01; the contract, 04; the
consent gate's allow-list, 05; containment, 06; the re-ask's feedback, 07; the trace, 08; the
stall detector, 13), and `cafe capstone check` grades it on scenarios drawn at check time,
property by property, judged on the world's own record. Read the files in this order:

- `orders.py`: the purchase-order contract, and every way an order breaks it;
- `world.py`: the stock, the suppliers and the manager, as stubs that record what happened, and
  the doors (`WorldDoors`) a harness reaches them through;
- `model.py`: the scripted model, honest or misbehaving in one of a few named ways;
- `harness.py`: what a harness is handed (`RestockEnv`), returns (`RunReport`), ends on
  (`RESTOCK_STOP_REASONS`), and the three tools the model knows;
- `reference.py`: the course's reference harness, which holds every property;
- `scenarios.py`: scenarios generated from a seed, each a kind of trouble;
- `evidence.py`: what the grader saw of one run, and the yardstick (the reference on the same
  scenario) a property that held only because nothing happened is told apart by;
- `stops.py`: whether a run's stop is named for its own cause, as the record shows it;
- `properties.py`: the properties, judged on the world's record, never on the harness's word;
- `wire.py`: what crosses between the grader's process and the harness's, as plain JSON;
- `child.py`: the harness's own process, where it holds only doors to the grader's;
- `runner.py`: one scenario run within a time limit, the record kept in the grader's process,
  and its trace replayed;
- `verdict.py`: a check's verdict, property by property: held, failed, or held vacuously;
- `grader.py`: `check` and the command line, with failing scenarios shrunk;
- `__main__.py`: `python -m cafe.capstone check`, which `cafe capstone check` starts;
- `workshop.py`: what session 16's notebook uses to write and grade the learner's harness file.

Lesson: sessions/s16-capstone/lesson.md.
"""

from cafe.capstone.grader import DEFAULT_PATH, Failure, Verdict, check, load_harness, main, shrink
from cafe.capstone.harness import (
    BRIEF,
    RESTOCK_STOP_REASONS,
    Costs,
    Harness,
    Limits,
    RestockEnv,
    RestockStop,
    RunReport,
    restock_tools,
)
from cafe.capstone.model import BEHAVIOURS, ENDPOINT_FAULTS, Behaviour, EndpointFault, RestockModel
from cafe.capstone.orders import (
    OrderLine,
    PurchaseOrder,
    Quote,
    order_from_arguments,
    order_problems,
)
from cafe.capstone.properties import PROPERTIES, Finding, Property, RunEvidence, judge_run
from cafe.capstone.runner import run_scenario
from cafe.capstone.scenarios import SCENARIO_KINDS, Scenario, build_world, describe, scenarios
from cafe.capstone.world import (
    Event,
    GraderHalt,
    Item,
    RestockWorld,
    SupplierError,
    SupplierPlan,
    WorldDoors,
)

__all__ = [
    "BEHAVIOURS",
    "BRIEF",
    "Behaviour",
    "Costs",
    "DEFAULT_PATH",
    "ENDPOINT_FAULTS",
    "EndpointFault",
    "Event",
    "Failure",
    "Finding",
    "GraderHalt",
    "Harness",
    "Item",
    "Limits",
    "OrderLine",
    "PROPERTIES",
    "Property",
    "PurchaseOrder",
    "Quote",
    "RESTOCK_STOP_REASONS",
    "RestockEnv",
    "RestockModel",
    "RestockStop",
    "RestockWorld",
    "RunEvidence",
    "RunReport",
    "SCENARIO_KINDS",
    "Scenario",
    "SupplierError",
    "SupplierPlan",
    "Verdict",
    "WorldDoors",
    "build_world",
    "check",
    "describe",
    "judge_run",
    "load_harness",
    "main",
    "order_from_arguments",
    "order_problems",
    "restock_tools",
    "run_scenario",
    "scenarios",
    "shrink",
]
