"""The gradebook: one line per learner, session and thing graded, read from what the runs banked.

A graded notebook banks its results in a progress file of its own (`cafe.course.grading.runner` gives each
run a fresh `CAFE_HOME`), in the format `cafe.course.progress` describes: `exercises` (each
compare's status and problems), `predictions` and `outcomes` (each guess, and what happened), and
`checkpoints`, among them the capstone's result, which `cafe capstone check` banks as
`s16.capstone` (`cafe/capstone/grader.py`). `grade_learner` turns those, and the learner's own progress file when they handed
one in, into `Line`s:

| kind | key | result |
|---|---|---|
| `submission` | the file | `unreadable` (a file that could not be read), `note` (read, with a caveat) |
| `notebook` | its file name | `ran`, `errored`, `timed_out`, `failed_to_run` |
| `exercise` | `s07.failure_view` | `passed`, `failed`, `not_attempted`, `not_run`, `unknown` |
| `prediction` | `s07.first_draft` | `matched`, `missed`, `unanswered`, `not_shown`, `not_run` |
| `checkpoint` | `s07.attempts_to_pass` | `banked` (detail: whose figure and which model), `failed` |
| `capstone` | `s16.capstone` | `passed`, `failed` (detail: the seed, the scenarios, the properties failed and those held only vacuously) |

An exercise the course's notebook asks for that the run never reached is `not_run`, never left
out. A prediction made in a Jupyter widget is saved to the learner's own progress file, not to
the notebook, so predictions are read from both: the run's when it has a guess, else the
learner's file's (`origin` says which). Exercises come from the run; from the learner's file only
for a session no notebook was handed in for. `origin` is `run`, `progress file` or `submission`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, get_args

from cafe.course.grading.runner import NotebookRun
from cafe.course.record import LearnerRecord, read_record

__all__ = ["Kind", "KINDS", "Line", "course_items", "notebook_lines", "record_lines"]

Kind = Literal["submission", "notebook", "exercise", "prediction", "checkpoint", "capstone"]
KINDS: tuple[str, ...] = get_args(Kind)
# Keys as notebooks write them: `course.compare(..., key="s07.failure_view")`,
# `course.predict("s07.first_draft", ...)`.
_COMPARE_KEY = re.compile(r'course\.compare\((?:[^"]|"[^"]*")*?key="(s\d{2}\.\w+)"', re.S)
_PREDICT_KEY = re.compile(r'course\.predict\(\s*"(s\d{2}\.\w+)"')
_TAG = re.compile(r"\b(s\d{2})")


@dataclass(frozen=True)
class Line:
    """One thing graded: whose, which session, what kind, its key, the result, and why."""

    learner: str
    session: str  # "s07"; "" for the submission as a whole
    kind: Kind
    key: str
    result: str
    detail: str = ""
    origin: str = "run"


def _cells_text(notebook: Mapping[str, Any]) -> str:
    cells = notebook.get("cells", [])
    sources = (
        [c.get("source", "") for c in cells if isinstance(c, dict)]
        if isinstance(cells, list)
        else []
    )
    return "\n".join(
        s if isinstance(s, str) else "".join(map(str, s)) if isinstance(s, list) else ""
        for s in sources
    )


def _course_copy(name: str, course_notebooks: Path | None) -> Path | None:
    """The course's notebook of that name, its letter case aside ("S00-Setup.ipynb" is session
    00's, as a Windows or macOS disk would have it); None when the course has none."""
    if course_notebooks is None or not course_notebooks.is_dir():
        return None
    found = [p for p in course_notebooks.glob("*.ipynb") if p.name.casefold() == name.casefold()]
    return found[0] if found else None


def course_items(notebook: Path, course_notebooks: Path | None) -> tuple[list[str], list[str]]:
    """The exercise keys and prediction keys a notebook asks for, in order: read from the course's
    own copy of it when there is one (a learner may have deleted cells), else from the notebook."""
    own = _course_copy(notebook.name, course_notebooks)
    for path in (own, notebook):
        if path is None or not path.is_file():
            continue
        try:
            text = _cells_text(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, AttributeError, TypeError, RecursionError):
            continue
        exercises = list(dict.fromkeys(_COMPARE_KEY.findall(text)))
        predictions = list(dict.fromkeys(_PREDICT_KEY.findall(text)))
        if exercises or predictions or path == notebook:
            return exercises, predictions
    return [], []


