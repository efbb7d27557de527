"""The monitored edit tool captures a file under the name the tree sample gives it.

Held-out red team G (A11): the monitored `write_file` filed its capture under the path as the agent
spelled it (`./a.py`, `sub/../sub/b.py`), while the tree sample names entries by their plain path
(`a.py`, `sub/b.py`). A restore after nothing but edit-tool writes then declined with
`uncaptured_change` on a file the tool had in fact captured: safe, but false. The tool now files
each capture under `tree_path(root, path)`: the file the write lands on, spelled as the sample
spells it.

The principle, over generated spellings of one path (`./`, `//`, `x/../`, a trailing `/` or `/.`):
an edit-tool write under any spelling is restorable exactly as under the plain one, and a spelling
that leaves the project is refused as before, with nothing captured.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.loop.tools import Tool
from cafe.monitors.snapshots import SnapshotStore, restore
from cafe.monitors.tools import monitored_tools
from cafe.monitors.worktree import TreeSample, sample_tree, tree_path
from cafe.world.workbench import Workbench, open_workbench

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX symbolic links")

# Files the till project has, and new files in new folders (the restore must remove the folders).
TARGETS = ("bill.py", "check_bill.py", "notes.txt", "lib/new.py", "lib/deep/new.py")
# What may stand before a part without changing the file it names: `.` and an empty part (`//`)
# stay put; `zz/..` goes into a folder that does not exist and back; `bill.py/..` leaves a file.
DETOURS = st.sampled_from([".", "", "zz/..", "bill.py/..", "lib/.."])
# What may end the path: nothing, a trailing `/`, a trailing `/.`.
ENDINGS = st.sampled_from(["", "/", "/.", "/./"])


@st.composite
def spellings(draw: st.DrawFn, plain: str) -> str:
    """One spelling of `plain`: detours before each of its parts, an ending after the last."""
    pieces: list[str] = []
    for part in plain.split("/"):
        pieces += draw(st.lists(DETOURS, max_size=2))
        pieces.append(part)
    if pieces[0] == "":
        pieces[0] = "."  # a leading empty part would make the path absolute: another path
    return "/".join(pieces) + draw(ENDINGS)


@pytest.fixture(scope="module")
def bench() -> Iterator[Workbench]:
    with open_workbench() as opened:
        yield opened


def write_tool(bench: Workbench, store: SnapshotStore) -> Tool:
    return {t.name: t for t in monitored_tools(bench, store)}["write_file"]


def green_sample(root: Path) -> TreeSample:
    sample = sample_tree(root)
    assert isinstance(sample, TreeSample), sample
    return sample


def write_and_restore(bench: Workbench, path: str, text: str) -> tuple[object, list[str]]:
    """(the restore's outcome, the capture names) after one edit-tool write under `path`; the
    tree must be back as it was at green afterwards."""
    store = SnapshotStore()
    green, mark = green_sample(bench.root), store.mark()
    result = write_tool(bench, store).function(path, text)
    assert result.ok, result.text
    outcome = restore(bench.root, green, store, mark)
    assert sample_tree(bench.root) == green, f"the tree is not back at green after {path!r}"
    return outcome, list(store.first_since(mark))


@settings(max_examples=30, deadline=None, derandomize=True)
@given(data=st.data(), target=st.sampled_from(TARGETS), text=st.sampled_from(["", "x = 2\n"]))
def test_an_edit_tool_write_under_any_spelling_restores_as_under_the_plain_one(
    bench: Workbench, data: st.DataObject, target: str, text: str
) -> None:
    spelled = data.draw(spellings(target), label="spelled")
    plain_outcome, plain_names = write_and_restore(bench, target, text)
    spelled_outcome, spelled_names = write_and_restore(bench, spelled, text)
    assert spelled_names == plain_names == [target]
    assert spelled_outcome == plain_outcome
    assert getattr(plain_outcome, "declined", None) is None, plain_outcome


def test_the_red_teams_two_spellings_together_restore(bench: Workbench) -> None:
    """The attempt as found: `./bill.py` and `lib/../lib/new.py` in one run."""
    store = SnapshotStore()
    green, mark = green_sample(bench.root), store.mark()
    write = write_tool(bench, store).function
    assert write("./bill.py", "broken\n").ok and write("lib/../lib/new.py", "x\n").ok
    assert write("bill.py", "broken again\n").ok  # a later capture changes nothing
    outcome = restore(bench.root, green, store, mark)
    assert outcome.declined is None and set(outcome.restored) == {"bill.py", "lib", "lib/new.py"}
    assert sample_tree(bench.root) == green


@settings(max_examples=20, deadline=None, derandomize=True)
@given(
    ups=st.integers(1, 3),
    lead=st.sampled_from(["", "./", "bill.py/../", "zz/"]),
    name=st.sampled_from(["x.py", "outside.txt", "bill.py"]),
)
def test_a_spelling_that_leaves_the_project_is_refused_and_captures_nothing(
    bench: Workbench, ups: int, lead: str, name: str
) -> None:
    path = lead + "../" * (ups + lead.count("zz/")) + name
    assert tree_path(bench.root, path) is None
    store = SnapshotStore()
    before = sample_tree(bench.root)
    result = write_tool(bench, store).function(path, "agent text\n")
    assert not result.ok and "outside the project folder" in result.text
    assert len(store) == 0 and sample_tree(bench.root) == before


@posix_only
def test_a_link_out_of_the_project_gives_no_name_and_no_capture(tmp_path: Path) -> None:
    with open_workbench(parent=tmp_path) as bench:
        outside = tmp_path / "outside"
        outside.mkdir()
        (bench.root / "out").symlink_to(outside)
        store = SnapshotStore()
        for path in ("out/x.py", "./out/x.py", "out//x.py", str(outside / "x.py")):
            assert tree_path(bench.root, path) is None
            assert not write_tool(bench, store).function(path, "x\n").ok
        assert len(store) == 0 and os.listdir(outside) == []


@posix_only
def test_a_write_through_a_link_inside_is_captured_under_the_file_it_lands_on(
    tmp_path: Path,
) -> None:
    """`alias -> bill.py`: the workbench writes `bill.py`, so that is the capture's name (filed
    under `alias`, a link, it could never be put back)."""
    with open_workbench(parent=tmp_path) as bench:
        (bench.root / "alias").symlink_to("bill.py")
        store = SnapshotStore()
        green, mark = green_sample(bench.root), store.mark()
        assert write_tool(bench, store).function("./alias", "broken\n").ok
        assert list(store.first_since(mark)) == ["bill.py"]
        outcome = restore(bench.root, green, store, mark)
        assert outcome.declined is None and outcome.restored == ("bill.py",)
        assert sample_tree(bench.root) == green


def test_tree_path_names_every_sampled_entry_as_the_sample_does(tmp_path: Path) -> None:
    """Round trip: for each entry a sample names, `tree_path` gives that same name back."""
    with open_workbench(parent=tmp_path) as bench:
        for name in ("a b.py", "café.py", "deep/er/x.py", "-dash.txt"):
            (bench.root / name).parent.mkdir(parents=True, exist_ok=True)
            (bench.root / name).write_text("x\n", encoding="utf-8")
        sample = green_sample(bench.root)
        assert {name: tree_path(bench.root, name) for name in sample.modes} == {
            name: name for name in sample.modes
        }
        assert tree_path(bench.root, ".") is None and tree_path(bench.root, "") is None
        assert tree_path(bench.root, "a\0b") is None
