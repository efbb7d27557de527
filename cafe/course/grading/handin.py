"""`cafe hand-in`: a learner packs their notebooks and progress record into one zip for grading.

    cafe hand-in --learner alice            # writes hand-in-alice.zip from ./work and your progress file

The zip holds the notebooks under `work/` (every `*.ipynb` in it, checkpoint folders left out) as
`work/<name>.ipynb`, the progress file (`$CAFE_HOME/progress.json`, `cafe.course.progress`) as
`progress.json`, and `manifest.json`:

    {"format": "cafe-hand-in", "format_version": 1, "learner": "alice", "made_at": "...",
     "course_version": "0.1.0", "notebooks": [{"path": "work/s00-setup.ipynb", "sha256": "...",
     "bytes": 5120}], "progress": {"path": "progress.json", "sha256": "..."}, "secrets_masked": 0}

The zip never replaces the progress file, nor a file that exists and is not an earlier hand-in
(your notes, a notebook, another zip): that is refused in one line, with nothing written.
`cafe grade` (`cafe.course.grading.submissions`) reads it, loose in the submissions folder or inside a
learner's folder, and names the learner from the manifest. Nothing of the learner's is changed:
the files are read, never moved. The progress file holds no secret (every entry is scrubbed when
saved); a notebook might (a key pasted into a cell), so any key the course knows of (your
`CAFE_API_KEY`, ...) is masked in the copy that goes into the zip, and the manifest counts them.
"""

from __future__ import annotations

import argparse
import getpass
import hashlib
import json
import os
import sys
import zipfile
from collections.abc import Sequence
from datetime import datetime, timezone
from pathlib import Path, PurePosixPath
from typing import Any

import cafe
from cafe.course.progress import progress_path
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.secrets.redaction import known_secrets, mask_key
from cafe.endpoint.settings.reading import file_kind

__all__ = [
    "FORMAT",
    "out_problem",
    "hand_in",
    "build_parser",
    "add_hand_in_command",
    "run_hand_in",
    "main",
]

FORMAT = "cafe-hand-in"  # the manifest's "format", so a grader knows what it opened
# The most of a manifest read to tell an earlier hand-in: one has a line per notebook, a few KiB.
MANIFEST_BYTES = 1024 * 1024


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _masked(text: str, secrets: Sequence[str]) -> tuple[str, int]:
    """`text` with each secret replaced by its mask, and how many were replaced."""
    count = 0
    for secret in secrets:
        if len(secret) >= 8 and secret in text:
            count += text.count(secret)
            text = text.replace(secret, mask_key(secret))
    return text, count


def _notebooks(work: Path) -> list[Path]:
    return sorted(
        p
        for p in work.rglob("*.ipynb")
        if p.is_file() and not any(part.startswith(".") for part in p.relative_to(work).parts)
    )


def _same_file(a: Path, b: Path) -> bool:
    """Whether `a` and `b` name one file, through links and `..` (False when either is missing)."""
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def _earlier_hand_in(path: Path) -> bool:
    """Whether the regular file `path` is a zip this command wrote: its manifest says `FORMAT`."""
    try:
        with zipfile.ZipFile(path) as zipped, zipped.open("manifest.json") as member:
            manifest = json.loads(member.read(MANIFEST_BYTES))
    except (OSError, KeyError, ValueError, RecursionError, zipfile.BadZipFile):  # not ours
        return False
    return isinstance(manifest, dict) and manifest.get("format") == FORMAT


def out_problem(out: Path, progress: Path | None) -> str | None:
    """Why the zip may not be written at `out`, or None. The rule: a hand-in never writes over the
    progress file, nor over anything that exists and is not an earlier hand-in (a notebook, notes,
    another zip, a folder); an earlier hand-in zip may be replaced by a new one."""
    if progress is not None and _same_file(out, progress):
        return "is your progress file"
    try:
        kind = file_kind(os.stat(out).st_mode)
    except FileNotFoundError:
        return None
    if kind is not None:
        return f"is {kind}, not a zip"
    if not _earlier_hand_in(out):
        return "already exists and is not an earlier hand-in zip"
    return None


