"""Does nothing and says it was stopped: no model call, no order, a trace of an empty run, zero
costs, and stop 'max_turns'. Every property about what reached the world holds on an empty
record, and the trace and costs match it; only the stop is untrue."""

from cafe.capstone import Costs, RestockEnv, RunReport
from cafe.trace import Recorder


def run_restock(env: RestockEnv) -> RunReport:
    recorder = Recorder(clock=env.clock)
    recorder.close(recorder.open("run", "restock"))
    return RunReport(
        "max_turns", "the turn budget ran out", (), recorder.trace(), Costs(0, 0, 0, 0)
    )
