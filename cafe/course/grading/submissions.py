"""Finding a class's submissions: one learner each, their notebooks and progress file, copied out.

`collect(source, work)` reads what an instructor collected and returns one `Submission` per
learner, with every file copied under `work` (the grader runs and reads only the copies). It
understands three layouts, and a zip of any of them:

- one folder per learner (`alice/`, `bob/`), holding notebooks (`*.ipynb`, in any sub-folder such
  as `work/`) and/or a progress file (`progress.json`);
- nbgrader's `submitted/<learner>/<assignment>/*.ipynb` (LMS exports unpacked the same way);
- an LMS's flat export, files named `<learner>_<id>_<id>_<file>` (Canvas's form), one learner
  each by the name before the ids;
- hand-ins made by `cafe hand-in` (`cafe.course.grading.handin`): a zip holding `manifest.json`, loose in
  the folder (`alice.zip`) or inside a learner's folder.

What cannot be read is never dropped: a zip that is not one, a notebook that is not JSON, a path
that would escape the folder, a file too big to be a notebook: each is one line in the learner's
`problems` (or, for something that belongs to no learner, in a submission of its own named after
the file). Checkpoint folders (`.ipynb_checkpoints`) and hidden files are skipped.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

__all__ = ["Submission", "collect", "unpack", "MANIFEST"]

MANIFEST = "manifest.json"  # what marks a hand-in (`cafe.course.grading.handin` writes it)
PROGRESS = "progress.json"
# Limits on what a submission may unpack to: far past a class's notebooks, short of a zip bomb.
MAX_MEMBER_BYTES = 50 * 1024 * 1024
MAX_TOTAL_BYTES = 500 * 1024 * 1024
MAX_MEMBERS = 5000
_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]+")
# A file as an LMS exports it, Canvas's form: `<learner>_<user id>_<submission id>_<file>`.
LMS_NAME = re.compile(r"([^_]+)_(?:LATE_)?\d+_\d+_(.+\.(?:ipynb|json|zip))")


@dataclass(frozen=True)
class Submission:
    """One learner's work, as copies: notebooks (sorted by name), a progress file, what went wrong."""

    learner: str
    origin: str  # where it came from, as the instructor named it
    notebooks: tuple[Path, ...] = ()
    progress: Path | None = None
    problems: tuple[str, ...] = ()
    folder: Path | None = None  # the copy the notebooks are under (their names are relative to it)


def _skipped(path: PurePosixPath) -> bool:
    return any(part.startswith(".") or part == "__MACOSX" for part in path.parts)


def _through_link(into: Path, name: PurePosixPath) -> bool:
    """Whether `into`, or any folder or file on the way to `name` under it, is a link."""
    path = into
    for part in ("", *name.parts):
        path = path / part if part else path
        if path.is_symlink():
            return True
    return False


@dataclass
class Budget:
    """What is left of one submission's unpack limits: every zip in it draws on the same budget
    (a limit on a submission counts the whole submission, not each archive afresh)."""

    members: int = MAX_MEMBERS
    size: int = MAX_TOTAL_BYTES


def unpack(archive: Path, into: Path, budget: Budget | None = None) -> list[str]:
    """Unpack `archive` into `into`, refusing unsafe members; the problems found, in words. With
    `budget`, the archive is opened only if it fits what is left of it, and draws it down."""
    budget = Budget() if budget is None else budget
    try:
        with zipfile.ZipFile(archive) as zipped:
            members = zipped.infolist()
            size = sum(m.file_size for m in members)
            if len(members) > budget.members or size > budget.size:
                return [
                    f"{archive.name} unpacks to more than a class's work (with the rest of the"
                    f" submission, past {MAX_MEMBERS} files or {MAX_TOTAL_BYTES >> 20} MiB);"
                    " not opened"
                ]
            budget.members -= len(members)
            budget.size -= size
            problems = []
            for member in members:
                name = PurePosixPath(member.filename)
                if name.is_absolute() or ".." in name.parts or "\\" in member.filename:
                    problems.append(
                        f"{archive.name}: {member.filename!r} points outside the zip; skipped"
                    )
                elif member.file_size > MAX_MEMBER_BYTES:
                    problems.append(
                        f"{archive.name}: {member.filename} is too big to be a notebook; skipped"
                    )
                elif _through_link(into, name):
                    problems.append(
                        f"{archive.name}: {member.filename} would be written through a link; skipped"
                    )
                elif not member.is_dir() and not _skipped(name):
                    target = into.joinpath(*name.parts)
                    target.parent.mkdir(parents=True, exist_ok=True)
                    with zipped.open(member) as read, target.open("wb") as write:
                        shutil.copyfileobj(read, write)
            return problems
    except (
        zipfile.BadZipFile,
        OSError,
        RuntimeError,  # RecursionError among them
        EOFError,
        ValueError,  # a member's name that is not the UTF-8 its flag claims
        NotImplementedError,  # a compression zipfile does not read
    ) as exc:
        return [f"{archive.name} cannot be opened as a zip ({type(exc).__name__}: {exc})"]


