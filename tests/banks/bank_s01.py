"""Session 01's banks: `check_repeat_guard` and `check_own_tool` (cafe/exercises/s01.py).

The exercise ideas: a repeat guard stops a run only when the model asks for exactly the calls
whose results it has just seen (same tools, same arguments, same order, no call more or less),
and answers None otherwise; a tool of your own is read by the model only through its schema, and
answers in words, never by raising, whatever arguments the model sends (an empty text it cannot
act on is a failure it reports with `ToolOutput(False, ...)`).
"""

from __future__ import annotations

import json
from itertools import zip_longest
from typing import Any

from banks.harness import Bank, Entry
from cafe.exercises.s01 import check_own_tool, check_repeat_guard, reference_guard
from cafe.loop.guards import repeat_guard
from cafe.loop.tools import ToolOutput
from cafe.loop.turns import Nudge, Stop, TurnView

# --- repeat_guard: wrong ----------------------------------------------------------------------


def _stop(view: TurnView) -> Stop:
    return Stop("stuck", f"turn {view.turn} repeats its calls")


def _pairs(items: Any) -> list[tuple[str, dict[str, Any]]]:
    return [(item.name, dict(item.arguments)) for item in items]


def first_only(view: TurnView) -> Stop | None:
    """Compares the first call with the first result and forgets the rest."""
    if view.calls and view.prev_dispatch:
        if _pairs(view.calls[:1]) == _pairs(view.prev_dispatch[:1]):
            return _stop(view)
    return None


def order_ignored(view: TurnView) -> Stop | None:
    """Compares sets of calls, so the same calls in another order count as a repeat."""
    asked = {(c.name, json.dumps(dict(c.arguments), sort_keys=True)) for c in view.calls}
    seen = {(r.name, json.dumps(dict(r.arguments), sort_keys=True)) for r in view.prev_dispatch}
    return _stop(view) if asked and asked == seen else None


def zip_pairs(view: TurnView) -> Stop | None:
    """zip() stops at the shorter side, so an extra or a dropped call goes unseen."""
    pairs = list(zip(_pairs(view.calls), _pairs(view.prev_dispatch)))
    return _stop(view) if pairs and all(a == b for a, b in pairs) else None


def any_repeat(view: TurnView) -> Stop | None:
    """One call seen before is enough to stop."""
    seen = _pairs(view.prev_dispatch)
    return _stop(view) if any(pair in seen for pair in _pairs(view.calls)) else None


def text_arguments(view: TurnView) -> Stop | None:
    """Compares the arguments' text, so the same arguments in another key order differ."""
    asked = [(c.name, str(dict(c.arguments))) for c in view.calls]
    seen = [(r.name, str(dict(r.arguments))) for r in view.prev_dispatch]
    return _stop(view) if asked and asked == seen else None


def names_only(view: TurnView) -> Stop | None:
    """Compares the tool names and forgets the arguments."""
    same = [c.name for c in view.calls] == [r.name for r in view.prev_dispatch]
    return _stop(view) if view.calls and same else None


def arguments_only(view: TurnView) -> Stop | None:
    """Compares the arguments and forgets which tool was called."""
    asked = [dict(c.arguments) for c in view.calls]
    seen = [dict(r.arguments) for r in view.prev_dispatch]
    return _stop(view) if asked and asked == seen else None


def nudge_instead(view: TurnView) -> Nudge | None:
    """Tells the model instead of stopping the run."""
    same = view.calls and _pairs(view.calls) == _pairs(view.prev_dispatch)
    return Nudge("You already asked for that.") if same else None


def this_turns_results(view: TurnView) -> Stop | None:
    """Reads view.dispatch, which is empty when observers run."""
    same = view.calls and _pairs(view.calls) == _pairs(view.dispatch)
    return _stop(view) if same else None


def empty_is_a_repeat(view: TurnView) -> Stop | None:
    """Stops when both sides are empty: a first turn answered in words counts as a repeat."""
    return _stop(view) if _pairs(view.calls) == _pairs(view.prev_dispatch) else None


def other_reason(view: TurnView) -> Stop | None:
    """The right comparison, stopping with a reason nobody declared."""
    same = view.calls and _pairs(view.calls) == _pairs(view.prev_dispatch)
    return Stop("repeat", "same calls again") if same else None


