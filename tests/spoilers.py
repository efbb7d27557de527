"""Where a prediction's answer must not appear before the learner has made it (issue 27).

The reading order the course sets: the site's About box, the lesson up to the end of its Build
section, then the notebook top to bottom. So, for prediction K, the learner has read:

1. the front matter the site shows above the lesson: the title, `teaches`, each `ships` and
   `carried_in` summary, `hands_on`;
2. the lesson, except the sections the site folds "after the notebook" (`FOLDED`);
3. every `##` heading of the lesson ("On this page"), every heading of the notebook (JupyterLab's
   table of contents);
4. the notebook's cells above K's predict cell: their text, their code and what they printed;
5. K's predict cell up to the end of its call, with K's options taken out (an option may be the
   outcome: that is what a choice is), K's printed `[predict K] question` line, and K's key.

Each prediction declares, in `cafe/data/predictions/sNN.json` (its README gives the format;
`tests/test_spoilers.py` reads and checks it), `giveaways`: phrases that state or imply its
outcome, or the fact that decides it for this case.
A giveaway found anywhere in what was read is a spoiler. `label_words` (words the theory may use
but a label may not) are looked for only in the key, the printed question and the headings.

Phrases match after `words` normalises both sides (case, markdown marks, `_ - / : =` as spaces,
numbers as values (`number_words`: digits, words, percentages, shares such as "two in five"), a
light stem), so "three turns", "3 turns" and "Three turn(s)" are one phrase and "40%" is caught
by "two orders in five"; `"a … b"` matches a, then b within `GAP` words, in one sentence;
`"&a b c"` matches all three in one sentence, in any order; anything else is an exact phrase. A
table cell ends a phrase: its words never run into the next cell's.

Whatever a declaration lists, the outcome's own words count too (`own_words`, issue 37): the
outcome as written, when it is telling, and the part of its option after a colon; a sentence or
table that names two or more of the options lists the choices and is not read as picking one.
"""

from __future__ import annotations

import ast
import functools
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import yaml
from number_words import numbers, same

GAP = 6  # words allowed between the parts of an "a … b" phrase
# The lesson sections the site folds under "after the notebook" (the reading order).
FOLDED = ("## Checkpoint", "## State of the art", "## Annotated readings", "## Misconceptions")
FOLDED += ("## Self-check",)
ORDINALS = {"first": "1st", "second": "2nd", "third": "3rd"}
_SUFFIXES = (("ies", "y"), ("ied", "y"), ("es", ""), ("s", ""), ("ed", ""), ("ing", ""), ("en", ""))


# --- normalising --------------------------------------------------------------------------------


def stem(word: str) -> str:
    """A light stem, the same on both sides of a match: "gives", "give", "given" -> "giv"."""
    if not word.isalpha():
        return word
    if len(word) > 4:
        for suffix, replacement in _SUFFIXES:
            if word.endswith(suffix) and not word.endswith("ss"):
                word = word[: -len(suffix)] + replacement
                break
    if len(word) >= 3 and word.endswith("e"):
        word = word[:-1]
    if len(word) >= 3 and word[-1] == word[-2] and word[-1] not in "aeiousl":
        word = word[:-1]
    return word


def words(text: str) -> list[str]:
    """`text` as a reader takes it in: folded, unmarked, numbers as values, stemmed."""
    text = re.sub(r"[`*]", "", text.casefold()).replace("’", "'")
    text = re.sub(r"(?<=\d),(?=\d{3}\b)", "", text)  # 1,200 is one number
    text = re.sub(r"'s\b", "", text)
    text = re.sub(r"[_\-/:=,()\[\]{}\"<>]", " ", text)
    # A table's "|" stays, as a word no phrase holds: a phrase's words are adjacent only
    # within one cell ("| `model_call` | one call |" does not say "model call 1").
    raw = [w.strip(".'") for w in re.findall(r"[\w.%+'$€]+|\|", text)]
    return [
        word if word.startswith("#") else stem(ORDINALS.get(word, word))
        for word in numbers([w for w in raw if w])
    ]


# How many texts `sentences` keeps read: more than one test session's lessons, cells and outputs
# (about 2,000 texts over the 17 sessions).
READ_TEXTS = 8192


