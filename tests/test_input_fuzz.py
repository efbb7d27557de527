"""Every input at the edge, fuzzed: each `CAFE_*` variable and the CLI's arguments get generated values.

Each call runs `python -m cafe ...` in a scratch folder, with a time limit. It must end one of two
ways: accepted (exit 0), or refused in one line that names the input it refused. Never a hang
(the time limit), never a traceback. The variables are read from the package's own source, so a
new `CAFE_*` variable joins the fuzz without editing this file.

The calls go through a fork server (`tests/fork_runs.py`): one process imports the package once
and forks a child per call, which takes the call's environment, folder and output files and runs
the package as `python -m cafe` does. A fresh interpreter per call cost about 0.6 s of start-up
and imports each, most of this file's time. Forking checks the same things because nothing the
server imports reads a course variable at import time (the server records the environment's reads
while it imports and is not used if there was one, and
`test_the_fork_server_imports_read_no_course_variable` fails then); so a child sees only its
call's values, as a fresh interpreter does. `test_the_fork_path_says_what_a_fresh_interpreter_says`
runs one refused input per command both ways and compares every byte, and so keeps the real
entry path (`python -m cafe` in a new process) tested. Where `os.fork` is missing, every call
starts a fresh interpreter, as before.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from fork_runs import ForkServer, fork_available, is_course_variable
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parents[1]
VARIABLES = sorted(
    {
        name
        for path in (ROOT / "cafe").rglob("*.py")
        for name in re.findall(r"\bCAFE_[A-Z][A-Z_]*[A-Z]\b", path.read_text(encoding="utf-8"))
    }
    | {"COURSE_MODE"}
)
# Commands that answer without a model, a server or a kernel, in well under a second each.
COMMANDS = [["progress"], ["doctor"], ["toy", "00"]]
# The time limit per call: far above the slowest accepted call (about a second), far below a hang.
LIMIT_S = 60
EDGES = ["", " ", "-1", "0", "nan", "inf", "1e309", "9" * 40, "\x01", "é", "\u2028", "~nouser/x"]
EDGES += ["/dev/zero", "/dev/null", "/", ".", "..", "x" * 5000, "\ud800"]

# Generated text a process environment or argv can hold (no NUL), never an absolute path or a
# home-relative one: a generated value must not create files outside the scratch folder.
values = st.text(
    alphabet=st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"), max_size=40
).filter(lambda v: not v.startswith(("/", "~")))


def _environment(cwd: Path, extra: dict[str, str]) -> dict[str, str]:
    """This process's environment without the course's variables, then the call's."""
    env = {k: v for k, v in os.environ.items() if not is_course_variable(k)}
    env.update({"CAFE_HOME": str(cwd / "home"), "CAFE_HEADLESS": "1", **extra})
    return env


