"""The `cafe experiment` program: which arms run, where the results go, and what it prints.

`cafe.evals.experiment` runs an experiment; this module is the command around it:

- `run_session`: one experiment, on the stand-ins offline or on your model live, saved as JSON
  with a plot beside it (`write_plot`: each arm's rate and its 95% interval, as a PNG);
- `report`: the figures as text, each comparison's verdict in one line;
- `program`: `cafe experiment NN|all [--orders N] [--seed S] [--json] [--out PATH]`.

Live, the arms come from the session's own package (`Experiment.live` names the module; its
`LIVE` maps the session to a function `(client, model) -> arms`). This module is session 02's
and may not import them, so in live mode `program` starts that module as a program, which calls
`program` again with its `LIVE`. The client is the course's (`cafe.make_client`), never the SDK.
Lesson: sessions/s02-evals/lesson.md; how to run it: docs/live-mode.md.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import textwrap
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, TextIO

from cafe.course.progress import progress_path
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.settings.config import course_mode, model_name
from cafe.evals.experiment import (
    DEFAULT_ORDERS,
    EXPERIMENTS,
    STANDINS,
    Arm,
    ExperimentResult,
    run_experiment,
)

__all__ = ["LiveArms", "run_session", "report", "plot_path", "write_plot", "program"]

# A session's live arms, given the course's client and the model's name.
LiveArms = Callable[[Any, str], Mapping[str, Arm]]
# Exit status when an endpoint problem stopped a run (the run resumes when started again).
STOPPED = 1


def _slug(text: str) -> str:
    """A model's name as part of a file name: letters, digits, '.', '-' and '_' kept."""
    return "".join(c if c.isalnum() or c in ".-_" else "-" for c in text).strip("-") or "model"


def default_path(session: str, seed: int, runs_on: str) -> Path:
    """`$CAFE_HOME/experiments/sNN-<what ran it>-seedS.json`: stand-ins and each model apart."""
    who = "standins" if runs_on == STANDINS else _slug(runs_on.removeprefix("your model "))
    return progress_path().parent / "experiments" / f"s{session}-{who}-seed{seed}.json"


def plot_path(path: Path) -> Path:
    """Where the plot of the results at `path` goes: beside it, `.png` for its suffix."""
    return path.with_suffix(".png") if path.suffix != ".png" else path.with_name(path.name + ".png")


def write_plot(result: ExperimentResult, path: Path) -> Path:
    """Each arm's rate with its 95% interval, as a PNG at `path` (matplotlib, no pyplot)."""
    from matplotlib.figure import Figure

    arms = [arm for arm in result.arms if arm.counted]
    figure = Figure(figsize=(7, 1.6 + 0.5 * len(result.arms)))
    axes = figure.add_subplot()
    for row, arm in enumerate(arms):
        low, high = arm.interval
        rate = arm.passed / arm.counted
        axes.errorbar(rate, row, xerr=[[rate - low], [high - rate]], fmt="o", capsize=4)
        axes.annotate(f"{arm.passed}/{arm.counted}", (rate, row), (0, 7), "data", "offset points")
    axes.set_yticks(range(len(arms)), [arm.name for arm in arms])
    axes.set_ylim(-0.7, len(arms) - 0.3)
    axes.set_xlim(-0.03, 1.03)
    axes.set_xlabel(f"share of orders counted: {result.experiment.counts}"[:110], fontsize=8)
    verdicts = "; ".join(f"{c.b}: {c.verdict}" for c in result.comparisons) or "no verdict yet"
    title = f"session {result.experiment.session} ({result.runs_on}): {verdicts}"
    axes.set_title("\n".join(textwrap.wrap(title, 90)), fontsize=9)
    figure.tight_layout()
    figure.savefig(path, format="png", metadata={"Software": None})
    return path


def report(result: ExperimentResult, out: TextIO) -> None:
    """The figures: what ran, each arm's rate and interval, then each comparison's verdict."""
    experiment = result.experiment
    print(f"session {experiment.session}: {experiment.claim}", file=out)
    runs = "scripted stand-ins whose true rates are known (not your model)"
    print(f"runs on: {runs if result.runs_on == STANDINS else result.runs_on}", file=out)
    print(f"counts: {experiment.counts}", file=out)
    for arm in result.arms:
        print(arm.line(), file=out)
    for comparison in result.comparisons:
        print("  " + comparison.sentence(), file=out)
    if result.stopped:
        print(f"stopped: {result.stopped}; run the same command again to resume.", file=out)


