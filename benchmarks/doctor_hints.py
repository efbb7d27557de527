"""Apply every `cafe doctor` hint that is a command, as printed, and see whether the doctor then passes.

    python benchmarks/doctor_hints.py                     # every scenario that needs no `cafe local`
    python benchmarks/doctor_hints.py --only speed-local  # the scenarios so named
    python benchmarks/doctor_hints.py --local-venv /tmp/llvenv   # adds the `cafe local` scenarios
    python benchmarks/doctor_hints.py --json out.json     # also write the rows as JSON

Issue 38: "fixes that fix (a test per hint: apply the hint in a fresh venv and the check passes)".
The tests read the hints (tests/test_health_setup.py checks each install command against
pyproject.toml); this script applies them. Each scenario makes one failing condition (a bad
setting, a missing package in a fresh venv, no server, a model name the server does not list, a
deadline too short for the model), runs `cafe doctor` in a subprocess, takes the first failed
check, picks the command its line prints between backticks, applies it exactly as printed, and
runs the doctor again, up to `MAX_STEPS` times. How a command is applied:

    export ...        run by bash with the scenario's environment; the environment bash ends with
                      is the next run's
    pip install ...   run by bash in the scenario's venv, from the course checkout (as the hints say)
    cafe serve/local  started in the background ("in another terminal"); the `export` lines it
                      prints are applied as above; stopped at the end of the scenario
    cafe doctor ...   the next doctor run gets these arguments
    anything else     not applied (`sudo apt-get ...` would change the shared machine): reported

It is a benchmark, not a test: it creates venvs and installs packages (about a minute each from a
local index), and the `cafe local` scenarios need the [local] extra. It asserts nothing and exits
0 when every scenario ended with the doctor passing, 1 otherwise. Every server it starts listens
on 127.0.0.1. POSIX only (bash, process groups).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import json
import os
import platform
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

# The course checkout this script belongs to: "from the course checkout" in the pip hints.
ROOT = Path(__file__).resolve().parent.parent
# Hints followed, at most, in one scenario before it counts as not fixed.
MAX_STEPS = 6
# Seconds one doctor run may take: against `cafe local` the speed probe alone can take a minute.
DOCTOR_S = 600.0
# Seconds a background server may take to print its lines to copy (`cafe local` loads a model).
SERVER_START_S = 300.0
# The port of the `cafe serve` a scenario's settings point at (the hints' own `cafe serve` takes
# its default, 8000, as a learner's would).
SERVE_PORT = 8017
# `cafe local`'s port for the speed scenario (its default, 8011, may be serving the notebooks).
LOCAL_PORT = 8019
# A failed check's line and its fix line, as `cafe.endpoint.doctor.checks.ReportWriter` prints them.
FAILED = re.compile(r"^  \[FAIL\] (.{18}) (.*)$")
FIX = re.compile(r"^ {9}\s*fix: (.*)$")
# A command a hint prints between backticks.
QUOTED = re.compile(r"`([^`]+)`")
# The commands this script knows how to apply, by their opening words.
APPLIED = ("export ", "pip install", "cafe serve", "cafe local", "cafe doctor ")


@dataclass
class Step:
    """One doctor run: the check that failed first (None: all passed), and the command applied."""

    failed: str | None
    command: str | None = None
    how: str = ""


@dataclass
class Outcome:
    """A scenario's whole story: its steps and whether the doctor passed at the end."""

    name: str
    condition: str
    steps: list[Step] = field(default_factory=list)
    passed: bool = False
    note: str = ""


@dataclass
class Scenario:
    """A failing condition: the environment and doctor arguments that make it, and which of a
    hint's commands to prefer (the first command starting with one of `prefer`, else the first
    command this script can apply)."""

    name: str
    condition: str
    env: dict[str, str]
    args: list[str] = field(default_factory=list)
    prefer: tuple[str, ...] = ()
    venv: str = ""  # "" = the venv running this script; "fresh" = a new one (see `fresh_venv`)
    prepare: Callable[[Path], None] | None = None  # run in the scenario's venv before the first run
    serve: list[str] | None = None  # `cafe serve` arguments: a server CAFE_BASE_URL points at
    url_path: str = "/v1"  # the path CAFE_BASE_URL gives that server


