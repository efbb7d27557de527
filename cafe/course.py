"""The notebook toolkit: predict first, reveal on demand, compare your turn, bank a checkpoint.

Every session's notebook uses the same four mechanics, so they live here once:

- `predict(key, question, options)` records what you expect *before* a run; `show_outcome`
  prints that guess beside what actually happened.
- `reveal(key)` is a switch that loads a reference (an answer text from
  `cafe/data/answers/<session>.json`, or a function's source) only when you flip it on.
- `compare(fn, check)` runs a check over your "your turn" function; a stub that still raises
  `NotImplementedError` is reported as not attempted yet, never as a failure.
- `checkpoint(session, name, value, model)` banks the number a session produces.

Predictions, outcomes, compare results and checkpoints go to a progress file you own:
`$CAFE_HOME/progress.json` (default `~/.cafe/progress.json`), so later sessions (and the shift
report in session 09) can read what you banked. `cafe.progress` keeps that file safe; its
`progress_path`, `load_progress` and `save_progress` are re-exported here for notebooks.

Two display modes. Inside a Jupyter kernel the calls show ipywidgets. Headless (the variable
`CAFE_HEADLESS` set to 1, as the test suite and nbval do, or no kernel at all) every call prints
fixed plain text: no timestamps, no object ids, and never an answer. ipywidgets and IPython are
imported only inside the functions that draw widgets, so `import cafe.course` stays cheap.
Session 00 (`sessions/s00-setup/`) shows each mechanic once.
"""

from __future__ import annotations

import inspect
import json
import math
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal, get_args

from cafe.progress import HOME_VARIABLE, PROGRESS_FILE, load_progress, progress_path, record, save_progress

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
]

# Set to 1 (the test suite does) to get plain text instead of widgets, even inside a kernel.
HEADLESS_VARIABLE = "CAFE_HEADLESS"

# The answers behind reveal switches: `cafe/data/answers/s07.json` holds the keys "s07.<name>".
ANSWERS_DIR = Path(__file__).resolve().parent / "data" / "answers"

# Keys look like "s07.stop_reason": a session tag, a dot, a Python-style name.
_KEY = re.compile(r"(s\d{2})\.([A-Za-z_][A-Za-z0-9_]*)")
_SESSION = re.compile(r"s\d{2}")

# What `compare` can say about a your-turn function: declared once, as a type and as a set.
CompareStatus = Literal["not_attempted", "passed", "failed"]
COMPARE_STATUSES: frozenset[str] = frozenset(get_args(CompareStatus))

Clock = Callable[[], datetime]


# --- small helpers ----------------------------------------------------------------------------


def _utc_now() -> datetime:
    return datetime.now(timezone.utc)


def _stamp(clock: Clock | None) -> str:
    return (clock or _utc_now)().isoformat(timespec="seconds")


def _split_key(key: str) -> tuple[str, str]:
    """"s07.why_cap" -> ("s07", "why_cap"); anything else is a ValueError that shows the shape."""
    match = _KEY.fullmatch(key) if isinstance(key, str) else None
    if not match:
        raise ValueError(f"{key!r} is not a course key; write it as '<session>.<name>', e.g. 's07.why_cap'.")
    return match.group(1), match.group(2)


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


def headless(environ: Mapping[str, str] | None = None) -> bool:
    """True when calls should print plain text: `CAFE_HEADLESS=1`, or not inside a Jupyter kernel."""
    env = os.environ if environ is None else environ
    if env.get(HEADLESS_VARIABLE, "").strip().lower() in {"1", "true", "yes", "on"}:
        return True
    ipython = sys.modules.get("IPython")  # never import it here: no IPython means no kernel
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is None


def _display_bundle(widget: Any, text: str) -> None:
    """Show `widget`, with `text` as the plain-text form for front ends that cannot draw it."""
    from IPython.display import display

    bundle = widget._repr_mimebundle_()
    bundle["text/plain"] = text
    display(bundle, raw=True)


# --- predict ----------------------------------------------------------------------------------