def _tag(key: str) -> str:
    return key.split(".", 1)[0]


def _exercise(learner: str, key: str, entry: Mapping[str, Any] | None, origin: str) -> Line:
    if entry is None:
        detail = "its compare cell never ran (see the notebook's line)"
        return Line(learner, _tag(key), "exercise", key, "not_run", detail, origin)
    status = entry.get("status")
    problems = entry.get("problems") if isinstance(entry.get("problems"), list) else []
    result = status if status in ("passed", "failed", "not_attempted") else "unknown"
    detail = (
        str(problems[0]) if problems else ("still the stub" if result == "not_attempted" else "")
    )
    if result == "unknown":
        detail = f"status {status!r} is not one this course writes"
    return Line(learner, _tag(key), "exercise", key, result, _one_line(detail), origin)


def _one_line(text: str, limit: int = 200) -> str:
    line = " ".join(text.split())
    return line if len(line) <= limit else line[: limit - 3] + "..."


def _prediction_result(guess: Any, outcome: Mapping[str, Any] | None) -> tuple[str, str]:
    if outcome is None:
        return (
            ("not_shown", f"predicted {guess!r}; the outcome cell never ran")
            if guess is not None
            else (
                "not_run",
                "neither the prediction nor its outcome was recorded",
            )
        )
    actual = outcome.get("actual")
    if guess is None:
        return "unanswered", f"outcome shown with no prediction recorded (it was {actual!r})"
    if outcome.get("match") is True:
        return "matched", f"predicted {guess!r}"
    return "missed", f"predicted {guess!r}; it was {actual!r}"


def _predictions(
    learner: str, keys: Iterable[str], run: Mapping[str, Any], own: Mapping[str, Any]
) -> list[Line]:
    """One line per prediction key: the run's when it holds a guess, else the learner's file's."""
    lines = []
    for key in keys:
        origin, source = "run", run
        if _guess(run, key) is None and _guess(own, key) is not None:
            origin, source = "progress file", own
        outcome = source.get("outcomes", {}).get(key)
        outcome = outcome if isinstance(outcome, Mapping) else None
        guess = _guess(source, key)
        result, detail = _prediction_result(guess, outcome)
        lines.append(Line(learner, _tag(key), "prediction", key, result, _one_line(detail), origin))
    return lines


def _guess(data: Mapping[str, Any], key: str) -> Any:
    entry = data.get("predictions", {}).get(key)
    if isinstance(entry, Mapping) and entry.get("value") not in (None, ""):
        return entry["value"]
    outcome = data.get("outcomes", {}).get(key)
    return outcome.get("predicted") if isinstance(outcome, Mapping) else None


# The checkpoint `cafe capstone check` banks its result in.
CAPSTONE_KEY = "s16.capstone"


def _capstone(learner: str, value: Any, model: Any, origin: str) -> Line:
    """The capstone's line: passed or failed, with the seed, the scenarios and what failed."""
    if not isinstance(value, Mapping) or not isinstance(value.get("passed"), bool):
        return Line(
            learner, "s16", "capstone", CAPSTONE_KEY, "unknown", "not a check's result", origin
        )
    failed = value.get("failed")
    detail = f"seed {value.get('seed')}, {value.get('scenarios')} scenarios; model: {model or 'not given'}"
    if isinstance(failed, list) and failed:
        detail += "; failed: " + ", ".join(map(str, failed))
    vacuous = value.get("vacuous")  # held only because nothing happened: not a pass
    if isinstance(vacuous, list) and vacuous:
        detail += "; vacuous: " + ", ".join(map(str, vacuous))
    result = "passed" if value["passed"] else "failed"
    return Line(learner, "s16", "capstone", CAPSTONE_KEY, result, detail, origin)


