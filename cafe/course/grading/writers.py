"""The gradebook's three files: gradebook.csv, gradebook.json and gradebook.html.

- `gradebook.csv`: one row per `Line` (`cafe.course.grading.gradebook`), columns `COLUMNS`, for a
  spreadsheet or an LMS import (filter on `kind`, pivot on `learner`);
- `gradebook.json`: the same lines, a per-learner summary and the class summary, for tools;
- `gradebook.html`: one page with the class summary first (which exercises most learners fail,
  which predictions most miss, which notebooks did not run) and a learner-by-session table.

Every text that came from a submission is escaped in the page and written as data in the others;
a learner's code has no way into the page's markup.
"""

from __future__ import annotations

import csv
import html
import io
import json
from collections import Counter
from collections.abc import Sequence
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from cafe.course.grading.gradebook import Line

__all__ = ["COLUMNS", "class_summary", "learner_summary", "write_gradebook"]

COLUMNS = ("learner", "session", "kind", "key", "result", "detail", "origin")
# How many rows each of the page's "most" tables shows.
TOP = 15


def learner_summary(lines: Sequence[Line]) -> dict[str, dict[str, Any]]:
    """Per learner: exercises passed of those graded, predictions matched of those made, checkpoints
    banked, the capstone's last check, notebooks that did not run cleanly, and problems with the
    submission."""
    found: dict[str, dict[str, Any]] = {}
    for line in lines:
        s = found.setdefault(
            line.learner,
            {
                "exercises": 0,
                "passed": 0,
                "predictions": 0,
                "made": 0,
                "matched": 0,
                "checkpoints": 0,
                "capstone": "-",
                "notebooks": 0,
                "not_clean": [],
                "problems": [],
            },
        )
        if line.kind == "exercise":
            s["exercises"] += 1
            s["passed"] += line.result == "passed"
        elif line.kind == "prediction":
            s["predictions"] += 1
            s["made"] += line.result in ("matched", "missed", "not_shown")
            s["matched"] += line.result == "matched"
        elif line.kind == "checkpoint":
            s["checkpoints"] += line.result == "banked"
        elif line.kind == "capstone":
            s["capstone"] = line.result
        elif line.kind == "notebook":
            s["notebooks"] += 1
            if line.result != "ran":
                s["not_clean"].append(f"{line.key}: {line.result}")
        elif line.result == "unreadable":
            s["problems"].append(f"{line.key}: {line.detail}")
    return found


def class_summary(lines: Sequence[Line]) -> dict[str, Any]:
    """Which exercises most learners fail, which predictions most miss, what did not run."""
    tried: Counter[str] = Counter()
    failed: Counter[str] = Counter()
    asked: Counter[str] = Counter()
    missed: Counter[str] = Counter()
    for line in lines:
        if line.kind == "exercise":
            tried[line.key] += 1
            failed[line.key] += line.result != "passed"
        elif line.kind == "prediction" and line.result in ("matched", "missed"):
            asked[line.key] += 1
            missed[line.key] += line.result == "missed"
    return {
        "learners": len({line.learner for line in lines}),
        "exercises_failed": [
            {"key": k, "failed": failed[k], "of": tried[k]}
            for k, _ in failed.most_common()
            if failed[k]
        ],
        "predictions_missed": [
            {"key": k, "missed": missed[k], "of": asked[k]}
            for k, _ in missed.most_common()
            if missed[k]
        ],
        "not_run": [
            asdict(line) for line in lines if line.kind == "notebook" and line.result != "ran"
        ],
        "unreadable": [asdict(line) for line in lines if line.result == "unreadable"],
    }


@dataclass(frozen=True)
class _Bar:
    """A share drawn as a bar beside its figures: "3 of 4 (75%)"."""

    count: int
    total: int

    def __str__(self) -> str:
        share = round(100 * self.count / self.total) if self.total else 0
        return f"{self.count} of {self.total} ({share}%)"


def _cell_html(cell: Any) -> str:
    """A table cell: a `_Bar` as a meter and its figures, anything else as escaped text."""
    if isinstance(cell, _Bar):
        meter = f"<meter min='0' max='{max(cell.total, 1)}' value='{cell.count}'></meter>"
        return f"<td>{meter} {html.escape(str(cell))}</td>"
    return f"<td>{html.escape(str(cell))}</td>"


def _table(headers: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(map(_cell_html, row)) + "</tr>" for row in rows)
    return f"<table><tr>{head}</tr>{body}</table>" if rows else "<p>None.</p>"


