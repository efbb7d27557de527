"""Session 00's generated inputs: replies as a client delivers them, and requests in every shape.

`check_tool_arguments` and `check_responder` (`cafe.exercises.s00`) compare the learner's function
with the checker's reference on these after their hand-picked cases. The references themselves
(`reference_tool_arguments`, `reference_responder`) live in the checker's module. This module
imports nothing from `cafe` (only `cafe.exercises.sNN` may).
"""

from __future__ import annotations

from typing import Any

__all__ = ["ADD_ITEM", "REMOVE_ITEM", "ITEMS", "replies", "requests"]

# The tool every order request offers: put a menu item on the order.
ADD_ITEM: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "add_item",
        "description": "Put one menu item on the customer's order.",
        "parameters": {
            "type": "object",
            "properties": {"item": {"type": "string"}},
            "required": ["item"],
        },
    },
}
# The notebook's second tool (section 3b): the same argument, the opposite effect.
REMOVE_ITEM: dict[str, Any] = {
    "type": "function",
    "function": {
        "name": "remove_item",
        "description": "Take one menu item off the customer's order.",
        "parameters": ADD_ITEM["function"]["parameters"],
    },
}

# Items a customer orders: one and two words, on the menu and off it, none of them holding a
# shorter menu item that is not the whole order ("oat latte" is on the menu, as is "latte").
ITEMS = (
    "latte",
    "oat latte",
    "croissant",
    "flat white",
    "americano",
    "espresso",
    "banana bread",
    "hot chocolate",
    "cinnamon bun",
)


def replies() -> Any:
    """(a scripted reply, whether a reply in words comes with `tool_calls=[]`): words (prose, or
    JSON text of every shape: an object, one in prose, a list, a string, a number, null), or one to
    three calls of two tools whose arguments hold text with stray spaces, capitals, commas and
    quotes, numbers, JSON's true, false and null, lists, or nothing at all, words beside them or not.
    Every reply goes through a fresh client, so every first call has the same id (`call_1_0`)."""
    from hypothesis import strategies as st

    text = st.sampled_from(
        ("latte", " latte ", "Flat White", "oat, no foam", 'a "large" one', "", "café crème")
    )
    value = st.one_of(
        text,
        st.integers(-2, 12),
        st.sampled_from((True, False, None, 0.5)),
        st.lists(text, max_size=2),
    )
    keys = st.sampled_from(("item", "size", "shots", "iced", "note", "milk"))
    one_call = st.fixed_dictionaries(
        {
            "name": st.sampled_from(("add_item", "remove_item")),
            "arguments": st.dictionaries(keys, value, max_size=4),
        }
    )
    calls = st.fixed_dictionaries(
        {
            "content": st.sampled_from((None, "Adding that now.")),
            "tool_calls": st.lists(one_call, min_size=1, max_size=3),
        }
    )
    # Words are any text a model may say, JSON among it: an object, one inside prose, a list, a
    # string, a number, null. A message that calls no tool has no arguments, whatever it says.
    words = st.sampled_from(
        (
            "We are out of oat milk today.",
            "Anything else?",
            '{"item": "latte", "size": "large"}',
            'Sure: {"item": "scone"}',
            '["latte", "scone"]',
            '"latte"',
            "null",
            "2",
        )
    )
    return st.tuples(st.one_of(words, calls), st.booleans())


def requests() -> Any:
    """(what the customer said, in order; the tools offered): one to three orders in the one shape
    the notebook states, "A croissant, please." ("An" before a vowel; no opening it never names,
    such as "One"), of one- and two-word items, and the tools in every shape a request can carry
    them: no `tools` at all, None, an empty list (no tool on offer), add_item alone, or add_item
    beside remove_item, either first."""
    from hypothesis import strategies as st

    def order(item: str) -> str:
        return f"{'An' if item[0] in 'aeiou' else 'A'} {item}, please."

    said = st.lists(
        st.builds(order, st.sampled_from(ITEMS)),
        min_size=1,
        max_size=3,
    ).map(tuple)
    tools = st.sampled_from(
        ("absent", None, [], [ADD_ITEM], [REMOVE_ITEM, ADD_ITEM], [ADD_ITEM, REMOVE_ITEM])
    )
    return st.tuples(said, tools)
