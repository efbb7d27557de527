"""Session 01's repeat guard, written apart from `cafe.loop.guards`, and the turns to try it on.

`check_repeat_guard` (`cafe.exercises.s01`) compares the learner's guard with `repeats` on
generated turns after its hand-picked cases; `tests/test_exercise_references.py` holds `repeats`
to the course's `repeat_guard`. This module imports nothing from `cafe` (only
`cafe.exercises.sNN` may): `ToolCall` and `ToolResult` are passed in to build the turns.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["repeats", "turns"]


def repeats(calls: Sequence[Any], seen: Sequence[Any]) -> bool:
    """Whether a turn asks for exactly the calls the last turn's results answered: the same tools
    with the same arguments, as many, in the same order (no calls is never a repeat)."""
    if not calls or len(calls) != len(seen):
        return False
    return all(
        c.name == r.name and dict(c.arguments) == dict(r.arguments) for c, r in zip(calls, seen)
    )


def turns(
    make_call: Callable[..., Any], make_result: Callable[..., Any], failing: bool = False
) -> Any:
    """(calls, results of the last turn): 0 to 4 of each, from two tools and items that differ
    only in case or a stray space, arguments in either key order; often the same calls again,
    or the same with one changed, dropped, doubled or swapped. Every result succeeded; with
    `failing`, a drawn few failed, for a repeat is the same calls whatever their results said (a
    model retrying an unknown item). The two are apart so that the first draws as it always has."""
    from hypothesis import strategies as st

    items = st.sampled_from(("latte", "latte ", "Latte", "scone", "latte"))
    one = st.tuples(
        st.sampled_from(("look_up", "add_to_ticket", "look_up")),
        items,
        st.sampled_from((None, "large", "small")),
        st.booleans(),
    )

    def arguments(item: str, size: str | None, size_first: bool) -> dict[str, Any]:
        if size is None:
            return {"item": item}
        return {"size": size, "item": item} if size_first else {"item": item, "size": size}

    def build(pairs: list[Any], extra: int, flip: bool, failed: Any = ()) -> tuple[Any, Any]:
        # each pair is one call and the result the last turn saw at its place (None: the same
        # call, its keys maybe in the other order); `extra` adds one call to either side
        asked = [call for call, _ in pairs]
        before = [seen or (*call[:3], call[3] != flip) for call, seen in pairs]
        if extra == 1:
            asked.append(("look_up", "scone", None, False))
        elif extra == 2:
            before.append(("look_up", "scone", None, False))
        calls = tuple(
            make_call(f"c{k}", n, arguments(i, s, f), json.dumps(arguments(i, s, f)))
            for k, (n, i, s, f) in enumerate(asked)
        )
        bad = [*failed, *[False] * len(before)]
        seen = tuple(
            make_result(
                f"r{k}", n, arguments(i, s, f), not bad[k], f"{i}: {'failed' if bad[k] else 'ok'}"
            )
            for k, (n, i, s, f) in enumerate(before)
        )
        return calls, seen

    pairs = st.lists(st.tuples(one, st.one_of(st.none(), st.none(), one)), max_size=4)
    drawn = (pairs, st.sampled_from((0, 0, 0, 1, 2)), st.booleans())
    if failing:  # drawn last, so a failed result shrinks on its own
        return st.builds(build, *drawn, st.lists(st.booleans(), min_size=1, max_size=5))
    return st.builds(build, *drawn)
