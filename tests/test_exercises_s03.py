"""cafe.exercises.s03: the never-drop rule's checker, at the safety minimum and beyond its cases."""

from cafe.context import fit_sections
from cafe.exercises.reference_s03 import fitted
from cafe.exercises.s03 import check_fit_sections


def test_check_fit_sections_passes_the_reference_and_refuses_the_course_s_function():
    assert check_fit_sections(fitted) == []
    (problem,) = check_fit_sections(fit_sections)
    assert "course's `fit_sections`" in problem


def test_check_fit_sections_an_error_naming_budget_plus_one_is_not_the_minimum():
    def plus_one(sections, budget):
        try:
            return fitted(sections, budget)
        except ValueError:
            raise ValueError(f"give a budget of at least {budget + 1}") from None

    problems = check_fit_sections(plus_one)
    assert any("budget 5 (safety minimum 20)" in problem for problem in problems), problems


def test_check_fit_sections_shows_a_shrunk_generated_set_the_cases_never_try():
    def first_always_stays(sections, budget):  # both case sets open with a safety section
        first, *rest = sections
        if first.required:
            return fitted(sections, budget)
        kept = fitted(rest, budget - first.tokens) if budget >= first.tokens else ()
        return (first, *kept)

    problems = check_fit_sections(first_always_stays)
    assert len(problems) == 1 and problems[0].startswith("on budget "), problems
