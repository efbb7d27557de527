"""`cafe capstone check`: grade a restock harness on scenarios generated at check time.

Session 16, the capstone. `check(harness, seed, n_scenarios)` draws the scenarios from the seed
(`cafe/capstone/scenarios.py`), runs the harness on each (`cafe/capstone/runner.py`), judges every
property on each run (`cafe/capstone/properties.py`) and, for each property that failed, shrinks
the first scenario it failed on: the plain kind, fewer items, then a smaller scenario seed, as long as the same
property still fails. The `Verdict` says, property by property, held, failed, or held only
vacuously (the course's own harness met the property's subject on a scenario where this harness
met none of it: `cafe/capstone/properties.py`), with the smallest failing scenario shown and the
first scenario a property held vacuously on. A check passes when every property held, and none
only because nothing happened.

`main(argv)` is the command line: `cafe capstone check [PATH] [--seed N] [--scenarios N]`, PATH
a Python file defining `run_restock(env)` (default `work/capstone/harness.py`). Without
`--seed` a fresh seed is drawn and printed, so a harness cannot be fitted to known scenarios and
a failure can still be run again. Each check's result is banked in the learner's progress file
as checkpoint `s16.capstone` (`bank`; `--no-bank` leaves the file alone), which `cafe grade`
reads into the gradebook. `--live` grades a few scenarios (`LIVE_SCENARIOS`, of the kinds whose
trouble is the world's) against the learner's own model, from the course's live settings
(`COURSE_MODE=live`, `CAFE_BASE_URL`, `CAFE_API_KEY`, `CAFE_MODEL`); everything it prints passes
the course's redactor first, since an endpoint's error may quote the key.
"""

from __future__ import annotations

import argparse
import hashlib
import secrets
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from cafe.capstone.child import HarnessFile, HarnessLoadError, HarnessProcess, load_harness
from cafe.capstone.harness import Harness
from cafe.capstone.properties import PROPERTIES, Finding, judge_run
from cafe.capstone.runner import TIME_LIMIT_S, run_scenario
from cafe.capstone.scenarios import (
    CHECK_SCENARIOS,
    Scenario,
    live_scenarios,
    scenarios,
)
from cafe.capstone.verdict import Failure, Verdict
from cafe.endpoint.client.protocol import ChatClient

__all__ = [
    "DEFAULT_PATH",
    "DEFAULT_SCENARIOS",
    "Failure",
    "Verdict",
    "bank",
    "check",
    "load_harness",
    "main",
    "shrink",
]

DEFAULT_PATH = Path("work/capstone/harness.py")
# Every kind once, and a model endpoint failing each way (`cafe/capstone/scenarios.py`).
DEFAULT_SCENARIOS = CHECK_SCENARIOS
# The most scenarios one check runs: each is a run and a replay, so a thousand take minutes.
MAX_SCENARIOS = 1000
# How many scenarios `--live` runs at most: each costs real model calls (the cap, 14 to 18).
LIVE_SCENARIOS = 3
# Where a check is banked: the progress file's checkpoint for session 16 (`cafe.course.progress`).
BANK_SESSION, BANK_NAME = "s16", "capstone"
# How many smaller scenarios shrinking may try for one failure (each is one run and its replay).
SHRINK_TRIES = 24


def _failing(
    harness: HarnessProcess, scenario: Scenario, name: str, time_limit: float
) -> Finding | None:
    """The finding for property `name` on `scenario` when it fails, else None."""
    for finding in judge_run(run_scenario(harness, scenario, time_limit)):
        if finding.property == name and not finding.held:
            return finding
    return None


