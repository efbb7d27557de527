"""Names the call budget 'cut': a run that used all its model calls is reported as cut ("the
budget cut it"), where the closed set's name for it is `max_turns`. Found by held-out reader N,
7 Dec 2026."""

from dataclasses import replace

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import run_restock as reference


def run_restock(env: RestockEnv) -> RunReport:
    report = reference(env)
    return replace(report, stop="cut") if report.stop == "max_turns" else report
