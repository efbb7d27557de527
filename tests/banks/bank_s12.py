"""Session 12's banks: `check_calibrate` and `check_trust_rule` (cafe/exercises/s12.py).

The exercise ideas: a judge is a classifier measured against labels it cannot argue with; a
broken ticket is the positive class (tp: broken, judge failed it); a reply with no verdict is
counted apart (`unparsed`), never folded into pass or fail, and kappa is worked out over the
tickets with a verdict, as (observed - chance) / (1 - chance) with each rater's own habits, and is
None when chance agreement is 1. A trust rule refuses a calibration made on another model, one
measured on too few tickets of a kind, one whose agreement is luck, one that often says nothing,
and one that misses many broken tickets; it accepts one that is nearly always right on plenty of
both, and it never raises on a calibration whose kappa or rates are None.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from typing import Any

from banks.harness import Bank, Entry
from cafe.exercises.reference_s12 import floor_trusts
from cafe.exercises.s12 import check_calibrate, check_trust_rule
from cafe.judge.calibration import Calibration, calibrate, cohen_kappa, grade_of
from cafe.judge.labelled import LabelledTicket
from cafe.judge.trust import trust_reading

Judge = Callable[..., Any]
Labelled = Sequence[LabelledTicket]

# --- calibrate: the reference, learner-shaped for the mutation benchmark ----------------------


def my_calibrate(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """The course's `calibrate` with `cohen_kappa` inline, returning the dict the notebook allows
    (the library's Calibration computes kappa with the library's function, which a mutant of a
    copy could never reach)."""
    tp = fn = tn = fp = unparsed = 0
    for item in labelled:
        verdict = grade_of(judge(item.spec, item.ticket)).verdict
        if verdict == "unparsed":
            unparsed += 1
        elif item.truth == "fail":
            if verdict == "fail":
                tp += 1
            else:
                fn += 1
        elif verdict == "fail":
            fp += 1
        else:
            tn += 1
    total = tp + fn + fp + tn
    kappa = None
    if total:
        observed = (tp + tn) / total
        judge_fail, truth_fail = (tp + fp) / total, (tp + fn) / total
        chance = judge_fail * truth_fail + (1 - judge_fail) * (1 - truth_fail)
        kappa = None if chance == 1 else (observed - chance) / (1 - chance)
    return {"tp": tp, "fn": fn, "tn": tn, "fp": fp, "unparsed": unparsed, "kappa": kappa}


def _cells(
    judge: Judge, labelled: Labelled, verdict_of: Callable[[Any], Any] | None = None
) -> dict[str, int]:
    """The five cells, with the judge's answer read by `verdict_of` (default: `grade_of`)."""
    read = verdict_of or (lambda answer: grade_of(answer).verdict)
    cells = dict(tp=0, fn=0, tn=0, fp=0, unparsed=0)
    for item in labelled:
        verdict = read(judge(item.spec, item.ticket))
        if verdict not in ("pass", "fail"):
            cells["unparsed"] += 1
        elif item.truth == "fail":
            cells["tp" if verdict == "fail" else "fn"] += 1
        else:
            cells["fp" if verdict == "fail" else "tn"] += 1
    return cells


def _kappa(cells: dict[str, int]) -> float | None:
    return cohen_kappa(cells["tp"], cells["fn"], cells["fp"], cells["tn"])


# --- calibrate: wrong -------------------------------------------------------------------------


