"""Differential checking: the learner's function beside a reference, on generated inputs.

A checker's hand-picked cases teach; they cannot cover an exercise's whole domain, and a mistake
they do not touch would be called "passed". So after its cases a checker hands both functions to
`first_difference`: Hypothesis draws inputs from a strategy that spans the domain (names with
stray spaces and odd case, duplicates, every shape a value can take, every threshold the lesson
states and its neighbours), runs the learner's function and the reference on each, and when they
differ shrinks the input to a small one. `cafe.exercises.feedback.counterexample` words it as
every rejection is worded: the input, what the learner's function returned, what was expected,
and the idea in one line.

The search (`cafe.exercises.search`) is seeded and draws from the strategy alone, so the same
function always gets the same verdict, wherever it is checked; it is bounded (`EXAMPLES` inputs),
so a check stays within a second or two; and it keeps what a search that found nothing drew, so
the next check of that strategy is quick. A function that answers one input differently from one
call to the next (a random draw, a count kept between calls) is told so, as a difference.

```python
inputs = built_once(shifts, RunRecord)  # one strategy object for every check
found = first_difference(fn, reference, inputs, idea="each run counted once by its ending")
if found:
    problems.append(counterexample(found.given, found.returned, found.expected, found.idea))
```

Whether the learner handed in the course's own function instead of writing one is asked by
`cafe.exercises.library.is_library`. Like the feedback module, this one imports nothing from
`cafe` but its own search: any session's checkers may use it.
"""

from __future__ import annotations

import copy
import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from cafe.exercises.search import KEPT_SEARCHES, search

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
# The idea shown when one input got two answers from the learner's function, and how often
# `first_broken` asks again for the answer that broke its property.
NOT_REPEATABLE = (
    "this very input got another answer from your function on another call: a function the "
    "checker can judge answers each input the same way every time (no random draws, nothing "
    "kept from one call to the next)"
)
RETRIES = 20


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
    found = search(inputs, differs, examples, copy_each=True)
    if found is None:
        return None
    given = found.value
    want = outcome(reference, *args(given), copied=not frozen)
    got = outcome(fn, *args(given), copied=not frozen)
    # the search saw a difference here; if the function now agrees, it answers this input two
    # ways: say so, and ask again for the answer that differed, so the feedback shows it
    steady = found.repeatable and not _same_outcome(got, want, same)
    for _ in range(RETRIES):
        if not _same_outcome(got, want, same):
            break
        got = outcome(fn, *args(given), copied=not frozen)
    return Difference(given, got, want, idea if steady else NOT_REPEATABLE)


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
    found = search(
        inputs, lambda value: broken(value, outcome(fn, value)), examples, copy_each=False
    )
    if found is None:
        return None
    returned = outcome(fn, found.value)
    # a function whose answer to one input changes from call to call: ask again for the answer
    # that broke the property, so the feedback shows it (it may not come back: then the last)
    for _ in range(RETRIES):
        if broken(found.value, returned):
            break
        returned = outcome(fn, found.value)
    return found.value, returned


@functools.lru_cache(maxsize=KEPT_SEARCHES)
def built_once(factory: Callable[..., Any], *args: Any) -> Any:
    """`factory(*args)`, built on the first call and the very same object after. A checker whose
    strategy is made from constant data asks for it here, so that every check searches one strategy
    object and replays what its first search drew (`cafe.exercises.search`). Only for a factory whose strategy
    depends on nothing but its arguments: equal arguments give back the strategy first built."""
    return factory(*args)
