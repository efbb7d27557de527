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
from cafe.exercises.s09 import check_cost_by_ending, check_summarize
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


BANKS = (
    Bank(
        "s09",
        check_summarize,
        count_endings,
        wrong=(
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
        ),
        right=(
            Entry("right_counter", right_counter, "Counter, then refuse the unnamed"),
            Entry("right_check_first", right_check_first, "check every run, then count"),
        ),
        reference_module="cafe.report.summary",
        targets=("count_endings",),
    ),
    Bank(
        "s09",
        check_cost_by_ending,
        cost_by_ending,
        wrong=(
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
        ),
        reference_module="cafe.report.summary",
        targets=("cost_by_ending", "run_cost"),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}.
_NOTHING = (
    "equivalent: None and 0.0 both add nothing to the split; only summarize's list of unpriced "
    "runs tells them apart"
)
_NO_PROMPT = (
    "outside: only a run with 0 tokens sent and some back tells it apart, and no endpoint "
    "replies to a prompt of 0 tokens"
)
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_cost_by_ending": {
        "run_cost:4: return_none: `return 0.0` -> `return None`": _NOTHING,
        "run_cost:3: compare: `run.output_tokens == 0` -> `run.output_tokens != 0`": _NO_PROMPT,
        "run_cost:3: constant: `0` -> `1`": _NO_PROMPT,
    },
}
