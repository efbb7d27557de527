"""The seeded search under every generated check: Hypothesis's `find`, made repeatable and quick.

`cafe.exercises.generated` asks one question of it: on which input, drawn from this strategy, does
this condition hold (the learner's function and the reference differ, or a property breaks)?
`search` answers with the shrunk input, or None. Three things make that answer a fair verdict:

1. It is seeded and draws from the strategy alone (`fixed_draws`): the same function gets the same
   verdict in a notebook, in the suite and in an instructor's grader.
2. A function that answers one input two ways (a random draw, a count kept between calls) does not
   crash the check: the input is returned, marked not repeatable, and the feedback says so.
3. A search that finds nothing keeps the inputs it drew, and the next search of the same strategy
   object tries those first. They can only answer "no difference": where one input differs, the
   real search runs and shrinks as it always has, so the verdict and the counterexample are the
   ones it always gave. This is what keeps a bank of hundreds of checks quick.

Like `generated`, this module imports nothing from `cafe`.
"""

from __future__ import annotations

import copy
import enum
import tempfile
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, fields, is_dataclass
from pathlib import Path
from typing import Any

__all__ = ["Found", "KEPT_SEARCHES", "fixed_draws", "search", "seeded"]

# Searches whose drawn inputs are kept (`search`): the checkers search about 30 strategies, so 64
# keeps them all and a notebook's own besides. The banks' 25 kept searches hold about 5 MB (measured
# with tracemalloc), so the bound is some 15 MB.
KEPT_SEARCHES = 64


def seeded(examples: int) -> Any:
    from hypothesis import HealthCheck, Phase, settings

    return settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        phases=(Phase.explicit, Phase.generate, Phase.shrink),
    )


@dataclass(frozen=True)
class _Drawn:
    """The inputs one search that found nothing drew, in order, with its settings and strategy
    (held, so that no new strategy can take its id while the inputs are kept)."""

    strategy: Any
    settings: Any
    values: tuple[Any, ...]


# (id of the strategy, its settings) -> what a search that found nothing drew
_drawn: dict[tuple[int, str], _Drawn] = {}
# Where Hypothesis may cache what it computes (its table of Unicode characters) while a checker
# searches: by default it writes a `.hypothesis/` folder into the current folder, which for a
# learner is the notebooks folder.
SCRATCH = Path(tempfile.gettempdir()) / "cafe-hypothesis"


@contextmanager
def fixed_draws() -> Iterator[bool]:
    """While a checker searches, what Hypothesis draws depends on the strategy and the seed alone.

    Now and then Hypothesis draws a number or a string it found in the "local" code imported so
    far (hypothesis/internal/conjecture/providers.py, `_get_local_constants`, cached in
    `CONSTANTS_CACHE`). Which code that is depends on where the check runs: a notebook, the
    learner's own files, the suite's banks, an editable install or not. So one function could pass
    in one place and fail in another (a held-out reader saw a verdict change from run to run).
    Inside this block that collection reads as empty. Yields False when this Hypothesis has no
    such collection to empty: the draws may then vary, and `search` keeps nothing."""
    from hypothesis import configuration

    providers: Any = None
    try:
        from hypothesis.internal.conjecture import providers
        from hypothesis.internal.constants_ast import Constants
    except ImportError:
        pass
    gathered = getattr(providers, "_get_local_constants", None)
    cache: Any = getattr(getattr(providers, "CONSTANTS_CACHE", None), "cache", None)
    fixable = gathered is not None and cache is not None
    home = configuration.storage_directory(intent_to_write=False).home_directory
    configuration.set_hypothesis_home_dir(SCRATCH)
    if fixable:
        none = Constants()
        providers._get_local_constants = lambda: none
        cache.clear()  # constants picked from the collection before, per kind of draw
    try:
        yield fixable
    finally:
        configuration.set_hypothesis_home_dir(home)
        if fixable:
            providers._get_local_constants = gathered
            cache.clear()


def _kept(inputs: Any, settings: Any) -> _Drawn | None:
    """What a search on this very strategy object drew, with these settings."""
    kept = _drawn.get((id(inputs), repr(settings)))
    return kept if kept is not None and kept.strategy is inputs else None