class Prediction:
    """What the learner expects before a run. Set `.value` by widget or by plain assignment.

    Every change is saved to the progress file under `predictions[key]`. A trailing
    `course.predict(...)` displays nothing more: `predict` has already shown the question.
    """

    def __init__(self, key: str, question: str, options: Sequence[str] | None = None,
                 *, clock: Clock | None = None):
        _split_key(key)
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
            raise ValueError(f"{new!r} is not one of the options for {self.key}: {list(self.options)}.")
        if new == self._value:
            return
        self._value = new
        if self._widget is not None:  # keep the widget in step with a plain assignment
            shown = new if self.options is not None else (new or "")
            if self._widget.value != shown:
                self._widget.value = shown
        if new not in (None, ""):
            record("predictions", self.key,
                   {"question": self.question, "value": new, "saved_at": _stamp(self._clock)})

    def text(self) -> str:
        """The fixed plain-text form: headless output, and the fallback where widgets do not draw."""
        lines = [f"[predict {self.key}] {self.question}"]
        if self.options is not None:
            lines.append("  options: " + " | ".join(self.options))
        if self._value is None:
            example = self.options[0] if self.options else "..."
            lines.append(f"  Record it before the run: set .value on the handle, e.g. guess.value = {example!r}")
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
                control = widgets.Text(value=self._value or "", placeholder="type, then press Enter",
                                       continuous_update=False, **label)
            elif len(self.options) <= 4:
                control = widgets.ToggleButtons(options=self.options, value=self._value, **label)
            else:
                control = widgets.Dropdown(options=self.options, value=self._value, **label)
            control.observe(lambda change: setattr(self, "value", change["new"] or None), names="value")
            self._widget = control
        return self._widget

    def _ipython_display_(self) -> None:
        """Shown once by `predict`; displaying the handle again adds nothing."""

    def __repr__(self) -> str:
        return f"Prediction({self.key!r}, value={self._value!r})"


def predict(key: str, question: str, options: Sequence[str] | None = None, *,
            answer: str | None = None, clock: Clock | None = None) -> Prediction:
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

        title = widgets.HTML(value=f"<b>Predict first ({html.escape(key)}).</b> {html.escape(question)}")
        _display_bundle(widgets.VBox([title, prediction.widget()]), prediction.text())
    return prediction


def show_outcome(prediction: Prediction, actual: Any, *, clock: Clock | None = None) -> None:
    """Print the prediction beside the outcome, say whether they match, and save both."""
    guess = prediction.value
    if guess is None:
        verdict, matched = "no prediction was recorded (predict before you run next time)", None
    else:
        same = guess == actual or str(guess).strip().casefold() == str(actual).strip().casefold()
        verdict, matched = ("match" if same else "no match"), same
    print(f"[outcome {prediction.key}]\n  you predicted: {_show(guess) if guess is not None else '-'}"
          f"\n  actual:        {_show(_jsonable(actual))}\n  {verdict}")
    record("outcomes", prediction.key, {"predicted": guess, "actual": _jsonable(actual),
                                        "match": matched, "saved_at": _stamp(clock)})


# --- reveal -----------------------------------------------------------------------------------


def answers_path(key: str, answers_dir: str | Path | None = None) -> Path:
    """The answers file behind `key`: "s07.why_cap" -> cafe/data/answers/s07.json."""
    session, _ = _split_key(key)
    return Path(answers_dir if answers_dir is not None else ANSWERS_DIR) / f"{session}.json"


def _no_answers_file(path: Path, key: str) -> LookupError:
    _, name = _split_key(key)
    return LookupError(f"No answers file {path} for reveal key {key!r}; "
                       f"create it with {{\"{name}\": \"...\"}} or pass source=.")


