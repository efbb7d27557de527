"""Session 00's banks: `check_tool_arguments` and `check_responder` (cafe/exercises/s00.py).

The exercise ideas: a tool call's arguments arrive as a JSON string on the first call of a message
whose `tool_calls` is None when the model answered in words; and a responder (a scripted model's
rule) reads the customer's last message, puts the item it names on the order with `add_item`, and
answers in words when the request offers no tool.
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from banks.harness import Bank, Entry
from cafe.exercises.s00 import (
    check_responder,
    check_tool_arguments,
    reference_responder,
    reference_tool_arguments,
)
from cafe.world.menu import load_menu

# --- tool_arguments: wrong ----------------------------------------------------------------------


def hardcoded(message: Any) -> dict:
    """The visible example's dict, returned whenever there is a call."""
    return {"item": "latte", "size": "large"} if message.tool_calls else {}


def last_call(message: Any) -> dict:
    """tool_calls[-1]: the last call instead of the first."""
    return json.loads(message.tool_calls[-1].function.arguments) if message.tool_calls else {}


def merged_calls(message: Any) -> dict:
    """Every call's arguments merged into one dict."""
    merged: dict = {}
    for call in message.tool_calls or []:
        merged.update(json.loads(call.function.arguments))
    return merged


def python_eval(message: Any) -> dict:
    """ "It looks like a dict": ast.literal_eval instead of json.loads (true/null are not Python)."""
    if not message.tool_calls:
        return {}
    return ast.literal_eval(message.tool_calls[0].function.arguments)


def content_means_text(message: Any) -> dict:
    """A reply with words is taken for a reply without a call."""
    if message.content:
        return {}
    return json.loads(message.tool_calls[0].function.arguments)


def raw_string(message: Any) -> Any:
    """The JSON text handed back as it came, not parsed."""
    return message.tool_calls[0].function.arguments if message.tool_calls else {}


def only_item(message: Any) -> dict:
    """Only the `item` argument kept; the rest of the order dropped."""
    if not message.tool_calls:
        return {}
    return {"item": json.loads(message.tool_calls[0].function.arguments)["item"]}


def none_for_text(message: Any) -> Any:
    """None, not an empty dict, for a reply in words."""
    return json.loads(message.tool_calls[0].function.arguments) if message.tool_calls else None


def len_of_none(message: Any) -> dict:
    """len(tool_calls): tool_calls is None, not [], when the model answered in words."""
    if len(message.tool_calls) == 0:
        return {}
    return json.loads(message.tool_calls[0].function.arguments)


def strings_only(message: Any) -> dict:
    """Keeps the arguments that are text, as if every argument were a string."""
    if not message.tool_calls:
        return {}
    found = json.loads(message.tool_calls[0].function.arguments)
    return {key: value for key, value in found.items() if isinstance(value, str)}


# --- tool_arguments: right ----------------------------------------------------------------------


def right_getattr(message: Any) -> dict:
    """Loops over the calls and returns on the first; getattr for a message with no field."""
    for call in getattr(message, "tool_calls", None) or []:
        return dict(json.loads(call.function.arguments))
    return {}


def right_model_dump(message: Any) -> dict:
    """Through the SDK's model_dump(): plain dicts and lists, decoded with a JSONDecoder."""
    calls = message.model_dump().get("tool_calls") or []
    return json.JSONDecoder().decode(calls[0]["function"]["arguments"]) if calls else {}


# --- held-out reader C, 7 Dec 2026: written from the lesson alone, without the checkers ----------

_ARGUMENTS_SEEN: dict[str, dict] = {}


def cached_by_call_id(message: Any) -> dict:
    """Keeps each call's arguments by its id, but every new client's first call is call_1_0."""
    if not message.tool_calls:
        return {}
    call = message.tool_calls[0]
    if call.id not in _ARGUMENTS_SEEN:
        _ARGUMENTS_SEEN[call.id] = json.loads(call.function.arguments)
    return _ARGUMENTS_SEEN[call.id]


def none_only(message: Any) -> dict:
    """Guards `tool_calls is None` only: a reply in words with tool_calls=[] (vLLM) raises."""
    if message.tool_calls is None:
        return {}
    return json.loads(message.tool_calls[0].function.arguments)


def right_decoder(message: Any) -> dict:
    """Reads the calls through getattr and decodes with a JSONDecoder, insisting on an object."""
    calls = list(getattr(message, "tool_calls", None) or [])
    if not calls:
        return {}
    return dict(json.JSONDecoder().decode(calls[0].function.arguments or "{}"))


