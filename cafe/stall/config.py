"""The stall detector's knobs: `StallConfig`, their defaults and lower bounds, and `stall_config`.

Session 13. The evidence-aware design this session follows names eight knobs and their defaults;
its reference implementation adds five for the blind counters and for escalation. All are set
in one `stall_diagnostics` mapping, flat or nested under `repair_diagnostics`:

    repair_aware                         False  the evidence-aware detector; off = the blind one
    stuck_same_diagnostic_after          3      same failure signature this often: a nudge
    post_edit_reverify                   True   an edit on a live failure forces a check
    no_net_progress_extend_guard         False  stop feeding budget to a stalled run ...
    no_net_progress_extend_after         3      ... once the same failure held this long,
    no_net_progress_hard_cap_after       16     and stop the run after this many failing checks
    reserved_terminal_verify             False  spend a check before the turns run out ...
    reserved_terminal_verify_iterations  2      ... within this many final turns
    repeat_same_error                    3      the blind `repeated_error` threshold
    repeat_same_observation              4      the blind `repeated_same_observation` threshold
    inject_feedback                      True   send a trip's text to the model at all
    max_feedback                         1      trip texts sent per run
    hard_stop_after_trips                3      trips in a row (no clean call between) that stop it

The first eight are the design's own; the other five come from its reference implementation.

Left out: what the knobs do (`cafe/stall/detector.py`, `cafe/stall/escalation.py`).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import MISSING, dataclass, fields
from types import MappingProxyType
from typing import Any

from cafe.stall.repeats import REPEAT_SAME_ERROR, REPEAT_SAME_OBSERVATION

__all__ = ["StallConfig", "STALL_KNOB_DEFAULTS", "STALL_KNOB_MINIMUMS", "stall_config"]

# The smallest value each whole-number knob takes (the reference implementation's bounds: a
# threshold of 1 would trip on the first sighting, which is no repeat at all). Course choice: a
# value below the bound is refused with its name, where the reference silently uses the default.
STALL_KNOB_MINIMUMS: Mapping[str, int] = MappingProxyType(
    {
        "stuck_same_diagnostic_after": 2,
        "no_net_progress_extend_after": 2,
        "no_net_progress_hard_cap_after": 2,
        "reserved_terminal_verify_iterations": 1,
        "repeat_same_error": 2,
        "repeat_same_observation": 2,
        "max_feedback": 0,
        "hard_stop_after_trips": 1,
    }
)


@dataclass(frozen=True)
class StallConfig:
    """The detector's knobs (see the module docstring), with their defaults. Off unless
    `repair_aware` is set: with it off every repair knob is inert. Build it with
    `stall_config(...)` to get the flat/nested merge."""

    repair_aware: bool = False
    stuck_same_diagnostic_after: int = 3
    post_edit_reverify: bool = True
    no_net_progress_extend_guard: bool = False
    no_net_progress_extend_after: int = 3
    no_net_progress_hard_cap_after: int = 16
    reserved_terminal_verify: bool = False
    reserved_terminal_verify_iterations: int = 2
    repeat_same_error: int = REPEAT_SAME_ERROR
    repeat_same_observation: int = REPEAT_SAME_OBSERVATION
    inject_feedback: bool = True
    max_feedback: int = 1
    hard_stop_after_trips: int = 3

    def __post_init__(self) -> None:
        for spec in fields(self):
            value = getattr(self, spec.name)
            if isinstance(spec.default, bool):
                if not isinstance(value, bool):
                    raise TypeError(f"{spec.name} must be true or false, not {value!r}.")
                continue
            least = STALL_KNOB_MINIMUMS[spec.name]
            if isinstance(value, bool) or not isinstance(value, int) or value < least:
                raise ValueError(
                    f"{spec.name} must be a whole number of at least {least}, not {value!r}."
                )


def _default(name: str) -> bool | int:
    spec = StallConfig.__dataclass_fields__[name]
    assert spec.default is not MISSING, "every StallConfig knob has a default"
    value: bool | int = spec.default
    return value


# Every knob and its default, read from `StallConfig` itself so the two can never disagree.
STALL_KNOB_DEFAULTS: Mapping[str, bool | int] = MappingProxyType(
    {f.name: _default(f.name) for f in fields(StallConfig)}
)


def stall_config(stall_diagnostics: Mapping[str, Any] | None = None, **flat: Any) -> StallConfig:
    """Build a `StallConfig` from a `stall_diagnostics` mapping (and/or keyword arguments).

    Knobs may sit flat on the mapping or nested under `repair_diagnostics`; when a knob is in
    both places the flat one wins, so a host can override one knob without copying a shared
    block. Keyword arguments are flat too and win over everything. Unknown keys are refused.
    """
    given = dict(stall_diagnostics or {})
    nested = given.pop("repair_diagnostics", None) or {}
    if not isinstance(nested, Mapping):
        raise TypeError(
            f"repair_diagnostics must be a mapping of knobs, not {type(nested).__name__}."
        )
    merged = {**nested, **given, **flat}  # later wins: nested < flat mapping < keyword arguments
    unknown = set(merged) - set(STALL_KNOB_DEFAULTS)
    if unknown:
        raise ValueError(
            f"Unknown stall_diagnostics key(s) {sorted(unknown)}; the knobs are "
            f"{sorted(STALL_KNOB_DEFAULTS)}. Host facts plug in as checks: "
            "StallDetector(config, checks=...)."
        )
    return StallConfig(**merged)
