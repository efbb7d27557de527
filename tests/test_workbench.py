"""Tests for cafe/world/workbench.py: the till project, its real tools, and the scripted scenarios."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from cafe.endpoint.client.chat import make_client
from cafe.loop.agent import run_loop
from cafe.stall.verify import VerifyEntrypoint
from cafe.stories.scenarios import BILL_FIXES, SCENARIOS, edited_bill, scenario_replies
from cafe.world import workbench
from cafe.world.workbench import PROJECTS, Workbench, open_workbench, project_file

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def bench():
    with open_workbench() as workbench:
        yield workbench


def test_open_workbench_copies_the_till_into_a_fresh_git_repo(bench):
    assert (bench.root / "bill.py").read_text() == project_file("bill.py")
    assert (bench.root / "check_bill.py").is_file()
    log = subprocess.run(
        ["git", "log", "--oneline"], cwd=bench.root, capture_output=True, text=True
    ).stdout
    assert len(log.splitlines()) == 1 and "starting point" in log
    assert bench.changed_files() == () and bench.diff() == ""


def test_workbench_close_removes_the_folder():
    with open_workbench() as workbench:
        root = workbench.root
        assert root.is_dir()
    assert not root.exists()


def test_open_workbench_unknown_project_is_refused():
    assert PROJECTS == {"till"}
    with pytest.raises(ValueError, match="till"):
        open_workbench("kitchen")


def test_workbench_tools_have_the_right_kinds(bench):
    kinds = {t.name: t.kind for t in bench.tools}
    assert kinds == {
        "read_file": "observe",
        "write_file": "mutate",
        "run_tests": "verify",
        "todo": "observe",
    }
    assert bench.verify.name == "run_tests"
    write = next(t for t in bench.tools if t.name == "write_file").parameters
    assert write["required"] == ["path", "content"]


def test_run_tests_really_runs_pytest_and_fails_on_the_split_bug(bench):
    result = bench.run_tests()
    assert not result.ok
    assert "exit status 1" in result.text
    assert "E   assert 999 == 1000" in result.text
    assert "1 failed, 3 passed" in result.text
    assert str(bench.root) not in result.text  # no temporary path in the evidence


def test_run_tests_passes_after_the_real_fix(bench):
    assert bench.write_file("bill.py", edited_bill("divmod")).ok
    result = bench.run_tests()
    assert result.ok and "exit status 0" in result.text and "4 passed" in result.text
    assert bench.changed_files() == ("bill.py",)
    assert "divmod" in bench.diff()


@pytest.mark.parametrize(
    "fix, words",
    [
        ("round", "assert 999 == 1000"),
        ("int", "assert 999 == 1000"),
        ("comment", "assert 999 == 1000"),
        ("ceil", "assert 1002 == 1000"),
        ("plus_2", "assert 1005 == 1000"),
    ],
)
def test_wrong_fixes_fail_with_the_expected_words(bench, fix, words):
    bench.write_file("bill.py", edited_bill(fix))
    result = bench.run_tests()
    assert not result.ok and words in result.text


def test_edited_bill_unknown_fix_is_refused():
    assert set(BILL_FIXES) == {"round", "int", "comment", "ceil", "divmod"}
    with pytest.raises(ValueError, match="plus_N"):
        edited_bill("magic")


def test_read_file_returns_text_or_a_failure(bench):
    assert bench.read_file("bill.py").text == project_file("bill.py")
    missing = bench.read_file("menu.py")
    assert not missing.ok and "no file 'menu.py'" in missing.text


def test_file_tools_refuse_paths_outside_the_workbench(bench, tmp_path):
    assert not bench.read_file("../../etc/passwd").ok
    outside = tmp_path / "escape.py"
    refused = bench.write_file(str(outside), "x")
    assert not refused.ok and "outside the project" in refused.text
    assert not outside.exists()
    assert not bench.write_file("../escape.py", "x").ok
    assert not bench.write_file(".", "x").ok
    assert bench.changed_files() == ()


def test_todo_board_adds_marks_and_lists(bench):
    assert bench.todo("list") == "(the board is empty)"
    bench.todo("add", "fix the split")
    bench.todo("add", "tell the manager")
    board = bench.todo("done", "fix the split")
    assert board == "[x] fix the split\n[ ] tell the manager"
    assert "No open item" in bench.todo("done", "sweep the floor")
    assert [t.done for t in bench.todos] == [True, False]
    with pytest.raises(ValueError, match="action"):
        bench.todo("erase", "x")  # type: ignore[arg-type]


def test_scenarios_are_the_declared_closed_set():
    assert SCENARIOS == {
        "thrash",
        "same_turn_thrash",
        "productive",
        "edit_then_done",
        "retest_only",
        "varied_failures",
    }
    for name in SCENARIOS:
        replies = scenario_replies(name)  # type: ignore[arg-type]
        assert isinstance(replies[-1], str)  # every story ends with the agent claiming success
    with pytest.raises(ValueError, match="thrash"):
        scenario_replies("panic")  # type: ignore[arg-type]


def test_productive_scenario_fixes_the_till_through_the_loop(bench):
    client = make_client(scenario_replies("productive"))
    verifier = VerifyEntrypoint(bench.verify)
    result = run_loop(
        client,
        [{"role": "user", "content": "The split is wrong."}],
        bench.tools,
        before_finish=[verifier.before_finish],
        stop_reasons=verifier.stop_reasons,
        max_turns=10,
    )
    assert result.stop_reason == "done"
    outputs = [r.output for t in result.turns for r in t.dispatch if r.name == "run_tests"]
    assert "assert 999 == 1000" in outputs[0] and "assert 1002 == 1000" in outputs[1]
    assert "4 passed" in outputs[-1]
    assert bench.changed_files() == ("bill.py",)


def test_scenarios_are_deterministic_across_workbenches():
    def run_outputs() -> list[str]:
        with open_workbench() as workbench:
            client = make_client(scenario_replies("thrash", rounds=2))
            result = run_loop(
                client, [{"role": "user", "content": "fix"}], workbench.tools, max_turns=6
            )
        return [r.output.rsplit(" in ", 1)[0] for t in result.turns for r in t.dispatch]

    assert run_outputs() == run_outputs()


def test_course_test_run_never_collects_the_till_tests():
    """The course's own `pytest` collects only its `testpaths`, with pytest's default file names
    (no `python_files` of its own); the till sits outside those folders and names its tests
    `check_*.py`, which only the till's own pytest.ini collects. (A whole collection of the suite
    says the same in 20 s; these are the settings it depends on.)"""
    pyproject = (REPO / "pyproject.toml").read_text(encoding="utf-8")
    ini = pyproject.split("[tool.pytest.ini_options]", 1)[1].split("\n[", 1)[0]  # tomllib: 3.11+
    testpaths = re.search(r"^testpaths = \[(.*)\]$", ini, flags=re.M)
    assert testpaths is not None and "python_files" not in ini
    till = (REPO / "cafe" / "data" / "workbench" / "till").resolve()
    for folder in re.findall(r'"([^"]+)"', testpaths.group(1)):
        assert not till.is_relative_to((REPO / folder).resolve()), folder
    names = [path.name for path in till.rglob("*.py")]
    assert "check_bill.py" in names
    assert not [name for name in names if name.startswith("test_") or name.endswith("_test.py")]
    assert "python_files = check_*.py" in (till / "pytest.ini").read_text(encoding="utf-8")


def test_run_tests_ignores_the_callers_pytest_options(bench, monkeypatch):
    monkeypatch.setenv("PYTEST_ADDOPTS", "--nbval-lax")
    monkeypatch.setenv("PYTEST_PLUGINS", "nbval.plugin")
    result = bench.run_tests()
    assert "exit status 1" in result.text and "1 failed, 3 passed" in result.text


def test_run_tests_never_hands_the_api_key_to_the_projects_tests(bench, monkeypatch):
    secret = "sk-test-SECRET-workbench-0000"
    monkeypatch.setenv("CAFE_API_KEY", secret)
    monkeypatch.setenv("OPENAI_API_KEY", secret)
    check = bench.root / "check_bill.py"
    # What a model could write: a test that prints the whole environment.
    bench.write_file(
        "check_bill.py",
        check.read_text()
        + "\n\ndef test_env():\n    import os\n    print(os.environ)\n    assert False\n",
    )
    result = bench.run_tests()
    assert "test_env" in result.text  # the printing test really ran and failed
    assert secret not in result.text


def test_workbench_close_leaves_a_folder_it_did_not_make(tmp_path):
    project = tmp_path / "proj"
    project.mkdir()
    neighbour = tmp_path / "keep.txt"
    neighbour.write_text("mine")
    Workbench(project, "till").close()
    assert project.is_dir() and neighbour.read_text() == "mine"


def test_open_workbench_that_fails_leaves_no_temporary_folder(tmp_path, monkeypatch):
    def broken_git(root, *args):
        raise RuntimeError(f"git {' '.join(args)} failed in {root}: no space left")

    monkeypatch.setattr(workbench, "_git", broken_git)
    with pytest.raises(RuntimeError):
        open_workbench(parent=tmp_path)
    assert list(tmp_path.glob("cafe-workbench-*")) == []


@pytest.mark.skipif(sys.platform == "win32", reason="the hook is a POSIX shell script")
def test_changed_files_runs_no_filter_or_hook_the_agent_configured(tmp_path):
    marker = tmp_path / "ran.txt"
    with open_workbench() as bench:
        hook = tmp_path / "hook.sh"
        hook.write_text(f"#!/bin/sh\ntouch {marker}\nexit 1\n")
        hook.chmod(0o755)
        subprocess.run(["git", "config", "core.fsmonitor", str(hook)], cwd=bench.root, check=True)
        subprocess.run(
            ["git", "config", "filter.hide.clean", f"touch {marker}; cat"],
            cwd=bench.root,
            check=True,
        )
        (bench.root / ".git" / "info" / "attributes").write_text("*.py filter=hide\n")
        (bench.root / "bill.py").write_text("changed\n", encoding="utf-8")
        (bench.root / "new.py").write_text("new\n", encoding="utf-8")
        (bench.root / "pytest.ini").unlink()
        assert bench.changed_files() == ("bill.py", "new.py", "pytest.ini")
    assert not marker.exists()


def test_git_missing_is_a_runtime_error_naming_git(monkeypatch, tmp_path):
    with open_workbench() as bench:
        monkeypatch.setenv("PATH", str(tmp_path))
        with pytest.raises(RuntimeError, match="git"):
            bench.changed_files()
