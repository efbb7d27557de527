"""Held-out reader BB's three findings in the s01, s03 and s07 checkers, each closed by its rule.

- s03 `check_delimit`: the fence is judged by what comes out. Between the fence's own tags no tag
  may stand, in any letter case, whatever came in: so a fence that deletes any one piece of a tag
  in one pass is refused, for every piece where some nesting of it makes the tag close up.
- s07 `check_attempt_failure_view`: "the view is that one line and the failure lines, nothing
  more": the lines are counted against the failures, whatever an extra line says; a blank line
  holds nothing to read and is not counted.
- s01 `check_own_tool`: "write any tool the café's waiter lacks": a tool with no parameters is a
  tool (the per-parameter rules hold vacuously); it still needs a docstring and an answer in words.

Each oracle is written here, apart from the checker's code.
"""

from __future__ import annotations

import re

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.context import CLOSE_TAG, OPEN_TAG
from cafe.exercises.reference_s07_view import failure_sets, view_problem
from cafe.exercises.s01 import check_own_tool
from cafe.exercises.s03 import check_delimit
from cafe.exercises.s07 import check_attempt_failure_view
from cafe.loop.tools import ToolOutput
from cafe.schema.ticket import Failure

QUICK = settings(
    max_examples=30,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
_TAGS = (OPEN_TAG, CLOSE_TAG)


# --- s03: no tag between the fence's own, whatever came in ----------------------------------------


def _tag_inside(fenced: str) -> bool:
    inner = fenced[len(OPEN_TAG) : len(fenced) - len(CLOSE_TAG)].casefold()
    return any(tag.casefold() in inner for tag in _TAGS)


def _deleter(piece: str, flags: int):
    def fence(text: str) -> str:
        return OPEN_TAG + re.sub(re.escape(piece), "", text, flags=flags) + CLOSE_TAG

    return fence


def _escape_text(piece: str, flags: int) -> str | None:
    """A text the one-pass deletion of `piece` turns into a tag (the piece put into a tag, in
    any of three letter cases, at any place), or None when no such text is found."""
    fence = _deleter(piece, flags)
    for tag in _TAGS:
        for cased in (tag, tag.upper(), tag.title()):
            for at in range(len(cased) + 1):
                text = cased[:at] + piece + cased[at:]
                if _tag_inside(fence(text)):
                    return text
    return None


@QUICK
@given(
    st.sampled_from(_TAGS),
    st.integers(0, 18),
    st.integers(2, 19),
    st.sampled_from((str, str.upper, str.title)),
    st.sampled_from((re.IGNORECASE, 0)),
)
def test_a_fence_deleting_any_piece_of_a_tag_once_is_refused(tag, start, size, case, flags):
    piece = case(tag[start : start + size])
    if len(piece) < 2 or _escape_text(piece, flags) is None:
        return  # deleting this piece can leave no tag (a lone '<', or every '<<' of a run)
    assert check_delimit(_deleter(piece, flags)), (piece, flags)


def test_reader_bb_tag_name_deleted_once_is_refused():
    fence = _deleter("customer_words", re.IGNORECASE)  # reader BB's w10
    assert _tag_inside(fence("<</customer_customer_wordswords>>"))
    assert check_delimit(fence)


def test_name_and_brackets_deleted_in_one_pass_are_refused():
    """The same kind: brackets split by the name close up when the name goes."""

    def fence(text: str) -> str:
        return OPEN_TAG + re.sub(r"customer_words|<<|>>", "", text, flags=re.I) + CLOSE_TAG

    assert _tag_inside(fence("<customer_words</customer_customer_wordswords>customer_words>"))
    assert check_delimit(fence)


def test_fences_that_leave_no_tag_still_pass():
    def until_stable(text: str) -> str:
        while (cleaned := re.sub("customer_words", "", text, flags=re.I)) != text:
            text = cleaned
        return OPEN_TAG + text + CLOSE_TAG

    def break_pairs_once(text: str) -> str:  # reader BB's r04: no 's>>' can survive, so no tag
        return OPEN_TAG + text.replace("<<", "< <").replace(">>", "> >") + CLOSE_TAG

    assert check_delimit(until_stable) == []
    assert check_delimit(break_pairs_once) == []


# --- s07: the header and the failure lines, nothing more -----------------------------------------

# Words for an extra line: none names a check or holds a span, so the line holds no failure.
_EXTRA = st.lists(
    st.sampled_from("fix these please write the whole ticket again change nothing else".split()),
    min_size=1,
    max_size=6,
).map(lambda words: " ".join(words).capitalize() + ".")


def _view(failures, attempt, extra: str | None = None, at: int = 0) -> str:
    lines = [
        f"Attempt {attempt} failed:",
        *(f"- {f.check}: '{f.span}' -> {f.fix}" for f in failures),
    ]
    if extra is not None:
        lines.insert(at % (len(lines) + 1), extra)
    return "\n".join(lines)


def _counted(view: str) -> int:
    return sum(1 for line in view.splitlines() if line.strip())


@settings(QUICK, max_examples=4)
@given(st.lists(st.sampled_from(("", "   ")), min_size=1, max_size=3), st.integers(0, 9))
def test_a_view_with_one_line_more_than_header_and_failures_is_refused(blanks, seed):
    """Whatever the extra line says and wherever it stands, it is one line too many; blank lines
    are not counted. The view function is generated too: its extra line depends on the input."""
    words = ("Fix these.", "Change nothing else.", "Please fix the following:", "Write it again.")

    def with_extra(failures, attempt):
        extra = words[(seed + attempt) % len(words)]
        view = _view(failures, attempt, extra, seed + len(failures))
        return view.replace("\n", "\n" + blanks[0] + "\n", 1)

    def with_blank(failures, attempt):
        return _view(failures, attempt, blanks[-1], seed)

    assert check_attempt_failure_view(with_extra)
    assert check_attempt_failure_view(with_blank) == []


@QUICK
@given(failure_sets(Failure), _EXTRA, st.integers(0, 6), st.booleans())
def test_each_generated_view_is_judged_by_its_count_of_lines(given_view, extra, at, blank):
    """The oracle: a view is refused exactly when its lines (blank ones not counted) outnumber
    the header and the failures; the extra line's wording does not matter."""
    failures, attempt = given_view
    view = _view(failures, attempt, "" if blank else extra, at)
    too_many = _counted(view) > len(failures) + 1
    assert too_many is not blank
    assert (view_problem(view, failures, attempt) is not None) is too_many, view


def test_reader_bb_extra_lines_are_refused():
    from cafe.repair import CHANGE_NOTHING_ELSE

    rows = lambda failures: [f"- {f.check}: '{f.span}' -> {f.fix}" for f in failures]  # noqa: E731
    views = (
        lambda f, a: "\n".join([CHANGE_NOTHING_ELSE, f"Attempt {a} failed:", *rows(f)]),
        lambda f, a: "\n".join([f"Attempt {a} failed:", *rows(f), "Fix these and write it again."]),
        lambda f, a: "\n".join([f"Attempt {a} failed.", "Please fix the following:", *rows(f)]),
    )
    for view in views:
        assert check_attempt_failure_view(view)


# --- s01: a tool with no parameters is a tool ------------------------------------------------------

_SAID = st.sampled_from(("Staff are on the way.", "The bill is printing.", "Bell rung."))
_DOC = st.sampled_from(("Call a member of staff to the table.", "Ring the kitchen bell."))


def _tool(doc: str | None, answer):
    def no_parameters():
        return answer

    no_parameters.__doc__ = doc
    return no_parameters


@QUICK
@given(_DOC, _SAID, st.booleans())
def test_a_documented_tool_with_no_parameters_that_answers_passes(doc, said, wrapped):
    answer = ToolOutput(True, said) if wrapped else said
    assert check_own_tool(_tool(doc, answer)) == []


@QUICK
@given(_DOC, _SAID, st.sampled_from(("docstring", "silent", "empty")))
def test_a_tool_with_no_parameters_still_needs_a_docstring_and_words(doc, said, broken):
    tool = {
        "docstring": _tool(None, said),
        "silent": _tool(doc, None),
        "empty": _tool(doc, ToolOutput(False, " ")),
    }[broken]
    problems = check_own_tool(tool)
    assert problems and not any("no parameters" in p for p in problems), problems


def test_reader_bb_call_staff_passes():
    def call_staff() -> str:
        """Call a member of staff to the table."""
        return "A member of staff is on the way."

    assert check_own_tool(call_staff) == []
