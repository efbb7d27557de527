"""Session 07's references, written apart from `cafe.repair`, and the inputs to try them on.

`check_repair_loop` and `check_attempt_failure_view` (`cafe.exercises.s07`) run the learner's
functions on generated inputs after their hand-picked cases (`cafe.exercises.generated`):

- `loop` is the bounded re-ask written from the pieces the notebook hands the learner (the policy
  check, the brief, scoring, the curated retry), not from `cafe.repair.repair_ticket`; the checker
  compares runs on generated draft sequences (drafts that pass, miss the table, add an item, come
  as a JSON list or as prose) at caps 1 to 4;
- a failure view is open-ended, so it is judged by the lesson's properties on generated failures
  and attempt numbers (`view_problem`): the attempt named (in any words: "Attempt 2", "Draft 2"),
  one line per failure with its check, quoted span and fix, a short frame with no commentary
  (`FRAME_WORDS`) and no rubric (no check named that did not fail), and a view that does not grow
  with the attempt number; a retry's view names no failure the last draft no longer has
  (`stale_failures`).

`tests/test_exercise_references.py` holds `loop` to `repair_ticket` and `view` to the properties.
This module imports nothing from `cafe` (only `cafe.exercises.sNN` may): the pieces are passed in.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = [
    "Pieces",
    "loop",
    "view",
    "holds",
    "quoted",
    "frame_problem",
    "stale_failures",
    "failure_keys",
    "gist",
    "FRAME_WORDS",
    "ORDINALS",
    "failure_problem",
    "view_problem",
    "GROWTH_CHARS",
    "failure_sets",
    "draft_runs",
    "Recorder",
    "VIEW_ROWS",
    "GOOD",
    "NO_TABLE",
    "OMELETTE",
    "OMELETTE_NO_TABLE",
    "EXTRA_ITEM",
    "OFF_MENU",
    "KEEPS_LATTE",
    "ALTERNATING",
]

# Besides one line per failure, a view may hold this many lines: a header naming the attempt,
# and one framing line such as failure_view's change-nothing-else line.
FRAMING_LINES = 2
# Characters a view may spend besides what its failures say: a header and a framing line.
FRAMING_CHARS = 300
PER_FAILURE_CHARS = 40  # a failure line's own words around its check, span and fix
# How much longer a view of the same failures may be at attempt 12 than at attempt 1: the
# number's own extra digit and a little wording; a view that carries earlier attempts grows more.
GROWTH_CHARS = 8
# The words a view's own lines (its header and a change-nothing-else line) are made of, from the
# lesson's "say which attempt failed" and "fence off everything else", in the words a learner
# might use; any other word there is commentary ("Leave out ... any commentary: the view asks
# for a specific edit"). The failing checks' names may be said there too.
# An attempt may be named by its ordinal instead ("Your second attempt failed", "3rd try").
ORDINALS = tuple(
    "first second third fourth fifth sixth seventh eighth ninth tenth eleventh twelfth".split()
)
FRAME_WORDS = frozenset(ORDINALS) | frozenset(
    """st nd rd th a an the this that these those it its your you my our we i here below above following
    attempt attempts draft drafts try tries retry retries round run number nr no
    was were is are be been has had have did do does not don t s
    failed fail fails failing failure failures rejected refused passed pass
    check checks checked problem problems issue issues error errors found flagged listed list
    by with on in of at for from to and or as so then please must should
    fix fixes fixing fixed only just change changes changing nothing anything else everything rest
    keep leave alone same again write rewrite ticket tickets order correct edit edits
    what which more shown see first last""".split()
)
# Marks that quote a span: quotes of every kind, backticks, or a table's cell walls.
# Each opening mark in the first string, its closing mark at the same place in the second.
QUOTE_MARKS: tuple[tuple[str, str], ...] = tuple(
    zip("'\"`\u2018\u201c\u00ab|", "'\"`\u2019\u201d\u00bb|")
)
# The words an attempt may be named by, before its number ("Attempt 2", "Draft number 2", "#2").
_ATTEMPT = r"(?:attempt|draft|try|retry|round|run|#)"


@dataclass(frozen=True)
class Pieces:
    """What the notebook hands the learner to build the loop from (`cafe.repair`'s pieces)."""

    policy_failures: Callable[[Any], Sequence[Any]]
    brief_for: Callable[[Any], Sequence[dict[str, str]]]
    score: Callable[[str, Any], Any]  # (draft, spec) -> a Score with .ticket and .failures
    retry: Callable[[Sequence[dict[str, str]], Sequence[Any], int], Sequence[dict[str, str]]]
    attempt: Callable[..., Any]  # Attempt(number, draft, failures, prompt_chars, usage)
    result: Callable[..., Any]  # RepairResult(stop_reason, ticket, attempts, blocked_by=...)


def loop(spec: Any, generate: Callable[..., Any], cap: int, pieces: Pieces) -> Any:
    """Refuse what policy refuses, before any draft; else draft, score, and re-ask with the brief
    and a view of the last failures until a draft passes or `cap` drafts were made."""
    refused = tuple(pieces.policy_failures(spec))
    if refused:
        return pieces.result("policy_violation", None, (), blocked_by=refused)
    brief = list(pieces.brief_for(spec))
    logged: list[Any] = []
    sent = brief
    while len(logged) < cap:
        draft = generate([dict(message) for message in sent])
        text = draft if isinstance(draft, str) else draft.text
        score = pieces.score(text, spec)
        logged.append(pieces.attempt(len(logged) + 1, text, score.failures, 0, None))
        if score.ticket is not None:
            return pieces.result("passed", score.ticket, tuple(logged))
        sent = list(pieces.retry(brief, score.failures, len(logged)))
    return pieces.result("retries_exhausted", None, tuple(logged))


def view(failures: Sequence[Any], attempt: int) -> str:
    """A header naming the attempt, then one line per failure: check, quoted span, fix."""
    rows = [f"{f.check}: '{f.span}' -> {f.fix}" for f in failures]
    return "\n".join([f"Attempt {attempt}: these checks failed", *rows])


# --- the view's properties -----------------------------------------------------------------------


def holds(line: str, failure: Any) -> bool:
    return failure.check in line and failure.span in line


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
        if any(holds(own[0], other) for other in failures if other is not failure):
            return f"a line of its own for {failure.check}", "one line per failure"
    return None


def names_attempt(lines: Sequence[str], attempt: int) -> bool:
    """Whether a line names the attempt: its number after a word for it, in any words, or its
    ordinal before one ("second attempt", "2nd try"): the lesson asks only to say which."""
    word = f"|{ORDINALS[attempt - 1]}" if 0 < attempt <= len(ORDINALS) else ""
    by_number = rf"{_ATTEMPT}\D{{0,12}}\b{attempt}\b"
    by_ordinal = rf"\b(?:{attempt}(?:st|nd|rd|th){word})\b\D{{0,12}}{_ATTEMPT}"
    return any(re.search(f"{by_number}|{by_ordinal}", line, re.I) for line in lines)


def frame_problem(
    framing: Sequence[str], failures: Sequence[Any], checks: frozenset[str]
) -> tuple[str, str] | None:
    """(what was expected, the idea) when the view's own lines name a check that did not fail
    (the rubric) or say something besides the attempt and the fence (commentary), or None."""
    failed = {f.check for f in failures}
    text = " ".join(framing)
    named = sorted(c for c in checks - failed if re.search(rf"\b{re.escape(c)}\b", text))
    if named:
        return f"only the checks that failed named, not {', '.join(named[:3])}", (
            "never the whole rubric: the view names what failed, nothing else"
        )
    allowed = FRAME_WORDS | {word for c in failed for word in re.findall(r"[a-z]+", c.lower())}
    other = [w for w in re.findall(r"[a-z]+", text.lower()) if w not in allowed]
    if other:
        return f"a header naming the attempt and the fence, without {other[0]!r}", (
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
    found = frame_problem(framing, failures, checks)
    if found:
        return found
    budget = FRAMING_CHARS + sum(
        len(f.check) + len(f.span) + len(f.fix) + PER_FAILURE_CHARS for f in failures
    )
    if len(framing) > FRAMING_LINES or len(text) > budget:
        return (
            f"a header and one line per failure (here {len(text)} characters)",
            "a short view: the rubric and commentary stay out",
        )
    return None


def failure_keys(failures: Sequence[Any]) -> list[tuple[str, str]]:
    """The failures as sorted (check, span) pairs: what tells one failure from another."""
    return sorted((f.check, f.span) for f in failures)


def gist(view: str, fence: str) -> str:
    """What a retry added, as one line, its change-nothing-else line (`fence`) left out."""
    lines = [line.strip() for line in view.splitlines() if line.strip()]
    return " / ".join(line for line in lines if line != fence)


def stale_failures(calls: Sequence[Sequence[dict[str, str]]], logged: Sequence[Any]) -> list[Any]:
    """For each retry (the call after attempt k), the failures of attempts before k that attempt
    k no longer has and that the retry still names (a line holding its check and span): the
    story of earlier attempts, which the view leaves out. `calls[0]` is the brief."""
    stale = []
    for number in range(1, min(len(calls), len(logged) + 1)):
        added = [m.get("content") or "" for m in calls[number][len(calls[0]) :]]
        lines = [line for text in added for line in str(text).splitlines()]
        now = {(f.check, f.span) for f in logged[number - 1].failures}
        gone = [f for a in logged[: number - 1] for f in a.failures if (f.check, f.span) not in now]
        stale += [f for f in gone if any(holds(line, f) for line in lines)]
    return stale


# --- the drafts the hand-picked cases give, and the generator that gives them ------------------

GOOD = '{"table": 6, "items": ["latte"], "allergies": [], "notes": ""}'
NO_TABLE = '{"items": ["latte"], "allergies": [], "notes": ""}'
# Complete tickets, each keeping the contract and failing another check.
OMELETTE = '{"table": 4, "items": ["cheese omelette"], "allergies": [], "notes": ""}'
OMELETTE_NO_TABLE = '{"items": ["cheese omelette"], "allergies": [], "notes": ""}'
EXTRA_ITEM = '{"table": 6, "items": ["latte", "croissant"], "allergies": [], "notes": ""}'
OFF_MENU = '{"table": 6, "items": ["pumpkin muffin"], "allergies": [], "notes": ""}'
KEEPS_LATTE = '{"table": 2, "items": ["latte", "espresso"], "allergies": ["milk"], "notes": ""}'
ALTERNATING = (OMELETTE_NO_TABLE, OMELETTE)


class Recorder:
    """A generator that answers with `drafts` in turn (or, with none, listens: it writes the good
    draft only once a message after the brief names the missing table). It keeps a copy of the
    messages of every call and the draft it gave back."""

    def __init__(self, drafts: Sequence[str]) -> None:
        self.candidates = tuple(drafts)
        self.calls: list[list[dict[str, str]]] = []
        self.drafts: list[str] = []

    def __call__(self, messages: list[dict[str, str]]) -> str:
        self.calls.append([dict(m) for m in messages])
        if self.candidates:
            draft = self.candidates[(len(self.drafts)) % len(self.candidates)]
        else:
            told = " ".join(str(m.get("content") or "") for m in messages[1:])
            draft = GOOD if "missing_field" in told and "table" in told else NO_TABLE
        self.drafts.append(draft)
        return draft


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


# Drafts a model may write for the latte at table 6: passing, incomplete, over-full, off-menu,
# a list instead of an object, prose around the JSON, nothing at all.
DRAFTS = (
    '{"table": 6, "items": ["latte"], "allergies": [], "notes": ""}',
    '{"items": ["latte"], "allergies": [], "notes": ""}',
    '{"table": 6, "items": ["latte", "croissant"], "allergies": [], "notes": ""}',
    '{"table": 6, "items": ["pumpkin muffin"], "allergies": [], "notes": ""}',
    '[{"table": 6, "items": ["latte"], "allergies": [], "notes": ""}]',
    'Sure! {"table": 6, "items": ["latte"], "allergies": [], "notes": ""}',
    '{"table": 6, "items": ["Latte "], "allergies": [], "notes": ""}',
    '{"table": 6, "items": ["latte", "latte"], "allergies": [], "notes": ""}',
    "",
)


def draft_runs() -> Any:
    """(drafts the generator gives in turn, cap): 1 to 5 drafts from DRAFTS, caps 1 to 4."""
    from hypothesis import strategies as st

    drafts = st.lists(st.sampled_from(DRAFTS), min_size=1, max_size=5).map(tuple)
    return st.tuples(drafts, st.integers(1, 4))
