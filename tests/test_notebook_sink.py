"""A notebook kernel is a sink too (red team L, item 1): once `cafe.course` is imported, nothing a
cell prints, ends on, or raises shows the key, and ordinary output is unchanged.

One real kernel (jupyter_client, as nbval and nbconvert start them) runs the cells; each test
reads the messages the kernel sent, which are what a front end shows and a saved .ipynb holds.
The key is read from the kernel's environment inside each cell, so it is never in a cell's code."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from typing import Any

import pytest

from cafe.endpoint.secrets.notebook import guard_kernel

jupyter_client = pytest.importorskip("jupyter_client")
pytest.importorskip("ipykernel")

KEY = "sk-" + "notebook-sink-" + "0123fake"  # a fake key, built so no scan finds it written whole
SHOWN = "…fake"  # how the course shows it: its last four characters


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    home = tmp_path_factory.mktemp("kernel")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("CAFE_", "PYTEST_"))}
    env.update(CAFE_API_KEY=KEY, CAFE_HOME=str(home), COURSE_MODE="offline", CAFE_HEADLESS="1")
    manager, client = jupyter_client.manager.start_new_kernel(
        kernel_name="python3", env=env, cwd=str(home), startup_timeout=120
    )
    try:
        run(client, "import os\nfrom cafe import course")
        yield client
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)


def run(client: Any, code: str) -> list[dict[str, Any]]:
    """Run `code` in the kernel; the output messages it sent (stream, execute_result, error)."""
    outputs: list[dict[str, Any]] = []

    def keep(message: dict[str, Any]) -> None:
        if message["msg_type"] in ("stream", "execute_result", "display_data", "error"):
            outputs.append({"type": message["msg_type"], **message["content"]})

    client.execute_interactive(code, timeout=120, output_hook=keep)
    return outputs


def text_of(outputs: list[dict[str, Any]]) -> str:
    """Everything the outputs hold, as one text (what a saved notebook would hold)."""
    return repr(outputs)


def test_print_in_a_cell_masks_the_key(kernel):
    outputs = run(kernel, 'print("the key is", os.environ["CAFE_API_KEY"])')
    assert outputs == [{"type": "stream", "name": "stdout", "text": f"the key is {SHOWN}\n"}]


def test_stderr_and_a_line_with_no_newline_are_masked_too(kernel):
    code = 'import sys\nprint(os.environ["CAFE_API_KEY"], file=sys.stderr)\nprint("tail", os.environ["CAFE_API_KEY"], end="")'
    shown = text_of(run(kernel, code))
    assert KEY not in shown and shown.count(SHOWN) == 2 and "tail" in shown


def test_a_cells_last_value_masks_the_key(kernel):
    (result,) = run(kernel, '{"echo": "Your key is " + os.environ["CAFE_API_KEY"]}')
    assert result["type"] == "execute_result"
    assert result["data"]["text/plain"] == "{'echo': 'Your key is " + SHOWN + "'}"


def test_a_raised_exception_masks_the_key_in_its_message_and_traceback(kernel):
    (error,) = run(kernel, 'raise ValueError("endpoint said " + os.environ["CAFE_API_KEY"])')
    assert error["type"] == "error" and error["ename"] == "ValueError"
    assert error["evalue"] == f"endpoint said {SHOWN}"
    assert KEY not in text_of([error]) and any("ValueError" in line for line in error["traceback"])


def test_a_key_set_after_the_import_is_masked_too(kernel):
    code = 'os.environ["CAFE_API_KEY"] = "sk-" + "set-in-a-later-cell-9zyx"\nprint(os.environ["CAFE_API_KEY"])'
    outputs = run(kernel, code)
    run(kernel, 'os.environ["CAFE_API_KEY"] = "sk-" + "notebook-sink-" + "0123fake"')
    assert outputs == [{"type": "stream", "name": "stdout", "text": "…9zyx\n"}]


def test_ordinary_output_is_unchanged(kernel):
    outputs = run(
        kernel, 'print("latte", 3)\nprint("no newline", end="")\n{"table": 3, "items": ["latte"]}'
    )
    assert outputs == [
        {"type": "stream", "name": "stdout", "text": "latte 3\nno newline"},
        {
            "type": "execute_result",
            "data": {"text/plain": "{'table': 3, 'items': ['latte']}"},
            "metadata": {},
            "execution_count": outputs[-1]["execution_count"],
        },
    ]
    (error,) = run(kernel, 'raise KeyError("latte")')
    assert error["ename"] == "KeyError" and error["evalue"] == "'latte'"


def test_the_guard_goes_up_once_per_kernel(kernel):
    code = (
        "import importlib, sys\nimportlib.reload(course)\n"
        "from cafe.endpoint.secrets.notebook import guard_kernel\n"
        "from cafe.endpoint.secrets.terminal import ScrubbedStream\n"
        "print(guard_kernel(), type(sys.stdout.stream).__name__, isinstance(sys.stderr.stream, ScrubbedStream))"
    )
    assert run(kernel, code) == [
        {"type": "stream", "name": "stdout", "text": "True OutStream False\n"}
    ]


def test_outside_a_kernel_the_guard_does_nothing():
    streams = sys.stdout, sys.stderr
    assert guard_kernel() is False and (sys.stdout, sys.stderr) == streams
