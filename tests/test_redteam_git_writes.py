"""The workbench's edit tool writes the whole file or nothing, and never through a hard link.

Held-out red team G found that a failed `write_file` (text with a lone surrogate, which a model's
JSON can carry) emptied the file it was replacing (A28), left an empty file and its new folder
behind for a new path (A27), and that the tool wrote in place through a hard link into a file
outside the project (A10). `write_file` now encodes first and writes through
`cafe/world/atomic_write.py`: a new file beside the target, renamed over it.
"""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.loop.dispatch import dispatch_call
from cafe.loop.turns import ToolCall, ToolResult
from cafe.world import atomic_write
from cafe.world.atomic_write import STAGED_PREFIX, write_atomically
from cafe.world.workbench import Workbench, open_workbench

# Text a model could send: any characters, lone surrogates included (JSON's "\udce9").
ANY_TEXT = st.text(st.characters(codec=None), max_size=40)
LONE_SURROGATE = st.characters(min_codepoint=0xD800, max_codepoint=0xDFFF)
# Path parts that stay inside the project and are not git's folder.
PART = st.text(st.sampled_from("abcxyz_0"), min_size=1, max_size=6)


@pytest.fixture(scope="module")
def bench():
    with open_workbench() as opened:
        yield opened


def tree_listing(root: Path) -> dict[str, bytes | None]:
    """Every entry below `root` but `.git`: a file's bytes, None for a folder."""
    found: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        dirs[:] = [d for d in dirs if d != ".git"]
        for name in dirs:
            found[os.path.relpath(os.path.join(folder, name), root)] = None
        for name in files:
            path = os.path.join(folder, name)
            found[os.path.relpath(path, root)] = Path(path).read_bytes()
    return found


def write_file(bench: Workbench, path: str, content: str) -> ToolResult:
    """The call as the loop makes it: a model's JSON arguments through `dispatch_call`."""
    arguments = {"path": path, "content": content}
    call = ToolCall("c1", "write_file", arguments, json.dumps(arguments))
    return dispatch_call(call, {t.name: t for t in bench.tools})


def unencodable(draw_text: str, surrogate: str, at: int) -> str:
    at = at % (len(draw_text) + 1)
    return draw_text[:at] + surrogate + draw_text[at:]


@settings(max_examples=40, deadline=None, derandomize=True)
@given(
    before=ANY_TEXT.map(lambda t: t.encode("utf-8", "surrogatepass")),
    text=ANY_TEXT,
    surrogate=LONE_SURROGATE,
    at=st.integers(0, 40),
)
def test_write_file_that_cannot_encode_leaves_an_existing_file_as_it_was(
    bench: Workbench, before: bytes, text: str, surrogate: str, at: int
) -> None:
    (bench.root / "bill.py").write_bytes(before)
    listing = tree_listing(bench.root)
    result = write_file(bench, "bill.py", unencodable(text, surrogate, at))
    assert not result.ok and "UnicodeEncodeError" in result.output
    assert tree_listing(bench.root) == listing, "a failed write changed the project"


@settings(max_examples=25, deadline=None, derandomize=True)
@given(parts=st.lists(PART, min_size=1, max_size=4), surrogate=LONE_SURROGATE)
def test_write_file_that_cannot_encode_creates_no_file_or_folder(
    bench: Workbench, parts: list[str], surrogate: str
) -> None:
    path = "new_" + "/".join(parts)
    listing = tree_listing(bench.root)
    result = write_file(bench, path, "x = 1  # caf" + surrogate)
    assert not result.ok
    assert tree_listing(bench.root) == listing, "a failed write left a file or folder behind"


def test_a_failed_rename_leaves_the_file_and_no_staged_copy(tmp_path, monkeypatch) -> None:
    """A failure at the last step (the rename) loses nothing either: the target holds its old
    bytes and the staged copy is gone, and the folders made for a new path are taken back."""
    target = tmp_path / "bill.py"
    target.write_bytes(b"TOTAL = 1000\n")

    def refuse(source: object, destination: object) -> None:
        raise OSError("the disk said no")

    monkeypatch.setattr(atomic_write.os, "replace", refuse)
    with pytest.raises(OSError, match="the disk said no"):
        write_atomically(target, b"agent junk\n")
    with pytest.raises(OSError, match="the disk said no"):
        write_atomically(tmp_path / "new" / "deep" / "x.py", b"y\n")
    assert sorted(os.listdir(tmp_path)) == ["bill.py"]
    assert target.read_bytes() == b"TOTAL = 1000\n"


@settings(max_examples=30, deadline=None, derandomize=True)
@given(
    text=ANY_TEXT.filter(lambda t: not any(0xD800 <= ord(c) <= 0xDFFF for c in t)),
    mode=st.sampled_from([0o644, 0o600, 0o755, 0o640]),
)
def test_write_file_puts_the_text_in_place_and_keeps_the_permission_bits(
    bench: Workbench, text: str, mode: int
) -> None:
    target = bench.root / "bill.py"
    target.chmod(mode)
    result = write_file(bench, "bill.py", text)
    assert result.ok, result.output
    assert target.read_bytes() == text.encode("utf-8")
    assert stat.S_IMODE(target.stat().st_mode) == mode
    assert not [n for n in os.listdir(bench.root) if n.startswith(STAGED_PREFIX)]


@pytest.mark.skipif(sys.platform == "win32", reason="hard links as POSIX has them")
@settings(max_examples=15, deadline=None, derandomize=True)
@given(owner=st.binary(max_size=30), text=ANY_TEXT.map(lambda t: t.encode("utf-8", "replace")))
def test_write_file_never_writes_through_a_hard_link_out_of_the_project(
    bench: Workbench, owner: bytes, text: bytes
) -> None:
    """The rename gives the name a new file: the file's other name, outside the project, keeps
    the owner's bytes, and the tool's result says a hard link kept the old text."""
    outside = bench.root.parent / "outside.txt"
    outside.write_bytes(owner)
    shared = bench.root / "shared.txt"
    shared.unlink(missing_ok=True)
    os.link(outside, shared)
    result = write_file(bench, "shared.txt", text.decode("utf-8"))
    assert result.ok and "hard link" in result.output
    assert outside.read_bytes() == owner, "the edit tool wrote through a hard link"
    assert shared.read_bytes() == text and shared.stat().st_nlink == 1
    shared.unlink()


def test_write_file_to_a_single_name_file_says_nothing_of_links(bench: Workbench) -> None:
    result = write_file(bench, "notes.txt", "x\n")
    assert result.ok and result.output == "wrote 2 characters to notes.txt"
    (bench.root / "notes.txt").unlink()
