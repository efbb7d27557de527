"""The holes held-out reader C found in sessions 00-03's checkers (7 Dec 2026), each closed by the
rule the lesson states and tested here on generated inputs of the kind, not on the reader's input.

The reader's own solutions are in the banks (tests/banks/bank_s00.py .. bank_s03.py); the tests
below write other functions that break the same rule in another way, so a checker that learned
only the reader's cases would still fail here.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import HealthCheck, find, given, settings
from hypothesis.errors import NoSuchExample

from cafe.context import CLOSE_TAG, OPEN_TAG
from cafe.evals.checks import Check, fixture_problems
from cafe.exercises.reference_s00 import ADD_ITEM, REMOVE_ITEM, replies, requests
from cafe.exercises.reference_s02 import JUDGES, broken_checks, call_sequences
from cafe.exercises.reference_s03 import WORDS, fence_texts, fitted, section_sets
from cafe.exercises.s00 import (
    _delivered,
    check_responder,
    check_tool_arguments,
    reference_responder,
    reference_tool_arguments,
)
from cafe.exercises.s01 import check_own_tool
from cafe.exercises.s02 import check_fixture_problems
from cafe.exercises.s03 import _section, check_delimit, check_fit_sections
from cafe.loop.tools import ToolOutput

SEEDED = settings(
    max_examples=200,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def _found(strategy: Any, condition: Any) -> Any:
    """The first of the inputs a seeded search draws where `condition` holds (no shrinking:
    each test searches once, and keeps what it drew)."""
    key = id(strategy)
    if key not in _DRAWN:
        drawn: list[Any] = []
        try:
            find(strategy, lambda value: drawn.append(value) or False, settings=SEEDED)
        except NoSuchExample:
            pass
        _DRAWN[key] = (strategy, drawn)
    found = next((value for value in _DRAWN[key][1] if condition(value)), None)
    assert found is not None, "no drawn input holds the condition"
    return found


# strategy id -> (the strategy, held so its id is not reused; what a search drew from it)
_DRAWN: dict[int, tuple[Any, list[Any]]] = {}


# --- session 00: state across calls, tool_calls=[], every shape of the tools argument -----------


def test_generated_replies_come_from_new_clients_and_include_words_with_an_empty_list():
    """Every drawn reply's first call has the id a new client gives (so a cache by id is fed the
    same id twice), and a reply in words comes now with tool_calls None, now with []."""
    drawn = replies()
    with_calls = _found(drawn, lambda given: not isinstance(given[0], str))
    assert _delivered(*with_calls).tool_calls[0].id == "call_1_0"
    words = _found(drawn, lambda given: isinstance(given[0], str) and given[1])
    assert _delivered(*words).tool_calls == []
    assert reference_tool_arguments(_delivered(*words)) == {}


def test_check_tool_arguments_rejects_an_answer_that_depends_on_the_calls_before():
    """Any state carried from one call to the next shows: here, a function that tires."""
    calls = [0]

    def tires(message: Any) -> dict:
        calls[0] += 1
        return reference_tool_arguments(message) if calls[0] <= 6 else {}

    problems = check_tool_arguments(tires)
    assert len(problems) == 1 and "whatever messages came before" in problems[0], problems


def test_check_tool_arguments_rejects_a_guard_for_none_only_and_passes_a_truthiness_guard():
    def catches_none_only(message: Any) -> dict:  # None[0] is a TypeError, [][0] an IndexError
        try:
            first = message.tool_calls[0]
        except TypeError:
            return {}
        return json.loads(first.function.arguments)

    problems = check_tool_arguments(catches_none_only)
    assert len(problems) == 1 and "tool_calls []" in problems[0], problems
    assert check_tool_arguments(reference_tool_arguments) == []


def _shape(tools: Any) -> str:
    if tools == "absent" or tools is None or tools == []:
        return str(tools)
    return ",".join(t["function"]["name"] for t in tools)


def test_generated_requests_carry_the_tools_in_every_shape_the_lesson_names():
    shapes = ("absent", "None", "[]", "add_item", "remove_item,add_item", "add_item,remove_item")
    drawn = requests()
    for shape in shapes:
        _found(drawn, lambda request, shape=shape: _shape(request[1]) == shape)
    assert ADD_ITEM["function"]["name"] == "add_item" != REMOVE_ITEM["function"]["name"]


def test_check_responder_rejects_a_tool_picked_by_position_or_an_empty_list_taken_for_tools():
    def last_listed(request: dict) -> Any:
        reply = reference_responder(request)
        if isinstance(reply, dict):
            reply["tool_calls"][0]["name"] = request["tools"][-1]["function"]["name"]
        return reply

    def empty_list_offers(request: dict) -> Any:
        if request.get("tools") is None:
            return "You're welcome!"
        return reference_responder({**request, "tools": [ADD_ITEM]})

    for wrong in (last_listed, empty_list_offers):
        problems = check_responder(wrong)
        assert len(problems) == 1 and problems[0].startswith("on 'A"), problems
    assert check_responder(reference_responder) == []


# --- session 01: optional parameters sent at their smallest -----------------------------------


def test_check_own_tool_sends_optional_parameters_at_their_smallest_and_left_out():
    def first_letter(item: str, note: str = "none") -> Any:
        """Put an item on the ticket with a note.

        Args:
            item: the menu item
            note: what the kitchen should know
        """
        if not item.strip():
            return ToolOutput(False, "Say which item.")
        return f"{item} ({note[0]})"  # an empty note is a string the schema allows

    def strict_flag(item: str, iced: bool = True) -> Any:
        """Put an item on the ticket.

        Args:
            item: the menu item
            iced: whether it comes iced
        """
        if not item.strip():
            return ToolOutput(False, "Say which item.")
        if not iced:
            raise ValueError("hot drinks are not on this tool")
        return f"{item}, iced"

    def guarded(item: str, note: str = "none", iced: bool = True, shots: int = 1) -> Any:
        """Put an item on the ticket.

        Args:
            item: the menu item
            note: what the kitchen should know
            iced: whether it comes iced
            shots: how many shots
        """
        if not item.strip():
            return ToolOutput(False, "Say which item.")
        if shots < 1:
            return ToolOutput(False, "At least one shot.")
        return f"{item}, {shots} shot(s), {'iced' if iced else 'hot'}, note: {note or '-'}"

    for wrong in (first_letter, strict_flag):
        problems = check_own_tool(wrong)
        assert len(problems) == 1 and "arguments a model may send" in problems[0], problems
    assert check_own_tool(guarded) == []


# --- session 02: every missing-fixture shape, and no state across calls --------------------------


@SEEDED
@given(call_sequences(Check))
def test_reference_s02_broken_checks_agrees_with_fixture_problems(calls):
    """The reference names exactly the checks the course's fixture_problems names (the generated
    judges never answer an empty text on a failing fixture, where the two readings part)."""
    for checks in calls:
        named = {p.split(":")[0] for p in fixture_problems(checks)}
        assert set(broken_checks(checks)) == named


def test_generated_check_lists_hold_every_missing_fixture_shape_and_reuse_names():
    drawn = call_sequences(Check)
    for judge in JUDGES:
        for role in ("passes", "fails"):
            _found(
                drawn,
                lambda calls, judge=judge, role=role: any(
                    c.judge is judge and getattr(c, role) is None for cs in calls for c in cs
                ),
            )
    _found(drawn, lambda calls: len(calls) > 1 and calls[0] and calls[1])


def _right(checks: list[Check]) -> list[str]:
    return [f"{name}: broken" for name in broken_checks(checks)]


def test_check_fixture_problems_rejects_a_missing_fixture_judged_instead_of_named():
    """A missing passing fixture is named, but a missing failing one goes to the judge, and a
    judge that fails None looks as if it caught something: the cases' judges crash on None."""

    def judges_a_missing_failing_fixture(checks: list[Check]) -> list[str]:
        problems = []
        for check in checks:
            if check.passes is None:
                problems.append(f"{check.name}: no passing fixture")
                continue
            for fixture, must_fail in ((check.passes, False), (check.fails, True)):
                try:
                    said = check.judge(fixture)
                except Exception:
                    problems.append(f"{check.name}: the judge crashed")
                    break
                sound = isinstance(said, str) and said.strip() if must_fail else said is None
                if not sound:
                    problems.append(f"{check.name}: broken")
                    break
        return problems

    problems = check_fixture_problems(judges_a_missing_failing_fixture)
    assert len(problems) == 1 and "fails=None" in problems[0], problems
    assert check_fixture_problems(_right) == []


