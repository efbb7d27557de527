"""cafe.world.modifiers: the menu's kitchen modifiers load as records, and bad data is refused by name."""

import json

import pytest

from cafe.world.menu import MENU_PATH, load_menu, parse_menu
from cafe.world.modifiers import EVERY_ITEM, Modifier, parse_modifiers

ITEMS = ("latte", "espresso", "croissant")
ALLERGENS = ("milk", "gluten")


def _group(**options) -> dict:
    return {"applies_to": ["latte", "espresso"], "options": options or {"extra hot": {}}}


def test_course_menu_defines_modifiers_and_every_spelling_means_one_option():
    menu = load_menu()
    assert len({m.name for m in menu.modifiers.values()}) >= 30
    assert menu.modifier("Very Hot") == menu.modifier("extra hot")
    assert menu.modifier("to go").applies_to is None  # the service group takes every item
    assert menu.modifier("whipped cream").allergens == {"milk"}
    assert menu.modifier("free") is None and menu.modifier("paid") is None


def test_course_menu_no_option_spells_money_payment_or_an_item():
    menu = load_menu()
    words = {"free", "paid", "comp", "price", "discount", "refund", "charge", "bill", "voucher"}
    for key in menu.modifiers:
        assert not words & set(key.split()), key
        assert key not in menu.items, key


def test_parse_modifiers_reads_options_aliases_allergens_and_prices():
    found = parse_modifiers(
        {"milk": _group(**{"dash of milk": {"aliases": ["With Milk"], "allergens": ["milk"]}})},
        ITEMS,
        ALLERGENS,
    )
    assert set(found) == {"dash of milk", "with milk"}
    modifier = found["with milk"]
    assert modifier == Modifier(
        "milk", "dash of milk", frozenset({"latte", "espresso"}), frozenset({"milk"})
    )
    assert modifier.applies("latte") and not modifier.applies("croissant")


@pytest.mark.parametrize(
    ("data", "complaint"),
    [
        (
            {"g": {"applies_to": ["pizza"], "options": {"hot": {}}}},
            "'pizza', which is not on the menu",
        ),
        ({"g": {"applies_to": "latte", "options": {"hot": {}}}}, "list of item names or '*'"),
        ({"g": {"applies_to": "*", "options": {}}}, "non-empty object"),
        ({"g": {"applies_to": "*"}}, "exactly applies_to and options"),
        ({"g": _group(hot={"colour": "red"})}, "not an option field"),
        ({"g": _group(hot={"allergens": ["sesame"]})}, "unknown allergen 'sesame'"),
        ({"g": _group(hot={"price": "cheap"})}, "number of euros"),
        ({"g": _group(hot={"aliases": "very hot"})}, "list of spellings"),
        ({"g": _group(hot={}, HOT={})}, "every spelling must mean one option"),
        ({"a": _group(hot={}), "b": _group(warm={"aliases": ["Hot!"]})}, "like 'hot' of group 'a'"),
        ({"g": _group(**{"h\u200bot": {}})}, "spells an option as"),
        ([], "group name -> {applies_to, options}"),
    ],
)
def test_parse_modifiers_bad_data_names_the_field(data, complaint):
    with pytest.raises(ValueError, match="menu.json") as caught:
        parse_modifiers(data, ITEMS, ALLERGENS, source="menu.json")
    assert complaint in str(caught.value)


def test_parse_menu_modifiers_are_optional_and_checked_against_its_items():
    data = json.loads(MENU_PATH.read_text(encoding="utf-8"))
    assert parse_menu({"items": data["items"]}).modifiers == {}
    data["modifiers"]["bakery"]["applies_to"].append("scone")
    with pytest.raises(ValueError, match="modifiers.bakery.applies_to"):
        parse_menu(data)


def test_every_item_marker_is_declared_once():
    assert EVERY_ITEM == "*"
    found = parse_modifiers(
        {"s": {"applies_to": EVERY_ITEM, "options": {"to go": {}}}}, ITEMS, ALLERGENS
    )
    assert found["to go"].applies_to is None and found["to go"].applies("anything")


def test_modifiers_text_lists_each_group_once_with_what_it_applies_to():
    text = load_menu().modifiers_text()
    assert "- service (any item): to go" in text
    assert text.count("extra hot") == 1
