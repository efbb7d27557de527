"""The café's order pad: session 01's worked example of tools that share one ticket.

Session 01 (the agent loop). `cafe.loop.tools` turns plain functions into tools; this module puts
three of them around one resource, the kitchen ticket being written:

- `OrderPad(menu)`: `look_up` (observe: price, allergens, sold out?), `add_to_ticket` (mutate)
  and `read_ticket` (observe), as bound methods in `OrderPad.tools`, ready for `run_loop`.
- `TicketLine`: one line of the ticket, a frozen record (`OrderPad.ticket` is a tuple of them).
- `MenuLike` and `MenuItemLike`: what the pad needs from the menu it is handed, spelled out.

The pad does not load a menu itself. The trusted menu is session 03's subject (`cafe.world.menu`), and
a session 01 module imports nothing from later sessions, so the caller hands one in:
`OrderPad(load_menu())` with `from cafe.world.menu import load_menu`. Any object with the two methods
of `MenuLike` will do, which also makes a tiny test menu a few lines long.

Left out: prices on the ticket and a bill (session 11 counts costs), checking an order against
a customer's allergies (sessions 06 and 07), and the ticket as a structured output (session 04).

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

from collections.abc import Set
from dataclasses import dataclass
from typing import Protocol

from cafe.loop.tools import Tool, ToolOutput, tool

__all__ = ["MAX_QUANTITY", "MenuItemLike", "MenuLike", "TicketLine", "OrderPad"]

# The most of one item a single ticket line may ask for: a course choice, large enough for a
# table's order and small enough that a model's "quantity": 200 is caught as a slip.
MAX_QUANTITY = 20


# --- what the pad needs from a menu ---------------------------------------------------------


class MenuItemLike(Protocol):
    """One menu item as the pad reads it (`cafe.world.menu.MenuItem` is one)."""

    @property
    def name(self) -> str: ...

    @property
    def price(self) -> float: ...

    @property
    def allergens(self) -> Set[str]: ...


class MenuLike(Protocol):
    """A menu as the pad reads it (`cafe.world.menu.Menu` is one)."""

    def item(self, name: str) -> MenuItemLike | None: ...

    def is_sold_out(self, name: str) -> bool: ...


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class TicketLine:
    """One line of the kitchen ticket."""

    item: str
    quantity: int


# --- the order pad --------------------------------------------------------------------------


class OrderPad:
    """The café's order pad, as tools: `look_up` (observe), `add_to_ticket` (mutate), `read_ticket`.

    It owns the ticket being written (a resource, so a class). Mistakes the model can fix, such as
    an item that is not on the menu or is sold out, come back as failed results, not exceptions.
    """

    def __init__(self, menu: MenuLike) -> None:
        missing = [
            name for name in ("item", "is_sold_out") if not callable(getattr(menu, name, None))
        ]
        if missing:
            raise TypeError(
                f"OrderPad needs the café's menu (an object with item(name) and is_sold_out(name)), "
                f"got {type(menu).__name__} without {', '.join(missing)}; pass cafe.world.menu.load_menu()"
            )
        self.menu: MenuLike = menu
        self._lines: list[TicketLine] = []
        self.tools: tuple[Tool, ...] = (
            tool(self.look_up, kind="observe"),
            tool(self.add_to_ticket, kind="mutate"),
            tool(self.read_ticket, kind="observe"),
        )

    @property
    def ticket(self) -> tuple[TicketLine, ...]:
        return tuple(self._lines)

    def look_up(self, item: str) -> ToolOutput:
        """Look an item up on today's menu: its price, allergens, and whether it is sold out.

        Args:
            item: the item's name, e.g. latte
        """
        found = self.menu.item(item)
        if found is None:
            return ToolOutput(False, f"{item!r} is not on the menu.")
        contains = ", ".join(sorted(found.allergens)) or "none"
        status = " It is sold out (86'd) today." if self.menu.is_sold_out(item) else ""
        return ToolOutput(True, f"{found.name}: €{found.price:.2f}, contains: {contains}.{status}")

    def add_to_ticket(self, item: str, quantity: int = 1) -> ToolOutput:
        """Add an item to the kitchen ticket.

        Args:
            item: the item's name, as the menu spells it
            quantity: how many (1 to 20)
        """
        found = self.menu.item(item)
        if found is None:
            return ToolOutput(False, f"{item!r} is not on the menu; look it up first.")
        if self.menu.is_sold_out(item):
            return ToolOutput(False, f"{found.name} is sold out today; offer something else.")
        if not 1 <= quantity <= MAX_QUANTITY:
            return ToolOutput(
                False, f"quantity must be between 1 and {MAX_QUANTITY}, not {quantity}."
            )
        self._lines.append(TicketLine(found.name, quantity))
        return ToolOutput(
            True, f"added {quantity} x {found.name}; the ticket has {len(self._lines)} line(s)"
        )

    def read_ticket(self) -> str:
        """Read the kitchen ticket back, one line per item."""
        return (
            "\n".join(f"{line.quantity} x {line.item}" for line in self._lines)
            or "(the ticket is empty)"
        )