def _keep(inputs: Any, settings: Any, values: list[Any]) -> None:
    if len(_drawn) >= KEPT_SEARCHES:
        del _drawn[next(iter(_drawn))]  # the oldest
    _drawn[(id(inputs), repr(settings))] = _Drawn(inputs, settings, tuple(values))


def _holds_on_any(kept: _Drawn, condition: Callable[[Any], bool], copy_each: bool) -> bool:
    """True when `condition` holds on a kept input, or raises (the real search reports that)."""
    from hypothesis.internal.entropy import deterministic_PRNG

    for value in kept.values:
        try:
            # the real search runs each input with `random` seeded the same way (hypothesis/core.py,
            # `execute_once`): a function that draws from `random` answers as it would there
            with deterministic_PRNG():
                if condition(_fresh(value) if copy_each else value):
                    return True
        except (Exception, SystemExit, GeneratorExit):  # what Hypothesis counts as a failure
            return True
    return False


def _unchangeable(value: Any) -> bool:
    """True for a value nothing can change: text, numbers, None, and tuples, read-only mappings
    and frozen records of such values."""
    if isinstance(value, (str, bytes, int, float, complex, type(None), enum.Enum)):
        return True
    if isinstance(value, types.MappingProxyType):
        return all(_unchangeable(key) and _unchangeable(part) for key, part in value.items())
    if type(value) in (tuple, frozenset):
        return all(_unchangeable(part) for part in value)
    frozen = getattr(type(value), "__dataclass_params__", None)  # what @dataclass was given
    if is_dataclass(value) and frozen is not None and frozen.frozen:
        return all(_unchangeable(getattr(value, f.name)) for f in fields(value))
    return False


def _fresh(value: Any) -> Any:
    """A copy of an input that a function may change without changing `value`: what cannot change
    is shared, lists, tuples, sets and dicts are rebuilt, anything else is deep-copied (which also
    works where `copy.deepcopy` of the whole fails: s09's records hold a read-only mapping)."""
    if _unchangeable(value):
        return value
    if type(value) in (list, tuple, set, frozenset):
        return type(value)(_fresh(part) for part in value)
    if type(value) is dict:
        return {_fresh(key): _fresh(part) for key, part in value.items()}
    return copy.deepcopy(value)  # raises for what cannot be copied: then nothing is kept


@dataclass(frozen=True)
class Found:
    """An input where a search's condition held; `repeatable` is False when the condition did not
    hold on it again (the function answered that input differently from one call to the next)."""

    value: Any
    repeatable: bool = True


def search(
    inputs: Any, condition: Callable[[Any], bool], examples: int, *, copy_each: bool
) -> Found | None:
    """Hypothesis's seeded `find`: the shrunk input where `condition` holds, or None for none.

    Seeded, `find` draws the same inputs in the same order from one strategy object with the same
    settings, whatever the condition, until the condition holds: only an input where it holds
    changes the search's course (hypothesis/internal/conjecture/engine.py, `test_function`). So a
    search that finds nothing keeps what it drew, and the next search of that strategy first
    tries its condition on those: False on all is `find`'s own answer; True on one, and the real
    `find` runs and shrinks as it always has. `copy_each` hands the condition a copy of each kept
    input (`_fresh`), so a function that changes its input cannot change them. When the
    condition held once and not on the same input again, Hypothesis cannot shrink (it raises
    `Flaky`); the first input where it held is the answer, marked not repeatable."""
    from hypothesis import find
    from hypothesis.errors import Flaky, NoSuchExample

    settings = seeded(examples)
    kept = _kept(inputs, settings)
    if kept and not _holds_on_any(kept, condition, copy_each):
        return None
    drawn: list[Any] = []
    held: list[Any] = []
    keepable = True

    def noted(value: Any) -> bool:
        nonlocal keepable
        before = value
        try:  # taken before `condition` runs, so what is kept is what was drawn
            before = _fresh(value) if copy_each else value
            if not copy_each:
                copy.deepcopy(value)  # kept as drawn: `outcome` must be able to copy it for `fn`
        except Exception:
            keepable = False
        drawn.append(before)
        holds = condition(value)
        if holds and not held:
            held.append(before)
        return holds

    with fixed_draws() as fixed:
        try:
            return Found(find(inputs, noted, settings=settings))
        except NoSuchExample:
            pass
        except Flaky:
            return Found(held[0], repeatable=False)
    if fixed and keepable:
        _keep(inputs, settings, drawn)
    return None
