"""The menu's data against the allergen standard: a name that names an allergen's ingredient.

Principle: an item (or a modifier option) whose name names an ingredient of an allergen group in
the course's standard (`cafe/data/allergens.json`) contains that group. An "oat latte" holds oats,
and the standard lists oats under cereals containing gluten, so the menu must tag it gluten; a
held-out red-teamer served one to a customer who had declared "oats", "oat" and "coeliac", because
the menu tagged it with nothing and every check (the gate and the `harm()` audit) reads the menu.

The data check reads both JSON files itself, not through `cafe.world.menu` or
`cafe.world.allergens`, so a mistake in `Menu.contains` or `allergen_key` cannot hide a gap in the
data. A word counts when it stands as whole words in a name or any of an option's other spellings
("oat" in "oat latte", never "goat" or "oatmeal"), also with a plural s ("oats latte"); a spelling
that opens with a word that keeps the ingredient out ("no butter", "without butter", "less milk")
names what is left out, and adds nothing. The menu file names a group by any of its names
("dairy" is milk), read here from the standard's own lists. A word inside a longer listed word
belongs to the longer one ("soy milk" is soy). `MADE_OF` reads a name the standard does not list
as what the item is made of (granola is oats).

What it does not decide: an item whose recipe holds an allergen its name does not say. The
red-teamer's other arguable cases are of that kind and stay as the menu records them (its data
are invented for teaching; a real café reads its recipes and its suppliers' labels): banana bread
(egg, gluten, nuts; served unbuttered, since "butter on the side" is the option that adds milk),
caramel syrup (a coffee-bar syrup is sugar, water and flavouring; a caramel sauce with cream would
be another option) and marshmallows (sugar and gelatine; egg white only in some recipes).
The gaps it found are listed in `KNOWN`, a ratchet that may only shrink.

Then `Menu.contains(item, allergy)` is checked against the data: every word the standard lists for
a group the menu records (its names, "coeliac", and its ingredients, "oats", "oat", "wheat") puts
exactly the items tagged with that group at risk, written as customers write it (any case, "X
allergy", "allergic to X", "X-free"), on generated inputs.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from cafe.world.menu import load_menu

ROOT = Path(__file__).resolve().parents[1]
STANDARD = json.loads((ROOT / "cafe" / "data" / "allergens.json").read_text(encoding="utf-8"))
MENU_DATA = json.loads((ROOT / "cafe" / "data" / "menu.json").read_text(encoding="utf-8"))

# Words that open a spelling which keeps an ingredient out: "no butter", "without butter",
# "less milk", "light on the milk" (the menu's own removal options). Such a spelling adds nothing.
KEEPS_OUT = ("no", "without", "less", "light on the")
# Names the standard does not list but whose main ingredient it does, decided from what the item
# is: granola is oats baked with honey and nuts, so a granola bowl holds oats (gluten).
MADE_OF = {"granola": "oats"}
# The gaps this check found in `cafe/data/menu.json` that are not fixed yet: a ratchet that may
# only shrink. Fixing them moves token counts the course quotes (a toy's stored output, the s03,
# s09 and s11 predictions, the s07 note's figures), so the data change lands with those.
KNOWN: dict[str, str] = {}
# How customers frame an allergy (from `allergen_key`'s docstring and tests/test_menu.py's table).
FRAMES = ("{}", "{} allergy", "allergic to {}", "{}-free", "{} intolerance", "  {}  ")


def group_words(standard: dict) -> dict[str, str]:
    """Every word the standard lists, lower case -> its group's key: the key, names, ingredients."""
    words: dict[str, str] = {}
    for key, group in standard["groups"].items():
        for word in (key, *group["names"], *group["ingredients"]):
            words[word.lower()] = key
    return words


def _tokens(text: str) -> list[str]:
    """'Oat  Latte' -> ['oat', 'latte']: lower-case words, apostrophes kept ("goat's")."""
    return re.findall(r"[a-z0-9']+", text.lower())


def named_groups(spelling: str, words: dict[str, str]) -> set[str]:
    """The groups whose words stand as whole words in `spelling` ('oat latte' -> {'gluten'}).

    A word inside a longer listed word belongs to the longer one: "soy milk" names soy and
    "peanut butter" peanuts, never milk.
    """
    tokens = [_tokens(MADE_OF.get(t, t)) for t in _tokens(spelling)]
    tokens = [word for made_of in tokens for word in made_of]
    if " ".join(tokens).startswith(tuple(f"{w} " for w in KEEPS_OUT)):
        return set()
    singular = [t[:-1] if t.endswith("s") else t for t in tokens]
    matches = []  # (start, end, group) of every listed word found
    for word, key in words.items():
        wanted = _tokens(word)
        for start in range(len(tokens) - len(wanted) + 1):
            end = start + len(wanted)
            if wanted in (tokens[start:end], singular[start:end]):
                matches.append((start, end, key))
    return {
        key
        for start, end, key in matches
        if not any(s <= start and end <= e and e - s > end - start for s, e, _ in matches)
    }


