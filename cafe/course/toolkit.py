"""Your turn and checkpoints: a learner's function checked, and the number a session banks.

Session 00 (`sessions/s00-setup/`) shows each of the four notebook mechanics once; two live here:

- `compare(fn, check)` runs a session's check over the learner's "your turn" function and
  reports one of `COMPARE_STATUSES`: a stub that still raises `NotImplementedError` is not
  attempted yet, never a failure; an exception from the learner's code is a problem, and the
  notebook goes on; an exception the learner's code never raised is a bug in the check, raised.
- `checkpoint(session, name, value, model)` banks the number a session produces, with the model
  that produced it, under `checkpoints[session][name]` in the progress file.

The other two are `cafe.course.predictions` (predict, show the outcome) and `cafe.course.reveals`
(the reveal switch); the progress file is `cafe.course.progress`, and what every cell shares
(the key shape, headless text, scrubbed printing) is `cafe.course.cells`. Notebooks reach them
all through `cafe.course`.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, get_args

from cafe.course.cells import Clock, say, source_name, split_key, stamp
from cafe.course.live import LiveBatch, LiveStory
from cafe.course.progress import load_progress, record
from cafe.course.strict import fail_cell
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.settings.config import course_mode

__all__ = [
    "COMPARE_STATUSES",
    "CompareStatus",
    "CompareResult",
    "compare",
    "checkpoint",
    "Source",
    "SOURCES",
]

# A checkpoint's session tag: "s07", the first half of a course key (see `cafe.course.cells`).
_SESSION = re.compile(r"s\d{2}")

# What `compare` can say about a your-turn function: declared once, as a type and as a set.
CompareStatus = Literal["not_attempted", "passed", "failed"]
COMPARE_STATUSES: frozenset[str] = frozenset(get_args(CompareStatus))
# Whose number a checkpoint banks: your own exercise's, the scripted run's, or your model's.
Source = Literal["yours", "scripted", "live"]
SOURCES: tuple[str, ...] = get_args(Source)


def _not_json(value: Any, where: str) -> str | None:
    """Why `value` would not survive a JSON round trip unchanged (None when it would)."""
    if value is None or isinstance(value, (str, bool, int)):
        return None
    if isinstance(value, float):
        return None if math.isfinite(value) else f"{where} is {value!r}"
    if isinstance(value, (list, tuple)):
        return next((p for i, v in enumerate(value) if (p := _not_json(v, f"{where}[{i}]"))), None)
    if isinstance(value, dict):
        for k, v in value.items():
            if not isinstance(k, str):
                return f"{where} has the key {k!r}, which is not text"
            if problem := _not_json(v, f"{where}[{k!r}]"):
                return problem
        return None
    return f"{where} is a {type(value).__name__}"


# --- compare ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class CompareResult:
    """How a your-turn function fared: a status from `COMPARE_STATUSES`, and the problems found."""

    status: CompareStatus
    problems: tuple[str, ...] = ()

    @property
    def passed(self) -> bool:
        return self.status == "passed"

    def _ipython_display_(self) -> None:
        """`compare` has printed the report already; a trailing call displays nothing more."""


def _as_problems(found: Any, check: Callable[..., Any]) -> tuple[str, ...]:
    """A check's answer as a tuple of problem strings; anything else is the check author's bug."""
    if isinstance(found, str) or not isinstance(found, Iterable):
        raise TypeError(
            f"check {source_name(check)} must return a list of problem strings, "
            f"not {type(found).__name__}."
        )
    return tuple(str(problem) for problem in found)


def _recording(fn: Callable[..., Any], raised: list[BaseException]) -> Callable[..., Any]:
    """`fn` as the check sees it: the same calls and results, plus a note in `raised` of every
    exception `fn` lets out. `compare` uses the note to tell the learner's error from the check's."""

    @functools.wraps(fn)
    def learner(*args: Any, **kwargs: Any) -> Any:
        try:
            return fn(*args, **kwargs)
        except Exception as exc:
            raised.append(exc)
            raise

    return learner


def _judged(
    fn: Callable[..., Any], check: Callable[[Callable[..., Any]], Iterable[str]], name: str
) -> CompareResult:
    """Run `check` over `fn` (wrapped so its own exceptions are noted) and say how it fared."""
    raised: list[BaseException] = []
    try:
        found = check(_recording(fn, raised))
    except Exception as exc:
        if not any(exc is own for own in raised):
            raise  # a bug in the check itself: show the traceback to whoever wrote it
        if isinstance(exc, NotImplementedError):
            return CompareResult("not_attempted")  # the stub, still a stub
        # the learner's code broke: say how, and keep the notebook running
        return CompareResult("failed", (f"calling {name} raised {type(exc).__name__}: {exc}",))
    problems = _as_problems(found, check)
    return CompareResult("failed", problems) if problems else CompareResult("passed")


def _report(result: CompareResult, name: str, hint: str | None) -> str:
    """What `compare` prints for `result`: one line, plus a line per problem."""
    if result.status == "not_attempted":
        return (
            f"[compare {name}] not attempted yet: {name} still raises NotImplementedError.\n"
            f"  {hint or 'Replace the stub body with your own code, then run this cell again.'}"
        )
    if result.status == "passed":
        return f"[compare {name}] passed: every check holds."
    count = len(result.problems)
    lines = [f"[compare {name}] failed: {count} problem{'s' if count != 1 else ''}"]
    return "\n".join(lines + [f"  - {problem}" for problem in result.problems])


def compare(
    fn: Callable[..., Any],
    check: Callable[[Callable[..., Any]], Iterable[str]],
    *,
    key: str | None = None,
    hint: str | None = None,
    clock: Clock | None = None,
) -> CompareResult:
    """Run `check(fn)` and report: not attempted yet (stub), passed, or each problem.

    The check is handed `fn` wrapped so that every exception `fn` raises is noted. When the check
    lets an exception out, that note decides whose it is: the stub's `NotImplementedError` is
    "not attempted yet", not a failure; any other exception from the learner's function is
    reported as a problem, so the notebook keeps going; an exception the learner's function never
    raised is a bug in the check and is raised. With `key=`, the status is saved. In strict mode
    (`CAFE_STRICT=1`, `cafe.course.strict`) anything but "passed" also fails the cell.
    """
    if key is not None:
        split_key(key)  # a bad key is the notebook author's mistake: say so before running anything
    name = getattr(fn, "__name__", "your function")
    result = _judged(fn, check, name)
    say(_report(result, name, hint))
    if key is not None:
        record(
            "exercises",
            key,
            {"status": result.status, "problems": list(result.problems), "saved_at": stamp(clock)},
        )
    if result.status != "passed":  # strict mode (instructors): an exercise not done fails its cell
        fail_cell(_report(result, name, hint).splitlines()[0])
    return result


# --- checkpoint -------------------------------------------------------------------------------


def _failed_need(needs: Iterable[LiveStory[Any] | LiveBatch[Any, Any]]) -> dict[str, Any] | None:
    """The first needed live story that failed, as the entry to bank in its figure's place."""
    for story in needs:
        if isinstance(story, LiveStory) and story.failed:
            return {"failed": story.failed, "reason": story.reason, "story": story.key}
        if isinstance(story, LiveBatch) and story.failed and not story.done:
            kind = story.failed[0][1]
            return {"failed": kind, "reason": story.summary(), "story": story.key}
    return None


