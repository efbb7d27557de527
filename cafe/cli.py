"""The `cafe` command: `cafe doctor`, `cafe toy NN`, `cafe serve`.

Also reachable as `python -m cafe`. Each subcommand is a thin shell around a library function, so
everything the command does can be done from a notebook too.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

__all__ = ["main", "find_toy", "sessions_dir"]

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
        raise FileNotFoundError(f"No toy for session {number} in {root}. Sessions with a toy: {', '.join(available)}.")
    return found[0]


def _toy(args: argparse.Namespace) -> int:
    if args.number is None:  # argparse cannot say this itself; see TOY_USAGE
        print(f"usage: {TOY_USAGE}\ncafe toy: error: which session? Give its number, e.g. `cafe toy 07`.",
              file=sys.stderr)
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
    from cafe.endpoint.health import doctor

    report = doctor(timeout=args.timeout)
    return 0 if report.ok else 1


def _serve(args: argparse.Namespace) -> int:
    from cafe.endpoint.serve import serve_forever

    return serve_forever(host=args.host, port=args.port, api_key=args.api_key, script_path=args.script,
                         log_requests=args.log)


def _seconds(text: str) -> float:
    """argparse type for --timeout: a positive number of seconds."""
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not value > 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a positive number of seconds, e.g. 30")
    return value


def _port(text: str) -> int:
    """A TCP port number for argparse: 0 to 65535."""
    try:
        port = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number; use 0 to 65535.") from None
    if not 0 <= port <= 65535:
        raise argparse.ArgumentTypeError(f"{port} is not a port number; use 0 to 65535 (0 picks a free one).")
    return port


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="cafe", description="The Agent Harness Path course tools.")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    doctor = sub.add_parser("doctor", help="check the mode, the endpoint, the key and the model")
    doctor.add_argument("--timeout", type=_seconds, default=10.0,
                        help="seconds each chat check may wait for a reply (default 10); "
                             "the model list, checked first, waits at most 5")
    doctor.set_defaults(run=_doctor)

    toy = sub.add_parser("toy", usage=TOY_USAGE, help="run a session's toy script, e.g. `cafe toy 07`")
    toy.add_argument("number", nargs="?", help="the session number: 7, 07 or s07 (required)")
    toy.add_argument("toy_args", nargs=argparse.REMAINDER, help="anything after the number is passed on to the toy")
    toy.set_defaults(run=_toy)

    serve = sub.add_parser("serve", help="run a local OpenAI-compatible endpoint answering from a script")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1, loopback only)")
    serve.add_argument("--port", type=_port, default=8000, help="port to listen on (default 8000; 0 picks a free one)")
    serve.add_argument("--api-key", default=None, help="require this key (401 without it)")
    serve.add_argument("--script", default=None, help="a JSON script of replies (default: the built-in responder)")
    serve.add_argument("--log", action="store_true", help="print one line per request (never the key)")
    serve.set_defaults(run=_serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)