@functools.lru_cache(maxsize=READ_TEXTS)
def sentences(text: str) -> tuple[tuple[str, ...], ...]:
    """Sentences as word lists, split at . ! ? ; and at a paragraph, list item, row or heading.

    Kept once read: every prediction of a session is looked for in the same lesson and cells,
    and `taught_problems` reads every earlier lesson once per declaration; reading them again
    each time was most of the spoiler tests' own time (issue 33). Tuples, so no caller can
    change what the next one reads."""
    chunks = re.split(r"(?<=[.!?;])\s+|\n\s*\n|\n(?=\s*(?:[-*|#>]|\d+\.)\s)", text)
    return tuple(tuple(found) for chunk in chunks if (found := words(chunk)))


@dataclass(frozen=True)
class Phrase:
    """A compiled giveaway: its parts (in order, at most GAP words apart), or a bag of words."""

    source: str
    parts: tuple[tuple[str, ...], ...]
    unordered: bool = False

    @functools.cached_property
    def exact_words(self) -> frozenset[str]:
        """The words of the phrase that only the same word matches (a number, "#...", matches
        any number that rounds to it: see `number_words.same`)."""
        return frozenset(word for part in self.parts for word in part if not word.startswith("#"))

    def found_in(self, sentence: Sequence[str]) -> bool:
        # A sentence missing one of the exact words cannot hold the phrase: most sentences are
        # ruled out here, by a set, before the word-by-word search below (issue 33).
        if not self.exact_words.issubset(sentence):
            return False
        if self.unordered:
            return all(
                any(same(word, seen) for seen in sentence) for part in self.parts for word in part
            )
        return _ordered(sentence, self.parts, 0, None)


def _ordered(
    sentence: Sequence[str], parts: tuple[tuple[str, ...], ...], start: int, limit: int | None
) -> bool:
    if not parts:
        return True
    first, n = parts[0], len(parts[0])
    last = len(sentence) - n if limit is None else min(len(sentence) - n, start + limit)
    return any(
        all(same(a, b) for a, b in zip(sentence[i : i + n], first))
        and _ordered(sentence, parts[1:], i + n, GAP)
        for i in range(start, last + 1)
    )


def compile_phrase(source: str) -> Phrase:
    """A giveaway as written in a declaration: `"a … b"`, `"&a b c"`, or an exact phrase."""
    if source.startswith("&"):
        return Phrase(source, (tuple(words(source[1:])),), unordered=True)
    parts = tuple(part for part in (tuple(words(p)) for p in source.split("…")) if part)
    if not parts:
        raise ValueError(f"the giveaway {source!r} has no words to look for")
    return Phrase(source, parts)


def find(phrases: Iterable[Phrase], text: str) -> list[tuple[str, str]]:
    """(phrase, the sentence it was found in) for every phrase found in `text`."""
    phrases = list(phrases)
    return [
        (phrase.source, " ".join(sentence)[:160])
        for sentence in sentences(text)
        for phrase in phrases
        if phrase.found_in(sentence)
    ]


# --- what was read before a prediction ----------------------------------------------------------


@dataclass(frozen=True)
class Cell:
    """One notebook cell: "markdown" or "code", its source, and what an offline run printed."""

    kind: str
    source: str
    output: str = ""


def notebook_cells(source: str) -> list[Cell]:
    """The cells of a jupytext percent-format source, in order (markdown comments unwrapped)."""
    cells: list[Cell] = []
    for chunk in re.split(r"^# %%", source, flags=re.M)[1:]:
        header, _, body = chunk.partition("\n")
        if "[markdown]" in header:
            lines = body.splitlines()
            text = "\n".join(
                line[2:] if line.startswith("# ") else line.lstrip("#") for line in lines
            )
            cells.append(Cell("markdown", text))
        else:
            cells.append(Cell("code", body))
    return cells


@functools.lru_cache(maxsize=64)  # parsed once per lesson, not once per prediction
def about_box(lesson: str) -> str:
    """The front matter the site shows above the lesson: title, summaries, teaches, hands_on."""
    if not lesson.startswith("---"):
        return ""
    front = yaml.safe_load(lesson.split("\n---", 1)[0].removeprefix("---")) or {}
    shown = [str(front.get(name, "")) for name in ("title", "teaches", "hands_on")]
    for listed in ("carried_in", "ships"):
        shown += [str(entry.get("summary", "")) for entry in front.get(listed) or ()]
    return "\n\n".join(text for text in shown if text)