def _smaller(scenario: Scenario) -> list[Scenario]:
    found = [] if scenario.kind == "plain" else [replace(scenario, kind="plain")]
    if scenario.items > 1:
        found.append(replace(scenario, items=scenario.items - 1))
    if scenario.seed > 0:
        found += [replace(scenario, seed=0), replace(scenario, seed=scenario.seed // 2)]
    return found


def shrink(
    harness: Harness | HarnessFile | HarnessProcess,
    scenario: Scenario,
    finding: Finding,
    time_limit: float = TIME_LIMIT_S,
) -> tuple[Scenario, str]:
    """The smallest scenario found that still fails `finding`'s property, and what happened there."""
    if not isinstance(harness, HarnessProcess):
        with HarnessProcess(harness) as child:
            return shrink(child, scenario, finding, time_limit)
    best, detail, tries = scenario, finding.detail, 0
    progress = True
    while progress and tries < SHRINK_TRIES:
        progress = False
        for candidate in _smaller(best):
            tries += 1
            found = _failing(harness, candidate, finding.property, time_limit)
            if found is not None:
                best, detail, progress = candidate, found.detail, True
                break
    return best, detail


def check(
    harness: Harness | HarnessFile,
    seed: int,
    n_scenarios: int = DEFAULT_SCENARIOS,
    *,
    time_limit: float = TIME_LIMIT_S,
    shrinking: bool = True,
    live: tuple[ChatClient, str] | None = None,
) -> Verdict:
    """Grade `harness` (the function, or its file) on `n_scenarios` scenarios drawn from `seed`,
    every run in the harness's own process; with `live` (a client and its model's name), on
    `live_scenarios` against that model, never shrinking (each run costs). ValueError when a
    harness file cannot be loaded."""
    if not isinstance(harness, HarnessFile) and not callable(harness):
        raise TypeError(
            f"check() takes the harness function run_restock, not {type(harness).__name__}"
        )
    with HarnessProcess(harness) as child:
        return _graded(child, seed, n_scenarios, time_limit, shrinking, live)


def _graded(
    child: HarnessProcess,
    seed: int,
    n_scenarios: int,
    time_limit: float,
    shrinking: bool,
    live: tuple[ChatClient, str] | None,
) -> Verdict:
    first: dict[str, tuple[Scenario, Finding]] = {}
    runs: dict[str, int] = {}
    vacuous: dict[str, tuple[Scenario, Finding]] = {}
    vacuous_runs: dict[str, int] = {}
    drawn = scenarios(seed, n_scenarios) if live is None else live_scenarios(seed, n_scenarios)
    for scenario in drawn:
        for finding in judge_run(run_scenario(child, scenario, time_limit, live=live)):
            if not finding.held:
                runs[finding.property] = runs.get(finding.property, 0) + 1
                first.setdefault(finding.property, (scenario, finding))
            elif finding.vacuous:
                vacuous_runs[finding.property] = vacuous_runs.get(finding.property, 0) + 1
                vacuous.setdefault(finding.property, (scenario, finding))
    failures = []
    for name in PROPERTIES:
        if name in first:
            scenario, finding = first[name]
            small, detail = (
                shrink(child, scenario, finding, time_limit)
                if shrinking and live is None
                else (scenario, finding.detail)
            )
            failures.append(Failure(name, runs[name], small, detail))
    vacuities = tuple(
        Failure(name, vacuous_runs[name], *_scenario_detail(vacuous[name]))
        for name in PROPERTIES
        if name in vacuous and name not in first
    )
    return Verdict(seed, n_scenarios, tuple(failures), vacuities)


def _scenario_detail(found: tuple[Scenario, Finding]) -> tuple[Scenario, str]:
    return found[0], found[1].detail


def bank(verdict: Verdict, harness_file: Path, model: str = "scripted-restock") -> bool:
    """Bank `verdict` as checkpoint `s16.capstone` of the learner's progress file (the latest
    check replaces the one before): passed or not, the properties that failed, the seed, how many
    scenarios, and the hash of the harness file it graded. True when it was saved."""
    from cafe.course.cells import stamp
    from cafe.course.progress import record

    value = {
        "passed": verdict.passed,
        "failed": sorted(verdict.failed),
        "vacuous": sorted(verdict.vacuous),
        "seed": verdict.seed,
        "scenarios": verdict.n_scenarios,
        "harness_sha256": hashlib.sha256(harness_file.read_bytes()).hexdigest()[:16],
    }
    entry = {"value": value, "model": model, "source": "yours", "saved_at": stamp()}
    return record("checkpoints", BANK_NAME, entry, session=BANK_SESSION)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cafe capstone check", description="Grade a restock harness on generated scenarios."
    )
    parser.add_argument(
        "path",
        nargs="?",
        type=Path,
        default=DEFAULT_PATH,
        help=f"the harness file (default {DEFAULT_PATH})",
    )
    parser.add_argument(
        "--seed",
        type=int,
        default=None,
        help="the seed the scenarios are drawn from (default: a fresh one)",
    )
    parser.add_argument(
        "--scenarios",
        type=int,
        default=DEFAULT_SCENARIOS,
        help=f"how many scenarios (default {DEFAULT_SCENARIOS})",
    )
    parser.add_argument(
        "--live",
        action="store_true",
        help=f"grade {LIVE_SCENARIOS} scenarios against your own model (COURSE_MODE=live settings)",
    )
    parser.add_argument(
        "--no-bank",
        action="store_true",
        help="do not bank the result in your progress file",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """`cafe capstone check [PATH] [--seed N] [--scenarios N] [--live] [--no-bank]`: 0 when every
    property held, 1 when one failed, 2 when the harness could not be loaded."""
    parser = _parser()
    args = parser.parse_args(argv)
    if not 1 <= args.scenarios <= MAX_SCENARIOS:
        parser.error(f"--scenarios must be 1 to {MAX_SCENARIOS}, not {args.scenarios}")
    seed = args.seed if args.seed is not None else secrets.randbelow(1_000_000)
    harness = HarnessFile(args.path)  # loaded in the harness's own process, never in this one
    if args.live:
        return _main_live(
            harness, args.path, seed, min(args.scenarios, LIVE_SCENARIOS), args.no_bank
        )
    from cafe.endpoint.secrets.redaction import redact  # a harness's own error may quote the key

    try:
        verdict = check(harness, seed, args.scenarios)
    except HarnessLoadError as exc:  # a learner's file that fails to import: said, not a traceback
        print(redact(f"cafe capstone check: {exc}"), file=sys.stderr)
        return 2
    print(redact(verdict.render()))
    if not args.no_bank and bank(verdict, args.path):
        print(f"Banked as checkpoint {BANK_SESSION}.{BANK_NAME} in your progress file.")
    return 0 if verdict.passed else 1


def _main_live(harness: HarnessFile, path: Path, seed: int, n: int, no_bank: bool) -> int:
    """`--live`: the check against the learner's own model, every line it prints redacted."""
    from cafe.endpoint.client.chat import make_client
    from cafe.endpoint.client.scripted import ScriptedClient
    from cafe.endpoint.secrets.redaction import redact
    from cafe.endpoint.settings.config import model_name

    try:
        client = make_client()
        model = model_name()
    except Exception as exc:  # a setting missing or malformed: say which, never a traceback
        print(redact(f"cafe capstone check --live: {exc}"), file=sys.stderr)
        return 2
    if isinstance(client, ScriptedClient):
        print(
            "cafe capstone check --live: COURSE_MODE is offline; set COURSE_MODE=live and "
            "CAFE_BASE_URL, CAFE_API_KEY, CAFE_MODEL to grade against your own model.",
            file=sys.stderr,
        )
        return 2
    try:
        verdict = check(harness, seed, n, shrinking=False, live=(client, model))
    except HarnessLoadError as exc:
        print(redact(f"cafe capstone check --live: {exc}"), file=sys.stderr)
        return 2
    print(redact(f"live: {model}\n" + verdict.render()))
    if not no_bank and bank(verdict, path, model=model):
        print(f"Banked as checkpoint {BANK_SESSION}.{BANK_NAME} in your progress file.")
    return 0 if verdict.passed else 1
