"""The reading order in lesson.md: the Build section's last line, and self-check answers folded.

A lesson is read up to the end of Build, then the notebook, then the rest (docs/AUTHORING.md,
"Reading order"). Two things in lesson.md carry that order:

- the Build section ends with `READING_ORDER_LINE`, the same sentence in every lesson;
- each self-check answer sits between `ANSWER_OPEN` and `ANSWER_CLOSE` lines, so GitHub shows it
  folded under its question:

  ```markdown
  ### Why is a same-context retry a resample rather than a repair?

  <details><summary>Answer</summary>

  Because ...

  </details>
  ```

The site's markdown runs with raw HTML off, so `strip_answer_wrappers` blanks exactly those two
lines inside `## Self-check` before the body is parsed (line numbers stay right) and the site
folds each answer itself, as it always has. Any other HTML still shows as text.

`check_reading_order` reports a wrapper that would show as text (outside Self-check, or not
paired) always; a missing reading-order line or an unwrapped answer only when `required`, which
defaults to `lesson_format.REQUIRE_READING_ORDER`. Like the other checks it reads no file and
never raises.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import lesson_format
from lesson_format import ANSWER_CLOSE, ANSWER_OPEN, BUILD, READING_ORDER_LINE, SELF_CHECK, Problem

__all__ = ["Line", "check_reading_order", "lines_of", "strip_answer_wrappers"]

_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_WRAPPERS = (ANSWER_OPEN, ANSWER_CLOSE)


@dataclass(frozen=True)
class Line:
    """One line of a lesson body: its text, its number in lesson.md, where it stands."""

    text: str
    number: int  # 1-based line in lesson.md
    section: str | None  # the `##` section it is in (None before the first)
    code: bool  # inside a fenced code block

    @property
    def wrapper(self) -> str | None:
        """ANSWER_OPEN or ANSWER_CLOSE when the line is exactly one of them (outside code)."""
        stripped = self.text.strip()
        return stripped if not self.code and stripped in _WRAPPERS else None


def lines_of(body: str, body_line: int = 1) -> list[Line]:
    """Every line of `body`, knowing its `##` section and whether it is fenced code."""
    found: list[Line] = []
    section: str | None = None
    fence: str | None = None
    for i, text in enumerate(body.split("\n")):
        opened = _FENCE.match(text)
        in_code = fence is not None or opened is not None
        if fence is None and opened:
            fence = opened.group(1)[0] * 3
        elif fence is not None and text.strip().startswith(fence):
            fence = None
        elif fence is None and text.startswith("## "):
            section = text[3:].strip()
        found.append(Line(text, body_line + i, section, in_code))
    return found


def strip_answer_wrappers(body: str) -> str:
    """`body` with each answer-wrapper line inside `## Self-check` made blank; nothing else changed."""
    return "\n".join(
        "" if line.wrapper and line.section == SELF_CHECK else line.text for line in lines_of(body)
    )


def _answers(lines: list[Line]) -> Iterator[tuple[Line, list[Line]]]:
    """(question heading, the answer's non-blank lines) for every `###` question of Self-check."""
    question: Line | None = None
    answer: list[Line] = []
    for line in lines:
        if line.section != SELF_CHECK or line.text.startswith("## "):
            continue
        if not line.code and line.text.startswith("### "):
            if question is not None:
                yield question, answer
            question, answer = line, []
        elif question is not None and line.text.strip():
            answer.append(line)
    if question is not None:
        yield question, answer


def _answer_problem(answer: list[Line], required: bool) -> str | None:
    """What is wrong with one answer's wrapping, in words (empty when it is fine)."""
    wrappers = [line.wrapper for line in answer if line.wrapper]
    if not wrappers:
        return "is not folded: put its answer between the lines " if required else None
    wrapped = (
        wrappers == [ANSWER_OPEN, ANSWER_CLOSE]
        and answer[0].wrapper == ANSWER_OPEN
        and answer[-1].wrapper == ANSWER_CLOSE
        and len(answer) > 2
    )
    return None if wrapped else "has a broken fold: write exactly one answer between the lines "


def _self_check_problems(lines: list[Line], rel: str, required: bool) -> list[Problem]:
    problems = []
    for question, answer in _answers(lines):
        said = _answer_problem(answer, required)
        if said is not None:
            problems.append(
                Problem(
                    rel,
                    f"self-check question '{question.text[4:].strip()}' (line {question.number})",
                    f"{said}'{ANSWER_OPEN}' and '{ANSWER_CLOSE}', each alone on its line "
                    "with a blank line around the answer",
                )
            )
    return problems


def _build_problems(lines: list[Line], rel: str) -> list[Problem]:
    build = [line for line in lines if line.section == BUILD and line.text.strip()]
    if not build:  # no Build section: check_sections reports it
        return []
    last = build[-1]
    if last.text.strip() == READING_ORDER_LINE:
        return []
    return [
        Problem(
            rel,
            f"section '## {BUILD}' (line {build[0].number})",
            f"must end with the reading-order line, alone as its last paragraph: "
            f"'{READING_ORDER_LINE}' (add it after line {last.number})",
        )
    ]


def check_reading_order(
    body: str, body_line: int, rel: str, *, required: bool | None = None
) -> list[Problem]:
    """Answer wrappers that would show as text, always; with `required` (default
    `lesson_format.REQUIRE_READING_ORDER`), a Build section without the reading-order line and
    every self-check answer that is not folded."""
    required = lesson_format.REQUIRE_READING_ORDER if required is None else required
    lines = lines_of(body, body_line)
    problems = [
        Problem(
            rel,
            f"line {line.number}",
            f"'{line.wrapper}' folds a self-check answer and belongs only inside "
            f"'## {SELF_CHECK}'; elsewhere the site shows it as text",
        )
        for line in lines
        if line.wrapper and line.section != SELF_CHECK
    ]
    problems += _self_check_problems(lines, rel, required)
    if required:
        problems += _build_problems(lines, rel)
    return problems