def right_next_iter(message: Any) -> dict:
    """next() over the calls with a default; a plain dict message is read too."""
    calls = message.get("tool_calls") if isinstance(message, dict) else message.tool_calls
    first = next(iter(calls or ()), None)
    if first is None:
        return {}
    function = first["function"] if isinstance(first, dict) else first.function
    raw = function["arguments"] if isinstance(function, dict) else function.arguments
    return json.loads(raw) if isinstance(raw, str) else dict(raw)


# --- held-out reader BA, 8 Dec 2026: a message that calls no tool, whose text is JSON ---------


def content_json(message: Any) -> dict:
    """Reader BA's: with no tool call, the JSON object parsed from the message's text."""
    calls = message.tool_calls or []
    if not calls:
        try:
            found = json.loads(message.content or "")
        except ValueError:
            return {}
        return found if isinstance(found, dict) else {}
    return json.loads(calls[0].function.arguments)


def braces_in_words(message: Any) -> dict:
    """With no tool call, the first {...} found in the words ("Sure: {...}") read as arguments."""
    if message.tool_calls:
        return json.loads(message.tool_calls[0].function.arguments)
    found = re.search(r"\{.*\}", message.content or "")
    return json.loads(found.group()) if found else {}


# --- responder: wrong ---------------------------------------------------------------------------


def _call(item: str) -> dict:
    return {"tool_calls": [{"name": "add_item", "arguments": {"item": item}}]}


def _said(request: dict, index: int = -1) -> str:
    text: str = request["messages"][index]["content"]
    return text.casefold().rstrip(".!?").removesuffix(", please")


def three_known(request: dict) -> Any:
    """The notebook's three items hard-coded."""
    if not request.get("tools"):
        return "You're welcome!"
    said = _said(request)
    return _call(next((i for i in ("flat white", "croissant", "latte") if i in said), "latte"))


def first_user_message(request: dict) -> Any:
    """messages[1]: the last message only in a two-message chat."""
    if not request.get("tools"):
        return "You're welcome!"
    return _call(_said(request, 1).split(" ", 1)[1])


def only_a(request: dict) -> Any:
    """ "A " is the only article it strips."""
    if not request.get("tools"):
        return "You're welcome!"
    return _call(_said(request).removeprefix("a "))


def last_word(request: dict) -> Any:
    """The last word before the comma is the item."""
    if not request.get("tools"):
        return "You're welcome!"
    return _call(_said(request).split()[-1])


def always_tool(request: dict) -> Any:
    """Calls add_item whether a tool is offered or not."""
    return _call(_said(request).split(" ", 1)[-1])


def words_for_thanks(request: dict) -> Any:
    """Answers in words only when the customer does not order: it reads the words, not the tools."""
    said = _said(request)
    if "please" not in request["messages"][-1]["content"]:
        return "You're welcome!"
    return _call(said.split(" ", 1)[1])


def wrong_key(request: dict) -> Any:
    """The right item under an argument named `name`."""
    if not request.get("tools"):
        return "You're welcome!"
    item = _said(request).split(" ", 1)[1]
    return {"tool_calls": [{"name": "add_item", "arguments": {"name": item}}]}


def second_word(request: dict) -> Any:
    """The word after the article: one-word items only."""
    if not request.get("tools"):
        return "You're welcome!"
    return _call(request["messages"][-1]["content"].split()[1].strip(",.").lower())


def bare_arguments(request: dict) -> Any:
    """Returns the arguments themselves, not a reply holding a tool call."""
    if not request.get("tools"):
        return "You're welcome!"
    return {"item": _said(request).split(" ", 1)[1]}


def keeps_punctuation(request: dict) -> Any:
    """Drops the article and "please", keeps the comma."""
    if not request.get("tools"):
        return "You're welcome!"
    text = request["messages"][-1]["content"].lower()
    return _call(text.split(" ", 1)[1].removesuffix(" please."))


# --- responder: right ---------------------------------------------------------------------------

_MENU = sorted(load_menu().items, key=len, reverse=True)
_WORDS = re.compile(r"[a-z]+(?: [a-z]+)*")


def right_menu_lookup(request: dict) -> Any:
    """The longest menu name found in the words; any item the menu knows."""
    if not request.get("tools"):
        return "Glad to help."
    said = request["messages"][-1]["content"].lower()
    found = next((item for item in _MENU if item in said), None)
    if found is None:  # not on the menu: take the words between the article and "please"
        words = _WORDS.findall(said.replace("please", ""))
        found = " ".join(words[0].split()[1:]) if words else ""
    return _call(found)


def right_token_walk(request: dict) -> Any:
    """Word by word: drop the leading article and the trailing please."""
    if "tools" not in request or not request["tools"]:
        return {"content": "You're welcome!"}
    words = [w.strip(",.!?").lower() for w in request["messages"][-1]["content"].split()]
    words = [w for w in words if w and w != "please"]
    if words and words[0] in {"a", "an", "one"}:
        words = words[1:]
    return {
        "content": None,
        "tool_calls": [{"name": "add_item", "arguments": {"item": " ".join(words)}}],
    }


