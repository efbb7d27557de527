"""Session 12's references, written apart from `cafe.judge`, and the inputs to try them on.

`check_calibrate` and `check_trust_rule` (`cafe.exercises.s12`) compare the learner's functions
with these on generated inputs (`cafe.exercises.generated`); `tests/test_exercise_references.py`
holds them to the library's `calibrate` and `trust_reading`. The trust rule's minimums are
pinned here as the lesson states them (20 of each kind, at most 5% unparsed, kappa 0.8, catch
rate 0.9, the very model the calibration measured), not read from `cafe.judge.trust`.

This module imports nothing from `cafe` (only `cafe.exercises.sNN` may) but the rate edges it
draws from (`reference_s12_edges`): what it builds from the course's records (a `Calibration`,
labelled tickets) is passed in.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from cafe.exercises.reference_s12_edges import at_rate_edges, lopsided_days, runs, with_holes

__all__ = ["EACH_KIND", "UNPARSED_SHARE", "KAPPA", "CATCH_RATE", "confusion", "floor_trusts"]
__all__ += ["JudgeDay", "judge_days", "calibrations", "TRUST_ROWS"]

# The lesson's trust rule ("When may you use a judge?"): a rule may be stricter, never looser.
EACH_KIND = 20  # broken and right tickets judged, at least, each
UNPARSED_SHARE = 0.05  # replies with no verdict, at most, of every ticket asked
KAPPA = 0.8  # Landis and Koch's top band
CATCH_RATE = 0.9  # broken tickets failed, at least


def _verdict(answer: Any) -> str:
    """'pass', 'fail' or 'unparsed' for a judge's answer: a verdict word, or a record with one."""
    word = answer if isinstance(answer, str) else getattr(answer, "verdict", None)
    if not isinstance(word, str):
        raise TypeError(f"a judge answered {answer!r}, neither a verdict word nor a Grade")
    word = word.strip().lower()
    return word if word in ("pass", "fail") else "unparsed"


def _kappa(tp: int, fn: int, tn: int, fp: int) -> float | None:
    judged = tp + fn + tn + fp
    if not judged:
        return None
    judge_fails, truly_fails = (tp + fp) / judged, (tp + fn) / judged
    luck = judge_fails * truly_fails + (1 - judge_fails) * (1 - truly_fails)
    if luck == 1:
        return None
    return ((tp + tn) / judged - luck) / (1 - luck)


def confusion(judge: Callable[..., Any], labelled: Sequence[Any]) -> dict[str, Any]:
    """The five cells of `judge` against the checks' truth (a broken ticket the positive class),
    and kappa over the tickets with a verdict."""
    cells = dict.fromkeys(("tp", "fn", "tn", "fp", "unparsed"), 0)
    for item in labelled:
        said = _verdict(judge(item.spec, item.ticket))
        if said == "unparsed":
            cells["unparsed"] += 1
        elif item.truth == "fail":
            cells["tp" if said == "fail" else "fn"] += 1
        else:
            cells["tn" if said == "pass" else "fp"] += 1
    return {**cells, "kappa": _kappa(cells["tp"], cells["fn"], cells["tn"], cells["fp"])}


def floor_trusts(calibration: Any, model: str) -> bool:
    """Whether the lesson's rule lets this judge be used for `model`: the floor of every rule."""
    tp, fn, tn, fp = calibration.tp, calibration.fn, calibration.tn, calibration.fp
    asked = tp + fn + tn + fp + calibration.unparsed
    kappa = _kappa(tp, fn, tn, fp)
    return (
        model == calibration.model
        and min(tp + fn, tn + fp) >= EACH_KIND
        and calibration.unparsed <= UNPARSED_SHARE * asked
        and kappa is not None
        and kappa >= KAPPA
        and tp >= CATCH_RATE * (tp + fn)
        and not getattr(calibration, "failed", 0)
    )


# --- generated inputs --------------------------------------------------------------------------

# What a judge may answer: verdict words in any case and spacing, and replies with no verdict.
ANSWERS = ("pass", "fail", " PASS", "Fail\n", "FAIL", "Pass.", "I cannot tell", "", "passed")


_OTHER = {"pass": "fail", "fail": "pass"}  # the other verdict, for a judge asked again


