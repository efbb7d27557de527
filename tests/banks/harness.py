"""A bank of solutions for one checker, and the verdict a learner would see on each.

A `Bank` holds, for one compare checker: the course's reference solution, wrong solutions a
learner might plausibly write (each an `Entry` naming the idea it gets wrong and a concrete input
where it goes wrong), and right solutions shaped unlike the reference. `verdict(check, fn)` runs
`fn` through `cafe.course.compare`, the same call the notebook makes, so "accepted" here means the
learner would read "passed". A checker that lets an exception out on a learner's function is a
bug in the checker (the learner would see its traceback): the verdict says "checker crashed".

For the mutation benchmark a bank also says which code to mutate: `reference_module` and
`targets` (the reference's entry function first, then the helpers that belong to the exercise, all
in that module), and `adapt`, which turns the compiled entry into the learner's signature.
"""

from __future__ import annotations

import ast
import contextlib
import importlib
import inspect
import io
import textwrap
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from cafe import course

__all__ = ["Entry", "Bank", "Verdict", "verdict", "reference_lines", "MIN_SOURCE_LINE"]

Status = Literal["accepted", "rejected", "not attempted", "checker crashed"]
_STATUS: Mapping[str, Status] = {
    "passed": "accepted",
    "failed": "rejected",
    "not_attempted": "not attempted",
}
# A source line shorter than this ("continue", "return problems") says nothing of the reference
# when a problem happens to contain it; longer ones would show the learner the course's code.
MIN_SOURCE_LINE = 16


@dataclass(frozen=True)
class Entry:
    """One solution in a bank: a name, the function, the idea it gets wrong (for a right entry:
    what makes it right, and unlike the reference), and the witness: a concrete input and what
    goes wrong there."""

    name: str
    fn: Callable[..., Any]
    idea: str
    witness: str = ""


def _entry_of(namespace: Mapping[str, Any], name: str) -> Callable[..., Any]:
    found: Callable[..., Any] = namespace[name]
    return found


@dataclass(frozen=True)
class Bank:
    """Every solution one checker is held to, and what the mutation benchmark mutates.

    `targets` default to the reference alone, found in the module it was defined in; `adapt`
    (given the namespace the targets were compiled into) returns the function a learner would
    hand in, when the reference's signature differs from the exercise's.
    """

    session: str
    check: Callable[[Callable[..., Any]], Any]
    reference: Callable[..., Any]
    wrong: tuple[Entry, ...]
    right: tuple[Entry, ...]
    reference_module: str = ""
    targets: tuple[str, ...] = ()
    adapt: Callable[[Mapping[str, Any]], Callable[..., Any]] | None = None

    @property
    def checker_name(self) -> str:
        """The checker's function name (`check_fixture_problems`), through a `partial` too."""
        inner = getattr(self.check, "func", self.check)
        return str(getattr(inner, "__name__", repr(inner)))

    @property
    def id(self) -> str:
        return f"{self.session}.{self.checker_name}"

    @property
    def mutation_module(self) -> str:
        return self.reference_module or self.reference.__module__

    @property
    def mutation_targets(self) -> tuple[str, ...]:
        return self.targets or (self.reference.__name__,)

    def learner_function(self, namespace: Mapping[str, Any]) -> Callable[..., Any]:
        """The function handed to the checker, built from targets compiled into `namespace`."""
        if self.adapt is not None:
            return self.adapt(namespace)
        return _entry_of(namespace, self.mutation_targets[0])

    def entries(self) -> Iterator[tuple[str, Entry]]:
        """("reference" | "wrong" | "right", entry) for every solution in the bank."""
        yield "reference", Entry("reference", self.reference, "the course's answer")
        yield from (("wrong", entry) for entry in self.wrong)
        yield from (("right", entry) for entry in self.right)


@dataclass(frozen=True)
class Verdict:
    """What compare said about one solution, and the problems it listed (or the crash)."""

    status: Status
    problems: tuple[str, ...] = ()

    def describe(self) -> str:
        shown = "\n".join(f"    - {problem}" for problem in self.problems)
        return f"{self.status}" + (f":\n{shown}" if shown else "")


def verdict(check: Callable[..., Any], fn: Callable[..., Any]) -> Verdict:
    """`fn` judged by `check` through `cafe.course.compare`, quietly, without saving progress."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            result = course.compare(fn, check=check)
    except Exception as exc:  # the checker's own bug: the learner would see a traceback
        return Verdict("checker crashed", (f"{type(exc).__name__}: {exc}",))
    return Verdict(_STATUS[result.status], result.problems)


# --- what a rejection must not show ------------------------------------------------------------


def _code_lines(source: str) -> list[str]:
    """The lines of `source` that are code: docstrings and comment lines left out, stripped."""
    tree = ast.parse(source)
    skip: set[int] = set()
    for node in ast.walk(tree):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            value = body[0].value
            if isinstance(value, ast.Constant) and isinstance(value.value, str):
                skip.update(range(body[0].lineno, (body[0].end_lineno or body[0].lineno) + 1))
    lines = source.splitlines()
    return [
        line.strip()
        for number, line in enumerate(lines, start=1)
        if number not in skip and line.strip() and not line.strip().startswith("#")
    ]


def reference_lines(bank: Bank) -> set[str]:
    """Every code line of the reference and its mutation targets, MIN_SOURCE_LINE long or more."""
    functions: list[Any] = [bank.reference]
    module = importlib.import_module(bank.mutation_module)
    functions += [getattr(module, name) for name in bank.mutation_targets]
    found: set[str] = set()
    for function in functions:
        try:
            source = textwrap.dedent(inspect.getsource(function))
        except (OSError, TypeError):  # data or a builtin: there is no code to give away
            continue
        found.update(line for line in _code_lines(source) if len(line) >= MIN_SOURCE_LINE)
    return found
