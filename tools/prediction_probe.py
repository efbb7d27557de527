"""Write, for each prediction, exactly what a learner has read when it is asked: the probe's sheet.

The fresh-reader probe (issue 37) asks a reader who has seen nothing else to answer each prediction
from what the learner has read at that point, and to quote the sentence that decided it. This tool
writes that reading, one sheet per prediction: the About box, the lesson up to the end of Build,
the headings, the notebook's cells above the prediction with what they printed (the notebook
source is run cell by cell, offline), then the question and its options. The reading is the one
`tests/spoilers.py` scans, so the probe and the spoiler test judge the same text.

    python tools/prediction_probe.py s07 s13 --out /tmp/probe     # one folder per session
    python tools/prediction_probe.py --all --out /tmp/probe

The probe's answers are kept in `docs/notes/prediction-probe.json` (see
`tests/test_prediction_probe.py`).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from samples import run_cells  # noqa: E402
from spoilers import Cell, before_prediction, notebook_cells  # noqa: E402

DECLARATIONS = ROOT / "cafe" / "data" / "predictions"


def session_folder(code: str) -> Path:
    """`s07` -> `sessions/s07-repair-loop`."""
    found = sorted(ROOT.glob(f"sessions/{code}-*/notebook.py"))
    if not found:
        raise SystemExit(f"no session {code!r}: expected sessions/{code}-<slug>/notebook.py")
    return found[0].parent


def sheets(code: str) -> dict[str, str]:
    """Prediction key -> the sheet a fresh reader gets for it."""
    folder = session_folder(code)
    lesson = (folder / "lesson.md").read_text(encoding="utf-8")
    run = run_cells(folder / "notebook.py")
    source_cells = notebook_cells((folder / "notebook.py").read_text(encoding="utf-8"))
    cells = [
        Cell(source.kind, source.source, ran.output if source.kind == "code" else "")
        for source, ran in zip(source_cells, run.cells, strict=True)
    ]
    declared = json.loads((DECLARATIONS / f"{code}.json").read_text(encoding="utf-8"))
    out = {}
    for key, entry in declared.items():
        parts = [f"# Prediction {key}: what the learner has read when it is asked\n"]
        for where, text in before_prediction(key, lesson, cells):
            if text.strip():
                parts.append(f"## [{where}]\n\n{text.strip()}\n")
        options = "\n".join(f"- {option}" for option in entry["options"])
        parts.append(f"## THE QUESTION ({key}): choose one option\n\n{options}\n")
        out[key] = "\n".join(parts)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sessions", nargs="*", help="session codes such as s07")
    parser.add_argument("--all", action="store_true", help="every session with declarations")
    parser.add_argument("--out", type=Path, required=True, help="folder for the sheets")
    args = parser.parse_args(argv)
    codes = sorted(p.stem for p in DECLARATIONS.glob("s[0-9][0-9].json")) if args.all else []
    codes += args.sessions
    if not codes:
        parser.error("name sessions (s07 ...) or --all")
    for code in codes:
        folder = args.out / code
        folder.mkdir(parents=True, exist_ok=True)
        for key, sheet in sheets(code).items():
            (folder / f"{key}.md").write_text(sheet, encoding="utf-8")
        print(f"{code}: {len(list(folder.glob('*.md')))} sheets in {folder}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
