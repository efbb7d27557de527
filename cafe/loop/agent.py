"""The agent loop: ask the model, run the tools it asks for, hand back the results, repeat.

Session 01. It is small on purpose and says out loud where later sessions plug in. One run goes:

    turn 1..max_turns:
        ask the model (the transcript so far, the tool schemas)
        observers look at the turn before anything runs        -> may nudge, may stop
        no tool calls?  the model says it is done
            before-finish hooks look at the claim                -> may refuse it, stop, record a check
            nobody refused: stop `done`
        otherwise run each call, append each result
        after-turn hooks look at what ran                        -> may nudge, stop, record a check
    out of turns: stop `max_turns`

`run_loop` follows that sketch; its steps are methods of `_Run`, one run's private state, and
`cafe/loop/dispatch.py` turns a reply into calls and a call into its result.

Two loops, two stop sets. The course has two loops, and each ends on a closed set of its own.
This one, `run_loop`, is the agent loop: it runs the tools a model asks for until the model says
it is done. Session 07's re-ask, `cafe.repair.repair_ticket`, is the other: it asks for a whole
ticket, scores it and asks again, and ends on its `STOP_REASONS` (`passed`, `retries_exhausted`,
`policy_violation`). Everything else in the course wraps one of them or plugs into one.

How a run of this loop ends. The loop's own reasons are two, `RUN_STOP_REASONS`: `done` and
`max_turns` (declared with the records in `cafe/loop/turns.py`). Every other ending is a plug-in's
`Stop`, and a plug-in declares the reasons it may stop with ONCE, in its own module, as a
`Literal` and the frozenset read off it: `GUARD_STOP_REASONS` in `cafe/loop/guards.py` (the repeat
guard, `stuck`); session 13's stall detector (`stuck`) and verify entrypoint (`verify_failed`);
session 14's pace governor (`cut`). Whoever plugs a hook in hands its reasons to
`run_loop(stop_reasons=...)`. The loop accepts a `Stop` whose reason was declared, and refuses
anything else with a `ValueError` naming the reason, the hook and the declared reasons; a `Stop`
can never name the loop's own two. "Tell the model" is a `Nudge` the loop sends as a message.
An unusable endpoint raises `cafe.endpoint.errors.EndpointError`: no policy decided that.

Plug-in points. A hook is a function `(TurnView) -> answer | tuple of answers | None`, and the
loop asks the hooks of each list in order:

- `observers`: at the START of every turn, after the model answered and before its calls run.
  They see the calls just proposed (`view.calls`) and the PREVIOUS turn's results
  (`view.prev_dispatch`), never this turn's: the one-turn lag session 13 explains. They answer
  `Nudge` or `Stop`; on a `Stop` the proposed calls never run.
- `after_turn`: once the calls have run, with `view.dispatch` holding this turn's results. They
  answer `Nudge`, `Stop` or `Ran`: a tool the hook ran itself (a check, say), whose result joins
  `dispatch`, so later hooks and the next turn's observers see it.
- `before_finish`: when the model answers without calling a tool. They answer `Nudge` (the finish
  is refused: the model reads why, the after-turn hooks run and the run goes on), `Stop`, or
  `Ran`. When no hook refused, the run ends `done`. Session 13's verify entrypoint is one of
  these: it runs a real check before a claimed finish may stand.
- `clock`: a function returning seconds (default `time.monotonic`); `view.elapsed` is measured
  with it, so pace logic (session 14) tests without sleeping. A reading that is not a finite
  number, or earlier than the last, raises `ClockError` (`cafe/loop/clock.py`).

Left out: what makes an answer right (02), what the model may see (03), repairing a bad answer
(07), traces (08), checking a claimed finish and spotting a stall (13), pacing (14).

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

import copy
import time
from collections.abc import Callable, Collection, Mapping, Sequence
from typing import Any

from cafe.endpoint.client.chat import chat
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.settings.config import model_name
from cafe.loop.clock import Stopwatch
from cafe.loop.dispatch import assistant_message, decode_calls, dispatch_call
from cafe.loop.tools import Tool, tool_schemas
from cafe.loop.turns import (
    RUN_STOP_REASONS,
    Hook,
    HookAnswer,
    Nudge,
    Ran,
    RunResult,
    RunStopReason,
    Stop,
    ToolCall,
    ToolResult,
    TurnRecord,
    TurnView,
)

__all__ = [
    "DEFAULT_MAX_TURNS",
    "run_loop",
    # the turn's records (cafe/loop/turns.py) and the dispatch, importable from here too
    "dispatch_call",
    "RunStopReason",
    "RUN_STOP_REASONS",
    "ToolCall",
    "ToolResult",
    "TurnView",
    "Nudge",
    "Stop",
    "Ran",
    "HookAnswer",
    "Hook",
    "TurnRecord",
    "RunResult",
]

# --- constants ------------------------------------------------------------------------------

# Course choice: ten model calls is plenty for the café's small tasks and short enough that a
# runaway scripted run ends while a learner is still watching.
DEFAULT_MAX_TURNS = 10

# What each seam's hooks may answer.
_OBSERVER_ANSWERS = (Nudge, Stop)
_LATER_ANSWERS = (Nudge, Stop, Ran)


# --- small pure helpers ---------------------------------------------------------------------


def _hook_name(hook: Hook) -> str:
    return getattr(hook, "__qualname__", None) or repr(hook)


def _answers(hook: Hook, view: TurnView, allowed: tuple[type, ...]) -> tuple[HookAnswer, ...]:
    """What one hook answered, as a tuple, refusing anything its seam does not accept."""
    answer = hook(view)
    found = () if answer is None else answer if isinstance(answer, tuple) else (answer,)
    for item in found:
        if not isinstance(item, allowed):
            names = ", ".join(kind.__name__ for kind in allowed)
            raise TypeError(
                f"Hook {_hook_name(hook)!r} answered {item!r}; at this point a hook answers None, "
                f"one of {names}, or a tuple of them."
            )
    return found


def _check_settings(max_turns: int, stop_reasons: frozenset[str]) -> None:
    if isinstance(max_turns, bool) or not isinstance(max_turns, int) or max_turns < 1:
        raise ValueError(f"max_turns must be a whole number of at least 1, not {max_turns!r}.")
    own = stop_reasons & RUN_STOP_REASONS
    if own or not all(isinstance(r, str) and r for r in stop_reasons):
        raise ValueError(
            f"stop_reasons are the names your plug-ins declare, not {sorted(map(repr, stop_reasons))}: "
            f"the loop's own {sorted(RUN_STOP_REASONS)} are not a plug-in's to name."
        )


def _finish_detail(checks: Sequence[ToolResult]) -> str:
    said = "the model answered without calling a tool"
    if not checks:
        return said
    found = ", ".join(f"{r.name} {'passed' if r.ok else 'failed'}" for r in checks)
    return f"{said}; checked on the finish: {found}"


# --- one run's state, and the steps of a turn -------------------------------------------------


class _Run:
    """What one run remembers between turns, and the steps `run_loop` takes on it. Private and
    mutable on purpose: it lives for one call of `run_loop` and is never shared."""

    def __init__(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool],
        max_turns: int,
        stop_reasons: frozenset[str],
        clock: Callable[[], float],
    ):
        self.by_name = {t.name: t for t in tools}
        self.max_turns, self.stop_reasons = max_turns, stop_reasons
        self.transcript: list[dict[str, Any]] = copy.deepcopy([dict(m) for m in messages])
        self.records: list[TurnRecord] = []
        self.prev: tuple[ToolResult, ...] = ()  # the previous turn's results, for the observers
        self.stopwatch = Stopwatch(clock)  # every reading checked: see cafe/loop/clock.py

    def ask(
        self, client: ChatClient, model: str, schemas: list[dict[str, Any]], turn: int
    ) -> tuple[str | None, list[ToolCall], list[ToolResult]]:
        """Send the transcript (and the tool schemas) to the model; note its reply and its calls."""
        request: dict[str, Any] = {"model": model, "messages": self.transcript}
        if schemas:
            request["tools"] = schemas
        reply = chat(client, **request).choices[0].message
        calls, bad = decode_calls(reply, turn)
        self.transcript.append(assistant_message(reply.content, calls))
        return reply.content, calls, bad

    def view(
        self, turn: int, calls: Sequence[ToolCall], dispatch: tuple[ToolResult, ...]
    ) -> TurnView:
        elapsed = self.stopwatch.elapsed()
        return TurnView(turn, self.max_turns, tuple(calls), self.prev, dispatch, elapsed)

    def hear(
        self,
        hooks: Sequence[Hook],
        turn: int,
        calls: Sequence[ToolCall],
        dispatch: tuple[ToolResult, ...],
        allowed: tuple[type, ...],
    ) -> tuple[tuple[ToolResult, ...], list[Nudge], Stop | None]:
        """Ask each hook in list order; a `Ran` result joins `dispatch` before the next hook looks.
        Returns the results, the nudges, and the first `Stop` (checked against the declared)."""
        nudges: list[Nudge] = []
        stop = None
        for hook in hooks:
            for answer in _answers(hook, self.view(turn, calls, dispatch), allowed):
                if isinstance(answer, Ran):
                    dispatch = dispatch + (answer.result,)
                elif isinstance(answer, Stop):
                    self.check_declared(hook, answer)
                    stop = stop or answer
                else:
                    nudges.append(answer)
        return dispatch, nudges, stop

    def check_declared(self, hook: Hook, stop: Stop) -> None:
        if stop.reason not in self.stop_reasons:
            declared = sorted(self.stop_reasons) or "none"
            raise ValueError(
                f"Hook {_hook_name(hook)!r} stopped the run with {stop.reason!r}, a reason no plug-in "
                f"declared (declared: {declared}). Pass the plug-in's reasons with it, e.g. "
                "run_loop(..., stop_reasons=GUARD_STOP_REASONS)."
            )

    def record(
        self,
        turn: int,
        text: str | None,
        calls: Sequence[ToolCall],
        dispatch: tuple[ToolResult, ...],
        nudges: Sequence[Nudge],
    ) -> None:
        self.records.append(TurnRecord(turn, text, tuple(calls), dispatch, tuple(nudges)))

    def finish(self, reason: str, detail: str, text: str | None) -> RunResult:
        return RunResult(
            reason,
            detail,
            text,
            tuple(self.records),
            tuple(self.transcript),
            self.stopwatch.elapsed(),
        )

    def stop_before_calls(
        self, turn: int, text: str | None, calls: Sequence[ToolCall], stop: Stop
    ) -> RunResult:
        """An observer stopped the run: answer every call as not run, so the transcript stays valid."""
        for c in calls:
            self.transcript.append(
                {
                    "role": "tool",
                    "tool_call_id": c.id,
                    "content": f"[harness] not run: the run stopped ({stop.reason}).",
                }
            )
        self.record(turn, text, calls, (), ())
        return self.finish(stop.reason, stop.detail, text)

    def run_calls(
        self, calls: Sequence[ToolCall], bad: Sequence[ToolResult]
    ) -> tuple[ToolResult, ...]:
        """Run each call (or use its decoding error) and append every result to the transcript."""
        by_id = {r.call_id: r for r in bad}
        dispatch = tuple(by_id.get(c.id) or dispatch_call(c, self.by_name) for c in calls)
        for result in dispatch:
            self.transcript.append(
                {"role": "tool", "tool_call_id": result.call_id, "content": result.output}
            )
        return dispatch

    def claimed_finish(
        self, hooks: Sequence[Hook], turn: int, text: str | None, nudges: list[Nudge]
    ) -> tuple[RunResult | None, tuple[ToolResult, ...]]:
        """The model says it is done: the run's end, or (None, the checks run) when a
        before-finish hook refused (its nudges join `nudges`, and the run goes on)."""
        dispatch, refusals, stop = self.hear(hooks, turn, (), (), _LATER_ANSWERS)
        nudges += refusals
        if stop is None and refusals:
            return None, dispatch
        self.record(turn, text, (), dispatch, nudges)
        if stop is not None:
            return self.finish(stop.reason, stop.detail, text), dispatch
        return self.finish("done", _finish_detail(dispatch), text), dispatch

    def next_turn(self, dispatch: tuple[ToolResult, ...], nudges: Sequence[Nudge]) -> None:
        """Send the nudges after the turn's results, and hand this turn's results to the next one."""
        for nudge in nudges:
            self.transcript.append({"role": "user", "content": nudge.text})
        self.prev = dispatch


# --- the main function ----------------------------------------------------------------------


def run_loop(
    client: ChatClient,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool] = (),
    *,
    model: str | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    observers: Sequence[Hook] = (),
    after_turn: Sequence[Hook] = (),
    before_finish: Sequence[Hook] = (),
    stop_reasons: Collection[str] = (),
    clock: Callable[[], float] = time.monotonic,
) -> RunResult:
    """Run the agent loop until the model is done or a budget or a plug-in stops it. `client` is
    anything with the OpenAI client's interface (`cafe.make_client()` gives one); `messages` is
    the opening transcript, copied and never modified; `stop_reasons` are the reasons the hooks
    you pass declare. The module docstring lists the plug-in points.
    """
    declared = frozenset(stop_reasons)
    _check_settings(max_turns, declared)
    schemas = tool_schemas(tools)
    model = model or model_name()
    run = _Run(messages, tools, max_turns, declared, clock)

    for turn in range(1, max_turns + 1):
        # Ask the model, with the transcript so far and the tool schemas.
        text, calls, bad = run.ask(client, model, schemas, turn)

        # Observers look at the proposed calls before anything runs: they may nudge, or stop.
        _, nudges, stop = run.hear(observers, turn, calls, (), _OBSERVER_ANSWERS)
        if stop is not None:
            return run.stop_before_calls(turn, text, calls, stop)

        if calls:
            dispatch = run.run_calls(calls, bad)
        else:
            # No calls: the model says it is done. The before-finish hooks may refuse, or stop.
            ended, dispatch = run.claimed_finish(before_finish, turn, text, nudges)
            if ended is not None:
                return ended

        # After-turn hooks look at what ran: they may nudge, stop, or record a check they ran.
        dispatch, later, stop = run.hear(after_turn, turn, calls, dispatch, _LATER_ANSWERS)
        nudges += later
        run.record(turn, text, calls, dispatch, nudges)
        if stop is not None:
            return run.finish(stop.reason, stop.detail, text)
        run.next_turn(dispatch, nudges)

    return run.finish("max_turns", f"the turn budget of {max_turns} ran out", run.records[-1].text)