def _notebook_problem(path: Path) -> str | None:
    """Why `path` cannot be a notebook (None when it reads as one)."""
    try:
        if path.stat().st_size > MAX_MEMBER_BYTES:
            return "it is too big to be a notebook"
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        return f"it cannot be read ({type(exc).__name__}: {exc})"
    except ValueError as exc:
        return f"it is not a notebook: not valid JSON ({exc})"
    except RecursionError:
        return "it is not a notebook: JSON nested too deep to read"
    if not isinstance(data, dict) or not isinstance(data.get("cells"), list):
        return "it is not a notebook: no list of cells"
    for number, cell in enumerate(data["cells"]):
        source = cell.get("source", "") if isinstance(cell, dict) else None
        text = isinstance(source, str)
        if not text and not (isinstance(source, list) and all(isinstance(s, str) for s in source)):
            return f"it is not a notebook: cell {number} has no text for its source"
    return None


def _files(folder: Path, pattern: str) -> list[Path]:
    """The files matching `pattern` under `folder`: no hidden ones, and no links (a link could
    point at any file on the instructor's machine)."""
    found = []
    for path in folder.rglob(pattern):
        inside = PurePosixPath(*path.relative_to(folder).parts)
        if path.is_file() and not path.is_symlink() and not _skipped(inside):
            found.append(path)
    return sorted(found)


def _learner_name(folder: Path, fallback: str) -> str:
    """The learner a hand-in's manifest names, else `fallback`."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError, RecursionError):
        return fallback
    name = manifest.get("learner") if isinstance(manifest, dict) else None
    return name.strip() if isinstance(name, str) and name.strip() else fallback


def _gather(
    learner: str, origin: str, found: Path, problems: list[str], budget: Budget
) -> Submission:
    """The submission in the unpacked folder `found`: notebooks, one progress file, problems."""
    for archive in _files(found, "*.zip"):  # a hand-in inside a learner's folder
        problems += unpack(archive, archive.with_suffix(""), budget)
    notebooks = []
    for path in _files(found, "*.ipynb"):
        why = _notebook_problem(path)
        if why is None:
            notebooks.append(path)
        else:
            problems.append(f"{path.relative_to(found)} cannot be graded: {why}")
    progress = _files(found, PROGRESS)
    if len(progress) > 1:
        problems.append(
            f"{len(progress)} progress files; read {progress[0].relative_to(found)}, not "
            + ", ".join(str(p.relative_to(found)) for p in progress[1:])
        )
    if not notebooks and not progress and not problems:
        problems.append("no notebook and no progress file in it")
    return Submission(
        learner,
        origin,
        tuple(sorted(notebooks, key=lambda p: p.name)),
        progress[0] if progress else None,
        tuple(problems),
        found,
    )


def _nbgrader(source: Path) -> bool:
    submitted = source / "submitted"
    return submitted.is_dir() and not submitted.is_symlink()


def _entries(source: Path) -> list[tuple[str, Path]]:
    """(learner, path) for each learner's entry in `source`: nbgrader's layout, or one per entry."""
    root = source / "submitted" if _nbgrader(source) else source
    entries = []
    for path in sorted(root.iterdir()):
        if path.name.startswith(".") or path.name == "__MACOSX":
            continue
        if path.is_dir() or path.suffix.lower() in (".zip", ".json", ".ipynb"):
            entries.append((path.stem if path.is_file() else path.name, path))
        else:
            entries.append((path.name, path))
    return entries


def _one(learner: str, entry: Path, work: Path, problems: list[str]) -> Submission:
    """Copy one learner's entry (a folder, a zip, a loose file) to `work` and gather it. A link,
    at any level, is never followed: it is named in the learner's problems ("a link, not read")."""
    found = work / (_UNSAFE.sub("_", learner) or "learner")
    number = 1
    while found.exists():
        number += 1
        found = found.with_name(f"{_UNSAFE.sub('_', learner)}-{number}")
    found.mkdir(parents=True)
    budget = Budget()  # one per submission, however many zips it holds
    if entry.is_symlink():
        return Submission(learner, entry.name, problems=(f"{entry.name} is a link, not read",))
    if entry.is_dir():
        _copy_tree(entry, found, problems)
    elif entry.suffix.lower() == ".zip":
        problems += unpack(entry, found, budget)
        learner = _learner_name(found, learner)
    elif entry.suffix.lower() in (".ipynb", ".json"):
        shutil.copyfile(
            entry, found / (PROGRESS if entry.suffix.lower() == ".json" else entry.name)
        )
    else:
        return Submission(
            learner,
            entry.name,
            problems=(f"{entry.name} is neither a folder, a zip nor a notebook",),
        )
    return _gather(learner, entry.name, found, problems, budget)


