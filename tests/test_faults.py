"""Every endpoint fault, named: one row per fault, driven through `cafe serve` over real HTTP.

Each row starts a local server acting out one fault (`cafe.endpoint.server.faults.Faults`, the same
misbehaviour `cafe serve --fault-*` offers), then checks both readers of the endpoint:

- the doctor (`cafe doctor --timeout 1`, run in-process through `cafe.cli.main`): its exit code,
  no traceback, and the cause named in its report;
- the repair path (`repair_ticket` with `make_model_generator(make_client(timeout=1))`): it raises
  an `EndpointError` of the named kind, or ends on a named stop.

Hang and trickle rows use a 1 s limit, so the table runs in a few seconds.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from endpoints import KEY, dead_url, live_env

from cafe.cli import main
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.problems import PROBLEM_KINDS
from cafe.endpoint.errors import EndpointError
from cafe.endpoint.server.serve import Faults, running_server
from cafe.repair.reask import OMELETTE_SPEC, make_model_generator, repair_ticket

# Seconds each request may take in the table; the hang and trickle rows must give up near it.
LIMIT_S = 1.0

# (id, how to start the endpoint, doctor exit code, words the doctor's report must contain,
#  what the repair path ends in: ("error", EndpointError kind) or ("stop", stop reason))
ROWS = [
    ("refused", "dead", 1, "Connection refused", ("error", "connection")),
    (
        "401",
        {"api_key": "sk-other-key-000000000000"},
        1,
        "refused the API key",
        ("error", "key_refused"),
    ),
    ("403", Faults(status=403), 1, "refused the API key", ("error", "key_refused")),
    ("404", Faults(status=404), 1, "answered HTTP 404", ("error", "not_found")),
    (
        "429",
        Faults(status=429, retry_after_s=7),
        1,
        "rate limiting us (HTTP 429; it asks us to wait 7 s)",
        ("error", "rate_limited"),
    ),
    ("500", Faults(status=500), 1, "failed with HTTP 500", ("error", "http_error")),
    ("503", Faults(status=503), 1, "failed with HTTP 503", ("error", "http_error")),
    ("hang", Faults(delay_s=30), 1, "did not finish its reply within 1 s", ("error", "slow")),
    (
        "trickle",
        Faults(trickle_s=0.3),
        1,
        "did not finish its reply within 1 s",
        ("error", "slow"),
    ),
    ("malformed JSON", Faults(malformed=True), 1, "not valid JSON", ("error", "bad_body")),
    ("empty 200", Faults(reply="empty"), 1, "not a chat completion", ("error", "bad_body")),
    (
        "no choices",
        Faults(reply="no_choices"),
        1,
        "answered with no choices",
        ("error", "no_choices"),
    ),
    (
        "null content",
        Faults(reply="null_content"),
        1,
        "content is null",
        ("stop", "retries_exhausted"),
    ),
    (
        "HTML page",
        Faults(reply="html"),
        1,
        "answered with a web page, not the API",
        ("error", "web_page"),
    ),
    ("5 MB junk", Faults(reply="junk"), 1, "not valid JSON", ("error", "bad_body")),
    (
        "invalid tool-call arguments",
        Faults(reply="bad_tool_args"),
        1,
        "arguments are not JSON",
        ("stop", "retries_exhausted"),
    ),
]


@contextmanager
def endpoint(setup) -> Iterator[str]:
    """The base URL of an endpoint acting out `setup`: a dead port, server options, or `Faults`."""
    if setup == "dead":
        yield dead_url()
        return
    options = setup if isinstance(setup, dict) else {"faults": setup}
    with running_server(**options) as server:
        yield server.base_url


def test_fault_table_covers_every_named_kind_it_means_to():
    named = {end[1] for *_, end in ROWS if end[0] == "error"}
    assert named <= PROBLEM_KINDS
    assert len(ROWS) == 16


@pytest.mark.parametrize(
    "setup, code, cause", [row[1:4] for row in ROWS], ids=[row[0] for row in ROWS]
)
def test_doctor_names_each_fault_with_no_traceback(setup, code, cause, monkeypatch, capsys):
    with endpoint(setup) as url:
        for name, value in live_env(url).items():
            monkeypatch.setenv(name, value)
        started = time.monotonic()
        assert main(["doctor", "--timeout", f"{LIMIT_S:g}"]) == code
        took = time.monotonic() - started
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err and "Unexpected" not in out
    assert cause in out
    assert KEY not in out + err
    assert (
        took < 4 * LIMIT_S + 1
    )  # model list and at most two chat checks, each cut off at its limit


@pytest.mark.parametrize(
    "setup, ending", [(row[1], row[4]) for row in ROWS], ids=[row[0] for row in ROWS]
)
def test_repair_path_names_each_fault(setup, ending, capsys):
    with endpoint(setup) as url:
        client = make_client(environ=live_env(url), timeout=LIMIT_S)
        generate = make_model_generator(client, "cafe-scripted")
        started = time.monotonic()
        if ending[0] == "error":
            with pytest.raises(EndpointError) as caught:
                repair_ticket(OMELETTE_SPEC, generate, cap=2)
            assert caught.value.kind == ending[1]
            assert KEY not in str(caught.value)
        else:
            assert repair_ticket(OMELETTE_SPEC, generate, cap=2).stop_reason == ending[1]
        took = time.monotonic() - started
    assert took < 2 * LIMIT_S + 1  # a request gives up near its limit, however the bytes trickle
    assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "command",
    [["-m", "cafe", "doctor"], ["sessions/s00-setup/toy.py"]],
    ids=["cafe doctor", "toy 00"],
)
def test_output_piped_into_head_ends_without_a_traceback(command):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "COURSE_MODE": "offline", "PYTHONPATH": str(root)}
    python = subprocess.Popen(
        [sys.executable, *command],
        cwd=root,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    python.stdout.readline()
    python.stdout.close()  # what `| head -1` does after its line
    err = python.stderr.read().decode()
    python.wait(timeout=30)
    assert "Traceback" not in err and "BrokenPipeError" not in err