def visible_example(view: TurnView) -> Stop | None:
    """The notebook's runaway model hard-coded: look_up latte twice stops, nothing else."""
    latte = [("look_up", {"item": "latte"})]
    same = _pairs(view.calls) == latte and _pairs(view.prev_dispatch) == latte
    return _stop(view) if same else None


def folded_arguments(view: TurnView) -> Stop | None:
    """Arguments compared after strip().lower(): 'latte ' and 'Latte' read as 'latte'."""

    def tidy(items: Any) -> list[Any]:
        return [
            (i.name, {k: str(v).strip().lower() for k, v in i.arguments.items()}) for i in items
        ]

    asked = tidy(view.calls)
    return _stop(view) if asked and asked == tidy(view.prev_dispatch) else None


def items_only(view: TurnView) -> Stop | None:
    """Compares the tool and its item, not every argument: a new size is no new call."""

    def keys(items: Any) -> list[Any]:
        return [(i.name, i.arguments.get("item")) for i in items]

    asked = keys(view.calls)
    return _stop(view) if asked and asked == keys(view.prev_dispatch) else None


# --- repeat_guard: right ----------------------------------------------------------------------


def right_loop(view: TurnView) -> Stop | None:
    """An explicit loop over the pairs, after checking both sides are as long."""
    if not view.calls or len(view.calls) != len(view.prev_dispatch):
        return None
    for proposed, result in zip(view.calls, view.prev_dispatch):
        if proposed.name != result.name or dict(proposed.arguments) != dict(result.arguments):
            return None
    return Stop("stuck", "the model asked for exactly what it just saw")


def right_json(view: TurnView) -> Stop | None:
    """Each call as one canonical JSON text (sorted keys), compared as lists."""

    def key(name: str, arguments: Any) -> str:
        return name + json.dumps(dict(arguments), sort_keys=True)

    asked = [key(c.name, c.arguments) for c in view.calls]
    seen = [key(r.name, r.arguments) for r in view.prev_dispatch]
    return Stop("stuck", "same calls again") if asked and asked == seen else None


# --- held-out reader C, 7 Dec 2026: written from the lesson alone, without the checkers ----------


def right_zip_longest(view: TurnView) -> Stop | None:
    """zip_longest with a sentinel, so the lengths must match, compared pair by pair."""
    if not view.calls or not view.prev_dispatch:
        return None
    gap = object()
    for call, result in zip_longest(view.calls, view.prev_dispatch, fillvalue=gap):
        if call is gap or result is gap:
            return None
        if call.name != result.name or dict(call.arguments) != dict(result.arguments):
            return None
    return Stop("stuck", f"turn {view.turn} repeats last turn's calls after seeing their results")


def right_sorted_tuples(view: TurnView) -> Stop | None:
    """Each call as (name, its arguments' items sorted by key), the two turns' tuples compared."""

    def signature(name: str, arguments: Any) -> tuple[str, tuple[tuple[str, Any], ...]]:
        return name, tuple(sorted(dict(arguments).items(), key=lambda pair: pair[0]))

    now = tuple(signature(c.name, c.arguments) for c in view.calls)
    before = tuple(signature(r.name, r.arguments) for r in view.prev_dispatch)
    return Stop("stuck", "same calls as last turn") if now and now == before else None


# --- held-out reader J, 7 Dec 2026 (repeat guard) ----------------------------------------------


def only_after_success(view: TurnView) -> Stop | None:
    """Stops only when every result it saw was ok: a call retried after it failed runs on."""
    if not view.calls or not all(r.ok for r in view.prev_dispatch):
        return None
    return _stop(view) if _pairs(view.calls) == _pairs(view.prev_dispatch) else None


def no_reason(view: TurnView) -> Stop | None:
    """The right comparison, stopping with `Stop("stuck")`: no sentence saying why."""
    same = view.calls and _pairs(view.calls) == _pairs(view.prev_dispatch)
    return Stop("stuck") if same else None


# --- own tool ---------------------------------------------------------------------------------


def remove_from_ticket(item: str, quantity: int = 1) -> ToolOutput:
    """Take an item off the kitchen ticket.

    Args:
        item: the menu item, as the ticket spells it
        quantity: how many to take off
    """
    if not item.strip():
        return ToolOutput(False, "Name the item to remove, e.g. latte.")
    return ToolOutput(True, f"removed {quantity} x {item}")


