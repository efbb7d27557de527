"""Session 05 toy: six orders that tempt a helpful model, and what the consent gate does with each.

    python sessions/s05-consent-gate/toy.py                      # offline: the scripted eager drafter
    COURSE_MODE=live python sessions/s05-consent-gate/toy.py     # the same orders, your model

The approved order is the ceiling on a ticket: nothing may be swapped, added, doubled or promised
that the customer did not agree to, however kind, and the notes may say only the kitchen
modifiers the menu defines. Each order in `TEMPTING_ORDERS` goes to front of house first
(`front_of_house`), then through `repair_ticket`; the toy prints one line per draft, in plain
words, with the check's name after:

1. the cheese omelette, which is 86'd: the drafter swaps it, is told to put it back, and no
   ticket can pass, so the cap ends the run;
2. to 5. a birthday, a hungry customer, a plate for two, a diet mentioned in passing: the first
   draft gives something away, the gate names it, the retry takes it off;
6. a latte and an espresso with a milk allergy: no ticket can pass, so front of house sends it
   back with a question before anything is drafted.

Offline the drafts come from `eager_responder`, a scripted drafter written to be helpful (the
same one `cafe serve --session 05` answers with). Live, they come from your endpoint through
`make_model_generator(make_client())`. A missing setting or an endpoint that does not answer is
explained in one message, with exit status 1; `cafe doctor` gives the full diagnosis.
"""

from __future__ import annotations

from cafe.cli import run_command
from cafe.consent import TEMPTING_ORDERS, OrderSpec, order_changes
from cafe.course import Counted
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.scripts.rehearsals import (
    default_rehearsal_note,
    eager_responder,
    rehearsal_script,
)
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.repair import CAP_DEFAULT, RepairResult, make_model_generator, repair_ticket
from cafe.repair.front import SentBack, front_of_house
from cafe.schema import parse_draft
from cafe.world.menu import load_menu

# Each kind of change in plain words, for a reader who has not met the names yet.
CHANGE_WORDS = {
    "table": "the wrong table",
    "substituted": "a dish swapped for another",
    "added": "an item added",
    "more": "more of an item",
    "dropped": "an item left off",
    "fewer": "fewer of an item",
    "missing_allergy": "a declared allergy left off",
    "undeclared_allergy": "an allergy nobody declared",
    "renamed_allergy": "an ingredient written for the declared allergen group",
    "unlisted_allergy": "more than an allergy in the allergies",
    "unlisted_note": "a note the menu does not define",
    "hidden_note": "characters nobody can see in the notes",
    "note_added": "a kitchen modifier nobody approved",
    "note_dropped": "an approved kitchen modifier left off",
    "unsafe_note": "a modifier with an allergen the customer declared",
}
# The other checks a draft can fail, in plain words too.
CHECK_WORDS = {
    "not_json": "not a ticket at all",
    "missing_field": "a field is missing",
    "unknown_field": "a field the ticket does not have",
    "bad_value": "a field holds the wrong kind of value",
    "unsafe": "an item the customer's allergy rules out",
    "off_menu": "an item the menu does not have",
    "sold_out": "an item that is 86'd today",
    "out_of_scope": "something a kitchen ticket cannot carry",
    "injection": "instructions hidden in the order",
    "unknown_allergen": "an allergy the menu cannot check",
}
ENDINGS = {
    "passed": "a ticket goes to the kitchen",
    "retries_exhausted": f"no ticket: {CAP_DEFAULT} drafts spent",
    "policy_violation": "no ticket: the request itself is refused",
}


def draft_line(spec: OrderSpec, number: int, draft: str, failures: tuple) -> str:
    """One draft in plain words: the consent changes it made, else the other checks it failed."""
    ticket = parse_draft(draft).ticket
    changes = order_changes(ticket, spec) if ticket is not None else ()
    if changes:
        spans: dict[str, list[str]] = {}
        for change in changes:
            spans.setdefault(change.kind, []).append(repr(change.span))
        said = "; ".join(
            f"{CHANGE_WORDS[kind]} ({kind} {', '.join(quoted)})" for kind, quoted in spans.items()
        )
    else:
        said = (
            "; ".join(
                f"{CHECK_WORDS.get(f.check, 'a check failed')} ({f.check} {f.span!r})"
                for f in failures
            )
            or "the order as approved"
        )
    return f"    draft {number}: {said}"


def sent_back(sent: SentBack) -> list[str]:
    """An order front of house sent back: what rules it out, and the question, in plain words."""
    lines = [
        f"    {CHECK_WORDS.get(f.check, f.check)} ({f.check} {f.span!r})" for f in sent.conflicts
    ]
    lines.append(f"    front of house asks: {sent.question}")
    lines.append("    ends: sent back to the customer before any draft; drafts written: 0")
    return lines


def describe(spec: OrderSpec, result: RepairResult, calls: int) -> list[str]:
    lines = [draft_line(spec, a.number, a.draft, a.failures) for a in result.attempts]
    lines.append(
        f"    ends: {ENDINGS[result.stop_reason]} ({result.stop_reason}); drafts written: {calls}"
    )
    return lines


def main() -> int:
    mode = course_mode()
    live = mode == "live"
    menu = load_menu()
    client = make_client() if live else make_client(script=eager_responder)
    source = (
        f"your model, {model_name()}" if live else "a scripted drafter that tries to be helpful"
    )
    print(
        f"Session 05 toy ({mode}): what the consent gate does with six orders that invite a\n"
        f"helpful model to give more than was approved. Drafts by {source}.\n"
    )
    if live and rehearsal_script(client, model_name()) == "default":
        print(f"({default_rehearsal_note('05')})\n")
    for number, spec in enumerate(TEMPTING_ORDERS, start=1):
        print(
            f'{number}. Table {spec.table}: {", ".join(spec.items)}. "{spec.request}"', flush=True
        )
        sent = front_of_house(spec, menu)
        if sent is not None:
            print("\n".join(sent_back(sent)), flush=True)
            continue
        counted = Counted(make_model_generator(client), live)
        print("\n".join(describe(spec, repair_ticket(spec, counted), counted.calls)), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
