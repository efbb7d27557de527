"""Names the pace governor's cut 'max_turns': a run cut for going nowhere is reported as having
run out of its call budget, whatever number of calls it made."""

from dataclasses import replace

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import run_restock as reference


def run_restock(env: RestockEnv) -> RunReport:
    report = reference(env)
    return replace(report, stop="max_turns") if report.stop == "cut" else report
