"""The reveal switch: a toggle that loads an answer, or a function's source, only when flipped on.

A notebook asks "why?" and keeps the reference answer one click away. What a switch guarantees:

- The content is read from disk only in the toggle's callback, at the moment it is flipped on;
  flipping it off clears the output again. Drawing the switch opens no answers file.
- Until then nothing holds the answer: not the cell's source (it names a key such as
  "s07.why_cap", never the text), not the widget's text repr, not the widget state a saved
  notebook keeps.
- Where widgets do not draw (headless runs, `CAFE_HEADLESS=1`, or a front end without
  ipywidgets) the cell prints fixed plain text that says how to see the content: the exact
  `course.reveal_now(...)` call, which prints it straight away.

Answers live in `cafe/data/answers/<session>.json`: "s07.why_cap" is the key "why_cap" in
`s07.json`, whose value is text or a list of lines. `reveal(key, source=fn)` shows `fn`'s source,
highlighted, instead. Notebooks reach all of this through `cafe.course`, which re-exports
`reveal`, `reveal_now`, `answers_path` and `Reveal`. Predict, compare and checkpoint stay in
`cafe.course`; the key shape and headless detection are shared through `cafe.course.cells`.
Session 00 (`sessions/s00-setup/`) shows a switch of each kind.
"""

from __future__ import annotations

import inspect
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from cafe.course.cells import display_bundle, headless, source_name, split_key

__all__ = [
    "ANSWERS_DIR",
    "Reveal",
    "answers_path",
    "load_answer",
    "reveal",
    "reveal_now",
]

# The answers behind reveal switches: `cafe/data/answers/s07.json` holds the keys "s07.<name>".
ANSWERS_DIR = Path(__file__).resolve().parents[1] / "data" / "answers"


# --- finding the content ----------------------------------------------------------------------


def answers_path(key: str, answers_dir: str | Path | None = None) -> Path:
    """The answers file behind `key`: "s07.why_cap" -> cafe/data/answers/s07.json."""
    session, _ = split_key(key)
    return Path(answers_dir if answers_dir is not None else ANSWERS_DIR) / f"{session}.json"


def _no_answers_file(path: Path, key: str) -> LookupError:
    _, name = split_key(key)
    return LookupError(
        f"No answers file {path} for reveal key {key!r}; "
        f'create it with {{"{name}": "..."}} or pass source=.'
    )


def load_answer(key: str, answers_dir: str | Path | None = None) -> str:
    """The answer text for `key`, read from disk now. Errors (LookupError) name the file and the key."""
    _, name = split_key(key)
    path = answers_path(key, answers_dir)
    try:
        answers = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise _no_answers_file(path, key) from None
    except json.JSONDecodeError as exc:
        raise LookupError(f"The answers file {path} is not valid JSON ({exc}); fix it.") from None
    if not isinstance(answers, dict) or name not in answers:
        raise LookupError(
            f"The answers file {path} has no key {name!r} (asked for by {key!r}); "
            f"add it, or fix the key."
        )
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


def _highlight(code: str) -> str:
    """Python source as highlighted HTML (pygments ships with the course)."""
    from pygments import highlight  # type: ignore[import-untyped]
    from pygments.formatters import HtmlFormatter  # type: ignore[import-untyped]
    from pygments.lexers import PythonLexer  # type: ignore[import-untyped]

    return highlight(code, PythonLexer(), HtmlFormatter(noclasses=True))


# --- the switch -------------------------------------------------------------------------------


class Reveal:
    """A reveal switch. Its content is read only in the toggle's callback, when flipped on.

    Before that, nothing holds the answer: not the handle, not `repr(widget)`, not the widget
    state a notebook might save. Flipping it off clears the output again.
    """

    def __init__(self, key: str, source: Any = None, *, answers_dir: str | Path | None = None):
        split_key(key)
        self.key = key
        self.source = source
        self.answers_dir = answers_dir
        self.toggle: Any = None
        self.output: Any = None
        self._box: Any = None

    def content(self) -> str:
        """Load the content now: the source of `source`, or the answer text for `key`."""
        return (
            _source_of(self.source)
            if self.source is not None
            else load_answer(self.key, self.answers_dir)
        )

    def text(self) -> str:
        """The fixed plain-text form: never the content, always how to see it."""
        what = "Source" if self.source is not None else "Answer"
        call = (
            f'course.reveal_now("{self.key}", source={source_name(self.source)})'
            if self.source is not None
            else f'course.reveal_now("{self.key}")'
        )
        return f"[reveal {self.key}] {what} hidden. Flip the switch, or run: {call}"

    def widget(self) -> Any:
        """A ToggleButton above an empty Output; built once."""
        if self._box is None:
            import ipywidgets as widgets  # type: ignore[import-untyped]

            label = "source" if self.source is not None else "answer"
            self.toggle = widgets.ToggleButton(
                value=False,
                description=f"Reveal {label}: {self.key}",
                icon="eye",
                layout={"width": "auto"},
            )
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


# --- the calls a notebook makes ---------------------------------------------------------------


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
            raise LookupError(
                f"reveal {key!r}: cannot show the source of {source!r} ({exc})."
            ) from None
    if headless():
        print(handle.text())
    else:
        display_bundle(handle.widget(), handle.text())
    return handle


def reveal_now(key: str, source: Any = None, *, answers_dir: str | Path | None = None) -> None:
    """Print the content behind a reveal switch straight away: the explicit, widget-free way."""
    print(f"[reveal {key}]\n{Reveal(key, source, answers_dir=answers_dir).content().rstrip()}")
