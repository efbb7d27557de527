"""The stall detector's plug-in seam: what a check is shown, and what it may answer.

Session 13. `StallDetector` (`cafe/stall/detector.py`) takes an explicit, ordered list of extra checks,
so a later session can add what the host knows without editing the detector (session 14's
host facts, `cafe/governor/facts.py`, plug in here). A check is any object with:

- `patterns`: the names of every pattern it may trip, a closed set declared once;
- `on_fold(reading)`: called at the start of a turn, right after the detector folded the
  previous turn's results, and only when nothing else tripped on this turn (the hard cap, a blind
  pattern). It runs before `stuck_same_diagnostic`, so a check's trip takes the turn from it;
- `on_results(reading)`: called once the turn's calls have run (no lag). Its reading already
  holds this turn's results folded in, so a check compares like with like.

Each answers a `Trip` or None. The detector asks the checks in list order and the first trip
wins. A trip rides the detector's escalation (`cafe/stall/escalation.py`): its text is sent while
the run's feedback budget lasts, and trips in a row stop the run; a `Trip` with `stop` set stops
it at once. A check keeps its own memory between turns; one set per run.

Left out: the checks themselves (session 14) and the detector's own patterns (`cafe/stall/detector.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from cafe.loop.turns import TurnView
from cafe.stall.failure_state import FailureState

__all__ = ["Trip", "StallReading", "StallCheck"]


# --- records -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Trip:
    """A pattern a check found this turn: its name, the note for the model, and whether it stops
    the run at once (otherwise it rides the detector's escalation)."""

    pattern: str
    message: str
    stop: bool = False


@dataclass(frozen=True)
class StallReading:
    """What a plug-in check is shown. `failure_state` is the detector's: at `on_fold` folded from
    the previous turn's results (the one-turn lag), at `on_results` with this turn's folded in
    too; `advanced` says the fold pushed the streak up (`on_fold` only)."""

    view: TurnView
    failure_state: FailureState
    advanced: bool
    snippet: str  # the latest failure, as it would be quoted to the model (the key masked)
    session_id: str
    # How often the current failure's signature has been seen in this run, in any order (0 when
    # nothing is failing): a failure that keeps coming back between others counts every time.
    signature_count: int = 0


class StallCheck(Protocol):
    """A plug-in check: `patterns` names every pattern it may trip (a closed set), `on_fold` runs
    at the start of a turn, after the fold, and `on_results` once the turn's calls ran."""

    patterns: frozenset[str]

    def on_fold(self, reading: StallReading) -> Trip | None: ...

    def on_results(self, reading: StallReading) -> Trip | None: ...
