"""cafe.exercises.s02: the fixture-invariant checker reads which checks a learner's problems name."""

from cafe.exercises.reference_s02 import broken_checks
from cafe.exercises.s02 import check_fixture_problems


def fixture_problems(checks):
    """A learner's own invariant (the course's `fixture_problems` is refused as an answer)."""
    return [f"{name}: breaks the fixture invariant" for name in broken_checks(checks)]


def test_check_fixture_problems_accepts_problems_that_quote_each_check_s_question():
    # Issue 35: "always_ok ('Is it even?'): ..." was read as naming the sound check `even` too.
    def quoting(checks):
        return [
            f"{check.name} ({check.question!r}): {problem.split(': ', 1)[-1]}"
            for check in checks
            for problem in fixture_problems([check])
        ]

    assert check_fixture_problems(quoting) == []


def test_check_fixture_problems_still_refuses_a_problem_about_the_sound_check():
    def blames_the_sound_one(checks):
        return [*fixture_problems(checks), *(f"{c.name} looks odd" for c in checks[:1])]

    problems = check_fixture_problems(blames_the_sound_one)
    assert problems and any("even" in problem for problem in problems)
