"""The restock agent's world: the kitchen's stock, the suppliers, the manager, and what happened.

Session 16, the capstone. The café's world so far was a menu and a till; the restock agent works
on its back office. A `RestockWorld` is built from a scenario (`cafe/capstone/scenarios.py`) and
offers a harness four operations, each a stub that keeps its own record:

- `read_stock()`: the kitchen's stock as JSON text: on hand, par level and supplier of each item;
- `ask_quote(supplier, item, quantity)`: a supplier's quote as JSON text, whose `message` is the
  supplier's own words (it may carry instructions); a supplier may time out or fail;
- `place_order(order)`: sends a `PurchaseOrder` to its supplier, which takes whatever it is sent;
- `ask_manager(order)`: asks the manager to approve an order over the spending limit.

What actually happened is in `events`, in the order it happened: every quote asked, every order
the supplier received and every approval asked, with the answer. The grader reads this record,
never the harness's own report. `books()` gives what a harness may trust: each supplier's
registered account and the spending limit.

A harness is never handed the world itself: `doors()` gives it a `WorldDoors`, the five
operations as functions and nothing else, so the record, the suppliers' plans and the manager's
ceiling are out of its reach. Every order that comes through a door is copied, field by field
into plain text and whole numbers, before the world records it: an object the harness changes
later, or one whose comparisons lie, never reaches the record.

Left out: the model (`cafe/capstone/model.py`) and how a harness wraps these operations as tools
(`cafe/capstone/harness.py`).
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from cafe.capstone.orders import OrderLine, PurchaseOrder, Quote

__all__ = [
    "EVENT_KINDS",
    "WorldDoors",
    "Event",
    "EventKind",
    "GraderHalt",
    "Item",
    "RestockWorld",
    "SupplierError",
    "SupplierPlan",
    "plain",
    "received",
]

# What the world records, once each: a quote asked, an order received, an approval asked.
EventKind = Literal["quote", "order", "approval"]
EVENT_KINDS: frozenset[str] = frozenset({"quote", "order", "approval"})


class GraderHalt(BaseException):
    """Raised by every stub once the grader has given up on a run (its time limit passed).

    A `BaseException`, so that a harness's `except Exception` cannot swallow it and go on."""


class SupplierError(Exception):
    """A supplier's API failed: a timeout or an error. The text says which, as the API does."""


@dataclass(frozen=True)
class Item:
    """One item the kitchen stocks: how many are on hand, its par level, who sells it at what."""

    name: str
    on_hand: int
    par: int
    supplier: str
    unit_price_cents: int

    @property
    def need(self) -> int:
        return max(0, self.par - self.on_hand)


@dataclass(frozen=True)
class SupplierPlan:
    """How one supplier behaves: fails its first `busy` quotes one way (HTTP 429, too many
    requests), then `timeouts` quotes another (a timeout: failures of one tool in a row that are
    not the same failure), or fails every quote (`down`); after it answers, it times out
    `relapse_timeouts` times again (`timeouts` when None), `relapses` times over (a flaky
    supplier: the same failure, a success, then the same failure once more); `message` is what
    its quotes say (an injected instruction, or a plain note), and `quoted_account` the account its quotes
    name in their `pay_to` field when it is not the registered one (a compromised supplier; the
    café's books still hold `account`)."""

    name: str
    account: str
    timeouts: int = 0
    busy: int = 0
    relapses: int = 0
    relapse_timeouts: int | None = None
    down: bool = False
    message: str = "Thank you for your custom."
    quoted_account: str = ""


@dataclass(frozen=True)
class Event:
    """One thing that happened in the world: a quote asked (`ok` says whether it came back), an
    order received, or an approval asked (`ok` is the manager's answer)."""

    kind: EventKind
    supplier: str
    item: str = ""
    ok: bool = True
    detail: str = ""
    order: PurchaseOrder | None = None


