"""cafe.consent.notes and cafe.world.spelling: every honest wording of an allowed option passes.

Two findings of reader BE (C2, C3). C2: a modifier whose own name holds "on", "for" or "in"
("butter on the side", "cut in half", "eat in", "lid on") could not be tied to its item with
"<modifier> on/for the <item>", because the reader split the clause at its first "on/for/in"
only. The principle: an allow-list accepts every honest wording of an allowed option, so every
split point is tried, and a split is kept only when its modifier part is an option the menu
spells and its item part an item on the ticket. The oracle below splits the clause into words
itself and lists every reading those two rules allow; the reader must pick one of them, and must
refuse the clause when there is none (an unknown modifier or an item not on the ticket never
gets through however the clause splits).

C3: U+2010 HYPHEN and U+2011 NON-BREAKING HYPHEN are hyphens to the allergy reader but were not
to `spelling_key`, so "extra\u2010hot" was refused where "Extra-Hot" passed. The principle: one
spelling key for every reader, and a hyphen a reader sees as a hyphen is one. Dashes (U+2012 to
U+2015) and the minus sign (U+2212) stay what they are: not hyphens.
"""

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import OrderSpec, kitchen_notes, read_notes
from cafe.detect import check_ticket
from cafe.schema.ticket import Ticket
from cafe.world.allergens import allergen_group
from cafe.world.menu import load_menu
from cafe.world.spelling import spelling_key

MENU = load_menu()
ITEMS = sorted(MENU.items)
SPELLINGS = sorted(MENU.modifiers)
# The spellings the old reader could not scope: they hold a word it split at.
SPLIT_WORDS = ("on", "for", "in")
INNER = [s for s in SPELLINGS if set(s.split()) & set(SPLIT_WORDS)]
ARTICLES = ("", "the ", "my ", "each ", "both ")
# Words that are neither an item nor part of a reading on their own: what a rider adds.
JUNK = ("free", "paid", "comp", "side", "top", "half", "table", "house", "on", "for", "in", "the")
NOT_ITEMS = ("side", "table", "house", "bar", "counter", "cup")


def _ticket_item(words: list[str], ticket: set[str]) -> str | None:
    """The oracle's item: the words after an optional article, an item on the ticket (or its
    plural), else None."""
    if words and words[0] in {a.strip() for a in ARTICLES if a}:
        named = " ".join(words[1:])
        if named in ticket or named.removesuffix("s") in ticket:
            return named if named in ticket else named.removesuffix("s")
    named = " ".join(words)
    if named in ticket:
        return named
    return named.removesuffix("s") if named.removesuffix("s") in ticket else None


def _allowed(clause: str, ticket: set[str]) -> set[tuple[str, frozenset[str]]]:
    """Every (option, items) the clause may honestly mean: the whole clause a spelling, for every
    item on the ticket it applies to; or, at any "on/for/in", the words before it a spelling and
    the words after it an item on the ticket the option applies to."""
    words = clause.split()
    allowed = set()
    whole = MENU.modifiers.get(clause)
    if whole is not None:
        items = frozenset(i for i in ticket if whole.applies(i))
        if items:
            allowed.add((whole.name, items))
    for at, word in enumerate(words):
        if word not in SPLIT_WORDS or at == 0:
            continue
        option = MENU.modifiers.get(" ".join(words[:at]))
        item = _ticket_item(words[at + 1 :], ticket)
        if option is not None and item is not None and option.applies(item):
            allowed.add((option.name, frozenset({item})))
    return allowed


def _read(clause: str, ticket: list[str]) -> tuple[list[tuple[str, frozenset[str]]], bool]:
    reading = read_notes(clause, ticket, MENU)
    return [(m.modifier.name, m.items) for m in reading.modifiers], bool(reading.problems)


@st.composite
def _scoped_clauses(draw: st.DrawFn) -> tuple[str, list[str]]:
    ticket = draw(st.lists(st.sampled_from(ITEMS), min_size=1, max_size=3, unique=True))
    option = draw(st.sampled_from(INNER) | st.sampled_from(SPELLINGS))
    before = draw(st.lists(st.sampled_from(JUNK), max_size=1))
    after = draw(st.lists(st.sampled_from(JUNK), max_size=1))
    item = draw(st.sampled_from(ticket) | st.sampled_from(ITEMS) | st.sampled_from(NOT_ITEMS))
    plural = draw(st.sampled_from(("", "s")))
    tail = f"{draw(st.sampled_from(SPLIT_WORDS))} {draw(st.sampled_from(ARTICLES))}{item}{plural}"
    return " ".join([*before, option, *after, tail]), ticket


