"""cafe.repair.lottery: the page's resampling table, by formula and by seeded simulation; sticky failures sit below it."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.repair.lottery import (
    LOTTERY_ROWS,
    lottery_table,
    pass_within_cap,
    pass_within_cap_sticky,
    simulate_independent,
    simulate_sticky,
)

# The session 07 page's table, keyed (p, n), listed here from the longest cap back.
PAGE = {(0.05, 10): 0.401, (0.05, 3): 0.143, (0.25, 3): 0.578, (0.50, 3): 0.875}


def test_pass_within_cap_matches_the_page_table():
    assert set(LOTTERY_ROWS) == set(PAGE)
    for (p, n), expected in PAGE.items():
        assert round(pass_within_cap(p, n), 3) == expected


def test_lottery_table_seeded_simulation_reproduces_the_page():
    rows = lottery_table(seed=7)
    for row in rows:
        assert abs(row.simulated - PAGE[(row.p, row.n)]) < 0.006
        assert row.sticky < row.simulated  # correlated failures: real gains sit below the table


def test_lottery_table_same_seed_same_numbers():
    assert lottery_table(seed=3, trials=2_000) == lottery_table(seed=3, trials=2_000)


def test_simulate_sticky_matches_its_formula():
    rng = random.Random(11)
    for p, n in LOTTERY_ROWS:
        assert (
            abs(simulate_sticky(p, n, 0.6, 50_000, rng) - pass_within_cap_sticky(p, n, 0.6)) < 0.01
        )


@settings(max_examples=100, deadline=None)
@given(st.floats(0, 1), st.integers(1, 20), st.floats(0, 1))
def test_pass_within_cap_sticky_never_beats_independent(p, n, stickiness):
    sticky = pass_within_cap_sticky(p, n, stickiness)
    assert p - 1e-12 <= sticky <= pass_within_cap(p, n) + 1e-12
    assert pass_within_cap_sticky(p, n, 0.0) == pytest.approx(pass_within_cap(p, n))
    assert pass_within_cap_sticky(p, n, 1.0) == pytest.approx(
        p
    )  # fully sticky: only the first draw counts


def test_pass_within_cap_more_attempts_never_hurt():
    assert all(pass_within_cap(0.05, n) < pass_within_cap(0.05, n + 1) for n in range(1, 20))


@pytest.mark.parametrize(("p", "n"), [(-0.1, 3), (1.5, 3), (0.5, 0), (0.5, 2.0), (0.5, True)])
def test_pass_within_cap_bad_arguments_are_value_errors(p, n):
    with pytest.raises(ValueError):
        pass_within_cap(p, n)


def test_simulate_independent_needs_a_seeded_rng():
    with pytest.raises(TypeError, match="random.Random"):
        simulate_independent(0.5, 3, 10, rng=7)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="trials"):
        simulate_independent(0.5, 3, 0, random.Random(1))


def test_pass_within_cap_sticky_matches_the_lesson_figures():
    # lesson.md: at stickiness 0.5, 0.143 drops to roughly 0.10 and 0.401 to roughly 0.24.
    assert round(pass_within_cap_sticky(0.05, 3, 0.5), 2) == 0.10
    assert round(pass_within_cap_sticky(0.05, 10, 0.5), 2) == 0.24
