"""Differential checking: the learner's function beside a reference, on generated inputs.

A checker's hand-picked cases teach; they cannot cover an exercise's whole domain, and a mistake
they do not touch would be called "passed". So after its cases a checker hands both functions to
`first_difference`: Hypothesis draws inputs from a strategy that spans the domain (names with
stray spaces and odd case, duplicates, every shape a value can take, every threshold the lesson
states and its neighbours), runs the learner's function and the reference on each, and when they
differ shrinks the input to a small one. `cafe.exercises.feedback.counterexample` words it as
every rejection is worded: the input, what the learner's function returned, what was expected,
and the idea in one line.

The search is seeded (`derandomize=True`), so the same function always gets the same verdict,
and bounded (`EXAMPLES` inputs), so a check stays within a second or two. Seeded, a search that
finds no difference draws the very same inputs from the same strategy object every time, so the
first such search keeps them, and the next check of that strategy tries them before drawing any.
They can only answer "no difference": where one input differs, the real search runs and shrinks
as it always has, so the verdict and the counterexample are the ones it always gave.

```python
inputs = built_once(shifts, RunRecord)  # one strategy object for every check
found = first_difference(fn, reference, inputs, idea="each run counted once by its ending")
if found:
    problems.append(counterexample(found.given, found.returned, found.expected, found.idea))
```

Whether the learner handed in the course's own function instead of writing one is asked by
`cafe.exercises.library.is_library`. Like the feedback module, this one imports nothing from
`cafe`: any session's checkers may use it.
"""

from __future__ import annotations

import copy
import enum
import functools
import types
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from typing import Any

__all__ = [
    "EXAMPLES",
    "Raises",
    "Difference",
    "first_difference",
    "first_broken",
    "outcome",
    "built_once",
]

# Inputs tried per check: a few hundred find a difference the cases missed, and a check of a
# small function still runs in well under a second.
EXAMPLES = 300
# Searches whose drawn inputs are kept (`_search`): the checkers search about 30 strategies, so 64
# keeps them all and a notebook's own besides. The banks' 25 kept searches hold about 5 MB (measured
# with tracemalloc), so the bound is some 15 MB.
KEPT_SEARCHES = 64


@dataclass(frozen=True)
class Raises:
    """What a call raised, as an outcome: its type, the message left out (wording varies)."""

    kind: type[BaseException]

    def __repr__(self) -> str:
        return f"raises {self.kind.__name__}"


def outcome(fn: Callable[..., Any], *args: Any, copied: bool = True) -> Any:
    """`fn(*args)` on copies of `args` (a learner's function may change its input), or `Raises`.
    `copied=False` passes frozen records as they are, which saves the copying."""
    if copied:
        try:
            args = copy.deepcopy(args)
        except Exception:  # a value that cannot be copied (a client, a generator) goes as it is
            pass
    try:
        return fn(*args)
    except Exception as exc:  # NotImplementedError too: the cases, run first, catch the stub
        return Raises(type(exc))


def _same_outcome(got: Any, want: Any, same: Callable[[Any, Any], bool]) -> bool:
    if isinstance(want, Raises) or isinstance(got, Raises):
        # a learner's own subclass of the error the reference raises is the same refusal
        return (
            isinstance(want, Raises) and isinstance(got, Raises) and issubclass(got.kind, want.kind)
        )
    try:
        return bool(same(got, want))
    except Exception:  # a learner's value that cannot even be compared differs
        return False


@dataclass(frozen=True)
class Difference:
    """The smallest input found where the two functions differ, and what each gave."""

    given: Any
    returned: Any
    expected: Any
    idea: str


def first_difference(
    fn: Callable[..., Any],
    reference: Callable[..., Any],
    inputs: Any,
    *,
    idea: str,
    same: Callable[[Any, Any], bool] = lambda got, want: bool(got == want),
    unpack: bool = False,
    examples: int = EXAMPLES,
    frozen: bool = False,
) -> Difference | None:
    """The shrunk input where `fn` and `reference` first differ, or None when they agree.

    `inputs` is a Hypothesis strategy; each drawn value is the one argument of both functions,
    or, with `unpack=True`, a tuple of their arguments. A raised exception is an outcome like a
    value: both must raise (the learner's error the reference's type or a subclass), or neither.
    Each function gets its own deep copy of the input, unless `frozen` says it cannot change. `same(got, want)` decides agreement.
    """

    def args(value: Any) -> tuple[Any, ...]:
        return tuple(value) if unpack else (value,)

    def differs(value: Any) -> bool:
        want = outcome(reference, *args(value), copied=not frozen)
        return not _same_outcome(outcome(fn, *args(value), copied=not frozen), want, same)

    # copies even when `frozen`: a "frozen" input may still hold a dict or a list (s01, s13)
    found = _search(inputs, differs, examples, copy_each=True)
    if not found:
        return None
    given = found[0]
    got = outcome(fn, *args(given), copied=not frozen)
    want = outcome(reference, *args(given), copied=not frozen)
    return Difference(given, got, want, idea)