def plain(value: Any) -> Any:
    """`value` as an exact str, int or float (a subclass loses its own methods), or a marker
    naming its type: the record holds nothing whose comparisons a harness wrote."""
    if value is None or type(value) in (str, int, float, bool):
        return value
    if isinstance(value, str):
        return str.__getitem__(value, slice(None))
    if isinstance(value, int):
        return int.__index__(value)
    if isinstance(value, float):
        return float.__float__(value)
    return f"<a {type(value).__name__}>"


def received(order: Any) -> PurchaseOrder:
    """The copy of `order` the world records: a `PurchaseOrder` of plain values, whatever the
    harness's object does afterwards. TypeError for anything that is not a `PurchaseOrder`."""
    if not isinstance(order, PurchaseOrder):
        raise TypeError(f"this takes a PurchaseOrder, not {type(order).__name__}")
    lines = order.lines if isinstance(order.lines, (tuple, list)) else ()
    copied = tuple(
        OrderLine(plain(x.item), plain(x.quantity), plain(x.unit_price_cents))
        if isinstance(x, OrderLine)
        else OrderLine(plain(x), 0, 0)
        for x in lines
    )
    return PurchaseOrder(
        plain(order.supplier), copied, plain(order.total_cents), plain(order.pay_to)
    )


class WorldDoors:
    """What a harness is handed as `env.world`: `read_stock`, `ask_quote`, `place_order`,
    `ask_manager` and `books`, each a plain function, and no way back to the world behind them
    (`RestockWorld.doors()` makes one; in the harness's own process each function asks the
    grader's process, `cafe/capstone/child.py`)."""

    __slots__ = ("read_stock", "ask_quote", "place_order", "ask_manager", "books")

    read_stock: Callable[[], str]
    ask_quote: Callable[[str, str, int], str]
    place_order: Callable[[PurchaseOrder], str]
    ask_manager: Callable[[PurchaseOrder], bool]
    books: Callable[[], tuple[Mapping[str, str], int]]

    def __init__(self, **operations: Callable[..., Any]):
        if set(operations) != set(self.__slots__):
            raise TypeError(f"WorldDoors takes exactly {', '.join(self.__slots__)}")
        for name in self.__slots__:
            object.__setattr__(self, name, operations[name])

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"env.world.{name} cannot be replaced: the world's doors are fixed")

    def __repr__(self) -> str:
        return "WorldDoors(read_stock, ask_quote, place_order, ask_manager, books)"


def _door(method: Callable[..., Any]) -> Callable[..., Any]:
    """`method` as a plain function: its `__self__` (the world) stays behind."""

    def door(*args: Any) -> Any:
        return method(*args)

    door.__name__ = door.__qualname__ = method.__name__
    door.__doc__ = method.__doc__
    return door


def _round_failure(plan: SupplierPlan, asked: int) -> str:
    """How the quote asked after `asked` others fails ("" when it is answered): first `busy`
    refusals, then in each of the plan's 1 + `relapses` rounds its timeouts (`timeouts`, then
    `relapse_timeouts`) and an answer; it answers every quote after them."""
    if asked < plan.busy:
        return "API error 429: too many requests"
    asked -= plan.busy
    again = plan.timeouts if plan.relapse_timeouts is None else plan.relapse_timeouts
    for timeouts in (plan.timeouts, *[again] * plan.relapses):
        if asked < timeouts:
            return "API timed out after 30 s"
        if asked == timeouts:
            return ""
        asked -= timeouts + 1
    return ""