def _sections(lesson: str) -> list[tuple[str, str]]:
    """(heading, text) of every `##` section of the lesson body, front matter left out."""
    body = lesson.split("\n---", 1)[1] if lesson.startswith("---") else lesson
    parts = re.split(r"(?m)^(?=## )", body)
    return [
        (part.splitlines()[0].strip() if part.startswith("## ") else "(top)", part)
        for part in parts
    ]


def lesson_reading(lesson: str) -> list[tuple[str, str]]:
    """(where, text) for what the lesson shows before the notebook: About box, unfolded sections."""
    read = [("front matter (the site's About box)", about_box(lesson))]
    read += [
        (f"lesson {title}", text)
        for title, text in _sections(lesson)
        if not title.startswith(FOLDED)
    ]
    return read


def headings(lesson: str, cells: list[Cell]) -> list[tuple[str, str]]:
    """Every `##` heading of the lesson, every deeper one in an unfolded section, and every
    heading of the notebook."""
    found = []
    for title, text in _sections(lesson):
        folded = title.startswith(FOLDED)
        found += [
            ("lesson heading", line)
            for line in text.splitlines()
            if line.startswith("## ") or (not folded and re.match(r"#{3,6} ", line))
        ]
    for i, cell in enumerate(cells):
        if cell.kind == "markdown":
            lines = cell.source.splitlines()
            found += [
                (f"notebook heading (cell {i})", line)
                for line in lines
                if re.match(r"#{1,6} ", line)
            ]
    return found


@dataclass(frozen=True)
class PredictCall:
    """One `course.predict(...)` call in a cell: its key, where it ends, its options' spans."""

    key: str | None
    end: int  # offset in the cell's source just after the call
    option_spans: tuple[tuple[int, int], ...]


def _offsets(source: str) -> list[int]:
    starts = [0]
    for line in source.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    return starts


