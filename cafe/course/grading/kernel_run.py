"""One notebook run from a clean kernel, in the child process `cafe grade` starts for it.

    python -m cafe.course.grading.kernel_run NOTEBOOK EXECUTED RESULT SECONDS
    python -m cafe.course.grading.kernel_run --serve

Runs every cell of NOTEBOOK in a fresh Jupyter kernel (nbclient, which comes with Jupyter),
carrying on past a cell that raises, so one error costs one cell. The whole notebook has SECONDS:
each cell's time limit is what is left of them, and when they run out the kernel is interrupted
and shut down. The executed notebook is written to EXECUTED and what happened to RESULT, as JSON:

    {"status": "ran" | "errored" | "timed_out" | "failed_to_run",
     "errors": [{"cell": 7, "error": "NameError: name 'x' is not defined"}], "detail": "..."}

With `--serve` it is a grading worker (`cafe.course.grading.runner.Worker`): it reads one job a
line on stdin, `{"notebook", "executed", "result", "seconds", "env"}`, runs it as above with `env`
as the kernel's whole environment, and answers one line on stdout when RESULT is written; so a
worker starts Python and imports nbclient once, not once a notebook.

"cell" counts code cells from 0, as nbval's "Cell N" does. The kernel's process id is written to
RESULT's folder as `kernel.pid` as soon as it starts, so the parent can stop a kernel this process
could not. The environment is the parent's to choose (`cafe.course.grading.runner` gives an allow-list);
nothing here reads it. Exit status: 0 whenever RESULT was written.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

__all__ = ["first_line", "cell_errors", "run", "main", "serve"]

# How much of an error's message the gradebook keeps: one line, enough to name the problem.
ERROR_CHARS = 200


def first_line(text: str, limit: int = ERROR_CHARS) -> str:
    """The first non-empty line of `text`, cut to `limit` characters."""
    line = next((part.strip() for part in text.splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 3] + "..."


def cell_errors(nb: Any) -> list[dict[str, Any]]:
    """Each code cell that ended in an error: its number among code cells, and the error in a line."""
    found = []
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    for number, cell in enumerate(code):
        for output in cell.get("outputs", []):
            if output.get("output_type") == "error":
                error = f"{output.get('ename', 'Error')}: {first_line(output.get('evalue', ''))}"
                found.append({"cell": number, "error": error.rstrip(": ")})
                break
    return found


def _last_started(nb: Any) -> int:
    """The number of the last code cell the kernel started (the one a time limit stopped)."""
    code = [cell for cell in nb.cells if cell.cell_type == "code"]
    started = [n for n, cell in enumerate(code) if cell.get("execution_count") is not None]
    return started[-1] if started else 0


def run(
    notebook: Path, executed: Path, seconds: float, env: dict[str, str] | None = None
) -> dict[str, Any]:
    """Run `notebook` (see the module docstring) and return what happened; `env`, when given, is
    the kernel's environment (else it inherits this process's)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellTimeoutError, DeadKernelError

    nb = nbformat.read(notebook, as_version=4)
    deadline = time.monotonic() + seconds
    client: Any = None
    client = NotebookClient(
        nb,
        timeout_func=lambda cell: max(1, int(deadline - time.monotonic())),
        allow_errors=True,
        kernel_name="python3",
        resources={"metadata": {"path": str(notebook.parent)}},
        on_notebook_start=lambda notebook: _note_kernel(client, executed),
    )
    result: dict[str, Any] = {"status": "ran", "errors": [], "detail": ""}
    stuck = -1
    try:
        client.execute(**({"env": env} if env is not None else {}))
    except CellTimeoutError:
        stuck = _last_started(nb)
        result["status"] = "timed_out"
        result["detail"] = f"cell {stuck} still running after {seconds:g} s; stopped"
    except DeadKernelError as exc:
        result["status"] = "errored"
        result["detail"] = f"the kernel died: {first_line(str(exc))}"
    # the cell a time limit stopped ends in KeyboardInterrupt: that is the time-out, not an error
    result["errors"] = [e for e in cell_errors(nb) if e["cell"] != stuck]
    if result["status"] == "ran" and result["errors"]:
        result["status"] = "errored"
    nbformat.write(nb, executed)
    return result


def _note_kernel(client: Any, executed: Path) -> None:
    """Write the kernel's process id beside the result, for the parent's last-resort stop."""
    pid = getattr(getattr(getattr(client, "km", None), "provisioner", None), "pid", None)
    if isinstance(pid, int):
        (executed.parent / "kernel.pid").write_text(str(pid), encoding="utf-8")


def _run_and_write(
    notebook: str, executed: str, result_path: str, seconds: float, env: dict[str, str] | None
) -> None:
    try:
        result = run(Path(notebook), Path(executed), float(seconds), env)
    except Exception as exc:  # a notebook nbformat cannot read, a kernel that will not start
        result = {
            "status": "failed_to_run",
            "errors": [],
            "detail": f"{type(exc).__name__}: {first_line(str(exc))}",
        }
    Path(result_path).write_text(json.dumps(result, ensure_ascii=False), encoding="utf-8")


def serve() -> int:
    """The worker's loop: a job a line on stdin, one answer line on stdout each; ends at EOF."""
    for line in sys.stdin:
        job = json.loads(line)
        _run_and_write(job["notebook"], job["executed"], job["result"], job["seconds"], job["env"])
        print(json.dumps({"done": job["result"]}), flush=True)
    return 0


def main(argv: list[str]) -> int:
    if argv == ["--serve"]:
        return serve()
    notebook, executed, result_path, seconds = argv
    _run_and_write(notebook, executed, result_path, float(seconds), None)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
