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
number words as digits, a light stem), so "three turns", "3 turns" and "Three turn(s)" are one
phrase; `"a … b"` matches a, then b within `GAP` words, in one sentence; `"&a b c"` matches all
three in one sentence, in any order; anything else is an exact phrase.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass

import yaml

GAP = 6  # words allowed between the parts of an "a … b" phrase
# The lesson sections the site folds under "after the notebook" (the reading order).
FOLDED = ("## Checkpoint", "## State of the art", "## Annotated readings", "## Misconceptions")
FOLDED += ("## Self-check",)
NUMBER_WORDS = {
    word: str(n)
    for n, word in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
        "fifteen sixteen seventeen eighteen nineteen twenty".split()
    )
}
NUMBER_WORDS |= {"once": "1", "twice": "2", "first": "1st", "second": "2nd", "third": "3rd"}
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
    """`text` as a reader takes it in: folded, unmarked, numbers as digits, stemmed."""
    text = re.sub(r"[`*]", "", text.casefold()).replace("’", "'")
    text = re.sub(r"'s\b", "", text)
    text = re.sub(r"[_\-/:=|,()\[\]{}\"<>]", " ", text)
    found = []
    for raw in re.findall(r"[\w.%+'$€]+", text):
        raw = raw.strip(".'")
        if raw:
            found.append(stem(NUMBER_WORDS.get(raw, raw)))
    return found


def sentences(text: str) -> list[list[str]]:
    """Sentences as word lists, split at . ! ? ; and at a paragraph, list item, row or heading."""
    chunks = re.split(r"(?<=[.!?;])\s+|\n\s*\n|\n(?=\s*(?:[-*|#>]|\d+\.)\s)", text)
    return [found for chunk in chunks if (found := words(chunk))]


@dataclass(frozen=True)
class Phrase:
    """A compiled giveaway: its parts (in order, at most GAP words apart), or a bag of words."""

    source: str
    parts: tuple[tuple[str, ...], ...]
    unordered: bool = False

    def found_in(self, sentence: list[str]) -> bool:
        if self.unordered:
            return all(word in sentence for part in self.parts for word in part)
        return _ordered(sentence, self.parts, 0, None)


def _ordered(
    sentence: list[str], parts: tuple[tuple[str, ...], ...], start: int, limit: int | None
) -> bool:
    if not parts:
        return True
    first, n = parts[0], len(parts[0])
    last = len(sentence) - n if limit is None else min(len(sentence) - n, start + limit)
    return any(
        tuple(sentence[i : i + n]) == first and _ordered(sentence, parts[1:], i + n, GAP)
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


def predict_calls(source: str) -> list[PredictCall]:
    """Every `course.predict` call of a code cell, with the spans of its option strings (written
    in the call, or in a name the cell binds and the call's options use)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return []
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
    return calls


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


def spoilers(
    key: str,
    giveaways: Iterable[str],
    lesson: str,
    cells: list[Cell],
    label_words: Iterable[str] = (),
) -> list[str]:
    """Every place read before `key` is asked that holds one of its giveaways, one line each."""
    phrases = [compile_phrase(p) for p in giveaways]
    labels = phrases + [compile_phrase(p) for p in label_words]
    found = set()
    for where, text in before_prediction(key, lesson, cells):
        is_label = where.startswith("notebook heading") or where.startswith(
            "the printed predict line"
        )
        for phrase, sentence in find(labels if is_label else phrases, text):
            found.add(f"{key}: {where} gives it away ({phrase!r}): {sentence!r}")
    key_words = words(key.split(".", 1)[-1])
    found |= {
        f"{key}: the key itself gives it away ({p.source!r})"
        for p in labels
        if p.found_in(key_words)
    }
    return sorted(found)
