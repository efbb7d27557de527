"""The tree sample (cafe/monitors/worktree.py): what it sees, and what it refuses to vouch for."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from cafe.monitors import worktree
from cafe.monitors.worktree import (
    ABSENT,
    RESTORE_DECLINES,
    TreeSample,
    blob_hash,
    changed_paths,
    head_hashes,
    read_regular,
    sample_tree,
)
from cafe.world.workbench import open_workbench

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="POSIX links and modes")


@pytest.fixture
def bench():
    with open_workbench() as opened:
        yield opened


def test_sample_of_a_clean_tree_has_no_files_and_every_entry_mode(bench):
    sample = sample_tree(bench.root)
    assert isinstance(sample, TreeSample) and dict(sample.files) == {}
    assert {"bill.py", "check_bill.py", "pytest.ini"} <= set(sample.modes)
    assert ".git" not in sample.modes and len(sample.head) == 40


def test_sample_files_are_content_that_differs_from_head(bench):
    (bench.root / "bill.py").write_bytes(b"changed\n")
    (bench.root / "pytest.ini").unlink()
    (bench.root / "notes").mkdir()
    (bench.root / "notes" / "a.txt").write_bytes(b"new\n")
    sample = sample_tree(bench.root)
    assert dict(sample.files) == {
        "bill.py": blob_hash(b"changed\n"),
        "pytest.ini": ABSENT,
        "notes/a.txt": blob_hash(b"new\n"),
    }
    assert "notes" in sample.modes


def test_sample_reads_bytes_not_git_filters_or_flags(bench):
    # a file git is told to ignore still changes the sample
    subprocess.run(
        ["git", "update-index", "--assume-unchanged", "bill.py"], cwd=bench.root, check=True
    )
    before = sample_tree(bench.root)
    (bench.root / "bill.py").write_bytes(b"hidden from git status\n")
    after = sample_tree(bench.root)
    assert changed_paths(before, after) == {"bill.py"}


@posix_only
def test_changed_paths_sees_a_mode_change_alone(bench):
    before = sample_tree(bench.root)
    (bench.root / "bill.py").chmod(0o700)
    assert changed_paths(before, sample_tree(bench.root)) == {"bill.py"}


def test_sample_declines_outside_a_repository_and_below_its_top(tmp_path, bench):
    assert sample_tree(tmp_path) == "not_a_repository"
    assert sample_tree(tmp_path / "missing") == "not_a_repository"
    (bench.root / "sub").mkdir()
    assert sample_tree(bench.root / "sub") == "not_top_level"


def test_sample_declines_without_git(bench, monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    assert sample_tree(bench.root) == "git_unavailable"
    assert head_hashes(bench.root) == "git_unavailable"


def test_sample_declines_a_nested_repository(bench):
    (bench.root / "vendor" / ".git").mkdir(parents=True)
    assert sample_tree(bench.root) == "nested_repository"


@posix_only
def test_sample_declines_a_link_out_of_the_tree_but_not_one_inside(bench, tmp_path):
    (bench.root / "alias.py").symlink_to("bill.py")
    assert isinstance(sample_tree(bench.root), TreeSample)
    (bench.root / "out").symlink_to(tmp_path)
    assert sample_tree(bench.root) == "link_outside_tree"


def test_sample_declines_a_tree_past_its_limits(bench, monkeypatch):
    monkeypatch.setattr(worktree, "MAX_SAMPLE_ENTRIES", 2)
    assert sample_tree(bench.root) == "tree_too_large"
    monkeypatch.setattr(worktree, "MAX_SAMPLE_ENTRIES", 1000)
    monkeypatch.setattr(worktree, "MAX_SAMPLE_BYTES", 10)
    assert sample_tree(bench.root) == "tree_too_large"


def test_sample_ignores_git_variables_of_the_caller(bench, monkeypatch, tmp_path):
    monkeypatch.setenv("GIT_DIR", str(tmp_path))  # would point git somewhere else entirely
    assert isinstance(sample_tree(bench.root), TreeSample)


def test_settings_digest_moves_with_git_config_and_info(bench):
    before = sample_tree(bench.root)
    with open(bench.root / ".git" / "info" / "exclude", "a") as exclude:
        exclude.write("notes.py\n")
    assert sample_tree(bench.root).settings != before.settings


@posix_only
def test_read_regular_refuses_links_and_fifos(tmp_path):
    (tmp_path / "a").write_bytes(b"x")
    (tmp_path / "link").symlink_to(tmp_path / "a")
    os.mkfifo(tmp_path / "pipe")
    assert read_regular(tmp_path / "a") == b"x"
    assert read_regular(tmp_path / "link") is None and read_regular(tmp_path / "pipe") is None
    assert read_regular(tmp_path / "missing") is None


def test_decline_reasons_are_one_closed_set():
    assert "uncaptured_change" in RESTORE_DECLINES and len(RESTORE_DECLINES) == 16
