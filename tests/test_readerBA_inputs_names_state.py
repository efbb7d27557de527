"""Reader BA (8 Dec 2026): three wrong solutions that passed s00, s02 and s10, closed by principle.

- s00 `check_tool_arguments`: every input shape the exercise names is generated; a message that
  calls no tool has no arguments (`{}`), even when its words are JSON (of any shape).
- s02 `check_fixture_problems`: names are not identities; generated lists hold checks that share a
  name, and each broken check object needs a problem of its own naming it.
- s10 `check_first_fix`: a runner is a function of its inputs; the checker runs it on a second
  shift, in the same process, drafted by another model, so state kept between calls shows.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from typing import Any

from banks.bank_s02 import right_explicit
from banks.bank_s10 import stop_86d_first
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.evals.checks import Check
from cafe.exercises.reference_s00 import replies
from cafe.exercises.reference_s02 import JUDGES, call_sequences
from cafe.exercises.s00 import check_tool_arguments
from cafe.exercises.s02 import check_fixture_problems
from cafe.exercises.s10 import check_first_fix

SOME = settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))


# --- s00: words that are JSON -------------------------------------------------------------------


def _no_tool_words(drawn: Any) -> list[str]:
    return [reply for reply, _ in drawn if isinstance(reply, str)]


def test_generated_replies_hold_words_of_every_json_shape():
    """The oracle: what each word-reply parses to, here; every shape must be drawn."""
    seen: set[str] = set()

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(replies())
    def draw(given_reply: Any) -> None:
        reply, _ = given_reply
        if not isinstance(reply, str):
            return
        try:
            value = json.loads(reply)
        except ValueError:
            braces = re.search(r"\{.*\}", reply)
            seen.add("object in prose" if braces else "prose")
            return
        seen.add(type(value).__name__)

    draw()
    assert {"prose", "object in prose", "dict", "list", "str", "int", "NoneType"} <= seen, seen


def _reads_words(shape: str) -> Any:
    """A wrong tool_arguments: with no tool call, it returns what the words hold, for `shape`."""

    def fn(message: Any) -> Any:
        if message.tool_calls:
            return json.loads(message.tool_calls[0].function.arguments)
        text = message.content or ""
        if shape == "object in prose":
            found = re.search(r"\{.*\}", text)
            return json.loads(found.group()) if found else {}
        try:
            value = json.loads(text)
        except ValueError:
            return {}
        wanted = {"object": dict, "list": list, "string": str, "any": object}[shape]
        return value if isinstance(value, wanted) else {}

    return fn


@settings(max_examples=4, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(("object", "object in prose", "list", "any")))
def test_check_tool_arguments_refuses_reading_arguments_out_of_words(shape):
    """Reader BA's content_json is shape "object"; "object in prose" is one more of the kind."""
    problems = check_tool_arguments(_reads_words(shape))
    assert problems and "reply in words" in problems[-1], problems


# --- s02: checks that share a name ------------------------------------------------------------


def _sound(check: Check) -> bool:
    """The oracle, written here: a passing fixture answered None, a failing one answered text."""

    def said(fixture: Any) -> Any:
        try:
            return ("ok", check.judge(fixture))
        except Exception:
            return ("raised", None)

    if check.passes is None or check.fails is None:
        return False
    on_pass, on_fail = said(check.passes), said(check.fails)
    return (
        on_pass == ("ok", None)
        and on_fail[0] == "ok"
        and isinstance(on_fail[1], str)
        and bool(on_fail[1].strip())
    )


_CHECKS = st.lists(
    st.builds(
        lambda name, judge, passes, fails: Check(name, "Is it even?", judge, passes, fails),
        st.sampled_from(("c1", "c2")),
        st.sampled_from(JUDGES),
        st.sampled_from((2, 0, 3, None)),
        st.sampled_from((3, None)),
    ),
    max_size=4,
)


@SOME
@given(_CHECKS, st.data())
def test_accounted_counts_one_problem_per_broken_check_object(checks, data):
    from cafe.exercises.reference_s02 import accounted

    broken = [c for c in checks if not _sound(c)]
    want = Counter(c.name for c in broken)
    problems = [f"{c.name}: broken ({n})" for n, c in enumerate(broken)]
    extra = data.draw(st.lists(st.sampled_from(problems), max_size=2)) if problems else []
    assert Counter(accounted(problems + extra, checks)) == want  # more problems are fine
    if problems:
        dropped = data.draw(st.sampled_from(problems))
        short = [p for p in problems if p != dropped]
        name = dropped.split(":")[0]
        assert Counter(accounted(short, checks))[name] == want[name] - 1


def test_generated_check_lists_share_names_broken_beside_sound_and_broken_twice():
    pairs: set[str] = set()

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
    @given(call_sequences(Check))
    def draw(calls: Any) -> None:
        for checks in calls:
            for name in {c.name for c in checks}:
                same = [_sound(c) for c in checks if c.name == name]
                if len(same) > 1:
                    pairs.add("broken beside sound" if any(same) and not all(same) else "")
                    pairs.add("two broken" if same.count(False) > 1 else "")

    draw()
    assert {"broken beside sound", "two broken"} <= pairs


def _dedupe_by_name(checks: list[Check]) -> list[str]:
    return right_explicit(list({c.name: c for c in checks}.values()))


def _first_of_each_name(checks: list[Check]) -> list[str]:
    seen: set[str] = set()
    kept = [c for c in checks if not (c.name in seen or seen.add(c.name))]
    return right_explicit(kept)


def _set_of_problems(checks: list[Check]) -> list[str]:
    return sorted(set(right_explicit(checks)))


def test_check_fixture_problems_refuses_treating_a_name_as_one_check():
    """Reader BA's dedupe_by_name, and two more of the kind."""
    for wrong in (_dedupe_by_name, _first_of_each_name, _set_of_problems):
        problems = check_fixture_problems(wrong)
        assert problems and "share a name" in problems[-1], (wrong.__name__, problems)


# --- s10: a second shift ----------------------------------------------------------------------


def _kept_by(key: str) -> Any:
    """The course's fix with its results kept between calls, keyed by `key` of the order."""
    kept: dict[Any, Any] = {}

    def runner(spec: Any, generate: Any) -> Any:
        k = {"table": spec.table, "spec": spec, "request": spec.request}[key]
        if k not in kept:
            kept[k] = stop_86d_first(spec, generate)
        return kept[k]

    return runner


@settings(max_examples=3, deadline=None, suppress_health_check=list(HealthCheck))
@given(st.sampled_from(("table", "spec", "request")))
def test_check_first_fix_refuses_results_kept_between_calls(key):
    """Reader BA's cache_by_table is key "table"; by spec or by request, more of the kind."""
    problems = check_first_fix(_kept_by(key))
    assert problems and "the same orders again" in problems[0], problems


def test_the_second_model_passes_orders_the_practice_shift_does_not():
    """What makes kept state show: repair_ticket with the exact drafter passes orders that the
    practice generator's shift does not (the oracle: a pass is a run whose result passed)."""
    from cafe.exercises.reference_s10 import exact_drafter
    from cafe.repair.reask import repair_ticket
    from cafe.stories.practice_shift import practice_generator, practice_orders
    from cafe.taxonomy.sorting import run_shift

    orders = practice_orders()
    first = [run.passed for run in run_shift(orders, practice_generator(), runner=repair_ticket)]
    second = [run_shift([o], exact_drafter(o), runner=repair_ticket)[0].passed for o in orders]
    gained = [n for n, (a, b) in enumerate(zip(first, second)) if b and not a]
    assert len(gained) >= 3 and all(b for a, b in zip(first, second) if a)
