"""The bounded re-ask: regenerate a rejected ticket with a curated failure view, up to a cap.

Session 07 (`sessions/s07-repair-loop/lesson.md`, notebook `notebooks/s07-repair-loop.ipynb`).
Sessions 04 and 06 can say *what* is wrong with a draft (`cafe.schema`, `cafe.detect`); this
module decides what happens next. It adds:

- `score_ticket`: one draft in, a ticket or a list of named failures out, never an exception;
- `policy_failures`: requests that must never reach the generator at all, and the yes/no check
  the loop asks before its first draft, `_request_is_policy_blocked`;
- `repair_ticket`: the loop, which always ends on one of the three stop reasons in `STOP_REASONS`;
- `make_scripted_generator` and `make_model_generator`: the two kinds of generator it drives.

What a retry is sent (the brief, the failure view, the two retry modes) is `cafe.repair.feedback`.
An order the customer must change before any ticket can pass never reaches this loop: front of
house sends it back first (`cafe.repair.front`). The notebook's your-turn checkers are
`cafe.exercises.s07`.

What it leaves out: remembering anything across runs (S08 traces runs), sorting exhausted runs
into failure classes (S10), and what retries cost in money (S11). The chance that plain
resampling passes anyway is `cafe.repair.lottery`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

from cafe.consent import OrderSpec, kitchen_ticket
from cafe.context import DATA_RULES
from cafe.detect.checks import check_ticket, scan_allergies, scan_request
from cafe.endpoint.client.protocol import ChatClient
from cafe.repair.feedback import Message, RetryMode, brief_for, check_mode, retry_messages
from cafe.schema.drafts import StructuredDrafts
from cafe.schema.parsing import parse_draft
from cafe.schema.ticket import Draft, Failure, Ticket, Usage, contract_text
from cafe.world.menu import Menu, allergen_key, load_menu

__all__ = [
    "CAP_DEFAULT",
    "STOP_REASONS",
    "StopReason",
    "OMELETTE_SPEC",
    "ALTERNATING_CANDIDATES",
    "UNSAFE_SPEC",
    "Generator",
    "Score",
    "Attempt",
    "RepairResult",
    "ScriptedGenerator",
    "score_ticket",
    "policy_failures",
    "system_prompt",
    "make_scripted_generator",
    "make_model_generator",
    "repair_ticket",
    "attempts_to_pass",
]

# Three attempts. Past it, plain resampling pays little (see the table in cafe.repair.lottery), and a
# defect that came back on the second attempt is systematic: a fourth only bills it again.
CAP_DEFAULT = 3

# How a run may end, declared once; `repair_ticket` can return nothing else. A ticket exists
# exactly when the run `passed`; `retries_exhausted` means the cap ran out, `policy_violation` that
# the request itself was refused before any draft. (Seed 002's closed set, the same three.)
StopReason = Literal["passed", "retries_exhausted", "policy_violation"]
STOP_REASONS: frozenset[str] = frozenset(get_args(StopReason))

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
        if (self.stop_reason == "policy_violation") != bool(self.blocked_by):
            raise ValueError(
                "blocked_by lists why a request was refused before any draft, so it is set "
                "exactly when stop_reason is policy_violation."
            )


def score_ticket(draft: str, spec: OrderSpec, menu: Menu) -> Score:
    """Score one draft: the contract first (S04), then menu, allergens, scope and notes (S06).

    A draft that passes goes on as `kitchen_ticket` rewrites it (S05): the menu's item names, the
    allergies the customer declared and the approved notes in the menu's words. Nothing the
    drafter chose travels on: not its spelling, its wording of a note, or a character nobody sees.
    """
    parsed = parse_draft(draft)
    if parsed.ticket is None:
        return Score(None, parsed.failures)
    failures = check_ticket(parsed.ticket, spec, menu)
    if failures:
        return Score(None, failures)
    return Score(kitchen_ticket(parsed.ticket, spec, menu), ())


def policy_failures(spec: OrderSpec, menu: Menu) -> tuple[Failure, ...]:
    """Why a request must not reach the generator at all (empty when it may).

    Three defects of the request itself: an injection pattern in what the customer wrote, a
    declared allergy the menu cannot be checked against (`unknown_allergen`), and an order where
    every item contains an allergen the customer declared. No draft can fix any of them.

    An unknown allergy stops the run rather than going to the retry: the model cannot confirm
    what the customer meant, and a ticket that reached the kitchen unchecked is the one mistake
    a café cannot take back. Front of house asks, then places the order again.

    (An order where only *some* items contain a declared allergen is not refused here: there is
    still an order, and front of house asks the customer which change they want before the loop
    runs; see `cafe.repair.front`.)
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


def _request_is_policy_blocked(spec: OrderSpec, menu: Menu) -> bool:
    """Whether the request itself is refused before the first draft (the loop's pre-check).

    The name is the reference's (seed 002); the failures it stands for are `policy_failures`.
    """
    return bool(policy_failures(spec, menu))


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
    client: ChatClient, model: str | None = None, *, menu: Menu | None = None
) -> StructuredDrafts:
    """A generator backed by an endpoint (`make_client()`): strict JSON schema where supported.

    `model` defaults to `cafe.endpoint.settings.config.model_name()` (`CAFE_MODEL` live, `cafe-scripted` offline).
    Its drafts carry token usage, which `repair_ticket` sums across attempts.
    """
    from cafe.endpoint.settings.config import model_name

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


def _checked_options(spec: object, cap: object, mode: object) -> RetryMode:
    """Refuse a caller's mistake by name before anything runs; the mode, checked."""
    if not isinstance(spec, OrderSpec):
        raise TypeError(
            f"repair_ticket() takes a cafe.consent.OrderSpec, not {type(spec).__name__}."
        )
    if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
        raise ValueError(
            f"cap is {cap!r}; give a whole number of attempts, 1 or more (default {CAP_DEFAULT})."
        )
    return check_mode(mode)


def repair_ticket(
    spec: OrderSpec,
    generate: Generator,
    *,
    cap: int = CAP_DEFAULT,
    mode: RetryMode = "curated",
    menu: Menu | None = None,
) -> RepairResult:
    """Generate, score, and re-ask with a curated failure view until a draft passes or `cap` runs out.

    A request `_request_is_policy_blocked` refuses ends `policy_violation` before any draft. The
    loop does not ask the customer anything: an order whose own allergies rule out one of its
    items should be sent back by front of house before it gets here (`cafe.repair.front`);
    handed one anyway, the loop drafts it like any other and every draft fails `unsafe`.
    """
    mode = _checked_options(spec, cap, mode)
    menu = load_menu() if menu is None else menu
    if _request_is_policy_blocked(spec, menu):
        return RepairResult("policy_violation", None, (), blocked_by=policy_failures(spec, menu))
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
    """Bin runs by the attempt that passed ("1" .. cap), "exhausted" (the cap ran out) or
    "blocked" (refused by the policy pre-check): one bin per run, every bin listed."""
    bins = {**{str(n): 0 for n in range(1, cap + 1)}, "exhausted": 0, "blocked": 0}
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
        else:
            raise ValueError(
                f"Unknown stop_reason {result.stop_reason!r}; expected one of {sorted(STOP_REASONS)}."
            )
    return bins