def _copy_tree(source: Path, target: Path, problems: list[str]) -> None:
    """Copy the folder `source` to `target` leaving out every link, each named in `problems`:
    the grader's copies hold no links, so nothing it reads or unpacks goes through one."""

    def links(folder: str, names: list[str]) -> list[str]:
        found = [n for n in names if os.path.islink(os.path.join(folder, n))]
        for name in found:
            where = Path(folder, name).relative_to(source).as_posix()
            problems.append(f"{where} is a link, not read")
        return found

    shutil.copytree(source, target, dirs_exist_ok=True, ignore=links)


def _lms_folders(source: Path, work: Path) -> tuple[Path, dict[str, list[str]], list[Submission]]:
    """`source` itself, or, when it holds files named the way an LMS exports them
    (`<learner>_<id>_<id>_<file>`, Canvas's form, `LATE_` allowed), a copy of it with those files
    moved into one folder per learner under their own names; with the links it left out, named:
    those inside a folder (by the folder's name) and those at the top (a submission each)."""
    entries = sorted(source.iterdir())
    named = [(p, LMS_NAME.fullmatch(p.name)) for p in entries if p.is_file()]
    if not any(match for _, match in named):
        return source, {}, []
    grouped = work / "lms"
    notes: dict[str, list[str]] = {}
    links: list[Submission] = []
    grouped.mkdir(parents=True, exist_ok=True)
    for path in entries:
        match = LMS_NAME.fullmatch(path.name)
        if path.is_symlink():
            learner = match.group(1) if match else path.stem
            links.append(
                Submission(learner, path.name, problems=(f"{path.name} is a link, not read",))
            )
        elif path.is_file():
            folder, name = (match.group(1), match.group(2)) if match else (path.stem, path.name)
            target = grouped / folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
        elif path.is_dir() and not path.name.startswith("."):
            _copy_tree(path, grouped / path.name, notes.setdefault(path.name, []))
    return grouped, notes, links


def collect(source: Path, work: Path) -> list[Submission]:
    """Every learner's submission in `source` (a folder or a zip), copied under `work`."""
    work.mkdir(parents=True, exist_ok=True)
    whole: list[Submission] = []
    if source.is_file():
        unpacked = work / "class"
        unpacked.mkdir()
        problems = unpack(source, unpacked)
        if problems:  # what the class zip refused is a row of its own, never dropped
            whole.append(Submission(source.stem, source.name, problems=tuple(problems)))
        source = _class_root(source, unpacked)
    notes: dict[str, list[str]] = {}
    links: list[Submission] = []
    if not _nbgrader(source):
        source, notes, links = _lms_folders(source, work)
    found = [
        _safely(learner, entry, work / "learners", notes.get(entry.name, []))
        for learner, entry in _entries(source)
    ]
    return whole + links + found


def _class_root(archive: Path, unpacked: Path) -> Path:
    """Where a class zip holds its learners: its one top folder when every member, read or
    refused, is under it; else the zip's top. A member refused does not change which."""
    try:
        with zipfile.ZipFile(archive) as zipped:
            names = zipped.namelist()
    except (zipfile.BadZipFile, OSError, RuntimeError, EOFError, ValueError, NotImplementedError):
        return unpacked
    tops = set()
    for name in names:
        path = PurePosixPath(name)
        if (
            not path.parts
            or path.is_absolute()
            or ".." in path.parts
            or "\\" in name
            or _skipped(path)
        ):
            continue  # refused by `unpack` as outside the zip, or skipped as hidden
        tops.add(path.parts[0] if len(path.parts) > 1 or name.endswith("/") else "")
    top = unpacked / next(iter(tops)) if len(tops) == 1 and "" not in tops else unpacked
    return top if top.is_dir() else unpacked


def _safely(learner: str, entry: Path, work: Path, problems: list[str]) -> Submission:
    """`_one`, with whatever it could not foresee named in the learner's row, never raised: one
    learner's bad input is one named row for that learner, never the end of the class's grading."""
    try:
        return _one(learner, entry, work, list(problems))
    except Exception as exc:  # noqa: BLE001 - any failure is this learner's alone
        why = f"{entry.name} could not be read ({type(exc).__name__}: {exc})"
        return Submission(learner, entry.name, problems=(why,))
