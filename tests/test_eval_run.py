"""cafe.evals.run: the labelled orders are consistent and cover every check; the scripted waiter
reads literally and deterministically; the same run goes over HTTP to `cafe serve` unchanged."""

import json
import random

import openai
import pytest

from cafe.endpoint.client.scripted import ScriptedClient
from cafe.endpoint.errors import EndpointError
from cafe.endpoint.server.serve import running_server
from cafe.evals.run import EVAL_MAX_TURNS, load_cases, run_eval, run_order
from cafe.evals.ticket_checks import session_checks
from cafe.stories.waiter import make_waiter, read_order
from cafe.world.menu import load_menu

MENU = load_menu()
CASES = load_cases()
CHECKS = session_checks(MENU)


def _scripted_report(**waiter):
    client = ScriptedClient(make_waiter(MENU.items, **waiter))
    return run_eval(CASES, lambda case: run_order(case, client), CHECKS, model="scripted")


def test_load_cases_has_at_least_forty_orders_each_check_probed_three_times():
    assert len(CASES) >= 40
    for check in CHECKS:
        assert sum(check.name in case.probes for case in CASES) >= 3, check.name


def test_load_cases_labels_name_only_menu_items_that_can_be_served():
    for case in CASES:
        for name, quantity in case.expected:
            assert (
                MENU.item(name) is not None and not MENU.is_sold_out(name) and 1 <= quantity <= 20
            ), case.id
            assert not any(MENU.contains(name, a) for a in case.allergies), case.id


def test_load_cases_missing_file_and_repeated_id_are_value_errors(tmp_path):
    with pytest.raises(ValueError, match="no such file"):
        load_cases(tmp_path / "nope.json")
    twice = {"orders": [{"id": "a", "request": "x", "expected": []}] * 2}
    (tmp_path / "twice.json").write_text(json.dumps(twice))
    with pytest.raises(ValueError, match="appear twice"):
        load_cases(tmp_path / "twice.json")


def test_load_cases_bad_expected_names_the_order(tmp_path):
    (tmp_path / "bad.json").write_text(
        json.dumps({"orders": [{"id": "o9", "request": "x", "expected": ["latte"]}]})
    )
    with pytest.raises(ValueError, match=r"o9.*\[item, quantity\]"):
        load_cases(tmp_path / "bad.json")


@pytest.mark.parametrize(
    "text, lines",
    [
        ("Two lattes and a croissant.", (("latte", 2), ("croissant", 1))),
        ("An oat latte and a latte", (("oat latte", 1), ("latte", 1))),
        ("2 espressos, then one more espresso", (("espresso", 3),)),
        ("A latte, no croissant", (("latte", 1), ("croissant", 1))),  # literal on purpose
        ("Six lattes", (("latte", 1),)),  # six is not a number it knows
    ],
)
def test_read_order_reads_names_and_numbers_literally(text, lines):
    assert read_order(text, MENU.items) == lines


def test_scripted_eval_is_deterministic_and_gets_a_third_wrong():
    first, observations = _scripted_report()
    again, _ = _scripted_report()
    assert first == again
    rates = {r.name: r.passed for r in first.rates}
    assert rates == {
        "finished": 45,
        "items_match": 34,
        "quantities_match": 41,
        "no_sold_out": 45,
        "allergen_safe": 39,
    }
    assert first.overall.passed == 30 and len(observations) == len(CASES)


def test_slipping_waiter_spreads_over_seeds_and_repeats_per_seed():
    runs = [
        _scripted_report(slip=0.1, rng=random.Random(seed))[0].overall.passed for seed in range(5)
    ]
    assert len(set(runs)) > 1
    assert _scripted_report(slip=0.1, rng=random.Random(1))[0].overall.passed == runs[1]


@pytest.mark.parametrize("kwargs, match", [({"slip": 1.5}, "probability"), ({"slip": 0.2}, "rng")])
def test_make_waiter_bad_slip_is_a_value_error(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_waiter(MENU.items, **kwargs)


def test_run_order_over_http_matches_the_offline_run():
    case = CASES[1]
    offline = run_order(case, ScriptedClient(make_waiter(MENU.items)))
    with running_server(make_waiter(MENU.items), api_key="k") as server:
        live = run_order(
            case,
            openai.OpenAI(base_url=server.base_url, api_key="k", max_retries=0),
            model="cafe-scripted",
        )
    assert live == offline and offline.ticket == (("latte", 2), ("croissant", 1))


def test_run_order_against_the_default_responder_runs_out_of_turns():
    observation = run_order(CASES[0], ScriptedClient())
    assert observation.stop_reason == "max_turns" and observation.ticket == ()
    assert EVAL_MAX_TURNS == 6


class _TimesOutOn:
    """A chat client that answers as the scripted waiter, except that a request whose customer
    words are in `slow` raises the timeout the course's client raises for a reply too slow."""

    def __init__(self, slow):
        self.slow, self.inner = set(slow), ScriptedClient(make_waiter(MENU.items))
        self.chat = self

    @property
    def completions(self):
        return self

    def create(self, **request):
        words = [m.get("content") for m in request["messages"] if m.get("role") == "user"]
        if set(words) & self.slow:
            raise EndpointError("The endpoint did not answer within 60 s.", kind="timeout")
        return self.inner.chat.completions.create(**request)


def test_run_eval_counts_an_order_that_timed_out_as_unreached_and_goes_on():
    slow = {CASES[1].request, CASES[4].request}
    client = _TimesOutOn(slow)
    seen = []
    report, observations = run_eval(
        CASES,
        lambda case: run_order(case, client),
        CHECKS,
        progress=lambda done, total: seen.append(done),
    )
    assert dict(report.unreached) == {CASES[1].id: "timeout", CASES[4].id: "timeout"}
    assert report.overall.n == len(observations) == len(CASES) - 2
    assert seen == list(range(1, len(CASES) + 1))
    assert "2 of 45 orders hit an endpoint problem (timeout)" in report.table()
    full, _ = _scripted_report()
    assert full.unreached == {} and "endpoint" not in full.table()


def test_run_eval_with_no_order_reaching_the_model_raises_the_endpoint_error():
    client = _TimesOutOn({case.request for case in CASES[:3]})
    with pytest.raises(EndpointError) as caught:
        run_eval(CASES[:3], lambda case: run_order(case, client), CHECKS)
    assert caught.value.kind == "timeout"


def test_run_eval_stops_at_once_on_a_refused_key():
    calls = []

    def refused(case):
        calls.append(case.id)
        raise EndpointError("The endpoint refused the key.", kind="key_refused")

    with pytest.raises(EndpointError):
        run_eval(CASES, refused, CHECKS)
    assert calls == [CASES[0].id]
