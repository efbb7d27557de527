"""The empty harness a learner starts from: nothing written yet."""

from cafe.capstone import RestockEnv, RunReport


def run_restock(env: RestockEnv) -> RunReport:
    raise NotImplementedError("write run_restock(env) here")