def _load_answer(key: str, answers_dir: str | Path | None = None) -> str:
    """The answer text for `key`, read from disk now. Errors name the file and the key."""
    _, name = _split_key(key)
    path = answers_path(key, answers_dir)
    try:
        answers = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _no_answers_file(path, key) from None
    except json.JSONDecodeError as exc:
        raise LookupError(f"The answers file {path} is not valid JSON ({exc}); fix it.") from None
    if not isinstance(answers, dict) or name not in answers:
        raise LookupError(f"The answers file {path} has no key {name!r} (asked for by {key!r}); "
                          f"add it, or fix the key.")
    text = answers[name]
    if isinstance(text, list) and all(isinstance(line, str) for line in text):
        text = "\n".join(text)
    if not isinstance(text, str):
        raise LookupError(f"In {path}, {name!r} must be text or a list of lines.")
    return text


def _source_of(obj: Any) -> str:
    try:
        return inspect.getsource(obj)
    except (TypeError, OSError) as exc:
        raise LookupError(f"Cannot show the source of {obj!r}: {exc}") from None


def _source_name(obj: Any) -> str:
    module = getattr(obj, "__module__", None)
    name = getattr(obj, "__qualname__", None) or getattr(obj, "__name__", type(obj).__name__)
    return f"{module}.{name}" if module else name


class Reveal:
    """A reveal switch. Its content is read only in the toggle's callback, when flipped on.

    Before that, nothing holds the answer: not the handle, not `repr(widget)`, not the widget
    state a notebook might save. Flipping it off clears the output again.
    """

    def __init__(self, key: str, source: Any = None, *, answers_dir: str | Path | None = None):
        _split_key(key)
        self.key = key
        self.source = source
        self.answers_dir = answers_dir
        self.toggle: Any = None
        self.output: Any = None
        self._box: Any = None

    def content(self) -> str:
        """Load the content now: the source of `source`, or the answer text for `key`."""
        return _source_of(self.source) if self.source is not None else _load_answer(self.key, self.answers_dir)

    def text(self) -> str:
        """The fixed plain-text form: never the content, always how to see it."""
        what = "Source" if self.source is not None else "Answer"
        call = (f'course.reveal_now("{self.key}", source={_source_name(self.source)})'
                if self.source is not None else f'course.reveal_now("{self.key}")')
        return f"[reveal {self.key}] {what} hidden. Flip the switch, or run: {call}"

    def widget(self) -> Any:
        """A ToggleButton above an empty Output; built once."""
        if self._box is None:
            import ipywidgets as widgets

            label = "source" if self.source is not None else "answer"
            self.toggle = widgets.ToggleButton(value=False, description=f"Reveal {label}: {self.key}",
                                               icon="eye", layout={"width": "auto"})
            self.output = widgets.Output()
            self.toggle.observe(self._on_toggle, names="value")
            self._box = widgets.VBox([self.toggle, self.output])
        return self._box

    def _on_toggle(self, change: Mapping[str, Any]) -> None:
        if not change["new"]:
            self.output.outputs = ()
            return
        try:
            text = self.content()
        except LookupError as exc:
            text = f"Cannot reveal {self.key}: {exc}"
        data = {"text/plain": text}
        if self.source is not None:
            data["text/html"] = _highlight(text)
        self.output.outputs = ({"output_type": "display_data", "data": data, "metadata": {}},)

    def _ipython_display_(self) -> None:
        """Shown once by `reveal`; displaying the handle again adds nothing."""

    def __repr__(self) -> str:
        return f"Reveal({self.key!r})"


def _highlight(code: str) -> str:
    """Python source as highlighted HTML (pygments ships with the course)."""
    from pygments import highlight
    from pygments.formatters import HtmlFormatter
    from pygments.lexers import PythonLexer

    return highlight(code, PythonLexer(), HtmlFormatter(noclasses=True))


def reveal(key: str, source: Any = None, *, answers_dir: str | Path | None = None) -> Reveal:
    """Show a reveal switch for `key`: the source of `source`, or the answer text under `key`.

    Nothing is read now. A missing answers file, or an object with no source file, is reported at
    once (LookupError); the text itself is read only when the switch is flipped on, so a wrong
    key inside an existing file shows up then (tests/test_notebooks.py checks every key).
    """
    handle = Reveal(key, source, answers_dir=answers_dir)
    if source is None:
        path = answers_path(key, answers_dir)
        if not path.is_file():
            raise _no_answers_file(path, key)
    else:
        try:
            inspect.getsourcefile(source)
        except TypeError as exc:
            raise LookupError(f"reveal {key!r}: cannot show the source of {source!r} ({exc}).") from None
    if headless():
        print(handle.text())
    else:
        _display_bundle(handle.widget(), handle.text())
    return handle


