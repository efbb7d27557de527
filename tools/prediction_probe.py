"""Write, for each prediction, exactly what a learner has read when it is asked: the probe's sheet.

The fresh-reader probe (issue 37) asks a reader who has seen nothing else to answer each prediction
from what the learner has read at that point, and to quote the sentence that decided it. This tool
writes that reading, one sheet per prediction: the About box, the lesson up to the end of Build,
the headings, the notebook's cells above the prediction with what they printed (the notebook
source is run cell by cell, offline), then the question and its options. The reading is the one
`tests/spoilers.py` scans, so the probe and the spoiler test judge the same text.

    python tools/prediction_probe.py s07 s13 --out /tmp/probe     # one folder per session
    python tools/prediction_probe.py --all --out /tmp/probe
    python tools/prediction_probe.py --record /tmp/probe/answers --out /tmp/probe --date 2026-12-06

A reader writes one JSON line per prediction into `<answers>/sNN.jsonl`: the option chosen, its
basis (`reasoning`, `text`, `guess` or `recall`), the sentence that decided it (or "none") and why.
`--record` merges those lines with the declarations into `docs/notes/prediction-probe.json` (a
probe of some sessions keeps the other records, unless their outcome has since changed): for
each prediction the reader's answer, whether it is the outcome, the quote, the verdict, the date,
and the SHA-256 of the sheet the reader saw, printed output left out (the sheets in `--out`), so a later edit to the text
before a prediction shows as a stale record (`--stale`). `tests/test_prediction_probe.py` checks
the record covers every prediction and that each verdict follows from its basis and answer.

The verdict, in one sentence: a prediction is `needs_idea` when the reader reasoned to an answer
(right or wrong) without quoting a sentence that decides it, `spoiled` when a sentence the reader
quotes decides it and the answer is right, `misleading` when a quoted sentence led to a wrong
answer, and `guess` or `recall` when that is all the reader had.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))

from samples import run_cells  # noqa: E402
from spoilers import Cell, before_prediction, notebook_cells  # noqa: E402

DECLARATIONS = ROOT / "cafe" / "data" / "predictions"
RECORD = ROOT / "docs" / "notes" / "prediction-probe.json"
BASES = ("reasoning", "text", "guess", "recall")
VERDICTS = ("needs_idea", "spoiled", "misleading", "guess", "recall")


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


def verdict(basis: str, correct: bool) -> str:
    """What one reader's answer says of a prediction (the module docstring's sentence)."""
    if basis == "reasoning":
        return "needs_idea"
    if basis == "text":
        return "spoiled" if correct else "misleading"
    return basis


def authored(sheet: str) -> str:
    """The sheet without the notebook's printed output: what an author wrote. Outputs carry
    timings and temporary folder names that differ on every run, so a digest over them would
    call every record stale; a change in what the code prints follows a change in the source."""
    blocks = re.split(r"(?m)^(?=## \[)", sheet)
    return "".join(block for block in blocks if not block.startswith("## [output of"))


def digest(sheet: str) -> str:
    """The SHA-256 of the sheet's authored text (`authored`)."""
    return hashlib.sha256(authored(sheet).encode("utf-8")).hexdigest()


def declared() -> dict[str, dict]:
    """Every prediction key the course asks, with its declaration, in session order."""
    out: dict[str, dict] = {}
    for path in sorted(DECLARATIONS.glob("s[0-9][0-9].json")):
        out.update(json.loads(path.read_text(encoding="utf-8")))
    return out


def record(answers: Path, sheets_folder: Path, date: str) -> dict[str, dict]:
    """The probe's record: each reader's line joined with its declaration and its sheet."""
    declarations = declared()
    lines = [
        json.loads(line)
        for path in sorted(answers.glob("s[0-9][0-9].jsonl"))
        for line in path.read_text(encoding="utf-8").splitlines()
        if line.strip()
    ]
    out: dict[str, dict] = {}
    for line in lines:
        key = line["key"]
        if key not in declarations:
            raise SystemExit(f"{key}: answered, but no session declares it")
        entry = declarations[key]
        if line["answer"] not in entry["options"] or line["basis"] not in BASES:
            raise SystemExit(f"{key}: answer not an option, or basis not one of {BASES}: {line}")
        sheet = sheets_folder / key.split(".")[0] / f"{key}.md"
        correct = line["answer"] == entry["outcome"]
        out[key] = {
            "answer": line["answer"],
            "outcome": entry["outcome"],
            "correct": correct,
            "basis": line["basis"],
            "quote": line.get("quote") or "none",
            "near_miss": line.get("near_miss") or "none",
            "why": line.get("why", ""),
            "verdict": verdict(line["basis"], correct),
            "date": date,
            "sheet_sha256": digest(sheet.read_text(encoding="utf-8")),
        }
    kept = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}
    for key, entry in kept.items():  # a partial probe keeps the others' records
        if (
            key in declarations
            and key not in out
            and entry["outcome"] == declarations[key]["outcome"]
        ):
            out[key] = entry
    missing = [key for key in declarations if key not in out]
    if missing:
        print(f"not yet probed ({len(missing)}): {', '.join(missing)}", file=sys.stderr)
    return {key: out[key] for key in declarations if key in out}


def totals(entries: dict[str, dict]) -> dict[str, int]:
    return {name: sum(e["verdict"] == name for e in entries.values()) for name in VERDICTS}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("sessions", nargs="*", help="session codes such as s07")
    parser.add_argument("--all", action="store_true", help="every session with declarations")
    parser.add_argument("--out", type=Path, required=True, help="folder for the sheets")
    parser.add_argument("--record", type=Path, help="a folder of readers' sNN.jsonl answers")
    parser.add_argument("--date", help="the day the readers answered (YYYY-MM-DD)")
    parser.add_argument(
        "--stale", action="store_true", help="list records whose sheet has changed since"
    )
    args = parser.parse_args(argv)
    if args.record:
        if not args.date:
            parser.error("--record needs --date")
        entries = record(args.record, args.out, args.date)
        RECORD.write_text(json.dumps(entries, indent=1, ensure_ascii=False) + "\n", "utf-8")
        print(
            f"{len(entries)} predictions recorded in {RECORD.relative_to(ROOT)}: {totals(entries)}"
        )
        return 0
    codes = sorted(p.stem for p in DECLARATIONS.glob("s[0-9][0-9].json")) if args.all else []
    codes += args.sessions
    if not codes:
        parser.error("name sessions (s07 ...) or --all")
    kept = json.loads(RECORD.read_text(encoding="utf-8")) if RECORD.exists() else {}
    stale = []
    for code in codes:
        folder = args.out / code
        folder.mkdir(parents=True, exist_ok=True)
        for key, sheet in sheets(code).items():
            (folder / f"{key}.md").write_text(sheet, encoding="utf-8")
            if key not in kept or kept[key]["sheet_sha256"] != digest(sheet):
                stale.append(key)
        print(f"{code}: {len(list(folder.glob('*.md')))} sheets in {folder}")
    if args.stale:
        print(f"{len(stale)} prediction(s) changed or unprobed since the record: {' '.join(stale)}")
        return 1 if stale else 0
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
