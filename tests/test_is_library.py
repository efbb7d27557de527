"""The course's own function is recognised however it is handed in (issue 35, held-out readers).

`cafe.exercises.library.is_library` says the learner's function is the course's own when the
course's function's code runs while the learner's function runs. Held-out readers (7 Dec 2026)
handed the course's function in through a wrapper that imports it inside its body, a closure and a
lambda, and each one passed a checker that read only the names in the wrapper's code. Here
Hypothesis draws the shape of the hand-in (the function itself, a global alias, a module
attribute, an import inside the body, a closure, a lambda, a default argument, a helper that calls
it, a `functools.partial`, a `functools.wraps` wrapper) and the course function it hands in,
writes it as a notebook cell would, and asks `is_library`. A learner's own function, one that
calls another course helper the exercise allows, a stub and a crash are not flagged. The last test
hands a wrapper to each refusing checker.
"""

from __future__ import annotations

import functools
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.consent import within_consent
from cafe.consent import within_consent as approved
from cafe.exercises import s01, s03, s04, s05, s07, s08, s09, s10, s11, s12, s13, s14
from cafe.exercises.feedback import library_answer
from cafe.exercises.library import is_library, names_library, runs_library
from cafe.repair.feedback import attempt_failure_view, failure_view
from cafe.report.summary import ENDINGS, count_endings
from cafe.schema.ticket import Failure
from cafe.trace.attributes import Scrubber, scrub

_FAILURES = (Failure("missing_field", "table", "include table: the table number"),)
_RUNS = [SimpleNamespace(ending=ending) for ending in ENDINGS]


@dataclass(frozen=True)
class Course:
    """A course function an exercise refuses: where it lives, the functions the checker names,
    the wrapper's parameters, how it calls the function (`through` is the name it has there), and
    an input like the checker's first case."""

    module: str
    name: str
    library: tuple[Any, ...]
    params: str
    call: Callable[[str], str]
    trial: tuple[Any, ...]


COURSES = (
    Course(
        "cafe.repair.feedback",
        "attempt_failure_view",
        (attempt_failure_view, failure_view),
        "failures, attempt",
        lambda through: f"{through}(failures, attempt)",
        (_FAILURES, 2),
    ),
    Course(
        "cafe.report.summary",
        "count_endings",
        (count_endings,),
        "runs",
        lambda through: f"{through}(runs)",
        (_RUNS,),
    ),
    Course(
        "cafe.trace.attributes",
        "scrub",
        (scrub, Scrubber),
        "text",
        lambda through: f"{through}(text)",
        ("sk-x",),
    ),
    # a class: the wrapper makes one, and the class's own method (__init__) runs
    Course(
        "cafe.trace.attributes",
        "Scrubber",
        (scrub, Scrubber),
        "text",
        lambda through: f"{through}()(text)",
        ("a latte",),
    ),
)


def _shape(shape: str, course: Course) -> str:
    """The source of a cell that hands `course`'s function in, in one shape, as `handed_in`."""
    module, name, params, call = course.module, course.name, course.params, course.call
    found = f'getattr(importlib.import_module("{module}"), "{name}")'
    sources = {
        "direct": f"from {module} import {name} as handed_in",
        "global alias": f"""
            from {module} import {name} as helper_fn
            def handed_in({params}):
                return {call("helper_fn")}
            """,
        "module attribute": f"""
            import {module} as course_module
            def handed_in({params}):
                return {call(f"course_module.{name}")}
            """,
        "local import": f"""
            def handed_in({params}):
                from {module} import {name}
                return {call(name)}
            """,
        "closure": f"""
            def _make():
                from {module} import {name} as inner
                def handed_in({params}):
                    return {call("inner")}
                return handed_in
            handed_in = _make()
            """,
        "lambda": f"""
            import importlib
            handed_in = (lambda inner: lambda {params}: {call("inner")})({found})
            """,
        "default argument": f"""
            import importlib
            def handed_in({params}, _inner={found}):
                return {call("_inner")}
            """,
        "helper": f"""
            def _helper({params}):
                from {module} import {name}
                return {call(name)}
            def handed_in({params}):
                return _helper({params})
            """,
        "partial": f"""
            import functools, importlib
            handed_in = functools.partial(lambda inner, {params}: {call("inner")}, {found})
            """,
        "wraps": f"""
            import functools, importlib
            inner = {found}
            def _wrap(f):
                @functools.wraps(f)
                def wrapper(*args):
                    return f(*args)
                return wrapper
            handed_in = _wrap(lambda {params}: {call("inner")})
            """,
    }
    return textwrap.dedent(sources[shape])


