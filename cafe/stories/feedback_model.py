"""A scripted model that reads its feedback: the offline stand-in for how a model answers a retry.

Session 07 (`sessions/s07-repair-loop/lesson.md`, notebook `notebooks/s07-repair-loop.ipynb`).
`cafe.repair.make_scripted_generator` hands back fixed drafts whatever it is told, which shows the
loop's mechanics but cannot show what a failure view is for. This module adds a model that
behaves the way the lesson says models behave on a retry, deterministically:

- it writes each ticket from the order in the brief, with the slips this order tends to provoke
  (`SLIPS`: leaving out the table, the declared allergy, or one of the items);
- sent the brief again unchanged (a `naive` retry), it draws again with the same habits, so the
  slips it made once tend to come back;
- sent feedback, it fixes a slip only when the feedback names what it is about (the table, the
  allergy, the item), and, unless the feedback says to change nothing else, it sometimes
  "improves" a ticket that was fine by adding an item nobody ordered (`EXTRA_ITEM`).

`FeedbackModel` is a `Script` responder (request in, reply out), so it plugs into
`cafe.make_client(script=FeedbackModel())` and `cafe.repair.make_model_generator` drives it the
way it drives a real endpoint: in live mode the same cell reaches your model instead.
`PRACTICE_ORDERS` are the orders the notebook and the toy run in both retry modes.

What it leaves out: everything else about a model. Its rates are invented for teaching, not
measured; session 10 sorts real failures into classes, and the checkpoint banks your model's
own numbers.
"""

from __future__ import annotations

import json
import random
import re
from collections.abc import Mapping
from typing import Any, Literal, get_args

from cafe.consent import OrderSpec

__all__ = [
    "SLIPS",
    "Slip",
    "HABIT_RATE",
    "RECUR_RATE",
    "IMPROVE_RATE",
    "EXTRA_ITEM",
    "FENCE_WORDS",
    "PRACTICE_ORDERS",
    "Order",
    "read_brief",
    "FeedbackModel",
]

# The three slips the model makes, each caught by a different check: no "table" (missing_field),
# the declared allergy left off (unsafe), the last item of the order left off (out_of_scope).
Slip = Literal["no_table", "no_allergy", "drop_item"]
SLIPS: tuple[Slip, ...] = get_args(Slip)

# Invented for teaching (not measured on any model): an order provokes each slip that can apply
# to it with this chance, fixed per order, since what confuses a model once confuses it again...
HABIT_RATE = 0.4
# ...and each habit shows up on a draw with this chance: retries with an unchanged prompt repeat
# the same mistakes far more often than fresh, independent draws would.
RECUR_RATE = 0.8
# How often feedback without a change-nothing-else line sets off an unasked-for "improvement".
IMPROVE_RATE = 0.5
# The improvement: an item the customer never ordered, which the scope check rejects.
EXTRA_ITEM = "espresso"
# The words whose presence in feedback fences off everything it does not name.
FENCE_WORDS = "change nothing else"

# Ten everyday orders for the notebook's naive-against-curated run: none contains the extra item,
# every item is on today's menu and safe for the allergies declared, so every order can pass.
PRACTICE_ORDERS: tuple[OrderSpec, ...] = (
    OrderSpec(3, ("americano", "croissant"), request="An americano and a croissant."),
    OrderSpec(
        5,
        ("oat latte", "fruit salad"),
        ("milk",),
        request="Oat latte and a fruit salad. No dairy for me.",
    ),
    OrderSpec(7, ("green tea",), request="Just a green tea."),
    OrderSpec(
        8, ("flat white", "banana bread"), request="A flat white and the banana bread, please."
    ),
    OrderSpec(
        9,
        ("tofu scramble", "oat latte"),
        ("egg",),
        request="Tofu scramble and an oat latte. Egg allergy.",
    ),
    OrderSpec(11, ("cappuccino",), request="One cappuccino."),
    OrderSpec(
        12,
        ("green tea", "fruit salad"),
        ("nuts",),
        request="Green tea and the fruit salad. I have a nut allergy.",
    ),
    OrderSpec(
        14, ("hot chocolate", "croissant"), request="Hot chocolate and a croissant for my son."
    ),
    OrderSpec(
        15,
        ("avocado toast", "americano"),
        ("milk",),
        request="Avocado toast and an americano, I'm lactose intolerant.",
    ),
    OrderSpec(18, ("latte", "granola bowl"), request="A latte and the granola bowl."),
)

