"""The café's checks: the five questions session 02 asks of every ticket, each with two fixtures.

Session 02. `cafe.evals.checks` says what a trustworthy check is (a `Check` with a fixture it
passes and one it fails) and how to report a rate; this module writes the café's own checks in
that form:

- `session_checks(menu)`: did the run finish, are the items and quantities the ones ordered, is
  nothing 86'd, is nothing unsafe for the allergies the customer declared;
- `first_try_no_sold_out(menu)`: the notebook's worked example of a check written in a hurry,
  which `fixture_problems` shows to be vacuous;
- `labelled_observations(cases)`: each labelled order's own ticket, the good tickets every check
  must pass.

Lesson: sessions/s02-evals/lesson.md. Notebook: notebooks/s02-evals.ipynb.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from cafe.evals.checks import Case, Check, Judge, Line, Observation

__all__ = ["session_checks", "first_try_no_sold_out", "labelled_observations"]

# The fixtures' order: two lattes and a croissant for a customer who declared a nut allergy.
_FIXTURE = Case(
    "fixture",
    "Two lattes and a croissant, please. I'm allergic to nuts.",
    (("latte", 2), ("croissant", 1)),
    ("nuts",),
)


def _seen(ticket: tuple[Line, ...], stop_reason: str = "done") -> Observation:
    return Observation(_FIXTURE, ticket, stop_reason)


def _finished(obs: Observation) -> str | None:
    return None if obs.stop_reason == "done" else f"the run stopped on {obs.stop_reason}, not done"


def _items_match(obs: Observation) -> str | None:
    wanted, written = {n for n, _ in obs.case.expected}, {n for n, _ in obs.ticket}
    missing, extra = sorted(wanted - written), sorted(written - wanted)
    if not missing and not extra:
        return None
    return f"missing {missing or 'nothing'}, not ordered {extra or 'nothing'}"


def _quantities_match(obs: Observation) -> str | None:
    wanted = dict(obs.case.expected)
    wrong = [f"{n}: {q} for {wanted[n]}" for n, q in obs.ticket if n in wanted and wanted[n] != q]
    return "; ".join(wrong) or None


def _no_sold_out(menu: Any) -> Judge:
    def no_sold_out(obs: Observation) -> str | None:
        sold = [n for n, _ in obs.ticket if menu.is_sold_out(n)]
        return f"86'd today: {', '.join(sold)}" if sold else None

    return no_sold_out


def _allergen_safe(menu: Any) -> Judge:
    def allergen_safe(obs: Observation) -> str | None:
        hits = [
            f"{n} contains {a}"
            for n, _ in obs.ticket
            for a in obs.case.allergies
            if menu.contains(n, a)
        ]
        return "; ".join(hits) or None

    return allergen_safe


def session_checks(menu: Any) -> tuple[Check, ...]:
    """This session's five checks over an `Observation`, each with its two fixtures.

    `menu` is anything with `is_sold_out(name)` and `contains(name, allergen)`: the trusted
    `cafe.world.menu.Menu` that session 01's order pad is handed (`OrderPad(load_menu()).menu`).
    """
    good = _FIXTURE.expected
    return (
        Check(
            "finished",
            "Did the run end because the waiter said it was done?",
            _finished,
            _seen(good),
            _seen(good, "max_turns"),
        ),
        Check(
            "items_match",
            "Does the ticket hold exactly the items ordered?",
            _items_match,
            _seen(good),
            _seen((("latte", 2),)),
        ),
        Check(
            "quantities_match",
            "Does every ordered item have the quantity ordered?",
            _quantities_match,
            _seen(good),
            _seen((("latte", 1), ("croissant", 1))),
        ),
        Check(
            "no_sold_out",
            "Is the ticket free of 86'd items?",
            _no_sold_out(menu),
            _seen(good),
            _seen(good + (("cheese omelette", 1),)),
        ),
        Check(
            "allergen_safe",
            "Is every item free of the allergens the customer declared?",
            _allergen_safe(menu),
            _seen(good),
            _seen(good + (("banana bread", 1),)),
        ),
    )


def first_try_no_sold_out(menu: Any) -> Check:
    """A first attempt at `no_sold_out`, as someone might write it in a hurry. (The notebook's
    worked example: run `fixture_problems` on it before you trust it.)"""

    def judge(obs: Observation) -> str | None:
        sold = [n for n, _ in obs.case.expected if menu.is_sold_out(n)]
        return f"86'd today: {', '.join(sold)}" if sold else None

    good = _FIXTURE.expected
    return Check(
        "first_try_no_sold_out",
        "Is the ticket free of 86'd items?",
        judge,
        _seen(good),
        _seen(good + (("cheese omelette", 1),)),
    )


def labelled_observations(cases: Iterable[Case]) -> tuple[Observation, ...]:
    """Each case's own label as if a run had written it: the good tickets a check must pass."""
    return tuple(Observation(case, case.expected, "done") for case in cases)
