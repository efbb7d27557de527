"""The notebook toolkit: predict first, reveal on demand, compare your turn, bank a checkpoint.

Every session's notebook uses the same four mechanics, all reached through this module:

- `predict(key, question, options)` records what you expect *before* a run; `show_outcome`
  prints that guess beside what actually happened.
- `reveal(key)` is a switch that loads a reference (an answer text from
  `cafe/data/answers/<session>.json`, or a function's source) only when you flip it on. It lives
  in `cafe.course.reveals`; `reveal`, `reveal_now`, `answers_path` and `Reveal` are re-exported here.
- `compare(fn, check)` runs a check over your "your turn" function; a stub that still raises
  `NotImplementedError` is reported as not attempted yet, never as a failure.
- `checkpoint(session, name, value, model)` banks the number a session produces.

Predictions, outcomes, compare results and checkpoints go to a progress file you own:
`$CAFE_HOME/progress.json` (default `~/.cafe/progress.json`), so later sessions (and the shift
report in session 09) can read what you banked. `cafe.course.progress` keeps that file safe; its
`progress_path`, `load_progress` and `save_progress` are re-exported here for notebooks.

Two display modes. Inside a Jupyter kernel the calls show ipywidgets. Headless (the variable
`CAFE_HEADLESS` set to 1, as the test suite and nbval do, or no kernel at all) every call prints
fixed plain text: no timestamps, no object ids, and never an answer. ipywidgets and IPython are
imported only inside the functions that draw widgets, so `import cafe.course` stays cheap. The
key shape and headless detection come from `cafe.course.cells`, shared with `cafe.course.reveals`.
Session 00 (`sessions/s00-setup/`) shows each mechanic once.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Literal, get_args

from cafe.course.cells import HEADLESS_VARIABLE, display_bundle, headless, source_name, split_key
from cafe.course.progress import (
    HOME_VARIABLE,
    PROGRESS_FILE,
    load_progress,
    progress_path,
    record,
    save_progress,
)
from cafe.course.reveals import Reveal, answers_path, reveal, reveal_now
from cafe.endpoint.config import course_mode

__all__ = [
    "HOME_VARIABLE",
    "HEADLESS_VARIABLE",
    "PROGRESS_FILE",
    "COMPARE_STATUSES",
    "CompareStatus",
    "CompareResult",
    "Prediction",
    "Reveal",
    "headless",
    "progress_path",
    "load_progress",
    "save_progress",
    "answers_path",
    "predict",
    "show_outcome",
    "reveal",
    "reveal_now",
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

Clock = Callable[[], datetime]
# Whose number a checkpoint banks: your own exercise's, the scripted run's, or your model's.
Source = Literal["yours", "scripted", "live"]
SOURCES: tuple[str, ...] = get_args(Source)


# --- small helpers ----------------------------------------------------------------------------


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _stamp(clock: Clock | None) -> str:
    return (clock or _utc_now)().isoformat(timespec="seconds")


def _jsonable(value: Any) -> Any:
    """`value` as plain JSON data (tuples become lists), or its repr when JSON cannot hold it."""
    try:
        return json.loads(json.dumps(value, allow_nan=False))
    except (TypeError, ValueError):
        return repr(value)


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


def _show(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value)


# --- predict ----------------------------------------------------------------------------------


class Prediction:
    """What the learner expects before a run. Set `.value` by widget or by plain assignment.

    Every change is saved to the progress file under `predictions[key]`. A trailing
    `course.predict(...)` displays nothing more: `predict` has already shown the question.
    """

    def __init__(
        self,
        key: str,
        question: str,
        options: Sequence[str] | None = None,
        *,
        clock: Clock | None = None,
    ):
        split_key(key)
        self.key = key
        self.question = question
        self.options: tuple[str, ...] | None = tuple(options) if options is not None else None
        self._value: str | None = None
        self._clock = clock
        self._widget: Any = None

    @property
    def value(self) -> str | None:
        return self._value

    @value.setter
    def value(self, new: str | None) -> None:
        if new is not None and self.options is not None and new not in self.options:
            raise ValueError(
                f"{new!r} is not one of the options for {self.key}: {list(self.options)}."
            )
        if new == self._value:
            return
        self._value = new
        if self._widget is not None:  # keep the widget in step with a plain assignment
            shown = new if self.options is not None else (new or "")
            if self._widget.value != shown:
                self._widget.value = shown
        if new not in (None, ""):
            record(
                "predictions",
                self.key,
                {"question": self.question, "value": new, "saved_at": _stamp(self._clock)},
            )

    def text(self) -> str:
        """The fixed plain-text form: headless output, and the fallback where widgets do not draw."""
        lines = [f"[predict {self.key}] {self.question}"]
        if self.options is not None:
            lines.append("  options: " + " | ".join(self.options))
        if self._value is None:
            # No example value: whichever option we showed would read as a hint, and no guessed
            # variable name: the handle is whatever name the notebook assigned it to.
            lines.append(
                "  Record it before the run: set .value on the handle this cell assigned "
                "(the name left of `= course.predict(...)`) to your answer."
            )
        else:
            lines.append(f"  your prediction: {_show(self._value)}")
        return "\n".join(lines)

    def widget(self) -> Any:
        """The ipywidgets control (built once): ToggleButtons for a few options, a Dropdown for
        many, a Text box without options. Its changes land in `.value`."""
        if self._widget is None:
            import ipywidgets as widgets

            label = {"description": "Your guess:", "style": {"description_width": "initial"}}
            if self.options is None:
                control = widgets.Text(
                    value=self._value or "",
                    placeholder="type, then press Enter",
                    continuous_update=False,
                    **label,
                )
            elif len(self.options) <= 4:
                control = widgets.ToggleButtons(options=self.options, value=self._value, **label)
            else:
                control = widgets.Dropdown(options=self.options, value=self._value, **label)
            control.observe(
                lambda change: setattr(self, "value", change["new"] or None), names="value"
            )
            self._widget = control
        return self._widget

    def _ipython_display_(self) -> None:
        """Shown once by `predict`; displaying the handle again adds nothing."""

    def __repr__(self) -> str:
        return f"Prediction({self.key!r}, value={self._value!r})"


def predict(
    key: str,
    question: str,
    options: Sequence[str] | None = None,
    *,
    answer: str | None = None,
    clock: Clock | None = None,
) -> Prediction:
    """Ask for a prediction before the run and return its handle.

    `answer=` records one straight away (handy in scripts); so does `handle.value = "..."`.
    In Jupyter this shows a widget; headless it prints the question and how to answer.
    """
    prediction = Prediction(key, question, options, clock=clock)
    if answer is not None:
        prediction.value = answer
    if headless():
        print(prediction.text())
    else:
        import html

        import ipywidgets as widgets

        title = widgets.HTML(
            value=f"<b>Predict first ({html.escape(key)}).</b> {html.escape(question)}"
        )
        display_bundle(widgets.VBox([title, prediction.widget()]), prediction.text())
    return prediction


def show_outcome(prediction: Prediction, actual: Any, *, clock: Clock | None = None) -> None:
    """Print the prediction beside the outcome, say whether they match, and save both."""
    guess = prediction.value
    if guess is None:
        verdict, matched = "no prediction was recorded (predict before you run next time)", None
    else:
        same = guess == actual or str(guess).strip().casefold() == str(actual).strip().casefold()
        verdict, matched = ("match" if same else "no match"), same
    print(
        f"[outcome {prediction.key}]\n  you predicted: {_show(guess) if guess is not None else '-'}"
        f"\n  actual:        {_show(_jsonable(actual))}\n  {verdict}"
    )
    record(
        "outcomes",
        prediction.key,
        {
            "predicted": guess,
            "actual": _jsonable(actual),
            "match": matched,
            "saved_at": _stamp(clock),
        },
    )


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
    raised is a bug in the check and is raised. With `key=`, the status is saved.
    """
    if key is not None:
        split_key(key)  # a bad key is the notebook author's mistake: say so before running anything
    name = getattr(fn, "__name__", "your function")
    raised: list[BaseException] = []
    try:
        found = check(_recording(fn, raised))
    except Exception as exc:
        if not any(exc is own for own in raised):
            raise  # a bug in the check itself: show the traceback to whoever wrote it
        if isinstance(exc, NotImplementedError):
            result = CompareResult("not_attempted")  # the stub, still a stub
        else:  # the learner's code broke: say how, and keep the notebook running
            result = CompareResult(
                "failed", (f"calling {name} raised {type(exc).__name__}: {exc}",)
            )
    else:
        problems = _as_problems(found, check)
        result = CompareResult("failed", problems) if problems else CompareResult("passed")

    if result.status == "not_attempted":
        print(
            f"[compare {name}] not attempted yet: {name} still raises NotImplementedError.\n"
            f"  {hint or 'Replace the stub body with your own code, then run this cell again.'}"
        )
    elif result.status == "passed":
        print(f"[compare {name}] passed: every check holds.")
    else:
        count = len(result.problems)
        print(f"[compare {name}] failed: {count} problem{'s' if count != 1 else ''}")
        print("\n".join(f"  - {problem}" for problem in result.problems))
    if key is not None:
        record(
            "exercises",
            key,
            {"status": result.status, "problems": list(result.problems), "saved_at": _stamp(clock)},
        )
    return result


