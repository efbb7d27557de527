"""`cafe experiment NN`: a notebook's comparison as an experiment, with intervals and a verdict.

Several notebooks compare two setups on about ten orders, once (curated against naive retries
in 07, plain against JSON mode against a schema in 04, ...). Ten orders rarely allow a
conclusion. An experiment runs N orders per arm and reports each arm's rate with its Wilson
interval, each arm's difference from the first arm with Newcombe's interval
(`cafe.evals.compare`), and one of three verdicts. Every order's outcome is written to a JSON
file as it comes in, so a run that was stopped resumes where it was, and asking for more orders
later only runs the new ones.

An arm is a function of (seed, order number) that answers True (the order counts for the
claim), False (against it) or None (nothing to count: e.g. a judge's reply that did not parse).
Offline each arm is a scripted stand-in whose true rate is written in `EXPERIMENTS`, so the
figures can be checked against the truth (the tests do, over many seeds). Live, each arm runs
the code the notebook's live cell runs, on your model: those arms live in the session's own
package (`Experiment.live` names the module), since session 02's code may not import later
sessions'; `cafe.evals.experiment_program` starts that module as a program. An endpoint
problem mid-run stops the run with a named outcome (`ExperimentResult.stopped`); what ran is
saved, and the same command resumes. Lesson: sessions/s02-evals/lesson.md.
"""

from __future__ import annotations

import json
import os
import random
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

from cafe.endpoint.errors import EndpointError
from cafe.evals.checks import wilson_interval
from cafe.evals.compare import Comparison, judge

__all__ = [
    "DEFAULT_ORDERS",
    "Arm",
    "Experiment",
    "EXPERIMENTS",
    "scripted_outcome",
    "standin_arms",
    "pick",
    "ArmResult",
    "ExperimentResult",
    "run_experiment",
]

# Orders per arm unless --orders says otherwise: enough for a large effect (a 30-point gap) to
# show at 95%, too few for a small one, which the verdict then says.
DEFAULT_ORDERS = 50
# The most orders per arm one command may ask for: at a second an order, about three hours.
MAX_ORDERS = 10_000
# How often (in orders) the progress line is printed.
PROGRESS_EVERY = 10
# The file format's version, checked on resume (2: outcomes may be null, the file says what ran).
FORMAT = 2
# What the offline arms are, as the results file and the report name them.
STANDINS = "scripted stand-ins"

T = TypeVar("T")

# One order of one arm: (seed, order number) -> True, False, or None for "nothing to count".
Arm = Callable[[int, int], "bool | None"]


@dataclass(frozen=True)
class Experiment:
    """One notebook comparison: its session, the claim (each later arm's rate is higher than the
    first arm's), what one order counts, the arms with each stand-in's true rate, and the module
    whose `LIVE` gives the arms that run on your model."""

    session: str
    claim: str
    counts: str
    arms: tuple[tuple[str, float], ...]
    live: str

    @property
    def arm_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.arms)


EXPERIMENTS: dict[str, Experiment] = {
    e.session: e
    for e in (
        Experiment(
            "02",
            "your model's tickets pass every check more often than the scripted waiter's",
            "an order whose ticket passes all five checks",
            (("scripted waiter", 0.7), ("your model", 0.8)),
            "cafe.evals.experiment_arms",
        ),
        Experiment(
            "03",
            "marking the customer's words as data keeps the note's order off the ticket more "
            "often than pasting them",
            "a run whose ticket has no banana bread (the note's instruction)",
            (("pasted", 0.3), ("delimited", 0.6), ("datamarked", 0.7)),
            "cafe.schema.experiment_arms",
        ),
        Experiment(
            "04",
            "JSON mode, and a schema more so, parse more drafts than plain text",
            "a draft that parses into a ticket",
            (("plain", 0.6), ("json_object", 0.8), ("json_schema", 0.95)),
            "cafe.schema.experiment_arms",
        ),
        Experiment(
            "07",
            "a curated retry rescues more orders than a naive one",
            "an order whose first draft failed and that then passed (a first draft that "
            "passed has nothing to rescue: not counted)",
            (("naive", 0.4), ("curated", 0.7)),
            "cafe.repair.experiment_arms",
        ),
        Experiment(
            "11",
            "curated retries get more orders accepted within the cap than naive ones, so a "
            "naive accepted ticket costs more",
            "an order accepted within the cap",
            (("naive", 0.6), ("curated", 0.85)),
            "cafe.routing.experiment_arms",
        ),
        Experiment(
            "12",
            "your model as judge catches broken tickets with short notes more often than "
            "broken tickets with long, friendly notes (a verbosity bias)",
            "a broken ticket the judge fails (a reply that does not parse: not counted)",
            (("long notes", 0.55), ("short notes", 0.8)),
            "cafe.judge.experiment_arms",
        ),
    )
}


def scripted_outcome(session: str, arm: str, seed: int, order: int, rate: float) -> bool:
    """One order's outcome for a stand-in arm that passes with probability `rate`: the same on
    every run for the same (session, arm, seed, order), so a resumed run repeats none of them."""
    return random.Random(f"{session}|{arm}|{seed}|{order}").random() < rate


def pick(items: Sequence[T], seed: int, order: int) -> T:
    """The item for order number `order`: the items in an order the seed shuffles, each round of
    len(items) orders shuffled afresh. Every arm gets the same item for the same order number."""
    if not items:
        raise ValueError("pick needs at least one item to choose from.")
    rounds, at = divmod(order, len(items))
    shuffled = list(items)
    random.Random(f"{seed}|{rounds}").shuffle(shuffled)
    return shuffled[at]


