"""Writing inside the tree (cafe/monitors/safe_write.py): never through a link, all or nothing."""

from __future__ import annotations

import os
import stat
import sys

import pytest

from cafe.monitors.safe_write import Plan, apply, dir_fd_available

WAYS = [pytest.param(False, id="checked-paths")]
if dir_fd_available():
    WAYS.append(pytest.param(True, id="dir-fd"))

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and modes")


@pytest.mark.parametrize("use_dir_fd", WAYS)
def test_apply_writes_files_folders_modes_and_removals(tmp_path, use_dir_fd):
    (tmp_path / "old.txt").write_text("old")
    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "x.txt").write_text("x")
    plan = Plan(
        folders=(("new", 0o755),),
        files=(("new/a.py", b"print(1)\n", 0o644), ("old.txt", b"green\n", 0o600)),
        removals=("gone/x.txt",),
        empty_folders=("gone",),
    )
    apply(tmp_path, plan, use_dir_fd=use_dir_fd)
    assert (tmp_path / "new" / "a.py").read_bytes() == b"print(1)\n"
    assert (tmp_path / "old.txt").read_bytes() == b"green\n"
    assert not (tmp_path / "gone").exists()
    if sys.platform != "win32":
        assert stat.S_IMODE((tmp_path / "old.txt").stat().st_mode) == 0o600
        assert stat.S_IMODE((tmp_path / "new").stat().st_mode) == 0o755
    assert not [p for p in tmp_path.rglob(".cafe-restore-*")]


@posix_only
@pytest.mark.parametrize("use_dir_fd", WAYS)
def test_apply_replaces_a_link_instead_of_writing_through_it(tmp_path, use_dir_fd):
    tree, outside = tmp_path / "tree", tmp_path / "outside.txt"
    tree.mkdir()
    outside.write_text("VICTIM")
    (tree / "bill.py").symlink_to(outside)
    apply(tree, Plan(files=(("bill.py", b"green\n", 0o644),)), use_dir_fd=use_dir_fd)
    assert outside.read_text() == "VICTIM" and not (tree / "bill.py").is_symlink()
    assert (tree / "bill.py").read_bytes() == b"green\n"


@posix_only
@pytest.mark.parametrize("use_dir_fd", WAYS)
def test_apply_replaces_a_hard_link_without_touching_its_twin(tmp_path, use_dir_fd):
    tree, outside = tmp_path / "tree", tmp_path / "outside.txt"
    tree.mkdir()
    outside.write_text("VICTIM")
    os.link(outside, tree / "bill.py")
    apply(tree, Plan(files=(("bill.py", b"green\n", 0o644),)), use_dir_fd=use_dir_fd)
    assert outside.read_text() == "VICTIM" and (tree / "bill.py").read_bytes() == b"green\n"


@posix_only
@pytest.mark.parametrize("use_dir_fd", WAYS)
def test_apply_refuses_a_folder_on_the_way_that_is_a_link(tmp_path, use_dir_fd):
    tree, outside = tmp_path / "tree", tmp_path / "outside"
    tree.mkdir()
    outside.mkdir()
    (tree / "lib").symlink_to(outside)
    with pytest.raises(OSError):
        apply(tree, Plan(files=(("lib/rates.py", b"RATE = 1\n", 0o644),)), use_dir_fd=use_dir_fd)
    assert list(outside.iterdir()) == []


@posix_only
@pytest.mark.parametrize("use_dir_fd", WAYS)
def test_apply_unlinks_a_link_not_its_target_and_never_chmods_through_one(tmp_path, use_dir_fd):
    tree, outside = tmp_path / "tree", tmp_path / "outside.txt"
    tree.mkdir()
    outside.write_text("VICTIM")
    outside.chmod(0o644)
    (tree / "a").symlink_to(outside)
    with pytest.raises(OSError):
        apply(tree, Plan(modes=(("a", 0o777),)), use_dir_fd=use_dir_fd)
    apply(tree, Plan(removals=("a",)), use_dir_fd=use_dir_fd)
    assert outside.read_text() == "VICTIM" and stat.S_IMODE(outside.stat().st_mode) == 0o644
    assert not os.path.lexists(tree / "a")


@pytest.mark.parametrize("use_dir_fd", WAYS)
def test_a_failed_staging_replaces_nothing_and_leaves_no_staged_file(tmp_path, use_dir_fd):
    (tmp_path / "bill.py").write_text("broken")
    plan = Plan(
        folders=(("made", 0o755),),
        files=(("bill.py", b"green", 0o644), ("no/such/folder.py", b"x", 0o644)),
    )
    with pytest.raises(OSError):
        apply(tmp_path, plan, use_dir_fd=use_dir_fd)
    assert (tmp_path / "bill.py").read_text() == "broken"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bill.py"]


@pytest.mark.parametrize("path", ["", "../x", "a/../../x", "/etc/passwd", "a//b", "./a"])
def test_apply_refuses_a_path_that_leaves_the_root(tmp_path, path):
    with pytest.raises(OSError, match="below the root"):
        apply(tmp_path, Plan(removals=(path,)), use_dir_fd=False)