def hand_in(work: Path, progress: Path | None, out: Path, learner: str) -> dict[str, Any]:
    """Write the hand-in zip `out` (see the module docstring) and return its manifest; a
    `ValueError` when `out` may not be written (`out_problem`), with nothing written."""
    problem = out_problem(out, progress)
    if problem is not None:
        raise ValueError(
            f"{out} {problem}, and writing the zip there would replace it; name another file, "
            f"e.g. --out hand-in-{learner}.zip, or move that one first"
        )
    secrets = known_secrets()
    manifest: dict[str, Any] = {
        "format": FORMAT,
        "format_version": 1,
        "learner": learner,
        "made_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "course_version": cafe.__version__,
        "notebooks": [],
        "progress": None,
        "secrets_masked": 0,
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as zipped:
        for notebook in _notebooks(work) if work.is_dir() else []:
            text, count = _masked(notebook.read_text(encoding="utf-8", errors="replace"), secrets)
            data = text.encode("utf-8")
            name = str(PurePosixPath("work", *notebook.relative_to(work).parts))
            zipped.writestr(name, data)
            manifest["notebooks"].append(
                {"path": name, "sha256": _digest(data), "bytes": len(data)}
            )
            manifest["secrets_masked"] += count
        if progress is not None and progress.is_file():
            data = progress.read_bytes()
            zipped.writestr("progress.json", data)
            manifest["progress"] = {"path": "progress.json", "sha256": _digest(data)}
        zipped.writestr("manifest.json", json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return manifest


DESCRIPTION = "Pack your work/ notebooks and progress file into one zip to hand in."


def build_parser(parser: argparse.ArgumentParser | None = None) -> argparse.ArgumentParser:
    """`cafe hand-in`'s arguments, on `parser` (a subcommand's) or on a parser of its own."""
    if parser is None:
        parser = argparse.ArgumentParser(prog="cafe hand-in", description=DESCRIPTION)
    parser.add_argument("--learner", help="your name as your instructor knows it (default: login)")
    parser.add_argument("--work", type=Path, default=Path("work"), help="default: ./work")
    parser.add_argument("--progress", type=Path, help="default: $CAFE_HOME/progress.json")
    parser.add_argument("--out", type=Path, help="default: ./hand-in-<learner>.zip")
    return parser


def add_hand_in_command(sub: argparse._SubParsersAction) -> None:
    """Declare `cafe hand-in` on `cafe`'s subcommands (`cafe.cli` adds it beside `progress`)."""
    hand = sub.add_parser("hand-in", help=DESCRIPTION, description=DESCRIPTION)
    build_parser(hand).set_defaults(run=run_hand_in)


def main(argv: Sequence[str] | None = None) -> int:
    """`cafe hand-in`: 0 when the zip was written, 2 when there is nothing to hand in or the zip
    may not be written where `--out` says (`out_problem`)."""
    return run_hand_in(build_parser().parse_args(argv))


def run_hand_in(args: argparse.Namespace) -> int:
    """`cafe hand-in` with its arguments parsed (see `main`)."""
    learner = (args.learner or getpass.getuser()).strip()
    try:
        progress = args.progress or progress_path()
    except ConfigError as exc:
        print(f"cafe hand-in: {exc}", file=sys.stderr)
        return 2
    if not args.work.is_dir() and not progress.is_file():
        print(
            f"cafe hand-in: nothing to hand in: no folder {args.work} and no progress file "
            f"{progress}. Run it from the course folder, or name them with --work and --progress.",
            file=sys.stderr,
        )
        return 2
    out = args.out or Path(f"hand-in-{learner}.zip")
    try:
        manifest = hand_in(args.work, progress, out, learner)
    except ValueError as exc:
        print(f"cafe hand-in: nothing written: {exc}.", file=sys.stderr)
        return 2
    print(
        f"wrote {out}: {len(manifest['notebooks'])} notebooks, "
        f"{'a' if manifest['progress'] else 'no'} progress file"
        + (f", {manifest['secrets_masked']} keys masked" if manifest["secrets_masked"] else "")
        + ". Hand this file in."
    )
    return 0