def unparsed_as_agreement(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """Kappa over every ticket, a reply with no verdict counted as agreeing with the checks."""
    cells = _cells(judge, labelled)
    total = len(labelled)
    if cells["unparsed"] == total:
        return {**cells, "kappa": None}
    observed = (cells["tp"] + cells["tn"] + cells["unparsed"]) / total
    judge_fail = (cells["tp"] + cells["fp"]) / total
    truth_fail = (cells["tp"] + cells["fn"]) / total
    chance = judge_fail * truth_fail + (1 - judge_fail) * (1 - truth_fail)
    return {**cells, "kappa": None if chance == 1 else (observed - chance) / (1 - chance)}


def raw_words(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """Compares the judge's answer as written: a Grade, or " PASS", reads as no verdict."""
    cells = _cells(judge, labelled, verdict_of=lambda answer: answer)
    return {**cells, "kappa": _kappa(cells)}


def no_undefined_kappa(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """Divides by 1 - chance without asking whether chance agreement is 1."""
    cells = _cells(judge, labelled)
    tp, fn, tn, fp = cells["tp"], cells["fn"], cells["tn"], cells["fp"]
    total = tp + fn + tn + fp
    if total == 0:
        return {**cells, "kappa": None}
    jf, tf = (tp + fp) / total, (tp + fn) / total
    chance = jf * tf + (1 - jf) * (1 - tf)
    return {**cells, "kappa": ((tp + tn) / total - chance) / (1 - chance)}


def unparsed_as_pass(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """A reply with no verdict is read as a pass."""
    cells = _cells(judge, labelled, lambda a: "fail" if grade_of(a).verdict == "fail" else "pass")
    return {**cells, "kappa": _kappa(cells)}


def unparsed_as_fail(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """A reply with no verdict is read as a fail, "to be safe"."""
    cells = _cells(judge, labelled, lambda a: "pass" if grade_of(a).verdict == "pass" else "fail")
    return {**cells, "kappa": _kappa(cells)}


def agreement_as_kappa(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """Raw agreement handed back as kappa."""
    cells = _cells(judge, labelled)
    judged = cells["tp"] + cells["fn"] + cells["tn"] + cells["fp"]
    return {**cells, "kappa": (cells["tp"] + cells["tn"]) / judged if judged else None}


def good_is_positive(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """The positive class flipped: a right ticket passed counts as a true positive."""
    c = _cells(judge, labelled)
    flipped = dict(tp=c["tn"], fn=c["fp"], tn=c["tp"], fp=c["fn"], unparsed=c["unparsed"])
    return {**flipped, "kappa": _kappa(flipped)}


def scotts_pi(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """Chance from the two raters' pooled fail rate (Scott's pi), not from each rater's own."""
    cells = _cells(judge, labelled)
    tp, fn, tn, fp = cells["tp"], cells["fn"], cells["tn"], cells["fp"]
    total = tp + fn + tn + fp
    if not total:
        return {**cells, "kappa": None}
    pooled = ((tp + fp) + (tp + fn)) / (2 * total)
    chance = pooled**2 + (1 - pooled) ** 2
    return {**cells, "kappa": None if chance == 1 else ((tp + tn) / total - chance) / (1 - chance)}


def kappa_as_text(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """The right cells, with kappa formatted for a report ("0.34") instead of a number."""
    cells = _cells(judge, labelled)
    kappa = _kappa(cells)
    return {**cells, "kappa": "undefined" if kappa is None else f"{kappa:.2f}"}


def substring_verdict(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """Reads a verdict by substring: 'passed' and 'Pass.' taken for pass."""

    def read(answer: Any) -> str:
        word = str(getattr(answer, "verdict", answer)).lower()
        return "fail" if "fail" in word else "pass" if "pass" in word else "unparsed"

    cells = _cells(judge, labelled, read)
    return {**cells, "kappa": _kappa(cells)}


def once_per_ticket(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """Grades a ticket listed twice once: the table no longer adds up to the tickets."""
    unique = list({(item.spec, item.ticket): item for item in labelled}.values())
    cells = _cells(judge, unique)
    return {**cells, "kappa": _kappa(cells)}


def calls_calibrate(judge: Judge, labelled: Labelled) -> Calibration:
    """Hands the course's calibrate back instead of counting."""
    return calibrate(judge, labelled)


# --- calibrate: right -------------------------------------------------------------------------


def right_counter(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """A Counter over (truth, verdict), kappa from the marginals."""
    seen: Counter[tuple[str, str]] = Counter()
    for item in labelled:
        seen[(item.truth, grade_of(judge(item.spec, item.ticket)).verdict)] += 1
    tp, fn = seen[("fail", "fail")], seen[("fail", "pass")]
    tn, fp = seen[("pass", "pass")], seen[("pass", "fail")]
    unparsed = len(labelled) - tp - fn - tn - fp
    n = tp + fn + tn + fp
    kappa = None
    if n:
        p_o = (tp + tn) / n
        p_e = ((tp + fp) * (tp + fn) + (tn + fn) * (tn + fp)) / n**2
        kappa = None if p_e == 1 else (p_o - p_e) / (1 - p_e)
    return dict(tp=tp, fn=fn, tn=tn, fp=fp, unparsed=unparsed, kappa=kappa)


def right_calibration_record(judge: Judge, labelled: Labelled) -> Calibration:
    """The cells counted by hand, handed back as a Calibration (its kappa is a property)."""
    c = _cells(judge, labelled)
    return Calibration("mine", c["tp"], c["fn"], c["tn"], c["fp"], c["unparsed"])


# --- trust rule -------------------------------------------------------------------------------


def course_trust_rule(calibration: Calibration, model: str) -> bool:
    """The course's rule, as the notebook's exercise asks for it: True or False."""
    return trust_reading(calibration, model).trusted


def kappa_only(c: Calibration, model: str) -> bool:
    """Kappa alone: the model, the counts and the silences never asked about."""
    return c.kappa is not None and c.kappa >= 0.8


def agreement_only(c: Calibration, model: str) -> bool:
    """Raw agreement, the figure kappa exists to correct."""
    return c.model == model and (c.agreement or 0) >= 0.95


def _floor_but(c: Calibration, model: str, **loose: Any) -> bool:
    """The lesson's rule written out, with one of its tests loosened by `loose`."""
    same = loose.get("same", lambda a, b: a == b)(c.model, model)
    least = loose.get("each_kind", 20)
    quiet = c.unparsed <= loose.get("unparsed", 0.05) * (c.judged + c.unparsed)
    kappa, caught = loose.get("kappa_value", c.kappa), c.catch_rate
    graded = loose.get("failed", False) or not c.failed  # every ticket graded (lesson, rule 3)
    return (
        same
        and graded
        and min(c.tp + c.fn, c.tn + c.fp) >= least
        and quiet
        and kappa is not None
        and kappa >= loose.get("kappa", 0.8)
        and caught is not None
        and caught >= loose.get("catch_rate", 0.9)
    )


def model_by_prefix(c: Calibration, model: str) -> bool:
    """Models matched by prefix: gpt-4o-mini's calibration used for gpt-4o."""
    return _floor_but(c, model, same=lambda a, b: a.startswith(b) or b.startswith(a))


def model_substring(c: Calibration, model: str) -> bool:
    """Models matched by substring: gpt-4o's calibration used for gpt-4o-mini."""
    return _floor_but(c, model, same=lambda a, b: a in b)


def model_case_folded(c: Calibration, model: str) -> bool:
    """Models matched after strip().lower(): 'GPT-4o' taken for 'gpt-4o'."""
    return _floor_but(c, model, same=lambda a, b: a.strip().lower() == b.strip().lower())


def nineteen_is_enough(c: Calibration, model: str) -> bool:
    """19 of a kind accepted where the lesson asks for 20."""
    return _floor_but(c, model, each_kind=19)


def fifteen_percent_unparsed(c: Calibration, model: str) -> bool:
    """15% without a verdict accepted where the lesson's limit is 5%."""
    return _floor_but(c, model, unparsed=0.15)


def kappa_three_quarters(c: Calibration, model: str) -> bool:
    """Kappa 0.75 accepted where the lesson asks for 0.8."""
    return _floor_but(c, model, kappa=0.75)


def kappa_fail_share_slip(c: Calibration, model: str) -> bool:
    """The lesson's rule with kappa worked out by hand, the judge's share of 'fail' verdicts taken
    as (tp - fp) / n instead of (tp + fp) / n (found by the mutation benchmark: `_kappa`)."""
    n = c.tp + c.fn + c.tn + c.fp
    if not n:
        return False
    judge_fails, truly_fails = (c.tp - c.fp) / n, (c.tp + c.fn) / n
    luck = judge_fails * truly_fails + (1 - judge_fails) * (1 - truly_fails)
    kappa = None if luck == 1 else ((c.tp + c.tn) / n - luck) / (1 - luck)
    return _floor_but(c, model, kappa_value=kappa)


def catch_rate_85(c: Calibration, model: str) -> bool:
    """A catch rate of 85% accepted where the lesson asks for 90%."""
    return _floor_but(c, model, catch_rate=0.85)


def crashes_without_broken_tickets(c: Calibration, model: str) -> bool:
    """Compares kappa and the catch rate with numbers, though either can be None."""
    enough = min(c.tp + c.fn, c.tn + c.fp) >= 20
    quiet = c.unparsed <= 0.05 * (c.judged + c.unparsed)
    return c.model == model and c.kappa >= 0.8 and c.catch_rate >= 0.9 and enough and quiet  # type: ignore[operator]


def unparsed_ignored(c: Calibration, model: str) -> bool:
    """Never asks how often the judge said nothing."""
    enough = min(c.tp + c.fn, c.tn + c.fp) >= 20
    return c.model == model and enough and (c.kappa or 0) >= 0.8 and (c.catch_rate or 0) >= 0.9


def few_is_fine(c: Calibration, model: str) -> bool:
    """No minimum number of tickets of each kind."""
    quiet = c.unparsed <= 0.05 * (c.judged + c.unparsed)
    return c.model == model and (c.kappa or 0) >= 0.8 and (c.catch_rate or 0) >= 0.9 and quiet


def trust_reading_object(c: Calibration, model: str) -> object:
    """Hands back a whole reading, which is always truthy, instead of True or False."""
    return (_floor_but(c, model), "reasons")


def right_strict(c: Calibration, model: str) -> bool:
    """Stricter thresholds, the pass rate on good tickets too."""
    if c.model != model or c.kappa is None or c.catch_rate is None or c.pass_rate_on_good is None:
        return False
    total = c.judged + c.unparsed
    return (
        c.kappa >= 0.85
        and c.catch_rate >= 0.95
        and c.pass_rate_on_good >= 0.9
        and c.tp + c.fn >= 30
        and c.tn + c.fp >= 30
        and c.unparsed / total <= 0.02
        and not c.failed
    )


def right_reasons(c: Calibration, model: str) -> bool:
    """Its own thresholds, each failed test a reason, trusted when there is none."""
    reasons = []
    if model != c.model:
        reasons.append("other model")
    if min(c.tp + c.fn, c.tn + c.fp) < 25:
        reasons.append("too few")
    if c.unparsed > 0.04 * (c.judged + c.unparsed):
        reasons.append("silent")
    kappa = c.kappa if c.kappa is not None else -1.0
    caught = c.catch_rate if c.catch_rate is not None else 0.0
    if kappa < 0.8 or caught < 0.9:
        reasons.append("weak")
    if c.failed:
        reasons.append("not every ticket graded")
    return not reasons


# --- held-out reader, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def failed_ignored(c: Calibration, model: str) -> bool:
    """Never asks whether every ticket was graded: tickets the endpoint never answered are left
    out of the measure."""
    return _floor_but(c, model, failed=True)


def trust_imported_inside(c: Calibration, model: str) -> bool:
    """The course's trust_reading, imported inside the function body."""
    from cafe.judge.trust import trust_reading as course_reading

    return course_reading(c, model).trusted


def calibrate_imported_inside(judge: Any, labelled: Any) -> Calibration:
    """The course's calibrate, imported inside the function body."""
    from cafe.judge.calibration import calibrate as course_calibrate

    return course_calibrate(judge, labelled)


# --- held-out readerF, 7 Dec 2026: written from the lesson alone, without the checkers -----------


def asks_twice(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """Asks the judge again when its first answer is not a fail, and counts a pass only if the
    second answer says pass too: a judge that answers a second ask otherwise (a sampled model)
    has its passes counted as no verdict, and every such ticket costs two requests."""

    def asked_twice(spec: Any, ticket: Any) -> str:
        if grade_of(judge(spec, ticket)).verdict == "fail":
            return "fail"
        return "pass" if grade_of(judge(spec, ticket)).verdict == "pass" else "unparsed"

    cells = _cells(asked_twice, labelled, verdict_of=lambda verdict: verdict)
    return {**cells, "kappa": _kappa(cells)}


# --- held-out readerI, 7 Dec 2026 (afternoon): written from the lesson alone ----------------------


def unparsed_as_a_whole_percent(c: Calibration, model: str) -> bool:
    """The unparsed share compared as the report prints it, rounded to a whole percent: 3 of 55
    tickets without a verdict (5.45%) shows as 5% and is let through."""
    asked = c.judged + c.unparsed
    shown = round(100 * c.unparsed / asked) if asked else 0
    return _floor_but(c, model, unparsed=1.0) and shown <= 5


def catch_rate_as_printed(c: Calibration, model: str) -> bool:
    """The catch rate compared as the reason text prints it, rounded to a whole percent: 179 of
    200 broken tickets caught (89.5%) shows as 90% and is let through."""
    caught = c.catch_rate
    return _floor_but(c, model, catch_rate=0.0) and caught is not None and round(100 * caught) >= 90


def reasons_in_whole_numbers(c: Calibration, model: str) -> bool:
    """The floor as a list of reasons, the 5% limit in whole numbers (unparsed * 20 > asked),
    tickets never answered counted among those asked."""
    asked = c.judged + c.unparsed + c.failed
    reasons = (
        c.model != model,
        c.failed > 0,
        min(c.tp + c.fn, c.tn + c.fp) < 20,
        asked == 0 or c.unparsed * 20 > asked,
        c.kappa is None or not c.kappa >= 0.8,
        c.catch_rate is None or not c.catch_rate >= 0.9,
    )
    return not any(reasons)


# --- held-out reader M, 7 Dec 2026 (evening), and one more of the same kind ---------------------


def failed_as_unparsed(c: Calibration, model: str) -> bool:
    """Tickets never graded lumped with the unparsed ones, up to 5% of both together: a few
    timeouts are tolerated (reader M's wrong_05)."""
    if c.model != model or min(c.tp + c.fn, c.tn + c.fp) < 20:
        return False
    total = c.tp + c.fn + c.tn + c.fp + c.unparsed + c.failed
    if (c.unparsed + c.failed) / total > 0.05:
        return False
    caught = c.catch_rate
    return c.kappa is not None and c.kappa >= 0.8 and caught is not None and caught >= 0.9


def failed_as_misses(c: Calibration, model: str) -> bool:
    """Tickets never graded counted as broken ones the judge missed, "to be safe": the catch rate
    absorbs a few of them, so a judge with holes in its measure is let through."""
    bad = c.tp + c.fn + c.failed
    caught = c.tp / bad if bad else None
    return (
        _floor_but(c, model, failed=True, catch_rate=0.0) and caught is not None and caught >= 0.9
    )


def _kappa_given_up(cells: dict[str, int], near_one: Callable[[float], bool]) -> float | None:
    """Kappa as the lesson writes it, but None whenever `near_one(chance)`, not only at 1."""
    judged = cells["tp"] + cells["fn"] + cells["tn"] + cells["fp"]
    if not judged:
        return None
    fails, truly = (cells["tp"] + cells["fp"]) / judged, (cells["tp"] + cells["fn"]) / judged
    chance = fails * truly + (1 - fails) * (1 - truly)
    if near_one(chance):
        return None
    return ((cells["tp"] + cells["tn"]) / judged - chance) / (1 - chance)


def kappa_none_over_99(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """None once chance agreement passes 0.99, "to be safe from a tiny float" (held-out BC)."""
    cells = _cells(judge, labelled)
    return {**cells, "kappa": _kappa_given_up(cells, lambda chance: chance > 0.99)}


def kappa_none_rounded(judge: Judge, labelled: Labelled) -> dict[str, Any]:
    """None when chance agreement rounds to 1 at two places (0.995 and over)."""
    cells = _cells(judge, labelled)
    return {**cells, "kappa": _kappa_given_up(cells, lambda chance: round(chance, 2) == 1)}


# --- the banks --------------------------------------------------------------------------------

BANKS = (
    Bank(
        "s12",
        check_calibrate,
        my_calibrate,
        wrong=(
            # held-out reader BC, and one more of the same kind
            Entry(
                "kappa_none_over_99",
                kappa_none_over_99,
                "kappa is None only when chance agreement is exactly 1",
                "1 broken ticket among 150 right ones, the always-pass judge: None, not 0.0",
            ),
            Entry(
                "kappa_none_rounded",
                kappa_none_rounded,
                "kappa is None only when chance agreement is exactly 1",
                "1 right ticket among 200 broken ones, the always-fail judge: None, not 0.0",
            ),
            # held-out readerF, 7 Dec 2026
            Entry(
                "asks_twice",
                asks_twice,
                "ask each ticket once and count that answer: a model may answer a second ask "
                "otherwise",
                "a broken ticket answered pass, then fail when asked again: unparsed 1, not fn 1",
            ),
            # held-out reader, 7 Dec 2026
            Entry(
                "calibrate_imported_inside",
                calibrate_imported_inside,
                "write your own",
                "calibrate imported inside the body",
            ),
            Entry(
                "unparsed_as_agreement",
                unparsed_as_agreement,
                "kappa is over the tickets with a verdict; a non-answer agrees with nothing",
                "no verdict on every fifth of 30 tickets: kappa 0.447 instead of 0.338",
            ),
            Entry(
                "raw_words",
                raw_words,
                "a judge may answer a Grade or a verdict word: read it with grade_of",
                "a judge answering Grade('pass'): every ticket unparsed",
            ),
            Entry(
                "no_undefined_kappa",
                no_undefined_kappa,
                "kappa is None when chance agreement is 1",
                "20 right tickets, the always-pass judge: ZeroDivisionError",
            ),
            Entry(
                "unparsed_as_pass",
                unparsed_as_pass,
                "a reply with no verdict is counted apart, not as a pass",
                "the never-answering judge: tn 12 instead of unparsed 24",
            ),
            Entry(
                "unparsed_as_fail",
                unparsed_as_fail,
                "a reply with no verdict is counted apart, not as a fail",
                "the never-answering judge: tp 12, fp 12 instead of unparsed 24",
            ),
            Entry(
                "agreement_as_kappa",
                agreement_as_kappa,
                "kappa subtracts the agreement chance alone would give",
                "the always-pass judge, 2 broken in 40: kappa 0.95 instead of 0",
            ),
            Entry(
                "good_is_positive",
                good_is_positive,
                "a broken ticket is the positive class",
                "the always-right judge: tp counts right tickets",
            ),
            Entry(
                "scotts_pi",
                scotts_pi,
                "chance agreement comes from each rater's own habits (Cohen), not a pooled rate",
                "the always-pass judge: kappa -0.026 instead of 0",
            ),
            Entry(
                "kappa_as_text",
                kappa_as_text,
                "kappa is a number (or None), not a formatted string",
                "the always-right judge: kappa '1.00'",
            ),
            Entry(
                "substring_verdict",
                substring_verdict,
                "a verdict is the word pass or fail, in any case or spacing, not a word holding it",
                "a judge answering 'passed' -> counted as a pass",
            ),
            Entry(
                "once_per_ticket",
                once_per_ticket,
                "every labelled ticket is graded, one listed twice too",
                "the same ticket twice -> counted once",
            ),
            Entry("calls_calibrate", calls_calibrate, "write your own", "calibrate"),
            Entry("course_calibrate", calibrate, "the course's own calibrate", "itself"),
        ),
        right=(
            Entry("right_counter", right_counter, "a Counter over (truth, verdict) pairs"),
            Entry("right_calibration_record", right_calibration_record, "a Calibration record"),
        ),
    ),
    Bank(
        "s12",
        check_trust_rule,
        floor_trusts,
        wrong=(
            # held-out reader M, 7 Dec 2026 (evening), and one more of the same kind
            Entry(
                "failed_as_unparsed",
                failed_as_unparsed,
                "every ticket graded: one never answered is a hole, not a share of a limit",
                "20 and 20, all right, none unparsed, 1 never answered: trusted",
            ),
            Entry(
                "failed_as_misses",
                failed_as_misses,
                "every ticket graded: one never answered is a hole, not a missed broken ticket",
                "20 and 20, all right, 1 never answered (catch 20 of 21): trusted",
            ),
            # held-out readerI, 7 Dec 2026 (afternoon)
            Entry(
                "unparsed_as_a_whole_percent",
                unparsed_as_a_whole_percent,
                "at most 5% unparsed: 5.45% is more, however it prints",
                "3 unparsed of 55 tickets: trusted",
            ),
            Entry(
                "catch_rate_as_printed",
                catch_rate_as_printed,
                "a catch rate of 90% at least: 89.5% is under, however it prints",
                "179 of 200 broken tickets caught: trusted",
            ),
            # held-out reader, 7 Dec 2026
            Entry(
                "failed_ignored",
                failed_ignored,
                "every ticket graded: one the endpoint never answered is a hole in the measure",
                "20 and 20, all right, 3 never answered: trusted",
            ),
            Entry(
                "trust_imported_inside",
                trust_imported_inside,
                "write your own",
                "trust_reading imported inside the body",
            ),
            Entry(
                "model_substring",
                model_substring,
                "another model is another model, whatever its name shares",
                "gpt-4o's calibration for gpt-4o-mini: trusted",
            ),
            Entry(
                "model_case_folded",
                model_case_folded,
                "a calibration describes the model named exactly",
                "GPT-4o's calibration for gpt-4o: trusted",
            ),
            Entry(
                "nineteen_is_enough",
                nineteen_is_enough,
                "20 of each kind at least",
                "19 broken tickets, all caught: trusted",
            ),
            Entry(
                "fifteen_percent_unparsed",
                fifteen_percent_unparsed,
                "at most 5% unparsed",
                "6 of 100 with no verdict: trusted",
            ),
            Entry(
                "kappa_three_quarters",
                kappa_three_quarters,
                "kappa 0.8 at least",
                "20 and 20, 2 missed, 3 false alarms (kappa 0.75): trusted",
            ),
            Entry(
                "kappa_fail_share_slip",
                kappa_fail_share_slip,
                "kappa's chance agreement uses each rater's own share of 'fail': the judge's is (tp + fp) / n",
                "28 of 30 broken caught, 17 right passed, 3 false alarms (kappa 0.79; the slip gives 0.80): trusted",
            ),
            Entry(
                "catch_rate_85",
                catch_rate_85,
                "the catch rate 90% at least",
                "44 of 50 broken tickets caught: trusted",
            ),
            Entry("course_trust_rule", course_trust_rule, "write your own", "trust_reading"),
            Entry(
                "kappa_only",
                kappa_only,
                "a calibration describes one model",
                "the same figures measured on another model: trusted",
            ),
            Entry(
                "agreement_only",
                agreement_only,
                "agreement is luck when nearly every ticket is fine",
                "the always-pass judge, 95% agreement: trusted",
            ),
            Entry(
                "model_by_prefix",
                model_by_prefix,
                "another model is another model, whatever its name shares",
                "gpt-4o-mini's calibration for gpt-4o: trusted",
            ),
            Entry(
                "crashes_without_broken_tickets",
                crashes_without_broken_tickets,
                "kappa and the rates are None when there is nothing to measure",
                "100 right tickets, no broken one: TypeError",
            ),
            Entry(
                "unparsed_ignored",
                unparsed_ignored,
                "a judge that often says nothing is not a judge",
                "no verdict on a quarter of the tickets: trusted",
            ),
            Entry(
                "few_is_fine",
                few_is_fine,
                "a rate measured on three tickets moves by a third with one ticket",
                "right on all 3 broken tickets it saw: trusted",
            ),
            Entry(
                "trust_reading_object",
                trust_reading_object,
                "the rule answers True or False",
                "returns a TrustReading",
            ),
        ),
        right=(
            Entry("right_strict", right_strict, "stricter thresholds, good tickets too"),
            Entry("right_reasons", right_reasons, "its own thresholds, listed as reasons"),
            # held-out readerI, 7 Dec 2026 (afternoon)
            Entry(
                "reasons_in_whole_numbers",
                reasons_in_whole_numbers,
                "the floor as reasons, the 5% limit in whole numbers",
            ),
        ),
        reference_module="cafe.exercises.reference_s12",
        targets=("floor_trusts", "_kappa"),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}. The key is
# what `benchmarks/checker_mutants.py` prints; the reason's first word is one of equivalent, text,
# validation, outside, open (docs/AUTHORING.md, "Its exercises").
_STRICTER = (
    "open: a stricter rule than the lesson's (a count, share or bar that can only refuse more); "
    "the exercise lets a rule be stricter than the floor, never looser"
)
_STRICTER_KEYS = (
    "floor_trusts:4: binop: `tp + fn + tn + fp + calibration.unparsed` -> `tp + fn + tn + fp - calibration.unparsed`",
    "floor_trusts:4: binop: `tp + fn + tn + fp` -> `tp + fn + tn - fp`",
    "floor_trusts:8: compare: `min(tp + fn, tn + fp) >= EACH_KIND` -> `min(tp + fn, tn + fp) > EACH_KIND`",
    "floor_trusts:9: compare: `calibration.unparsed <= UNPARSED_SHARE * asked` -> `calibration.unparsed < UNPARSED_SHARE * asked`",
    "floor_trusts:11: compare: `kappa >= KAPPA` -> `kappa > KAPPA`",
    "floor_trusts:12: compare: `tp >= CATCH_RATE * (tp + fn)` -> `tp > CATCH_RATE * (tp + fn)`",
    "floor_trusts:4: binop: `tp + fn + tn` -> `tp + fn - tn`",
    "floor_trusts:9: binop: `UNPARSED_SHARE * asked` -> `UNPARSED_SHARE / asked`",
    "floor_trusts:4: binop: `tp + fn` -> `tp - fn`",
    "floor_trusts:8: binop: `tp + fn` -> `tp - fn`",
    "floor_trusts:8: binop: `tn + fp` -> `tn - fp`",
)
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_trust_rule": {
        **{key: _STRICTER for key in _STRICTER_KEYS},
        "floor_trusts:13: constant: `0` -> `1`": (
            "equivalent: getattr's default, and every Calibration has a `failed` field"
        ),
    },
}
