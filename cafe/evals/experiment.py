"""`cafe experiment NN`: a notebook's comparison as an experiment, with intervals and a verdict.

Several notebooks compare two setups on about ten orders, once (curated against naive retries
in 07, plain against JSON mode against a schema in 04, ...). Ten orders rarely allow a
conclusion. An experiment runs N orders per arm, prints a progress line, and reports each arm's
pass rate with its Wilson interval, each arm's difference from the first arm with Newcombe's
interval (`cafe.evals.compare`), and one of three verdicts. Every order's outcome is written to a
JSON file as it comes in, so a run that was stopped resumes where it was, and asking for more
orders later only runs the new ones.

What runs each arm here is a scripted stand-in whose true pass rate is written in `EXPERIMENTS`,
so the figures can be checked against the truth (the tests do, over many seeds). Each outcome is
drawn from its own seed (experiment, arm, seed, order), so a resumed run gives the same figures
as one that never stopped. Arms that send the orders to your model are not wired yet: in live
mode the command says so and runs the stand-ins. Lesson: sessions/s02-evals/lesson.md.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TextIO

from cafe.course.progress import progress_path
from cafe.endpoint.settings.config import course_mode
from cafe.evals.checks import wilson_interval
from cafe.evals.compare import Comparison, judge

__all__ = [
    "DEFAULT_ORDERS",
    "Experiment",
    "EXPERIMENTS",
    "scripted_outcome",
    "ArmResult",
    "ExperimentResult",
    "run_experiment",
    "main",
]

# Orders per arm unless --orders says otherwise: enough for a large effect (a 30-point gap) to
# show at 95%, too few for a small one, which the verdict then says.
DEFAULT_ORDERS = 50
# How often (in orders) the progress line is printed.
PROGRESS_EVERY = 10
# What live mode says: the arms that would send orders to your model are not built yet.
LIVE_NOTE = (
    "cafe experiment: COURSE_MODE is live, but the arms that send orders to your model are not "
    "built yet; these figures come from the scripted stand-ins."
)
# The file format's version, checked on resume.
FORMAT = 1


@dataclass(frozen=True)
class Experiment:
    """One notebook comparison: its session, the claim, and its arms with each stand-in's true
    pass rate. The first arm is the baseline; the claim is that each later arm passes more often."""

    session: str
    claim: str
    arms: tuple[tuple[str, float], ...]


EXPERIMENTS: dict[str, Experiment] = {
    e.session: e
    for e in (
        Experiment(
            "02",
            "a check proven by its fixtures flags the bad runs a check never tested misses",
            (("untested check", 0.55), ("fixture-proven check", 0.85)),
        ),
        Experiment(
            "03",
            "a prompt that keeps the customer's words gets more tickets right than a trimmed one",
            (("trimmed prompt", 0.5), ("customer's words kept", 0.7)),
        ),
        Experiment(
            "04",
            "JSON mode, and a schema more so, parse more drafts than plain text",
            (("plain", 0.6), ("json_object", 0.8), ("json_schema", 0.95)),
        ),
        Experiment(
            "07",
            "a curated failure view rescues more orders than the accumulated transcript",
            (("accumulated transcript", 0.4), ("curated failure view", 0.7)),
        ),
        Experiment(
            "10",
            "the fixed runner passes more of the shift than the first one",
            (("first runner", 0.65), ("fixed runner", 0.8)),
        ),
        Experiment(
            "11",
            "escalating to the strong model on a failure passes more orders than the cheap model alone",
            (("cheap model only", 0.6), ("cheap, then escalate", 0.85)),
        ),
        Experiment(
            "12",
            "the calibrated judge agrees with the checks more often than the lenient one",
            (("lenient judge", 0.55), ("calibrated judge", 0.8)),
        ),
    )
}


def scripted_outcome(session: str, arm: str, seed: int, order: int, rate: float) -> bool:
    """One order's outcome for a stand-in arm that passes with probability `rate`: the same on
    every run for the same (session, arm, seed, order), so a resumed run repeats none of them."""
    return random.Random(f"{session}|{arm}|{seed}|{order}").random() < rate


@dataclass(frozen=True)
class ArmResult:
    """One arm: its name, its outcomes so far (order by order), and its rate's Wilson interval."""

    name: str
    outcomes: tuple[bool, ...]

    @property
    def passed(self) -> int:
        return sum(self.outcomes)

    def line(self) -> str:
        n = len(self.outcomes)
        low, high = wilson_interval(self.passed, n)
        return f"  {self.name:<26} {self.passed:>4} of {n:<4} {self.passed / n:>4.0%}  (95% {low:.0%} to {high:.0%})"


