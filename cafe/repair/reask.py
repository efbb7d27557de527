"""The bounded re-ask: regenerate a rejected ticket with a curated failure view, up to a cap.

Session 07 (`sessions/s07-repair-loop/lesson.md`, notebook `notebooks/s07-repair-loop.ipynb`).
Sessions 04 and 06 can say *what* is wrong with a draft (`cafe.schema`, `cafe.detect`); this
module decides what happens next. It adds:

- `score_ticket`: one draft in, a ticket or a list of named failures out, never an exception;
- `failure_view` / `retry_messages`: what a retry is allowed to see (`naive` or `curated`);
- `policy_failures`: requests that must never reach the generator at all (and, from session 05,
  `cafe.consent.changes_to_confirm`: orders the customer must change before any draft can pass);
- `repair_ticket`: the loop, which always ends on a stop reason from `STOP_REASONS`;
- `make_scripted_generator` and `make_model_generator`: the two kinds of generator it drives.

A failure view stays short whatever the draft held: every `Failure` clips its span and fix where
it is made (`cafe.schema.clip`), and `failure_view` lists at most `VIEW_FAILURES_MAX` of them.
The notebook's your-turn checker for `attempt_failure_view` is `cafe.exercises.s07`.

What it leaves out: remembering anything across runs (S08 traces runs), sorting exhausted runs
into failure classes (S10), and what retries cost in money (S11). The chance that plain
resampling passes anyway is `cafe.repair.lottery`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from cafe.consent import OrderSpec, changes_to_confirm
from cafe.context import DATA_RULES, customer_words
from cafe.detect.checks import check_ticket, scan_allergies, scan_request
from cafe.schema.drafts import StructuredDrafts
from cafe.schema.parsing import parse_draft
from cafe.schema.ticket import Draft, Failure, Ticket, Usage, contract_text
from cafe.world.menu import Menu, allergen_key, load_menu

__all__ = [
    "CAP_DEFAULT",
    "STOP_REASONS",
    "StopReason",
    "RETRY_MODES",
    "RetryMode",
    "CHANGE_NOTHING_ELSE",
    "OMELETTE_SPEC",
    "ALTERNATING_CANDIDATES",
    "UNSAFE_SPEC",
    "Message",
    "Generator",
    "Score",
    "Attempt",
    "RepairResult",
    "ScriptedGenerator",
    "policy_failures",
    "VIEW_FAILURES_MAX",
    "score_ticket",
    "attempt_failure_view",
    "failure_view",
    "brief_for",
    "retry_messages",
    "system_prompt",
    "make_scripted_generator",
    "make_model_generator",
    "repair_ticket",
    "attempts_to_pass",
]

# Three attempts. Past it, plain resampling pays little (see the table in cafe.repair.lottery), and a
# defect that came back on the second attempt is systematic: a fourth only bills it again.
CAP_DEFAULT = 3

# How a run may end. Declared once; `repair_ticket` can return nothing else.
# `needs_consent`: the approved order cannot pass as it stands and the customer must confirm a
# change first (`cafe.consent.changes_to_confirm`, session 05); nothing is generated.
StopReason = Literal["passed", "retries_exhausted", "policy_violation", "needs_consent"]
STOP_REASONS: frozenset[str] = frozenset(get_args(StopReason))

# What a retry may see: the identical brief (`naive`) or the brief plus a failure view (`curated`).
RetryMode = Literal["naive", "curated"]
RETRY_MODES: tuple[str, ...] = get_args(RetryMode)

# The first line of every failure view. Without it, models fix the named defect and "improve"
# something else on the way, which the next scoring then fails.
CHANGE_NOTHING_ELSE = (
    "Your last ticket was rejected. Write the ticket for the same order again, "
    "fixing only what is listed below. Change nothing else."
)

# The most failures one view lists. A draft can fail once per item, and a draft of a thousand
# items would otherwise send a thousand lines; the first few are enough to fix, and the next
# attempt's scoring shows the rest. Eight covers every failure of any real order in the course.
VIEW_FAILURES_MAX = 8

# The lesson's worked example, shared by the toy, the notebook, the benchmark and the tests:
# table 4 wants the cheese omelette, which is 86'd today, and the scripted drafts alternate
# between forgetting the table and a complete ticket for the omelette. No draft can pass.
OMELETTE_SPEC = OrderSpec(
    table=4, items=("cheese omelette",), request="The cheese omelette for table 4, please."
)
ALTERNATING_CANDIDATES: tuple[str, ...] = (
    '{"items": ["cheese omelette"], "allergies": [], "notes": ""}',
    '{"table": 4, "items": ["cheese omelette"], "allergies": [], "notes": ""}',
)
# A known unsafe request: the only item contains the allergen the customer declared.
UNSAFE_SPEC = OrderSpec(
    table=2, items=("latte",), allergies=("milk",), request="A latte, please. I'm allergic to milk."
)

Message = dict[str, str]
# A generator turns messages into a draft: text, or a `Draft` carrying token usage too.
Generator = Callable[[list[Message]], "str | Draft"]


@dataclass(frozen=True)
class Score:
    """A scored draft. `ticket` is set exactly when `failures` is empty."""

    ticket: Ticket | None
    failures: tuple[Failure, ...]


@dataclass(frozen=True)
class Attempt:
    """One generation: what the model wrote, what failed, and what the prompt cost.

    `prompt_chars` counts the messages the loop sent (a model generator adds its system prompt);
    `usage` is what the endpoint reported, when it reports anything.
    """

    number: int
    draft: str
    failures: tuple[Failure, ...]
    prompt_chars: int
    usage: Usage | None


@dataclass(frozen=True)
class RepairResult:
    """How a run ended. `ticket` is not None exactly when `stop_reason == "passed"`."""

    stop_reason: StopReason
    ticket: Ticket | None
    attempts: tuple[Attempt, ...]
    blocked_by: tuple[Failure, ...] = ()
    usage: Usage | None = None

    def __post_init__(self) -> None:  # the invariants, checked on every result ever built
        if self.stop_reason not in STOP_REASONS:
            raise ValueError(
                f"stop_reason {self.stop_reason!r} is not one of {sorted(STOP_REASONS)}."
            )
        if (self.ticket is not None) != (self.stop_reason == "passed"):
            raise ValueError(
                f"A {self.stop_reason} result {'needs' if self.ticket is None else 'cannot carry'} "
                "a ticket: a ticket exists exactly when the run passed."
            )
        if (self.stop_reason in ("policy_violation", "needs_consent")) != bool(self.blocked_by):
            raise ValueError(
                "blocked_by lists why a request was refused or sent back to the customer, so it "
                "is set exactly when stop_reason is policy_violation or needs_consent."
            )


def score_ticket(draft: str, spec: OrderSpec, menu: Menu) -> Score:
    """Score one draft: the contract first (S04), then menu, allergens, scope and notes (S06)."""
    parsed = parse_draft(draft)
    if parsed.ticket is None:
        return Score(None, parsed.failures)
    failures = check_ticket(parsed.ticket, spec, menu)
    return Score(None if failures else parsed.ticket, failures)


def attempt_failure_view(failures: Sequence[Failure], attempt: int) -> str:
    """One short line per failure, under a line naming the attempt. (The notebook's exercise.)"""
    lines = [f"Attempt {attempt} failed {len(failures)} check{'' if len(failures) == 1 else 's'}:"]
    lines += [f"- {failure.line()}" for failure in failures]
    return "\n".join(lines)


def failure_view(failures: Sequence[Failure], attempt: int) -> str:
    """What a curated retry adds to the brief: the change-nothing-else line, then the failures.

    At most `VIEW_FAILURES_MAX` failures are listed, then one line counting the rest.
    """
    shown = attempt_failure_view(failures[:VIEW_FAILURES_MAX], attempt)
    hidden = len(failures) - VIEW_FAILURES_MAX
    more = (
        f"\n({hidden} more failure{'' if hidden == 1 else 's'} not shown: fix these first.)"
        if hidden > 0
        else ""
    )
    return f"{CHANGE_NOTHING_ELSE}\n{shown}{more}"


def brief_for(spec: OrderSpec) -> tuple[Message, ...]:
    """The first attempt's messages: the approved order, with the customer's words marked untrusted."""
    text = (
        f"Order for table {spec.table}.\n"
        f"Items: {', '.join(spec.items)}\n"
        f"Declared allergies: {', '.join(spec.allergies) or 'none'}\n"
        f"Notes for the kitchen: {spec.notes or '(none)'}\n"
        f"{customer_words(spec.request)}\n"
        "Write the kitchen ticket for this order."
    )
    return ({"role": "user", "content": text},)


def retry_messages(
    brief: Sequence[Message], failures: Sequence[Failure], attempt: int, mode: str = "curated"
) -> tuple[Message, ...]:
    """The messages for the attempt after `attempt`. Never includes a failed draft.

    `naive`: the identical brief again. `curated`: the brief plus `failure_view(failures, attempt)`.
    """
    if mode not in RETRY_MODES:
        raise ValueError(f"Unknown retry mode {mode!r}; use one of: {', '.join(RETRY_MODES)}.")
    if isinstance(attempt, bool) or not isinstance(attempt, int) or attempt < 1:
        raise ValueError(
            f"attempt is {attempt!r}; pass the number (1, 2, ...) of the attempt that failed."
        )
    copied = tuple(dict(message) for message in brief)
    if mode == "naive":
        return copied
    if not failures:
        raise ValueError("A curated retry needs the failures that rejected the draft; got none.")
    return copied + ({"role": "user", "content": failure_view(failures, attempt)},)


def policy_failures(spec: OrderSpec, menu: Menu) -> tuple[Failure, ...]:
    """Why a request must not reach the generator at all (empty when it may).

    Three defects of the request itself: an injection pattern in what the customer wrote, a
    declared allergy the menu cannot be checked against (`unknown_allergen`), and an order where
    every item contains an allergen the customer declared. No draft can fix any of them.

    An unknown allergy stops the run rather than going to the retry: the model cannot confirm
    what the customer meant, and a ticket that reached the kitchen unchecked is the one mistake
    a café cannot take back. Front of house asks, then places the order again.
    """
    found = [*scan_request(spec), *scan_allergies(spec, menu)]
    for allergy in dict.fromkeys(allergen_key(a) for a in spec.allergies):
        if all(menu.contains(item, allergy) for item in spec.items):
            found.append(
                Failure(
                    "unsafe",
                    f"every item contains {allergy}: {', '.join(spec.items)}",
                    "take a new order from the customer; do not generate this one",
                )
            )
    return tuple(found)


class ScriptedGenerator:
    """A generator that answers with its candidates in order, starting over when they run out.

    `calls` keeps a copy of the messages of every call, so a test can see what a retry saw.
    """

    def __init__(self, candidates: Sequence[str]):
        self.candidates = tuple(candidates)
        self.calls: list[tuple[Message, ...]] = []

    def __call__(self, messages: list[Message]) -> str:
        self.calls.append(tuple(dict(m) for m in messages))
        return self.candidates[(len(self.calls) - 1) % len(self.candidates)]


def make_scripted_generator(candidates: Sequence[str]) -> ScriptedGenerator:
    """A generator with no model behind it: the drafts are the `candidates`, in order."""
    if isinstance(candidates, str) or not all(isinstance(c, str) for c in candidates):
        raise TypeError(
            "make_scripted_generator() takes a list of draft strings, e.g. ['{\"table\": 4, ...}']."
        )
    if not candidates:
        raise ValueError("make_scripted_generator() needs at least one candidate draft.")
    return ScriptedGenerator(candidates)


def system_prompt(menu: Menu) -> str:
    """The model generator's system prompt: the job, the four ticket fields, the trusted menu."""
    return (
        f"You write kitchen tickets for a café. {DATA_RULES['delimited']}\n"
        f"{contract_text()}\n\nThe trusted menu (only these items exist today):\n{menu.prompt_text()}"
    )


def make_model_generator(
    client: Any, model: str | None = None, *, menu: Menu | None = None
) -> StructuredDrafts:
    """A generator backed by an endpoint (`make_client()`): strict JSON schema where supported.

    `model` defaults to `cafe.endpoint.config.model_name()` (`CAFE_MODEL` live, `cafe-scripted` offline).
    Its drafts carry token usage, which `repair_ticket` sums across attempts.
    """
    from cafe.endpoint.config import model_name

    return StructuredDrafts(client, model or model_name(), system_prompt(menu or load_menu()))


def _as_draft(answer: Any) -> Draft:
    if isinstance(answer, Draft):
        return answer
    if isinstance(answer, str):
        return Draft(answer)
    raise TypeError(
        f"A generator must return the draft text (or a cafe.schema.Draft), not {type(answer).__name__}."
    )


def _total(attempts: Sequence[Attempt]) -> Usage | None:
    """Token usage summed over the attempts whose endpoint reported it (None if none did)."""
    reported = [a.usage for a in attempts if a.usage is not None]
    return sum(reported[1:], reported[0]) if reported else None


def repair_ticket(
    spec: OrderSpec,
    generate: Generator,
    *,
    cap: int = CAP_DEFAULT,
    mode: str = "curated",
    menu: Menu | None = None,
) -> RepairResult:
    """Generate, score, and re-ask with a curated failure view until a draft passes or `cap` runs out."""
    if not isinstance(spec, OrderSpec):
        raise TypeError(
            f"repair_ticket() takes a cafe.consent.OrderSpec, not {type(spec).__name__}."
        )
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise ValueError(
            f"cap is {cap!r}; give a whole number of attempts, 1 or more (default {CAP_DEFAULT})."
        )
    if mode not in RETRY_MODES:
        raise ValueError(f"Unknown retry mode {mode!r}; use one of: {', '.join(RETRY_MODES)}.")
    menu = load_menu() if menu is None else menu
    blocked = policy_failures(spec, menu)
    if blocked:
        return RepairResult("policy_violation", None, (), blocked_by=blocked)
    to_confirm = changes_to_confirm(spec, menu)  # no ticket can pass: ask, do not spend the cap
    if to_confirm:
        return RepairResult("needs_consent", None, (), blocked_by=to_confirm)
    brief = brief_for(spec)
    messages, attempts = brief, []
    for number in range(1, cap + 1):
        draft = _as_draft(generate([dict(m) for m in messages]))
        score = score_ticket(draft.text, spec, menu)
        chars = sum(len(m.get("content") or "") for m in messages)
        attempts.append(Attempt(number, draft.text, score.failures, chars, draft.usage))
        if score.ticket is not None:
            return RepairResult("passed", score.ticket, tuple(attempts), usage=_total(attempts))
        messages = retry_messages(brief, score.failures, number, mode)
    return RepairResult("retries_exhausted", None, tuple(attempts), usage=_total(attempts))


def attempts_to_pass(results: Sequence[RepairResult], cap: int = CAP_DEFAULT) -> dict[str, int]:
    """Bin runs by the attempt that passed ("1" .. cap), "exhausted", "blocked" (policy), or
    "confirm" (sent back to the customer: `needs_consent`)."""
    bins = {**{str(n): 0 for n in range(1, cap + 1)}, "exhausted": 0, "blocked": 0, "confirm": 0}
    for result in results:
        if result.stop_reason == "passed":
            key = str(len(result.attempts))
            if key not in bins:
                raise ValueError(
                    f"A run passed on attempt {key}, past cap={cap}; pass the cap the runs used."
                )
            bins[key] += 1
        elif result.stop_reason == "retries_exhausted":
            bins["exhausted"] += 1
        elif result.stop_reason == "policy_violation":
            bins["blocked"] += 1
        elif result.stop_reason == "needs_consent":
            bins["confirm"] += 1
        else:
            raise ValueError(
                f"Unknown stop_reason {result.stop_reason!r}; expected one of {sorted(STOP_REASONS)}."
            )
    return bins