def test_check_fixture_problems_rejects_an_answer_that_depends_on_the_call_before():
    seen: set[str] = set()

    def remembers_broken_names(checks: list[Check]) -> list[str]:
        names = {c.name for c in checks}
        seen.update(broken_checks(checks))
        return [f"{name}: broken" for name in sorted(seen & names)]

    problems = check_fixture_problems(remembers_broken_names)
    assert problems and "whatever earlier calls found" in problems[-1], problems


# --- session 03: sections that share a name, the caller's list, every word kept ----------------


def test_generated_section_sets_share_names_with_distinct_priorities():
    shared = _found(
        section_sets(_section), lambda given: len({s.name for s in given[0]}) < len(given[0])
    )
    assert len({s.priority for s in shared[0]}) == len(shared[0])


def test_check_fit_sections_rejects_dropping_by_name_or_changing_the_callers_list():
    def names_matched(sections: Any, budget: int) -> Any:
        kept = {s.name for s in fitted(sections, budget)}
        return tuple(s for s in sections if s.name in kept)  # a same-named dropped one comes back

    def sorts_in_place(sections: Any, budget: int) -> Any:
        kept = fitted(sections, budget)
        if isinstance(sections, list):
            sections.sort(key=lambda s: s.priority)
        return kept

    for wrong in (names_matched, sorts_in_place):
        problems = check_fit_sections(wrong)
        assert len(problems) == 1 and problems[0].startswith("on budget "), problems
    assert check_fit_sections(fitted) == []


def test_generated_fence_texts_hold_the_tags_and_words_between_bare_brackets():
    text, words = _found(
        fence_texts(OPEN_TAG, CLOSE_TAG),
        lambda given: re.search(r"<<[^<>]*[a-z][^<>]*>>", given[0]) and given[1],
    )
    assert all(word.casefold() in text.casefold() for word in words)
    assert all(word in WORDS for word in (w.casefold() for w in words))


def test_check_delimit_rejects_a_fence_that_loses_a_word_and_passes_any_escape():
    def drops_a_word_after_brackets(text: str) -> str:  # "<<no nuts>>" loses "no"
        cleaned = re.sub(r"<<\s*(?!/|customer_)\w+", "<<", text, flags=re.IGNORECASE)
        while "<<" in cleaned or ">>" in cleaned:
            cleaned = cleaned.replace("<<", "< <").replace(">>", "> >")
        return f"{OPEN_TAG}{cleaned}{CLOSE_TAG}"

    def angle_quotes(text: str) -> str:
        return f"{OPEN_TAG}{text.replace('<', '‹').replace('>', '›')}{CLOSE_TAG}"

    problems = check_delimit(drops_a_word_after_brackets)
    assert problems and "every word they typed" in problems[-1], problems
    assert check_delimit(angle_quotes) == []