def free(port: int) -> bool:
    with socket.socket() as sock:
        return sock.connect_ex(("127.0.0.1", port)) != 0


def base_env(home: Path, venv: Path) -> dict[str, str]:
    """A learner's shell: this venv first on PATH, its own HOME, and no settings file."""
    return {
        "PATH": f"{venv / 'bin'}:/usr/local/bin:/usr/bin:/bin",
        "HOME": str(home),
        "VIRTUAL_ENV": str(venv),
        "CAFE_ENV_FILE": "",  # no .env: the scenario's settings are all there is
        "LANG": "C.UTF-8",
    }


def run_doctor(env: dict[str, str], args: list[str], cwd: Path) -> tuple[str | None, str, str]:
    """(the first failed check or None, its detail, its fix) from one `cafe doctor` run."""
    done = subprocess.run(
        ["cafe", "doctor", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=DOCTOR_S,
    )
    lines = done.stdout.splitlines()
    for number, line in enumerate(lines):
        failed = FAILED.match(line)
        if failed:
            fix = FIX.match(lines[number + 1]) if number + 1 < len(lines) else None
            return failed.group(1).strip(), failed.group(2), fix.group(1) if fix else ""
    if done.returncode != 0:
        return "(doctor exit)", done.stdout[-300:] + done.stderr[-300:], ""
    return None, "", ""


def choose(detail: str, fix: str, prefer: tuple[str, ...]) -> str | None:
    """The command to apply from a failed check's detail and fix: see `Scenario`."""
    commands = [c.strip() for c in QUOTED.findall(detail + " " + fix)]
    commands = [c for c in commands if c != "cafe doctor"]  # "run `cafe doctor` again" is the rerun
    for start in (*prefer, *APPLIED):
        for command in commands:
            if command.startswith(start):
                return command
    return commands[0] if commands else None


def bash_env(command: str, env: dict[str, str], cwd: Path) -> dict[str, str]:
    """The environment after bash runs `command` (an `export`, or a `pip install`)."""
    done = subprocess.run(
        # the command's own output goes to stderr, so that stdout holds only the environment
        ["bash", "-c", f"{{ {command}\n}} 1>&2; status=$?; env -0; exit $status"],
        env=env,
        cwd=cwd,
        capture_output=True,
        timeout=1800,
    )
    if done.returncode != 0:
        raise RuntimeError(f"`{command}` exited {done.returncode}: {done.stderr.decode()[-400:]}")
    pairs = (item.split("=", 1) for item in done.stdout.decode().split("\0") if "=" in item)
    return {name: value for name, value in pairs if not name.startswith(("BASH", "SHLVL", "_"))}


def start_server(command: str, env: dict[str, str], cwd: Path) -> tuple[subprocess.Popen, str]:
    """Start `command` in its own process group; (the process, the `export` lines it printed)."""
    process = subprocess.Popen(
        ["bash", "-c", f"exec {command}"],
        env=env,
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    exports: list[str] = []
    deadline = time.monotonic() + SERVER_START_S
    assert process.stdout is not None
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            raise RuntimeError(f"`{command}` ended before printing its lines: {exports}")
        if line.strip().startswith("export "):
            exports.append(line.split("#")[0].strip())
        elif exports:  # the block of lines to copy has ended
            break
    return process, "\n".join(exports)


def stop(process: subprocess.Popen) -> None:
    if process.poll() is None:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def fresh_venv(where: Path) -> Path:
    """A new venv with the course installed as `pip install -e .` installs it: no extras."""
    venv = where / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    subprocess.run(
        [str(venv / "bin" / "pip"), "install", "-q", "-e", str(ROOT)],
        check=True,
        capture_output=True,
    )
    return venv


def play(scenario: Scenario, venv: Path, log: Callable[[str], None]) -> Outcome:
    """Make the scenario's condition, then follow the doctor's hints until it passes or stalls."""
    outcome = Outcome(scenario.name, scenario.condition)
    servers: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix=f"hint-{scenario.name}-") as tmp:
        home, work = Path(tmp) / "home", Path(tmp) / "work"
        home.mkdir()
        work.mkdir()
        if scenario.venv == "fresh":
            venv = fresh_venv(Path(tmp))
        env = {**base_env(home, venv), **scenario.env}
        if scenario.prepare is not None:
            scenario.prepare(venv)
        args = list(scenario.args)
        try:
            for _ in range(MAX_STEPS):
                failed, detail, fix = run_doctor(env, args, work)
                step = Step(failed)
                outcome.steps.append(step)
                if failed is None:
                    outcome.passed = True
                    break
                command = choose(detail, fix, scenario.prefer)
                step.command = command
                log(f"  {scenario.name}: {failed} failed ({detail[:160]}); hint: {command}")
                if command is None:
                    step.how = "the hint prints no command"
                    break
                if command.startswith("export "):
                    env, step.how = bash_env(command, env, work), "bash"
                elif command.startswith("pip install"):
                    env, step.how = bash_env(command, env, ROOT), "bash, in the checkout"
                elif command.startswith(("cafe serve", "cafe local")):
                    server, exports = start_server(command, env, work)
                    servers.append(server)
                    env, step.how = bash_env(exports, env, work), "started; its lines applied"
                elif command.startswith("cafe doctor "):
                    args, step.how = command.split()[2:], "the next run's arguments"
                else:
                    step.how = "not applied: it would change the shared machine"
                    break
        except (RuntimeError, subprocess.TimeoutExpired) as exc:
            outcome.note = str(exc)[:300]
        finally:
            for server in servers:
                stop(server)
    return outcome


def without_ipywidgets(venv: Path) -> None:
    """A venv with pytest (so only the plain install is needed) and without ipywidgets."""
    pip = str(venv / "bin" / "pip")
    subprocess.run([pip, "install", "-q", "pytest"], check=True, capture_output=True)
    subprocess.run([pip, "uninstall", "-y", "-q", "ipywidgets"], check=True, capture_output=True)


def scenarios(local_venv: Path | None) -> list[Scenario]:
    """Every failing condition whose hint is a command, with the setting that makes it."""
    rows = [
        Scenario("mode", "COURSE_MODE=banana", {"COURSE_MODE": "banana"}),
        Scenario("max-tokens", "CAFE_MAX_TOKENS=lots", {"CAFE_MAX_TOKENS": "lots"}),
        Scenario("timeout", "CAFE_TIMEOUT_S=-5", {"CAFE_TIMEOUT_S": "-5"}),
        Scenario("home", "CAFE_HOME=relative/folder", {"CAFE_HOME": "relative/folder"}),
        Scenario("headless", "CAFE_HEADLESS=maybe", {"CAFE_HEADLESS": "maybe"}),
        Scenario("env-file", "CAFE_ENV_FILE names a Latin-1 file", {"CAFE_ENV_FILE": "LATIN1"}),
        Scenario(
            "live-from-nothing",
            "COURSE_MODE=live and nothing else (then: no server, a model not listed)",
            {"COURSE_MODE": "live"},
            prefer=("cafe serve",),
        ),
        Scenario(
            "no-v1",
            "CAFE_BASE_URL without /v1, against `cafe serve`",
            {"COURSE_MODE": "live", "CAFE_API_KEY": "sk-local", "CAFE_MODEL": "cafe-scripted"},
            serve=[],
            url_path="",
        ),
        Scenario(
            "model-not-listed",
            "CAFE_MODEL=gpt-4o-mini against `cafe serve`",
            {"COURSE_MODE": "live", "CAFE_API_KEY": "sk-local", "CAFE_MODEL": "gpt-4o-mini"},
            serve=[],
        ),
        Scenario(
            "slow-checks",
            "`cafe serve --fault-delay 12`: each chat reply takes 12 s, the checks allow 10",
            {"COURSE_MODE": "live", "CAFE_API_KEY": "sk-local", "CAFE_MODEL": "cafe-scripted"},
            prefer=("cafe doctor --timeout",),
            serve=["--fault-delay", "12"],
        ),
        Scenario(
            "pytest",
            "a fresh venv from `pip install -e .` (no [test] extra)",
            {},
            venv="fresh",
        ),
        Scenario(
            "package",
            "a fresh venv from `pip install -e .`, plus pytest, minus ipywidgets",
            {},
            venv="fresh",
        ),
        Scenario("git", "no git on PATH", {"PATH": "NO-GIT"}),
    ]
    if local_venv is not None:
        rows.append(
            Scenario(
                "speed-local",
                "`cafe local`'s lines but CAFE_TIMEOUT_S=30 (below any deadline the doctor can find fits)",
                {"LOCAL": "1", "CAFE_TIMEOUT_S": "30"},
            )
        )
    return rows


def concrete(scenario: Scenario, tmp: Path, local_venv: Path | None) -> Scenario:
    """The scenario with what needs a place or a server filled in."""
    env = dict(scenario.env)
    if env.get("CAFE_ENV_FILE") == "LATIN1":
        path = tmp / "latin1.env"
        path.write_bytes("CAFE_MODEL=caf\xe9\n".encode("latin-1"))
        env["CAFE_ENV_FILE"] = str(path)
    if env.get("PATH") == "NO-GIT":
        bin_dir = tmp / "bin-without-git"
        bin_dir.mkdir(exist_ok=True)
        for tool in ("bash", "env", "python3"):
            found = shutil.which(tool)
            if found:
                (bin_dir / tool).symlink_to(found)
        env["PATH"] = f"{Path(sys.executable).parent}:{bin_dir}"
    return dataclasses.replace(
        scenario,
        env=env,
        prepare=without_ipywidgets if scenario.name == "package" else scenario.prepare,
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--only", nargs="*", default=None, help="scenario names to run")
    parser.add_argument("--local-venv", type=Path, default=None, help="a venv with [local]")
    parser.add_argument("--json", type=Path, default=None, help="also write the rows here")
    options = parser.parse_args()
    venv = Path(sys.prefix)
    started = datetime.datetime.now(datetime.timezone.utc)
    print(
        f"# doctor hints, {started:%Y-%m-%d %H:%M} UTC, {os.cpu_count()} cores, {platform.python_version()}"
    )
    outcomes: list[Outcome] = []
    extra_servers: list[subprocess.Popen] = []
    with tempfile.TemporaryDirectory(prefix="doctor-hints-") as tmp_name:
        tmp = Path(tmp_name)
        for raw in scenarios(options.local_venv):
            if options.only is not None and raw.name not in options.only:
                continue
            scenario = concrete(raw, tmp, options.local_venv)
            if scenario.name in ("live-from-nothing",) and not free(8000):
                outcomes.append(Outcome(scenario.name, scenario.condition, note="port 8000 in use"))
                continue
            if scenario.serve is not None:
                command = shlex.join(["cafe", "serve", "--port", str(SERVE_PORT), *scenario.serve])
                server, _ = start_server(command, base_env(tmp, venv), tmp)
                extra_servers.append(server)
                scenario.env["CAFE_BASE_URL"] = f"http://127.0.0.1:{SERVE_PORT}{scenario.url_path}"
            run_venv = venv
            if scenario.env.pop("LOCAL", None):
                assert options.local_venv is not None
                run_venv = options.local_venv
                env = base_env(tmp, run_venv)
                server, exports = start_server(f"cafe local --port {LOCAL_PORT}", env, tmp)
                extra_servers.append(server)
                settings = bash_env(exports, env, tmp)
                scenario.env = {
                    **{k: v for k, v in settings.items() if k.startswith(("CAFE_", "COURSE_"))},
                    **scenario.env,
                }
            clock = time.monotonic()
            outcome = play(scenario, run_venv, print)
            outcome.note = (outcome.note + f" ({time.monotonic() - clock:.0f} s)").strip()
            outcomes.append(outcome)
            for server in extra_servers:
                stop(server)
            extra_servers.clear()
    print(
        "\n| hint (scenario) | failing condition | check failed -> command applied | doctor after |"
    )
    print("|---|---|---|---|")
    for outcome in outcomes:
        story = "; ".join(
            f"{s.failed} -> `{s.command}` ({s.how})" for s in outcome.steps if s.failed
        )
        last = outcome.steps[-1].how if outcome.steps else ""
        verdict = (
            "passes" if outcome.passed else "not applied" if last.startswith("not") else "FAILS"
        )
        print(
            f"| {outcome.name} | {outcome.condition} | {story or '-'} | {verdict} {outcome.note} |"
        )
    if options.json is not None:
        options.json.write_text(json.dumps([asdict(o) for o in outcomes], indent=2))
    return 0 if all(o.passed for o in outcomes) else 1  # a hint not applied counts as not passed


if __name__ == "__main__":
    sys.exit(main())