@dataclass(frozen=True)
class JudgeDay:
    """A generated calibration day: which labelled tickets (by their place in a pool) and what
    the judge answers on each. A ticket listed twice gets the answer of its first listing. An
    `unsteady` judge, like a sampled model, gives the other verdict when a ticket is asked again
    (its days list each ticket once): the table counts the answer each ticket got."""

    picks: tuple[tuple[int, Any], ...]
    pool: tuple[Any, ...]
    unsteady: bool = False

    def __deepcopy__(self, memo: Any) -> JudgeDay:
        return self  # frozen, of frozen records: each call builds its own list and judge

    def labelled(self) -> list[Any]:
        return [self.pool[n] for n, _ in self.picks]

    def judge(self) -> Callable[..., Any]:
        answers: dict[Any, Any] = {}
        for n, answer in self.picks:
            answers.setdefault((self.pool[n].spec, self.pool[n].ticket), answer)

        asked: set[Any] = set()

        def judge(spec: Any, ticket: Any) -> Any:
            answer, again = answers[(spec, ticket)], (spec, ticket) in asked
            asked.add((spec, ticket))
            return _OTHER.get(_verdict(answer), answer) if self.unsteady and again else answer

        return judge

    def __repr__(self) -> str:
        truths = runs(["F" if self.pool[n].truth == "fail" else "p" for n, _ in self.picks], " ")
        answers = runs([repr(answer) for _, answer in self.picks], ", ")
        again = ", and the other verdict when asked again" if self.unsteady else ""
        return (
            f"tickets {truths or '(none)'} (F broken, p right) answered {answers or 'nothing'}"
            + again
        )


def judge_days(pool: Sequence[Any], grade: Callable[[Any], Any]) -> Any:
    """Days of up to 12 tickets from `pool` (distinct tickets, broken and right), repeats too,
    answered by words from ANSWERS or by `grade(verdict)` records, some by an unsteady judge
    (`JudgeDay.unsteady`); and lopsided days, chance agreement 1 or up to 1 - 1/251 (edges)."""
    from hypothesis import strategies as st

    answer = st.one_of(
        st.sampled_from(ANSWERS), st.sampled_from(("pass", "fail", "unparsed")).map(grade)
    )
    pick = st.tuples(st.integers(0, len(pool) - 1), answer)
    picks = st.lists(pick, min_size=1, max_size=12)
    once = st.lists(pick, min_size=1, max_size=12, unique_by=lambda chosen: chosen[0])
    steady = picks.map(lambda chosen: JudgeDay(tuple(chosen), tuple(pool)))
    unsteady = once.map(lambda chosen: JudgeDay(tuple(chosen), tuple(pool), unsteady=True))
    spelled = {"pass": ("pass", " PASS", grade("pass")), "fail": ("fail", "Fail\n", grade("fail"))}
    lopsided = lopsided_days(JudgeDay, pool, spelled, answer)
    return st.one_of(steady, steady, unsteady, lopsided)


