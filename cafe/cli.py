"""The `cafe` command: `cafe doctor`, `cafe toy NN`, `cafe serve`, `cafe local`, `cafe progress`,
`cafe grade` and `cafe hand-in` (for a class), `cafe capstone check`, `cafe experiment NN`,
`cafe --version`.

Also reachable as `python -m cafe`. Each subcommand is a thin shell around a library function, so
everything the command does can be done from a notebook too: `cafe.endpoint.doctor.health.doctor`,
the session toys, `cafe.endpoint.server.command.serve_forever` and `cafe.endpoint.server.local.run_local`.
This module adds the flags and `run_command`, which every command and toy runs through: it ends
in a plain message, never a traceback, for the expected troubles, and while the command runs it
scrubs every secret from what reaches the terminal (`cafe.endpoint.secrets.terminal`). Output piped into
a command that stops reading early (`cafe doctor | head -3`) ends quietly.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import subprocess
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

from cafe.course.grading.command import add_grade_command
from cafe.course.grading.handin import add_hand_in_command
from cafe.course.record_view import add_progress_command
from cafe.endpoint.errors import CafeError, os_error_line
from cafe.endpoint.scripts.rehearsals import available_sessions
from cafe.endpoint.secrets.terminal import scrubbed_output
from cafe.endpoint.server.command import serve_forever
from cafe.endpoint.server.faults import REPLY_FAULTS, faults_from_flags

__all__ = [
    "main",
    "run_command",
    "find_toy",
    "sessions_dir",
    "serve_forever",
    "build_parser",
    "version_text",
]

# `cafe toy`'s usage line. argparse would list the optional pass-through arguments as required
# ("required: number, toy_args"), so the number is checked in `_toy` and the usage is spelled out.
TOY_USAGE = "cafe toy [-h] number [toy_args ...]"


def sessions_dir() -> Path:
    """The `sessions/` folder of the course checkout this package was installed from."""
    candidates = [Path(__file__).resolve().parents[1] / "sessions", Path.cwd() / "sessions"]
    for candidate in candidates:
        if candidate.is_dir():
            return candidate
    raise FileNotFoundError(
        "Could not find the course's sessions/ folder. Run this from the course checkout "
        "(the folder holding README.md), or install it with `pip install -e .` from there."
    )


def find_toy(number: str) -> Path:
    """`sessions/sNN-*/toy.py` for a session number given as `7`, `07` or `s07`."""
    match = re.fullmatch(r"[sS]?(\d{1,2})", number.strip())
    if not match:
        raise ValueError(f"{number!r} is not a session number; try `cafe toy 07`.")
    tag = f"s{int(match.group(1)):02d}-"
    root = sessions_dir()
    found = sorted(p for p in root.glob(f"{tag}*/toy.py"))
    if not found:
        available = sorted(p.parent.name for p in root.glob("s*/toy.py"))
        raise FileNotFoundError(
            f"No toy for session {number} in {root}. Sessions with a toy: {', '.join(available)}."
        )
    return found[0]


def _toy(args: argparse.Namespace) -> int:
    if args.number is None:  # argparse cannot say this itself; see TOY_USAGE
        print(
            f"usage: {TOY_USAGE}\ncafe toy: error: which session? Give its number, e.g. `cafe toy 07`.",
            file=sys.stderr,
        )
        return 2
    try:
        path = find_toy(args.number)
    except (ValueError, FileNotFoundError) as exc:
        print(f"cafe toy: {exc}", file=sys.stderr)
        return 2
    try:
        return subprocess.call([sys.executable, str(path), *args.toy_args])
    except KeyboardInterrupt:  # Ctrl-C reached the toy too; stop quietly, as a shell would
        return 130


def _doctor(args: argparse.Namespace) -> int:
    from cafe.endpoint.doctor.health import doctor

    report = doctor(timeout=args.timeout)
    return 0 if report.ok else 1


def _serve(args: argparse.Namespace) -> int:
    try:
        faults = faults_from_flags(args)
    except ValueError as exc:
        print(f"cafe serve: {exc}", file=sys.stderr)
        return 2
    return serve_forever(
        host=args.host,
        port=args.port,
        api_key=args.api_key,
        script_path=args.script,
        session=args.session,
        log_requests=args.log,
        faults=faults,
    )


def _program(module: str) -> Callable[[argparse.Namespace], int]:
    """A subcommand started as a program: this module is session 00's and imports no later
    session's code (`cafe capstone`: session 16's grader; `cafe experiment`: session 02's)."""
    return lambda args: subprocess.call([sys.executable, "-m", module, *args.arguments])


