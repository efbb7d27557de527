"""cafe.endpoint.server.local: `cafe local` finds the shipped model file, serves it on loopback with the
course's settings, says how to point the course at it, and never hangs on Ctrl-C."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from cafe.cli import main
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.server import local


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

    def start(command):
        process = subprocess.Popen([sys.executable, "-c", busy], stdout=subprocess.PIPE, text=True)
        process.stdout.readline()  # running, with its signal handling in place
        started.append(_Interrupted(process))
        return started[0]

    out = tmp_path / "out.txt"
    with out.open("w") as sink:
        assert local.run_local(model=model, out=sink, start=start) == 0
    assert started[0].process.poll() is not None  # stopped, not left running
    assert ("killing it" in out.read_text()) is ignores_stop


def test_a_server_that_crashes_gets_the_rebuild_hint(tmp_path, monkeypatch, capsys):
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(local.importlib.util, "find_spec", lambda name, *a: object())
    crashed = subprocess.Popen(
        [sys.executable, "-c", "import os, signal; os.kill(os.getpid(), signal.SIGSEGV)"]
    )
    assert local.run_local(model=model, out=sys.stdout, start=lambda command: crashed) == -11
    assert "GGML_NATIVE=OFF" in capsys.readouterr().err


@pytest.mark.skipif(sys.platform == "win32", reason="SIGTERM to a process is POSIX")
def test_sigterm_to_cafe_local_stops_the_server_too(tmp_path):
    """A service manager or `kill` stops `cafe local` with SIGTERM: the server must not outlive it."""
    runner = textwrap.dedent("""
        import subprocess, sys, time
        from pathlib import Path
        from cafe.endpoint.server import local
        local.importlib.util.find_spec = lambda name, *a: object()
        def start(command):
            server = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
            print(server.pid, flush=True)
            time.sleep(0.5)  # the SIGTERM comes while the start is still under way
            return server
        sys.exit(local.run_local(model=Path(sys.argv[1]), out=sys.stderr, start=start))
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
