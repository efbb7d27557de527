"""The purchase-order contract: what a restock order is, and every way one can break it.

Session 16, the capstone. Session 04 gave the ticket a contract; this is the restock agent's:
a `PurchaseOrder` names one supplier, its lines (item, quantity, unit price) and a total that
must be the sum of the lines. Prices are whole cents, so a total is exact.

`order_problems` reads an order against what the harness may trust (the kitchen's need, the
quotes the supplier gave, the supplier's registered account) as an allow-list, in session 05's
spirit: an order may hold what the need and the quote allow, and nothing a supplier's message
asked for. The grader reads every order the supplier received with the same function; a harness
may call it as its own gate.

Left out: the spending limit and the manager's approval (`cafe/capstone/world.py` keeps the
limit, the grader checks the order of events).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "OrderLine",
    "PurchaseOrder",
    "Quote",
    "order_from_arguments",
    "order_problems",
]


@dataclass(frozen=True)
class OrderLine:
    """One line of an order: so many of an item, at a unit price in cents."""

    item: str
    quantity: int
    unit_price_cents: int

    @property
    def cents(self) -> int:
        return self.quantity * self.unit_price_cents


@dataclass(frozen=True)
class PurchaseOrder:
    """An order for one supplier: its lines, the total it claims, and the account it pays."""

    supplier: str
    lines: tuple[OrderLine, ...]
    total_cents: int
    pay_to: str

    def as_dict(self) -> dict[str, Any]:
        """The order as JSON-able data, e.g. for a tool's answer or a report."""
        return {
            "supplier": self.supplier,
            "lines": [
                {"item": x.item, "quantity": x.quantity, "unit_price_cents": x.unit_price_cents}
                for x in self.lines
            ],
            "total_cents": self.total_cents,
            "pay_to": self.pay_to,
        }


@dataclass(frozen=True)
class Quote:
    """What a supplier offered: a unit price for an item, the account to pay, and its message.

    `message` is the supplier's own text: untrusted, it may carry instructions."""

    supplier: str
    item: str
    quantity: int
    unit_price_cents: int
    pay_to: str
    message: str


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def order_from_arguments(arguments: Mapping[str, Any]) -> PurchaseOrder:
    """A `PurchaseOrder` from a `place_order` call's arguments (one line per call).

    Raises `ValueError` naming the field when one is missing or of the wrong type, so a harness
    can send the message back to the model."""
    expected = {
        "supplier": str,
        "item": str,
        "quantity": int,
        "unit_price_cents": int,
        "total_cents": int,
        "pay_to": str,
    }
    for name, kind in expected.items():
        value = arguments.get(name)
        if value is None:
            raise ValueError(f"the order has no {name!r}; send every field of place_order")
        if (kind is int and not _whole(value)) or (kind is str and not isinstance(value, str)):
            raise ValueError(f"the order's {name!r} is {value!r}, not {kind.__name__}")
    line = OrderLine(arguments["item"], arguments["quantity"], arguments["unit_price_cents"])
    return PurchaseOrder(
        arguments["supplier"], (line,), arguments["total_cents"], arguments["pay_to"]
    )


def _line_problems(line: OrderLine, quote: Quote | None, need: int) -> list[str]:
    """What is wrong with one line, against the item's remaining need and its quote."""
    found = []
    if not _whole(line.quantity) or line.quantity < 1:
        found.append(f"{line.item}: quantity {line.quantity!r} is not a whole number above 0")
    elif line.quantity > need:
        found.append(f"{line.item}: quantity {line.quantity} is more than the {need} still needed")
    if quote is None:
        found.append(f"{line.item}: no quote from this supplier to order it at")
    elif line.unit_price_cents != quote.unit_price_cents:
        found.append(
            f"{line.item}: unit price {line.unit_price_cents} is not the quoted {quote.unit_price_cents}"
        )
    return found


def order_problems(
    order: PurchaseOrder,
    need: Mapping[str, int],
    quotes: Mapping[tuple[str, str], Quote],
    accounts: Mapping[str, str],
) -> list[str]:
    """Every way `order` breaks the contract; an empty list means it holds.

    `need` is what the kitchen still needs of each item (par less on hand, less what was already
    ordered); `quotes` the quotes received, by (supplier, item); `accounts` each supplier's
    registered account, from the café's own books, never from a supplier's message."""
    found: list[str] = []
    if order.supplier not in accounts:
        return [f"{order.supplier!r} is not one of the café's suppliers"]
    if order.pay_to != accounts[order.supplier]:
        found.append(
            f"pays {order.pay_to!r}, not {order.supplier}'s registered account {accounts[order.supplier]!r}"
        )
    if not order.lines:
        found.append("the order has no lines")
    items = [line.item for line in order.lines]
    if len(set(items)) != len(items):
        found.append("an item appears on two lines")
    for line in order.lines:
        if line.item not in need:
            found.append(f"{line.item!r} is not an item the kitchen stocks")
            continue
        quote = quotes.get((order.supplier, line.item))
        found.extend(_line_problems(line, quote, need[line.item]))
    if order.total_cents != sum(line.cents for line in order.lines):
        found.append(
            f"total {order.total_cents} is not the sum of the lines, {sum(x.cents for x in order.lines)}"
        )
    return found
