"""Toy 09 against an endpoint that does not answer: it says so within one deadline and exits 1.

The principle, toy 10's too: a toy tells the learner within one deadline that the endpoint is not
answering, and exits non-zero with the fix. Before, toy 09 marked each unanswered order `!` and
went on, so an endpoint that took the connection and never replied cost the full deadline on each
of the shift's drafted orders (minutes at the default 60 s), and the toy exited 0.

The live checks run the toy's file as `__main__` in this process against toy 10's test endpoint
(a local socket that lists no models and never answers a chat), with a short deadline through
`CAFE_TIMEOUT_S`, and count the chat requests it received, never the time. The rule that decides
when the shift stops (`Listening`) is checked on generated shifts against toy 10's test's
`stop_at` (the same rule), written from the rule alone.
"""

from __future__ import annotations

import runpy
from pathlib import Path

import pytest
from endpoints import dead_url
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_toy10_dead_endpoint import run_toy_live, silent_endpoint, stop_at

from cafe.endpoint.errors import EndpointError
from cafe.report import RunRecord
from cafe.report.shift import SHIFT_ORDERS, NotReached, run_shift, scripted_drafter

ROOT = Path(__file__).resolve().parents[1]
TOY = ROOT / "sessions" / "s09-shift-report" / "toy.py"
KEY = "sk-toy10-SECRET-1b7c9e3a5d2f4086"  # the key run_toy_live sets
TOY_GLOBALS = runpy.run_path(str(TOY), run_name="toy09")  # the toy's names, main() not run
Listening, Remembering = TOY_GLOBALS["Listening"], TOY_GLOBALS["Remembering"]
MARKS = TOY_GLOBALS["MARKS"]


@pytest.fixture(scope="module")
def offline_shift() -> tuple[RunRecord, ...]:
    """The shift's first orders and its last six as the scripted drafter runs them (the whole
    shift costs half a second): runs the endpoint answered with drafts, and runs it never saw."""
    return run_shift(
        SHIFT_ORDERS[:5] + SHIFT_ORDERS[-6:], scripted_drafter(), model="cafe-scripted"
    )


def first_drafted(records: tuple[RunRecord, ...]) -> int:
    """The index of the first order that reaches the endpoint (the records start the shift)."""
    return next(i for i, record in enumerate(records) if record.attempts)


def run_toy09(base_url, home, monkeypatch, capfd) -> tuple[int, str, str]:
    monkeypatch.setattr("test_toy10_dead_endpoint.TOY", TOY)
    return run_toy_live(base_url, home, monkeypatch, capfd)


# --- the toy, live ----------------------------------------------------------------------------


def test_toy09_against_an_endpoint_that_never_answers_sends_one_request_and_exits_1(
    tmp_path, monkeypatch, capfd, offline_shift
):
    with silent_endpoint() as endpoint:
        code, out, err = run_toy09(endpoint.base_url, tmp_path, monkeypatch, capfd)
        chats = endpoint.chats
    assert chats == 1  # was one per drafted order, each waited out to the deadline
    assert code == 1
    assert f"the shift stopped after {first_drafted(offline_shift) + 1} of 20 orders" in err
    assert "has not answered any order yet" in err
    assert endpoint.base_url in err and "CAFE_TIMEOUT_S" in err  # the endpoint's own fix
    assert "In plain words" not in out and "Traceback" not in err
    assert KEY not in out + err and "SECRET" not in out + err


def test_toy09_against_a_refused_connection_stops_at_the_first_drafted_order(
    tmp_path, monkeypatch, capfd, offline_shift
):
    code, out, err = run_toy09(dead_url(), tmp_path, monkeypatch, capfd)
    assert code == 1
    progress = out.split("endpoint failed):\n  ", 1)[1].split("\n", 1)[0]
    before = offline_shift[: first_drafted(offline_shift)]
    assert progress == "".join(MARKS[r.ending] for r in before) + "!"
    assert "Could not connect to the endpoint" in err and "CAFE_BASE_URL" in err


# --- when the shift stops, on generated shifts -------------------------------------------------


OUTCOMES = st.sampled_from(["answered", "answered_badly", "silent", "not_asked"])
SILENT_KINDS = st.sampled_from(["timeout", "slow", "connection"])
BAD_KINDS = st.sampled_from(["bad_body", "rate_limited", "http_error", "broken_reply"])


class Replaying:
    """A generator that raises the error set for the order at hand, as the endpoint would."""

    def __init__(self) -> None:
        self.error: EndpointError | None = None

    def __call__(self, messages):
        assert self.error is not None
        raise self.error


@settings(
    max_examples=80,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.function_scoped_fixture],  # capsys is read per example
)
@given(outcomes=st.lists(OUTCOMES, min_size=1, max_size=20), data=st.data())
def test_listening_ends_the_shift_where_the_rule_says(outcomes, data, offline_shift, capsys):
    drafted = [r for r in offline_shift if r.attempts]
    never_asked = [r for r in offline_shift if not r.attempts]
    replaying = Replaying()
    drafts = Remembering(replaying)
    listening = Listening(len(outcomes), drafts)
    capsys.readouterr()
    stopped, marks = None, ""
    for n, outcome in enumerate(outcomes):
        try:
            if outcome in ("answered", "not_asked"):
                pool = drafted if outcome == "answered" else never_asked
                record = pool[n % len(pool)]
                marks += MARKS[record.ending]
                listening.run(record)
                continue
            kind = data.draw(SILENT_KINDS if outcome == "silent" else BAD_KINDS)
            replaying.error = EndpointError(f"endpoint {kind} on order {n}\nthe fix {n}", kind=kind)
            with pytest.raises(EndpointError):
                drafts([])  # the shift's call that failed
            marks += "!"
            listening.failed_on(NotReached(f"run-{n:02d}", n, kind, f"endpoint {kind} on {n}"))
        except EndpointError as exc:
            stopped = n
            assert f"after {n + 1} of {len(outcomes)} orders" in str(exc)
            assert str(exc).endswith(f"the fix {n}") and exc.kind == kind  # the whole error
            break
    expected = stop_at(["answered" if o == "answered_badly" else o for o in outcomes])
    assert stopped == expected
    assert capsys.readouterr().out.strip() == marks
    assert len(listening.failed) == marks.count("!")
