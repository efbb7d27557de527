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
and bounded (`EXAMPLES` inputs), so a check stays within a second or two.

```python
found = first_difference(fn, reference, shifts(), idea="each run counted once by its ending")
if found:
    problems.append(counterexample(found.given, found.returned, found.expected, found.idea))
```

`is_library(fn, library)` tells when the learner handed in the course's own function (or a
function that only calls it) instead of writing one. Like the feedback module, this one imports
nothing from `cafe`: any session's checkers may use it. Hypothesis is a test dependency (`pip install -e ".[test]"`).
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass
from types import ModuleType
from typing import Any

__all__ = [
    "EXAMPLES",
    "Raises",
    "Difference",
    "first_difference",
    "first_broken",
    "outcome",
    "is_library",
]

# Inputs tried per check: a few hundred find a difference the cases missed, and a check of a
# small function still runs in well under a second.
EXAMPLES = 300


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
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    def args(value: Any) -> tuple[Any, ...]:
        return tuple(value) if unpack else (value,)

    def differs(value: Any) -> bool:
        want = outcome(reference, *args(value), copied=not frozen)
        return not _same_outcome(outcome(fn, *args(value), copied=not frozen), want, same)

    try:
        given = find(inputs, differs, settings=_seeded(examples))
    except NoSuchExample:
        return None
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


def first_broken(
    fn: Callable[..., Any],
    inputs: Any,
    broken: Callable[[Any, Any], bool],
    *,
    examples: int = EXAMPLES,
) -> tuple[Any, Any] | None:
    """For an open-ended exercise, judged by a property rather than one answer: the shrunk input
    where `broken(input, what fn returned)` holds, with what `fn` returned there, or None."""
    from hypothesis import find
    from hypothesis.errors import NoSuchExample

    try:
        given = find(
            inputs, lambda value: broken(value, outcome(fn, value)), settings=_seeded(examples)
        )
    except NoSuchExample:
        return None
    return given, outcome(fn, given)


def _names(code: Any) -> set[str]:
    """Every global or attribute name a code object and the code nested in it refer to."""
    names = set(code.co_names)
    for const in code.co_consts:
        if hasattr(const, "co_names"):
            names |= _names(const)
    return names


def is_library(fn: Any, *library: Callable[..., Any]) -> bool:
    """True when `fn` is one of `library` (the course's own functions the exercise mirrors), or
    a function that calls one of them: by any name it was imported under (`import ... as x`), as
    `report.<name>` of a module it imported, or as `cafe.<...>.<name>`."""
    inner = getattr(fn, "__wrapped__", fn)
    inner = getattr(inner, "func", inner)  # a functools.partial of it
    code = getattr(inner, "__code__", None)
    if any(inner is own for own in library):
        return True
    if code is None:
        return False
    if any(code is getattr(own, "__code__", None) for own in library):
        return True
    names, found = _names(code), getattr(inner, "__globals__", {})
    if any(found.get(n) is own for n in names for own in library):  # by any name, aliases too
        return True
    modules = [found[n] for n in names if isinstance(found.get(n), ModuleType)]
    for own in library:
        name = getattr(own, "__name__", "")
        if name in names and (
            found.get(name) is own
            or "cafe" in names
            or any(getattr(module, name, None) is own for module in modules)
        ):
            return True
    return False
