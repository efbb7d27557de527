"""Reports 'done' whenever the run ended without an error: a cut, a stall or the cap too."""

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import run_restock as reference


def run_restock(env: RestockEnv) -> RunReport:
    report = reference(env)
    if report.stop in {"cut", "max_turns", "stuck"}:
        # "it stopped cleanly, so it is done"
        return RunReport("done", report.detail, report.orders, report.trace, report.costs)
    return report