def _banked_before(session: str, name: str) -> bool:
    """True when the progress file already holds a figure for `session.name`."""
    try:
        banked = load_progress().get("checkpoints", {}).get(session, {}).get(name)
    except ConfigError:  # no usable progress folder: `record` says so when it tries to save
        return False
    if not isinstance(banked, dict) or "value" not in banked:
        return False
    value = banked["value"]
    return not (isinstance(value, dict) and {"failed", "story"} <= value.keys())


def _as_json(session: str, name: str, value: Any) -> Any:
    """`value` as the progress file will hold it; a value JSON cannot hold is a `TypeError`."""
    problem = _not_json(value, "value")
    if problem:
        raise TypeError(
            f"checkpoint {session}.{name}: the value must be JSON data (numbers, text, "
            f"True/False/None, lists, dicts with text keys), but {problem}."
        )
    return json.loads(json.dumps(value))


def _checked_source(session: str, name: str, source: Source | None) -> Source:
    """The checkpoint's source (the mode's default when left out), once its names are checked."""
    if not isinstance(session, str) or not _SESSION.fullmatch(session):
        raise ValueError(f"session must look like 's07', not {session!r}.")
    if source is None:
        source = "live" if course_mode() == "live" else "scripted"
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, not {source!r}.")
    split_key(f"{session}.{name}")
    return source


def checkpoint(
    session: str,
    name: str,
    value: Any,
    model: str | None = None,
    *,
    source: Source | None = None,
    needs: Iterable[LiveStory[Any] | LiveBatch[Any, Any]] = (),
    clock: Clock | None = None,
) -> None:
    """Bank a session's number: saved under `checkpoints[session][name]` with the model and time.

    `source` says whose number it is (`SOURCES`): `yours` for a figure your own exercise produced,
    `scripted` for the course's scripted run, `live` for a run against your model. Left out, it is
    `live` in live mode and `scripted` offline.

    `needs` names the live stories (`cafe.course.live`) the value came from. When one of them
    failed, an earlier entry for this checkpoint is kept as it was; with none, the failure itself
    is banked (`{"failed": kind, "reason": ...}`), never a figure the failed run did not earn.
    """
    source = _checked_source(session, name, source)
    failure = _failed_need(needs)
    if failure is not None:
        if _banked_before(session, name):
            say(
                f"[checkpoint {session}.{name}] not replaced: {failure['story']} stopped on an "
                f"endpoint problem ({failure['failed']}), so the figure you banked before stays."
            )
            return
        value = failure
    stored = _as_json(session, name, value)
    saved = record(
        "checkpoints",
        name,
        {"value": stored, "model": model, "source": source, "saved_at": stamp(clock)},
        session=session,
    )
    where = (
        "saved to your progress file; course.load_progress() reads it back"
        if saved
        else "NOT saved: the message above says why and what to do"
    )
    shown = json.dumps(stored, ensure_ascii=False, sort_keys=True)
    say(f"[checkpoint {session}.{name}] banked {shown} ({source}; model: {model or 'not given'})")
    say(f"  {where}")