def _checkpoints(learner: str, data: Mapping[str, Any], origin: str) -> list[Line]:
    lines = []
    section = data.get("checkpoints", {})
    for tag, entries in sorted(section.items() if isinstance(section, Mapping) else []):
        for name, entry in sorted(entries.items() if isinstance(entries, Mapping) else []):
            if not isinstance(entry, Mapping):
                continue
            value = entry.get("value")
            failed = isinstance(value, Mapping) and {"failed", "story"} <= set(value)
            whose = entry.get("source") or "unlabelled"
            detail = f"{whose}; model: {entry.get('model') or 'not given'}"
            result = "failed" if failed else "banked"
            lines.append(Line(learner, tag, "checkpoint", f"{tag}.{name}", result, detail, origin))
            if f"{tag}.{name}" == CAPSTONE_KEY:
                lines.append(_capstone(learner, value, entry.get("model"), origin))
    return lines


def _keys(data: Mapping[str, Any], section: str) -> list[str]:
    entries = data.get(section, {})
    return sorted(k for k in entries if isinstance(k, str)) if isinstance(entries, Mapping) else []


def notebook_lines(
    learner: str,
    name: str,
    run: NotebookRun,
    expected: tuple[list[str], list[str]],
    own: Mapping[str, Any],
) -> list[Line]:
    """The lines for one notebook's run: the notebook itself, then its exercises, predictions and
    checkpoints (expected ones the run never reached included, as `not_run`)."""
    data = run.progress or {}
    exercises, predictions = expected
    session = next(iter(_TAG.findall(" ".join(exercises + predictions) or name)), "")
    errors = "; ".join(f"cell {cell}: {error}" for cell, error in run.errors)
    detail = _one_line("; ".join(filter(None, [run.detail, errors])), 400)
    lines = [Line(learner, session, "notebook", name, run.status, detail)]
    ran_exercises = _keys(data, "exercises")
    for key in list(dict.fromkeys(exercises + ran_exercises)):
        entry = data.get("exercises", {}).get(key)
        lines.append(_exercise(learner, key, entry if isinstance(entry, Mapping) else None, "run"))
    keys = list(dict.fromkeys(predictions + _keys(data, "outcomes") + _keys(data, "predictions")))
    lines += _predictions(learner, keys, data, own)
    return lines + _checkpoints(learner, data, "run")


def record_lines(learner: str, path: Path, covered: set[str]) -> tuple[list[Line], dict[str, Any]]:
    """What the learner's own progress file adds: its problems, its exercises for sessions no run
    covered, its checkpoints; and its data, for the predictions. An old or damaged file is read as
    far as it can be and named, never raised."""
    record: LearnerRecord = read_record(path)
    lines = []
    if record.unreadable:
        lines.append(
            Line(
                learner,
                "",
                "submission",
                path.name,
                "unreadable",
                record.unreadable,
                "progress file",
            )
        )
    for problem in record.problems:
        lines.append(
            Line(learner, "", "submission", path.name, "note", _one_line(problem), "progress file")
        )
    data = _as_data(record)
    for key in _keys(data, "exercises"):
        if _tag(key) not in covered:
            lines.append(_exercise(learner, key, data["exercises"][key], "progress file"))
    own_keys = _keys(data, "predictions") + _keys(data, "outcomes")
    uncovered = [key for key in dict.fromkeys(sorted(own_keys)) if _tag(key) not in covered]
    lines += _predictions(learner, uncovered, {}, data)
    for line in _checkpoints(learner, data, "progress file"):
        if line.session not in covered or not line.detail.startswith("scripted"):
            lines.append(line)
    return lines, data


def _as_data(record: LearnerRecord) -> dict[str, Any]:
    """The record back in the progress file's shape, holding only what `read_record` could read."""
    data: dict[str, Any] = {"predictions": {}, "outcomes": {}, "exercises": {}, "checkpoints": {}}
    for session in record.sessions:
        for p in session.predictions:
            if p.guess is not None:
                data["predictions"][p.key] = {"value": p.guess}
            if p.match is not None or p.actual is not None:
                data["outcomes"][p.key] = {
                    "predicted": p.guess,
                    "actual": p.actual,
                    "match": p.match,
                }
        for e in session.exercises:
            data["exercises"][e.key] = {
                "status": e.status,
                "problems": [e.problem] if e.problem else [],
            }
        for c in session.checkpoints:
            data["checkpoints"].setdefault(session.session, {})[c.name] = {
                "value": c.value,
                "model": c.model,
                "source": c.source,
            }
    return data
