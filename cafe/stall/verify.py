"""The verify entrypoint: a real check before a claimed finish may stand, as a plug-in for the loop.

Session 13. Session 01's loop ends a run `done` as soon as the model answers without calling a
tool. On a real work tree that is not enough: "I fixed it" is a claim, and the till's tests are
the evidence. `VerifyEntrypoint` holds one check (a `verify`-kind `Tool`, such as the workbench's
`run_tests`) and a budget of attempts, and plugs into the loop's seams:

- `before_finish`: on a claimed finish it runs the check. A pass lets the finish stand (the loop
  ends the run `done`); a failure refuses it and tells the model what failed; a failure on the
  last attempt stops the run as `verify_failed`. With no attempt left, only a fresh pass (a
  passing check with no edit since) lets the finish stand.
- `run_check(why)`: the same check for another hook to force (the stall detector's post-edit
  re-verify, `cafe/stall/detector.py`), counted against the same budget: there is one entrypoint
  and one cap, however many hooks ask.
- `after_turn`: notes the model's own checks and edits, for the "fresh pass" rule above.

Each check it runs is handed to the loop as `Ran(result)` (marked `forced`), so it lands in the
turn's results where the stall detector's fold and the next turn's observers see it.

Every tool output it quotes to the model goes through `scrub_output` first, which masks the
endpoint's key (`cafe.endpoint.secrets.redaction.redact`): a failing check may print its environment.

The one stop reason it declares is `verify_failed` (`VERIFY_STOP_REASONS`); pass it to
`run_loop(stop_reasons=...)` with the hooks, or let `run_with_stall` do it.

Left out: what makes a failure "the same" (`cafe/stall/evidence.py`), noticing a stall
(`cafe/stall/detector.py`), checks of different thoroughness (session 15's gate).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Literal, get_args

from cafe.endpoint.secrets.redaction import redact
from cafe.loop.dispatch import dispatch_call
from cafe.loop.tools import Tool
from cafe.loop.turns import HookAnswer, Nudge, Ran, Stop, ToolCall, ToolResult, TurnView

__all__ = [
    "VerifyStopReason",
    "VERIFY_STOP_REASONS",
    "DEFAULT_MAX_VERIFY_ATTEMPTS",
    "scrub_output",
    "VerifyEntrypoint",
]

# --- constants ------------------------------------------------------------------------------

# The one way this plug-in ends a run: the model claimed a finish and the check would not pass.
VerifyStopReason = Literal["verify_failed"]
VERIFY_STOP_REASONS: frozenset[str] = frozenset(get_args(VerifyStopReason))

# Course choice: three checks per run lets a model fail verification twice and still finish.
DEFAULT_MAX_VERIFY_ATTEMPTS = 3

# Where a check's message to the model comes from (`Nudge.source`).
_SOURCE = "verify"
# The variable holding the live endpoint's key (`cafe.endpoint.settings.config`), read when it is needed.
_KEY_VARIABLE = "CAFE_API_KEY"


def scrub_output(text: str) -> str:
    """Tool output with the endpoint's key masked, before anything quotes, clips or records it."""
    return redact(text, os.environ.get(_KEY_VARIABLE))


def _told(result: ToolResult, why: str) -> str:
    verdict = "passed" if result.ok else "FAILED"
    return f"[harness] {why} The check ({result.name}) {verdict}:\n{scrub_output(result.output)}"


class VerifyEntrypoint:
    """One check and its budget of attempts, for one run (see the module docstring)."""

    stop_reasons: frozenset[str] = VERIFY_STOP_REASONS

    def __init__(self, check: Tool, *, max_attempts: int = DEFAULT_MAX_VERIFY_ATTEMPTS):
        if not isinstance(check, Tool):
            raise TypeError(
                f"the verify entrypoint must be a Tool (build one with cafe.loop.tools.tool), "
                f"not {type(check).__name__}."
            )
        if isinstance(max_attempts, bool) or not isinstance(max_attempts, int) or max_attempts < 1:
            raise ValueError(
                f"max_attempts must be a whole number of at least 1, not {max_attempts!r}."
            )
        self.check, self.max_attempts = check, max_attempts
        self.attempts = 0  # checks this entrypoint ran, on a claim or forced by another hook
        self.last_check: ToolResult | None = None  # the latest check, the model's or ours
        self.edited_since_check = False

    @property
    def can_verify(self) -> bool:
        """An attempt is left."""
        return self.attempts < self.max_attempts

    def note(self, results: Sequence[ToolResult]) -> None:
        """Remember the latest check, and whether an edit has landed since."""
        for result in results:
            if result.kind == "verify":
                self.last_check, self.edited_since_check = result, False
            elif result.kind == "mutate" and result.ok:
                self.edited_since_check = True

    def after_turn(self, view: TurnView) -> None:
        """(After-turn hook.) Note what the model ran; it never answers anything."""
        self.note([r for r in view.dispatch if not r.forced])

    def _run(self) -> ToolResult:
        self.attempts += 1
        call = ToolCall(f"verify_{self.attempts}", self.check.name, {}, "{}")
        result = dispatch_call(call, {self.check.name: self.check}, forced=True)
        self.note([result])
        return result

    def run_check(self, why: str) -> tuple[HookAnswer, ...]:
        """Run the check for another hook, now: the result and what the model is told, or
        nothing when no attempt is left."""
        if not self.can_verify:
            return ()
        result = self._run()
        sentence = (
            f"The harness re-ran the check ({why})." if why else "The harness re-ran the check."
        )
        return Ran(result), Nudge(_told(result, sentence), source=_SOURCE)

    def before_finish(self, view: TurnView) -> tuple[HookAnswer, ...] | None:
        """(Before-finish hook.) Let a claimed finish stand only on a passing check."""
        if not self.can_verify:
            last = self.last_check
            if last is not None and last.ok and not self.edited_since_check:
                return None  # a fresh pass stands: the loop ends the run `done`
            return (
                Stop(
                    "verify_failed",
                    f"no verification attempts left ({self.attempts} used) "
                    "to confirm the claimed finish",
                ),
            )
        result = self._run()
        if result.ok:
            return (Ran(result),)
        if not self.can_verify:
            return Ran(result), Stop(
                "verify_failed", f"verification failed {self.attempts} time(s)"
            )
        told = _told(result, "You said you were done, so the harness checked.")
        return Ran(result), Nudge(told, source=_SOURCE)
