"""Reports the stall stop as `cut`: the course's harness, with a report whose `stuck` is renamed
`cut` afterwards ("it was cut short"). The pace governor's cause, no order reaching a supplier for
its whole window, is not on the record of a run the stall stop ended after a few calls. Written
beside reader Y's stall_named_cut, 7 Dec 2026."""

from dataclasses import replace

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import run_restock as reference


def run_restock(env: RestockEnv) -> RunReport:
    report = reference(env)
    return replace(report, stop="cut") if report.stop == "stuck" else report
