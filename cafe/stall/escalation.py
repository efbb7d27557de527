"""What happens after a trip: whether the model hears about it, and when the run stops.

Session 13. A pattern tripping is a finding, not yet an action. The design this session follows
keeps two counts, each answering its own question:

- Is the text sent? `feedback_count` against `max_feedback` (1): only the first trip of the run is
  told to the model (with `inject_feedback` on). Later trips are still recorded, as warnings the
  host can read, but the model is not nagged with the same advice again.
- Does the run stop? `consecutive_trips` against `hard_stop_after_trips` (3): trips with no clean
  call between them add up, and the third in a row stops the run as `stuck`. Any call that trips
  nothing resets the count (`register_recovery`), and so does a turn with no calls. A few trips
  stop the run at once, whatever the count (`immediate`): the hard cap, a host's cut.

So a single stuck episode is a nudge, an agent that keeps tripping on call after call is stopped,
and an agent that recovers between trips is left to work.

Left out: which patterns trip (`cafe/stall/repeats.py`, `cafe/stall/detector.py`, the plug-in
checks of `cafe/stall/checks.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from dataclasses import dataclass

from cafe.stall.config import StallConfig

__all__ = ["Escalation", "StallWarning", "register_trip", "register_recovery"]


@dataclass(frozen=True)
class Escalation:
    """The two counts, and whether the latest trip called for a stop."""

    feedback_count: int = 0  # trip texts sent to the model this run (never reset)
    consecutive_trips: int = 0  # trips since the last call that tripped nothing
    hard_stop: bool = False


@dataclass(frozen=True)
class StallWarning:
    """One trip: the turn it was seen on, its pattern, the text, whether the model was sent it,
    the trips in a row it made, and whether it stopped the run."""

    turn: int
    pattern: str
    message: str
    sent: bool
    consecutive_trips: int
    stopped: bool = False


def register_trip(
    escalation: Escalation, config: StallConfig, *, immediate: bool = False
) -> tuple[Escalation, bool]:
    """Count one trip. Returns the new counts and whether its text is sent to the model."""
    trips = escalation.consecutive_trips + 1
    sent = config.inject_feedback and escalation.feedback_count < config.max_feedback
    return (
        Escalation(
            escalation.feedback_count + sent,
            trips,
            hard_stop=immediate or trips >= config.hard_stop_after_trips,
        ),
        sent,
    )


def register_recovery(escalation: Escalation) -> Escalation:
    """A call (or a turn) that tripped nothing: the trips in a row start again."""
    return Escalation(escalation.feedback_count, 0, hard_stop=False)
