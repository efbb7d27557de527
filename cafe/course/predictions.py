"""Predict first: what a learner expects before a run, saved, then shown beside what happened.

`predict(key, question, options)` asks before the run and returns a `Prediction` handle; its
`.value` is set by the widget or by plain assignment, and every change is saved to the progress
file under `predictions[key]`. `show_outcome(prediction, actual)` prints the guess beside what
actually happened, says whether they match, and saves both under `outcomes[key]`. Inside a Jupyter
kernel the question is a widget; headless (`CAFE_HEADLESS=1`, or no kernel) it is fixed plain
text, with no example value that could read as a hint. Notebooks reach both through `cafe.course`.
Session 00 (`sessions/s00-setup/`) shows one of each.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from cafe.course.cells import (
    Clock,
    display_bundle,
    headless,
    jsonable,
    say,
    shown,
    split_key,
    stamp,
)
from cafe.course.progress import record
from cafe.course.strict import fail_cell

__all__ = ["Prediction", "predict", "show_outcome", "MAX_BUTTONS"]

# Up to this many options show as buttons, each as wide as its text and wrapping onto more
# lines; more than this is a list to pick from, a Dropdown as wide as the notebook.
MAX_BUTTONS = 6


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
                {"question": self.question, "value": new, "saved_at": stamp(self._clock)},
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
            lines.append(f"  your prediction: {shown(self._value)}")
        return "\n".join(lines)

    def widget(self) -> Any:
        """The ipywidgets control (built once): ToggleButtons for up to `MAX_BUTTONS` options, a
        Dropdown for more, a Text box without options. Its changes land in `.value`.

        Every option must be read whole before it is chosen, and ipywidgets cuts a button's text
        to a fixed width with an ellipsis ("nothing: it answe…"). So each button is as wide as
        its own text (`button_width="auto"`), the buttons wrap onto more lines when the row is
        full, and a Dropdown spans the notebook's width."""
        if self._widget is None:
            import ipywidgets as widgets  # type: ignore[import-untyped]

            label = {"description": "Your guess:"}
            if self.options is None:
                control = widgets.Text(
                    value=self._value or "",
                    placeholder="type, then press Enter",
                    continuous_update=False,
                    style={"description_width": "initial"},
                    **label,
                )
            elif len(self.options) <= MAX_BUTTONS:
                control = widgets.ToggleButtons(
                    options=self.options,
                    value=self._value,
                    style={"description_width": "initial", "button_width": "auto"},
                    layout=widgets.Layout(width="100%", flex_flow="row wrap"),
                    tooltips=list(self.options),
                    **label,
                )
            else:
                control = widgets.Dropdown(
                    options=self.options,
                    value=self._value,
                    style={"description_width": "initial"},
                    layout=widgets.Layout(width="100%"),
                    **label,
                )
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
        say(prediction.text())
    else:
        import html

        import ipywidgets as widgets

        title = widgets.HTML(
            value=f"<b>Predict first ({html.escape(key)}).</b> {html.escape(question)}"
        )
        display_bundle(widgets.VBox([title, prediction.widget()]), prediction.text())
    return prediction


def show_outcome(prediction: Prediction, actual: Any, *, clock: Clock | None = None) -> None:
    """Print the prediction beside the outcome, say whether they match, and save both.

    In strict mode (`CAFE_STRICT=1`, `cafe.course.strict`) an outcome with no prediction recorded
    before it also fails the cell."""
    guess = prediction.value
    if guess is None:
        verdict, matched = "no prediction was recorded (predict before you run next time)", None
    else:
        same = guess == actual or str(guess).strip().casefold() == str(actual).strip().casefold()
        verdict, matched = ("match" if same else "no match"), same
    say(
        f"[outcome {prediction.key}]\n  you predicted: {shown(guess) if guess is not None else '-'}"
        f"\n  actual:        {shown(jsonable(actual))}\n  {verdict}"
    )
    record(
        "outcomes",
        prediction.key,
        {
            "predicted": guess,
            "actual": jsonable(actual),
            "match": matched,
            "saved_at": stamp(clock),
        },
    )
    if guess is None:  # strict mode (instructors): an outcome shown unpredicted fails its cell
        fail_cell(f"{prediction.key}: the outcome was shown with no prediction recorded first")