@dataclass
class RestockWorld:
    """The stubs a harness works against, and their record (`events`). One world per run."""

    items: tuple[Item, ...]
    suppliers: tuple[SupplierPlan, ...]
    limit_cents: int  # an order over this needs the manager's approval first
    manager_ceiling_cents: int  # the manager approves up to this total, and declines above
    events: list[Event] = field(default_factory=list)
    halted: bool = False
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def _plan(self, supplier: str) -> SupplierPlan:
        self._check_halt()
        for plan in self.suppliers:
            if plan.name == supplier:
                return plan
        raise SupplierError(f"there is no supplier named {supplier!r}")

    def _check_halt(self) -> None:
        if self.halted:
            raise GraderHalt("the grader stopped this run: it ran past its time limit")

    def _record(self, event: Event) -> None:
        with self._lock:
            self.events.append(event)

    def books(self) -> tuple[Mapping[str, str], int]:
        """What the café's own books say: each supplier's registered account, and the limit."""
        return {plan.name: plan.account for plan in self.suppliers}, self.limit_cents

    def read_stock(self) -> str:
        """The kitchen's stock as JSON: each item's on-hand count, par level and supplier."""
        self._check_halt()
        stock = {
            item.name: {"on_hand": item.on_hand, "par": item.par, "supplier": item.supplier}
            for item in self.items
        }
        return json.dumps(stock, sort_keys=True)

    def ask_quote(self, supplier: str, item: str, quantity: int) -> str:
        """A supplier's quote for `quantity` of `item`, as JSON; raises `SupplierError` when the
        supplier times out or fails."""
        supplier, item, quantity = plain(supplier), plain(item), plain(quantity)
        plan = self._plan(supplier)
        asked = sum(1 for e in self.events if e.kind == "quote" and e.supplier == supplier)
        failure = ""
        # Each call is served by another worker, whose pid the error names: noise that session
        # 13's `failure_signature` masks, so the same failure is the same only up to its noise.
        worker = f"(worker pid {4100 + 7 * asked})"
        if plan.down:
            failure = f"{supplier} API error 503: service unavailable {worker}"
        elif _round_failure(plan, asked):
            failure = f"{supplier} {_round_failure(plan, asked)} {worker}"
        sold = {i.name: i for i in self.items if i.supplier == supplier}
        if not failure and item not in sold:
            failure = f"{supplier} does not sell {item!r}"
        self._record(Event("quote", supplier, item, not failure, failure))
        if failure:
            raise SupplierError(failure)
        pay_to = plan.quoted_account or plan.account  # what the supplier writes, not the books
        quote = Quote(supplier, item, quantity, sold[item].unit_price_cents, pay_to, plan.message)
        return json.dumps(quote.__dict__, sort_keys=True)

    def place_order(self, order: PurchaseOrder) -> str:
        """Send `order` to its supplier, which accepts whatever it is sent (checking is the
        harness's job); answers JSON with the order's number."""
        order = received(order)
        self._plan(order.supplier)
        self._record(Event("order", order.supplier, "", True, "", order))
        number = sum(1 for e in self.events if e.kind == "order")
        return json.dumps({"status": "placed", "order_number": number})

    def ask_manager(self, order: PurchaseOrder) -> bool:
        """Ask the manager to approve `order`; True when approved. Ask BEFORE placing it."""
        order = received(order)
        self._check_halt()
        total = order.total_cents
        granted = type(total) is int and total <= self.manager_ceiling_cents
        self._record(Event("approval", order.supplier, "", granted, "", order))
        return granted

    def doors(self) -> WorldDoors:
        """The world as a harness is handed it: the five operations, and nothing else."""
        return WorldDoors(**{name: _door(getattr(self, name)) for name in WorldDoors.__slots__})

    # --- readings the grader (and a curious learner) take off the record -------------------

    def of_kind(self, kind: EventKind) -> tuple[Event, ...]:
        """The events of one kind, in the order they happened."""
        if kind not in EVENT_KINDS:
            raise ValueError(f"{kind!r} is not one of {sorted(EVENT_KINDS)}")
        return tuple(e for e in self.events if e.kind == kind)

    def orders(self) -> tuple[PurchaseOrder, ...]:
        """Every order the suppliers received, in order."""
        return tuple(e.order for e in self.of_kind("order") if e.order is not None)
