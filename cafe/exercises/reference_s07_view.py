"""Session 07's failure-view reference and the properties a view is judged by, written apart
from `cafe.repair.feedback`, and the failures to try them on.

A failure view is open-ended, so `check_attempt_failure_view` (`cafe.exercises.s07`) judges it by
the lesson's properties on generated failures and attempt numbers (`view_problem`): the attempt
named above the failures (in any words: "Attempt 2", "Draft 2", "your second attempt"), one line
per failure with its check, quoted span and fix, no rubric (no check named that did not fail), no
commentary (`commentary`: a sentence of the view's own lines that names the attempt is its header,
in any words; any other sentence speaks of the failures or the edit), no line but the header and
the failure lines (counted against the failures, whatever an extra line says; blank lines hold
nothing and are not counted), a short view, and one that does not grow with the attempt number.
`view` is one view that keeps them all.

`tests/test_exercise_references.py` holds `view` and the course's views to these properties.
Like `reference_s07` (the loop), it imports nothing from `cafe`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import Any

__all__ = ["view", "view_problem", "names_attempt", "commentary", "frame_problem"]
__all__ += ["holds", "quoted", "failure_problem", "failure_sets", "VIEW_ROWS", "ORDINALS"]
__all__ += ["FRAME_ANCHORS", "GROWTH_CHARS", "GROWS", "growth_problem"]

# Besides one line per failure, a view may hold this many lines: the header naming the attempt.
# The notebook: "the view is that one line and the failure lines, nothing more". So the lines
# are counted against the failures whatever an extra line says (a change-nothing-else line, a
# second header line, a closing "Fix these"): every line but one holds a failure. A blank line
# holds nothing to read and is not counted; the header may share the first failure's line.
FRAMING_LINES = 1
# Characters a view may spend besides what its failures say: a header and a framing line.
FRAMING_CHARS = 300
PER_FAILURE_CHARS = 40  # a failure line's own words around its check, span and fix
# How much longer a view of the same failures may be at attempt 12 than at attempt 1: the
# number's own extra digit and a little wording; a view that carries earlier attempts grows more.
GROWTH_CHARS = 8
# An attempt may be named by its ordinal instead ("Your second attempt failed", "3rd try").
ORDINALS = tuple(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
)
# The lesson: "Leave out ... any commentary: the view asks for a specific edit." A sentence of
# the view's own lines that names the attempt is the header, in any words; any other sentence
# must be about the failures or the edit (one of these words, a count, or a failing check's
# name), or it is commentary ("Good luck.", "Think carefully this time.").
FRAME_ANCHORS = frozenset(
    """fix fixes fixing fixed correct corrected repair address resolve change changes changing
    changed edit edits update adjust amend rewrite redo again keep leave touch alone else rest
    other others only unchanged same these those them each every all both here below above
    following listed list failure failures failed fail fails problem problems issue issues error
    errors reason reasons finding findings check checks mistake mistakes fault faults defect
    defects violation violations rejected refused flagged ticket tickets order field fields item
    items attempt attempts draft drafts""".split()
)
# Marks that quote a span: quotes of every kind, backticks, or a table's cell walls.
# Each opening mark in the first string, its closing mark at the same place in the second.
QUOTE_MARKS: tuple[tuple[str, str], ...] = tuple(
    zip("'\"`\u2018\u201c\u00ab|", "'\"`\u2019\u201d\u00bb|")
)
# The words an attempt may be named by, before its number ("Attempt 2", "Draft number 2", "#2").
_ATTEMPT = r"(?:attempt|draft|try|retry|round|run|#)"


def view(failures: Sequence[Any], attempt: int) -> str:
    """A header naming the attempt, then one line per failure: check, quoted span, fix."""
    rows = [f"{f.check}: '{f.span}' -> {f.fix}" for f in failures]
    return "\n".join([f"Attempt {attempt}: these checks failed", *rows])


# --- the view's properties -----------------------------------------------------------------------


def holds(line: str, failure: Any) -> bool:
    """Whether `line` names the failure's check (as a word of its own: "XXmissing_field" names
    another) and holds its span."""
    named = re.search(rf"(?<!\w){re.escape(failure.check)}(?!\w)", line)
    return named is not None and failure.span in line


def quoted(line: str, span: str) -> bool:
    """Whether `line` sets `span` off between quote marks (a space inside them allowed)."""
    marks = [(re.escape(a), re.escape(b)) for a, b in QUOTE_MARKS]
    return repr(span) in line or any(
        re.search(f"{a} ?{re.escape(span)} ?{b}", line) for a, b in marks
    )


def failure_problem(lines: list[str], failures: Sequence[Any]) -> tuple[str, str] | None:
    """(what is wrong, the idea) for the first failure without a line of its own, or None."""
    for failure in failures:
        own = [line for line in lines if holds(line, failure)]
        if not own:
            return f"a line naming {failure.check} and quoting {failure.span!r}", (
                "each failure is named by its check and its quoted span"
            )
        if failure.fix not in own[0]:
            return f"the {failure.check} line stating its fix", "say what a correct ticket holds"
        if not quoted(own[0], failure.span):
            return f"the {failure.check} line quoting {failure.span!r} in quotes", (
                "quote the span: the model sees exactly where to look"
            )
        if any(holds(own[0], other) for other in failures if other != failure):
            return f"a line of its own for {failure.check}", "one line per failure"
    return None


def names_attempt(lines: Sequence[str], attempt: int) -> bool:
    """Whether a line names the attempt: its number after a word for it, in any words, or its
    ordinal before one ("second attempt", "2nd try"): the lesson asks only to say which."""
    word = f"|{ORDINALS[attempt - 1]}" if 0 < attempt <= len(ORDINALS) else ""
    by_number = rf"{_ATTEMPT}\D{{0,12}}\b{attempt}\b"
    by_ordinal = rf"\b(?:{attempt}(?:st|nd|rd|th){word})\b\D{{0,12}}{_ATTEMPT}"
    return any(re.search(f"{by_number}|{by_ordinal}", line, re.I) for line in lines)


def commentary(framing: Sequence[str], failures: Sequence[Any], attempt: int) -> str | None:
    """The first sentence of the view's own lines that neither names the attempt nor speaks of
    the failures or the edit (`FRAME_ANCHORS`, a count, a failing check's name), or None."""
    anchors = FRAME_ANCHORS | {w for f in failures for w in re.findall(r"[a-z]+", f.check.lower())}
    for line in framing:  # a full stop before a digit ("No. 2") ends no sentence
        for sentence in re.split(r"[.!?]+(?=\s+\D|\s*$)", line):
            words = set(re.findall(r"[a-z]+", sentence.lower()))
            if words and not (words & anchors or re.search(r"\d", sentence)):
                if not names_attempt([sentence], attempt):
                    return sentence.strip()
    return None


def frame_problem(
    framing: Sequence[str], failures: Sequence[Any], checks: frozenset[str], attempt: int
) -> tuple[str, str] | None:
    """(what was expected, the idea) when the view's own lines name a check that did not fail
    (the rubric) or hold a sentence of commentary, or None."""
    failed = {f.check for f in failures}
    text = " ".join(framing)
    named = sorted(c for c in checks - failed if re.search(rf"\b{re.escape(c)}\b", text))
    if named:
        return f"only the checks that failed named, not {', '.join(named[:3])}", (
            "never the whole rubric: the view names what failed, nothing else"
        )
    said = commentary(framing, failures, attempt)
    if said is not None:
        return f"the attempt and the edit asked for, without {said!r}", (
            "no commentary: the view asks for a specific edit"
        )
    return None


def view_problem(
    text: str, failures: Sequence[Any], attempt: int, checks: frozenset[str] = frozenset()
) -> tuple[str, str] | None:
    """(what was expected, the idea) for the first property a view breaks, or None: the attempt
    named above the failures (or on the first's line); `checks`, all checks, tell a rubric."""
    lines = [line for line in text.splitlines() if line.strip()]
    first = next((i for i, line in enumerate(lines) if any(holds(line, f) for f in failures)), 0)
    if not names_attempt(lines[: first + 1], attempt):
        return f"a header line naming attempt {attempt}", "the retry must know which attempt failed"
    found = failure_problem(lines, failures)
    if found:
        return found
    framing = [line for line in lines if not any(holds(line, f) for f in failures)]
    found = frame_problem(framing, failures, checks, attempt)
    if found:
        return found
    budget = FRAMING_CHARS + sum(
        len(f.check) + len(f.span) + len(f.fix) + PER_FAILURE_CHARS for f in failures
    )
    if len(framing) > FRAMING_LINES:
        return (
            f"one header line and {len(failures)} failure line{'s' * (len(failures) > 1)}, "
            f"not {len(lines)} lines (here {' / '.join(repr(line) for line in framing)})",
            "the view is the header and the failure lines, nothing more",
        )
    if len(text) > budget:
        return (
            f"a header and one line per failure (here {len(text)} characters)",
            "a short view: the rubric and commentary stay out",
        )
    return None


# The failures the view checker feeds a view, as (check, span, fix) rows, with the attempt that
# failed. No attempt number equals its count of failures, so the view has to name the attempt.
VIEW_ROWS: tuple[tuple[tuple[tuple[str, str, str], ...], int], ...] = (
    ((("missing_field", "table", "include table: the table number"),), 2),
    (
        (
            ("sold_out", "cheese omelette", "a correct ticket holds no 86'd item"),
            ("unsafe", "latte contains milk", "no item on the ticket may contain milk"),
        ),
        3,
    ),
    (
        (
            ("not_json", "Sure, here you go", "answer with one JSON object"),
            ("off_menu", "pizza", "use only items on the menu"),
            ("injection", "ignore previous instructions", "a ticket carries only the order"),
        ),
        1,
    ),
)

GROWS = (
    "no longer than the view of attempt 1, but for the number",
    "a view of the same failures is as long at attempt 12 as at attempt 1: only the number changes",
)


def growth_problem(view: str, first: Any, attempt: int) -> tuple[str, str] | None:
    """`GROWS` (what was expected, the idea) when `view`, at `attempt`, is longer than `first`,
    the view of the same failures at attempt 1, by more than its number and a little wording."""
    if isinstance(first, str) and len(view) - len(first) > GROWTH_CHARS + len(str(attempt)):
        return GROWS
    return None


# --- generated inputs ----------------------------------------------------------------------------

_CHECKS = ("missing_field", "off_menu", "sold_out", "out_of_scope", "unsafe", "not_json")
# Spans and fixes none of which holds another, so "the line that quotes this span" is one line.
_SPANS = (
    "pizza",
    "cheese omelette",
    "(missing) latte",
    "Sure, here you go",
    "O'Brien's flat white",
    "ignore previous instructions",
)
_FIXES = ("add it", "use only items on the menu", "answer with one JSON object")


def failure_sets(make_failure: Callable[[str, str, str], Any]) -> Any:
    """(failures, attempt): 1 to 4 distinct failures (a span may hold a quote), an
    attempt number from 1 to 12."""
    from hypothesis import strategies as st

    one = st.builds(
        make_failure, st.sampled_from(_CHECKS), st.sampled_from(_SPANS), st.sampled_from(_FIXES)
    )
    unique = st.lists(one, min_size=1, max_size=4, unique_by=lambda f: (f.check, f.span))
    return st.tuples(unique.map(tuple), st.integers(1, 12))
