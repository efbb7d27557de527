"""Holds every guarantee but one: it does not say what the run cost."""

from dataclasses import replace

from cafe.capstone import RestockEnv, RunReport
from cafe.capstone.reference import run_restock as reference


def run_restock(env: RestockEnv) -> RunReport:
    return replace(reference(env), costs=None)
