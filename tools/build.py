"""Build the course: notebooks from their sources, and the HTML site from the lessons.

    python tools/build.py diagrams           draw sessions/sNN-slug/diagram.svg from its diagram.dot (needs Graphviz)
    python tools/build.py notebooks          write notebooks/sNN-slug.ipynb from sessions/sNN-slug/notebook.py
    python tools/build.py notebooks --check  write nothing; exit 1 listing every stale or missing notebook
    python tools/build.py notebooks --force  rewrite even notebooks holding work, keeping a copy of each
    python tools/build.py site               build the site (tools/sitebuild.py's build_site(root))
    python tools/build.py                    diagrams (where Graphviz is installed), notebooks, then site

A session's notebook shows its diagram under the first cell when `diagram.svg` is there.

The builder never destroys work (tools/notebook_guard.py): it records in each notebook's metadata
a digest of the cells it wrote, and rewrites a notebook only while its cells still have that
digest and no cell holds outputs. A notebook someone edited or ran is refused by name, and the
others are still built; `--force` rewrites it after keeping a copy in build/replaced-notebooks/.

Sessions are found by folder name (`sessions/sNN-slug/` holding a `notebook.py`), so a new
session needs no change here. A generated notebook is clean and deterministic: no outputs, no
execution counts, no widget state, no jupytext or kernel-version metadata, cell ids numbered in
order, and the build record; the same source always gives the same bytes, which is what lets
`tests/test_notebooks.py` compare the committed notebook with its source byte for byte. Files are
written with "\n" line endings on every platform.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SESSIONS = ROOT / "sessions"
NOTEBOOKS = ROOT / "notebooks"
if str(ROOT / "tools") not in sys.path:  # tools/ as a module folder, also when loaded by path
    sys.path.insert(0, str(ROOT / "tools"))

from notebook_guard import BUILD_RECORD, REPLACED, build_record, keep_copy, safe_to_rewrite  # noqa: E402

# Folder names the builder accepts: "s07-repair-loop" (two digits, lower-case slug).
SESSION_FOLDER = re.compile(r"s\d{2}-[a-z0-9]+(?:-[a-z0-9]+)*")
SOURCE_NAME = "notebook.py"
# A jupytext percent-format cell marker: "# %%", optionally "# %% [markdown]" and metadata.
CELL_MARKER = re.compile(r"^# %%", re.MULTILINE)

# The only notebook-level metadata we keep: enough for Jupyter and nbval to pick a Python 3 kernel.
NOTEBOOK_METADATA = {
    "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
    "language_info": {"name": "python"},
}
# Cell metadata an author may set in the source (e.g. `# %% tags=["raises-exception"]`) and we keep.
KEPT_CELL_METADATA = ("tags",)


class BuildError(Exception):
    """A session source cannot be built; the message names the file and what to fix."""


@dataclass(frozen=True)
class NotebookJob:
    source: Path  # sessions/sNN-slug/notebook.py
    target: Path  # notebooks/sNN-slug.ipynb


def _rel(path: Path) -> str:
    try:
        return str(path.relative_to(ROOT))
    except ValueError:
        return str(path)


def find_jobs(sessions: Path = SESSIONS, notebooks: Path = NOTEBOOKS) -> list[NotebookJob]:
    """Every `sessions/*/notebook.py`, sorted, paired with its notebook path."""
    jobs = []
    for source in sorted(sessions.glob(f"*/{SOURCE_NAME}")):
        folder = source.parent.name
        if not SESSION_FOLDER.fullmatch(folder):
            raise BuildError(
                f"{_rel(source)}: the folder name {folder!r} is not a session name; "
                "rename it like 's07-repair-loop' (s, two digits, a lower-case slug)."
            )
        jobs.append(NotebookJob(source, notebooks / f"{folder}.ipynb"))
    return jobs


def render_notebook(source: Path) -> str:
    """The clean .ipynb text for one percent-format source. Raises BuildError naming the file."""
    import jupytext
    import nbformat

    try:
        text = source.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise BuildError(
            f"{_rel(source)}: byte {exc.object[exc.start]:#04x} at offset {exc.start} is not UTF-8 "
            "(the file was saved in another encoding, such as Latin-1). Save it as UTF-8."
        ) from None
    if not CELL_MARKER.search(text):
        raise BuildError(
            f"{_rel(source)}: no '# %%' cell markers. Write it in jupytext percent format: "
            "'# %%' starts a code cell, '# %% [markdown]' a markdown cell."
        )
    try:
        compile(text, str(source), "exec")  # markdown cells are comments, so the file is Python
    except SyntaxError as exc:
        raise BuildError(
            f"{_rel(source)}, line {exc.lineno}: {exc.msg}. Fix the code cell there."
        ) from None

    parsed = jupytext.reads(text, fmt="py:percent")
    notebook = nbformat.v4.new_notebook(metadata=dict(NOTEBOOK_METADATA))
    for number, cell in enumerate(parsed.cells):
        metadata = {k: cell.metadata[k] for k in KEPT_CELL_METADATA if k in cell.metadata}
        if cell.cell_type == "code":
            clean = nbformat.v4.new_code_cell(source=cell.source, metadata=metadata)
        elif cell.cell_type == "markdown":
            clean = nbformat.v4.new_markdown_cell(source=cell.source, metadata=metadata)
        else:
            raise BuildError(
                f"{_rel(source)}: cell {number + 1} is a {cell.cell_type!r} cell; "
                "use '# %%' (code) or '# %% [markdown]' only."
            )
        notebook.cells.append(clean)
    if not notebook.cells:
        raise BuildError(f"{_rel(source)}: no cells found.")
    picture = _diagram_cell(source.parent)
    if picture is not None:
        notebook.cells.insert(1, picture)
    for number, cell in enumerate(notebook.cells):
        cell["id"] = f"cell-{number:03d}"  # stable ids: the same source gives the same bytes
    notebook.metadata[BUILD_RECORD] = build_record(
        notebook, f"sessions/{source.parent.name}/{SOURCE_NAME}"
    )
    nbformat.validate(notebook)
    return nbformat.writes(notebook, version=4).rstrip("\n") + "\n"


def _diagram_cell(folder: Path):
    """A markdown cell showing the session's drawn diagram, or None when it has none.

    It links the committed drawing, `../sessions/<folder>/diagram.svg`, which JupyterLab serves when
    it is started from the checkout (the README's `jupyter lab`); elsewhere the caption still reads.
    """
    import nbformat

    drawing, source = folder / "diagram.svg", folder / "diagram.dot"
    if not drawing.exists() or not source.exists():
        return None
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    from diagrams import caption_of

    caption = caption_of(source.read_text(encoding="utf-8")) or "The session's diagram."
    return nbformat.v4.new_markdown_cell(
        f"![{caption}](../sessions/{folder.name}/diagram.svg)\n\n*{caption}*"
    )


def build_diagrams(sessions: Path = SESSIONS) -> int:
    """Draw every session's diagram.svg from its diagram.dot with Graphviz. Returns an exit status."""
    if str(ROOT / "tools") not in sys.path:
        sys.path.insert(0, str(ROOT / "tools"))
    from diagrams import INSTALL_GRAPHVIZ, draw_diagram, drawing_text, find_dot

    dot = find_dot()
    if dot is None:
        print(
            f"build error: Graphviz's dot is not installed, so the diagrams cannot be drawn; "
            f"install it ({INSTALL_GRAPHVIZ}). The committed drawings stay as they are.",
            file=sys.stderr,
        )
        return 1
    drawn = 0
    for source in sorted(sessions.glob("*/diagram.dot")):
        diagram, problems = draw_diagram(source.parent, ROOT, dot)
        if problems or diagram is None or diagram.standalone is None:
            for problem in problems:
                print(f"build error: {problem.file}: {problem.message}", file=sys.stderr)
            return 1
        target, text = source.parent / "diagram.svg", drawing_text(diagram.standalone)
        if not target.exists() or target.read_text(encoding="utf-8") != text:
            target.write_text(text, encoding="utf-8", newline="\n")
            print(f"wrote {_rel(target)}")
        drawn += 1
    print(f"diagrams: {drawn} drawn")
    return 0


def stale_notebooks(jobs: Sequence[NotebookJob], notebooks: Path = NOTEBOOKS) -> list[str]:
    """One line per notebook that is missing, out of date, or has no source."""
    problems = []
    for job in jobs:
        wanted = render_notebook(job.source)
        if not job.target.exists():
            problems.append(f"{_rel(job.target)}: missing (source {_rel(job.source)})")
        elif job.target.read_text(encoding="utf-8") != wanted:
            problems.append(f"{_rel(job.target)}: differs from {_rel(job.source)}")
    expected = {job.target.name for job in jobs}
    for orphan in sorted(notebooks.glob("*.ipynb")):
        if orphan.name not in expected:
            problems.append(
                f"{_rel(orphan)}: no source; expected sessions/{orphan.stem}/{SOURCE_NAME}"
            )
    return problems


REFUSAL_ADVICE = (
    "These notebooks hold work that is not in their source, so the build left them as they are "
    "(the other notebooks were built). To keep your work, copy each one elsewhere first (for "
    "example into work/); `python tools/build.py notebooks --force` then rewrites them, keeping "
    "a copy of each in {folder}/."
)


def _write_notebook(job: NotebookJob, force: bool, backups: Path) -> str | None:
    """Write one notebook if that loses nothing (or `force`); the refusal line when it would."""
    text = render_notebook(job.source)
    old = job.target.read_text(encoding="utf-8") if job.target.exists() else None
    if old == text:
        return None
    verdict = safe_to_rewrite(job.target, text)
    if not verdict.safe and not force:
        return f"{_rel(job.target)}: not rewritten: {verdict.why}"
    if not verdict.safe:
        kept = keep_copy(job.target, backups)
        print(f"kept the old {_rel(job.target)} ({verdict.why}) as {_rel(kept)}")
    job.target.write_text(text, encoding="utf-8", newline="\n")
    print(f"wrote {_rel(job.target)}")
    return None


def _check_notebooks(jobs: Sequence[NotebookJob], notebooks: Path) -> int:
    problems = stale_notebooks(jobs, notebooks)
    for line in problems:
        print(f"stale: {line}")
    if problems:
        print("Run `python tools/build.py notebooks` and commit the result.")
        return 1
    print(f"notebooks: all {len(jobs)} up to date")
    return 0


def build_notebooks(
    check: bool = False,
    sessions: Path = SESSIONS,
    notebooks: Path = NOTEBOOKS,
    force: bool = False,
    backups: Path = ROOT / REPLACED,
) -> int:
    """Write (or with check=True, only compare) every notebook. Returns an exit status.

    A notebook holding work (tools/notebook_guard.py) is refused, by name, and the rest are built;
    the status is then 1. With `force` it is rewritten after a copy is kept in `backups`.
    """
    try:
        jobs = find_jobs(sessions, notebooks)
        if check:
            return _check_notebooks(jobs, notebooks)
        notebooks.mkdir(parents=True, exist_ok=True)
        refused = [line for job in jobs if (line := _write_notebook(job, force, backups))]
    except BuildError as exc:
        print(f"build error: {exc}", file=sys.stderr)
        return 1
    for line in refused:
        print(f"build: {line}", file=sys.stderr)
    if refused:
        print(REFUSAL_ADVICE.format(folder=_rel(backups)), file=sys.stderr)
    print(f"notebooks: {len(jobs) - len(refused)} built, {len(refused)} refused")
    return 1 if refused else 0


def build_site_command(root: Path = ROOT) -> int:
    """Run tools/sitebuild.py's build_site(root); imported here so notebooks build without it."""
    tools = root / "tools"
    if not (tools / "sitebuild.py").exists():
        print(
            f"build error: {_rel(tools / 'sitebuild.py')} is missing, so the site cannot be built "
            "yet; it must define build_site(root).",
            file=sys.stderr,
        )
        return 1
    if str(tools) not in sys.path:
        sys.path.insert(0, str(tools))
    import sitebuild

    if not hasattr(sitebuild, "build_site"):
        print("build error: tools/sitebuild.py has no build_site() function.", file=sys.stderr)
        return 1
    failure = getattr(sitebuild, "SiteBuildError", ())
    try:
        report = sitebuild.build_site(root)
    except failure as exc:  # it lists every lesson problem at once, with file names
        print(exc, file=sys.stderr)
        return 1
    summary = getattr(report, "summary", None)
    print(summary() if callable(summary) else f"site built from {_rel(root / 'sessions')}")
    return 0


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="tools/build.py", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "target",
        nargs="?",
        choices=["diagrams", "notebooks", "site"],
        help="what to build (default: diagrams where Graphviz is installed, notebooks, then site)",
    )
    parser.add_argument(
        "--check",
        action="store_true",
        help="notebooks only: write nothing, exit 1 if any notebook is stale",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help=f"notebooks: rewrite notebooks that hold edits or outputs, keeping a copy of each in "
        f"{REPLACED.as_posix()}/",
    )
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if (args.check or args.force) and args.target in ("site", "diagrams"):
        parser.error("--check and --force apply to notebooks only")
    if args.check and args.force:
        parser.error("--check writes nothing, so it cannot be combined with --force")
    if args.target == "notebooks" or args.check:
        return build_notebooks(check=args.check, force=args.force)
    if args.target == "site":
        return build_site_command()
    if args.target == "diagrams":
        return build_diagrams()
    from shutil import which

    # without Graphviz, the committed drawings serve; a refused notebook does not stop the site
    statuses = [build_diagrams() if which("dot") else 0]
    statuses.append(build_notebooks(force=args.force))
    statuses.append(build_site_command())
    return max(statuses)


if __name__ == "__main__":
    raise SystemExit(main())
