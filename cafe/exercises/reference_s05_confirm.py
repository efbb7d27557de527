"""Session 05's reference for `items_to_confirm`, written apart from `cafe.consent`, and the
orders to try it on.

`check_items_to_confirm` (`cafe.exercises.s05`) runs the learner's function on generated orders
after its hand-picked cases: `items_to_confirm` is the gate of the notebook's step 7 (ask about an
approved item that is 86'd on the day's menu or holds a declared allergen), and `confirm_orders`
draws items in any spelling, declarations by group, everyday word or ingredient, and none to
three items 86'd. An order where nothing can be made is the learner's call, so the checker does
not judge it. `tests/test_exercises_s05.py` holds the reference to the course's gate.

Split from `reference_s05` (the `within_consent` reference), whose spellings it draws from. Like
it, this module imports nothing from `cafe` but the exercises' own references.
"""

from __future__ import annotations

from typing import Any

from cafe.exercises.reference_s05 import (
    _GROUP_WORDS,
    _INGREDIENTS,
    MENU_ITEMS,
    Order,
    _respelt,
    folded,
)

__all__ = ["items_to_confirm", "confirm_orders"]


def items_to_confirm(spec: Any, menu: Any) -> frozenset[str]:
    """The approved items to ask about, folded: 86'd on `menu`, or holding a declared allergen
    (the menu's `contains` reads 'dairy' as milk and an ingredient as its group)."""
    return frozenset(
        folded(item)
        for item in spec.items
        if menu.is_sold_out(item) or any(menu.contains(item, a) for a in spec.allergies)
    )


def confirm_orders() -> Any:
    """(approved order, the day's 86'd items): one to four items in any spelling, declarations
    by group, everyday word or ingredient, and none to three items 86'd."""
    from hypothesis import strategies as st

    words = (*[w for words in _GROUP_WORDS.values() for w in words], *_INGREDIENTS.values())

    @st.composite
    def orders(draw: Any) -> tuple[Order, frozenset[str]]:
        items = draw(st.lists(st.sampled_from(MENU_ITEMS), min_size=1, max_size=4))
        spec = Order(
            table=draw(st.integers(1, 30)),
            items=tuple(_respelt(draw, st, item) for item in items),
            allergies=tuple(draw(st.lists(st.sampled_from(words), max_size=2))),
        )
        sold_out = draw(st.frozensets(st.sampled_from(MENU_ITEMS), max_size=3))
        return spec, sold_out

    return orders()