def standin_arms(experiment: Experiment) -> dict[str, Arm]:
    """The offline arms: each a stand-in passing at the true rate written in the catalogue."""

    def arm(name: str, rate: float) -> Arm:
        return lambda seed, order: scripted_outcome(experiment.session, name, seed, order, rate)

    return {name: arm(name, rate) for name, rate in experiment.arms}


@dataclass(frozen=True)
class ArmResult:
    """One arm: its name and its outcomes so far, order by order (None: nothing to count)."""

    name: str
    outcomes: tuple[bool | None, ...]

    @property
    def passed(self) -> int:
        return sum(o is True for o in self.outcomes)

    @property
    def counted(self) -> int:
        return sum(o is not None for o in self.outcomes)

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.passed, self.counted)

    def line(self) -> str:
        n, runs = self.counted, len(self.outcomes)
        if not n:
            return f"  {self.name:<26} nothing counted yet ({runs} orders run)"
        low, high = self.interval
        skipped = f", {runs - n} of {runs} not counted" if runs > n else ""
        return (
            f"  {self.name:<26} {self.passed:>4} of {n:<4} {self.passed / n:>4.0%}  "
            f"(95% {low:.0%} to {high:.0%}){skipped}"
        )


@dataclass(frozen=True)
class ExperimentResult:
    """Every arm's outcomes, what ran them, and why the run stopped early (None: it finished)."""

    experiment: Experiment
    seed: int
    arms: tuple[ArmResult, ...]
    runs_on: str = STANDINS
    stopped: str | None = None

    @property
    def comparisons(self) -> tuple[Comparison, ...]:
        """Each later arm against the first, for the arms with at least one order counted."""
        base = self.arms[0]
        if not base.counted:
            return ()
        return tuple(
            judge(base.name, base.passed, base.counted, arm.name, arm.passed, arm.counted)
            for arm in self.arms[1:]
            if arm.counted
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "format": FORMAT,
            "session": self.experiment.session,
            "claim": self.experiment.claim,
            "counts": self.experiment.counts,
            "seed": self.seed,
            "runs_on": self.runs_on,
            "stopped": self.stopped,
            "arms": {arm.name: list(arm.outcomes) for arm in self.arms},
            "rates": {
                arm.name: {"passed": arm.passed, "counted": arm.counted, "interval": arm.interval}
                for arm in self.arms
                if arm.counted
            },
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


def _load(path: Path, experiment: Experiment, seed: int, runs_on: str) -> dict[str, list]:
    """The outcomes an earlier run of the same experiment, seed and model saved at `path`."""
    if not path.is_file():
        return {}
    data = json.loads(path.read_text(encoding="utf-8"))
    found = (data.get("format"), data.get("session"), data.get("seed"), data.get("runs_on"))
    if found != (FORMAT, experiment.session, seed, runs_on):
        raise ValueError(
            f"{path} holds session {found[1]}, --seed {found[2]}, run on {found[3]}; this run "
            f"is session {experiment.session}, --seed {seed}, on {runs_on}. Give --out another "
            "file, or delete that one to start again."
        )
    return {name: list(outcomes) for name, outcomes in data.get("arms", {}).items()}


def _save(path: Path, result: ExperimentResult) -> None:
    """Write the result so that a stop mid-write leaves the previous file whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    partial.write_text(json.dumps(result.to_json(), indent=1), encoding="utf-8")
    os.replace(partial, path)


def _checked(
    experiment: Experiment, orders: int, path: Path, arms: Mapping[str, Arm] | None
) -> Mapping[str, Arm]:
    """The arms to run (the stand-ins by default), once the caller's choices are known sound."""
    if not 1 <= orders <= MAX_ORDERS:
        raise ValueError(f"--orders is {orders}; give from 1 to {MAX_ORDERS:,} orders per arm.")
    if path.exists() and not path.is_file():
        raise ValueError(f"{path} is not a file (a folder or a device); give --out a file's path.")
    arms = standin_arms(experiment) if arms is None else arms
    if sorted(arms) != sorted(experiment.arm_names):
        raise ValueError(
            f"session {experiment.session}'s arms are {', '.join(experiment.arm_names)}; "
            f"got {', '.join(arms)}."
        )
    return arms


def run_experiment(
    experiment: Experiment,
    orders: int,
    seed: int,
    path: Path,
    *,
    arms: Mapping[str, Arm] | None = None,
    runs_on: str = STANDINS,
    say: Callable[[str], None] = print,
) -> ExperimentResult:
    """Run each arm up to `orders` orders, resuming from `path`, saving after every order.

    `arms` defaults to the stand-ins. An `EndpointError` stops the run: the result says so in
    `stopped`, keeps every order that ran, and the same call later resumes at the stopped order.
    """
    arms = _checked(experiment, orders, path, arms)
    done = _load(path, experiment, seed, runs_on)
    outcomes = {name: done.get(name, [])[:orders] for name in experiment.arm_names}
    resumed = sum(len(o) for o in outcomes.values())
    if resumed:
        say(f"resuming from {path}: {resumed} orders already run")

    def result(stopped: str | None = None) -> ExperimentResult:
        ran = tuple(ArmResult(name, tuple(outcomes[name])) for name in experiment.arm_names)
        return ExperimentResult(experiment, seed, ran, runs_on, stopped)

    for name in experiment.arm_names:
        for order in range(len(outcomes[name]), orders):
            try:
                outcomes[name].append(arms[name](seed, order))
            except EndpointError as exc:
                stopped = result(
                    f"endpoint problem ({exc.kind}) at order {order + 1} of arm {name!r}: {exc}"
                )
                _save(path, stopped)
                return stopped
            _save(path, result())
            if (order + 1) % PROGRESS_EVERY == 0 or order + 1 == orders:
                say(f"  {name}: {order + 1} of {orders} orders")
    final = result()
    _save(path, final)
    return final
