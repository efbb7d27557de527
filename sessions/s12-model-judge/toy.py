"""Session 12 toy: a model as judge, measured against the checks before it is believed.

    python sessions/s12-model-judge/toy.py                      # offline: scripted judges
    COURSE_MODE=live python sessions/s12-model-judge/toy.py     # also your model as judge

Forty tickets for the practice orders, half of them broken, each labelled by the deterministic
checks (`cafe.detect.check_ticket`). Three scripted judges grade them, each with one bias you
can name (`cafe.judge.BiasedJudge`): one passes everything, one is lenient, one is swayed by
long notes. Each is told which tickets it will grade, so its dials are exact shares of them: the
judge that lets 30% of the broken tickets through lets 6 of the 20 through, and so catches 70%.
For each the toy prints raw agreement beside the catch rate and Cohen's kappa (`cafe.judge.calibration.calibrate`), so you can see which number tells the truth. Live, your
model grades the same forty tickets through `ModelJudge`, and the toy says whether the course's
trust rule (`trust_reading`) would let you use it; a ticket whose request times out is counted
as not graded, and the toy goes on. A missing setting or an endpoint that cannot be used at all
is explained in one message, with exit status 1; `cafe doctor` gives the full diagnosis.
"""

from __future__ import annotations

from cafe.cli import run_command
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.judge import ModelJudge
from cafe.judge.calibration import Calibration, calibrate, catch_rate_by_notes, scripted_judge
from cafe.judge.labelled import labelled_tickets
from cafe.judge.trust import trust_reading

# The scripted judges, in plain words first, then their biases.
JUDGES = (
    ("a judge that passes every ticket", {"leniency": 1.0}),
    ("a lenient judge (leniency 0.3: lets 30% of the broken tickets through)", {"leniency": 0.3}),
    (
        "a judge swayed by long notes (lets 10% of the broken tickets through, 60% with long notes)",
        {"leniency": 0.1, "verbosity": 0.5},
    ),
)


def line(calibration: Calibration) -> str:
    kappa = "undefined" if calibration.kappa is None else f"{calibration.kappa:.2f}"
    caught = "n/a" if calibration.catch_rate is None else f"{calibration.catch_rate:.0%}"
    agreed = "n/a" if calibration.agreement is None else f"{calibration.agreement:.0%}"
    return f"agrees {agreed:>4}   catches {caught:>4} of broken tickets   kappa {kappa}"


def caught(calibration: Calibration, verbose: bool) -> str:
    """ "n of m": the broken tickets with (or without) long notes that the judge failed."""
    verdicts = [
        verdict
        for item, verdict in calibration.graded
        if item.truth == "fail" and item.verbose == verbose
    ]
    return f"{verdicts.count('fail')} of {len(verdicts)}"


def main() -> int:
    mode = course_mode()
    labelled = labelled_tickets(40, 0.5)
    rare = labelled_tickets(100, 0.05)
    broken = sum(item.truth == "fail" for item in labelled)
    print(
        f"Session 12 toy ({mode}): three scripted judges measured against the checks, "
        "raw agreement beside the catch rate and kappa.\n"
        f"{len(labelled)} tickets, {broken} of them broken, every label from the deterministic checks.\n"
    )
    for number, (words, biases) in enumerate(JUDGES, 1):
        print(f"{number}. {words}:", flush=True)
        print(f"   {line(calibrate(scripted_judge(**biases, tickets=labelled), labelled))}")
        if number == 1:
            lazy = calibrate(scripted_judge(**biases, tickets=rare), rare)
            print(f"   on a day with 5 broken tickets in 100: {line(lazy)}")
        if biases.get("verbosity"):
            wordy = calibrate(scripted_judge(**biases, tickets=labelled), labelled)
            split = catch_rate_by_notes(wordy)
            print(
                "   broken tickets caught: "
                f"{caught(wordy, True)} ({split['verbose']:.0%}) with long notes, "
                f"{caught(wordy, False)} ({split['plain']:.0%}) without"
            )
    if mode != "live":
        print("\nRun with COURSE_MODE=live to grade the same tickets with your own model.")
        return 0
    client = make_client()
    print(f"\n4. your model, {model_name()}, grading all {len(labelled)} tickets …", flush=True)
    script = rehearsal_script(client, model_name())
    if script == "default":
        print(f"   {default_rehearsal_note('12')}")
    elif script is not None:
        print("   (this is cafe serve's session-12 script, not a model: it passes every ticket)")
    yours = calibrate(ModelJudge(client), labelled, model=model_name())
    print(f"   {line(yours)}   no verdict: {yours.unparsed}")
    if yours.failed:
        print(f"   not graded (an endpoint problem, such as a timeout): {yours.failed} tickets")
    reading = trust_reading(yours, model_name())
    print(
        "   the course's trust rule: "
        + ("use it" if reading.trusted else "do not use it yet: " + "; ".join(reading.reasons))
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