def reveal_now(key: str, source: Any = None, *, answers_dir: str | Path | None = None) -> None:
    """Print the content behind a reveal switch straight away: the explicit, widget-free way."""
    print(f"[reveal {key}]\n{Reveal(key, source, answers_dir=answers_dir).content().rstrip()}")


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
        raise TypeError(f"check {_source_name(check)} must return a list of problem strings, "
                        f"not {type(found).__name__}.")
    return tuple(str(problem) for problem in found)


def _raised_inside(exc: BaseException, fn: Callable[..., Any]) -> bool:
    """Did `exc` pass through `fn`'s own code? (Callables without code get the benefit of the doubt.)"""
    code = getattr(fn, "__code__", None)
    if code is None:
        return True
    tb = exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code is code:
            return True
        tb = tb.tb_next
    return False


def compare(fn: Callable[..., Any], check: Callable[[Callable[..., Any]], Iterable[str]], *,
            key: str | None = None, hint: str | None = None,
            clock: Clock | None = None) -> CompareResult:
    """Run `check(fn)` and report: not attempted yet (stub), passed, or each problem.

    The stub raising `NotImplementedError` is not a failure. Any other exception from the learner's
    function is reported as a problem, so the notebook keeps going. With `key=`, the status is saved.
    """
    if key is not None:
        _split_key(key)  # a bad key is the notebook author's mistake: say so before running anything
    name = getattr(fn, "__name__", "your function")
    try:
        found = check(fn)
    except NotImplementedError:
        result = CompareResult("not_attempted")
    except Exception as exc:
        if not _raised_inside(exc, fn):
            raise  # a bug in the check itself: show the traceback to whoever wrote it
        # the learner's code broke: say how, and keep the notebook running
        result = CompareResult("failed", (f"calling {name} raised {type(exc).__name__}: {exc}",))
    else:
        problems = _as_problems(found, check)
        result = CompareResult("failed", problems) if problems else CompareResult("passed")

    if result.status == "not_attempted":
        print(f"[compare {name}] not attempted yet: {name} still raises NotImplementedError.\n"
              f"  {hint or 'Replace the stub body with your own code, then run this cell again.'}")
    elif result.status == "passed":
        print(f"[compare {name}] passed: every check holds.")
    else:
        count = len(result.problems)
        print(f"[compare {name}] failed: {count} problem{'s' if count != 1 else ''}")
        print("\n".join(f"  - {problem}" for problem in result.problems))
    if key is not None:
        record("exercises", key, {"status": result.status, "problems": list(result.problems),
                                  "saved_at": _stamp(clock)})
    return result


# --- checkpoint -------------------------------------------------------------------------------


def checkpoint(session: str, name: str, value: Any, model: str | None = None, *,
               clock: Clock | None = None) -> None:
    """Bank a session's number: saved under `checkpoints[session][name]` with the model and time."""
    if not isinstance(session, str) or not _SESSION.fullmatch(session):
        raise ValueError(f"session must look like 's07', not {session!r}.")
    _split_key(f"{session}.{name}")
    problem = _not_json(value, "value")
    if problem:
        raise TypeError(f"checkpoint {session}.{name}: the value must be JSON data (numbers, text, "
                        f"True/False/None, lists, dicts with text keys), but {problem}.")
    stored = json.loads(json.dumps(value))
    saved = record("checkpoints", name, {"value": stored, "model": model, "saved_at": _stamp(clock)},
                   session=session)
    where = ("saved to your progress file; course.load_progress() reads it back" if saved
             else "NOT saved: the message above says why and what to do")
    print(f"[checkpoint {session}.{name}] banked {json.dumps(stored, ensure_ascii=False, sort_keys=True)}"
          f" (model: {model or 'not given'})\n  {where}")