def _seeded(examples: int) -> Any:
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


# (id of the strategy, its settings, constants gathered) -> what a search that found nothing drew
_drawn: dict[tuple[int, str, int], _Drawn] = {}


def _constants_gathered() -> int | None:
    """How many numbers and strings Hypothesis has gathered from the course's modules, or None
    when this Hypothesis has no such collection (then nothing is kept).

    Now and then Hypothesis draws a constant found in the local code imported so far
    (hypothesis/internal/conjecture/providers.py, `_get_local_constants`), so what a seeded search
    draws also depends on which modules are imported. The collection only grows: its size says
    whether it changed."""
    try:
        from hypothesis.internal.conjecture.providers import _get_local_constants
    except ImportError:
        return None
    return len(_get_local_constants())


def _kept(inputs: Any, settings: Any) -> _Drawn | None:
    """What a search on this very strategy object drew, with these settings and constants."""
    gathered = _constants_gathered()
    if gathered is None:
        return None
    kept = _drawn.get((id(inputs), repr(settings), gathered))
    return kept if kept is not None and kept.strategy is inputs else None


def _keep(inputs: Any, settings: Any, gathered: int, values: list[Any]) -> None:
    if len(_drawn) >= KEPT_SEARCHES:
        del _drawn[next(iter(_drawn))]  # the oldest
    _drawn[(id(inputs), repr(settings), gathered)] = _Drawn(inputs, settings, tuple(values))


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


def _search(
    inputs: Any, condition: Callable[[Any], bool], examples: int, *, copy_each: bool
) -> list[Any]:
    """Hypothesis's seeded `find`: [the shrunk input where `condition` holds], or [] for none.

    Seeded, `find` draws the same inputs in the same order from one strategy object with the same
    settings and constants gathered, whatever the condition, until the condition holds: only an
    input where it holds changes the search's course (hypothesis/internal/conjecture/engine.py,
    `test_function`). So a search that finds nothing keeps what it drew, and the next search of
    that strategy first tries its condition on those: False on all is `find`'s own answer; True on
    one, and the real `find` runs and shrinks as it always has. `copy_each` hands the condition a
    copy of each kept input (`_fresh`), so a function that changes its input cannot change them."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    settings = _seeded(examples)
    kept = _kept(inputs, settings)
    # the second look: a condition that imported code with new constants would have changed the
    # real search's draws from that point, so the kept inputs answer only if none were gathered
    if kept and not _holds_on_any(kept, condition, copy_each) and _kept(inputs, settings) is kept:
        return []
    gathered, drawn, keepable = _constants_gathered(), [], True

    def noted(value: Any) -> bool:
        nonlocal keepable
        try:  # taken before `condition` runs, so what is kept is what was drawn
            drawn.append(_fresh(value) if copy_each else value)
            if not copy_each:
                copy.deepcopy(value)  # kept as drawn: `outcome` must be able to copy it for `fn`
        except Exception:
            keepable = False
        return condition(value)

    try:
        return [find(inputs, noted, settings=settings)]
    except NoSuchExample:
        pass
    if gathered is not None and _constants_gathered() == gathered and keepable:
        _keep(inputs, settings, gathered, drawn)
    return []


def first_broken(
    fn: Callable[..., Any],
    inputs: Any,
    broken: Callable[[Any, Any], bool],
    *,
    examples: int = EXAMPLES,
) -> tuple[Any, Any] | None:
    """For an open-ended exercise, judged by a property rather than one answer: the shrunk input
    where `broken(input, what fn returned)` holds, with what `fn` returned there, or None."""
    # `broken` is the checker's own code and `fn` gets a copy (`outcome`): the kept inputs go as
    # they were drawn, so `broken` sees the very values the real search would give it
    found = _search(
        inputs, lambda value: broken(value, outcome(fn, value)), examples, copy_each=False
    )
    if not found:
        return None
    return found[0], outcome(fn, found[0])


@functools.lru_cache(maxsize=KEPT_SEARCHES)
def built_once(factory: Callable[..., Any], *args: Any) -> Any:
    """`factory(*args)`, built on the first call and the very same object after. A checker whose
    strategy is made from constant data asks for it here, so that every check searches one strategy
    object and replays what its first search drew (`_search`). Only for a factory whose strategy
    depends on nothing but its arguments: equal arguments give back the strategy first built."""
    return factory(*args)
