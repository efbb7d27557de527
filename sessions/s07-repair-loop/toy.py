"""Session 07 toy: three orders through the bounded re-ask, each ending on a named stop.

    python sessions/s07-repair-loop/toy.py                      # offline: scripted drafts
    COURSE_MODE=live python sessions/s07-repair-loop/toy.py     # the same orders, your model

The bounded re-ask drafts a ticket, checks it, and asks again (at most `CAP_DEFAULT` times) when
a check fails. The toy tells three stories, one line per attempt in plain words with the check's
name after:

1. Table 3's americano and croissant, asked twice: once re-sending the same request (a `naive`
   retry) and once telling the model what failed (a `curated` retry). Offline the drafts come
   from `FeedbackModel`, a scripted model that fixes a mistake only when the retry names it.
2. Table 4's cheese omelette, which is 86'd (kitchen slang: sold out today): no retry can fix
   an order for food the kitchen cannot make, so the cap ends it.
3. A latte for a customer who declared a milk allergy: refused before any draft is written.
4. A latte and an espresso for the same allergy: front of house sends it back to the customer
   with a question (`front_of_house`), so the loop never drafts it.

Live, stories 1 and 2 go to your endpoint through `make_model_generator(make_client())`; stories 3
and 4 still never reach it. Against `cafe serve` with no script, the server answers every draft with
the smallest ticket its schema allows, and the toy says so (`cafe serve --session 07` answers
with drafts written for it instead). A missing
setting or an endpoint that does not answer is explained in one message, with exit status 1;
`cafe doctor` gives the full diagnosis.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from cafe.cli import run_command
from cafe.consent import PARTIAL_ALLERGEN_SPEC
from cafe.course import Counted
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL, rehearsal_script
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.repair import (
    ALTERNATING_CANDIDATES,
    CAP_DEFAULT,
    OMELETTE_SPEC,
    UNSAFE_SPEC,
    RepairResult,
    front_of_house,
    make_model_generator,
    make_scripted_generator,
    repair_ticket,
)
from cafe.schema import Failure
from cafe.stories.feedback_model import PRACTICE_ORDERS, FeedbackModel

# Each check in plain words, for a reader who has not met the check names yet.
CHECK_WORDS = {
    "missing_field": "a field is missing",
    "unknown_field": "a field no ticket has",
    "bad_value": "a field holds a value no ticket can have",
    "not_json": "not a ticket at all",
    "off_menu": "an item not on the menu",
    "sold_out": "an item the kitchen is out of",
    "unsafe": "unsafe for the declared allergy",
    "out_of_scope": "not what the customer ordered",
    "unknown_allergen": "an allergy the menu cannot check",
    "injection": "instructions hidden in the order",
}
# What `cafe serve` answers with no script: its default rule, not a model's choice.
REHEARSAL_NOTE = (
    "(Model cafe-scripted: this is cafe serve's default rule, not a real model. It answers every\n"
    " draft with the smallest ticket its schema allows (table 0, no items), so every attempt below\n"
    " fails the same checks and no retry can help. Restart it with `cafe serve --session 07`\n"
    " for drafts written for this toy.)"
)
ORDER = PRACTICE_ORDERS[0]  # table 3: offline, a naive retry never fixes it and a curated one does


def said(failure: Failure) -> str:
    return f"{CHECK_WORDS.get(failure.check, failure.check)} ({failure.check} {failure.span!r})"


def describe(result: RepairResult, calls: int) -> list[str]:
    """A few readable lines for one run: each attempt's failures, then how it ended."""
    lines = []
    for attempt in result.attempts:
        found = "; ".join(said(f) for f in attempt.failures) or "every check passed"
        lines.append(f"    attempt {attempt.number}: {found}")
    for failure in result.blocked_by:
        lines.append(f"    refused before any draft: {said(failure)}")
    ending = {
        "passed": "a ticket goes to the kitchen",
        "retries_exhausted": f"no ticket: {CAP_DEFAULT} attempts spent",
        "policy_violation": "no ticket: the request itself is unsafe",
    }[result.stop_reason]
    lines.append(f"    ends: {ending} ({result.stop_reason}); drafts written: {calls}")
    return lines


def run(
    title: str, spec: Any, generate: Callable[[list], Any], live: bool, mode: str = "curated"
) -> None:
    print(title, flush=True)
    counted = Counted(generate, live)
    print("\n".join(describe(repair_ticket(spec, counted, mode=mode), counted.calls)), flush=True)


def main() -> int:
    mode = course_mode()
    live = mode == "live"
    if live:

        def fresh() -> Any:
            return make_model_generator(make_client())

        source = f"your model, {model_name()}"
    else:

        def fresh() -> Any:
            return make_model_generator(make_client(script=FeedbackModel()))

        source = "a scripted model that fixes only what it is told"
    print(
        f"Session 07 toy ({mode}): what happens after a check rejects a ticket.\n"
        f"The loop asks again, at most {CAP_DEFAULT} times, and every run ends with a named reason.\n"
    )
    rehearsal = rehearsal_script(make_client(), model_name()) if live else None
    if rehearsal == DEFAULT_LABEL:
        print(REHEARSAL_NOTE + "\n")
    elif rehearsal is not None:
        print(f"(This is cafe serve answering from a script ({rehearsal}), not a real model.)\n")
    print(f"1. Table {ORDER.table}'s {' and '.join(ORDER.items)}, drafted by {source}.")
    run("  asked again with the same request (naive retry):", ORDER, fresh(), live, mode="naive")
    run("  told what failed (curated retry):", ORDER, fresh(), live)
    omelette = (
        make_model_generator(make_client())
        if live
        else make_scripted_generator(ALTERNATING_CANDIDATES)
    )
    run(
        "\n2. Table 4's cheese omelette, which is 86'd (sold out today)"
        + (":" if live else ", drafted from a fixed list:"),
        OMELETTE_SPEC,
        omelette,
        live,
    )
    run(
        "\n3. Table 2's latte; the customer declared a milk allergy:",
        UNSAFE_SPEC,
        make_scripted_generator(ALTERNATING_CANDIDATES),
        False,
    )
    print("\n4. Table 2's latte and espresso; the same milk allergy:", flush=True)
    sent = front_of_house(PARTIAL_ALLERGEN_SPEC)
    assert sent is not None  # the latte holds milk and the espresso does not
    for failure in sent.conflicts:
        print(f"    sent back before any draft: {said(failure)}")
    print(f'    front of house asks: "{sent.question}"')
    print("    ends: no ticket yet, no draft written; the customer's answer is a new order")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