# How `cafe.repair.brief_for` writes an order; the model reads the order back from these lines.
_TABLE = re.compile(r"^Order for table (\d+)\.$", re.M)
_ITEMS = re.compile(r"^Items: (.+)$", re.M)
_ALLERGIES = re.compile(r"^Declared allergies: (.+)$", re.M)


Order = tuple[int, tuple[str, ...], tuple[str, ...]]  # table, items, declared allergies


def read_brief(text: str) -> Order | None:
    """The order a brief describes (table, items, allergies), or None when it describes none."""
    table, items, allergies = _TABLE.search(text), _ITEMS.search(text), _ALLERGIES.search(text)
    if table is None or items is None:
        return None
    declared = (
        ()
        if allergies is None or allergies.group(1).strip() == "none"
        else tuple(a.strip() for a in allergies.group(1).split(","))
    )
    return int(table.group(1)), tuple(i.strip() for i in items.group(1).split(",")), declared


def _text(message: Mapping[str, Any]) -> str:
    content = message.get("content")
    return content if isinstance(content, str) else ""


def _names(slip: Slip, order: Order, feedback: str) -> bool:
    """Whether the feedback says what this slip is about, so a model knows what to fix."""
    table, items, _ = order
    words = feedback.casefold()
    if slip == "no_table":
        return "table" in words
    if slip == "no_allergy":
        return "allerg" in words
    if slip == "drop_item":
        return items[-1].casefold() in words
    raise ValueError(f"Unknown slip {slip!r}; expected one of {', '.join(SLIPS)}.")


def _applies(slip: Slip, order: Order) -> bool:
    _, items, allergies = order
    return {"no_table": True, "no_allergy": bool(allergies), "drop_item": len(items) > 1}[slip]


def _ticket(order: Order, slips: set[Slip], improve: bool) -> str:
    table, items, allergies = order
    drafted = list(items[:-1] if "drop_item" in slips else items) + (
        [EXTRA_ITEM] if improve else []
    )
    ticket: dict[str, Any] = {
        "table": table,
        "items": drafted,
        "allergies": [] if "no_allergy" in slips else list(allergies),
        "notes": "",
    }
    if "no_table" in slips:
        del ticket["table"]
    return json.dumps(ticket)


class FeedbackModel:
    """A `Script` responder that writes tickets the way the module docstring describes.

    `seed` picks the habits and draws; the same seed gives the same drafts on every run, and two
    models with the same seed write the same first draft for an order, so naive and curated runs
    can be compared on equal terms. `drafts` counts the drafts written for each order.
    """

    def __init__(self, seed: int = 7):
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise TypeError(f"seed is {seed!r}; give a whole number, e.g. FeedbackModel(seed=7).")
        self.seed = seed
        self.drafts: dict[str, int] = {}

    def habits(self, order: Order) -> set[Slip]:
        """The slips this order provokes: fixed per order and seed, like a model's blind spots."""
        rng = random.Random(f"{self.seed}|habits|{order!r}")
        return {slip for slip in SLIPS if rng.random() < HABIT_RATE and _applies(slip, order)}

    def __call__(self, request: Mapping[str, Any]) -> str:
        users = [_text(m) for m in request.get("messages", []) if m.get("role") == "user"]
        order = read_brief(users[0]) if users else None
        if order is None:
            return (
                "I could not find an order in your message. Which table, and what would they like?"
            )
        feedback = "\n".join(users[1:])
        count = self.drafts.get(users[0], 0) + 1
        self.drafts[users[0]] = count
        rng = random.Random(f"{self.seed}|draft {count}|{order!r}")
        slips = {slip for slip in sorted(self.habits(order)) if rng.random() < RECUR_RATE}
        slips -= {slip for slip in SLIPS if feedback and _names(slip, order, feedback)}
        restless = bool(feedback) and FENCE_WORDS not in feedback.casefold()
        improve = restless and rng.random() < IMPROVE_RATE
        return _ticket(order, slips, improve)
