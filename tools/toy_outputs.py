"""What each session's toy prints offline, stored, and the command that refreshes it.

`tests/test_toys.py` runs every toy once, offline, in a fresh interpreter, and compares what it
printed with `tests/data/toy_outputs.json`. One run is enough to show a toy is deterministic: the
stored text was written from two runs that agreed, under two hash seeds of their own, and each run
of the suite compares under the run's own seed (conftest.py draws a new one per run), so over time
the stored text is checked against far more seeds than two runs side by side ever were. It also
catches a toy whose output changed by accident, which two runs of the same code cannot.

When a toy's output changes on purpose, refresh it and read the diff before committing:

    python tools/toy_outputs.py --write s07          # one toy (or several: s07 s13)
    python tools/toy_outputs.py --write              # every toy
    python tools/toy_outputs.py                      # only check: print what changed

A toy's output is stored as its lines, so a refresh reads as a line diff in review. The parts that
are not the toy's to decide are stored as placeholders: the temporary CAFE_HOME a toy names
(session 09 writes its traces there) as `<home>`, session 00's line of installed versions, and
the length of a real pytest run's output that sessions 13 to 15 quote.
"""

from __future__ import annotations

import argparse
import difflib
import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUTPUTS = ROOT / "tests" / "data" / "toy_outputs.json"
TOYS = sorted(ROOT.glob("sessions/s[0-9][0-9]-*/toy.py"))
# The settings that would send a toy live; a toy run here has none of them.
LIVE_SETTINGS = ("COURSE_MODE", "CAFE_BASE_URL", "CAFE_API_KEY", "CAFE_MODEL")
# Seconds a toy may take offline before it is stopped: the slowest takes about 10 s on a busy
# 2-core machine (6 Dec 2026).
TOY_TIMEOUT_S = 300
REFRESH = "python tools/toy_outputs.py --write {code}"
# Lines that describe the machine a toy runs on, not the toy: session 00's list of the Python and
# package versions installed. Such a line is stored as its start and a placeholder.
MACHINE_LINES = ("installed: ",)
# Figures about the machine inside a line: the length of a real pytest run's output, which names
# the interpreter, the plugins and the paths installed (sessions 13 to 15 quote it; a fresh clone's
# venv printed 670 characters where the working copy's printed 633, 6 Dec 2026). Each match is
# stored as the placeholder beside it.
MACHINE_FIGURES = (
    (re.compile(r"\b\d+ characters of the output\b"), "<n> characters of the output"),
)


def start_toy(path: Path, home: Path, hash_seed: str | None = None) -> subprocess.Popen[str]:
    """`python toy.py`, offline, started (not waited for), with `home` as its CAFE_HOME: a toy
    reads and writes there, never in your own ~/.cafe. `hash_seed` None keeps this process's."""
    env = {name: value for name, value in os.environ.items() if name not in LIVE_SETTINGS}
    env["CAFE_HOME"] = str(home)
    if hash_seed is not None:
        env["PYTHONHASHSEED"] = hash_seed
    return subprocess.Popen(
        [sys.executable, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def finished(process: subprocess.Popen[str]) -> subprocess.CompletedProcess[str]:
    """The toy's exit code and output, once it ends (stopped after TOY_TIMEOUT_S)."""
    try:
        out, err = process.communicate(timeout=TOY_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def output_lines(stdout: str, home: Path) -> list[str]:
    """What a toy printed, as stored: its lines, with the home it was given read as `<home>`, a
    line about the machine (MACHINE_LINES) cut to its start, and figures about the machine
    (MACHINE_FIGURES) read as their placeholders."""
    lines = stdout.replace(str(home), "<home>").splitlines()
    return [_machine_figures(_machine_line(line)) for line in lines]


def _machine_figures(line: str) -> str:
    for pattern, placeholder in MACHINE_FIGURES:
        line = pattern.sub(placeholder, line)
    return line


def _machine_line(line: str) -> str:
    start = next((start for start in MACHINE_LINES if line.startswith(start)), None)
    return line if start is None else f"{start}<this machine's versions>"


def load_outputs(path: Path = OUTPUTS) -> dict[str, list[str]]:
    """The stored outputs: toy folder name (`s07-repair-loop`) -> the lines it prints offline."""
    return json.loads(path.read_text(encoding="utf-8")) if path.exists() else {}


def difference(folder: str, stored: list[str] | None, printed: list[str]) -> str:
    """Why a toy's output does not match, with the diff and the command that refreshes it."""
    refresh = REFRESH.format(code=folder[:3])
    if stored is None:
        return (
            f"{folder}/toy.py has no stored output in {OUTPUTS.relative_to(ROOT)}: run `{refresh}`"
        )
    diff = difflib.unified_diff(stored, printed, "stored", "printed now", lineterm="")
    return (
        f"{folder}/toy.py printed something other than its stored output "
        f"({OUTPUTS.relative_to(ROOT)}). If the change is intended, run `{refresh}` and commit "
        "the file; if not, a change made the toy's output differ, or it depends on the hash seed "
        "(set order), the clock or the machine:\n" + "\n".join(diff)
    )


def _two_runs(toy: Path) -> list[str]:
    """The toy run twice side by side, each under a hash seed of its own; its lines if they agree."""
    with tempfile.TemporaryDirectory(prefix="cafe-toy-") as folder:
        homes = [Path(folder) / "first", Path(folder) / "second"]
        seeds = [str(int.from_bytes(os.urandom(4), "big") % (2**32 - 1) + 1) for _ in homes]
        started = [start_toy(toy, home, seed) for home, seed in zip(homes, seeds)]
        runs = [finished(process) for process in started]
    for run, seed in zip(runs, seeds):
        if run.returncode != 0:
            raise SystemExit(
                f"{toy.parent.name}/toy.py failed (PYTHONHASHSEED={seed}):\n{run.stderr}"
            )
    first, second = (output_lines(run.stdout, home) for run, home in zip(runs, homes))
    if first != second:
        diff = difflib.unified_diff(
            first, second, f"seed {seeds[0]}", f"seed {seeds[1]}", lineterm=""
        )
        raise SystemExit(
            f"{toy.parent.name}/toy.py printed two different outputs:\n" + "\n".join(diff)
        )
    return first


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("codes", nargs="*", help="sessions to run, e.g. s07 s13 (all by default)")
    parser.add_argument("--write", action="store_true", help="store what the toys print now")
    args = parser.parse_args(argv)
    toys = [toy for toy in TOYS if not args.codes or toy.parent.name[:3] in args.codes]
    if not toys:
        raise SystemExit(f"no toy for {args.codes}; the toys: {[t.parent.name for t in TOYS]}")
    stored = load_outputs()
    changed = 0
    for toy in toys:
        folder = toy.parent.name
        printed = _two_runs(toy)
        if printed == stored.get(folder):
            print(f"{folder}: unchanged")
            continue
        changed += 1
        print(
            difference(folder, stored.get(folder), printed)
            if not args.write
            else f"{folder}: stored"
        )
        stored[folder] = printed
    if args.write:
        OUTPUTS.parent.mkdir(parents=True, exist_ok=True)
        kept = {t.parent.name: stored[t.parent.name] for t in TOYS if t.parent.name in stored}
        OUTPUTS.write_text(json.dumps(kept, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
        return 0
    return 1 if changed else 0


if __name__ == "__main__":
    raise SystemExit(main())
