"""What `tools/build.py` may overwrite: a notebook holding nothing but what a build wrote.

A learner who works in `notebooks/sNN-slug.ipynb` and later runs `python tools/build.py` must not
lose that work. Rewriting a notebook only ever happens because it differs from what its source
renders now, so "differs from its source" cannot be the test: after any edit to a session's
`notebook.py` every maintainer rebuild would be refused. The builder needs to tell a notebook an
older source generated apart from one a person edited or ran, and for that it keeps a record.

- Each notebook the builder writes carries, in its metadata, the sha256 of the cells it wrote
  (`{"cafe": {"cells_sha256": ..., "source": "sessions/sNN-slug/notebook.py"}}`): each cell's
  type, tags and source, in order. Saving in JupyterLab keeps notebook metadata, so the record
  survives a learner's save.
- A notebook may be rewritten when it is missing, or when no code cell holds outputs or an
  execution count and its cells either still have the digest the build recorded or already say
  exactly what the source says (a notebook from before the record existed, or one whose cells a
  merge brought in step with its source).
- Anything else is refused by name, with what would be lost. `--force` rewrites it anyway, after
  copying it to `build/replaced-notebooks/` (`build/` is ignored by git).
"""

from __future__ import annotations

import hashlib
import json
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = [
    "BUILD_RECORD",
    "REPLACED",
    "Verdict",
    "build_record",
    "cells_digest",
    "keep_copy",
    "safe_to_rewrite",
]

# The notebook metadata key the builder owns (nbformat allows any extra key in metadata).
BUILD_RECORD = "cafe"
# Where --force keeps what it replaces, under the checkout (.gitignore lists build/).
REPLACED = Path("build") / "replaced-notebooks"
# How many cell numbers a refusal lists before it says "and N more".
SHOWN_CELLS = 5


@dataclass(frozen=True)
class Verdict:
    """Whether rewriting a notebook loses nothing; when it would, `why` says what would be lost."""

    safe: bool
    why: str = ""


def _text(cell: dict[str, Any]) -> str:
    source = cell.get("source", "")
    return source if isinstance(source, str) else "".join(source)


def cells_digest(notebook: dict[str, Any]) -> str:
    """sha256 of what a person writes in a notebook: each cell's type, tags and source, in order."""
    cells = [
        [cell.get("cell_type"), sorted(cell.get("metadata", {}).get("tags", [])), _text(cell)]
        for cell in notebook.get("cells", [])
    ]
    encoded = json.dumps(cells, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return hashlib.sha256(encoded).hexdigest()


def build_record(notebook: dict[str, Any], source: str) -> dict[str, str]:
    """The record a build writes into `notebook.metadata[BUILD_RECORD]`."""
    return {"cells_sha256": cells_digest(notebook), "source": source}


def _numbers(found: list[int]) -> str:
    shown = ", ".join(str(n) for n in found[:SHOWN_CELLS])
    more = len(found) - SHOWN_CELLS
    return shown + (f" and {more} more" if more > 0 else "")


def _ran_cells(notebook: dict[str, Any]) -> list[int]:
    """1-based numbers of the code cells holding outputs or an execution count."""
    return [
        number
        for number, cell in enumerate(notebook.get("cells", []), 1)
        if cell.get("cell_type") == "code"
        and (cell.get("outputs") or cell.get("execution_count") is not None)
    ]


def safe_to_rewrite(target: Path, wanted_text: str) -> Verdict:
    """Whether replacing `target` with `wanted_text` (the fresh rendering) loses nothing."""
    if not target.exists():
        return Verdict(True)
    try:
        notebook = json.loads(target.read_text(encoding="utf-8"))
        if not isinstance(notebook, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as exc:
        return Verdict(False, f"it cannot be read as a notebook ({exc})")
    ran = _ran_cells(notebook)
    if ran:
        said = "cell {} holds" if len(ran) == 1 else "cells {} hold"
        return Verdict(False, said.format(_numbers(ran)) + " outputs from a run")
    digest = cells_digest(notebook)
    if digest == cells_digest(json.loads(wanted_text)):
        return Verdict(True)  # its cells already say what the source says: only metadata changes
    record = notebook.get("metadata", {}).get(BUILD_RECORD, {})
    recorded = record.get("cells_sha256") if isinstance(record, dict) else None
    if recorded is None:
        return Verdict(False, "its cells differ from its source and it has no build record")
    if digest != recorded:
        return Verdict(False, "its cells were edited after the build wrote it")
    return Verdict(True)  # written by an earlier build from an older source, and untouched since


def keep_copy(target: Path, folder: Path, clock: Callable[[], float] = time.time) -> Path:
    """Copy `target` into `folder` as <stem>-<UTC time>.ipynb; return the copy's path.

    A second copy within the same second gets a counter, so no copy ever replaces another.
    """
    folder.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime(clock()))
    copy = folder / f"{target.stem}-{stamp}{target.suffix}"
    counter = 1
    while copy.exists():
        counter += 1
        copy = folder / f"{target.stem}-{stamp}-{counter}{target.suffix}"
    shutil.copy2(target, copy)
    return copy
