"""Session 09's banks: `check_summarize` and `check_cost_by_ending` (cafe/exercises/s09.py).

The exercise ideas: a shift's counts have one row per named ending (zeros too), add up to the
runs, and refuse a run no ending names, wherever it sits, instead of hiding it under "other" or
skipping it; and a shift's cost, split by ending, charges each run's tokens at its own model's
price per million, keeps every digit, and lets an unknown cost add nothing.
"""

from __future__ import annotations

import math
from collections import Counter
from typing import Any

from banks.harness import Bank, Entry
from cafe.exercises.reference_s09 import cost_split, endings_counted
from cafe.exercises.s09 import check_cost_by_ending, check_summarize
from cafe.report import summary
from cafe.report.records import ENDINGS, SENT_BACK
from cafe.report.summary import PER_TOKENS, cost_by_ending, count_endings, run_cost

# --- summarize: wrong --------------------------------------------------------------------------


def _zeros() -> dict[str, int]:
    return {ending: 0 for ending in ENDINGS}


def refuses_known_names(runs: Any) -> dict[str, int]:
    """Refuses the two odd endings it has seen by name; any other is skipped."""
    counts = _zeros()
    for run in runs:
        if run.ending in ("timeout", "needs_consent"):
            raise ValueError(f"{run.ending!r} is not an ending")
        if run.ending in counts:
            counts[run.ending] += 1
    return counts


def no_ending_is_unfinished(runs: Any) -> dict[str, int]:
    """A run with no ending is read as 'still running' and skipped."""
    counts = _zeros()
    for run in runs:
        ending = getattr(run, "ending", None)
        if ending is None:
            continue
        if ending not in counts:
            raise ValueError(f"{ending!r} is not an ending")
        counts[ending] += 1
    return counts


def last_run_checked(runs: Any) -> dict[str, int]:
    """Checks only the run it looked at last; the others are counted when they can be."""
    runs = list(runs)
    if runs and getattr(runs[-1], "ending", None) not in ENDINGS:
        raise ValueError(f"{runs[-1]!r} has no ending")
    counts = _zeros()
    for run in runs:
        if getattr(run, "ending", None) in counts:
            counts[run.ending] += 1
    return counts


def counter_only(runs: Any) -> dict[str, int]:
    """A Counter of endings: the zeros are missing and an odd ending is counted."""
    return dict(Counter(run.ending for run in runs))


def other_bucket(runs: Any) -> dict[str, int]:
    """Anything unnamed goes to an 'other' row."""
    counts = {**_zeros(), "other": 0}
    for run in runs:
        ending = getattr(run, "ending", None)
        counts[ending if ending in ENDINGS else "other"] += 1
    return counts


def passed_or_failed(runs: Any) -> dict[str, int]:
    """Two buckets: passed, and everything else under retries_exhausted."""
    counts = _zeros()
    for run in runs:
        if run.ending not in ENDINGS:
            raise ValueError(f"{run.ending!r} is not an ending")
        counts["passed" if run.ending == "passed" else "retries_exhausted"] += 1
    return counts


def sent_back_as_refused(runs: Any) -> dict[str, int]:
    """An order sent back before any draft is counted as refused: both stopped before a draft."""
    counts = count_endings(runs)
    counts["policy_violation"] += counts[SENT_BACK]
    counts[SENT_BACK] = 0
    return counts


def first_run_checked(runs: Any) -> dict[str, int]:
    """Checks only the first run; an odd ending later on is skipped."""
    runs = list(runs)
    if runs and getattr(runs[0], "ending", None) not in ENDINGS:
        raise ValueError("the shift starts with a run that has no ending")
    counts = _zeros()
    for run in runs:
        if getattr(run, "ending", None) in counts:
            counts[run.ending] += 1
    return counts


def key_error_for_odd(runs: Any) -> dict[str, int]:
    """Lets the KeyError of an unknown row escape instead of saying what is wrong."""
    counts = _zeros()
    for run in runs:
        counts[run.ending] += 1
    return counts


# --- summarize: right --------------------------------------------------------------------------


def right_counter(runs: Any) -> dict[str, int]:
    """Counter first, then refuse what no ending names."""
    found = Counter(getattr(run, "ending", None) for run in runs)
    unknown = sorted(map(str, set(found) - set(ENDINGS)))
    if unknown:
        raise ValueError(f"runs ended on {unknown}, which are not endings: {', '.join(ENDINGS)}")
    return {ending: found[ending] for ending in ENDINGS}


