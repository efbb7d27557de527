"""Session 11, cost-aware routing: what a retry costs, and which model an order should go to.

Read the files in this order:

- `prices.py`: a price table you edit, and what a batch of repair runs actually spent;
- `routes.py`: the expected cost of an accepted ticket (`expected_cost`), routes and cascades
  between models, and the routing table;
- `experiment_arms.py`: `cafe experiment 11` on your model (acceptance within the cap).

Lesson: sessions/s11-cost-routing/lesson.md. Notebook: notebooks/s11-cost-routing.ipynb.
"""

from __future__ import annotations

from cafe.routing.prices import (
    PRICES_PATH,
    TOKENS_PER_PRICE_UNIT,
    Measured,
    ModelPrice,
    attempt_price,
    load_prices,
    measure_runs,
)
from cafe.routing.routes import (
    CHEAP,
    HIGHER_CAP,
    STICKINESS_EXAMPLE,
    STRONG,
    TRIALS_ROUTES,
    Route,
    RouteCost,
    RouteRow,
    Step,
    Tier,
    cascade,
    example_routes,
    expected_attempts,
    expected_cost,
    route_cost,
    routing_table,
    simulate_cost,
    simulate_route,
    single,
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
