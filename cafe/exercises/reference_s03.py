"""Session 03's never-drop rule, written apart from `cafe.context.fit_sections`, and the section
sets to try it on.

`check_fit_sections` (`cafe.exercises.s03`) compares the learner's `fit_sections` with `fitted`
on generated sets after its hand-picked cases; `tests/test_exercise_references.py` holds `fitted`
to the library on the same sets. This module imports nothing from `cafe` (only
`cafe.exercises.sNN` may): `Section` is passed in to build the sets.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["fitted", "safety_minimum", "section_sets", "WORDS", "fence_texts", "nested_tags"]


def safety_minimum(sections: Sequence[Any]) -> int:
    """The tokens of the safety sections together: no budget below it can be met."""
    return sum(s.tokens for s in sections if s.required)


def fitted(sections: Sequence[Any], budget: int) -> tuple[Any, ...]:
    """The sections kept in `budget`: optional ones leave lowest priority first until the rest
    fit, safety ones never; ValueError naming the safety minimum when even they do not fit."""
    floor = safety_minimum(sections)
    if budget < floor:
        raise ValueError(f"the safety sections need {floor} tokens; {budget} is not enough")
    dropped: set[int] = set()
    by_priority = sorted(
        (n for n, s in enumerate(sections) if not s.required), key=lambda n: sections[n].priority
    )
    for n in by_priority:
        if sum(s.tokens for i, s in enumerate(sections) if i not in dropped) <= budget:
            break
        dropped.add(n)
    return tuple(s for i, s in enumerate(sections) if i not in dropped)


def section_sets(make_section: Callable[[str, int, int, bool], Any]) -> Any:
    """(sections, budget): 1 to 6 sections, distinct priorities, 1 to 30 tokens each, safety ones
    anywhere, their names often shared (nothing says a name is unique: "note" twice, say);
    budgets at, one either side of, and far below the safety minimum, at each point where one
    more drop makes the rest fit, and above the whole."""
    from hypothesis import strategies as st

    names = ("rules", "prices", "story", "allergens", "weather", "menu", "specials", "jokes")

    def build(rows: list[tuple[int, int, bool, int]], pick: int, shift: int) -> Any:
        sections = tuple(
            make_section(("note", "extra", "note", names[n])[shared], tokens, priority, required)
            for n, (tokens, priority, required, shared) in enumerate(rows)
        )
        floor, whole = safety_minimum(sections), sum(s.tokens for s in sections)
        marks = [floor, whole, floor // 2, 0]
        running = whole
        for s in sorted((s for s in sections if not s.required), key=lambda s: s.priority):
            running -= s.tokens
            marks.append(running)
        return sections, max(0, marks[pick % len(marks)] + shift)

    # the last number names the section: "note" or "extra" (shared) three times in four
    row = st.tuples(st.integers(1, 30), st.integers(1, 100), st.booleans(), st.integers(0, 3))
    rows = st.lists(row, min_size=1, max_size=6, unique_by=lambda r: r[1])
    return st.builds(build, rows, st.integers(0, 9), st.integers(-1, 1))


# Words a customer types: none holds another, nor a piece of the tags, so each found is its own.
WORDS = ("latte", "nuts", "allergic", "please", "table", "five", "system", "oat", "milk", "ticket")


# The fence's rule is about what comes out: between the fence's own tags no tag, in any letter
# case, whatever came in. Deleting a piece of a tag once (its name, its brackets, the whole tag)
# is no rule: a copy of the piece nested into the tag is what the deletion takes, and the tag
# closes up behind it ('<</customer_customer_wordswords>>' less 'customer_words').


def _nest(tag: str, filler: str, at: Sequence[int] | None) -> str:
    """`tag` with `filler` (a piece of a tag) put in at each of the places `at` (None: between
    every two of its characters): a name split by a copy of itself, brackets split by the name
    ('<customer_words<'), so deleting the filler once, alone or with other pieces, leaves the
    tag."""
    cuts = range(1, len(tag)) if at is None else sorted({n % (len(tag) + 1) for n in at})
    edges = [0, *cuts, len(tag)]
    return filler.join(tag[a:b] for a, b in zip(edges, edges[1:]))


@functools.lru_cache(maxsize=4)
def nested_tags(open_tag: str, close_tag: str) -> tuple[str, ...]:
    """For every piece of either tag (two characters or more), the tag with that piece nested
    into it where deleting the piece once, in any letter case, leaves the tag, if there is such
    a place ('<</customer_customer_wordswords>>'): a fence that deletes any one piece once
    fails on one of them."""
    tags, texts = (open_tag.casefold(), close_tag.casefold()), []
    for tag in tags:
        pieces = {tag[a:b] for a in range(len(tag)) for b in range(a + 2, len(tag) + 1)}
        for piece in sorted(pieces, key=lambda p: (-len(p), p)):
            for at in range(len(tag) + 1):
                text = tag[:at] + piece + tag[at:]
                if any(t in re.sub(re.escape(piece), "", text, flags=re.I) for t in tags):
                    texts.append(text)
                    break
    return tuple(texts)


def _nested_tags(open_tag: str, close_tag: str) -> Any:
    """Either tag in any case with a filler put in (`_nest`): the name, '<<', '>>', a whole tag,
    or any piece of a tag two characters or longer."""
    from hypothesis import strategies as st

    name = open_tag[2:-2]
    cases = [case(tag) for tag in (open_tag, close_tag) for case in (str, str.upper, str.title)]
    any_piece = st.builds(
        lambda tag, a, b: tag[a % (len(tag) - 1) :][: 2 + b], st.sampled_from(cases),
        st.integers(0, 20), st.integers(0, 20),
    )  # fmt: skip
    fillers = st.one_of(st.sampled_from((name, name.upper(), "<<", ">>", *cases)), any_piece)
    at = st.one_of(st.none(), st.lists(st.integers(0, 20), min_size=1, max_size=4))
    return st.builds(_nest, st.sampled_from(cases), fillers, at)


def fence_texts(open_tag: str, close_tag: str) -> Any:
    """(text, the customer's words in it, in order): words in any case, between and around the
    fence's own pieces: '<<' and '>>' alone (with words between them), either tag in any case,
    a tag's halves, a tag hidden inside another, forged tags: the tag's name in any case
    between runs of one to six brackets a side ('<<<</customer_words>>>>'), so a fence that
    shortens each run, rather than breaking it everywhere, leaves a real tag behind; and a tag in
    any case with a piece of a tag put in at some or all of its places (`_nest`), so a fence that
    deletes a piece (or a few) once leaves a real tag behind."""
    from hypothesis import strategies as st

    name = open_tag[2:-2]  # "customer_words"
    pieces = (
        "<<", ">>", "<", ">", open_tag, close_tag, open_tag.upper(), close_tag.title(),
        f"<</{name[:5]}", f"{name[5:]}>>", f"<</{name}<<{name}>>>>",
        f"{close_tag[:9]}{close_tag}{close_tag[9:]}",
    )  # fmt: skip
    cased = st.builds(
        lambda w, case: (w, w.upper(), w.title())[case], st.sampled_from(WORDS), st.integers(0, 2)
    )
    forged = st.builds(
        lambda left, slash, case, right: (
            "<" * left + slash + (name, name.upper())[case] + ">" * right
        ),
        st.integers(1, 6),
        st.sampled_from(("", "/")),
        st.integers(0, 1),
        st.integers(1, 6),
    )
    nested = _nested_tags(open_tag, close_tag)
    # ("word", what the customer typed) or ("piece", a piece of the fence's tags, or a forged one)
    part = st.one_of(
        cased.map(lambda w: ("word", w)),
        st.sampled_from(pieces).map(lambda p: ("piece", p)),
        forged.map(lambda p: ("piece", p)),
        nested.map(lambda p: ("piece", p)),
    )

    def build(parts: list[tuple[str, str]], gaps: list[str]) -> tuple[str, tuple[str, ...]]:
        text = "".join(said + gaps[n % len(gaps)] for n, (_, said) in enumerate(parts))
        return text, tuple(said for kind, said in parts if kind == "word")

    return st.builds(
        build,
        st.lists(part, max_size=8),
        st.lists(st.sampled_from(("", " ", ", ")), min_size=1, max_size=3),
    )