def _run_fresh(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """`python -m cafe ARGS` in a new interpreter: the real entry path, about 0.6 s a call. On a
    hang the whole process group goes, so a program the command started does not run on."""
    with subprocess.Popen(
        [sys.executable, "-m", "cafe", *args],
        cwd=cwd,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="backslashreplace",
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    ) as process:
        try:
            out, err = process.communicate(timeout=LIMIT_S)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.communicate()
            raise
    return subprocess.CompletedProcess(process.args, process.returncode, out, err)


@pytest.fixture(scope="module")
def forks():
    """One fork server for the module; None where there is no `os.fork`. A server that is not
    `usable` (an import read a course variable) is not used: each call starts a fresh interpreter."""
    if not fork_available():
        yield None
        return
    server = ForkServer({k: v for k, v in os.environ.items() if not is_course_variable(k)})
    yield server
    server.close()


def _run(
    forks: ForkServer | None, args: list[str], cwd: Path, extra: dict[str, str]
) -> subprocess.CompletedProcess[str]:
    env = _environment(cwd, extra)
    try:
        if forks is None or not forks.usable:
            return _run_fresh(args, cwd, env)
        return forks.run(args, cwd=cwd, env=env, timeout=LIMIT_S)
    except subprocess.TimeoutExpired:
        pytest.fail(f"cafe {' '.join(args)} with {extra!r} did not end within {LIMIT_S} s")
    except ValueError:  # a value the OS cannot put in an environment: nothing to test
        pytest.skip(f"the OS refuses {extra!r}")


def _judge(done: subprocess.CompletedProcess[str], named: str, value: str) -> None:
    said = done.stdout + done.stderr
    assert "Traceback" not in said, f"{named}={value!r}: a traceback\n{said[-2000:]}"
    if done.returncode != 0:
        lines = [line for line in said.splitlines() if line.strip()]  # the doctor reports on stdout
        assert lines, f"{named}={value!r}: exit {done.returncode} with nothing said"
        shown = value.encode("ascii", "backslashreplace").decode()[:30]
        assert any(named in line or (value and shown in line) for line in lines), (
            f"{named}={value!r}: refused without naming it\n{said[-1000:]}"
        )


def _ok_for_env(value: str) -> bool:
    try:
        value.encode(sys.getfilesystemencoding(), "surrogateescape")
    except UnicodeEncodeError:
        return False
    return "\x00" not in value


@pytest.mark.slow
@pytest.mark.parametrize("variable", VARIABLES)
@pytest.mark.parametrize("value", [v for v in EDGES if _ok_for_env(v)], ids=repr)
def test_each_variable_at_its_edges_is_accepted_or_refused_in_one_line(
    forks, tmp_path, variable, value
):
    if variable == "CAFE_HOME" and value.startswith("/") and value != "/dev/null":
        pytest.skip("an absolute CAFE_HOME other than a device would write outside the scratch")
    for command in COMMANDS[:2]:
        _judge(_run(forks, command, tmp_path, {variable: value}), variable, value)


@pytest.mark.slow
@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(variable=st.sampled_from(VARIABLES), value=values, command=st.sampled_from(COMMANDS))
def test_generated_variable_values_never_hang_or_raise(
    forks, tmp_path_factory, variable, value, command
):
    cwd = tmp_path_factory.mktemp("fuzz")
    _judge(_run(forks, command, cwd, {variable: value}), variable, value)


# Every argument and path option of every command that ends by itself, with a generated value in
# its place. `serve` and `local` run until stopped when they accept, so their options are in
# OPTION_EDGES below: refused values only, each named.
ARGUMENTS = [
    lambda v: ["toy", v],
    lambda v: ["toy", "08", "--keep", v],
    lambda v: ["experiment", v],
    lambda v: ["experiment", "07", "--seed", v, "--orders", "2", "--out", "r.json"],
    lambda v: ["experiment", "07", "--orders", "2", "--out", v],
    lambda v: ["grade", v],
    lambda v: ["grade", "class", "--out", v],
    lambda v: ["grade", "class", "--jobs", v],
    lambda v: ["grade", "class", "--time-limit", v],
    lambda v: ["progress", v],
    lambda v: ["progress", "--session", v],
    lambda v: ["progress", "--file", v],
    lambda v: ["progress", "--export", v],
    lambda v: ["progress", "--export", "--learner", v],
    lambda v: ["progress", "--export", "--work", v],
    lambda v: ["hand-in", "--learner", v],
    lambda v: ["hand-in", "--work", v],
    lambda v: ["hand-in", "--progress", v],
    lambda v: ["hand-in", "--out", v],
    lambda v: ["capstone", v],
    lambda v: ["capstone", "check", v],
    lambda v: ["capstone", "check", "--seed", v],
    lambda v: ["capstone", "check", "--scenarios", v],
]


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(value=values.filter(lambda v: not v.startswith("-")), shape=st.sampled_from(ARGUMENTS))
def test_generated_arguments_never_hang_or_raise(forks, tmp_path_factory, value, shape):
    cwd = tmp_path_factory.mktemp("args")
    (cwd / "class").mkdir()  # an empty class for `grade`: its options are what is fuzzed
    args = shape(value)
    done = _run(forks, args, cwd, {})
    said = done.stdout + done.stderr
    assert "Traceback" not in said, f"cafe {args!r}: a traceback\n{said[-2000:]}"
    if done.returncode != 0:
        assert [line for line in done.stderr.splitlines() if line.strip()], f"{args!r}: silent"


# Numbers at their edges for every numeric option. A command that ends by itself may accept one
# (and must then end); `serve` and `local` run until stopped when they accept, so they get only
# values no option of theirs may take, and each must be refused in one line.
NUMBER_EDGES = ["", "x", "-1", "0", "nan", "inf", "1e309", "9" * 40]
ENDING_OPTIONS = [
    ["experiment", "07", "--out", "r.json", "--orders"],
    ["experiment", "07", "--out", "r.json", "--orders", "2", "--seed"],
    # one scenario: an accepted seed is graded on one, not nine (the seed is what is fuzzed)
    ["capstone", "check", "harness.py", "--scenarios", "1", "--seed"],
    ["capstone", "check", "harness.py", "--scenarios"],
    ["grade", "class", "--jobs"],
    ["grade", "class", "--time-limit"],
    ["progress", "--session"],
]
SERVING_OPTIONS = [
    ["serve", "--port"],
    ["local", "--port"],
    *(
        ["serve", "--port", "0", flag]
        for flag in ("--fault-status", "--fault-retry-after", "--fault-delay", "--fault-trickle")
    ),
    ["serve", "--port", "0", "--fault-times"],
]
EMPTY_HARNESS = ROOT / "tests" / "capstone_harnesses" / "empty.py"  # graded fast, every seed fails
NEVER_A_SETTING = ["", "x", "-1", "nan", "inf", "1e309"]


@pytest.mark.slow
@pytest.mark.parametrize("option", ENDING_OPTIONS, ids=" ".join)
def test_numeric_options_at_their_edges_end_accepted_or_named(forks, tmp_path, option):
    (tmp_path / "class").mkdir()  # an empty class for `grade`
    (tmp_path / "harness.py").write_text(EMPTY_HARNESS.read_text(encoding="utf-8"))
    for value in NUMBER_EDGES:
        _judge(_run(forks, [*option, value], tmp_path, {}), option[-1], value)


@pytest.mark.slow
@pytest.mark.parametrize("option", SERVING_OPTIONS, ids=" ".join)
def test_a_server_option_no_server_can_take_is_refused_in_one_line(forks, tmp_path, option):
    values = NEVER_A_SETTING + (["65536", "9" * 40] if option[-1] == "--port" else [])
    for value in values:
        done = _run(forks, [*option, value], tmp_path, {})
        assert done.returncode != 0, f"{option} {value!r} was accepted"
        _judge(done, option[-1], value)


# One input each command refuses by name. A refusal shows the call's environment reached the
# command; the toy's shows it reached a process the command starts (the toy reads CAFE_MAX_TOKENS).
REFUSED = [
    (["progress"], "CAFE_HOME", "/dev/null"),
    (["doctor"], "COURSE_MODE", "bogus"),
    (["toy", "00"], "CAFE_MAX_TOKENS", "-1"),
]


@pytest.mark.slow
@pytest.mark.parametrize(("command", "variable", "value"), REFUSED, ids=repr)
def test_the_fork_path_says_what_a_fresh_interpreter_says(
    forks, tmp_path, command, variable, value
):
    fresh = _run_fresh(command, tmp_path, _environment(tmp_path, {variable: value}))
    forked = _run(forks, command, tmp_path, {variable: value})
    assert fresh.returncode != 0 and variable in fresh.stdout + fresh.stderr, fresh
    assert (forked.returncode, forked.stdout, forked.stderr) == (
        fresh.returncode,
        fresh.stdout,
        fresh.stderr,
    )
    assert _run(forks, command, tmp_path, {}).returncode == 0  # refused for the value, not the path


def _forking(forks: ForkServer | None) -> ForkServer:
    if forks is None:
        pytest.skip("no os.fork here: every call starts a fresh interpreter")
    return forks


def test_the_fork_server_imports_read_no_course_variable(forks):
    assert _forking(forks).import_findings == [], "the calls ran in fresh interpreters instead"


def test_the_fork_server_notices_a_module_reading_the_environment_at_import(forks, tmp_path):
    _forking(forks)
    (tmp_path / "reads_mode.py").write_text('import os\nMODE = os.environ.get("COURSE_MODE")\n')
    (tmp_path / "copies_all.py").write_text("import os\nSAVED = dict(os.environ)\n")
    (tmp_path / "reads_path.py").write_text('import os\nPATH = os.environ.get("PATH")\n')
    env = {k: v for k, v in os.environ.items() if not is_course_variable(k)}
    server = ForkServer(
        {**env, "PYTHONPATH": str(tmp_path)}, ["reads_mode", "copies_all", "reads_path"]
    )
    server.close()
    assert server.import_findings == [
        "importing reads_mode: read COURSE_MODE",
        "importing copies_all: copied the whole environment",
    ]
    assert not server.usable


def test_a_hang_through_the_fork_path_is_stopped_and_reported(forks, tmp_path):
    serving = ["serve", "--port", "0"]  # runs until stopped: a hang, as far as a call is concerned
    with pytest.raises(subprocess.TimeoutExpired):
        _forking(forks).run(serving, cwd=tmp_path, env=_environment(tmp_path, {}), timeout=1)
    assert _run(forks, ["progress"], tmp_path, {}).returncode == 0  # and the server goes on


@pytest.mark.parametrize(
    "keep", ["", "missing/run.jsonl", "/dev/null", "exists.jsonl", "a_folder", "~nouser/x"]
)
def test_toy_08_keep_refuses_a_missing_or_odd_path_in_one_line(forks, tmp_path, keep):
    (tmp_path / "exists.jsonl").write_text("mine\n")
    (tmp_path / "a_folder").mkdir()
    done = _run(forks, ["toy", "08", "--keep", keep], tmp_path, {})
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1 and "--keep" in lines[0], done.stderr
    assert (tmp_path / "exists.jsonl").read_text() == "mine\n"  # never overwritten


def test_a_latin_1_notebook_source_is_one_line_naming_the_file(tmp_path, capsys):
    from test_notebooks import build  # tools/build.py, loaded as the notebook tests load it

    source = tmp_path / "sessions" / "s42-new-idea" / "notebook.py"
    source.parent.mkdir(parents=True)
    source.write_bytes("# %% [markdown]\n# Caf\u00e9\n\n# %%\nx = 1\n".encode("latin-1"))
    status = build.build_notebooks(
        sessions=tmp_path / "sessions",
        notebooks=tmp_path / "notebooks",
        backups=tmp_path / "backups",
    )
    lines = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert status == 1 and len(lines) == 1, lines
    assert "notebook.py" in lines[0] and "UTF-8" in lines[0] and "0xe9" in lines[0]


@pytest.mark.parametrize("given", ["", " ", ".", "a_folder"])
def test_progress_file_that_cannot_be_a_file_is_refused_naming_it(forks, tmp_path, given):
    (tmp_path / "a_folder").mkdir()
    done = _run(forks, ["progress", "--file", given], tmp_path, {})
    lines = [line for line in done.stderr.splitlines() if line.strip()]
    assert done.returncode == 2 and len(lines) == 1 and "--file" in lines[0], done
    assert not done.stdout  # no record printed as if the folder were a damaged file