class UnknownEnding(ValueError):
    """A learner's own error for an ending no report names."""


def right_check_first(runs: Any) -> dict[str, int]:
    """Every run checked before any is counted, with a ValueError of its own."""
    runs = list(runs)
    for run in runs:
        if getattr(run, "ending", None) not in ENDINGS:
            raise UnknownEnding(f"cannot count a run ending on {getattr(run, 'ending', None)!r}")
    return {ending: sum(run.ending == ending for run in runs) for ending in ENDINGS}


# held-out readerE, 7 Dec 2026: filed as wrong ("rows in alphabetical order"), kept as right. The
# lesson's promise is "every ending, zeros included, in a fixed order", and alphabetical is one;
# the exercise asks for "a dict from each ending", and a dict's equality reads no order.


def right_alphabetical_rows(runs: Any) -> dict[str, int]:
    """Every run checked first, then the rows in alphabetical order of the endings."""
    runs = list(runs)
    for run in runs:
        if getattr(run, "ending", None) not in ENDINGS:
            raise ValueError(f"unnamed ending {getattr(run, 'ending', None)!r}")
    return {ending: sum(run.ending == ending for run in runs) for ending in sorted(ENDINGS)}


# --- cost_by_ending: wrong ---------------------------------------------------------------------


def _totals() -> dict[str, float]:
    return {ending: 0.0 for ending in ENDINGS}


def one_price_for_all(runs: Any, prices: Any) -> dict[str, float]:
    """Reads the first run's price and charges every priced run at it."""
    totals, runs = _totals(), list(runs)
    price = prices.get(runs[0].model) if runs else None
    for run in runs:
        if price is None or run.model not in prices or run.input_tokens is None:
            continue
        totals[run.ending] += (
            run.input_tokens * price.input_per_million
            + run.output_tokens * price.output_per_million
        ) / PER_TOKENS
    return totals


def rounded(runs: Any, prices: Any) -> dict[str, float]:
    """Money rounded to four places."""
    return {ending: round(cost, 4) for ending, cost in cost_by_ending(runs, prices).items()}


def prices_swapped(runs: Any, prices: Any) -> dict[str, float]:
    """Input tokens at the output price and the other way round."""
    totals = _totals()
    for run in runs:
        price = prices.get(run.model)
        if price is None or run.input_tokens is None:
            continue
        totals[run.ending] += (
            run.input_tokens * price.output_per_million
            + run.output_tokens * price.input_per_million
        ) / PER_TOKENS
    return totals


def default_price(runs: Any, prices: Any) -> dict[str, float]:
    """A model with no price is charged at the first price in the table."""
    fallback = next(iter(prices.values()))
    totals = _totals()
    for run in runs:
        if run.input_tokens is None:
            continue
        price = prices.get(run.model, fallback)
        totals[run.ending] += (
            run.input_tokens * price.input_per_million
            + run.output_tokens * price.output_per_million
        ) / PER_TOKENS
    return totals


def per_thousand(runs: Any, prices: Any) -> dict[str, float]:
    """Prices read per thousand tokens, not per million."""
    return {ending: cost * 1000 for ending, cost in cost_by_ending(runs, prices).items()}


def no_zeros(runs: Any, prices: Any) -> dict[str, float]:
    """Only the endings that cost something are listed."""
    totals: dict[str, float] = {}
    for run in runs:
        cost = run_cost(run, prices)
        if cost:
            totals[run.ending] = totals.get(run.ending, 0.0) + cost
    return totals


def cut_off_reply_free(runs: Any, prices: Any) -> dict[str, float]:
    """A run that got no reply tokens back is treated as free."""
    totals = _totals()
    for run in runs:
        if not run.output_tokens:
            continue
        cost = run_cost(run, prices)
        totals[run.ending] += cost or 0.0
    return totals


def input_only(runs: Any, prices: Any) -> dict[str, float]:
    """Charges what was sent and forgets what came back."""
    totals = _totals()
    for run in runs:
        price = prices.get(run.model)
        if price is None or run.input_tokens is None:
            continue
        totals[run.ending] += run.input_tokens * price.input_per_million / PER_TOKENS
    return totals