def calibrations(make: Callable[..., Any]) -> Any:
    """(calibration, model now judging), most of them at or beside an edge of the rule: a count of
    each kind around 20, misses around a 90% catch rate, unparsed replies around 5%, false alarms
    from none to a quarter; and model names that share a stem, case or a space with the one
    calibrated; now and then, tickets the endpoint never answered (`failed`: the lesson's rule 3,
    every ticket graded). A quarter are at kappa's own edge (`at_kappa_edge`): any counts from 20
    to 150, every other minimum kept, the false alarms that take kappa just over, to, and just
    under 0.8. A quarter are one ticket either side of the unparsed or catch bar out of 200 to 400
    (`reference_s12_edges`: within half a percent of it, where a rounded rate is wrong). A quarter
    leave 1 to 4 tickets never graded on a judge every other clause trusts (`with_holes`)."""
    from hypothesis import strategies as st

    counts = st.sampled_from((EACH_KIND, EACH_KIND - 1, EACH_KIND + 1, 30, 50, 100, 0, 3))
    edge = st.integers(-1, 2)
    names = st.sampled_from(("gpt-4o", "gpt-4o-mini", "GPT-4o", "gpt-4o ", "judge"))
    same = st.just(("judge", "judge"))
    models = st.one_of(same, same, same, st.tuples(names, names))

    def build(
        bad: int, good: int, miss: int, alarm: int, quiet: int, pair: Any, failed: int
    ) -> Any:
        missed = min(bad, max(0, bad - math.ceil(CATCH_RATE * bad) + miss))
        alarms = min(good, alarm * max(1, good // 20))
        asked = bad + good
        unparsed = max(0, math.floor(UNPARSED_SHARE * asked / (1 - UNPARSED_SHARE)) + quiet)
        cells = (bad - missed, missed, good - alarms, alarms, unparsed)
        return make(pair[0], *cells, failed=failed), pair[1]

    def at_kappa_edge(bad: int, good: int, missed: int, step: int, pair: Any) -> Any:
        """Every count and rate minimum kept with room, and the false alarms one short of kappa's
        edge (step -1), the first past it (0), or one more: kappa's threshold and the model's
        name decide."""
        missed = min(missed, bad - math.ceil(CATCH_RATE * bad))
        alarms = min(good, max(0, _kappa_edge(bad - missed, missed, good) + step))
        return make(pair[0], bad - missed, missed, good - alarms, alarms, 0), pair[1]

    alarm = st.integers(0, 5)
    plenty = st.integers(EACH_KIND, 150)
    near = st.integers(-1, 1)
    failed = st.sampled_from((0, 0, 0, 1, 3))  # most calibrations had every ticket answered
    kappa_edges = st.builds(at_kappa_edge, plenty, plenty, st.integers(0, 15), near, models)
    return st.one_of(
        st.builds(build, counts, counts, edge, alarm, edge, models, failed),
        kappa_edges,
        at_rate_edges(make, UNPARSED_SHARE, CATCH_RATE),
        with_holes(make, UNPARSED_SHARE, EACH_KIND),
    )


def _kappa_edge(tp: int, fn: int, good: int) -> int:
    """The fewest false alarms among `good` right tickets that take kappa under the lesson's 0.8
    (`good` when none does): where a rule's kappa threshold is tested."""
    for alarms in range(good + 1):
        kappa = _kappa(tp, fn, good - alarms, alarms)
        if kappa is None or kappa < KAPPA:
            return alarms
    return good


# --- the hand-picked trust cases ------------------------------------------------------------------

_LUCK = "agreement is luck when nearly every ticket is fine"
_FEW = f"measure at least {EACH_KIND} broken and {EACH_KIND} right tickets: with fewer, one ticket moves a rate 5 points"
_QUIET = "a judge that often says nothing is not a judge: at most 5% unparsed"
_MODEL = "a calibration describes the one model it measured, whatever another's name shares"
# (label, (tp, fn, tn, fp[, unparsed]), the floor trusts it, the idea, calibrated model, model now)
TRUST_ROWS: tuple[tuple[str, tuple[int, ...], bool, str, str, str], ...] = (
    (
        "nearly always right, 50 broken and 50 right tickets",
        (49, 1, 50, 0),
        True,
        "a judge that is nearly always right on plenty of both may be used",
        "m",
        "m",
    ),
    (
        "the same figures, but measured on another model",
        (49, 1, 50, 0),
        False,
        _MODEL,
        "m",
        "other",
    ),
    (
        "calibrated on gpt-4o-mini, now running gpt-4o",
        (49, 1, 50, 0),
        False,
        _MODEL,
        "gpt-4o-mini",
        "gpt-4o",
    ),
    (
        "calibrated on gpt-4o, now running gpt-4o-mini",
        (49, 1, 50, 0),
        False,
        _MODEL,
        "gpt-4o",
        "gpt-4o-mini",
    ),
    (
        "passes everything: 95% agreement with 5 broken tickets in 100",
        (0, 5, 95, 0),
        False,
        _LUCK,
        "m",
        "m",
    ),
    (
        "right on all 3 broken tickets it saw, and 97 right ones",
        (3, 0, 97, 0),
        False,
        _FEW,
        "m",
        "m",
    ),
    (
        "right on all 19 broken tickets it saw, and 80 right ones",
        (19, 0, 80, 0),
        False,
        _FEW,
        "m",
        "m",
    ),
    (
        "right on 80 broken tickets and all 19 right ones it saw",
        (80, 0, 19, 0),
        False,
        _FEW,
        "m",
        "m",
    ),
    (
        "no broken ticket at all: 100 right tickets, all passed",
        (0, 0, 100, 0),
        False,
        "with nothing broken to catch, kappa and the catch rate are None: nothing was measured",
        "m",
        "m",
    ),
    (
        "misses a third of the broken tickets",
        (34, 16, 50, 0),
        False,
        "the catch rate is the judge's job: a third missed is too many",
        "m",
        "m",
    ),
    (
        "misses a third of 50 broken tickets among 2,000 (kappa 0.81)",
        (34, 16, 1950, 0),
        False,
        "kappa can look fine when most tickets are right; the catch rate says what it missed",
        "m",
        "m",
    ),
    (
        "catches 44 of 50 broken tickets (88%), every right one passed",
        (44, 6, 50, 0),
        False,
        "the catch rate must reach 90%: 88% is under it",
        "m",
        "m",
    ),
    (
        "fails every ticket: every broken one caught, every right one failed",
        (50, 0, 0, 50),
        False,
        "catching everything by failing everything is kappa 0, no better than luck",
        "m",
        "m",
    ),
    (
        "no verdict on 60 of 100 tickets, right on the 40 it judged",
        (20, 0, 20, 0, 60),
        False,
        _QUIET,
        "m",
        "m",
    ),
    ("no verdict on a quarter of the tickets", (38, 0, 37, 0, 25), False, _QUIET, "m", "m"),
    (
        "no verdict on 6 of 100 tickets (6%), right on the rest",
        (47, 0, 47, 0, 6),
        False,
        _QUIET,
        "m",
        "m",
    ),
)