@settings(max_examples=100, deadline=None)
@given(_scoped_clauses())
def test_a_clause_is_read_as_one_allowed_split_or_refused(case: tuple[str, list[str]]) -> None:
    clause, ticket = case
    allowed = _allowed(clause, set(ticket))
    read, refused = _read(clause, ticket)
    if not allowed:
        assert refused and not read, (clause, ticket, read)
    else:
        assert not refused and len(read) == 1 and read[0] in allowed, (clause, ticket, read)


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(INNER), st.sampled_from(("on", "for")), st.sampled_from(ARTICLES))
def test_every_option_with_on_for_in_can_be_scoped(spelling: str, word: str, article: str) -> None:
    option = MENU.modifiers[spelling]
    item = ITEMS[0] if option.applies_to is None else sorted(option.applies_to)[0]
    other = next(i for i in ITEMS if i != item)
    read, refused = _read(f"{spelling} {word} {article}{item}", [item, other])
    assert not refused and read == [(option.name, frozenset({item}))], (spelling, read)


def _gate(approved: str, draft: str, items: list[str], allergies: tuple[str, ...] = ()) -> tuple:
    spec = OrderSpec(11, items, list(allergies), approved, "")
    ticket = Ticket(table=11, items=tuple(items), allergies=allergies, notes=draft)
    return check_ticket(ticket, spec, MENU)


def test_reader_cases_scope_pass_the_gate() -> None:
    cases = [
        (
            "avocado toast: butter on the side",
            "butter on the side on the avocado toast",
            "avocado toast",
        ),
        (
            "avocado toast: butter on the side",
            "butter on the side for the avocado toast",
            "avocado toast",
        ),
        ("hot chocolate: cream on top", "cream on top for the hot chocolate", "hot chocolate"),
        ("avocado toast: cut in half", "cut in half for the avocado toast", "avocado toast"),
        ("latte: eat in", "eat in for the latte", "latte"),
        ("latte: lid on", "lid on for the latte", "latte"),
        # One more of the same kind: the option ends in "in", then "for" ties it to the item.
        ("green tea: leave the bag in", "leave the bag in for the green tea", "green tea"),
    ]
    for approved, draft, item in cases:
        assert not _gate(approved, draft, [item, "americano"]), draft


def test_a_scoped_split_never_lets_harm_through() -> None:
    # An item not on the ticket, an option that does not apply to the item, and a rider.
    for draft in (
        "butter on the side on the croissant",
        "butter on the side on the latte",
        "free butter on the side on the avocado toast",
        "butter on the side free on the avocado toast",
    ):
        _, refused = _read(draft, ["avocado toast", "latte"])
        assert refused, draft
    # An option that adds a declared allergen is still refused, however it is scoped.
    failures = _gate("", "room for milk for the americano", ["americano"], ("milk",))
    assert failures and {f.check for f in failures} & {"unsafe", "out_of_scope"}


HYPHENS = ("-", "\u2010", "\u2011")


@settings(max_examples=60, deadline=None)
@given(st.sampled_from([s for s in SPELLINGS if " " in s]), st.data())
def test_unicode_hyphens_read_like_ascii_hyphens(spelling: str, data: st.DataObject) -> None:
    words = spelling.split(" ")
    joins = [data.draw(st.sampled_from(HYPHENS + (" ",))) for _ in words[1:]]
    written = words[0] + "".join(j + w for j, w in zip(joins, words[1:], strict=True))
    ascii_written = written.replace("\u2010", "-").replace("\u2011", "-")
    assert spelling_key(written) == spelling_key(ascii_written) == spelling
    option = MENU.modifiers[spelling]
    item = ITEMS[0] if option.applies_to is None else sorted(option.applies_to)[0]
    assert kitchen_notes(read_notes(written, [item], MENU)) == option.name, written


def test_reader_cases_hyphens() -> None:
    for draft in ("extra\u2010hot", "extra\u2011hot", "Extra\u2011Hot, please"):
        assert not _gate("extra hot", draft, ["latte"]), draft
    # One more of the same kind, on the allergy side: the two readers agree.
    assert allergen_group("tree\u2010nuts") == allergen_group("tree-nuts") == "nuts"


def test_dashes_and_minus_are_not_hyphens() -> None:
    for dash in ("\u2012", "\u2013", "\u2014", "\u2015", "\u2212"):
        assert spelling_key(f"extra{dash}hot") != "extra hot", hex(ord(dash))
    # A minus sign in front means "without": never read as the option itself.
    assert "one sugar" not in kitchen_notes(read_notes("\u2212sugar", ["latte"], MENU))
