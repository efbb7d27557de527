"""Session 12's calibrations at the edges of the trust rule's two rates and of its "every ticket
graded", for `check_trust_rule`.

`reference_s12.calibrations` draws most of its calibrations here and there around every
minimum the lesson states; the unparsed share and the catch rate need more. A rule that rounds
a rate the way a report prints it (5.45% shown as 5%, 89.5% as 90%) is wrong only on ratios
within half a percent of the bar, and round counts (20, 50, 100 tickets) never land there. These
calibrations do: from 200 to 400 tickets, so one ticket moves a rate by half a percent at most,
with the count one under, at, or one over the bar, and every other minimum kept with room.

The lesson's rule 3 also asks every ticket graded: a ticket the endpoint never answered is a hole
in the measure. `with_holes` leaves one to four such tickets on judges every other clause trusts,
beside from none to the most unparsed replies the 5% limit allows, so a rule that lets a few holes
through (as a share of a limit, as missed tickets, up to some count) is refused somewhere.

Kappa is None only when chance agreement is exactly 1, and a number however close to 1 it comes:
every threshold is tried at and either side of its edge. `lopsided_days` gives `check_calibrate`
days where one kind is nearly all: up to 250 listings of one kind, each judged right, and none to
two of the other, answered anything. With none of the few, or none of them judged, chance is 1
exactly; with one, it is 1 - 1/n, 0.996 at 250, so a kappa given up at chance over 0.99 (or any
bar short of 1) is refused somewhere.

Like `reference_s12`, this module imports nothing from `cafe`: the `Calibration` record is
passed in as `make`, and the two bars by `reference_s12.calibrations`, which pins them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["at_rate_edges", "with_holes", "lopsided_days", "runs"]

# From 200 tickets on, one ticket is at most half a percent of a rate: the count one past the
# bar is within half a percent of it, on either side.
_FEWEST, _MOST = 200, 400


def _unparsed_edge(share: float, asked: int, step: int, model: str) -> Any:
    """`asked` tickets, the most the `share` limit allows unparsed plus `step` (0 or 1), every
    judged ticket right and the broken and right ones split evenly (plenty of each)."""
    unparsed = math.floor(share * asked + 1e-9) + step  # 1e-9: 0.05 * 220 is 11.000...02
    judged = asked - unparsed
    bad = judged // 2
    return (model, bad, 0, judged - bad, 0, unparsed), model


def _catch_edge(rate: float, bad: int, good: int, step: int, model: str) -> Any:
    """`bad` broken tickets caught at the `rate` bar's count plus `step` (-1: one short), no false
    alarm and no unparsed reply, `good` right tickets: kappa stays over 0.8, the catch decides."""
    caught = min(bad, math.ceil(rate * bad - 1e-9) + step)
    return (model, caught, bad - caught, good, 0, 0), model


def at_rate_edges(make: Callable[..., Any], share: float, rate: float) -> Any:
    """(calibration, model now judging): the unparsed share (limit `share`) or the catch rate
    (bar `rate`) one ticket either side of its bar, out of 200 to 400, so within half a percent
    of it; the model is the one calibrated, so only the rate decides."""
    from hypothesis import strategies as st

    def built(args: Any) -> Any:
        cells, model = args
        return make(*cells), model

    tickets = st.integers(_FEWEST, _MOST)
    model = st.just("judge")
    unparsed = st.builds(_unparsed_edge, st.just(share), tickets, st.integers(0, 1), model)
    catch = st.builds(_catch_edge, st.just(rate), tickets, tickets, st.integers(-1, 0), model)
    return st.one_of(unparsed, catch).map(built)


def with_holes(make: Callable[..., Any], share: float, fewest: int) -> Any:
    """(calibration, model now judging): a judge right on every ticket it graded, `fewest` to 150
    of each kind, from none to the most unparsed replies the `share` limit allows, and 1 to 4
    tickets never graded (`failed`): only "every ticket graded" refuses it."""
    from hypothesis import strategies as st

    def built(bad: int, good: int, quiet: int, failed: int) -> Any:
        unparsed = min(quiet, math.floor(share * (bad + good) / (1 - share)))
        return make("judge", bad, 0, good, 0, unparsed, failed=failed), "judge"

    plenty = st.integers(fewest, 150)
    return st.builds(built, plenty, plenty, st.integers(0, 8), st.integers(1, 4))


# The most listings of the many kind on a lopsided day: 1 in 251 puts chance at 0.996.
LOPSIDED = 250


def lopsided_days(make: Callable[..., Any], pool: Any, spelled: Any, anything: Any) -> Any:
    """Days (`make(picks, pool)`, a `reference_s12.JudgeDay`) of 1 to `LOPSIDED` listings of one
    kind of ticket from `pool`, the judge giving each its truth in one of `spelled[truth]`, and
    none to two listings of the other kind, answered by `anything` and placed anywhere."""
    from hypothesis import strategies as st

    kinds = {t: [n for n, item in enumerate(pool) if item.truth == t] for t in ("pass", "fail")}

    def day(many: str, count: int, say: Any, few: list[Any], at: list[int]) -> Any:
        listed = [(kinds[many][n % len(kinds[many])], say) for n in range(count)]
        for pick, place in zip(few, at, strict=False):
            listed.insert(place % (len(listed) + 1), pick)
        return make(tuple(listed), tuple(pool))

    def of(many: str) -> Any:
        other = kinds["fail" if many == "pass" else "pass"]
        few = st.lists(st.tuples(st.sampled_from(other), anything), max_size=2)
        places = st.lists(st.integers(0, LOPSIDED), min_size=2, max_size=2)
        count = st.integers(1, LOPSIDED)
        return st.builds(day, st.just(many), count, st.sampled_from(spelled[many]), few, places)

    return st.one_of(of("pass"), of("fail"))


def runs(items: list[str], between: str) -> str:
    """`items` joined by `between`, a run of one item written once with its count ('p×120')."""
    out: list[str] = []
    for item in items:
        if out and out[-1].split("×")[0] == item:
            head, _, count = out[-1].partition("×")
            out[-1] = f"{head}×{int(count or 1) + 1}"
        else:
            out.append(item)
    return between.join(out)
