"""Names every stop that is not done 'stuck': a run cut by the pace governor or out of its call
budget is reported stuck ("it was going nowhere"), where `stuck` is the stall stop's name. Found
by held-out reader N, 7 Dec 2026."""

from dataclasses import replace

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import run_restock as reference


def run_restock(env: RestockEnv) -> RunReport:
    report = reference(env)
    return replace(report, stop="stuck") if report.stop in ("cut", "max_turns") else report
