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

Like `reference_s12`, this module imports nothing from `cafe`: the `Calibration` record is
passed in as `make`, and the two bars by `reference_s12.calibrations`, which pins them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

__all__ = ["at_rate_edges", "with_holes"]

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
