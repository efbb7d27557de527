"""The live arms of `cafe experiment`, run offline against the course's scripted server.

Each session's arm module (`Experiment.live`) is run as `cafe experiment` runs it in live mode,
with COURSE_MODE=live pointing at an in-process `cafe serve` (the session's rehearsal script where
it has one, else the default rule): the real client, over HTTP, a few orders per arm. The
scripted server's replies are not a model's, so the tests check what any endpoint must give: a
verdict for each comparison, the JSON and the plot written, an endpoint failure named and resumed.
"""

from __future__ import annotations

import importlib
import io
import json
import os
from pathlib import Path

import pytest

from cafe.endpoint.client.script import Script
from cafe.endpoint.scripts.rehearsals import available_sessions, session_script
from cafe.endpoint.server.faults import Faults
from cafe.endpoint.server.serve import running_server
from cafe.evals.compare import VERDICTS
from cafe.evals.experiment import EXPERIMENTS
from cafe.evals.experiment_program import program

KEY = "sk-test-EXPERIMENT-0123456789"


def _script(session: str) -> Script | None:
    return session_script(session) if session in available_sessions() else None


def _live(monkeypatch: pytest.MonkeyPatch, server) -> None:
    for name, value in {
        "COURSE_MODE": "live",
        "CAFE_BASE_URL": server.base_url,
        "CAFE_API_KEY": KEY,
        "CAFE_MODEL": "cafe-scripted",
        "CAFE_ENV_FILE": "",
    }.items():
        monkeypatch.setenv(name, value)


def _main(session: str):
    return importlib.import_module(EXPERIMENTS[session].live).main


@pytest.mark.parametrize("session", list(EXPERIMENTS))
def test_live_arms_reach_a_verdict_and_write_json_and_plot(
    session: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out, path = io.StringIO(), tmp_path / f"s{session}.json"
    with running_server(_script(session), api_key=KEY) as server:
        _live(monkeypatch, server)
        code = _main(session)([session, "--orders", "3", "--json", "--out", str(path)], out)
    printed = json.loads(out.getvalue())
    assert code == 0 and printed == {**json.loads(path.read_text()), "file": str(path)}
    assert printed["runs_on"] == "your model cafe-scripted" and printed["stopped"] is None
    assert all(len(outcomes) == 3 for outcomes in printed["arms"].values())
    assert printed["comparisons"] and {c["verdict"] for c in printed["comparisons"]} <= set(
        VERDICTS
    )
    assert path.with_suffix(".png").read_bytes().startswith(b"\x89PNG")
    assert KEY not in out.getvalue() + path.read_text()


def test_an_endpoint_failure_mid_run_is_named_and_the_run_resumes_where_it_stopped(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "s04.json"
    args = ["04", "--out", str(path), "--orders"]
    with running_server(_script("04"), api_key=KEY) as server:
        _live(monkeypatch, server)
        assert _main("04")([*args, "2"], io.StringIO()) == 0
        first = json.loads(path.read_text())["arms"]
    out = io.StringIO()
    with running_server(_script("04"), api_key=KEY, faults=Faults(status=503)) as down:
        _live(monkeypatch, down)
        assert _main("04")([*args, "4"], out) == 1
    stopped = json.loads(path.read_text())
    assert (
        stopped["stopped"].startswith("endpoint problem (")
        and "order 3 of arm 'plain'" in (stopped["stopped"])
    )
    assert stopped["arms"] == first and "run the same command again to resume" in out.getvalue()
    out = io.StringIO()
    with running_server(_script("04"), api_key=KEY) as server:
        _live(monkeypatch, server)
        assert _main("04")([*args, "4"], out) == 0
    done = json.loads(path.read_text())
    assert "6 orders already run" in out.getvalue() and done["stopped"] is None
    assert all(done["arms"][arm][:2] == first[arm] for arm in first)
    assert [len(o) for o in done["arms"].values()] == [4, 4, 4]


def test_cafe_experiment_in_live_mode_starts_the_sessions_own_arms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`program` (session 02) cannot import session 07's arms: live, it starts their module as a
    program, which connects to the same endpoint and prints its report through `out`."""
    out = io.StringIO()
    with running_server(_script("07"), api_key=KEY) as server:
        _live(monkeypatch, server)
        assert os.environ["COURSE_MODE"] == "live"
        code = program(["07", "--orders", "2", "--out", str(tmp_path / "s07.json")], out)
    assert code == 0, out.getvalue()
    assert "runs on: your model cafe-scripted" in out.getvalue()
    assert json.loads((tmp_path / "s07.json").read_text())["runs_on"] == "your model cafe-scripted"


def test_each_catalogue_module_holds_the_live_arms_of_its_session() -> None:
    """The program starts `Experiment.live` for a session it cannot run itself; that module must
    hold the session's arms, or it would start the same module again."""
    for session, experiment in EXPERIMENTS.items():
        module = importlib.import_module(experiment.live)
        assert session in module.LIVE, f"{experiment.live}.LIVE lacks session {session}"
        assert module.__doc__ and module.main
