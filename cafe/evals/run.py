"""Running an eval: the labelled orders, and the session 01 loop run over each of them.

Session 02, the other half of `cafe.evals`. That module says what a trustworthy check is and how to
report a rate; this one produces the observations to judge. It adds:

- `load_cases`: the labelled orders in `cafe/data/orders.json` (a customer's words, the ticket a
  careful waiter writes, the allergies declared, and which checks each order probes);
- `run_order`: one order through `cafe.loop.run_loop` with a fresh `cafe.world.orderpad.OrderPad`;
- `run_eval`: every order, then `cafe.evals.score_observations`; an order the endpoint failed
  (`EndpointError`) is counted apart, in `EvalReport.unreached`, and the eval goes on.

Offline, the model is the scripted waiter on the stories shelf (`cafe.stories.waiter`), which
reads menu names and quantity words literally and so gets some orders wrong the way a hurried
human does. What it leaves out: what the model is shown beyond a plain system prompt (session 03,
`cafe.context`), and structured tickets (session 04). Live mode is the same code with the client
from `cafe.endpoint.client.chat.make_client()`.

Lesson: sessions/s02-evals/lesson.md. Notebook: notebooks/s02-evals.ipynb.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from types import MappingProxyType
from typing import Any

from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.errors import SETUP_PROBLEMS, EndpointError
from cafe.evals.checks import (
    Case,
    Check,
    EvalReport,
    Line,
    Observation,
    merge_lines,
    score_observations,
)
from cafe.loop.agent import run_loop
from cafe.world.menu import Menu, load_menu
from cafe.world.orderpad import OrderPad

__all__ = [
    "ORDERS_PATH",
    "EVAL_MAX_TURNS",
    "WAITER_PROMPT",
    "load_cases",
    "run_order",
    "run_eval",
]

# The labelled orders that ship with the course: café requests with the ticket a careful waiter
# writes for each (written for teaching; add your own).
ORDERS_PATH = Path(__file__).resolve().parents[1] / "data" / "orders.json"

# Turns one order may take: a waiter needs one to add the items and one to say it is done; six
# leaves room for a live model that looks items up first.
EVAL_MAX_TURNS = 6


# The system prompt a live model gets for each order (the scripted waiter ignores it).
WAITER_PROMPT = (
    "You are the café's waiter. Put exactly what the customer orders on the kitchen ticket "
    "with add_to_ticket, one call per item with its quantity. Leave off anything that is not "
    "on the menu, is sold out, or contains an allergen the customer declared. When the ticket "
    "is written, say so in one short sentence."
)


# --- small pure helpers and the cases ---------------------------------------------------------


def _lines(value: Any, where: str) -> tuple[Line, ...]:
    if not isinstance(value, list) or not all(
        isinstance(v, list) and len(v) == 2 and isinstance(v[0], str) and isinstance(v[1], int)
        for v in value
    ):
        raise ValueError(
            f'{where} must be a list of [item, quantity] pairs, e.g. [["latte", 2]]; got {value!r}.'
        )
    return tuple((name, quantity) for name, quantity in value)


def _case(entry: Any, where: str) -> Case:
    if (
        not isinstance(entry, Mapping)
        or not isinstance(entry.get("id"), str)
        or not isinstance(entry.get("request"), str)
    ):
        raise ValueError(f"{where} needs an 'id' and a 'request', both text; got {entry!r}.")
    where = f"{where} ({entry['id']})"
    lists = {}
    for key in ("allergies", "probes"):
        value = entry.get(key, [])
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise ValueError(f"{where}: {key} must be a list of text; got {value!r}.")
        lists[key] = tuple(value)
    return Case(
        entry["id"], entry["request"], _lines(entry.get("expected"), f"{where}: expected"), **lists
    )


def load_cases(path: str | Path | None = None) -> tuple[Case, ...]:
    """The labelled orders in `path` (the course's `cafe/data/orders.json` by default)."""
    path = ORDERS_PATH if path is None else Path(path)
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise ValueError(
            f"{path}: no such file. Pass the path of an orders JSON file, or nothing "
            f"for the course's own at {ORDERS_PATH}."
        ) from None
    if not isinstance(data, Mapping) or not isinstance(data.get("orders"), list):
        raise ValueError(f'{path}: expected {{"orders": [...]}} at the top level.')
    cases = tuple(_case(entry, f"{path}: orders[{i}]") for i, entry in enumerate(data["orders"]))
    ids = [c.id for c in cases]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ValueError(f"{path}: the id(s) {repeated} appear twice; give every order its own id.")
    return cases


# --- running the session 01 loop over the cases ---------------------------------------------------


def run_order(
    case: Case, client: ChatClient, *, model: str | None = None, menu: Menu | None = None
) -> Observation:
    """Run one order through the session 01 loop with a fresh order pad; observe the ticket.

    `menu` defaults to the café's menu (`cafe.world.menu.load_menu()`), the one the order pad sells from.
    """
    menu = menu if menu is not None else load_menu()
    pad = OrderPad(menu)
    messages = [
        {
            "role": "system",
            "content": f"{WAITER_PROMPT}\n\nToday's menu:\n{menu.prompt_text()}",
        },
        {"role": "user", "content": case.request},
    ]
    result = run_loop(client, messages, pad.tools, model=model, max_turns=EVAL_MAX_TURNS)
    return Observation(
        case, merge_lines((line.item, line.quantity) for line in pad.ticket), result.stop_reason
    )


def run_eval(
    cases: Sequence[Case],
    run_case: Callable[[Case], Observation],
    checks: Sequence[Check],
    *,
    model: str = "",
    progress: Callable[[int, int], None] | None = None,
) -> tuple[EvalReport, tuple[Observation, ...]]:
    """Run every case, then score: the report, and the observations behind it.

    An order whose run raises an `EndpointError` (a timeout, a dropped connection) was never
    observed: it goes in `EvalReport.unreached` with the problem's kind, and the eval goes on, so
    one slow reply costs one order. A problem in `SETUP_PROBLEMS` (a refused key) is raised at once,
    and so is the last error when no order reached the model: there is nothing to score.
    """
    observations, unreached = [], {}
    for number, case in enumerate(cases, start=1):
        try:
            observations.append(run_case(case))
        except EndpointError as exc:
            if exc.kind in SETUP_PROBLEMS:
                raise
            unreached[case.id], last = exc.kind, exc
        if progress is not None:
            progress(number, len(cases))
    if unreached and not observations:
        raise last
    report = score_observations(observations, checks, model)
    return replace(report, unreached=MappingProxyType(unreached)), tuple(observations)