def no_args_block(item: str) -> str:
    """Take an item off the ticket."""
    return f"removed {item}" if item else ToolOutput(False, "name an item").text


def no_docstring(item: str) -> Any:
    if not item:
        return ToolOutput(False, "name an item")
    return f"removed {item}"


def raises_on_empty(item: str) -> str:
    """Take an item off the ticket.

    Args:
        item: the menu item
    """
    if not item:
        raise ValueError("item is empty")
    return f"removed {item}"


def echoes(item: str) -> Any:
    """Take an item off the ticket.

    Args:
        item: the menu item
    """
    return item if item else ToolOutput(False, "")


def divides_by_zero(ways: int) -> str:
    """Split the bill between guests.

    Args:
        ways: how many guests pay
    """
    return f"each pays {12.40 / ways:.2f}"


def claims_success_on_empty(item: str) -> str:
    """Take an item off the ticket.

    Args:
        item: the menu item
    """
    return f"removed {item}"


def empty_note_succeeds(item: str, note: str) -> str | ToolOutput:
    """Attach a kitchen note to an item.

    Args:
        item: the item on the ticket.
        note: what the kitchen should do differently.
    """
    if not item:  # reader W: only the first text is checked; an empty note still "succeeds"
        return ToolOutput(False, "which item?")
    return f"noted for {item}: {note}"


def empty_item_succeeds(item: str, table: str) -> str | ToolOutput:
    """Move an item to another table's ticket.

    Args:
        item: the item to move.
        table: the table it goes to, as the floor plan names it.
    """
    if not table:  # the same mistake the other way round: an empty item is "moved"
        return ToolOutput(False, "which table?")
    return f"moved {item} to {table}"


def crashes_on_a_real_item(guests: str) -> ToolOutput:
    """Split the bill between guests.

    Args:
        guests: how many guests pay
    """
    if not guests.strip():
        return ToolOutput(False, "Say how many guests pay, e.g. 2.")
    return ToolOutput(True, f"each pays {12.40 / int(guests):.2f}")


NOTED: list[str] = []


def side_effect_only(allergen: str) -> None:
    """Note an allergy for the kitchen.

    Args:
        allergen: what the customer is allergic to
    """
    if not allergen:
        raise ValueError("no allergen")
    NOTED.append(allergen)


def takes_nothing() -> str:
    """Read out today's specials."""
    return "soup of the day: tomato"


# --- held-out reader BB: a tool with no parameters is a tool ("write any tool the waiter lacks") --


def right_call_staff() -> str:
    """Call a member of staff to the table."""  # reader BB's r02
    return "A member of staff is on the way."


def right_ask_for_the_bill() -> ToolOutput:
    """Ask the till to print the bill for this table."""
    return ToolOutput(True, "The bill is printing.")


def nothing_undocumented() -> str:
    return "A member of staff is on the way."


def nothing_said() -> str:
    """Ring the kitchen bell."""
    return "  "


def right_split_bill(ways: int, total: float = 0.0) -> ToolOutput:
    """Split the bill evenly.

    Args:
        ways: how many guests share the bill, at least 1
        total: the bill in euros
    """
    if ways < 1:
        return ToolOutput(False, "Say how many guests share the bill: 1 or more.")
    return ToolOutput(True, f"{ways} shares of {total / ways:.2f} euros")


def right_ask_allergies(allergen: str) -> str | ToolOutput:
    """Say which menu items contain an allergen.

    Args:
        allergen: the allergen to look for, e.g. milk or nuts
    """
    from cafe.world.menu import load_menu

    if not allergen.strip():
        return ToolOutput(False, "Name an allergen, e.g. milk.")
    menu = load_menu()
    found = [item for item in menu.items if menu.contains(item, allergen)]
    return ", ".join(found) or f"nothing on the menu lists {allergen}"


# --- the banks --------------------------------------------------------------------------------

# --- held-out reader C, 7 Dec 2026 (own tool) ---------------------------------------------------


def optional_divisor(item: str, quantity: int = 1) -> Any:
    """Say what one of an item costs when split between people.

    Args:
        item: the menu item
        quantity: how many people share it
    """
    if not item.strip():  # guards the required parameter, never the optional one
        return ToolOutput(False, "Say which item.")
    return f"{item}: {3.20 / quantity:.2f} each"


_TICKET = ("latte", "croissant")


