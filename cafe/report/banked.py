"""Banked checkpoints: every number the learner saved, across sessions, with the model behind it.

Session 09 (`sessions/s09-shift-report/lesson.md`, notebook `notebooks/s09-shift-report.ipynb`),
the capstone of its report. Each session's notebook banks its figure with `course.checkpoint`
into the progress file (`cafe.course.progress`). This module adds:

- `BankedCheckpoint`: one saved figure (session, name, value, model, when);
- `banked_checkpoints`: the progress file read into those records, sorted by session, with
  every entry that cannot be shown explained in words, never raised: a session this course does
  not have (a file from an older or newer copy of the course), or an entry that is not a
  checkpoint at all;
- `render_banked_text`: the same as plain lines, grouped so scripted and live runs, or two models,
  sit side by side.

What it leaves out: writing checkpoints (`cafe.course.checkpoint`), and judging whether two
models' figures differ by more than chance (session 12's judge and its calibration).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from cafe.course.progress import load_progress
from cafe.course.syllabus import SESSIONS

__all__ = [
    "VALUE_CHARS",
    "BankedCheckpoint",
    "BankedView",
    "banked_checkpoints",
    "render_banked_text",
]

# A checkpoint's session tag, as `course.checkpoint` writes it: "s" and two digits.
_TAG = re.compile(r"s(\d{2})")
# The longest value a text line shows before it is cut; the HTML page shows the same cut.
VALUE_CHARS = 80


@dataclass(frozen=True)
class BankedCheckpoint:
    """One figure a notebook banked. `model` is None when the notebook did not say."""

    session: str
    name: str
    value: Any
    model: str | None
    saved_at: str | None

    def value_text(self) -> str:
        text = json.dumps(self.value, ensure_ascii=False, sort_keys=True)
        return text if len(text) <= VALUE_CHARS else text[: VALUE_CHARS - 3] + "..."


@dataclass(frozen=True)
class BankedView:
    """The checkpoints that can be shown, and a sentence for each entry that cannot."""

    checkpoints: tuple[BankedCheckpoint, ...]
    problems: tuple[str, ...]

    @property
    def models(self) -> dict[str, int]:
        """How many checkpoints each model produced ("(not given)" for those without one)."""
        return dict(Counter(c.model or "(not given)" for c in self.checkpoints).most_common())


def _session_problem(tag: str) -> str | None:
    match = _TAG.fullmatch(tag)
    known = {f"s{entry.number:02d}" for entry in SESSIONS}
    if match is None:
        return f"{tag!r} is not a session tag (they look like 's07')"
    if tag not in known:
        return f"this course has no session {match.group(1)} (its sessions run 00 to {len(SESSIONS) - 1:02d})"
    return None


def _entry(tag: str, name: str, entry: Any) -> BankedCheckpoint | str:
    """The checkpoint, or why this entry is not one."""
    if not isinstance(entry, Mapping) or "value" not in entry:
        return f"{tag}.{name} is not a banked checkpoint (no value in it); left out"
    model, saved = entry.get("model"), entry.get("saved_at")
    return BankedCheckpoint(
        tag,
        str(name),
        entry["value"],
        model if isinstance(model, str) else None,
        saved if isinstance(saved, str) else None,
    )


def banked_checkpoints(progress: Mapping[str, Any] | None = None) -> BankedView:
    """Every banked checkpoint in `progress` (default: the learner's progress file), by session."""
    data = load_progress() if progress is None else progress
    section = data.get("checkpoints", {}) if isinstance(data, Mapping) else None
    if not isinstance(section, Mapping):
        return BankedView(
            (), ("The progress data holds no checkpoints section, so nothing is shown.",)
        )
    found: list[BankedCheckpoint] = []
    problems: list[str] = []
    for tag in sorted(section):
        entries = section[tag]
        if not isinstance(entries, Mapping):
            problems.append(f"{tag}: its checkpoints are not a set of named entries; left out")
            continue
        reason = _session_problem(str(tag))
        if reason is not None:
            count = len(entries)
            problems.append(
                f"{tag}: {reason}, so its {count} checkpoint{'s' if count != 1 else ''} "
                f"({', '.join(sorted(map(str, entries)))}) {'are' if count != 1 else 'is'} not shown."
            )
            continue
        for name in sorted(entries):
            made = _entry(str(tag), name, entries[name])
            if isinstance(made, BankedCheckpoint):
                found.append(made)
            else:
                problems.append(made)
    return BankedView(tuple(found), tuple(problems))


def render_banked_text(view: BankedView) -> str:
    """The banked checkpoints as plain lines: session, name, model, value; then any problems."""
    if not view.checkpoints:
        lines = ["No checkpoints banked yet: each session's notebook banks one in its last step."]
    else:
        lines = [
            f"Banked checkpoints: {len(view.checkpoints)}, from "
            + ", ".join(f"{model} ({n})" for model, n in view.models.items())
        ]
        lines += [
            f"  {c.session}.{c.name}  [{c.model or 'model not given'}]  {c.value_text()}"
            for c in view.checkpoints
        ]
    lines += [f"Not shown: {problem}" for problem in view.problems]
    return "\n".join(lines)