def _local(args: argparse.Namespace) -> int:
    from cafe.endpoint.server.local import run_local

    return run_local(port=args.port)


# --- argparse types ---------------------------------------------------------------------------


def _seconds(text: str) -> float:
    """argparse type for --timeout and the fault flags: a positive, finite number of seconds
    (`inf` would be a wait with no end, which no flag means)."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not 0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds, e.g. 30")
    return value


def _port(text: str) -> int:
    """A TCP port number for argparse: 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a port number; use 0 to 65535."
        ) from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(
            f"{port} is not a port number; use 0 to 65535 (0 picks a free one)."
        )
    return port


def _count(minimum: int) -> Callable[[str], int]:
    """An argparse type for a whole number of at least `minimum`."""

    def parse(text: str) -> int:
        if not re.fullmatch(r"[0-9]{1,9}", text.strip()) or int(text) < minimum:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not a whole number of {minimum} or more, e.g. {max(minimum, 3)}"
            )
        return int(text)

    return parse


# --- the parser -------------------------------------------------------------------------------


def version_text() -> str:
    """What `cafe --version` prints: the version, the Python running it, and where cafe is
    installed from (which answers "which cafe does my kernel see?")."""
    from cafe import __version__

    return f"cafe {__version__} (Python {platform.python_version()}; {Path(__file__).resolve().parent})"


def _add_doctor(sub: argparse._SubParsersAction) -> None:
    doctor = sub.add_parser("doctor", help="check the mode, the endpoint, the key and the model")
    doctor.add_argument(
        "--timeout",
        type=_seconds,
        default=None,
        help="seconds each chat check may wait for a reply (default: CAFE_TIMEOUT_S when set, "
        "else 10); the model list, checked first, waits at most 5",
    )
    doctor.set_defaults(run=_doctor)


def _add_toy(sub: argparse._SubParsersAction) -> None:
    toy = sub.add_parser(
        "toy", usage=TOY_USAGE, help="run a session's toy script, e.g. `cafe toy 07`"
    )
    toy.add_argument("number", nargs="?", help="the session number: 7, 07 or s07 (required)")
    toy.add_argument(
        "toy_args",
        nargs=argparse.REMAINDER,
        help="anything after the number is passed on to the toy",
    )
    toy.set_defaults(run=_toy)


def _add_serve(sub: argparse._SubParsersAction) -> None:
    serve = sub.add_parser(
        "serve", help="run a local OpenAI-compatible endpoint answering from a script"
    )
    serve.add_argument(
        "--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)"
    )
    serve.add_argument(
        "--port",
        type=_port,
        default=8000,
        help="port to listen on (default 8000; 0 picks a free one)",
    )
    serve.add_argument("--api-key", default=None, help="require this key (401 without it)")
    serve.add_argument(
        "--script", default=None, help="a JSON script of replies (default: the built-in responder)"
    )
    serve.add_argument(
        "--session",
        default=None,
        metavar="NN",
        help="answer from session NN's rehearsal script, so its toy's story reads live "
        f"(sessions with one: {', '.join(available_sessions())})",
    )
    serve.add_argument(
        "--log", action="store_true", help="print one line per request (never the key)"
    )
    _fault_flags(serve)
    serve.set_defaults(run=_serve)


