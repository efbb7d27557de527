"""The restore gate (cafe/monitors/snapshots.py), against real git work trees: one test per rule."""

from __future__ import annotations

import subprocess

import pytest

from cafe.monitors import snapshots
from cafe.monitors.snapshots import (
    AT_HEAD,
    UNCAPTURABLE,
    SnapshotStore,
    can_restore,
    fingerprint,
    mutated_since,
    restore,
)
from cafe.monitors.worktree import ABSENT, blob_hash, sample_tree
from cafe.world.workbench import open_workbench


@pytest.fixture
def bench():
    with open_workbench() as opened:
        yield opened


def harness_write(bench, store: SnapshotStore, path: str, text: str) -> None:
    """What the monitored edit tool does: capture, then write."""
    store.capture(bench.root, path)
    (bench.root / path).write_text(text, encoding="utf-8")


def test_fingerprint_outside_a_repository_is_none(tmp_path):
    (tmp_path / "bill.py").write_text("x = 1\n", encoding="utf-8")
    assert fingerprint(tmp_path) is None


def test_fingerprint_lists_changed_new_and_deleted_files_with_git_hashes(bench):
    (bench.root / "bill.py").write_text("changed\n", encoding="utf-8")
    (bench.root / "notes" / "a.txt").parent.mkdir()
    (bench.root / "notes" / "a.txt").write_text("new\n", encoding="utf-8")
    (bench.root / "pytest.ini").unlink()
    found = fingerprint(bench.root)
    git_hash = subprocess.run(
        ["git", "hash-object", "bill.py"], cwd=bench.root, capture_output=True, text=True
    )
    assert dict(found) == {
        "bill.py": git_hash.stdout.strip(),
        "notes/a.txt": blob_hash(b"new\n"),
        "pytest.ini": ABSENT,
    }


def test_fingerprint_of_a_clean_tree_is_empty(bench):
    assert dict(fingerprint(bench.root)) == {}


@pytest.mark.parametrize(
    "green, now, mutated",
    [
        ({}, {}, set()),
        ({"a": "h1"}, {"a": "h1"}, set()),
        ({"a": "h1"}, {"a": "h2"}, {"a"}),
        ({}, {"b": "h1"}, {"b"}),
        ({"c": "h1"}, {}, {"c"}),
        ({"d": ABSENT}, {"d": ABSENT}, set()),
    ],
)
def test_mutated_since_is_anything_changed_added_or_removed(green, now, mutated):
    assert mutated_since(green, now) == mutated


@pytest.mark.parametrize(
    "green, now, captured, allowed",
    [
        (None, {}, {}, False),  # not a repository at green
        ({}, None, {}, False),  # not a repository at the abort
        ({}, {}, {}, True),  # nothing changed: nothing to put back
        ({}, {"bill.py": "h2"}, {"bill.py": AT_HEAD}, True),  # harness edit of a clean file
        (
            {"bill.py": "h1"},
            {"bill.py": "h2"},
            {"bill.py": "h1"},
            True,
        ),  # harness edit of a green edit
        (
            {},
            {"bill.py": "h2", "check_bill.py": "h3"},
            {"bill.py": AT_HEAD},
            False,
        ),  # one uncaptured file
        (
            {"bill.py": "h1"},
            {"bill.py": "h2"},
            {"bill.py": "h0"},
            False,
        ),  # capture is not the green content
        (
            {},
            {"new.py": "h1"},
            {"new.py": AT_HEAD},
            True,
        ),  # created by the harness (absent at HEAD too)
        (
            {"gone.py": ABSENT},
            {"gone.py": "h1"},
            {"gone.py": ABSENT},
            True,
        ),  # deleted at green, then re-created
        (
            {"old.txt": "h9"},
            {"old.txt": "h9", "bill.py": "h2"},
            {"bill.py": AT_HEAD},
            True,
        ),  # dirty work unchanged
    ],
)
def test_can_restore_only_when_every_mutated_path_can_be_put_back(green, now, captured, allowed):
    assert can_restore(green, now, captured) is allowed


def test_restore_puts_harness_edits_back_to_the_green_tree(bench):
    store = SnapshotStore()
    harness_write(bench, store, "bill.py", "green version\n")
    at_green, mark = sample_tree(bench.root), store.mark()
    harness_write(bench, store, "bill.py", "broken version\n")
    harness_write(bench, store, "helper.py", "new file\n")
    outcome = restore(bench.root, at_green, store, mark)
    assert outcome.restored == ("bill.py", "helper.py") and outcome.declined is None
    assert (bench.root / "bill.py").read_text() == "green version\n" and not (
        bench.root / "helper.py"
    ).exists()
    assert sample_tree(bench.root) == at_green


def test_restore_declines_a_shell_side_edit_and_touches_nothing(bench):
    store = SnapshotStore()
    harness_write(bench, store, "bill.py", "green version\n")
    at_green, mark = sample_tree(bench.root), store.mark()
    harness_write(bench, store, "bill.py", "broken version\n")
    subprocess.run(["sed", "-i", "s/1000/1001/", "check_bill.py"], cwd=bench.root, check=True)
    before = sample_tree(bench.root)
    outcome = restore(bench.root, at_green, store, mark)
    assert (outcome.restored, outcome.declined, outcome.path) == (
        (),
        "uncaptured_change",
        "check_bill.py",
    )
    assert (
        sample_tree(bench.root) == before
        and (bench.root / "bill.py").read_text() == "broken version\n"
    )


