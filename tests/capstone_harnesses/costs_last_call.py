"""Reports costs, but counts only the first model call's tokens, as a shift report that read one
span might."""

from dataclasses import replace

from cafe.capstone import Costs, RestockEnv, RunReport
from cafe.capstone.reference import run_restock as reference
from cafe.trace import INPUT_TOKENS, OUTPUT_TOKENS


def run_restock(env: RestockEnv) -> RunReport:
    report = reference(env)
    assert report.trace is not None and report.costs is not None
    first = report.trace.model_calls[0]
    costs = Costs(
        report.costs.model_calls,
        first.get(INPUT_TOKENS),
        first.get(OUTPUT_TOKENS),
        report.costs.spend_cents,
    )
    return replace(report, costs=costs)