def _bar(count: int, total: int) -> _Bar:
    return _Bar(int(count), int(total))


def _people(learners: dict[str, dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (
            name,
            _bar(s["passed"], s["exercises"]),
            f"{s['matched']} of {s['made']} made ({s['predictions']} asked)",
            s["checkpoints"],
            s["capstone"],
            "; ".join(s["not_clean"]) or "-",
            "; ".join(s["problems"]) or "-",
        )
        for name, s in sorted(learners.items())
    ]


_STYLE = (
    "<style>body{font-family:system-ui,sans-serif;margin:2em;max-width:70em}"
    "table{border-collapse:collapse;margin-bottom:1.5em}td,th{border:1px solid #ccc;"
    "padding:.3em .6em;text-align:left;vertical-align:top}th{background:#f3f3f3}"
    "meter{width:8em}</style>"
)


def _page(summary: dict[str, Any], learners: dict[str, dict[str, Any]], made_at: str) -> str:
    failed = [(e["key"], _bar(e["failed"], e["of"])) for e in summary["exercises_failed"][:TOP]]
    missed = [(p["key"], _bar(p["missed"], p["of"])) for p in summary["predictions_missed"][:TOP]]
    not_run = [(n["learner"], n["key"], n["result"], n["detail"]) for n in summary["not_run"]]
    unreadable = [(u["learner"], u["key"], u["detail"]) for u in summary["unreadable"]]
    columns = ["learner", "exercises passed", "predictions matched", "checkpoints", "capstone"]
    parts = [
        "<!doctype html><html lang='en'><head><meta charset='utf-8'><title>Gradebook</title>",
        _STYLE + "</head><body>",
        f"<h1>Gradebook</h1><p>{summary['learners']} learners, graded {html.escape(made_at)}. "
        "Every row is in gradebook.csv; docs/teaching.md says what each column means.</p>",
        "<h2>Exercises most learners fail</h2>",
        _table(["exercise", "failed or not done"], failed),
        "<h2>Predictions most missed</h2>",
        _table(["prediction", "missed, of those made"], missed),
        "<h2>Notebooks that did not run cleanly</h2>",
        _table(["learner", "notebook", "result", "why"], not_run),
        "<h2>Submissions that could not be read</h2>",
        _table(["learner", "file", "why"], unreadable),
        "<h2>Learners</h2>",
        _table([*columns, "notebooks", "problems"], _people(learners)),
        "</body></html>\n",
    ]
    return "\n".join(parts)


# What a spreadsheet may read as the start of a formula (OWASP's list: tab and CR among them).
FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def _cell(value: Any) -> Any:
    """A CSV cell a spreadsheet will not read as a formula (a learner's text may start with =, or
    with a tab or CR before one): any cell starting with one of `FORMULA_STARTS` gets a `'`."""
    return "'" + value if isinstance(value, str) and value[:1] in FORMULA_STARTS else value


def write_gradebook(
    lines: Sequence[Line], out: Path, made_at: str, extra: dict[str, Any]
) -> list[Path]:
    """Write the three files into `out`; return their paths. The gradebook's text is always
    encodable: what UTF-8 cannot hold (a lone surrogate from a manifest, a folder name's stray
    byte) is written as its escape, `\\ud800`, the same in all three files; and every file's text
    is made before any is written, so a failure leaves no half-written gradebook."""
    lines = [Line(*(_encodable(getattr(line, f)) for f in _FIELDS)) for line in lines]
    extra = {_encodable(k): _encodable(v) for k, v in extra.items()}
    made_at = _encodable(made_at)
    rows = io.StringIO(newline="")
    writer = csv.writer(rows)
    writer.writerow(COLUMNS)
    writer.writerows([_cell(getattr(line, column)) for column in COLUMNS] for line in lines)
    summary, learners = class_summary(lines), learner_summary(lines)
    document = {
        "made_at": made_at,
        **extra,
        "summary": summary,
        "learners": learners,
        "lines": [asdict(line) for line in lines],
    }
    texts = [
        rows.getvalue(),
        json.dumps(document, indent=1, ensure_ascii=False) + "\n",
        _page(summary, learners, made_at),
    ]
    encoded = [text.encode("utf-8") for text in texts]
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / "gradebook.csv", out / "gradebook.json", out / "gradebook.html"]
    for path, data in zip(paths, encoded):
        path.write_bytes(data)
    return paths


_FIELDS = tuple(f.name for f in fields(Line))


def _encodable(value: Any) -> Any:
    """`value` with what UTF-8 cannot encode written as its backslash escape (a str); else as is."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    return value