def test_restore_declines_a_file_a_redirect_created(bench):
    store = SnapshotStore()
    at_green, mark = sample_tree(bench.root), store.mark()
    harness_write(bench, store, "bill.py", "broken\n")
    (bench.root / "notes.txt").write_text("scratch\n", encoding="utf-8")  # as `echo >` would
    assert restore(bench.root, at_green, store, mark).declined == "uncaptured_change"
    assert (bench.root / "notes.txt").exists() and (
        bench.root / "bill.py"
    ).read_text() == "broken\n"


def test_restore_declines_when_the_shell_edited_a_file_before_the_harness_captured_it(bench):
    store = SnapshotStore()
    at_green, mark = sample_tree(bench.root), store.mark()
    subprocess.run(["sed", "-i", "s/share/part/", "bill.py"], cwd=bench.root, check=True)
    harness_write(
        bench, store, "bill.py", "broken\n"
    )  # its capture holds the sed's version, not green's
    assert restore(bench.root, at_green, store, mark).declined == "uncaptured_change"


def test_restore_leaves_work_that_was_dirty_before_the_run_alone(bench):
    (bench.root / "pytest.ini").write_text(
        "[pytest]\n# the owner's own uncommitted change\n", encoding="utf-8"
    )
    (bench.root / "scratch.txt").write_text("mine\n", encoding="utf-8")
    store = SnapshotStore()
    at_green, mark = sample_tree(bench.root), store.mark()
    harness_write(bench, store, "bill.py", "broken\n")
    assert restore(bench.root, at_green, store, mark).restored == ("bill.py",)
    assert (
        "owner's own" in (bench.root / "pytest.ini").read_text()
        and (bench.root / "scratch.txt").exists()
    )


def test_restore_declines_outside_a_repository(tmp_path):
    store = SnapshotStore()
    store.capture(tmp_path, "bill.py")
    (tmp_path / "bill.py").write_text("broken\n", encoding="utf-8")
    assert sample_tree(tmp_path) == "not_a_repository"
    assert restore(tmp_path, sample_tree(tmp_path), store, 0).declined == "not_a_repository"
    assert (tmp_path / "bill.py").read_text() == "broken\n"


def test_blob_hash_matches_git_hash_object(bench):
    data = (bench.root / "bill.py").read_bytes()
    git_hash = subprocess.run(
        ["git", "hash-object", "bill.py"], cwd=bench.root, capture_output=True, text=True
    )
    assert blob_hash(data) == git_hash.stdout.strip() and blob_hash(None) == ABSENT


def test_restore_refuses_a_fingerprint_where_a_sample_belongs(bench):
    with pytest.raises(TypeError, match="sample_tree"):
        restore(bench.root, {"bill.py": "h"}, SnapshotStore(), 0)


def test_restore_declines_when_nothing_changed_since_green(bench):
    store = SnapshotStore()
    at_green = sample_tree(bench.root)
    assert restore(bench.root, at_green, store, 0).declined == "nothing_to_restore"
    assert restore(bench.root, None, store, 0).declined == "no_green_point"
    assert restore(bench.root, "nested_repository", store, 0).declined == "nested_repository"


def test_restore_that_fails_before_writing_is_an_io_error_and_changes_nothing(bench, monkeypatch):
    store = SnapshotStore()
    at_green, mark = sample_tree(bench.root), store.mark()
    harness_write(bench, store, "bill.py", "broken\n")

    def refuse(root, plan, **options):
        raise PermissionError("read-only folder")

    monkeypatch.setattr(snapshots, "apply", refuse)
    outcome = restore(bench.root, at_green, store, mark)
    assert outcome.declined == "io_error" and outcome.restored == ()
    assert (bench.root / "bill.py").read_text() == "broken\n"


def test_restore_that_cannot_confirm_its_writes_never_claims_success(bench, monkeypatch):
    store = SnapshotStore()
    at_green, mark = sample_tree(bench.root), store.mark()
    harness_write(bench, store, "bill.py", "broken\n")

    def half(root, plan, **options):
        (bench.root / "bill.py").write_text("neither green nor broken\n")
        raise OSError("disk full")

    monkeypatch.setattr(snapshots, "apply", half)
    outcome = restore(bench.root, at_green, store, mark)
    assert outcome.declined == "restore_unverified" and outcome.restored == ("bill.py",)


def test_capture_of_a_link_or_folder_is_never_restorable(bench, tmp_path):
    store = SnapshotStore()
    (bench.root / "folder").mkdir()
    store.capture(bench.root, "folder")
    store.capture(bench.root, "missing.py")
    captured = store.restorable(bench.root, 0)
    assert captured["folder"] == UNCAPTURABLE and captured["missing.py"] == AT_HEAD
    assert not store.first_since(0)["folder"].is_file