def passed_pays_all(runs: Any, prices: Any) -> dict[str, float]:
    """Every run's cost charged to the accepted tickets (the cost per ticket, not the split)."""
    totals = _totals()
    totals["passed"] = sum(cost for cost in cost_by_ending(runs, prices).values())
    return totals


# --- cost_by_ending: right ---------------------------------------------------------------------


def right_fsum(runs: Any, prices: Any) -> dict[str, float]:
    """Each token count priced on its own, the parts summed exactly."""
    parts: dict[str, list[float]] = {ending: [] for ending in ENDINGS}
    for run in runs:
        price = prices.get(run.model)
        if price is None or run.input_tokens is None or run.output_tokens is None:
            continue
        parts[run.ending].append(run.input_tokens / PER_TOKENS * price.input_per_million)
        parts[run.ending].append(run.output_tokens / PER_TOKENS * price.output_per_million)
    return {ending: math.fsum(values) for ending, values in parts.items()}


def right_run_cost(runs: Any, prices: Any) -> dict[str, float]:
    """The course's run_cost per run, an unknown cost read as nothing."""
    totals = dict.fromkeys(ENDINGS, 0.0)
    for run in runs:
        totals[run.ending] += run_cost(run, prices) or 0.0
    return totals


# --- mistakes only generated inputs find (issue 35) ---------------------------------------------


def folds_case_and_spaces(runs: Any) -> dict[str, int]:
    """Reads ' Passed' as passed: tidies a spelling the report must refuse."""
    counts = dict.fromkeys(ENDINGS, 0)
    for run in runs:
        ending = str(getattr(run, "ending", None)).strip().lower()
        if ending not in counts:
            raise ValueError(f"unknown ending {ending!r}")
        counts[ending] += 1
    return counts


def once_per_run_id(runs: Any) -> dict[str, int]:
    """Counts a run listed twice once, by its id: the counts no longer add up to the runs."""
    seen: dict[Any, Any] = {}
    for run in runs:
        if getattr(run, "ending", None) not in ENDINGS:
            raise ValueError(f"unknown ending {getattr(run, 'ending', None)!r}")
        seen.setdefault(getattr(run, "run_id", id(run)), run)
    return {e: sum(1 for r in seen.values() if r.ending == e) for e in ENDINGS}


def calls_the_course(runs: Any) -> dict[str, int]:
    """Hands the course's count_endings back instead of writing one."""
    return summary.count_endings(runs)


def right_sorted_tally(runs: Any) -> dict[str, int]:
    """Refuse first, then tally a sorted list of endings with list.count."""
    endings = [getattr(run, "ending", None) for run in runs]
    odd = [e for e in endings if e not in ENDINGS]
    if odd:
        raise ValueError(f"a run ends on {odd[0]!r}, which no report names")
    return {ending: sorted(endings).count(ending) for ending in ENDINGS}


def model_name_folded(runs: Any, prices: Any) -> dict[str, float]:
    """Finds 'M' and 'm ' under m's price: a model the table does not price is charged anyway."""
    folded = {model.strip().lower(): price for model, price in prices.items()}
    totals = dict.fromkeys(ENDINGS, 0.0)
    for run in runs:
        price = folded.get(run.model.strip().lower())
        if price is not None and run.input_tokens is not None:
            totals[run.ending] += (
                run.input_tokens * price.input_per_million
                + run.output_tokens * price.output_per_million
            ) / PER_TOKENS
    return totals


def free_input_is_free(runs: Any, prices: Any) -> dict[str, float]:
    """Skips a model whose input price is 0, though its output still costs."""
    totals = dict.fromkeys(ENDINGS, 0.0)
    for run in runs:
        price = prices.get(run.model)
        if price and price.input_per_million and run.input_tokens is not None:
            totals[run.ending] += (
                run.input_tokens * price.input_per_million
                + run.output_tokens * price.output_per_million
            ) / PER_TOKENS
    return totals


def right_per_model_first(runs: Any, prices: Any) -> dict[str, float]:
    """Tokens summed per (ending, model) first, then priced once per pair. (It read only
    `input_tokens` for "reported" until reader H's round, and raised TypeError on a run whose
    output count alone was missing: the notebook allows one, "None when not reported".)"""
    tokens: dict[tuple[str, str], list[int]] = {}
    for run in runs:
        known = run.input_tokens is not None and run.output_tokens is not None
        if known and run.model in prices:
            pair = tokens.setdefault((run.ending, run.model), [0, 0])
            pair[0] += run.input_tokens
            pair[1] += run.output_tokens
    totals = dict.fromkeys(ENDINGS, 0.0)
    for (ending, model), (sent, back) in tokens.items():
        price = prices[model]
        totals[ending] += (sent * price.input_per_million + back * price.output_per_million) / 1e6
    return totals