@functools.lru_cache(maxsize=READ_TEXTS)
def predict_calls(source: str) -> tuple[PredictCall, ...]:
    """Every `course.predict` call of a code cell, with the spans of its option strings (written
    in the call, or in a name the cell binds and the call's options use). Kept once parsed: each
    prediction of a session looks through the same cells."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return ()
    starts = _offsets(source)

    def span(node: ast.expr) -> tuple[int, int]:
        end_line, end_col = node.end_lineno or node.lineno, node.end_col_offset or 0
        return starts[node.lineno - 1] + node.col_offset, starts[end_line - 1] + end_col

    bound = {
        target.id: node.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Assign)
        for target in node.targets
        if isinstance(target, ast.Name)
    }
    calls = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "predict"):
            continue
        key = node.args[0].value if node.args and isinstance(node.args[0], ast.Constant) else None
        given = [kw.value for kw in node.keywords if kw.arg == "options"] + node.args[2:3]
        given += [
            bound[n.id]
            for g in given
            for n in ast.walk(g)
            if isinstance(n, ast.Name) and n.id in bound
        ]
        spans = [
            span(c)
            for g in given
            for c in ast.walk(g)
            if isinstance(c, ast.Constant) and isinstance(c.value, str)
        ]
        calls.append(
            PredictCall(key if isinstance(key, str) else None, span(node)[1], tuple(spans))
        )
    return tuple(calls)


def _without(source: str, spans: Iterable[tuple[int, int]]) -> str:
    for start, end in sorted(spans, reverse=True):
        source = source[:start] + '""' + source[end:]
    return source


def before_prediction(key: str, lesson: str, cells: list[Cell]) -> list[tuple[str, str]]:
    """Everything a learner has read when prediction `key` is asked, as (where, text) pairs."""
    read = lesson_reading(lesson) + headings(lesson, cells)
    for i, cell in enumerate(cells):
        mine = (
            [call for call in predict_calls(cell.source) if call.key == key]
            if cell.kind == "code"
            else []
        )
        if not mine:
            read.append((f"notebook cell {i} ({cell.kind})", cell.source))
            if cell.output:
                read.append((f"output of notebook cell {i}", cell.output))
            continue
        asked = _without(cell.source[: mine[0].end], mine[0].option_spans)  # siblings' stay in
        read.append((f"the predict cell {i} (its options taken out)", asked))
        printed, marker, after = cell.output.partition(f"[predict {key}]")
        if marker:
            read.append((f"output of notebook cell {i}, before this prediction", printed))
            read.append((f"the printed predict line of {key}", marker + after.split("\n", 1)[0]))
        return read
    raise LookupError(f"no notebook cell asks for prediction {key}")


# --- what an outcome gives away by itself ------------------------------------------------------

# Words that only hedge a figure ("about 40%" is given away by "40%").
HEDGES = ("about", "around", "roughly")
# Words that carry no answer on their own: a part of an option made only of these and one other
# word ("no ticket", "the same") names no choice.
FILLERS = {
    stem(w)
    for w in "a an the it its and or of to in on at by for with from no not only same all".split()
}
TELLING_CHARS = 8  # a one-word outcome longer than this is telling ("3" is in every text)


def _telling(found: list[str]) -> bool:
    """Two words that are not fillers, one long word, or a share ("40%", not the count "3")."""
    kept = [word for word in found if word not in FILLERS]
    if len(kept) == 1 and kept[0].startswith("#"):
        return "~" in kept[0] or "/" in kept[0] or "." in kept[0]
    return len(kept) > 1 or (len(kept) == 1 and len(kept[0]) > TELLING_CHARS)


def own_words(outcome: str, options: Iterable[str]) -> list[Phrase]:
    """The giveaways an outcome brings by itself, whatever its declaration says (issue 37): the
    outcome as written (numbers as values, a leading hedge dropped), when it is telling; and the
    part after a colon ("no ticket: the cap stops it"), when no other option holds it."""
    others = [" ".join(words(option)) for option in options if option != outcome]
    phrases = []
    head, colon, answer = outcome.partition(":")
    for part in [outcome] + ([answer] if colon else []):
        found = words(part)
        while found and found[0] in HEDGES:
            found = found[1:]
        if part is answer and any(" ".join(found) in other for other in others):
            continue
        if _telling(found):
            phrases.append(Phrase(part.strip(), (tuple(found),)))
    return phrases


def _lists_options(sentence: Sequence[str], options: list[Phrase]) -> bool:
    """Whether a sentence names two or more of the options: it lists the choices (a dict of
    labels, a row of routes), it does not pick one."""
    return sum(option.found_in(sentence) for option in options) >= 2


def _unlisted(text: str, options: list[Phrase]) -> str:
    """`text` without its tables that name two or more options between their rows: such a
    table lists the choices (every stop reason and its rule), one row at a time."""
    tables = re.findall(r"(?m)(?:^[ \t]*\|.*\n?)+", text)
    for table in tables:
        if _lists_options([word for word in words(table) if word != "|"], options):
            text = text.replace(table, "\n")
    return text


def spoilers(
    key: str,
    giveaways: Iterable[str],
    lesson: str,
    cells: list[Cell],
    label_words: Iterable[str] = (),
    outcome: tuple[str, tuple[str, ...]] | None = None,
) -> list[str]:
    """Every place read before `key` is asked that holds one of its giveaways, one line each.
    With `outcome` (the outcome and its options), the outcome's own words count too
    (`own_words`), except in a sentence that lists the options."""
    phrases = [compile_phrase(p) for p in giveaways]
    labels = phrases + [compile_phrase(p) for p in label_words]
    own = own_words(*outcome) if outcome else []
    choices = [compile_phrase(o) for o in outcome[1] if words(o)] if outcome else []
    found = set()
    for where, text in before_prediction(key, lesson, cells):
        is_label = where.startswith("notebook heading") or where.startswith(
            "the printed predict line"
        )
        for phrase, sentence in find(labels if is_label else phrases, text):
            found.add(f"{key}: {where} gives it away ({phrase!r}): {sentence!r}")
        for sentence in sentences(_unlisted(text, choices)) if own else ():
            if not _lists_options(sentence, choices):
                found |= {
                    f"{key}: {where} states its outcome ({p.source!r}): {' '.join(sentence)[:160]!r}"
                    for p in own
                    if p.found_in(sentence)
                }
    key_words = words(key.split(".", 1)[-1])
    found |= {
        f"{key}: the key itself gives it away ({p.source!r})"
        for p in labels + own
        if p.found_in(key_words)
    }
    return sorted(found)
