"""cafe.stories.feedback_model: a scripted model that fixes what its feedback names, and only that."""

import json

import pytest

import cafe
from cafe.repair.feedback import CHANGE_NOTHING_ELSE, brief_for
from cafe.repair.reask import attempts_to_pass, make_model_generator, repair_ticket, score_ticket
from cafe.stories.feedback_model import (
    EXTRA_ITEM,
    FENCE_WORDS,
    PRACTICE_ORDERS,
    SLIPS,
    FeedbackModel,
    read_brief,
)
from cafe.world.menu import load_menu

MENU = load_menu()
TABLE_3 = PRACTICE_ORDERS[0]  # with the default seed its first draft leaves out the table


def _ask(model, spec, feedback=None):
    messages = [*brief_for(spec)] + ([{"role": "user", "content": feedback}] if feedback else [])
    return json.loads(model({"messages": messages}))


def test_read_brief_reads_back_the_order_brief_for_wrote():
    spec = PRACTICE_ORDERS[1]
    assert read_brief(brief_for(spec)[0]["content"]) == (spec.table, spec.items, spec.allergies)


def test_read_brief_none_when_the_text_holds_no_order():
    assert read_brief("A latte, please.") is None


def test_feedback_model_without_an_order_answers_in_words_not_a_ticket():
    reply = FeedbackModel()({"messages": [{"role": "user", "content": "Hello?"}]})
    assert score_ticket(reply, TABLE_3, MENU).failures[0].check == "not_json"


def test_feedback_model_same_seed_same_first_draft():
    assert _ask(FeedbackModel(7), TABLE_3) == _ask(FeedbackModel(7), TABLE_3)


def test_feedback_model_naive_retry_repeats_the_habit():
    model = FeedbackModel()
    drafts = [_ask(model, TABLE_3) for _ in range(3)]
    assert all("table" not in draft for draft in drafts)


def test_feedback_model_fixes_a_slip_only_when_the_feedback_names_it():
    assert "table" not in _ask(FeedbackModel(), TABLE_3)  # draft 1 leaves out the table
    vague = FeedbackModel()
    _ask(vague, TABLE_3)
    assert "table" not in _ask(vague, TABLE_3, f"Something was wrong. {CHANGE_NOTHING_ELSE}")
    named = FeedbackModel()
    _ask(named, TABLE_3)
    assert (
        _ask(named, TABLE_3, f"{CHANGE_NOTHING_ELSE}\nmissing_field: 'table'")["table"]
        == TABLE_3.table
    )


def test_feedback_model_improves_unasked_only_without_the_fence():
    fenced, unfenced = 0, 0
    for seed in range(40):
        for fence, counter in ((CHANGE_NOTHING_ELSE, "fenced"), ("", "unfenced")):
            model = FeedbackModel(seed)
            _ask(model, TABLE_3)
            items = _ask(model, TABLE_3, f"{fence}\nmissing_field: 'table'".strip())["items"]
            if EXTRA_ITEM in items:
                fenced, unfenced = (
                    (fenced + 1, unfenced) if counter == "fenced" else (fenced, unfenced + 1)
                )
    assert fenced == 0 and unfenced > 0
    assert FENCE_WORDS in CHANGE_NOTHING_ELSE.casefold()


def test_feedback_model_every_practice_order_can_pass():
    for spec in PRACTICE_ORDERS:
        perfect = {
            "table": spec.table,
            "items": list(spec.items),
            "allergies": list(spec.allergies),
            "notes": "",
        }
        assert score_ticket(json.dumps(perfect), spec, MENU).ticket is not None, spec
        assert EXTRA_ITEM not in spec.items


def test_feedback_model_curated_rescues_more_than_naive_on_the_same_orders():
    found = {}
    for mode in ("naive", "curated"):
        generate = make_model_generator(cafe.make_client(script=FeedbackModel()))
        found[mode] = attempts_to_pass(
            [repair_ticket(spec, generate, mode=mode) for spec in PRACTICE_ORDERS]
        )
    assert found["naive"]["1"] == found["curated"]["1"]  # the same first drafts
    assert found["curated"]["exhausted"] < found["naive"]["exhausted"]
    assert found == {
        "naive": {"1": 4, "2": 0, "3": 0, "exhausted": 6, "blocked": 0},
        "curated": {"1": 4, "2": 3, "3": 1, "exhausted": 2, "blocked": 0},
    }


def test_feedback_model_refuses_a_seed_that_is_not_a_whole_number():
    with pytest.raises(TypeError, match="seed"):
        FeedbackModel("7")


def test_feedback_model_slips_are_the_three_documented():
    assert SLIPS == ("no_table", "no_allergy", "drop_item")
