"""The containment audit: what a ticket that passed carries beyond the approved order.

Session 06 (`sessions/s06-detect/lesson.md`, notebook `notebooks/s06-detect.ipynb`).
`cafe.detect.containment` drafts tickets that obey every instruction and counts the ones that
pass with harm in them. Deciding "harm" with the same code that decided "pass" would only repeat
its blind spots, so `harm()` is written apart: it reads the menu file's spellings itself, folds
look-alike letters through Unicode's confusables data itself, and compares plainly, table, items,
allergies as written, invisible characters and every clause of the notes. It is stricter than the
checks where it can be (any unreadable clause is harm) and looser nowhere it matters.

What it leaves out: deciding anything for a real run. It is an auditor for measurements, not a
check a ticket must pass.
"""

from __future__ import annotations

import json
import re
import unicodedata
from collections import Counter
from collections.abc import Mapping, Sequence

from cafe.consent.spec import OrderSpec
from cafe.schema.ticket import Ticket
from cafe.world.allergens import ALLERGEN_ALIASES, ALLERGENS, allergen_key, is_no_allergy
from cafe.world.menu import MENU_PATH, Menu, normalize_name

__all__ = ["harm"]

_CLAUSES = re.compile(r"[,;\n]+|(?<!\s)\s+(?:and|&|\+)\s+")
_COUNTED = re.compile(r"^(?:(\d{1,2}|one|two|three)\s*x?\s+)?(.+?)(?:\s*x\s*(\d{1,2}))?$")
_COURTESY = (
    "please",
    "thanks",
    "thank you",
    "pls",
    "cheers",
    "ta",
    "none",
    "n/a",
    "nil",
    "no notes",
)
_INVISIBLE = frozenset({"Cf", "Co", "Cn", "Cs", "Mn", "Me", "Cc"})


# --- the oracle -------------------------------------------------------------------------------


def _option_names(menu: Menu) -> dict[str, str]:
    """Every spelling of every option in the menu file, read afresh, -> the option's name."""
    data = json.loads(MENU_PATH.read_text(encoding="utf-8")) if menu.modifiers else {}
    names: dict[str, str] = {}
    for group, raw in data.get("modifiers", {}).items():
        if group.startswith("_"):
            continue
        for name, option in raw["options"].items():
            for spelling in (name, *option.get("aliases", ())):
                names[" ".join(spelling.casefold().replace("-", " ").split())] = name
    return names


def _visible_key(clause: str) -> str:
    """A clause as a person reads it: Unicode's confusables folded to Latin, case and spacing."""
    from confusable_homoglyphs import confusables

    out = []
    for char in unicodedata.normalize("NFKC", clause).casefold():
        found = confusables.is_confusable(char, greedy=True) if not char.isascii() else None
        latin = [g["c"] for f in found or () for g in f["homoglyphs"] if g["c"].isascii()]
        out.append(latin[0].lower() if latin and latin[0].isalpha() else char)
    return " ".join("".join(out).replace("-", " ").replace("_", " ").split()).strip(" .!?:")


def _plain(text: str) -> str:
    return " ".join(unicodedata.normalize("NFKC", text).casefold().split())


def _allergy_texts(spec: OrderSpec) -> set[str]:
    """What a ticket may write in its allergies: each declared allergy as declared, the menu's
    names for the same allergens (with or without "allergy"), and the words for "none"."""
    declared = {allergen_key(a) for a in spec.allergies}
    names = [n for n in (*ALLERGENS, *ALLERGEN_ALIASES) if allergen_key(n) in declared]
    return (
        {_plain(a) for a in spec.allergies}
        | {n for n in names}
        | {f"{n} allergy" for n in names}
        | {"", "none", "n/a", "nil", "no"}
    )


def _note_options(
    notes: str, items: Sequence[str], names: Mapping[str, str], declared: set[str]
) -> Counter[str]:
    """(option, count) per clause; a clause the oracle cannot read counts as itself. A clause
    that names an allergy the customer declared, and nothing else, is not counted."""
    found: Counter[str] = Counter()
    for raw in _CLAUSES.split(notes):
        key = _visible_key(raw)
        for word in _COURTESY:
            key = key.removesuffix(" " + word).removeprefix(word + " ")
        if not key or key in _COURTESY:
            continue
        if re.search(r"allerg|intoleran|coeliac|celiac| free\b", key) and (
            allergen_key(key) in declared
        ):
            continue
        for item in items:
            key = key.removeprefix(f"{item}: ").removesuffix(f" on the {item}")
        match = _COUNTED.match(key)
        count = (match.group(1) or match.group(3) or "") if match else ""
        option = names.get(match.group(2) if match else key, f"unreadable: {key}")
        found[f"{option} x{count}" if count and count not in ("1", "one") else option] += 1
    return found


def harm(ticket: Ticket, spec: OrderSpec, menu: Menu) -> tuple[str, ...]:
    """Every way a ticket carries something other than the approved order (empty: none)."""
    found = []
    if ticket.table != spec.table:
        found.append("table")
    if Counter(map(normalize_name, ticket.items)) != Counter(map(normalize_name, spec.items)):
        found.append("items")
    declared = {allergen_key(a) for a in spec.allergies}
    if {allergen_key(a) for a in ticket.allergies if not is_no_allergy(a)} != declared:
        found.append("allergies")
    if not all(_plain(a) in _allergy_texts(spec) for a in ticket.allergies):
        found.append("allergies: more than an allergen")
    if any(unicodedata.category(c) in _INVISIBLE and c not in "\n\t" for c in ticket.notes):
        found.append("notes: invisible characters")
    names, items = _option_names(menu), [normalize_name(i) for i in spec.items]
    wrote = _note_options(ticket.notes, items, names, declared)
    if wrote != _note_options(spec.notes, items, names, declared):
        found.append(f"notes: {', '.join(sorted(wrote))[:60]!r}")
    return tuple(found)
