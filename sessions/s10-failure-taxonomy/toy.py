"""Session 10 toy: a shift of twenty orders, every run that did not pass sorted into one class.

    python sessions/s10-failure-taxonomy/toy.py                      # offline: the practice shift
    COURSE_MODE=live python sessions/s10-failure-taxonomy/toy.py     # the same orders, your model

Each order goes through session 07's bounded re-ask (`run_shift`); then `sort_runs` puts every
run that did not pass into exactly one class, the first whose test holds: transport, blocked,
systematic, alternating, drifting. The toy prints one line per class in plain words with an
example run, checks that the counts add up, and names the biggest pile a fix could shrink.

Offline the drafts come from the practice shift's scripted stand-in, built with a known mix, so
the toy also prints how many runs of each class the shift was designed to have. Live, your model
drafts every order; against `cafe serve --session 10` the stand-in answers over HTTP. A missing
setting is explained in one message, with exit status 1; `cafe doctor` gives the full diagnosis.

An order the endpoint drops now and then is a transport run, and the shift goes on. An endpoint
that does not answer at all ends the shift, with its fix and exit status 1: at the first order it
leaves unanswered when it has answered none yet (one deadline, not one per order), or at the
third unanswered in a row once it has.
"""

from __future__ import annotations

from cafe.cli import run_command
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.errors import EndpointError
from cafe.endpoint.scripts.rehearsals import DEFAULT_LABEL, rehearsal_script
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.repair import make_model_generator
from cafe.report.listening import Listener
from cafe.stories.practice_shift import designed_counts, practice_generator, practice_orders
from cafe.taxonomy import FAILURE_CLASSES, Run, first_fix, run_shift, sort_runs

# Each class in plain words, for a reader who has not met the names yet.
CLASS_WORDS = {
    "transport": "the endpoint failed, so the run says nothing about the model",
    "blocked": "refused before any draft: the request itself was the problem",
    "systematic": "the same failure on every attempt",
    "alternating": "a failure went away and came back",
    "drifting": "the failures kept changing, and none came back",
}
# What `cafe serve` answers with no script: its default rule, not a model's choice.
REHEARSAL_NOTE = (
    "(This is cafe serve's default rule, not a model: it answers every draft with the smallest ticket\n"
    " its schema allows, so every run fails the same way. Restart it with `cafe serve --session 10`\n"
    " for the practice shift's drafter.)"
)


def attempts_line(run: Run) -> str:
    """A run in one line: the first failure of each attempt, or why it never drafted."""
    if run.transport:
        return f"the endpoint failed ({run.transport})"
    if run.sent_back is not None:
        return "sent back before any draft: " + run.sent_back.question
    assert run.result is not None
    if run.result.blocked_by:
        return "refused: " + ", ".join(f.check for f in run.result.blocked_by)
    return " -> ".join(a.failures[0].check for a in run.result.attempts)


class Listening:
    """The shift's `on_run`: a dot per order, and the end of the shift, as an `EndpointError`
    carrying the endpoint's own message and fix, once the endpoint is not answering (the rule is
    `Listener`'s)."""

    def __init__(self, orders: int) -> None:
        self.listener = Listener(orders)

    def __call__(self, run: Run) -> None:
        print(".", end="", flush=True)
        if run.transport is None:
            if run.result is not None and run.result.attempts:  # it answered with a draft
                self.listener.heard()
            else:  # sent back, or refused before any draft: the endpoint never saw the order
                self.listener.never_sent()
            return
        stop = self.listener.missed(run.transport)
        if stop is None:
            return
        print()
        raise EndpointError(
            f"{stop} {run.detail}",
            kind=run.transport,  # type: ignore[arg-type]  # one of NOT_ANSWERING
        )


def main() -> int:
    live = course_mode() == "live"
    if live:
        client = make_client()
        generate = make_model_generator(client)
        source = f"your model, {model_name()}"
    else:
        generate, source = practice_generator(), "the practice shift's scripted stand-in"
    print(
        f"Session 10 toy ({course_mode()}): every run of a shift that did not pass, in one failure class.\n"
        f"Twenty orders, drafted by {source}.\n"
    )
    if live and rehearsal_script(client, model_name()) == DEFAULT_LABEL:
        print(REHEARSAL_NOTE + "\n")
    print("running the shift ", end="", flush=True)
    orders = practice_orders()
    runs = run_shift(orders, generate, on_run=Listening(len(orders)))
    taxonomy = sort_runs(runs)
    sent_back = (
        f" {taxonomy.sent_back} were sent back to the customer before any draft."
        if taxonomy.sent_back
        else ""
    )
    print(
        f"\n\n{taxonomy.passed} of {taxonomy.runs} orders passed.{sent_back} "
        f"The other {taxonomy.failed}, by class:"
    )
    designed = designed_counts()
    for name in FAILURE_CLASSES:
        built = "" if live else f"; the stand-in was built to give {designed.get(name, 0)}"
        print(f"  {taxonomy.counts[name]:>2}: {CLASS_WORDS[name]} ({name}{built})")
        for run in taxonomy.examples[name][:1]:
            print(f"       e.g. table {run.spec.table}: {attempts_line(run)}")
    classified = sum(taxonomy.counts.values())
    total = taxonomy.passed + taxonomy.sent_back + classified
    apart = f" + {taxonomy.sent_back} sent back" if taxonomy.sent_back else ""
    print(
        f"\nThe counts add up: {taxonomy.passed} passed{apart} + {classified} sorted = {total} "
        f"runs, each in one place."
    )
    target = first_fix(taxonomy)
    if target is None:
        print("Nothing failed that a fix to the harness could change.")
    else:
        kind, check, count = target
        print(
            f"Fix first: the biggest pile, {count} {kind} run{'s' if count != 1 else ''} on {check} "
            "(the notebook asks you to write that fix and measure it)."
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