SHAPES = (
    "direct",
    "global alias",
    "module attribute",
    "local import",
    "closure",
    "lambda",
    "default argument",
    "helper",
    "partial",
    "wraps",
)
# The shapes whose code never names the course's function where a reading of it can see it.
HIDDEN = ("local import", "closure", "lambda", "default argument", "helper")


def _cell(shape: str, course: Course) -> Callable[..., Any]:
    """The shape run as a notebook cell of its own (module `__main__`); its `handed_in`."""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(_shape(shape, course), "<cell>", "exec"), namespace)
    handed_in: Callable[..., Any] = namespace["handed_in"]
    return handed_in


@settings(
    max_examples=60,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
@given(st.sampled_from(SHAPES), st.sampled_from(COURSES))
def test_is_library_any_shape_of_hand_in_is_the_course_s(shape: str, course: Course) -> None:
    handed_in = _cell(shape, course)
    assert is_library(handed_in, *course.library, trial=course.trial), (
        f"{shape} round {course.name} was not recognised:\n{_shape(shape, course)}"
    )


@pytest.mark.parametrize("shape", HIDDEN)
def test_is_library_shapes_the_names_miss_are_found_by_what_runs(shape: str) -> None:
    """Why the second test exists: these hide the name from a reading of the wrapper's code."""
    course = COURSES[0]
    handed_in = _cell(shape, course)
    assert not names_library(handed_in, *course.library)
    assert runs_library(handed_in, course.library, course.trial)


def test_is_library_without_a_trial_reads_the_code_only() -> None:
    course = COURSES[0]
    assert names_library(_cell("global alias", course), *course.library)
    assert not is_library(_cell("closure", course), *course.library)


def own_view(failures, attempt):
    """A learner's own view, through a course helper the exercise allows (`Failure.line`)."""
    return "\n".join([f"Attempt {attempt} failed:", *(f"- {f.line()}" for f in failures)])


def own_count(runs):
    """A learner's own count, through the course's closed set of endings."""
    counts = dict.fromkeys(ENDINGS, 0)
    for run in runs:
        counts[run.ending] += 1
    return counts


def own_mask(text):
    """A learner's own mask: no course code at all."""
    return text.replace("sk-x", "[redacted]")


@pytest.mark.parametrize(
    ("fn", "course"),
    [(own_view, COURSES[0]), (own_count, COURSES[1]), (own_mask, COURSES[2])],
    ids=["view", "count", "mask"],
)
def test_is_library_a_learner_s_own_function_is_not(fn: Callable[..., Any], course: Course) -> None:
    assert not is_library(fn, *course.library, trial=course.trial)


def test_is_library_a_stub_or_a_crash_is_not_the_course_s() -> None:
    def stub(failures, attempt):
        raise NotImplementedError("your turn")

    def crashes(failures, attempt):
        return failures[5]

    course = COURSES[0]
    assert not is_library(stub, *course.library, trial=course.trial)
    assert not is_library(crashes, *course.library, trial=course.trial)


def test_is_library_puts_back_the_profile_hook_it_found() -> None:
    def before(frame: Any, event: str, arg: Any) -> None:
        return None

    sys.setprofile(before)
    try:
        assert is_library(_cell("local import", COURSES[1]), count_endings, trial=(_RUNS,))
        assert sys.getprofile() is before
    finally:
        sys.setprofile(None)


# --- every refusing checker refuses a wrapper that imports the course's function in its body -----

# checker, the function's module and name, the wrapper's parameters and how it answers
_CHECKERS = {
    "s01 guard": (s01.check_repeat_guard, "cafe.loop.guards", "repeat_guard", "view", ""),
    "s03 fit": (s03.check_fit_sections, "cafe.context", "fit_sections", "sections, budget", ""),
    "s03 delimit": (s03.check_delimit, "cafe.context", "delimit", "text", ""),
    "s04 failures": (s04.check_failures_from, "cafe.schema.parsing", "failures_from", "error", ""),
    "s05 consent": (s05.check_within_consent, "cafe.consent", "within_consent", "ticket, spec", ""),
    "s07 loop": (
        s07.check_repair_loop,
        "cafe.repair",
        "repair_ticket",
        "spec, generate, cap=3",
        "",
    ),
    "s07 view": (
        s07.check_attempt_failure_view,
        "cafe.repair",
        "failure_view",
        "failures, attempt",
        "",
    ),
    "s08 replay": (s08.check_replay_client, "cafe.trace.replay", "replay_client", "trace", ""),
    "s08 mask": (s08.check_mask, "cafe.trace.spans", "scrub", "text", ""),
    "s09 summarize": (s09.check_summarize, "cafe.report", "count_endings", "runs", ""),
    "s09 cost": (s09.check_cost_by_ending, "cafe.report", "cost_by_ending", "runs, prices", ""),
    "s10 classify": (s10.check_classify, "cafe.taxonomy", "classify", "run", ""),
    "s11 expected": (
        s11.check_expected_cost,
        "cafe.routing.routes",
        "expected_cost",
        "p, price, cap",
        "",
    ),
    "s11 route": (s11.check_route_cost, "cafe.routing.routes", "route_cost", "steps", ""),
    "s12 calibrate": (
        s12.check_calibrate,
        "cafe.judge.calibration",
        "calibrate",
        "judge, labelled",
        "",
    ),
    "s12 trust": (
        s12.check_trust_rule,
        "cafe.judge.trust",
        "trust_reading",
        "calibration, model",
        ".trusted",
    ),
    "s13 fold": (
        s13.check_fold_diagnostic,
        "cafe.stall.failure_state",
        "fold_diagnostic",
        "state, dispatch",
        "",
    ),
    "s14 reading": (s14.check_reading, "cafe.governor.pacing", "passing_tests", "view", ""),
}


@pytest.mark.usefixtures("home")
@pytest.mark.parametrize("exercise", sorted(_CHECKERS))
def test_is_library_every_refusing_checker_refuses_a_wrapper(exercise: str) -> None:
    check, module, name, params, tail = _CHECKERS[exercise]
    source = f"""
def handed_in({params}):
    from {module} import {name}
    return {name}({params}){tail}
"""
    namespace: dict[str, Any] = {"__name__": "__main__"}
    exec(compile(source, "<cell>", "exec"), namespace)
    problems = check(namespace["handed_in"])
    assert problems and problems[0].startswith("this is the course's `"), (exercise, problems)
    assert problems[0].endswith(library_answer("")[-60:]), problems


# --- what the code names, as before: aliases, a partial, a nested call (the s05 red team) --------


def by_its_name(ticket, spec):
    return within_consent(ticket, spec)


def by_an_alias(ticket, spec):
    return approved(ticket, spec)


def by_a_nested_call(ticket, spec):
    def inner():
        return approved(ticket, spec)

    return inner()


def learners_own(ticket, spec):
    return ticket.items == spec.items and ticket.table == spec.table


def test_is_library_the_function_and_every_way_of_naming_it_are_found():
    for fn in (
        within_consent,
        approved,
        functools.partial(within_consent),
        by_its_name,
        by_an_alias,
        by_a_nested_call,
    ):
        assert is_library(fn, within_consent), fn


def test_is_library_a_learners_own_function_is_not_by_its_names():
    assert not is_library(learners_own, within_consent)
    assert not is_library(lambda ticket, spec: True, within_consent)