# --- held-out reader, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def unnamed_refusal(runs: Any) -> dict[str, int]:
    """Refuses an unknown ending with a ValueError that does not say which ending it was."""
    counts = _zeros()
    for run in runs:
        if getattr(run, "ending", None) not in counts:
            raise ValueError("a run has an ending that is not one of report.ENDINGS")
        counts[run.ending] += 1
    return counts


def count_imported_inside(runs: Any) -> dict[str, int]:
    """The course's count_endings, imported inside the function body."""
    from cafe.report import count_endings as course_count

    return course_count(runs)


def cost_imported_inside(runs: Any, prices: Any) -> dict[str, float]:
    """The course's cost_by_ending, imported inside the function body."""
    from cafe.report import cost_by_ending as course_cost

    return course_cost(runs, prices)


def right_reads_ending(runs: Any) -> dict[str, int]:
    """Reads run.ending directly (anything with an `ending`), every run checked first."""
    endings = [run.ending for run in runs]
    bad = [ending for ending in endings if ending not in ENDINGS]
    if bad:
        raise ValueError(f"ending {bad[0]!r} is not one of {ENDINGS}")
    found = Counter(endings)
    return {ending: found.get(ending, 0) for ending in ENDINGS}


def right_by_index(runs: Any) -> dict[str, int]:
    """A list of counts indexed by the ending's place in ENDINGS."""
    counts = [0] * len(ENDINGS)
    for run in runs:
        if run.ending not in ENDINGS:
            raise ValueError(f"run ended {run.ending!r}, not a named ending")
        counts[ENDINGS.index(run.ending)] += 1
    return dict(zip(ENDINGS, counts, strict=True))


# --- held-out readerH, 7 Dec 2026 (afternoon): written from the lesson alone --------------------


def output_none_as_zero(runs: Any, prices: Any) -> dict[str, float]:
    """Skips a run only when its input count is missing; a missing output count is read as 0."""
    totals = _totals()
    for run in runs:
        price = prices.get(run.model)
        if price is None or run.input_tokens is None:
            continue
        spent = run.input_tokens * price.input_per_million
        totals[run.ending] += (spent + (run.output_tokens or 0) * price.output_per_million) / 1e6
    return totals


def missing_count_as_zero(runs: Any, prices: Any) -> dict[str, float]:
    """`tokens or 0` on each count: a run with one count reported is priced on that one."""
    totals = _totals()
    for run in runs:
        price = prices.get(run.model)
        if price is None:
            continue
        sent, back = run.input_tokens or 0, run.output_tokens or 0
        totals[run.ending] += (
            sent * price.input_per_million + back * price.output_per_million
        ) / 1e6
    return totals


# --- held-out readerL, 7 Dec 2026 (evening): written from the lesson alone -----------------------
# The principle: a run no ending names is refused, as in step 4, never left out of the cost split
# (its money would vanish from every row). A run of unknown cost with such an ending is not held
# to it: it adds nothing either way, and the course's cost_by_ending skips it.


def unknown_ending_skipped(runs: Any, prices: Any) -> dict[str, float]:
    """readerL's wrong_11: a run whose ending is not a named one is silently left out."""
    totals = _totals()
    for run in runs:
        if run.ending not in totals:
            continue
        price = prices.get(run.model)
        if price is None or run.input_tokens is None or run.output_tokens is None:
            continue
        totals[run.ending] += (
            run.input_tokens * price.input_per_million
            + run.output_tokens * price.output_per_million
        ) / 1_000_000
    return totals


def odd_cost_in_other_row(runs: Any, prices: Any) -> dict[str, float]:
    """Puts the cost of a run no ending names under an 'other' row, so nothing is lost."""
    totals = _totals()
    for run in runs:
        cost = run_cost(run, prices)
        if cost is not None:
            ending = run.ending if run.ending in ENDINGS else "other"
            totals[ending] = totals.get(ending, 0.0) + cost
    return totals


