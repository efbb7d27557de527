"""Tests for cafe/world/orderpad.py: session 01's order pad, handed its menu by the caller.

The pad taking an order through the real loop is tested beside the loop, in tests/test_loop.py.
"""

from __future__ import annotations

import subprocess
import sys
from dataclasses import dataclass

import pytest

from cafe.world.menu import load_menu
from cafe.world.orderpad import MAX_QUANTITY, OrderPad, TicketLine


@dataclass(frozen=True)
class Item:
    name: str
    price: float
    allergens: frozenset[str]


class TinyMenu:
    """Two items and one of them sold out: all a pad needs is `item` and `is_sold_out`."""

    items = {
        "tea": Item("tea", 2.0, frozenset()),
        "scone": Item("scone", 3.5, frozenset({"gluten", "milk"})),
    }

    def item(self, name: str) -> Item | None:
        return self.items.get(name.strip().lower())

    def is_sold_out(self, name: str) -> bool:
        return name.strip().lower() == "scone"


def test_order_pad_works_on_any_menu_with_item_and_is_sold_out():
    pad = OrderPad(TinyMenu())
    assert pad.look_up("Tea").text == "tea: €2.00, contains: none."
    assert "sold out" in pad.look_up("scone").text
    assert pad.add_to_ticket("tea", 2).ok and not pad.add_to_ticket("scone").ok
    assert pad.ticket == (TicketLine("tea", 2),) and pad.read_ticket() == "2 x tea"


def test_order_pad_reads_the_trusted_menu_when_handed_it():
    pad = OrderPad(load_menu())
    assert pad.look_up("latte").text.startswith("latte: €4.20")


@pytest.mark.parametrize("menu", [None, {"latte": 4.2}, ["latte"]])
def test_order_pad_without_a_menu_raises_type_error_saying_what_to_pass(menu):
    with pytest.raises(TypeError, match=r"OrderPad needs the café's menu.*load_menu\(\)"):
        OrderPad(menu)


def test_order_pad_quantity_bounds_are_max_quantity():
    pad = OrderPad(TinyMenu())
    assert pad.add_to_ticket("tea", MAX_QUANTITY).ok
    refused = pad.add_to_ticket("tea", MAX_QUANTITY + 1)
    assert not refused.ok and str(MAX_QUANTITY) in refused.text
    assert not pad.add_to_ticket("tea", 0).ok


def test_order_pad_ticket_is_a_copy_and_lines_are_frozen():
    pad = OrderPad(TinyMenu())
    pad.add_to_ticket("tea")
    ticket = pad.ticket
    pad.add_to_ticket("tea", 3)
    assert len(ticket) == 1 and len(pad.ticket) == 2
    with pytest.raises(AttributeError):
        ticket[0].quantity = 9  # type: ignore[misc]


def test_session_01_modules_use_no_later_session():
    # tools and the order pad are session 01: building a pad must load nothing a later session teaches.
    code = (
        "import sys, cafe.loop.tools, cafe.world.orderpad\n"
        "from cafe.course.syllabus import MODULE_SESSIONS\n"
        "class M:\n"
        "    def item(self, name): return None\n"
        "    def is_sold_out(self, name): return False\n"
        "cafe.world.orderpad.OrderPad(M())\n"
        "def session(name):\n"
        "    parts = name.split('.')\n"
        "    for end in range(len(parts), 1, -1):\n"
        "        if '.'.join(parts[:end]) in MODULE_SESSIONS: return MODULE_SESSIONS['.'.join(parts[:end])]\n"
        "    return 0\n"
        "print(sorted(m for m in sys.modules if m.startswith('cafe.') and session(m) > 1))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
