"""The agent loop: ask the model, run the tools it asks for, hand back the results, repeat.

Session 01. Everything later in the course is a policy wrapped around this one loop, so it is
small on purpose and says out loud where the policies plug in. One run goes:

    turn 1..max_turns:
        ask the model (the transcript so far, the tool schemas)
        observers look at the turn before anything runs          -> may nudge, may stop
        no tool calls?  the model says it is done
            no verify entrypoint: stop `done`
            verify passes: stop `done`; fails: tell the model, go on (or stop `verify_failed`)
        otherwise run each call, append each result
        after-turn hooks look at what ran                          -> may force a verify, nudge, stop
    out of turns: stop `max_turns`

`run_loop` follows that sketch; its steps are methods of `_Run`, one run's private state. A run
ends on one of `RUN_STOP_REASONS` (declared with the turn's records in `cafe/loop/turns.py`). "Tell the
model" is a `Nudge` the loop appends as a message; "stop the run" is a `Stop` with a named
reason. An unusable endpoint raises `cafe.endpoint.errors.EndpointError`: no policy decided that.

Plug-in points (later sessions use these and never edit the loop):

- `observers`: callables `(TurnView) -> Nudge | Stop | None`, called at the START of every
  turn, after the model answered and before its calls run. They see the calls just proposed
  (`view.calls`) and what the PREVIOUS turn's calls returned (`view.prev_dispatch`), never this
  turn's results: the one-turn lag session 13 explains. A `Stop` means the calls never run.
- `after_turn`: callables `(TurnView) -> Nudge | Stop | Verify | None`, called in list order
  once the calls have run, with `view.dispatch` holding this turn's results. `Verify` makes the
  loop run the verify entrypoint now (if there is one and `max_verify_attempts` is not used up;
  otherwise it is ignored) and add the result (`forced=True`) to `dispatch`, so later hooks and
  the next turn's `prev_dispatch` see it. Put a hook that forces a check before hooks that read it.
- `verify`: a `Tool` taking no required arguments (the workbench's `run_tests`, say). When the
  model says it is done, the loop runs it; a failure goes back to the model instead of ending
  the run. Every run of it, claimed or forced, counts against `max_verify_attempts`.
- `clock`: a function returning seconds (default `time.monotonic`); `view.elapsed` is measured
  with it, so pace logic (session 14) tests without sleeping.

Left out: what makes an answer right (session 02), what the model may see (session 03), repairing
a bad answer (07), traces (08), noticing the agent going round in circles (13), pacing (14).

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from cafe.endpoint.client import chat
from cafe.endpoint.config import model_name
from cafe.loop.tools import Tool, ToolOutput, tool_schemas
from cafe.loop.turns import (
    OBSERVER_STOP_REASONS,
    RUN_STOP_REASONS,
    Nudge,
    Observer,
    RunResult,
    RunStopReason,
    Stop,
    ToolCall,
    ToolResult,
    TurnRecord,
    TurnView,
    Verdict,
    Verify,
)

__all__ = [
    "DEFAULT_MAX_TURNS",
    "DEFAULT_MAX_VERIFY_ATTEMPTS",
    "dispatch_call",
    "run_loop",
    "repeat_guard",
    # the turn's records (cafe/loop/turns.py), importable from here as the lessons write them
    "RunStopReason",
    "RUN_STOP_REASONS",
    "OBSERVER_STOP_REASONS",
    "ToolCall",
    "ToolResult",
    "TurnView",
    "Nudge",
    "Stop",
    "Verify",
    "Verdict",
    "Observer",
    "TurnRecord",
    "RunResult",
]

# --- constants ------------------------------------------------------------------------------

# Course choices: ten model calls is plenty for the café's small tasks and short enough that a
# runaway scripted run ends while a learner is still watching; three checks per run lets a model
# fail verification twice and still finish.
DEFAULT_MAX_TURNS = 10
DEFAULT_MAX_VERIFY_ATTEMPTS = 3


# --- small pure helpers ---------------------------------------------------------------------


def _render(value: Any) -> tuple[bool, str]:
    if isinstance(value, ToolOutput):
        return value.ok, value.text
    if isinstance(value, str):
        return True, value
    return True, json.dumps(value, default=str)


def dispatch_call(call: ToolCall, tools: Mapping[str, Tool], *, forced: bool = False) -> ToolResult:
    """Run one call and return its result. Mistakes become error results the model can read."""
    chosen = tools.get(call.name)
    if chosen is None:
        known = ", ".join(sorted(tools)) or "(none)"
        return ToolResult(
            call.id,
            call.name,
            call.arguments,
            False,
            f"There is no tool named {call.name!r}. The tools are: {known}.",
        )
    try:
        ok, text = _render(chosen.function(**call.arguments))
    except Exception as exc:  # a tool's failure is the model's information, not our crash
        ok, text = False, f"{type(exc).__name__}: {exc}"
    return ToolResult(call.id, call.name, call.arguments, ok, text, chosen.kind, forced)


def _decode_calls(message: Any, turn: int) -> tuple[list[ToolCall], list[ToolResult]]:
    """The calls in an assistant message, plus error results for any whose arguments are not JSON."""
    calls, errors = [], []
    for i, raw in enumerate(message.tool_calls or []):
        call_id = raw.id or f"call_{turn}_{i}"
        text = raw.function.arguments or "{}"
        try:
            arguments = json.loads(text)
            if not isinstance(arguments, dict):
                raise ValueError("arguments must be a JSON object")
        except ValueError as exc:
            errors.append(
                ToolResult(
                    call_id,
                    raw.function.name,
                    {},
                    False,
                    f"Your arguments for {raw.function.name} are not a JSON object "
                    f"({exc}): {text[:200]}",
                )
            )
            arguments = {}
        calls.append(ToolCall(call_id, raw.function.name, arguments, text))
    return calls, errors


def _assistant_message(text: str | None, calls: Sequence[ToolCall]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {
                "id": c.id,
                "type": "function",
                "function": {"name": c.name, "arguments": c.raw_arguments},
            }
            for c in calls
        ]
    return message


def _verification_message(result: ToolResult, why: str) -> dict[str, Any]:
    verdict = "passed" if result.ok else "FAILED"
    return {
        "role": "user",
        "content": f"[harness] {why} The check ({result.name}) {verdict}:\n{result.output}",
    }


def _consult(hooks: Sequence[Observer], view: TurnView, *, allow_verify: bool) -> list[Verdict]:
    """Show `view` to each hook in turn; collect the verdicts, refusing anything that is not one."""
    verdicts = []
    for hook in hooks:
        verdict = hook(view)
        if verdict is None:
            continue
        if not isinstance(verdict, (Nudge, Stop, Verify)) or (
            isinstance(verdict, Verify) and not allow_verify
        ):
            raise TypeError(
                f"Observer {getattr(hook, '__name__', hook)!r} returned {verdict!r}; "
                "observers return None, Nudge or Stop (after-turn hooks may also return Verify)."
            )
        verdicts.append(verdict)
    return verdicts


def _check_settings(max_turns: int, max_verify_attempts: int, verify: Tool | None) -> None:
    if max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, not {max_turns}.")
    if max_verify_attempts < 1:
        raise ValueError(f"max_verify_attempts must be at least 1, not {max_verify_attempts}.")
    if verify is not None and not isinstance(verify, Tool):
        raise TypeError(
            f"verify must be a Tool (build one with cafe.loop.tools.tool), not {type(verify).__name__}."
        )


# --- one run's state, and the steps of a turn -------------------------------------------------


class _Run:
    """What one run remembers between turns, and the steps `run_loop` takes on it. Private and
    mutable on purpose: it lives for one call of `run_loop` and is never shared."""

    def __init__(
        self,
        messages: Sequence[Mapping[str, Any]],
        tools: Sequence[Tool],
        verify: Tool | None,
        max_turns: int,
        max_verify_attempts: int,
        clock: Callable[[], float],
    ):
        self.by_name = {t.name: t for t in tools}
        self.verify, self.max_turns, self.clock = verify, max_turns, clock
        self.max_verify_attempts = max_verify_attempts
        self.transcript: list[dict[str, Any]] = copy.deepcopy(
            [dict(m) for m in messages]
        )  # a copy, always
        self.records: list[TurnRecord] = []
        self.prev: tuple[ToolResult, ...] = ()  # the previous turn's results, for the observers
        self.attempts = 0  # verifications run so far, claimed or forced
        self.last_check: ToolResult | None = (
            None  # the latest verification, run by the model or the loop
        )
        self.edited_since_check = False
        self.started = clock()

    def ask(
        self,
        client: Any,
        model: str,
        schemas: list[dict[str, Any]],
        turn: int,
    ) -> tuple[Any, list[ToolCall], list[ToolResult]]:
        """Send the transcript (and the tool schemas) to the model; note its reply and its calls."""
        request: dict[str, Any] = {"model": model, "messages": self.transcript}
        if schemas:
            request["tools"] = schemas
        reply = chat(client, **request).choices[0].message
        calls, bad = _decode_calls(reply, turn)
        self.transcript.append(_assistant_message(reply.content, calls))
        return reply, calls, bad

    def view(
        self, turn: int, calls: Sequence[ToolCall], dispatch: tuple[ToolResult, ...]
    ) -> TurnView:
        return TurnView(
            turn,
            self.max_turns,
            tuple(calls),
            self.prev,
            dispatch,
            self.clock() - self.started,
            self.attempts,
            self.verify is not None and self.attempts < self.max_verify_attempts,
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

    def finish(self, reason: RunStopReason, detail: str, text: str | None) -> RunResult:
        return RunResult(
            reason,
            detail,
            text,
            tuple(self.records),
            tuple(self.transcript),
            self.attempts,
            self.clock() - self.started,
        )

    def note(self, results: Sequence[ToolResult]) -> None:
        """Remember the latest verification, and whether an edit has landed since."""
        for result in results:
            if result.kind == "verify":
                self.last_check, self.edited_since_check = result, False
            elif result.kind == "mutate" and result.ok:
                self.edited_since_check = True

    def verify_now(self, why: str) -> ToolResult:
        """Run the verify entrypoint, tell the model what it said, and count the attempt."""
        assert self.verify is not None
        self.attempts += 1
        result = dispatch_call(
            ToolCall(f"verify_{self.attempts}", self.verify.name, {}, "{}"),
            {self.verify.name: self.verify},
            forced=True,
        )
        self.transcript.append(_verification_message(result, why))
        self.note([result])
        return result

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
        self.note(dispatch)
        return dispatch

    def check_claim(
        self, turn: int, text: str | None, nudges: Sequence[Nudge]
    ) -> tuple[RunResult | None, tuple[ToolResult, ...]]:
        """The model says it is done. Returns the run's end, or (None, the failed check) to go on."""
        if self.verify is None:
            self.record(turn, text, (), (), nudges)
            return self.finish("done", "the model answered without calling a tool", text), ()
        if (
            self.attempts >= self.max_verify_attempts
        ):  # no check left to spend: trust only a fresh pass
            self.record(turn, text, (), (), nudges)
            if self.last_check is not None and self.last_check.ok and not self.edited_since_check:
                return self.finish(
                    "done", "the model finished and the last verification passed", text
                ), ()
            return self.finish(
                "verify_failed",
                f"no verification attempts left ({self.attempts} used) "
                "to confirm the claimed finish",
                text,
            ), ()
        check = self.verify_now("You said you were done, so the harness checked.")
        if check.ok:
            self.record(turn, text, (), (check,), nudges)
            return self.finish("done", "the model finished and verification passed", text), ()
        if self.attempts >= self.max_verify_attempts:
            self.record(turn, text, (), (check,), nudges)
            return self.finish(
                "verify_failed", f"verification failed {self.attempts} time(s)", text
            ), ()
        return None, (check,)

    def after_turn(
        self,
        hooks: Sequence[Observer],
        turn: int,
        calls: Sequence[ToolCall],
        dispatch: tuple[ToolResult, ...],
        nudges: list[Nudge],
    ) -> tuple[tuple[ToolResult, ...], Stop | None]:
        """Show the turn's results to each hook, in list order, so a forced check is seen by later hooks."""
        stop = None
        for hook in hooks:
            for verdict in _consult([hook], self.view(turn, calls, dispatch), allow_verify=True):
                if isinstance(verdict, Verify):
                    if self.verify is not None and self.attempts < self.max_verify_attempts:
                        why = (
                            f"The harness re-ran the check ({verdict.reason})."
                            if verdict.reason
                            else "The harness re-ran the check."
                        )
                        dispatch = dispatch + (self.verify_now(why),)
                elif isinstance(verdict, Stop):
                    stop = stop or verdict
                else:
                    nudges.append(verdict)
        return dispatch, stop

    def next_turn(self, dispatch: tuple[ToolResult, ...], nudges: Sequence[Nudge]) -> None:
        """Send the nudges after the turn's results, and hand this turn's results to the next one."""
        for nudge in nudges:
            self.transcript.append({"role": "user", "content": nudge.text})
        self.prev = dispatch


