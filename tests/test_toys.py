"""Every session's toy runs offline with no arguments, succeeds, and prints its stored output;
live, against `cafe serve`, no toy ever prints the API key, whether the server takes it or not.

The offline run starts a fresh interpreter under the run's hash seed, once per toy, and compares
what it printed with `tests/data/toy_outputs.json` (`tools/toy_outputs.py` writes it from two runs
under two hash seeds of their own, and refuses if they differ). That is the determinism check two
runs side by side made, and more: each run of the suite brings a new hash seed (conftest.py), so an
output that depends on set order, the clock or the machine differs from the stored text sooner or
later, and so does one changed by accident. Tests that read a toy's offline output share the one
run (`offline_run`). The live checks are about what a toy prints, so they run the toy's file as
`__main__` in this process (`_run_toy_here`), with the environment set and both output streams
captured at the file-descriptor level: the same check without paying 0.8 s of interpreter and SDK
start-up 48 times.
"""

import os
import runpy
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from cafe.endpoint.client.scripted import Script
from cafe.endpoint.server.serve import running_server

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

from toy_outputs import TOYS, difference, finished, load_outputs, output_lines, start_toy  # noqa: E402

STORED = load_outputs()


class ToyRun(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


class OfflineRun(NamedTuple):
    """A toy run offline: its exit code and output, and its output as stored (`output_lines`)."""

    returncode: int
    stdout: str
    stderr: str
    lines: list[str]


@pytest.fixture(scope="module")
def offline_run(tmp_path_factory: pytest.TempPathFactory) -> Callable[[Path], OfflineRun]:
    """`python toy.py` offline, in a fresh interpreter under the run's hash seed, with a home of
    its own; run once per toy for all the tests of this file that read its offline output."""
    runs: dict[Path, OfflineRun] = {}

    def run(toy: Path) -> OfflineRun:
        if toy not in runs:
            home = tmp_path_factory.mktemp(toy.parent.name[:3]) / "home"
            done = finished(start_toy(toy, home))
            lines = output_lines(done.stdout, home)
            runs[toy] = OfflineRun(done.returncode, done.stdout, done.stderr, lines)
        return runs[toy]

    return run


def _run_toy_here(
    path: Path,
    env: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
    capfd: pytest.CaptureFixture[str],
) -> ToyRun:
    """Run the toy's file as `python toy.py` would (as `__main__`, no arguments, `env` exactly)."""
    for name in list(os.environ):
        if name not in env:
            monkeypatch.delenv(name)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(sys, "argv", [str(path)])
    monkeypatch.chdir(ROOT)
    capfd.readouterr()  # start from nothing
    try:
        runpy.run_path(str(path), run_name="__main__")
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
    out, err = capfd.readouterr()
    return ToyRun(code, out, err)


def _live_env(
    home: Path, base_url: str | None = None, key: str | None = None, model: str = "cafe-scripted"
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_") or k == "CAFE_HEADLESS"}
    env.update(COURSE_MODE="live", CAFE_HOME=str(home))
    if base_url is not None:
        env.update({"CAFE_BASE_URL": base_url, "CAFE_API_KEY": key or "", "CAFE_MODEL": model})
    return env


def test_there_are_toys():
    assert TOYS, "no sessions/sNN-*/toy.py found"


def test_toy_outputs_are_stored_for_exactly_the_toys():
    assert sorted(STORED) == [toy.parent.name for toy in TOYS], (
        "tests/data/toy_outputs.json should hold one entry per sessions/sNN-*/toy.py: run "
        "`python tools/toy_outputs.py --write`"
    )


@pytest.mark.parametrize("toy", TOYS, ids=[p.parent.name for p in TOYS])
def test_toy_runs_offline_and_prints_its_stored_output(toy, offline_run):
    """Deterministic as two fresh runs under two hash seeds would show, and unchanged: see the
    module docstring for why one run against the stored text checks both."""
    run = offline_run(toy)
    assert run.returncode == 0, f"{toy.parent.name}/toy.py failed:\n{run.stdout}\n{run.stderr}"
    assert run.stdout.strip(), f"{toy.parent.name}/toy.py printed nothing"
    stored = STORED.get(toy.parent.name)
    assert run.lines == stored, difference(toy.parent.name, stored, run.lines)


@pytest.mark.parametrize("toy", TOYS, ids=[p.parent.name for p in TOYS])
def test_toy_in_live_mode_without_settings_says_which_variable_is_missing(
    toy, tmp_path, monkeypatch, capfd
):
    result = _run_toy_here(toy, _live_env(tmp_path), monkeypatch, capfd)
    assert result.returncode != 0
    assert "CAFE_BASE_URL" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr, (
        f"{toy.parent.name}/toy.py crashed instead of explaining:\n{result.stderr}"
    )


# A distinctive key: if any of it shows up in a toy's output, a code path printed it.
KEY = "sk-toy-SECRET-5f3a9c1e7b2d4680"


def _run_toy_live(
    path: Path, home: Path, base_url: str, key: str, model: str = "cafe-scripted"
) -> subprocess.CompletedProcess:
    env = _live_env(home, base_url, key, model)
    return subprocess.run(
        [sys.executable, str(path)], capture_output=True, text=True, env=env, cwd=ROOT, timeout=300
    )


@pytest.mark.parametrize("toy", TOYS, ids=[p.parent.name for p in TOYS])
def test_toy_live_against_cafe_serve_never_prints_the_key(toy, tmp_path, monkeypatch, capfd):
    with running_server(api_key=KEY) as server:
        accepted = _run_toy_here(toy, _live_env(tmp_path, server.base_url, KEY), monkeypatch, capfd)
        refused = _run_toy_here(
            toy,
            _live_env(tmp_path, server.base_url, "sk-wrong-SECRET-00000000"),
            monkeypatch,
            capfd,
        )
    for run in (accepted, refused):
        text = run.stdout + run.stderr
        assert KEY not in text and "SECRET" not in text, (
            f"{toy.parent.name}/toy.py printed the key:\n{text}"
        )
        assert "Traceback" not in run.stderr, (
            f"{toy.parent.name}/toy.py crashed live:\n{run.stderr}"
        )
    assert refused.returncode != 0, f"{toy.parent.name}/toy.py exited 0 though the key was refused"
    assert "CAFE_API_KEY" in refused.stdout + refused.stderr


def test_s00_toy_offline_shows_the_scripted_tool_call(offline_run):
    out = offline_run(ROOT / "sessions" / "s00-setup" / "toy.py").stdout
    assert 'answer:    a tool call: add_item {"item": "latte"}' in out
    assert "mode:      offline" in out


def test_s00_toy_live_against_another_model_says_your_model_chose(tmp_path):
    script = Script(
        [{"tool_calls": [{"name": "add_item", "arguments": {"item": "latte"}}]}],
        models=["my-model"],
    )
    with running_server(script, api_key=KEY) as server:
        done = _run_toy_live(
            ROOT / "sessions" / "s00-setup" / "toy.py",
            tmp_path,
            server.base_url,
            KEY,
            model="my-model",
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "(your model chose this reply)" in done.stdout
    assert "cafe serve" not in done.stdout.split("answer:", 1)[1].split("next:", 1)[0]


def test_s00_toy_live_sends_the_request_to_the_endpoint(tmp_path):
    with running_server(api_key=KEY) as server:
        done = _run_toy_live(
            ROOT / "sessions" / "s00-setup" / "toy.py", tmp_path, server.base_url, KEY
        )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"mode:      live (model cafe-scripted at {server.base_url})" in done.stdout
    assert 'add_item {"item": ""}' in done.stdout
    assert (
        "(This is cafe serve's default rule, not a model" in done.stdout
    )  # not "your model chose"
    assert "smallest valid arguments" in done.stdout and "--session 00" in done.stdout
    assert "--script FILE" not in done.stdout  # session 00 has a rehearsal script: name it
    assert "your model chose" not in done.stdout
    (request,) = server.requests  # the script is ignored live: the endpoint answered
    assert request["messages"][-1] == {"role": "user", "content": "A latte, please."}
    assert request["tools"][0]["function"]["name"] == "add_item"


@pytest.mark.parametrize("toy", TOYS, ids=[p.parent.name for p in TOYS])
def test_toy_ends_through_run_command_so_a_closed_pipe_is_quiet(toy):
    assert "run_command(main)" in toy.read_text(encoding="utf-8"), (
        f"{toy.parent.name}/toy.py should end with `raise SystemExit(run_command(main))` (cafe.cli.run_command), "
        "so `python toy.py | head -2` ends without a BrokenPipeError traceback"
    )


def test_toy_piped_into_a_reader_that_stops_early_ends_without_a_traceback():
    # As `python sessions/s01-agent-loop/toy.py | head -1` does: read a line, close the pipe.
    toy = next(path for path in TOYS if path.parent.name.startswith("s01-"))
    process = subprocess.Popen(
        [sys.executable, str(toy)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
        env={**os.environ, "COURSE_MODE": "offline"},
    )
    process.stdout.readline()
    process.stdout.close()
    _, err = process.communicate(timeout=120)
    assert b"Traceback" not in err and b"BrokenPipeError" not in err, err.decode()
    assert process.returncode in (0, 141)  # 141: stopped by the closed pipe, as a shell reports it


PROSE = "I would fix the till by checking the rounding."  # never a tool call
PROSE_ONLY = {
    "s13-stall-detection": "had no failures to compare",
    "s14-host-facts": "its time went on nothing the governor could",
    "s15-run-monitors": "so the monitors had nothing to watch",
}


@pytest.mark.parametrize("folder", sorted(PROSE_ONLY))
def test_toys_13_to_15_live_say_plainly_when_the_model_called_no_tool(
    folder, tmp_path, monkeypatch, capfd
):
    """A small model (SmolLM2 through `cafe local`) answers in prose and never calls a tool: the
    toy says what that leaves unshown rather than let its ending stand alone."""
    toy = ROOT / "sessions" / folder / "toy.py"
    with running_server(Script([PROSE], cycle=True)) as server:
        run = _run_toy_here(toy, _live_env(tmp_path, server.base_url, KEY), monkeypatch, capfd)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "called no tool" in run.stdout and PROSE_ONLY[folder] in run.stdout, run.stdout


def test_stored_output_reads_the_machines_figures_as_placeholders(tmp_path):
    """A fresh clone's venv made session 13's toy quote 670 characters of pytest output where the
    working copy's quoted 633: the figure is the machine's, so it is stored as a placeholder."""
    printed = f"saved in {tmp_path}\n(current_failure, 633 characters of the output)\n"
    assert output_lines(printed, tmp_path) == [
        "saved in <home>",
        "(current_failure, <n> characters of the output)",
    ]
