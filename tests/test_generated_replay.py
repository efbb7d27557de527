"""The kept inputs of `cafe.exercises.generated`: replaying them answers what a real search would.

A search that finds no difference keeps the inputs it drew, and the next search of the same
strategy object tries those first (`cafe.exercises.search`). That is safe only while a seeded `find`
draws, for one strategy object and settings, the same inputs in the same order whatever the
condition, as long as it is False. These tests would fail if that stopped holding: on conditions
Hypothesis generates, a search that replays and a fresh real search give the same answer; and a
function that changes its input cannot change what the next function is given. For every strategy the checkers search, the kept inputs are compared with
what `hypothesis.find` draws on each bank's reference run (tests/test_exercise_banks.py).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from kept_draws import shown

from cafe.exercises import search
from cafe.exercises.generated import built_once, first_broken, first_difference

# Small searches for the generated conditions: each example runs up to three real searches.
EXAMPLES = 40
# A list strategy made once, so that its searches can keep what they drew.
NUMBERS = st.lists(st.integers(-20, 20), max_size=6)


@pytest.fixture
def fresh(monkeypatch: pytest.MonkeyPatch) -> dict[Any, Any]:
    """An empty store of kept inputs for one test (the searches of other tests keep theirs)."""
    store: dict[Any, Any] = {}
    monkeypatch.setattr(search, "_drawn", store)
    return store


# --- generated conditions ---------------------------------------------------------------------


def _search_both_ways(fn: Any, reference: Any, store: dict[Any, Any]) -> tuple[Any, Any]:
    """`first_difference` of `fn` with NUMBERS's inputs kept, and with nothing kept."""
    store.clear()
    first_difference(reference, reference, NUMBERS, idea="", examples=EXAMPLES)  # keeps them
    assert search._kept(NUMBERS, search.seeded(EXAMPLES)) is not None
    replayed = first_difference(fn, reference, NUMBERS, idea="", examples=EXAMPLES)
    store.clear()
    real = first_difference(fn, reference, NUMBERS, idea="", examples=EXAMPLES)
    return replayed, real


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(threshold=st.integers(-40, 60), modulus=st.integers(1, 4), fault=st.sampled_from("+r"))
def test_replayed_search_answers_as_a_fresh_one_on_generated_conditions(
    threshold: int, modulus: int, fault: str
) -> None:
    def fn(numbers: list[int]) -> int:
        if sum(numbers) > threshold and len(numbers) % modulus == 0:
            if fault == "r":
                raise ValueError("a learner's error")
            return sum(numbers) + 1
        return sum(numbers)

    store: dict[Any, Any] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "_drawn", store)
        replayed, real = _search_both_ways(fn, sum, store)
    assert replayed == real


@settings(max_examples=8, deadline=None, suppress_health_check=list(HealthCheck))
@given(position=st.integers(0, EXAMPLES + 10))
def test_a_difference_at_the_kth_kept_input_is_found_and_shrunk_as_the_real_search_does(
    position: int,
) -> None:
    store: dict[Any, Any] = {}
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(search, "_drawn", store)
        first_difference(sum, sum, NUMBERS, idea="", examples=EXAMPLES)
        (kept,) = store.values()
        # the function goes wrong on the k-th input drawn (and on any equal to it); past the
        # end of the inputs it never does, and both searches must say so
        target = shown(kept.values[position]) if position < len(kept.values) else None

        def fn(numbers: list[int]) -> int:
            return sum(numbers) + (shown(numbers) == target)

        replayed, real = _search_both_ways(fn, sum, store)
    assert replayed == real
    assert (replayed is None) == (target is None)


def test_strategies_alike_in_repr_keep_their_own_inputs(fresh: dict[Any, Any]) -> None:
    def picks(data: tuple[int, ...]) -> Any:
        return st.sampled_from(range(3)).map(lambda i: data[i])

    small, large = picks((1, 2, 3)), picks((1, 2, 300))
    assert repr(small) == repr(large)
    assert first_difference(lambda n: n < 100, lambda n: True, small, idea="") is None
    found = first_difference(lambda n: n < 100, lambda n: True, large, idea="")
    assert found is not None and found.given == 300


def test_built_once_gives_back_the_same_strategy_object() -> None:
    assert built_once(st.lists, NUMBERS) is built_once(st.lists, NUMBERS)
    assert built_once(st.integers, 0, 5) is not built_once(st.integers, 0, 6)


# --- a function that changes its input ------------------------------------------------------

PAIRS = st.tuples(
    st.lists(st.integers(0, 9), max_size=4), st.dictionaries(st.text(), st.integers())
)


def _vandal(pair: tuple[list[int], dict[str, int]]) -> int:
    """Right answer, then wrecks its input: empties the list, fills the dict."""
    numbers, table = pair
    answer = sum(numbers)
    numbers.clear()
    table["vandal"] = 1
    return answer


def _total(pair: tuple[list[int], dict[str, int]]) -> int:
    return sum(pair[0])


@pytest.mark.parametrize("frozen", [False, True])
def test_a_function_that_changes_its_input_cannot_change_the_next_check(
    fresh: dict[Any, Any], frozen: bool
) -> None:
    assert first_difference(_total, _total, PAIRS, idea="", frozen=frozen) is None
    (kept,) = fresh.values()
    before = [shown(value) for value in kept.values]
    assert first_difference(_vandal, _total, PAIRS, idea="", frozen=frozen) is None
    assert [shown(value) for value in kept.values] == before
    wrong = first_difference(lambda pair: len(pair[1]), lambda pair: 0, PAIRS, idea="")
    assert wrong is not None and wrong.given == ([], {"": 0})


def test_a_function_that_changes_its_input_cannot_change_the_next_property_check(
    fresh: dict[Any, Any],
) -> None:
    def broken(pair: Any, got: Any) -> bool:
        return got != sum(pair[0])

    assert first_broken(_total, PAIRS, broken) is None
    (kept,) = fresh.values()
    before = [shown(value) for value in kept.values]
    assert first_broken(_vandal, PAIRS, broken) is None
    assert [shown(value) for value in kept.values] == before
    found = first_broken(lambda pair: len(pair[1]), PAIRS, lambda pair, got: got != 0)
    assert found is not None and found[0] == ([], {"": 0})