def _fault_flags(serve: argparse.ArgumentParser) -> None:
    """`cafe serve --fault-*`: make chat completions misbehave, to rehearse the unhappy paths."""
    faults = serve.add_argument_group(
        "faults",
        "misbehave on purpose (chat completions only), "
        "to see how `cafe doctor` and your harness name each fault",
    )
    faults.add_argument(
        "--fault-status",
        type=int,
        metavar="CODE",
        help="answer with this HTTP error, e.g. 429 or 503",
    )
    faults.add_argument(
        "--fault-retry-after",
        type=_count(0),
        metavar="S",
        help="with --fault-status 429: the Retry-After to send",
    )
    faults.add_argument(
        "--fault-delay", type=_seconds, metavar="S", help="wait this long before answering"
    )
    faults.add_argument(
        "--fault-trickle",
        type=_seconds,
        metavar="S",
        help="send the answer one byte every S seconds",
    )
    faults.add_argument(
        "--fault-malformed", action="store_true", help="answer 200 with JSON cut off mid-way"
    )
    faults.add_argument(
        "--fault-reply", choices=sorted(REPLY_FAULTS), help="answer 200 with this wrong answer"
    )
    faults.add_argument(
        "--fault-times", type=_count(1), metavar="N", help="misbehave on the first N requests only"
    )


def _add_local(sub: argparse._SubParsersAction) -> None:
    local = sub.add_parser(
        "local", help="serve a small real model on this machine (needs the [local] extra)"
    )
    local.add_argument("--port", type=_port, default=8011, help="port to listen on (default 8011)")
    local.set_defaults(run=_local)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="cafe", description="The Agent Harness Path course tools."
    )
    parser.add_argument("--version", action="version", version=version_text())
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for add in (_add_doctor, _add_toy, _add_serve, _add_local, add_progress_command):
        add(sub)
    add_grade_command(sub)  # for instructors
    add_hand_in_command(sub)
    capstone = sub.add_parser("capstone", help="grade your restock harness (session 16)")
    capstone.add_argument("arguments", nargs=argparse.REMAINDER, help="check [PATH] [--seed N]")
    capstone.set_defaults(run=_program("cafe.capstone"))
    experiment = sub.add_parser("experiment", help="a notebook's comparison, with intervals")
    experiment.add_argument(
        "arguments", nargs=argparse.REMAINDER, help="NN|all [--orders N] [--seed S] [--json]"
    )
    experiment.set_defaults(run=_program("cafe.evals.experiment_program"))
    return parser


# --- running a command ------------------------------------------------------------------------


def run_command(run: Callable[[], int], *, name: str | None = None) -> int:
    """`run()`'s exit status, ending in a plain message, never a traceback, for the expected troubles.

    - While `run()` runs, stdout and stderr scrub every secret the course knows of from what is
      written (`cafe.endpoint.secrets.terminal.scrubbed_output`), and the real streams come back after.
    - An endpoint or set-up problem (`CafeError`: a missing variable, a dead endpoint) prints its
      message, which already says how to fix it, after the program's `name` (default: the script's
      file name, e.g. `toy.py: ...`), and exits 1; so does a path the system refused (`OSError`,
      in the line `cafe.endpoint.errors.os_error_line` words).
    - `cafe doctor | head -3` closes the pipe after three lines; the next print would raise
      `BrokenPipeError`, and so would Python's last flush at exit. Pointing stdout at the null
      device lets the process end quietly (141, as a shell reports it).
    - Ctrl-C exits 130, as a shell reports it.

    The toys end with `raise SystemExit(run_command(main))`.
    """
    try:
        with scrubbed_output():
            try:
                return run()
            except (CafeError, OSError) as exc:  # OSError: a path too long, a file in the way
                if isinstance(exc, BrokenPipeError):
                    raise  # ends quietly, below
                text = os_error_line(exc) if isinstance(exc, OSError) else str(exc)
                print(f"{name or Path(sys.argv[0]).name}: {text}", file=sys.stderr)
                return 1
    except CafeError as exc:  # the settings could not even be read to start scrubbing
        print(f"{name or Path(sys.argv[0]).name}: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141  # what a shell reports for a process stopped by a closed pipe (128 + SIGPIPE)
    except KeyboardInterrupt:
        return 130  # 128 + SIGINT, as a shell reports Ctrl-C


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return run_command(lambda: args.run(args), name="cafe")
