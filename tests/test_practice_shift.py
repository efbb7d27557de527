"""cafe.stories.practice_shift: the shift's known mix is what the taxonomy measures, offline and over HTTP
against `cafe serve --session 10`, and the first fix the taxonomy names moves the counts."""

import openai

from cafe.consent import OrderSpec
from cafe.endpoint.scripts.rehearsals import SHIFT_HABITS, session_script, shift_responder
from cafe.endpoint.server.serve import running_server
from cafe.endpoint.settings.config import OFFLINE_MODEL
from cafe.repair.reask import RepairResult, brief_for, make_model_generator, repair_ticket
from cafe.schema.ticket import Failure
from cafe.stories.practice_shift import (
    PRACTICE_SHIFT,
    designed_counts,
    practice_generator,
    practice_orders,
)
from cafe.taxonomy import FAILURE_CLASSES, classify, first_fix, run_shift, sort_runs
from cafe.world.menu import load_menu

MENU = load_menu()


def measured(runs):
    return ["passed" if run.passed else classify(run) for run in runs]


def test_practice_shift_measured_classes_are_the_designed_ones_order_by_order():
    runs = run_shift(practice_orders(), practice_generator())
    assert measured(runs) == [order.designed for order in PRACTICE_SHIFT]


def test_practice_shift_counts_add_up_to_the_designed_mix():
    taxonomy = sort_runs(run_shift(practice_orders(), practice_generator()))
    designed = designed_counts()
    assert taxonomy.passed == designed["passed"]
    assert {name: n for name, n in taxonomy.counts.items() if n} == {
        k: v for k, v in designed.items() if k != "passed"
    }
    assert taxonomy.runs == len(PRACTICE_SHIFT) == sum(designed.values())


def test_practice_shift_has_every_class_and_distinct_tables():
    assert set(designed_counts()) == {"passed", *FAILURE_CLASSES}
    tables = [order.spec.table for order in PRACTICE_SHIFT]
    assert len(set(tables)) == len(tables)
    assert set(SHIFT_HABITS) <= set(tables)


def test_practice_shift_runs_twice_the_same_because_the_drafter_is_stateless():
    first = run_shift(practice_orders(), practice_generator())
    again = run_shift(practice_orders(), practice_generator())
    assert [run.result for run in first] == [run.result for run in again]


def stop_86d_first(spec, generate):
    """The fix the practice shift's taxonomy points at: an 86'd item stops the order before drafting."""
    sold = [item for item in spec.items if MENU.is_sold_out(item)]
    if sold:
        return RepairResult(
            "policy_violation",
            None,
            (),
            blocked_by=tuple(
                Failure("sold_out", item, "tell the customer; take a new order") for item in sold
            ),
        )
    return repair_ticket(spec, generate)


def test_practice_shift_first_fix_moves_the_biggest_pile_and_spends_fewer_drafts():
    generate = practice_generator()
    before = sort_runs(run_shift(practice_orders(), generate))
    drafts_before = len(generate.client.calls)
    target = first_fix(before)
    assert target is not None and target[:2] == ("alternating", "sold_out")
    generate = practice_generator()
    after = sort_runs(run_shift(practice_orders(), generate, runner=stop_86d_first))
    assert after.counts["alternating"] == before.counts["alternating"] - target[2]
    assert after.counts["blocked"] == before.counts["blocked"] + target[2]
    assert after.passed == before.passed and after.runs == before.runs
    assert len(generate.client.calls) == drafts_before - 3 * target[2]


def test_shift_responder_over_http_gives_the_same_taxonomy_as_offline():
    with running_server(session_script("10")) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="sk-local", max_retries=0)
        runs = run_shift(practice_orders(), make_model_generator(client, OFFLINE_MODEL))
    assert measured(runs) == [order.designed for order in PRACTICE_SHIFT]
    (transport,) = [run for run in runs if run.transport]
    assert transport.transport == "http_error" and "503" in transport.detail


def test_shift_responder_answers_a_request_that_is_not_a_brief_by_the_default_rule():
    reply = shift_responder({"messages": [{"role": "user", "content": "Say OK."}]})
    assert reply == "Hello from the scripted café model."


def test_shift_responder_follows_the_last_view_only():
    spec = OrderSpec(table=14, items=("cheese omelette", "americano"))
    brief = list(brief_for(spec))
    told_86d = "Attempt 1 failed 1 check:\n- sold_out: 'cheese omelette'. Fix: no 86'd item"
    told_missing = (
        "Attempt 2 failed 1 check:\n- out_of_scope: '(missing) cheese omelette'. Fix: put it back"
    )
    dropped = shift_responder({"messages": brief + [{"role": "user", "content": told_86d}]})
    restored = shift_responder({"messages": brief + [{"role": "user", "content": told_missing}]})
    assert '"items": ["americano"]' in dropped
    assert '"items": ["cheese omelette", "americano"]' in restored


def test_toy_10_live_against_cafe_serve_session_10_reads_like_the_offline_shift():
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("CAFE_") or k == "CAFE_HOME"}
    toy = root / "sessions" / "s10-failure-taxonomy" / "toy.py"
    offline = subprocess.run(
        [sys.executable, str(toy)], capture_output=True, text=True, env=env, cwd=root, timeout=120
    )
    with running_server(session_script("10"), label="session-10") as server:
        env.update(
            {
                "COURSE_MODE": "live",
                "CAFE_BASE_URL": server.base_url,
                "CAFE_API_KEY": "sk-local",
                "CAFE_MODEL": OFFLINE_MODEL,
            }
        )
        live = subprocess.run(
            [sys.executable, str(toy)],
            capture_output=True,
            text=True,
            env=env,
            cwd=root,
            timeout=120,
        )
    assert offline.returncode == 0 and live.returncode == 0, offline.stderr + live.stderr
    for out in (offline.stdout, live.stdout):
        assert "5: a failure went away and came back (alternating" in out
        assert "The counts add up: 7 passed + 13 sorted = 20 runs" in out
    assert "default rule" not in live.stdout