def right_remove_quantity(item: str, quantity: int = 1) -> str | ToolOutput:
    """Take an item off the customer's kitchen ticket.

    Args:
        item: the menu item to take off, as the ticket names it
        quantity: how many to take off (at least 1)
    """
    name = (item or "").strip().lower()
    if not name:
        return ToolOutput(False, "No item named: say which item to take off the ticket.")
    if quantity < 1:
        return ToolOutput(False, f"quantity must be at least 1, not {quantity}.")
    if name not in _TICKET:
        return ToolOutput(False, f"{item!r} is not on the ticket; read the ticket first.")
    return ToolOutput(True, f"took {quantity} x {name} off the ticket")


def right_split_cents(ways: int, total_cents: int) -> ToolOutput:
    """Split the bill evenly between the people at a table.

    Args:
        ways: how many people share the bill (1 or more)
        total_cents: the bill's total in cents
    """
    if ways <= 0:
        return ToolOutput(False, f"Cannot split a bill {ways} ways: ask how many are paying.")
    if total_cents <= 0:
        return ToolOutput(False, "The bill is empty: read the ticket for its total first.")
    share, rest = divmod(total_cents, ways)
    more = f", one pays {rest} cents more" if rest else ""
    return ToolOutput(True, f"{ways} shares of {share / 100:.2f}{more}")