def run_session(
    session: str,
    orders: int,
    seed: int = 0,
    path: Path | None = None,
    *,
    live: Mapping[str, LiveArms] | None = None,
    say: Callable[[str], None] = print,
) -> tuple[ExperimentResult, Path]:
    """Run one experiment (live when `live` holds its arms) and save it, plot beside: the result
    and the JSON file's path."""
    experiment = EXPERIMENTS[session]
    if live is None:
        arms, runs_on = None, STANDINS
    else:
        runs_on = f"your model {model_name()}"
        arms = live[session](make_client(), model_name())
    path = path or default_path(session, seed, runs_on)
    result = run_experiment(experiment, orders, seed, path, arms=arms, runs_on=runs_on, say=say)
    if result.comparisons:
        write_plot(result, plot_path(path))
    return result, path


def _sessions(name: str) -> list[str] | None:
    """ "7", "07", "s07" -> ["07"]; "all" -> every experiment; None for anything else."""
    if name == "all":
        return list(EXPERIMENTS)
    digits = name.lower().removeprefix("s")
    session = f"{int(digits):02d}" if digits.isascii() and digits.isdigit() else name
    return [session] if session in EXPERIMENTS else None


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cafe experiment", description=__doc__.split("\n")[0])
    parser.add_argument("session", help=f"one of {', '.join(EXPERIMENTS)}, or all")
    parser.add_argument("--orders", type=int, default=DEFAULT_ORDERS, help="orders per arm")
    parser.add_argument("--seed", type=int, default=0, help="which orders, in which order")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    parser.add_argument("--out", type=Path, help="the results file (with all: a folder)")
    return parser


def _start_live(session: str, argv: Sequence[str], out: TextIO) -> int:
    """Start the module holding `session`'s live arms as a program, its output copied to `out`."""
    command = [sys.executable, "-m", EXPERIMENTS[session].live, session, *argv]
    with subprocess.Popen(command, stdout=subprocess.PIPE, text=True) as started:
        assert started.stdout is not None  # stdout=PIPE gives one
        for line in started.stdout:
            out.write(line)
            out.flush()
    return started.returncode


def program(
    argv: Sequence[str] | None = None,
    out: TextIO | None = None,
    *,
    live: Mapping[str, LiveArms] | None = None,
) -> int:
    """`cafe experiment NN|all ...`: 0 when every run finished, 1 when an endpoint problem
    stopped one (run it again to resume), 2 on a mistake in the command."""
    out = sys.stdout if out is None else out
    args = _parser().parse_args(argv)
    sessions = _sessions(args.session)
    if sessions is None:
        print(
            f"cafe experiment: no experiment for session {args.session!r}; there are: "
            f"{', '.join(EXPERIMENTS)}, or all.",
            file=sys.stderr,
        )
        return 2
    try:
        mode = course_mode()
    except ValueError as exc:  # a ConfigError: COURSE_MODE is neither offline nor live
        print(f"cafe experiment: {exc}", file=sys.stderr)
        return 2
    codes = []
    for session in sessions:
        path = args.out / f"s{session}.json" if args.out and len(sessions) > 1 else args.out
        if mode == "live" and (live is None or session not in live):
            codes.append(_start_live(session, _options(args, path), out))
        else:
            codes.append(_one(session, args, path, live if mode == "live" else None, out))
    return max(codes)


def _options(args: argparse.Namespace, path: Path | None) -> list[str]:
    """The command's options again, for one session's program."""
    options = ["--orders", str(args.orders), "--seed", str(args.seed)]
    options += ["--json"] if args.json else []
    return options + (["--out", str(path)] if path is not None else [])


def _one(
    session: str,
    args: argparse.Namespace,
    path: Path | None,
    live: Mapping[str, LiveArms] | None,
    out: TextIO,
) -> int:
    """Run one session's experiment and print it; the exit status for it. `live` is None offline."""
    progress = sys.stderr if args.json else out
    try:
        result, saved = run_session(
            session,
            args.orders,
            args.seed,
            path,
            live=live,
            say=lambda text: print(text, file=progress, flush=True),
        )
    except ValueError as exc:
        print(f"cafe experiment: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(
            f"cafe experiment: cannot write the results ({exc}); give --out a file in a "
            "folder you can write to.",
            file=sys.stderr,
        )
        return 2
    if args.json:
        print(json.dumps({**result.to_json(), "file": str(saved)}, indent=1), file=out)
    else:
        report(result, out)
        plot = plot_path(saved)
        print(f"results: {saved}" + (f"  plot: {plot}" if plot.exists() else ""), file=out)
    if result.stopped:
        print(f"cafe experiment {session} stopped: {result.stopped}", file=sys.stderr)
        return STOPPED
    return 0


if __name__ == "__main__":
    sys.exit(program())