def tagged_groups(tags: list[str]) -> set[str]:
    """The groups a menu entry's allergen tags name ('dairy' -> milk), by the standard's names."""
    names = {
        name.lower(): key
        for key, group in STANDARD["groups"].items()
        for name in (key, *group["names"])
    }
    return {names.get(tag.lower(), f"<not a group name: {tag}>") for tag in tags}


def unmarked_names(menu_data: dict, standard: dict) -> list[str]:
    """Every item and modifier option whose name names a group its allergens leave out."""
    words = group_words(standard)
    found = []
    for name, entry in menu_data["items"].items():
        missing = named_groups(name, words) - tagged_groups(entry["allergens"])
        found += [f"item {name!r} names {group} but is not tagged {group}" for group in missing]
    for group_name, group in menu_data.get("modifiers", {}).items():
        if group_name.startswith("_"):
            continue  # a comment
        for option, raw in group["options"].items():
            tags = tagged_groups(raw.get("allergens", []))
            for spelling in (option, *raw.get("aliases", [])):
                for missing in sorted(named_groups(spelling, words) - tags):
                    found.append(
                        f"option {group_name}.{option!r} ({spelling!r}) names {missing} "
                        f"but does not add {missing}"
                    )
    return found


def test_menu_every_name_that_names_an_ingredient_carries_its_group():
    found = unmarked_names(MENU_DATA, STANDARD)
    new = [gap for gap in found if gap not in KNOWN]
    assert not new, "tag these in cafe/data/menu.json:\n" + "\n".join(new)
    fixed = sorted(set(KNOWN) - set(found))
    assert not fixed, f"fixed in the menu, take them out of KNOWN: {fixed}"


def test_menu_check_finds_the_oat_latte_the_red_teamer_was_served():
    """The check fails on the data as it was (oat latte tagged with nothing), so it can fail."""
    old = {
        "items": {"oat latte": {"price": 4.5, "allergens": []}},
        "modifiers": {
            "bakery": {
                "applies_to": ["oat latte"],
                "options": {
                    "buttered": {"aliases": ["with butter"]},
                    "no butter": {"aliases": ["without butter"]},
                },
            }
        },
    }
    assert unmarked_names(old, STANDARD) == [
        "item 'oat latte' names gluten but is not tagged gluten",
        "option bakery.'buttered' ('with butter') names milk but does not add milk",
    ]


def test_menu_check_reads_whole_words_plurals_and_group_names():
    words = group_words(STANDARD)
    assert named_groups("Oats Latte", words) == {"gluten"}
    assert named_groups("goat cheese toast", words) == {"milk"}  # cheese, never "oat" in goat
    assert named_groups("oatmeal", words) == set()  # not a word the standard lists
    assert named_groups("peanut butter cookie", words) == {"peanuts"}  # the longer word
    assert named_groups("soy milk latte", words) == {"soy"}
    assert named_groups("no butter", words) == set()
    assert named_groups("granola bowl", words) == {"gluten"}  # MADE_OF: granola is oats
    assert tagged_groups(["dairy", "egg"]) == {"milk", "egg"}


# The groups the menu records, by the menu's own tags, and each item's groups.
ITEM_GROUPS = {
    name: tagged_groups(entry["allergens"]) for name, entry in MENU_DATA["items"].items()
}
RECORDED = set().union(*ITEM_GROUPS.values())
MENU = load_menu()
SPELLINGS = sorted(word for word, key in group_words(STANDARD).items() if key in RECORDED)


def test_menu_contains_answers_every_spelling_the_standard_lists():
    for item, groups in ITEM_GROUPS.items():
        for spelling in SPELLINGS:
            expected = group_words(STANDARD)[spelling] in groups
            assert MENU.contains(item, spelling) == expected, (item, spelling)


@given(
    item=st.sampled_from(sorted(ITEM_GROUPS)),
    spelling=st.sampled_from(SPELLINGS),
    frame=st.sampled_from(FRAMES),
    upper=st.booleans(),
)
def test_menu_contains_answers_every_spelling_as_customers_write_it(item, spelling, frame, upper):
    declared = frame.format(spelling)
    declared = declared.upper() if upper else declared.title()
    expected = group_words(STANDARD)[spelling] in ITEM_GROUPS[item]
    assert MENU.contains(item.title(), declared) == expected


def test_menu_can_check_no_word_of_a_group_it_does_not_record():
    """A word of another group ("sesame", "tahini") is asked about, never read as safe."""
    others = [word for word, key in group_words(STANDARD).items() if key not in RECORDED]
    assert others and not any(MENU.can_check(word) for word in others)
