"""One learner's bad input is one named row for that learner, never the end of the class's grading;
and the gradebook's text is always encodable (what UTF-8 cannot hold is written as its escape).

Reader CC's finding 2: a notebook or a manifest nested 100000 deep, a zip member flagged UTF-8 whose
name is not, a manifest learner "\\ud800", a learner folder named with the byte \\xff, a cell whose
"source" is 5: each ended `cafe grade` with a traceback and no gradebook."""

from __future__ import annotations

import csv
import io
import json
import os
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.course.grading import command, gradebook, submissions, writers
from cafe.course.grading.gradebook import Line

DEEP = 100_000


def _bad_utf8_zip(path: Path) -> None:
    """A zip whose one member is flagged UTF-8 (bit 11) but is named by the bytes \\xff\\xfe."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as zipped:
        zipped.writestr("QQ.ipynb", "{}")
    data = bytearray(buffer.getvalue())
    for at in range(len(data) - 4):  # the flag's high byte in the local and central headers
        if data[at : at + 4] == b"PK\x03\x04":
            data[at + 7] |= 0x08
        elif data[at : at + 4] == b"PK\x01\x02":
            data[at + 9] |= 0x08
    path.write_bytes(bytes(data).replace(b"QQ.ipynb", b"\xff\xfe.ipynb"))


def _hand_in(path: Path, manifest: str, files: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as zipped:
        zipped.writestr("manifest.json", manifest)
        for name, text in files.items():
            zipped.writestr(name, text)


PROGRESS = json.dumps({"version": 1, "exercises": {"s01.repeat_guard": {"status": "passed"}}})


def _make(kind: str, root: Path, name: str) -> None:
    """One learner's hostile entry `name` of the given kind, under `root`."""
    if kind == "deep-notebook":
        (root / name).mkdir()
        (root / name / "x.ipynb").write_text("[" * DEEP + "]" * DEEP)
    elif kind == "deep-object":
        (root / name).mkdir()
        (root / name / "x.ipynb").write_text('{"a":' * DEEP + "1" + "}" * DEEP)
    elif kind == "deep-manifest":
        _hand_in(root / f"{name}.zip", "[" * DEEP + "]" * DEEP, {"progress.json": PROGRESS})
    elif kind == "bad-utf8-name":
        _bad_utf8_zip(root / f"{name}.zip")
    elif kind == "surrogate-learner":
        _hand_in(root / f"{name}.zip", '{"learner": "\\ud800"}', {"progress.json": PROGRESS})
    elif kind == "source-int":
        (root / name).mkdir()
        cell = {"cell_type": "code", "source": 5, "metadata": {}, "outputs": []}
        (root / name / "mine.ipynb").write_text(json.dumps({"cells": [cell]}))
    elif kind == "byte-folder":
        folder = os.fsencode(root) + b"/" + name.encode() + b"\xff"
        os.mkdir(folder)
        with open(folder + b"/progress.json", "w", encoding="utf-8") as handle:
            handle.write(PROGRESS)


KINDS = [
    "deep-notebook",
    "deep-object",
    "deep-manifest",
    "bad-utf8-name",
    "surrogate-learner",
    "source-int",
    "byte-folder",
]


def _grade(source: Path, out: Path) -> list[Line]:
    return command.grade(source, out, workers=1, seconds=30)


def _read_csv(out: Path) -> list[dict[str, str]]:
    data = (out / "gradebook.csv").read_bytes().decode("utf-8")  # strict: raises if not UTF-8
    return list(csv.DictReader(io.StringIO(data, newline="")))


@settings(
    max_examples=8, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(chosen=st.lists(st.sampled_from(KINDS), min_size=1, max_size=3))
def test_any_mix_of_bad_input_grades_the_class_and_names_each(tmp_path_factory, chosen):
    root = tmp_path_factory.mktemp("c")
    source, out = root / "class", root / "out"
    source.mkdir()
    (source / "good").mkdir()
    (source / "good" / "progress.json").write_text(PROGRESS)
    for number, kind in enumerate(chosen):
        _make(kind, source, f"bad{number}")
    _grade(source, out)  # the oracle's first part: no exception
    rows = _read_csv(out)
    for path in (out / "gradebook.json", out / "gradebook.html"):
        path.read_bytes().decode("utf-8")
    assert any(r["learner"] == "good" and r["result"] == "passed" for r in rows)
    for number, kind in enumerate(chosen):
        # every hostile entry is a row of its own (named after the entry, or the escape of the
        # manifest's name), and the rows that name an unreadable thing say so
        mine = [
            r for r in rows if r["learner"].startswith(f"bad{number}") or "\\ud800" in r["learner"]
        ]
        assert mine, (kind, rows)
        if kind in ("deep-notebook", "deep-object", "bad-utf8-name", "source-int"):
            assert any(r["result"] == "unreadable" for r in mine), (kind, mine)


def test_the_readers_cases_each_give_one_named_row(tmp_path):
    source = tmp_path / "class"
    source.mkdir()
    for kind in KINDS:
        _make(kind, source, kind)
    found = {s.origin: s for s in submissions.collect(source, tmp_path / "work")}
    assert "too deep" in found["deep-notebook"].problems[0]
    assert "cell 0 has no text" in found["source-int"].problems[0]
    assert "cannot be opened as a zip" in found["bad-utf8-name.zip"].problems[0]
    assert found["deep-manifest.zip"].learner == "deep-manifest"
    assert found["surrogate-learner.zip"].learner == "\ud800"
    _grade(source, tmp_path / "out")
    learners = {r["learner"] for r in _read_csv(tmp_path / "out")}
    assert {"\\ud800", "byte-folder\\udcff"} <= learners


def test_course_items_skips_a_cell_whose_source_is_not_text(tmp_path):
    notebook = tmp_path / "s01-x.ipynb"
    cells = [
        {"cell_type": "code", "source": 5},
        {"cell_type": "code", "source": ['course.compare(f, key="s01.a")']},
        {"cell_type": "code", "source": None},
    ]
    notebook.write_text(json.dumps({"cells": cells}))
    assert gradebook.course_items(notebook, None) == (["s01.a"], [])


_ANY_TEXT = st.text(st.characters(blacklist_categories=()), max_size=12)


def _escaped(text: str, csv: bool = True) -> str:
    """The oracle: each lone surrogate as \\uXXXX, the rest as is, then the CSV formula guard."""
    out = "".join(f"\\u{ord(c):04x}" if 0xD800 <= ord(c) <= 0xDFFF else c for c in text)
    return "'" + out if csv and out[:1] in ("=", "+", "-", "@", "\t", "\r") else out


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(names=st.lists(_ANY_TEXT, min_size=1, max_size=4), detail=_ANY_TEXT)
def test_the_gradebook_is_always_encodable_and_escapes_what_is_not(tmp_path, names, detail):
    lines = [Line(n, "s01", "exercise", "s01.a", "passed", detail) for n in names]
    writers.write_gradebook(lines, tmp_path, "now", {"source": "x\udcff"})
    rows = _read_csv(tmp_path)
    assert [r["learner"] for r in rows] == [_escaped(n) for n in names]
    document = json.loads((tmp_path / "gradebook.json").read_bytes().decode("utf-8"))
    assert [line["learner"] for line in document["lines"]] == [
        _escaped(n, csv=False) for n in names
    ]
    assert document["source"] == "x\\udcff"
    (tmp_path / "gradebook.html").read_bytes().decode("utf-8")