def tidied_ending_charged(runs: Any, prices: Any) -> dict[str, float]:
    """Tidies the ending (' Passed' is passed) before charging it; refuses only what is left."""
    totals = _totals()
    for run in runs:
        ending = str(run.ending).strip().lower()
        if ending not in totals:
            raise ValueError(f"no such ending: {run.ending!r}")
        totals[ending] += run_cost(run, prices) or 0.0
    return totals


def right_int_zeros(runs: Any, prices: Any) -> dict[str, float]:
    """readerL's right_05: every ending seeded with int 0; an ending nobody paid for stays 0."""
    totals: dict[str, float] = dict.fromkeys(ENDINGS, 0)
    for run in runs:
        if run.ending not in totals:
            raise ValueError(f"unnamed ending {run.ending!r}")
        cost = run_cost(run, prices)
        if cost:
            totals[run.ending] += cost
    return totals


# --- reader CB, 8 Dec 2026: "anything with an `ending`" read as "anything with a __dict__" ---------


def _counted(endings: Any) -> dict[str, int]:
    counts = {ending: 0 for ending in ENDINGS}
    for ending in endings:
        if ending not in counts:
            raise ValueError(f"unnamed ending {ending!r}")
        counts[ending] += 1
    return counts


def vars_access(runs: Any) -> dict[str, int]:
    """Reads `vars(run)['ending']`: a namedtuple or a `__slots__` run has no `__dict__`."""
    return _counted([vars(run)["ending"] for run in runs])


def dunder_dict_access(runs: Any) -> dict[str, int]:
    """Reads `run.__dict__['ending']` (one more of the kind)."""
    return _counted([run.__dict__["ending"] for run in runs])


