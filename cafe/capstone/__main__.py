"""`python -m cafe.capstone check [PATH] [--seed N] [--scenarios N]`: the grader as a program.

Session 16, the capstone. The `cafe` command belongs to session 00 and may not import a later
session's modules, so `cafe capstone check ...` starts this program with the same arguments
(`cafe/capstone/grader.py`'s `main` does the work).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from cafe.capstone.grader import main

__all__ = ["run"]

USAGE = "usage: python -m cafe.capstone check [PATH] [--seed N] [--scenarios N]"


def run(argv: Sequence[str]) -> int:
    """`check` and the grader's arguments; 2 with the usage line for anything else."""
    if not argv or argv[0] != "check":
        print(USAGE, file=sys.stderr)
        return 2
    return main(list(argv[1:]))


if __name__ == "__main__":
    raise SystemExit(run(sys.argv[1:]))
