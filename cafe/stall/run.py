"""Session 13's plug-ins put into the loop: `run_with_stall`.

Session 13. The stall detector (`cafe/stall/detector.py`) and the verify entrypoint
(`cafe/stall/verify.py`) are hooks for session 01's `run_loop`; this module plugs them in, in the
order they need, and hands back the run with the detector's hand-back (`StallRun`):

    observers      detector.observe, then yours
    after_turn     verifier.after_turn, detector.reverify (it may force a check),
                   detector.consult_checks (it sees that check), then yours (a pace governor)
    before_finish  verifier.before_finish, then yours
    stop_reasons   `stuck` and `verify_failed`, plus the reasons your hooks declare

Left out: what each hook does (their modules).

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from cafe.endpoint.client.protocol import ChatClient
from cafe.loop.agent import DEFAULT_MAX_TURNS, run_loop
from cafe.loop.tools import Tool
from cafe.loop.turns import Hook
from cafe.stall.checks import StallCheck
from cafe.stall.config import StallConfig
from cafe.stall.detector import StallDetector, StallRun
from cafe.stall.verify import DEFAULT_MAX_VERIFY_ATTEMPTS, VerifyEntrypoint

__all__ = ["run_with_stall"]


def _verifier_hooks(
    verifier: VerifyEntrypoint | None,
) -> tuple[list[Hook], list[Hook], frozenset[str]]:
    """The verify entrypoint's before-finish and after-turn hooks, and its stop reasons."""
    if verifier is None:
        return [], [], frozenset()
    return [verifier.before_finish], [verifier.after_turn], verifier.stop_reasons


def run_with_stall(
    client: ChatClient,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool],
    *,
    config: StallConfig | None = None,
    checks: Sequence[StallCheck] = (),
    verify: Tool | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    max_verify_attempts: int = DEFAULT_MAX_VERIFY_ATTEMPTS,
    model: str | None = None,
    session_id: str = "session",
    observers: Sequence[Hook] = (),
    after_turn: Sequence[Hook] = (),
    before_finish: Sequence[Hook] = (),
    stop_reasons: Collection[str] = (),
    clock: Callable[[], float] = time.monotonic,
    detector: StallDetector | None = None,
) -> StallRun:
    """`run_loop` with a `StallDetector` plugged in (and a verify entrypoint when `verify` is
    given), returning the run and its hand-back. Pass `config`, `checks`, `session_id` and
    `verify`, or a ready `detector` (then those are its own: build it with its `verifier`).
    `stop_reasons` are the reasons your own hooks declare (e.g. a pace governor's `cut`).
    """
    if detector is not None and (config is not None or checks or verify is not None):
        raise ValueError(
            "Pass either a detector or its config, checks and verify, not both: "
            "StallDetector(config, checks=..., verifier=VerifyEntrypoint(verify)) holds them."
        )
    if detector is None:
        verifier = (
            None if verify is None else VerifyEntrypoint(verify, max_attempts=max_verify_attempts)
        )
        detector = StallDetector(config, checks=checks, session_id=session_id, verifier=verifier)
    finish_hooks, turn_hooks, declared = _verifier_hooks(detector.verifier)
    result = run_loop(
        client,
        messages,
        tools,
        model=model,
        max_turns=max_turns,
        observers=[detector.observe, *observers],
        after_turn=[*turn_hooks, detector.reverify, detector.consult_checks, *after_turn],
        before_finish=[*finish_hooks, *before_finish],
        stop_reasons=declared | detector.stop_reasons | set(stop_reasons),
        clock=clock,
    )
    return detector.handback(result)