BANKS = (
    Bank(
        "s09",
        check_summarize,
        endings_counted,
        wrong=(
            # held-out reader, 7 Dec 2026
            Entry(
                "unnamed_refusal",
                unnamed_refusal,
                "the ValueError names the ending it refuses",
                "[run ending 'timeout'] -> ValueError that never says 'timeout'",
            ),
            Entry(
                "count_imported_inside",
                count_imported_inside,
                "write your own",
                "count_endings imported inside the body",
            ),
            Entry(
                "folds_case_and_spaces",
                folds_case_and_spaces,
                "an ending spelt any other way is not an ending",
                "a run ending on ' Passed' -> counted as passed",
            ),
            Entry(
                "once_per_run_id",
                once_per_run_id,
                "every run in the list is counted, a repeated one too",
                "the same run listed twice -> counted once",
            ),
            Entry("calls_the_course", calls_the_course, "write your own", "count_endings"),
            Entry("count_endings", count_endings, "the course's own function", "itself"),
            Entry(
                "refuses_known_names",
                refuses_known_names,
                "any ending no report names is refused, not only the ones seen",
                "session 01's 'done' in the middle -> skipped",
            ),
            Entry(
                "no_ending_is_unfinished",
                no_ending_is_unfinished,
                "a run with no ending cannot be counted",
                "a run with no ending attribute -> skipped",
            ),
            Entry(
                "last_run_checked",
                last_run_checked,
                "every run is checked, wherever it sits",
                "'needs_consent' first -> skipped",
            ),
            Entry("counter_only", counter_only, "every ending listed, zeros too", "no zeros"),
            Entry("other_bucket", other_bucket, "a report has no 'other' row", "'other': 1"),
            Entry(
                "passed_or_failed",
                passed_or_failed,
                "each run is counted under its own ending",
                "the mixed shift -> policy_violation 0",
            ),
            Entry(
                "sent_back_as_refused",
                sent_back_as_refused,
                "sent back and refused are different endings",
                "the mixed shift -> sent_back 0",
            ),
            Entry(
                "first_run_checked",
                first_run_checked,
                "every run is checked, wherever it sits",
                "'timeout' last -> skipped",
            ),
            Entry(
                "key_error_for_odd",
                key_error_for_odd,
                "an unnamed ending is refused with ValueError naming it",
                "'timeout' -> KeyError",
            ),
            # reader CB, 8 Dec 2026
            Entry(
                "vars_access",
                vars_access,
                "anything with an `ending`: a namedtuple or a __slots__ run too",
                "a namedtuple run -> TypeError",
            ),
            Entry(
                "dunder_dict_access",
                dunder_dict_access,
                "anything with an `ending`: a namedtuple or a __slots__ run too",
                "a namedtuple run -> AttributeError",
            ),
        ),
        right=(
            # held-out reader, 7 Dec 2026
            Entry("right_reads_ending", right_reads_ending, "run.ending read directly, Counter"),
            Entry("right_by_index", right_by_index, "counts by the ending's place"),
            Entry("right_counter", right_counter, "Counter, then refuse the unnamed"),
            Entry("right_check_first", right_check_first, "check every run, then count"),
            Entry("right_sorted_tally", right_sorted_tally, "refuse first, list.count"),
            # held-out readerE, 7 Dec 2026
            Entry("right_alphabetical_rows", right_alphabetical_rows, "rows in alphabetical order"),
        ),
        reference_module="cafe.exercises.reference_s09",
        targets=("endings_counted",),
    ),
    Bank(
        "s09",
        check_cost_by_ending,
        cost_split,
        wrong=(
            # held-out reader, 7 Dec 2026
            Entry(
                "cost_imported_inside",
                cost_imported_inside,
                "write your own",
                "cost_by_ending imported inside the body",
            ),
            Entry(
                "model_name_folded",
                model_name_folded,
                "a price belongs to the model named exactly",
                "a run of 'M' charged at m's price",
            ),
            Entry(
                "free_input_is_free",
                free_input_is_free,
                "a price of 0 for input still charges output",
                "input free, output 10 -> nothing charged",
            ),
            Entry("cost_by_ending", cost_by_ending, "the course's own function", "itself"),
            Entry(
                "one_price_for_all",
                one_price_for_all,
                "each run at its own model's price",
                "the strong model's run first -> every run at its price",
            ),
            Entry("rounded", rounded, "every digit kept", "0.00925 -> 0.0093"),
            Entry(
                "prices_swapped",
                prices_swapped,
                "input at the input price, output at the output price",
                "the mixed shift -> passed 0.0024",
            ),
            Entry(
                "default_price",
                default_price,
                "a model with no price adds nothing",
                "the unpriced run charged at m's price",
            ),
            Entry("per_thousand", per_thousand, "prices are per million tokens", "x1000"),
            Entry("no_zeros", no_zeros, "every ending listed, zeros too", "keys missing"),
            Entry(
                "cut_off_reply_free",
                cut_off_reply_free,
                "tokens sent are paid for even when none come back",
                "500 sent, none back -> 0",
            ),
            Entry("input_only", input_only, "output tokens are paid for too", "passed too low"),
            # held-out readerH, 7 Dec 2026 (afternoon): passed before half-reported usage was drawn
            Entry(
                "output_none_as_zero",
                output_none_as_zero,
                "a run whose cost is unknown adds nothing: one count missing is unknown",
                "input 1 reported, output None -> its input cost added",
            ),
            Entry(
                "missing_count_as_zero",
                missing_count_as_zero,
                "a run whose cost is unknown adds nothing: one count missing is unknown",
                "input None, output 1 -> its output cost added",
            ),
            # held-out readerL, 7 Dec 2026 (evening): passed before unnamed endings were drawn
            Entry(
                "unknown_ending_skipped",
                unknown_ending_skipped,
                "a run no ending names is refused, never left out of the split",
                "a run ending on 'timeout', 1 token each way at a price -> left out",
            ),
            Entry(
                "odd_cost_in_other_row",
                odd_cost_in_other_row,
                "a run no ending names is refused, never filed under 'other'",
                "a run ending on 'timeout' with a known cost -> an 'other' row",
            ),
            Entry(
                "tidied_ending_charged",
                tidied_ending_charged,
                "an ending spelt any other way is not an ending, in the split too",
                "a run ending on 'Passed' with a known cost -> charged to passed",
            ),
            Entry(
                "passed_pays_all",
                passed_pays_all,
                "the split says which ending spent it",
                "the mixed shift -> retries_exhausted 0",
            ),
        ),
        right=(
            Entry("right_fsum", right_fsum, "each token count priced on its own, fsum"),
            Entry("right_run_cost", right_run_cost, "the course's run_cost per run"),
            Entry("right_per_model_first", right_per_model_first, "tokens per model, then price"),
            # held-out readerL, 7 Dec 2026 (evening)
            Entry("right_int_zeros", right_int_zeros, "every ending seeded with int 0"),
        ),
        reference_module="cafe.exercises.reference_s09",
        targets=("cost_split", "_cost"),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}.
EQUIVALENT: dict[str, dict[str, str]] = {}