# --- held-out reader C, 7 Dec 2026 (responder) --------------------------------------------------


def first_tool_listed(request: dict) -> Any:
    """Calls whichever tool the request lists first: remove_item when it comes before add_item."""
    tools = request.get("tools") or []
    if not tools:
        return "You're welcome!"
    item = _said(request).split(" ", 1)[1]
    return {"tool_calls": [{"name": tools[0]["function"]["name"], "arguments": {"item": item}}]}


def tools_key_only(request: dict) -> Any:
    """Words only when `tools` is absent or None: an empty list is taken for tools on offer."""
    if request.get("tools") is None:
        return "You're welcome!"
    return _call(_said(request).split(" ", 1)[1])


_ORDERED = re.compile(
    r"(?:\b(?:a|an|one|some)\s+)?([a-zà-ÿ][a-zà-ÿ' -]*?)\s*(?:,\s*)?(?:please)?\s*[.!?]*\s*$", re.I
)


def right_regex(request: dict) -> Any:
    """One regex over the last message, the article optional, the words kept in order."""
    if not request.get("tools"):
        return "I can only take orders when I can write on the ticket."
    said = (request["messages"][-1].get("content") or "").strip()
    found = _ORDERED.search(said)
    item = (found.group(1) if found else said).strip().lower()
    item = re.sub(r"^(could|can|may) i (get|have)\s+(a |an )?", "", item)
    return _call(re.sub(r"^(a|an|one|some)\s+", "", item))


_STOP_WORDS = {"a", "an", "one", "some", "please", "could", "can", "may", "i", "get", "have", "the"}


def right_stopwords(request: dict) -> Any:
    """Drops stop words; calls add_item by name among the tools offered."""
    tools = request.get("tools") or []
    if not tools:
        return "Sorry, there is no way for me to take the order here."
    names = [t.get("function", {}).get("name") for t in tools]
    name = "add_item" if "add_item" in names else names[0]
    words = re.findall(r"[\w'-]+", (request["messages"][-1].get("content") or "").lower())
    item = " ".join(w for w in words if w not in _STOP_WORDS)
    return {"tool_calls": [{"name": name, "arguments": {"item": item}}]}


# --- held-out reader J, 7 Dec 2026 (responder) --------------------------------------------------


_LEADS = ("could i get", "can i get", "can i have", "could i have", "i'd like", "i'll have")


def right_rewrites_in_place(request: dict) -> Any:
    """Normalises the request it is handed in place (`setdefault`, the last message's content
    lower-cased). Session 00 never says a request is read-only; session 01 teaches "the caller's
    messages are the caller's", so an s00 learner is not held to it (decided, reader J)."""
    tools = request.setdefault("tools", [])
    if not tools:
        return "Sorry."
    last = request["messages"][-1]
    last["content"] = last["content"].strip().lower()
    said = re.sub(r"[.!?]+$", "", last["content"]).strip()
    said = re.sub(r",?\s*please\b", "", said).strip(" ,")
    lead = next((lead for lead in _LEADS if said.startswith(lead)), "")
    said = said[len(lead) :].strip()
    return _call(re.sub(r"^(a|an|one|the|some)\s+", "", said).strip(" ,.!?"))


# --- held-out reader R, 7 Dec 2026 (responder) --------------------------------------------------

_ARTICLE_ITEM = re.compile(r"\b(?:an?|the|some)\s+(.+?)(?:,|\s+please|[.?!]|$)", re.I)


def right_no_one(request: dict) -> Any:
    """Reads the item after "a", "an", "the" or "some", never "One": the notebook states only
    "A croissant, please.", so an order opening with "One" is not asked for (reader R)."""
    if not request.get("tools"):
        return "Sorry, I can only help with orders."
    said = request["messages"][-1]["content"]
    found = _ARTICLE_ITEM.search(said)
    item = (found.group(1) if found else said).strip().lower()
    return {"tool_calls": [{"name": "add_item", "arguments": {"item": item}}]}


# --- the banks ----------------------------------------------------------------------------------