# --- the main function ----------------------------------------------------------------------


def run_loop(
    client: Any,
    messages: Sequence[Mapping[str, Any]],
    tools: Sequence[Tool] = (),
    *,
    model: str | None = None,
    max_turns: int = DEFAULT_MAX_TURNS,
    observers: Sequence[Observer] = (),
    after_turn: Sequence[Observer] = (),
    verify: Tool | None = None,
    max_verify_attempts: int = DEFAULT_MAX_VERIFY_ATTEMPTS,
    clock: Callable[[], float] = time.monotonic,
) -> RunResult:
    """Run the agent loop until the model is done or a budget or observer stops it. `client` is
    anything with the OpenAI client's interface (`cafe.make_client()` gives one);
    `messages` is the opening transcript, copied and never modified. The module docstring lists
    the plug-in points; `RUN_STOP_REASONS`, how a run can end.
    """
    _check_settings(max_turns, max_verify_attempts, verify)
    schemas = tool_schemas(tools)
    model = model or model_name()
    run = _Run(messages, tools, verify, max_turns, max_verify_attempts, clock)

    for turn in range(1, max_turns + 1):
        # Ask the model, with the transcript so far and the tool schemas.
        reply, calls, bad = run.ask(client, model, schemas, turn)

        # Observers look at the proposed calls before anything runs: they may nudge, or stop.
        verdicts = _consult(observers, run.view(turn, calls, ()), allow_verify=False)
        stop = next((v for v in verdicts if isinstance(v, Stop)), None)
        if stop is not None:
            return run.stop_before_calls(turn, reply.content, calls, stop)
        nudges = [v for v in verdicts if isinstance(v, Nudge)]

        # No calls: the model says it is done (the verify entrypoint, if any, checks the claim).
        if not calls:
            ended, dispatch = run.check_claim(turn, reply.content, nudges)
            if ended is not None:
                return ended
        else:
            dispatch = run.run_calls(calls, bad)

        # After-turn hooks look at what ran: they may force a check, nudge, or stop.
        dispatch, stop = run.after_turn(after_turn, turn, calls, dispatch, nudges)
        run.record(turn, reply.content, calls, dispatch, nudges)
        if stop is not None:
            return run.finish(stop.reason, stop.detail, reply.content)
        run.next_turn(dispatch, nudges)

    return run.finish("max_turns", f"the turn budget of {max_turns} ran out", run.records[-1].text)


# --- a first observer (session 01's exercise; its checker is cafe/exercises/s01.py) ----------


def _same_calls(calls: Sequence[ToolCall], results: Sequence[ToolResult]) -> bool:
    asked = [(c.name, dict(c.arguments)) for c in calls]
    seen = [(r.name, dict(r.arguments)) for r in results if not r.forced]
    return bool(asked) and asked == seen


def repeat_guard(view: TurnView) -> Stop | None:
    """An observer: stop the run as `stuck` when the model asks for exactly the calls it just
    made (same tools, same arguments) after seeing their results. The simplest stall detector;
    session 13 explains why counting repeats is not enough."""
    if _same_calls(view.calls, view.prev_dispatch):
        names = ", ".join(c.name for c in view.calls)
        return Stop("stuck", f"turn {view.turn} repeats the previous turn's calls ({names})")
    return None
