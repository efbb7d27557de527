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

`run_loop` follows that sketch step by step; the steps themselves (run the calls, check a claimed
finish, consult the after-turn hooks) are methods of `_Run`, a private record of one run's
transcript and counters.

Every run ends on one of `STOP_REASONS`, declared once below. "Tell the model" is a `Nudge` the
loop appends as a message; "stop the run" is a `Stop` with a named reason. An endpoint that cannot
be used raises `cafe.endpoint.errors.EndpointError` (via `cafe.endpoint.client.chat`); it is not a stop reason,
because no policy decision was made: the run simply could not happen.

Plug-in points (later sessions use these and never edit the loop):

- `observers`: callables `(TurnView) -> Verdict | None`, called at the START of every turn,
  after the model has answered and before its calls run. They see the calls just proposed
  (`view.calls`) and what the PREVIOUS turn's calls returned (`view.prev_dispatch`), never this
  turn's results, which do not exist yet. That is the one-turn lag session 13 explains: a
  detector sitting here learns the outcome of turn N when turn N+1 starts. An observer may
  return `Nudge` (sent to the model after this turn) or `Stop` (the turn's calls never run).
- `after_turn`: callables `(TurnView) -> Verdict | None`, called once the turn's calls have run,
  in list order, with `view.dispatch` holding this turn's results. They may also return
  `Verify`: the loop then runs the verify entrypoint at once (if there is one and
  `max_verify_attempts` is not used up; otherwise the verdict is ignored) and adds its result
  (marked `forced=True`) to `dispatch`, so hooks later in the list see it, and so does the next turn's
  `prev_dispatch`. Put a hook that forces a verification before hooks that read its result.
- `verify`: a `Tool` taking no required arguments (the workbench's `run_tests`, say). When the
  model says it is done, the loop runs it; a failure goes back to the model instead of ending
  the run. Every run of it, claimed or forced, counts against `max_verify_attempts`.
- `clock`: a function returning seconds (default `time.monotonic`); `view.elapsed` is measured
  with it, so pace logic (session 14) tests without sleeping.

Left out here and covered later: what makes an answer right (session 02, `cafe.evals`), what the
model is allowed to see (session 03), repairing a bad answer (session 07), traces (session 08),
noticing the agent going round in circles (session 13, `cafe.stall`), pacing (session 14).

Lesson: sessions/s01-agent-loop/lesson.md. Notebook: notebooks/s01-agent-loop.ipynb.
"""

from __future__ import annotations

import copy
import json
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Union, get_args

from cafe.endpoint.client import chat
from cafe.endpoint.config import model_name
from cafe.tools import Tool, ToolKind, ToolOutput, tool_schemas

__all__ = [
    "StopReason",
    "STOP_REASONS",
    "OBSERVER_STOP_REASONS",
    "DEFAULT_MAX_TURNS",
    "DEFAULT_MAX_VERIFY_ATTEMPTS",
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
    "dispatch_call",
    "run_loop",
    "repeat_guard",
    "check_repeat_guard",
]

# --- constants ------------------------------------------------------------------------------

# How every run ends. Declared once; code that reads a stop reason handles all five.
#   done           the model answered without calling a tool (and the verify entrypoint, if any, passed)
#   max_turns      the turn budget ran out first
#   verify_failed  the model said it was done, the check failed, and max_verify_attempts were used up
#   stuck          an observer judged the run to be going nowhere (session 13's stall detector)
#   cut            an observer ended the run on a budget or pace policy (session 14's governor)
StopReason = Literal["done", "max_turns", "verify_failed", "stuck", "cut"]
STOP_REASONS: frozenset[str] = frozenset(get_args(StopReason))
# The reasons a `Stop` verdict may carry: the others are the loop's own to decide.
OBSERVER_STOP_REASONS: frozenset[str] = frozenset({"stuck", "cut"})

# Course choices, not reference values: ten model calls is plenty for the café's small tasks and
# short enough that a runaway scripted run ends while a learner is still watching; three checks
# per run lets a model fail verification twice and still finish.
DEFAULT_MAX_TURNS = 10
DEFAULT_MAX_VERIFY_ATTEMPTS = 3


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ToolCall:
    """One call the model asked for: its id, the tool's name and the decoded arguments."""

    id: str
    name: str
    arguments: Mapping[str, Any]
    raw_arguments: str  # the JSON text as sent, kept so a decoding failure can be shown


@dataclass(frozen=True)
class ToolResult:
    """What one call returned. `ok` is False for errors and for failures a tool reports.

    `kind` is the called tool's kind (`observe` when the tool does not exist). `forced` marks a
    verification the loop ran itself (on a claimed finish, or because a hook asked for it),
    rather than one the model called.
    """

    call_id: str
    name: str
    arguments: Mapping[str, Any]
    ok: bool
    output: str
    kind: ToolKind = "observe"
    forced: bool = False


@dataclass(frozen=True)
class TurnView:
    """What observers and after-turn hooks are shown. Fields a phase cannot know are empty.

    At the start of a turn `dispatch` is empty; after it, `dispatch` holds this turn's results.
    """

    turn: int
    max_turns: int
    calls: tuple[ToolCall, ...]            # proposed this turn; empty means "I am done"
    prev_dispatch: tuple[ToolResult, ...]  # what the previous turn's calls returned
    dispatch: tuple[ToolResult, ...]       # this turn's results (after-turn hooks only)
    elapsed: float                         # seconds since the run started, by the injected clock
    verify_attempts: int                   # verifications the loop itself ran so far, claimed or forced;
                                           # a check the model called as a tool does not count
    can_verify: bool                       # a verify entrypoint exists and attempts remain


@dataclass(frozen=True)
class Nudge:
    """Tell the model something: `text` is appended as a user message after this turn."""

    text: str
    source: str = ""  # who sent it (e.g. a stall pattern name), for the record


@dataclass(frozen=True)
class Stop:
    """Stop the run now with a named reason (one of `OBSERVER_STOP_REASONS`)."""

    reason: StopReason
    detail: str = ""

    def __post_init__(self) -> None:
        if self.reason not in OBSERVER_STOP_REASONS:
            raise ValueError(f"Stop reason {self.reason!r} cannot come from an observer; "
                             f"use one of {sorted(OBSERVER_STOP_REASONS)}.")


@dataclass(frozen=True)
class Verify:
    """Run the verify entrypoint now, even though the model did not ask (after-turn hooks only)."""

    reason: str = ""


Verdict = Union[Nudge, Stop, Verify]
Observer = Callable[[TurnView], Union[Verdict, None]]


@dataclass(frozen=True)
class TurnRecord:
    """One turn, as it happened: what the model said, what ran, what the loop told it."""

    turn: int
    text: str | None
    calls: tuple[ToolCall, ...]
    dispatch: tuple[ToolResult, ...]
    nudges: tuple[Nudge, ...]


@dataclass(frozen=True)
class RunResult:
    """How a run ended. `messages` is the whole transcript: a new list, never the caller's."""

    stop_reason: StopReason
    detail: str
    text: str | None                 # the model's last words (its answer, when it finished)
    turns: tuple[TurnRecord, ...]
    messages: tuple[Mapping[str, Any], ...]
    verify_attempts: int             # as on `TurnView`: the loop's own verifications, not the model's
    elapsed: float


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
        return ToolResult(call.id, call.name, call.arguments, False,
                          f"There is no tool named {call.name!r}. The tools are: {known}.")
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
            errors.append(ToolResult(call_id, raw.function.name, {}, False,
                                     f"Your arguments for {raw.function.name} are not a JSON object "
                                     f"({exc}): {text[:200]}"))
            arguments = {}
        calls.append(ToolCall(call_id, raw.function.name, arguments, text))
    return calls, errors


def _assistant_message(text: str | None, calls: Sequence[ToolCall]) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        message["tool_calls"] = [
            {"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.raw_arguments}}
            for c in calls
        ]
    return message


def _verification_message(result: ToolResult, why: str) -> dict[str, Any]:
    verdict = "passed" if result.ok else "FAILED"
    return {"role": "user", "content": f"[harness] {why} The check ({result.name}) {verdict}:\n{result.output}"}


def _consult(hooks: Sequence[Observer], view: TurnView, *, allow_verify: bool) -> list[Verdict]:
    """Show `view` to each hook in turn; collect the verdicts, refusing anything that is not one."""
    verdicts = []
    for hook in hooks:
        verdict = hook(view)
        if verdict is None:
            continue
        if not isinstance(verdict, (Nudge, Stop, Verify)) or (isinstance(verdict, Verify) and not allow_verify):
            raise TypeError(f"Observer {getattr(hook, '__name__', hook)!r} returned {verdict!r}; "
                            "observers return None, Nudge or Stop (after-turn hooks may also return Verify).")
        verdicts.append(verdict)
    return verdicts


# --- one run's state, and the steps of a turn -------------------------------------------------


class _Run:
    """What one run remembers between turns, and the steps `run_loop` takes on it.

    Private and mutable on purpose: it lives for one call of `run_loop` and is never shared.
    Each method is one step of the loop on the lesson's screen.
    """

    def __init__(self, messages: Sequence[Mapping[str, Any]], tools: Sequence[Tool], verify: Tool | None,
                 max_turns: int, max_verify_attempts: int, clock: Callable[[], float]):
        self.by_name = {t.name: t for t in tools}
        self.verify, self.max_turns, self.clock = verify, max_turns, clock
        self.max_verify_attempts = max_verify_attempts
        self.transcript: list[dict[str, Any]] = copy.deepcopy([dict(m) for m in messages])  # a copy, always
        self.records: list[TurnRecord] = []
        self.prev: tuple[ToolResult, ...] = ()  # the previous turn's results, for the observers
        self.attempts = 0  # verifications run so far, claimed or forced
        self.last_check: ToolResult | None = None  # the latest verification, run by the model or the loop
        self.edited_since_check = False
        self.started = clock()

    def view(self, turn: int, calls: Sequence[ToolCall], dispatch: tuple[ToolResult, ...]) -> TurnView:
        return TurnView(turn, self.max_turns, tuple(calls), self.prev, dispatch, self.clock() - self.started,
                        self.attempts, self.verify is not None and self.attempts < self.max_verify_attempts)

    def record(self, turn: int, text: str | None, calls: Sequence[ToolCall], dispatch: tuple[ToolResult, ...],
               nudges: Sequence[Nudge]) -> None:
        self.records.append(TurnRecord(turn, text, tuple(calls), dispatch, tuple(nudges)))

    def finish(self, reason: StopReason, detail: str, text: str | None) -> RunResult:
        return RunResult(reason, detail, text, tuple(self.records), tuple(self.transcript), self.attempts,
                         self.clock() - self.started)

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
        result = dispatch_call(ToolCall(f"verify_{self.attempts}", self.verify.name, {}, "{}"),
                               {self.verify.name: self.verify}, forced=True)
        self.transcript.append(_verification_message(result, why))
        self.note([result])
        return result

    def stop_before_calls(self, turn: int, text: str | None, calls: Sequence[ToolCall], stop: Stop) -> RunResult:
        """An observer stopped the run: answer every call as not run, so the transcript stays valid."""
        for c in calls:
            self.transcript.append({"role": "tool", "tool_call_id": c.id,
                                    "content": f"[harness] not run: the run stopped ({stop.reason})."})
        self.record(turn, text, calls, (), ())
        return self.finish(stop.reason, stop.detail, text)

    def run_calls(self, calls: Sequence[ToolCall], bad: Sequence[ToolResult]) -> tuple[ToolResult, ...]:
        """Run each call (or use its decoding error) and append every result to the transcript."""
        by_id = {r.call_id: r for r in bad}
        dispatch = tuple(by_id.get(c.id) or dispatch_call(c, self.by_name) for c in calls)
        for result in dispatch:
            self.transcript.append({"role": "tool", "tool_call_id": result.call_id, "content": result.output})
        self.note(dispatch)
        return dispatch

    def check_claim(self, turn: int, text: str | None,
                    nudges: Sequence[Nudge]) -> tuple[RunResult | None, tuple[ToolResult, ...]]:
        """The model says it is done. Returns the run's end, or (None, the failed check) to go on."""
        if self.verify is None:
            self.record(turn, text, (), (), nudges)
            return self.finish("done", "the model answered without calling a tool", text), ()
        if self.attempts >= self.max_verify_attempts:  # no check left to spend: trust only a fresh pass
            self.record(turn, text, (), (), nudges)
            if self.last_check is not None and self.last_check.ok and not self.edited_since_check:
                return self.finish("done", "the model finished and the last verification passed", text), ()
            return self.finish("verify_failed", f"no verification attempts left ({self.attempts} used) "
                               "to confirm the claimed finish", text), ()
        check = self.verify_now("You said you were done, so the harness checked.")
        if check.ok:
            self.record(turn, text, (), (check,), nudges)
            return self.finish("done", "the model finished and verification passed", text), ()
        if self.attempts >= self.max_verify_attempts:
            self.record(turn, text, (), (check,), nudges)
            return self.finish("verify_failed", f"verification failed {self.attempts} time(s)", text), ()
        return None, (check,)

    def after_turn(self, hooks: Sequence[Observer], turn: int, calls: Sequence[ToolCall],
                   dispatch: tuple[ToolResult, ...], nudges: list[Nudge],
                   ) -> tuple[tuple[ToolResult, ...], Stop | None]:
        """Show the turn's results to each hook, in list order, so a forced check is seen by later hooks."""
        stop = None
        for hook in hooks:
            for verdict in _consult([hook], self.view(turn, calls, dispatch), allow_verify=True):
                if isinstance(verdict, Verify):
                    if self.verify is not None and self.attempts < self.max_verify_attempts:
                        why = f"The harness re-ran the check ({verdict.reason})." if verdict.reason \
                            else "The harness re-ran the check."
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
    """Run the agent loop until the model is done or a budget or observer stops it.

    `client` is anything with the OpenAI client's interface (`cafe.make_client()` gives one);
    `messages` is the opening transcript, copied and never modified. See the module docstring
    for the plug-in points and `STOP_REASONS` for how a run can end.
    """
    if max_turns < 1:
        raise ValueError(f"max_turns must be at least 1, not {max_turns}.")
    if max_verify_attempts < 1:
        raise ValueError(f"max_verify_attempts must be at least 1, not {max_verify_attempts}.")
    if verify is not None and not isinstance(verify, Tool):
        raise TypeError(f"verify must be a Tool (build one with cafe.tools.tool), not {type(verify).__name__}.")
    schemas = tool_schemas(tools)
    model = model or model_name()
    run = _Run(messages, tools, verify, max_turns, max_verify_attempts, clock)

    for turn in range(1, max_turns + 1):
        # Ask the model, with the transcript so far and the tool schemas.
        request: dict[str, Any] = {"model": model, "messages": run.transcript}
        if schemas:
            request["tools"] = schemas
        reply = chat(client, **request).choices[0].message
        calls, bad = _decode_calls(reply, turn)
        run.transcript.append(_assistant_message(reply.content, calls))

        # Observers look at the proposed calls before anything runs: they may nudge, or stop.
        verdicts = _consult(observers, run.view(turn, calls, ()), allow_verify=False)
        stop = next((v for v in verdicts if isinstance(v, Stop)), None)
        if stop is not None:
            return run.stop_before_calls(turn, reply.content, calls, stop)
        nudges = [v for v in verdicts if isinstance(v, Nudge)]

        # No calls: the model says it is done, and the verify entrypoint (if any) checks the claim.
        # Otherwise: run each call and append its result.
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


# --- session 01's exercise: a first observer ------------------------------------------------


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


def check_repeat_guard(guard: Callable[[TurnView], Any]) -> list[str]:
    """Problems with a learner's `repeat_guard` (session 01's your-turn exercise); empty when it holds."""
    latte = ToolCall("c1", "look_up", {"item": "latte"}, '{"item": "latte"}')
    scone = ToolCall("c2", "look_up", {"item": "scone"}, '{"item": "scone"}')
    seen = ToolResult("c0", "look_up", {"item": "latte"}, True, "latte: €4.20")

    def view(calls: tuple[ToolCall, ...], prev: tuple[ToolResult, ...]) -> TurnView:
        return TurnView(2, 10, calls, prev, (), 0.0, 0, False)

    problems = []
    verdict = guard(view((latte,), (seen,)))
    if not (isinstance(verdict, Stop) and verdict.reason == "stuck"):
        problems.append(f"the same call again (look_up latte twice) should give Stop('stuck', ...), got {verdict!r}")
    for label, calls, prev in [("a different argument (latte, then scone)", (scone,), (seen,)),
                               ("the first turn (nothing seen yet)", (latte,), ()),
                               ("the model finishing (no calls)", (), (seen,))]:
        verdict = guard(view(calls, prev))
        if verdict is not None:
            problems.append(f"{label} should give None, got {verdict!r}")
    return problems
