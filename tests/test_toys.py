"""Every session's toy runs offline with no arguments, succeeds, and prints the same thing twice;
live, against `cafe serve`, no toy ever prints the API key, whether the server takes it or not.

The offline runs start a fresh interpreter each time, under two hash seeds, the run's and the
next one (so an output that depends on set order shows up as a difference; the suite otherwise
hands every subprocess the run's one PYTHONHASHSEED). The live checks are about what a toy prints,
so they run the toy's file as `__main__` in this process (`_run_toy_here`), with the environment
set and both output streams captured at the file-descriptor level: the same check without paying
0.8 s of interpreter and SDK start-up 48 times.
"""

import os
import runpy
import subprocess
import sys
from pathlib import Path
from typing import NamedTuple

import pytest

from cafe.endpoint.client.scripted import Script
from cafe.endpoint.server.serve import running_server

ROOT = Path(__file__).resolve().parents[1]
TOYS = sorted(ROOT.glob("sessions/s[0-9][0-9]-*/toy.py"))


def _toy_process(path: Path, home: Path, hash_seed: str) -> subprocess.Popen:
    """`python toy.py`, offline, started (not waited for), with `home` as its CAFE_HOME: a toy run
    by a test reads and writes there, never in your own ~/.cafe, where the notebooks run by other
    workers bank checkpoints."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("COURSE_MODE", "CAFE_BASE_URL", "CAFE_API_KEY", "CAFE_MODEL")
    }
    env["CAFE_HOME"] = str(home)
    env["PYTHONHASHSEED"] = hash_seed
    return subprocess.Popen(
        [sys.executable, str(path)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
        cwd=ROOT,
    )


def _finished(process: subprocess.Popen) -> subprocess.CompletedProcess:
    try:
        out, err = process.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()
        out, err = process.communicate()
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


def _run_toy(path: Path, home: Path, hash_seed: str) -> subprocess.CompletedProcess:
    return _finished(_toy_process(path, home, hash_seed))


class ToyRun(NamedTuple):
    returncode: int
    stdout: str
    stderr: str


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


@pytest.mark.parametrize("toy", TOYS, ids=[p.parent.name for p in TOYS])
def test_toy_runs_offline_and_is_deterministic(toy, tmp_path):
    # The two runs go side by side (half the wait), each with a home of its own, under two hash
    # seeds.
    run_seed = int(os.environ.get("PYTHONHASHSEED") or "1")
    started = [
        _toy_process(toy, tmp_path / "first", hash_seed=str(run_seed)),
        _toy_process(toy, tmp_path / "second", hash_seed=str(run_seed % (2**32 - 1) + 1)),
    ]
    first, second = (_finished(process) for process in started)
    # each run names its own home where it writes (session 09's traces): the one allowed difference
    outputs = [
        run.stdout.replace(str(tmp_path / name), "<home>")
        for run, name in ((first, "first"), (second, "second"))
    ]
    assert first.returncode == 0, (
        f"{toy.parent.name}/toy.py failed:\n{first.stdout}\n{first.stderr}"
    )
    assert first.stdout.strip(), f"{toy.parent.name}/toy.py printed nothing"
    assert outputs[1] == outputs[0], (
        f"{toy.parent.name}/toy.py printed something different on a second run"
    )


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


def test_s00_toy_offline_shows_the_scripted_tool_call(tmp_path):
    out = _run_toy(ROOT / "sessions" / "s00-setup" / "toy.py", tmp_path, hash_seed="1").stdout
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
