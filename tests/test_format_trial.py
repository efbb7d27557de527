"""cafe.schema.trials: what each output format lets through on the same orders, and the parse rate.

The lesson's worked example is `test_format_trial_strict_schema_lets_table_31_through_and_parse_draft_catches_it`.
"""

import json
import os
import subprocess
import sys
from pathlib import Path

import openai
import pytest
from samples import run_notebook_source

from cafe.endpoint.client.formats import admits
from cafe.endpoint.errors import EndpointError, RequestRejected
from cafe.endpoint.scripts.rehearsals import habit_orders, habits_responder, session_script
from cafe.endpoint.server.serve import Faults, running_server
from cafe.endpoint.settings.config import OFFLINE_MODEL
from cafe.schema.ticket import MAX_TABLE, contract_text, response_format, strict_ticket_schema
from cafe.schema.trials import (
    LESSON_FORMATS,
    PracticeOrder,
    ask_once,
    closed_table_schema,
    format_trial,
    practice_orders,
    ticket_messages,
    unenforced_keywords,
    waiter_client,
)


@pytest.fixture(scope="module")
def offline():
    return format_trial(waiter_client(), OFFLINE_MODEL)


def _order(table):
    return next(order for order in practice_orders() if order.table == table)


def test_unenforced_keywords_are_the_ticket_rules_the_strict_schema_drops():
    found = {(rule.field, rule.keyword): rule.value for rule in unenforced_keywords()}
    assert found == {
        ("table", "minimum"): 1,
        ("table", "maximum"): MAX_TABLE,
        ("items", "minItems"): 1,
    }
    strict = json.dumps(strict_ticket_schema())
    assert all(f'"{keyword}"' not in strict for _, keyword in found)


def test_practice_orders_are_ten_and_each_has_a_draft_a_strict_schema_admits():
    orders = practice_orders()
    assert len(orders) == 10 and len({order.words for order in orders}) == 10
    for order in habit_orders():
        assert any(
            admits("json_schema", strict_ticket_schema(), draft) for draft in order["drafts"]
        ), order["words"]


def test_ticket_messages_carry_the_contract_and_the_customers_words():
    order = PracticeOrder(4, "Table 4: a latte, please.")
    assert ticket_messages(order) == [
        {"role": "system", "content": contract_text()},
        {"role": "user", "content": "Table 4: a latte, please."},
    ]


def test_format_trial_every_format_keeps_its_promise_offline(offline):
    assert list(offline) == list(LESSON_FORMATS)
    for tally in offline.values():
        assert len(tally.trials) == 10 and tally.refused is None
        assert all(
            trial.admitted for trial in tally.trials
        )  # the waiter answers as an enforcing server would


def test_format_trial_json_mode_never_fails_not_json_but_still_fails_the_shape(offline):
    checks = offline["json_object"].checks
    assert "not_json" not in checks and {"missing_field", "unknown_field"} <= set(checks)
    assert "not_json" in offline["plain"].checks


def test_format_trial_strict_schema_lets_table_31_through_and_parse_draft_catches_it():
    trial = ask_once(waiter_client(), OFFLINE_MODEL, _order(31), "json_schema")
    assert trial.admitted and json.loads(trial.draft)["table"] == 31
    assert trial.outcome == "bad_value" and trial.parsed.failures[0].span == "table = 31"


def test_format_trial_strict_schema_fails_only_what_it_does_not_enforce(offline):
    tally = offline["json_schema"]
    assert set(tally.checks) == {"bad_value"} and tally.caught == 10 - tally.parsed
    assert tally.parse_rate > offline["json_object"].parse_rate
    for trial in tally.trials:  # each failure is a rule the strict schema left out
        drafted = json.loads(trial.draft)
        outside = not 1 <= drafted["table"] <= MAX_TABLE or not drafted["items"]
        assert outside == (trial.parsed.ticket is None), trial.draft


def test_format_trial_closed_schema_turns_an_impossible_table_into_a_wrong_one():
    tally = format_trial(
        waiter_client(),
        OFFLINE_MODEL,
        [_order(31), _order(0)],
        ["json_schema"],
        schema=closed_table_schema(),
    )["json_schema"]
    tables = [trial.parsed.ticket.table for trial in tally.trials]
    assert tally.parse_rate == 1.0 and all(1 <= table <= MAX_TABLE for table in tables)


def test_format_trial_a_refused_format_is_counted_as_refused_and_the_rest_still_run():
    with running_server(session_script("04"), supports_json_schema=False) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0)
        tallies = format_trial(client, OFFLINE_MODEL, [_order(4)])
    assert tallies["json_schema"].trials == () and "json_schema" in tallies["json_schema"].refused
    assert tallies["json_schema"].parse_rate is None
    assert tallies["json_object"].parsed == 1 and tallies["plain"].parsed == 1
    assert len(tallies["json_object_schema"].trials) == 1  # the same promise, spelled the other way


def test_format_trial_a_refusal_about_something_else_is_raised():
    with running_server(session_script("04"), faults=Faults(status=400)) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0)
        with pytest.raises(RequestRejected, match="HTTP 400"):
            format_trial(client, OFFLINE_MODEL, [_order(4)])


def test_format_trial_no_orders_is_a_value_error():
    with pytest.raises(ValueError, match="at least one order"):
        format_trial(waiter_client(), OFFLINE_MODEL, [])