BANKS = (
    Bank(
        "s00",
        check_tool_arguments,
        reference_tool_arguments,
        wrong=(
            Entry("hardcoded", hardcoded, "the visible example hard-coded", "a flat white call"),
            Entry("last_call", last_call, "the first call, not the last", "two calls"),
            Entry("merged_calls", merged_calls, "one call's arguments, not all", "two calls"),
            Entry("python_eval", python_eval, "the arguments are JSON, not Python", "iced: true"),
            Entry(
                "content_means_text",
                content_means_text,
                "words beside a call do not hide the call",
                "'Adding a mocha' + add_item",
            ),
            Entry("raw_string", raw_string, "parse the JSON string into a dict", "one call"),
            Entry("only_item", only_item, "every argument, not only item", "size dropped"),
            Entry("none_for_text", none_for_text, "{} for a reply in words", "plain text"),
            Entry("len_of_none", len_of_none, "tool_calls is None for words", "TypeError"),
            Entry("strings_only", strings_only, "arguments may be numbers, bools, null", "shots"),
            # held-out reader C, 7 Dec 2026
            Entry(
                "cached_by_call_id",
                cached_by_call_id,
                "the same message gives the same dict, whatever came before",
                "a new client's add_item {} (id call_1_0) -> the first case's {'item': 'latte', ...}",
            ),
            Entry(
                "none_only", none_only, "tool_calls=[] calls no tool too", "words, [] -> IndexError"
            ),
            # held-out reader BA, 8 Dec 2026: every shape of a reply in words, JSON text too
            Entry(
                "content_json",
                content_json,
                "a message that calls no tool has no arguments, whatever its text says",
                """words '{"item": "latte", "size": "large"}' -> that dict, not {}""",
            ),
            Entry(
                "braces_in_words",
                braces_in_words,
                "a message that calls no tool has no arguments, whatever its text says",
                """words 'Sure: {"item": "scone"}' -> {'item': 'scone'}, not {}""",
            ),
        ),
        right=(
            Entry("right_getattr", right_getattr, "a loop that returns on the first call"),
            Entry("right_model_dump", right_model_dump, "through model_dump() and a JSONDecoder"),
            Entry("right_decoder", right_decoder, "getattr and a JSONDecoder (reader C)"),
            Entry("right_next_iter", right_next_iter, "next() with a default (reader C)"),
        ),
    ),
    Bank(
        "s00",
        check_responder,
        reference_responder,
        wrong=(
            Entry("three_known", three_known, "read the order, not a list", "'An americano'"),
            Entry(
                "first_user_message",
                first_user_message,
                "the last message is the customer's latest order",
                "latte, then a cinnamon bun",
            ),
            Entry("only_a", only_a, "'An' is 'A' before a vowel", "'n americano'"),
            Entry("last_word", last_word, "items of two words", "'flat white' -> 'white'"),
            Entry("always_tool", always_tool, "no tools offered: words", "'Thank you!'"),
            Entry(
                "words_for_thanks",
                words_for_thanks,
                "whether a tool is offered decides, not what was said",
                "'A latte, please.' with no tools",
            ),
            Entry("wrong_key", wrong_key, "the schema's argument is item", "{'name': ...}"),
            Entry("second_word", second_word, "items of two words", "'flat white' -> 'flat'"),
            Entry(
                "bare_arguments",
                bare_arguments,
                "a reply holds tool_calls, not the arguments alone",
                "{'item': 'latte'} -> ValueError in the scripted model",
            ),
            Entry(
                "keeps_punctuation",
                keeps_punctuation,
                "the item without the sentence's punctuation",
                "'latte,'",
            ),
            # held-out reader C, 7 Dec 2026
            Entry(
                "first_tool_listed",
                first_tool_listed,
                "the item goes on the order with add_item, wherever the tools list it",
                "tools [remove_item, add_item] -> remove_item 'latte'",
            ),
            Entry(
                "tools_key_only",
                tools_key_only,
                "an empty tools list offers no tool: words",
                "tools=[] -> add_item 'latte'",
            ),
        ),
        right=(
            Entry("right_menu_lookup", right_menu_lookup, "the longest menu name in the words"),
            Entry("right_token_walk", right_token_walk, "word by word, replies as full dicts"),
            Entry("right_regex", right_regex, "one regex over the last message (reader C)"),
            Entry(
                "right_stopwords",
                right_stopwords,
                "stop words dropped, add_item by name (reader C)",
            ),
            Entry(
                "right_rewrites_in_place",
                right_rewrites_in_place,
                "rewrites the request in place: s00 does not yet teach read-only (reader J)",
            ),
            Entry("right_no_one", right_no_one, "'One' is never stated, never asked (reader R)"),
        ),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}.
_OUTSIDE = (
    "outside: the exercise sends only orders that name an item; what a responder says to words "
    "it cannot read is the learner's choice"
)
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_responder": {
        'reference_responder:4: constant: `"You\'re welcome!"` -> `"XXYou\'re welcome!XX"`': (
            "text: any words answer a request that offers no tool"
        ),
        "reference_responder:8: return_none: `return 'Sorry, what would you like?'` -> `return None`": _OUTSIDE,
        "reference_responder:8: constant: `'Sorry, what would you like?'` -> `'XXSorry, what would you like?XX'`": _OUTSIDE,
    },
}
