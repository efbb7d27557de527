"""What cannot be read is one row, never dropped; a limit on a submission counts the whole
submission (reader CC's findings 5 and 6: members a class zip refused left no row and changed
which folder was taken as the class; two nested zips of 3000 members each unpacked 6000 files
past MAX_MEMBERS, 5000, each zip drawing a fresh limit)."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from cafe.course.grading import submissions

PROGRESS = json.dumps({"version": 1, "exercises": {}})


def _zip(path: Path, members: dict[str, str]) -> None:
    with zipfile.ZipFile(path, "w") as zipped:
        for name, text in members.items():
            zipped.writestr(name, text)


BAD = ["../evil.ipynb", "/abs.ipynb", "a/../../up.ipynb", "back\\slash.ipynb"]


@settings(
    max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    learners=st.sets(st.sampled_from(["alice", "bob", "cy"]), min_size=1),
    bad=st.lists(st.sampled_from(BAD), max_size=3, unique=True),
    top=st.booleans(),
)
def test_a_class_zips_refused_members_are_rows_and_do_not_move_the_class(
    tmp_path_factory, learners, bad, top
):
    assume(top or len(learners) > 1)  # one folder alone at the top is the class's folder
    root = tmp_path_factory.mktemp("z")
    prefix = "class/" if top else ""
    members = {f"{prefix}{name}/progress.json": PROGRESS for name in learners}
    members.update({name: "{}" for name in bad})
    _zip(root / "class.zip", members)
    found = submissions.collect(root / "class.zip", root / "work")
    # the oracle: the learners are those the zip's folders name, whatever was refused; each
    # refused member is named in a problem
    graded = {s.learner for s in found if s.progress is not None}
    assert graded == learners
    problems = " | ".join(p for s in found for p in s.problems)
    for name in bad:
        assert repr(name) in problems, (name, problems)


def test_the_readers_class_zip_case(tmp_path, monkeypatch):
    monkeypatch.setattr(submissions, "MAX_MEMBER_BYTES", 100)
    _zip(
        tmp_path / "class.zip",
        {"alice/progress.json": PROGRESS, "../evil.ipynb": "{}", "bob/x.ipynb": "x" * 101},
    )
    found = {s.learner: s for s in submissions.collect(tmp_path / "class.zip", tmp_path / "w")}
    assert found["alice"].progress is not None and "progress" not in found
    assert any("'../evil.ipynb' points outside" in p for p in found["class"].problems)
    assert any("bob/x.ipynb is too big" in p for p in found["class"].problems)


@settings(
    max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(sizes=st.lists(st.integers(1, 6), min_size=1, max_size=4), limit=st.integers(3, 12))
def test_the_member_limit_counts_the_whole_submission(tmp_path_factory, monkeypatch, sizes, limit):
    monkeypatch.setattr(submissions, "MAX_MEMBERS", limit)
    monkeypatch.setattr(submissions.Budget, "__init__", _budget_init(limit))
    root = tmp_path_factory.mktemp("n")
    learner = root / "class" / "ann"
    learner.mkdir(parents=True)
    for number, size in enumerate(sizes):
        _zip(learner / f"h{number}.zip", {f"f{i}.json": "{}" for i in range(size)})
    found = submissions.collect(root / "class", root / "work")
    unpacked = [p for p in (root / "work" / "learners").rglob("f*.json")]
    # the oracle: zips open in name order while the running total stays within the limit
    total, opened = 0, 0
    for size in sizes:
        if total + size <= limit:
            total, opened = total + size, opened + 1
    assert len(unpacked) == total <= limit
    refused = [p for p in found[0].problems if "more than a class's work" in p]
    assert len(refused) == len(sizes) - opened


def _budget_init(limit: int):
    def init(self, members: int = limit, size: int = submissions.MAX_TOTAL_BYTES) -> None:
        self.members, self.size = members, size

    return init


def test_the_readers_nested_zips_case(tmp_path):
    learner = tmp_path / "class" / "ann"
    learner.mkdir(parents=True)
    for name in ("a", "b"):
        _zip(learner / f"{name}.zip", {f"f{i}.json": "" for i in range(3000)})
    [found] = submissions.collect(tmp_path / "class", tmp_path / "work")
    assert len(list((tmp_path / "work").rglob("f*.json"))) == 3000
    assert any(p.startswith("b.zip unpacks to more than a class's work") for p in found.problems)