BANKS = (
    Bank(
        "s01",
        check_repeat_guard,
        reference_guard,
        wrong=(
            Entry(
                "folded_arguments",
                folded_arguments,
                "a stray space or another case makes another argument",
                "look_up 'latte' after look_up 'latte ' -> stuck",
            ),
            Entry(
                "items_only",
                items_only,
                "every argument counts, not only the item",
                "latte after a large latte -> stuck",
            ),
            Entry(
                "first_only",
                first_only,
                "every call counts, not only the first",
                "latte+scone after latte+muffin -> Stop",
            ),
            Entry(
                "order_ignored",
                order_ignored,
                "the same calls in another order are not a repeat",
                "scone+latte after latte+scone -> Stop",
            ),
            Entry(
                "zip_pairs",
                zip_pairs,
                "a call more or less makes it a different turn",
                "latte+scone after latte -> Stop",
            ),
            Entry(
                "any_repeat",
                any_repeat,
                "one repeated call among new ones is progress",
                "latte+scone after latte -> Stop",
            ),
            Entry(
                "text_arguments",
                text_arguments,
                "arguments are a mapping: key order does not make a new call",
                "{size, item} after {item, size} -> None",
            ),
            Entry("names_only", names_only, "the arguments count", "scone after latte -> Stop"),
            Entry(
                "arguments_only",
                arguments_only,
                "the tool's name counts",
                "add_to_ticket latte after look_up latte -> Stop",
            ),
            Entry(
                "nudge_instead",
                nudge_instead,
                "a stuck run is stopped with a named reason, not nudged",
                "latte after latte -> Nudge",
            ),
            Entry(
                "this_turns_results",
                this_turns_results,
                "observers run before the turn's calls: the results seen are prev_dispatch",
                "latte after latte -> None",
            ),
            Entry(
                "empty_is_a_repeat",
                empty_is_a_repeat,
                "no calls is the model finishing, never a repeat",
                "no calls on turn 1 -> Stop",
            ),
            Entry(
                "other_reason",
                other_reason,
                "the guard stops with the reason it declares, stuck",
                "latte after latte -> Stop('repeat')",
            ),
            Entry(
                "visible_example",
                visible_example,
                "the rule, not the runaway model's one call",
                "latte+scone twice -> None",
            ),
            Entry(
                "repeat_guard",
                repeat_guard,
                "write your own: the course's guard is refused",
                "itself",
            ),
            # held-out reader J, 7 Dec 2026
            Entry(
                "only_after_success",
                only_after_success,
                "a repeat is the same calls whatever their results said",
                "look_up oat latte after it failed -> None",
            ),
            Entry(
                "no_reason",
                no_reason,
                "Stop('stuck', <a short reason>): the detail says why",
                "latte after latte -> Stop('stuck', '')",
            ),
        ),
        right=(
            Entry("right_loop", right_loop, "an explicit loop after a length check"),
            Entry("right_json", right_json, "each call as canonical JSON text"),
            Entry("right_zip_longest", right_zip_longest, "zip_longest with a sentinel (reader C)"),
            Entry("right_sorted_tuples", right_sorted_tuples, "sorted argument items (reader C)"),
        ),
        reference_module="cafe.exercises.reference_s01",
        targets=("repeats",),
        adapt=lambda ns: (
            lambda view: (
                Stop("stuck", "again") if ns["repeats"](view.calls, view.prev_dispatch) else None
            )
        ),
    ),
    Bank(
        "s01",
        check_own_tool,
        remove_from_ticket,
        wrong=(
            Entry("no_args_block", no_args_block, "the model reads only the schema", "no Args:"),
            Entry("no_docstring", no_docstring, "the description is the docstring", "none"),
            Entry(
                "raises_on_empty",
                raises_on_empty,
                "a tool answers in words, never by raising",
                "item='' -> ValueError",
            ),
            Entry(
                "echoes",
                echoes,
                "an answer the model can read",
                "item='' -> ToolOutput(False, '')",
            ),
            Entry(
                "divides_by_zero",
                divides_by_zero,
                "the smallest arguments include a zero",
                "ways=0 -> ZeroDivisionError",
            ),
            Entry(
                "claims_success_on_empty",
                claims_success_on_empty,
                "an empty item is a request the tool cannot carry out: say so, do not succeed",
                "item='' -> 'removed '",
            ),
            Entry(
                "empty_note_succeeds",
                empty_note_succeeds,
                "an empty text in any required parameter is a request the tool cannot carry out",
                "item='latte', note='' -> 'noted for latte: '",
            ),
            Entry(
                "empty_item_succeeds",
                empty_item_succeeds,
                "an empty text in any required parameter is a request the tool cannot carry out",
                "item='', table='window' -> 'moved  to window'",
            ),
            Entry(
                "crashes_on_a_real_item",
                crashes_on_a_real_item,
                "a model sends everyday words too, not only the smallest arguments",
                "guests='latte' -> ValueError",
            ),
            Entry(
                "side_effect_only",
                side_effect_only,
                "a tool answers something the model can read",
                "allergen='latte' -> None",
            ),
            # held-out reader BB: no parameters is no fault, but the docstring and the answer are
            Entry(
                "nothing_undocumented",
                nothing_undocumented,
                "a tool with no parameters still needs a docstring: the model reads it to choose",
                "no docstring",
            ),
            Entry(
                "nothing_said",
                nothing_said,
                "a tool with no parameters still answers in words",
                "() -> '  '",
            ),
            # held-out reader C, 7 Dec 2026
            Entry(
                "optional_divisor",
                optional_divisor,
                "a model may send an optional parameter too, at its smallest",
                "item='latte', quantity=0 -> ZeroDivisionError",
            ),
        ),
        right=(
            Entry("right_split_bill", right_split_bill, "a count parameter, zero refused"),
            Entry("right_ask_allergies", right_ask_allergies, "reads the menu, empty refused"),
            Entry(
                "right_remove_quantity", right_remove_quantity, "both parameters guarded (reader C)"
            ),
            Entry("right_split_cents", right_split_cents, "two required counts (reader C)"),
            # held-out reader BB: refused before as "it takes no parameters"
            Entry("right_call_staff", right_call_staff, "no parameters, a docstring (reader BB)"),
            Entry("right_ask_for_the_bill", right_ask_for_the_bill, "no parameters, a ToolOutput"),
            Entry("takes_nothing", takes_nothing, "no parameters: today's specials"),
        ),
    ),
)

_TEXT = "text: the wording of a sentence the tool or the guard returns; any sentence is right"
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_repeat_guard": {
        "repeats:5: return_none: `return False` -> `return None`": (
            "equivalent: the guard reads the answer as true or not; None and False both mean "
            "no stop"
        ),
    },
    "check_own_tool": {
        "remove_from_ticket:1: constant: `1` -> `2`": (
            "open: an optional parameter's default is the tool's own choice"
        ),
        "remove_from_ticket:10: constant: `True` -> `False`": (
            "open: whether an everyday request succeeds depends on the tool's world (removing a "
            "latte from a ticket without one is a fair failure); the check asks only for an answer "
            "in words"
        ),
        "remove_from_ticket:9: constant: `'Name the item to remove, e.g. latte.'` -> "
        "`'XXName the item to remove, e.g. latte.XX'`": _TEXT,
    },
}