@dataclass(frozen=True)
class ExperimentResult:
    """Every arm's outcomes and each later arm's comparison with the first."""

    experiment: Experiment
    seed: int
    arms: tuple[ArmResult, ...]

    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        """Each later arm against the first, for the arms that have run at least one order."""
        base, ran = self.arms[0], [arm for arm in self.arms[1:] if arm.outcomes]
        if not base.outcomes:
            return ()
        return tuple(
            judge(
                base.name, base.passed, len(base.outcomes), arm.name, arm.passed, len(arm.outcomes)
            )
            for arm in ran
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "session": self.experiment.session,
            "claim": self.experiment.claim,
            "seed": self.seed,
            "runs_on": "scripted stand-ins",
            "arms": {arm.name: [int(o) for o in arm.outcomes] for arm in self.arms},
            "comparisons": [
                {
                    "a": c.a,
                    "b": c.b,
                    "difference": c.difference,
                    "low": c.low,
                    "high": c.high,
                    "verdict": c.verdict,
                    "more_orders": c.more_orders,
                }
                for c in self.comparisons
            ],
        }


def _load(path: Path, experiment: Experiment, seed: int) -> dict[str, list[bool]]:
    """The outcomes an earlier run of the same experiment and seed saved at `path`, if any."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    if (
        data.get("format") != FORMAT
        or data.get("session") != experiment.session
        or data.get("seed") != seed
    ):
        raise ValueError(
            f"{path} holds another experiment or seed; give --out another file, or delete it to start again."
        )
    return {name: [bool(o) for o in outcomes] for name, outcomes in data.get("arms", {}).items()}


def _save(path: Path, result: ExperimentResult) -> None:
    """Write the result so that a stop mid-write leaves the previous file whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(result.to_json(), indent=1), encoding="utf-8")
    os.replace(partial, path)


Outcome = Callable[[str, str, int, int, float], bool]


def run_experiment(
    experiment: Experiment,
    orders: int,
    seed: int,
    path: Path,
    *,
    say: Callable[[str], None] = print,
    outcome: Outcome = scripted_outcome,
) -> ExperimentResult:
    """Run each arm up to `orders` orders, resuming from `path`, saving after every order."""
    if orders < 1:
        raise ValueError(f"--orders is {orders}; give at least 1 order per arm.")
    done = _load(path, experiment, seed)
    outcomes = {name: done.get(name, [])[:orders] for name, _ in experiment.arms}
    resumed = sum(len(o) for o in outcomes.values())
    if resumed:
        say(f"resuming from {path}: {resumed} orders already run")

    def result() -> ExperimentResult:
        arms = tuple(ArmResult(name, tuple(outcomes[name])) for name, _ in experiment.arms)
        return ExperimentResult(experiment, seed, arms)

    for name, rate in experiment.arms:
        for order in range(len(outcomes[name]), orders):
            outcomes[name].append(outcome(experiment.session, name, seed, order, rate))
            _save(path, result())
            if (order + 1) % PROGRESS_EVERY == 0 or order + 1 == orders:
                say(f"  {name}: {order + 1} of {orders} orders")
    final = result()
    _save(path, final)
    return final


def report(result: ExperimentResult, out: TextIO) -> None:
    """The figures: each arm's rate and interval, then each comparison's verdict."""
    print(f"session {result.experiment.session}: {result.experiment.claim}", file=out)
    print("runs on: scripted stand-ins whose true pass rates are known (not your model)", file=out)
    for arm in result.arms:
        print(arm.line(), file=out)
    for comparison in result.comparisons:
        print("  " + comparison.sentence(), file=out)


def _default_path(session: str, seed: int) -> Path:
    return progress_path().parent / "experiments" / f"s{session}-seed{seed}.json"


def main(argv: Sequence[str] | None = None, out: TextIO | None = None) -> int:
    """`cafe experiment NN [--orders N] [--seed S] [--json] [--out FILE]`; exit 2 on a mistake."""
    out = sys.stdout if out is None else out
    parser = argparse.ArgumentParser(prog="cafe experiment", description=__doc__.split("\n")[0])
    parser.add_argument("session", help=f"one of {', '.join(EXPERIMENTS)}")
    parser.add_argument("--orders", type=int, default=DEFAULT_ORDERS, help="orders per arm")
    parser.add_argument("--seed", type=int, default=0, help="the stand-ins' seed (default 0)")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--out", type=Path, help="the results file (default under CAFE_HOME)")
    args = parser.parse_args(argv)
    session = (
        f"{int(args.session.lstrip('s')):02d}"
        if args.session.lstrip("s").isdigit()
        else args.session
    )
    if session not in EXPERIMENTS:
        print(
            f"cafe experiment: no experiment for session {args.session!r}; there are: {', '.join(EXPERIMENTS)}.",
            file=sys.stderr,
        )
        return 2
    path = args.out or _default_path(session, args.seed)
    if course_mode() == "live":
        print(LIVE_NOTE, file=sys.stderr)
    say = (
        (lambda text: print(text, file=sys.stderr))
        if args.json
        else (lambda text: print(text, file=out))
    )
    try:
        result = run_experiment(EXPERIMENTS[session], args.orders, args.seed, path, say=say)
    except ValueError as exc:
        print(f"cafe experiment: {exc}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_json(), indent=1), file=out)
    else:
        report(result, out)
        print(f"results: {path}", file=out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
