"""Session 09 toy: a twenty-order lunch shift, then the report a manager reads.

    python sessions/s09-shift-report/toy.py                      # offline: a scripted model
    COURSE_MODE=live python sessions/s09-shift-report/toy.py     # the same orders, your model

Every order of the shift ends under one named ending: one of the repair loop's three stop
reasons, or `sent_back` when front of house sent it back to the customer before the loop ran. The
toy runs the twenty orders of `SHIFT_ORDERS` past front of house and through `repair_ticket`,
records each run of the loop to a trace file (session 08), and prints the shift report: how the
orders ended (the counts add up), attempts to pass, tokens and cost per
accepted ticket, the costliest runs with their traces, and the failed checks by name. It also
writes the same report as one HTML page, figures inside and your banked checkpoints at the end,
beside the traces in `$CAFE_HOME/s09-shift/` (default `~/.cafe/s09-shift/`).

Cost needs prices, and the course knows none: offline the toy uses `PRACTICE_PRICES`, an invented
table for the scripted model. Live, your model has no price in that table, and the report says so
instead of guessing. An order the endpoint drops now and then (a timeout) is marked `!`, left out
of the counts and named in the report's notes; the shift goes on. An endpoint that does not answer
at all ends the shift, with its fix and exit status 1: at the first order it leaves unanswered
when it has answered none yet (one deadline, not one per order), or at the third unanswered in a
row once it has. Against `cafe serve` started with no script, the server's default rule
answers every draft with the smallest ticket its schema allows, and the toy says so; start it
with `cafe serve --session 09` for a drafter that reads its feedback.
"""

from __future__ import annotations

from typing import Any

from cafe.cli import run_command
from cafe.course.progress import progress_path
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.errors import EndpointError
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL, default_rehearsal_note, rehearsal_script
from cafe.endpoint.settings.config import OFFLINE_MODEL, course_mode, model_name
from cafe.repair import Generator, make_model_generator
from cafe.report import ENDINGS, RunRecord, render_text, summarize
from cafe.report.banked import banked_checkpoints
from cafe.report.figures import write_html
from cafe.report.listening import Listener
from cafe.report.shift import (
    PRACTICE_PRICES,
    SHIFT_ORDERS,
    NotReached,
    run_shift,
    scripted_drafter,
    ticking,
)

# How each ending reads to a manager, with its name after it, and its mark on the progress line.
WORDS = {
    "passed": "a ticket reached the kitchen",
    "retries_exhausted": "the cap ended it, no ticket",
    "policy_violation": "refused before any draft",
    "sent_back": "sent back before any draft: the customer must confirm a change",
}
MARKS = {"passed": ".", "retries_exhausted": "x", "policy_violation": "-", "sent_back": "?"}
assert set(WORDS) == set(MARKS) == set(ENDINGS), "a word and a mark for every named ending"
MARKS["not reached"] = "!"  # live only: the endpoint failed on the order, which has no ending


class Remembering:
    """The shift's generator, keeping the last `EndpointError` it raised (the shift hands on only
    its first line; the end of the shift quotes it whole, fix included). `client` is the wrapped
    generator's, so each trace still names the endpoint that served it."""

    def __init__(self, generate: Generator) -> None:
        self.generate, self.client = generate, getattr(generate, "client", None)
        self.last: EndpointError | None = None

    def __call__(self, messages: list[dict[str, str]]) -> Any:
        try:
            return self.generate(messages)
        except EndpointError as exc:
            self.last = exc
            raise


class Listening:
    """The shift's progress marks, and its end, as an `EndpointError` carrying the endpoint's own
    message and fix, once the endpoint is not answering (the rule is `Listener`'s). `run` is the
    shift's `on_run`, `failed_on` its `on_failure`; `failed` keeps the orders the report names in
    its notes."""

    def __init__(self, orders: int, drafts: Remembering) -> None:
        self.drafts, self.listener = drafts, Listener(orders)
        self.failed: list[NotReached] = []

    def run(self, record: RunRecord) -> None:
        """An order that ended: the endpoint answered it if the loop drafted it at least once."""
        print(MARKS[record.ending], end="", flush=True)
        if record.attempts:
            self.listener.heard()
        else:  # sent back, or refused before any draft: the endpoint never saw it
            self.listener.never_sent()

    def failed_on(self, order: NotReached) -> None:
        """An order the endpoint failed on: its mark now, a note in the report later, or the end
        of the shift when the endpoint is not answering."""
        print(MARKS["not reached"], end="", flush=True)
        self.failed.append(order)
        stop = self.listener.missed(order.kind)
        if stop is None:
            return
        print()
        last = self.drafts.last
        raise EndpointError(
            f"{stop} {order.reason if last is None else last}",
            base_url=None if last is None else last.base_url,
            kind=order.kind,  # type: ignore[arg-type]  # one of NOT_ANSWERING
        )


def main() -> int:
    mode = course_mode()
    live = mode == "live"
    folder = progress_path().parent / "s09-shift"
    print(
        f"Session 09 toy ({mode}): a lunch shift of twenty orders, then the report a manager reads.\n"
        "Every order ends under one named ending, and the counts must add up.\n"
    )
    if live:
        client: Any = make_client()
        model = model_name()
        if rehearsal_script(client, model) == DEFAULT_LABEL:
            print(f"({default_rehearsal_note('09')})\n")
        drafts = Remembering(make_model_generator(client, model))
        clock, source = None, f"your model, {model}"
    else:
        model = OFFLINE_MODEL
        drafts = Remembering(scripted_drafter())
        clock, source = (
            ticking(0.5),
            "a scripted model that fixes what a retry names; each call timed as 0.5 s",
        )
    print(
        f"Drafting with {source}\n(. ticket, x cap reached, ? sent back to the customer, - refused, ! endpoint failed):"
    )
    print("  ", end="")
    options = {} if clock is None else {"clock": clock}
    listening = Listening(len(SHIFT_ORDERS), drafts)
    runs = run_shift(
        SHIFT_ORDERS,
        drafts,
        model=model,
        trace_dir=folder / "traces",
        on_run=listening.run,
        on_failure=listening.failed_on,
        **options,
    )
    failed = listening.failed
    print(f"  {len(runs) + len(failed)} orders\n")
    summary = summarize(runs, PRACTICE_PRICES, notes=[order.note() for order in failed])
    print(render_text(summary))
    print("\nIn plain words:")
    for ending, count in summary.endings.items():
        print(f"  {count:>2} order{'s' if count != 1 else ' '}: {WORDS[ending]} ({ending})")
    if summary.cost:
        wasted = summary.cost - summary.cost_by_ending["passed"]
        print(f"  {wasted / summary.cost:.0%} of the cost bought no ticket.")
    banked = banked_checkpoints()
    page = write_html(
        folder / "shift-report.html", summary, banked, title=f"Shift report ({model})"
    )
    print(f"\nReport page (figures inside): {page}")
    print(
        f"It also lists the {len(banked.checkpoints)} checkpoint{'s' if len(banked.checkpoints) != 1 else ''} "
        "your notebooks have banked, each with its model."
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
