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


# What git 2.39 prints for a repository another user owns; a git in another language prints it
# translated unless the locale is C (the fake below does the same).
_DUBIOUS = (
    "fatal: detected dubious ownership in repository at '{root}'\n"
    "To add an exception for this directory, call:\n\n"
    "\tgit config --global --add safe.directory {root}\n"
)
_DUBIOUS_DE = "fatal: unsicherer Besitz des Repositorys in '{root}' erkannt\n"


def _fake_git(folder, stderr_c: str, stderr_other: str):
    """A `git` on PATH that refuses every command as git does (exit 128): `stderr_c` when the
    locale is C, `stderr_other` otherwise. Faked, since only root could chown a real tree."""
    folder.mkdir()
    script = folder / "git"
    script.write_text(
        "#!/bin/sh\n"
        'if [ "$LC_ALL" = C ]; then printf %s "$C_TEXT" >&2; else printf %s "$OTHER_TEXT" >&2; fi\n'
        "exit 128\n",
        encoding="utf-8",
    )
    script.chmod(0o755)
    return {"PATH": str(folder), "C_TEXT": stderr_c, "OTHER_TEXT": stderr_other}


@posix_only
def test_a_repository_git_calls_another_users_is_not_trusted_not_missing(
    bench, monkeypatch, tmp_path
):
    """Red team G, A25: a bind-mounted tree owned by another uid was declined
    `not_a_repository`, which points the user the wrong way. git's refusal names the cause."""
    root = str(bench.root)
    env = _fake_git(tmp_path / "bin", _DUBIOUS.format(root=root), _DUBIOUS_DE.format(root=root))
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("LC_ALL", "de_DE.UTF-8")  # the sample asks git for its English words
    assert sample_tree(bench.root) == "repository_not_trusted"
    assert head_hashes(bench.root) == "repository_not_trusted"


@posix_only
def test_any_other_refusal_of_git_is_not_a_repository(bench, monkeypatch, tmp_path):
    refusal = "fatal: not a git repository (or any of the parent directories): .git\n"
    for name, value in _fake_git(tmp_path / "bin", refusal, refusal).items():
        monkeypatch.setenv(name, value)
    assert sample_tree(bench.root) == "not_a_repository"


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
    assert "uncaptured_change" in RESTORE_DECLINES and len(RESTORE_DECLINES) == 18
    assert "repository_not_trusted" in RESTORE_DECLINES
