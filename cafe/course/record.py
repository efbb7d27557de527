"""Your record, read from the progress file: what `cafe progress` prints.

Per session: the predictions you made and how many matched what happened, the exercises you ran
and passed, and each figure you banked with the model it came from and whose it is (`yours`,
`scripted` or `live`; see `cafe.course.checkpoint`). `cafe.course.record_view` shows it as text or
JSON.

Reading never changes the file. `cafe.course.progress.load_progress` sets a damaged file aside and
starts a fresh one, which is right for a notebook about to save and wrong for a command that only
looks: `read_record` reads the file's text with `cafe.course.progress_reading` (one bad entry
never takes the others with it) and touches nothing. Whatever cannot be shown is listed in words
(`LearnerRecord.problems`), never raised.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from cafe.course.progress import progress_path, progress_text
from cafe.course.progress_reading import SECTIONS, read_progress
from cafe.course.syllabus import SESSIONS
from cafe.course.toolkit import COMPARE_STATUSES

_KEY = re.compile(r"(s\d{2})\.([A-Za-z_][A-Za-z0-9_]*)")
_TAG = re.compile(r"s\d{2}")
VALUE_CHARS = 70
# Whose figure a checkpoint holds (`cafe.course.checkpoint`); entries saved before the field
# existed read as "unlabelled".
SOURCES = ("scripted", "live", "yours")


# --- reading without side effects ------------------------------------------------------------


def read_progress_as_is(path: Path) -> tuple[dict[str, Any] | None, bool, str | None, list[str]]:
    """(data, exists, why the file cannot be read, entries set aside): never renames, never writes,
    never raises for a bad file."""
    try:
        text = progress_text(path)  # a pipe, a device or a file too big to be ours: not read
    except FileNotFoundError:
        return None, False, None, []
    except ValueError as exc:
        return None, True, str(exc), []
    reading = read_progress(text)
    if reading.problem is not None:
        return None, True, reading.problem, []
    aside = [f"{where} {why}; left out" for where, why in reading.set_aside]
    return reading.data, True, None, aside


# --- records ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class PredictionLine:
    key: str
    guess: Any  # None: an outcome was shown with no prediction recorded
    actual: Any = None
    match: bool | None = None  # None: no outcome yet, or nothing was predicted


@dataclass(frozen=True)
class ExerciseLine:
    key: str
    status: (
        str  # passed, failed, not_attempted (or "unknown" for an entry this course did not write)
    )
    problem: str = ""  # the first problem of the latest compare


@dataclass(frozen=True)
class CheckpointLine:
    name: str
    value: Any
    model: str | None
    source: str  # scripted, live, yours, or unlabelled
    saved_at: str | None

    def value_text(self) -> str:
        text = json.dumps(self.value, ensure_ascii=False, sort_keys=True)
        return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 3] + "..."


@dataclass(frozen=True)
class SessionRecord:
    session: str
    folder: str
    predictions: tuple[PredictionLine, ...] = ()
    exercises: tuple[ExerciseLine, ...] = ()
    checkpoints: tuple[CheckpointLine, ...] = ()

    @property
    def made(self) -> int:
        return sum(p.guess is not None for p in self.predictions)

    @property
    def matched(self) -> int:
        return sum(p.match is True for p in self.predictions)

    @property
    def missed(self) -> int:
        return sum(p.match is False for p in self.predictions)

    @property
    def waiting(self) -> int:
        """Predictions recorded whose outcome has not been shown yet."""
        return sum(p.guess is not None and p.match is None for p in self.predictions)

    @property
    def unpredicted(self) -> int:
        """Outcomes shown with no prediction recorded first."""
        return sum(p.guess is None for p in self.predictions)

    @property
    def passed(self) -> int:
        return sum(e.status == "passed" for e in self.exercises)

    @property
    def touched(self) -> bool:
        return bool(self.made or self.unpredicted or self.exercises or self.checkpoints)


@dataclass(frozen=True)
class LearnerRecord:
    path: str
    exists: bool
    unreadable: str | None  # why the file cannot be read at all (then nothing else is known)
    sessions: tuple[SessionRecord, ...] = ()
    problems: tuple[str, ...] = field(default=())  # entries that cannot be shown, in words

    @property
    def models(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for s in self.sessions:
            for c in s.checkpoints:
                counts[c.model or "(no model)"] = counts.get(c.model or "(no model)", 0) + 1
        return counts


# --- building the record ---------------------------------------------------------------------


def _keyed(section: Any, name: str, problems: list[str]) -> dict[str, dict[str, Any]]:
    """{'s07': {'stop_reason': entry}} from a section keyed 's07.stop_reason'; the rest as problems."""
    if not isinstance(section, Mapping):
        problems.append(f"the {name} section is not a set of named entries; none of it is shown")
        return {}
    found: dict[str, dict[str, Any]] = {}
    for key, entry in section.items():
        match = _KEY.fullmatch(str(key))
        if match is None:
            problems.append(
                f"{name}: {key!r} is not a course key (they look like 's07.stop_reason'); left out"
            )
        elif not isinstance(entry, Mapping):
            problems.append(f"{name}: {key} is not an entry (a {type(entry).__name__}); left out")
        else:
            found.setdefault(match.group(1), {})[match.group(2)] = dict(entry)
    return found


def _checkpoints(section: Any, problems: list[str]) -> dict[str, list[CheckpointLine]]:
    if not isinstance(section, Mapping):
        problems.append("the checkpoints section is not a set of sessions; none of it is shown")
        return {}
    found: dict[str, list[CheckpointLine]] = {}
    for tag, entries in section.items():
        if not _TAG.fullmatch(str(tag)) or not isinstance(entries, Mapping):
            problems.append(f"checkpoints: {tag!r} is not a session's set of checkpoints; left out")
            continue
        for name, entry in entries.items():
            if not isinstance(entry, Mapping) or "value" not in entry:
                problems.append(f"checkpoints: {tag}.{name} holds no value; left out")
                continue
            model, source = entry.get("model"), entry.get("source")
            found.setdefault(str(tag), []).append(
                CheckpointLine(
                    str(name),
                    entry["value"],
                    model if isinstance(model, str) else None,
                    source if source in SOURCES else "unlabelled",
                    entry.get("saved_at") if isinstance(entry.get("saved_at"), str) else None,
                )
            )
    return found


def _session(
    tag: str,
    folder: str,
    predictions: Mapping[str, Any],
    outcomes: Mapping[str, Any],
    exercises: Mapping[str, Any],
    checkpoints: Sequence[CheckpointLine],
) -> SessionRecord:
    lines = []
    for name in sorted(set(predictions) | set(outcomes)):
        guess = predictions.get(name, {}).get("value")
        outcome = outcomes.get(name)
        if outcome is None:
            lines.append(PredictionLine(f"{tag}.{name}", guess))
        else:
            match = outcome.get("match") if isinstance(outcome.get("match"), bool) else None
            lines.append(
                PredictionLine(
                    f"{tag}.{name}",
                    guess if guess is not None else outcome.get("predicted"),
                    outcome.get("actual"),
                    match,
                )
            )
    done = []
    for name in sorted(exercises):
        entry = exercises[name]
        problems = entry.get("problems") if isinstance(entry.get("problems"), list) else []
        status = entry.get("status") if entry.get("status") in COMPARE_STATUSES else "unknown"
        done.append(ExerciseLine(f"{tag}.{name}", status, str(problems[0]) if problems else ""))
    return SessionRecord(
        tag, folder, tuple(lines), tuple(done), tuple(sorted(checkpoints, key=lambda c: c.name))
    )


def read_record(path: str | Path | None = None) -> LearnerRecord:
    """The learner's record from the progress file (default: `progress_path()`), read as it is."""
    target = Path(path) if path is not None else progress_path()
    data, exists, unreadable, problems = read_progress_as_is(target)
    if data is None:
        sessions = (
            tuple(_session(f"s{s.number:02d}", s.folder, {}, {}, {}, []) for s in SESSIONS)
            if not unreadable
            else ()
        )
        return LearnerRecord(str(target), exists, unreadable, sessions)
    version = data.get("version", 1)
    if version != 1:
        problems.append(
            f"the file is version {version!r}; this course reads version 1, so some entries may be missing"
        )
    unknown = sorted(set(data) - {"version", *SECTIONS})
    if unknown:
        problems.append(
            f"sections this course does not write ({', '.join(map(str, unknown))}) are not shown"
        )
    predictions = _keyed(data.get("predictions", {}), "predictions", problems)
    outcomes = _keyed(data.get("outcomes", {}), "outcomes", problems)
    exercises = _keyed(data.get("exercises", {}), "exercises", problems)
    checkpoints = _checkpoints(data.get("checkpoints", {}), problems)
    known = {f"s{s.number:02d}": s.folder for s in SESSIONS}
    strangers = sorted(
        (set(predictions) | set(outcomes) | set(exercises) | set(checkpoints)) - set(known)
    )
    for tag in strangers:
        problems.append(
            f"{tag}: this course has no such session (they run s00 to s{len(SESSIONS) - 1:02d}); "
            "its entries are not shown"
        )
    sessions = tuple(
        _session(
            tag,
            folder,
            predictions.get(tag, {}),
            outcomes.get(tag, {}),
            exercises.get(tag, {}),
            checkpoints.get(tag, []),
        )
        for tag, folder in known.items()
    )
    return LearnerRecord(str(target), exists, None, sessions, tuple(problems))
