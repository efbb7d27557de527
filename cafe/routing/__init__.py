"""Session 11, cost-aware routing: what a retry costs, and which model an order should go to.

Read the files in this order:

- `prices.py`: a price table you edit, and what a batch of repair runs actually spent;
- `routes.py`: the expected cost of an accepted ticket (`expected_cost`), routes and cascades
  between models, and the routing table.

Lesson: sessions/s11-cost-routing/lesson.md. Notebook: notebooks/s11-cost-routing.ipynb.
"""

from __future__ import annotations

from cafe.routing.prices import (
    PRICES_PATH,
    TOKENS_PER_PRICE_UNIT,
    ModelPrice,
    Measured,
    load_prices,
    attempt_price,
    measure_runs,
)
from cafe.routing.routes import (
    CHEAP,
    STRONG,
    HIGHER_CAP,
    STICKINESS_EXAMPLE,
    TRIALS_ROUTES,
    Tier,
    Step,
    Route,
    RouteCost,
    RouteRow,
    expected_attempts,
    expected_cost,
    single,
    cascade,
    example_routes,
    route_cost,
    simulate_route,
    simulate_cost,
    routing_table,
)

__all__ = [
    "CHEAP",
    "HIGHER_CAP",
    "Measured",
    "ModelPrice",
    "PRICES_PATH",
    "Route",
    "RouteCost",
    "RouteRow",
    "STICKINESS_EXAMPLE",
    "STRONG",
    "Step",
    "TOKENS_PER_PRICE_UNIT",
    "TRIALS_ROUTES",
    "Tier",
    "attempt_price",
    "cascade",
    "example_routes",
    "expected_attempts",
    "expected_cost",
    "load_prices",
    "measure_runs",
    "route_cost",
    "routing_table",
    "simulate_cost",
    "simulate_route",
    "single",
]