def test_ask_once_unknown_format_names_the_choices():
    with pytest.raises(ValueError, match="json_schema, json_object_schema, json_object, plain"):
        ask_once(waiter_client(), OFFLINE_MODEL, _order(4), "yaml")


def test_serve_session_04_answers_over_http_as_the_offline_waiter_does(offline):
    with running_server(session_script("04"), label="session-04") as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0)
        live = format_trial(client, OFFLINE_MODEL)
    for kind in LESSON_FORMATS:
        assert [t.draft for t in live[kind].trials] == [t.draft for t in offline[kind].trials]


def test_habits_responder_unknown_words_get_a_note_in_the_format_asked():
    def ask(fmt):
        return habits_responder(
            {
                "messages": [{"role": "user", "content": "A pony."}],  # noqa: E731
                "response_format": fmt,
            }
        )

    assert "practice orders" in ask(None)
    assert "practice orders" in json.loads(ask(response_format("json_object")))["notes"]
    closed = {"type": "json_schema", "json_schema": {"name": "t", "schema": closed_table_schema()}}
    assert admits(
        "json_schema", closed_table_schema(), ask(closed)
    )  # bent to a table the schema allows


class _TimesOut:
    """The offline waiter, except that the orders in `slow` time out as a slow endpoint does."""

    def __init__(self, slow, kind="timeout"):
        self.slow, self.kind, self.inner = set(slow), kind, waiter_client()
        self.chat = self

    @property
    def completions(self):
        return self

    def create(self, **request):
        if any(m.get("content") in self.slow for m in request["messages"]):
            raise EndpointError("The endpoint did not answer within 60 s.", kind=self.kind)
        return self.inner.chat.completions.create(**request)


def test_format_trial_an_order_that_times_out_costs_that_order_only(offline):
    slow = {practice_orders()[2].words, practice_orders()[7].words}
    tallies = format_trial(_TimesOut(slow), OFFLINE_MODEL)
    for kind, tally in tallies.items():
        assert [(order.words, why) for order, why in tally.failed] == [
            (practice_orders()[2].words, "timeout"),
            (practice_orders()[7].words, "timeout"),
        ]
        assert len(tally.trials) + len(tally.failed) == len(practice_orders())
        kept = [t.draft for t in offline[kind].trials if t.order.words not in slow]
        assert [t.draft for t in tally.trials] == kept
    assert offline["plain"].failed == ()


def test_format_trial_a_refused_key_is_raised_at_once():
    with pytest.raises(EndpointError) as caught:
        format_trial(_TimesOut({practice_orders()[0].words}, "key_refused"), OFFLINE_MODEL)
    assert caught.value.kind == "key_refused"


def test_format_trial_no_order_reaching_the_model_in_any_format_raises():
    every = {order.words for order in practice_orders()}
    with pytest.raises(EndpointError) as caught:
        format_trial(_TimesOut(every), OFFLINE_MODEL)
    assert caught.value.kind == "timeout" and "No order reached" in str(caught.value)


@pytest.mark.slow
def test_toy_04_live_tries_the_schema_in_json_mode_when_json_schema_is_refused():
    """llama-cpp-python's server (`cafe local`) refuses `json_schema`; the toy then sends the same
    schema as `json_object_schema` so the strict-schema row still has a parse rate."""
    toy = Path(__file__).resolve().parent.parent / "sessions" / "s04-schema" / "toy.py"
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_") or k == "CAFE_HOME"}
    with running_server(session_script("04"), supports_json_schema=False) as server:
        env |= {
            "COURSE_MODE": "live",
            "CAFE_BASE_URL": server.base_url,
            "CAFE_API_KEY": "sk-local",
            "CAFE_MODEL": OFFLINE_MODEL,
        }
        done = subprocess.run(
            [sys.executable, str(toy)], capture_output=True, text=True, env=env, timeout=120
        )
    assert done.returncode == 0, done.stdout + done.stderr
    rows = done.stdout.split("4. Your model", 1)[1]
    assert "(json_schema): refused by the endpoint" in rows
    assert "in JSON mode's spelling (json_object_schema): parse rate" in rows


def test_notebook_04_live_tries_the_schema_in_json_mode_when_json_schema_is_refused(
    tmp_path, monkeypatch
):
    """Notebook 04's live cells against a server that refuses `json_schema`, as `cafe local`
    does: the table-31 stretch and the parse-rate cell both send the schema as
    `json_object_schema` instead, so the strict schema still gets a figure."""
    for name in [name for name in os.environ if name.startswith("CAFE_")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    monkeypatch.setenv("CAFE_HEADLESS", "1")
    with running_server(session_script("04"), supports_json_schema=False) as server:
        monkeypatch.setenv("COURSE_MODE", "live")
        monkeypatch.setenv("CAFE_BASE_URL", server.base_url)
        monkeypatch.setenv("CAFE_API_KEY", "sk-local")
        monkeypatch.setenv("CAFE_MODEL", OFFLINE_MODEL)
        namespace = run_notebook_source("s04-schema")
    tallies = namespace["tallies"]
    assert tallies["json_schema"].refused and not tallies["json_schema"].trials
    assert len(tallies["json_object_schema"].trials) == len(namespace["orders"])
    assert set(namespace["stretch"].value) == {"strict", "closed"}