# --- checkpoint -------------------------------------------------------------------------------


def checkpoint(
    session: str,
    name: str,
    value: Any,
    model: str | None = None,
    *,
    source: Source | None = None,
    clock: Clock | None = None,
) -> None:
    """Bank a session's number: saved under `checkpoints[session][name]` with the model and time.

    `source` says whose number it is (`SOURCES`): `yours` for a figure your own exercise produced,
    `scripted` for the course's scripted run, `live` for a run against your model. Left out, it is
    `live` in live mode and `scripted` offline.
    """
    if not isinstance(session, str) or not _SESSION.fullmatch(session):
        raise ValueError(f"session must look like 's07', not {session!r}.")
    if source is None:
        source = "live" if course_mode() == "live" else "scripted"
    if source not in SOURCES:
        raise ValueError(f"source must be one of {', '.join(SOURCES)}, not {source!r}.")
    split_key(f"{session}.{name}")
    problem = _not_json(value, "value")
    if problem:
        raise TypeError(
            f"checkpoint {session}.{name}: the value must be JSON data (numbers, text, "
            f"True/False/None, lists, dicts with text keys), but {problem}."
        )
    stored = json.loads(json.dumps(value))
    saved = record(
        "checkpoints",
        name,
        {"value": stored, "model": model, "source": source, "saved_at": _stamp(clock)},
        session=session,
    )
    where = (
        "saved to your progress file; course.load_progress() reads it back"
        if saved
        else "NOT saved: the message above says why and what to do"
    )
    print(
        f"[checkpoint {session}.{name}] banked {json.dumps(stored, ensure_ascii=False, sort_keys=True)}"
        f" ({source}; model: {model or 'not given'})\n  {where}"
    )
