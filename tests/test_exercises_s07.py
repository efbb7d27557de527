"""cafe.exercises.s07: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

import dataclasses
import re

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cafe.repair
import cafe.world.menu
from cafe import course
from cafe.exercises import reference_s07 as ref
from cafe.exercises import reference_s07_view as view_ref
from cafe.exercises import s07
from cafe.exercises.feedback import library_answer
from cafe.exercises.s07 import check_attempt_failure_view, check_repair_loop, reference_repair
from cafe.repair.feedback import attempt_failure_view, retry_messages
from cafe.repair.reask import repair_ticket
from cafe.schema.ticket import Failure

SEEDED = settings(
    max_examples=200,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def _stub(*args, **kwargs):
    raise NotImplementedError("your turn")


# --- the bounded re-ask ----------------------------------------------------------------------------


def _reference(spec, generate, cap=3):
    return reference_repair(spec, generate, cap)


def _loop_with(**pieces):
    """The reference loop with some of its pieces swapped: a learner's loop gone wrong there."""
    swapped = dataclasses.replace(s07._PIECES, **pieces)
    return lambda spec, generate, cap=3: ref.loop(spec, generate, cap, swapped)


def test_check_repair_loop_refuses_the_course_s_repair_ticket():
    assert check_repair_loop(repair_ticket) == [library_answer("repair_ticket")]


def test_check_repair_loop_a_loop_passing_its_running_messages_fails():
    def running(spec, generate, cap=3):  # appends each view to the messages it keeps sending
        menu = cafe.world.menu.load_menu()
        messages, attempts = list(cafe.repair.brief_for(spec)), []
        if cafe.repair.policy_failures(spec, menu):
            blocked = cafe.repair.policy_failures(spec, menu)
            return cafe.repair.RepairResult("policy_violation", None, (), blocked_by=blocked)
        for number in range(1, cap + 1):
            draft = generate(list(messages))
            score = cafe.repair.score_ticket(draft, spec, menu)
            attempts.append(cafe.repair.Attempt(number, draft, score.failures, 0, None))
            if score.ticket is not None:
                return cafe.repair.RepairResult("passed", score.ticket, tuple(attempts))
            messages.append(retry_messages(messages, score.failures, number, "curated")[-1])
        return cafe.repair.RepairResult("retries_exhausted", None, tuple(attempts))

    problems = check_repair_loop(running)
    assert any("added messages: 2, expected 1" in problem for problem in problems), problems


_naive = _loop_with(retry=lambda brief, failures, number: brief)


def _fixed_cap(spec, generate, cap=3):
    return reference_repair(spec, generate)


def _no_policy_check(spec, generate, cap=3):
    """A loop that drafts before asking whether the request may be drafted at all."""
    from cafe.world.menu import load_menu

    menu = load_menu()
    brief = cafe.repair.brief_for(spec)
    messages, attempts = brief, []
    for number in range(1, cap + 1):
        draft = generate(list(messages))
        score = cafe.repair.score_ticket(draft, spec, menu)
        attempts.append(cafe.repair.Attempt(number, draft, score.failures, 0, None))
        if score.ticket is not None:
            return cafe.repair.RepairResult("passed", score.ticket, tuple(attempts))
        messages = cafe.repair.retry_messages(brief, score.failures, number, "curated")
    return cafe.repair.RepairResult("retries_exhausted", None, tuple(attempts))


def _shows_the_draft(spec, generate, cap=3):
    """Keeps the failed draft in view, as many retry libraries do."""
    from cafe.world.menu import load_menu

    menu = load_menu()
    if cafe.repair.policy_failures(spec, menu):
        return cafe.repair.RepairResult(
            "policy_violation", None, (), blocked_by=cafe.repair.policy_failures(spec, menu)
        )
    brief = cafe.repair.brief_for(spec)
    messages, attempts = list(brief), []
    for number in range(1, cap + 1):
        draft = generate(list(messages))
        score = cafe.repair.score_ticket(draft, spec, menu)
        attempts.append(cafe.repair.Attempt(number, draft, score.failures, 0, None))
        if score.ticket is not None:
            return cafe.repair.RepairResult("passed", score.ticket, tuple(attempts))
        messages += [
            {"role": "assistant", "content": draft},
            {"role": "user", "content": cafe.repair.failure_view(score.failures, number)},
        ]
    return cafe.repair.RepairResult("retries_exhausted", None, tuple(attempts))


@pytest.mark.parametrize(
    "wrong, complaint",
    [
        (
            _naive,
            "a model that fixes what a retry names: ended 'retries_exhausted', expected 'passed'",
        ),
        (_fixed_cap, "cap 2: drafts asked for: 3, expected 2"),
        (
            _no_policy_check,
            "the unsafe latte: ended 'retries_exhausted', expected 'policy_violation'",
        ),
        (
            _no_policy_check,
            "an instruction hidden in the request: ended 'passed', expected 'policy_violation'",
        ),
        (_shows_the_draft, "the retry after attempt 1 shows the failed draft"),
        (lambda spec, generate, cap=3: None, "returned None; return a cafe.repair.RepairResult"),
        (lambda spec, generate, cap=3: 1 / 0, "raised ZeroDivisionError"),
    ],
)
def test_check_repair_loop_wrong_loops_fail_with_a_specific_complaint(wrong, complaint):
    problems = check_repair_loop(wrong)
    assert any(complaint in problem for problem in problems), problems
    assert course.compare(wrong, check=check_repair_loop).status == "failed"


def test_check_repair_loop_takes_the_cap_by_name_or_by_place():
    # a loop may take cap only by name, as repair_ticket does; the notebook's stub either way
    def by_name(spec, generate, *, cap=3):
        return reference_repair(spec, generate, cap)

    def by_place(spec, generate, limit):
        return reference_repair(spec, generate, limit)

    assert check_repair_loop(by_name) == [] and check_repair_loop(by_place) == []


def test_check_repair_loop_scores_every_check_not_only_the_contract():
    # Issue 26: a loop scoring with parse_draft alone passed every case and sent the 86'd
    # omelette to the kitchen; complete tickets that fail the menu, the 86'd list and the
    # scope now reach the loop.
    from cafe.schema.parsing import parse_draft

    def contract_only(spec, generate, cap=3):
        brief = cafe.repair.brief_for(spec)
        messages, attempts = brief, []
        if cafe.repair.policy_failures(spec, cafe.world.menu.load_menu()):
            blocked = cafe.repair.policy_failures(spec, cafe.world.menu.load_menu())
            return cafe.repair.RepairResult("policy_violation", None, (), blocked_by=blocked)
        for number in range(1, cap + 1):
            draft = generate(list(messages))
            parsed = parse_draft(draft)
            attempts.append(cafe.repair.Attempt(number, draft, parsed.failures, 0, None))
            if parsed.ticket is not None:
                return cafe.repair.RepairResult("passed", parsed.ticket, tuple(attempts))
            messages = cafe.repair.retry_messages(brief, parsed.failures, number, "curated")
        return cafe.repair.RepairResult("retries_exhausted", None, tuple(attempts))

    problems = check_repair_loop(contract_only)
    assert any("the 86'd omelette as a complete ticket: ended 'passed'" in p for p in problems), (
        problems
    )
    assert all(len(p.splitlines()) <= 2 for p in problems)


def test_check_repair_loop_an_order_the_customer_can_change_is_drafted_not_refused():
    from cafe.consent import changes_to_confirm
    from cafe.world.menu import load_menu

    def refuses_it(spec, generate, cap=3):
        conflicts = changes_to_confirm(spec, load_menu())
        if conflicts:
            return cafe.repair.RepairResult("policy_violation", None, (), blocked_by=conflicts)
        return reference_repair(spec, generate, cap)

    problems = check_repair_loop(refuses_it)
    assert any("latte and espresso, milk allergy: ended 'policy_violation'" in p for p in problems)


# --- the failure view ------------------------------------------------------------------------------


def test_check_attempt_failure_view_reference_passes_compare():
    assert check_attempt_failure_view(ref.view) == []
    assert course.compare(ref.view, check=check_attempt_failure_view).status == "passed"


def test_check_attempt_failure_view_shows_a_view_that_grows_with_the_attempt():
    def carries_history(failures, attempt):
        earlier = f" (after {', '.join(map(str, range(1, attempt)))})" if attempt > 3 else ""
        return ref.view(failures, attempt) + earlier

    (problem,) = check_attempt_failure_view(carries_history)
    assert problem.startswith("on attempt ") and "no longer than the view of attempt 1" in problem


def test_check_attempt_failure_view_stub_is_not_attempted():
    assert course.compare(_stub, check=check_attempt_failure_view).status == "not_attempted"


@pytest.mark.parametrize(
    "attempt",
    [
        lambda failures, attempt: "Something went wrong, please try again.",
        lambda failures, attempt: "\n".join(f.check for f in failures),
        lambda failures, attempt: (
            f"Attempt {attempt}\n" + "\n".join(f"{f.check} {f.span}" for f in failures)
        ),
        lambda failures, attempt: None,
        lambda failures, attempt: 1 / 0,
    ],
)
def test_check_attempt_failure_view_vague_views_fail(attempt):
    assert check_attempt_failure_view(attempt)
    assert course.compare(attempt, check=check_attempt_failure_view).status == "failed"


def test_check_attempt_failure_view_refuses_the_course_s_views():
    for course_view in (attempt_failure_view, cafe.repair.failure_view):
        assert check_attempt_failure_view(course_view) == [library_answer("attempt_failure_view")]


def test_check_attempt_failure_view_one_line_for_all_failures_is_not_one_line_each():
    def one_line(failures, attempt):
        return f"Attempt {attempt} failed: " + "; ".join(f.line() for f in failures)

    problems = check_attempt_failure_view(one_line)
    assert any("a line of its own" in problem for problem in problems), problems


def test_check_attempt_failure_view_a_count_is_not_the_attempt():
    # Passed the old checker, whose fixture for attempt k held k failures: "2 failed" read as attempt 2.
    def counts_only(failures, attempt):
        return f"{len(failures)} failed:\n" + "\n".join(f.line() for f in failures)

    problems = check_attempt_failure_view(counts_only)
    assert any("which attempt failed" in problem for problem in problems), problems


# The lesson requires a header naming the attempt and forbids commentary; it lists no words. So
# a header sentence is any words around the attempt's name, and a sentence of the frame that
# speaks of neither the attempt nor the failures nor the edit is commentary, whatever its words.
_CHECK_WORDS = {w for c in s07._CHECKS for w in re.findall(r"[a-z]+", c)}
_WORDS = st.from_regex(r"[a-z]{1,10}", fullmatch=True).filter(lambda w: w not in _CHECK_WORDS)
# Words that say nothing of the attempt, the failures or the edit, nor name an attempt by ordinal.
_IDLE = _WORDS.filter(lambda w: w not in view_ref.FRAME_ANCHORS and w not in view_ref.ORDINALS)
_NAMED = ("Attempt {n}", "attempt #{n}", "draft {n}", "Try {n}", "round number {n}")


def _lines(failures):
    return [f"- {f.check}: {f.span!r} -> {f.fix}" for f in failures]


@SEEDED
@given(
    view_ref.failure_sets(Failure),
    st.lists(_WORDS, max_size=6),
    st.sampled_from(_NAMED),
    st.lists(_WORDS, max_size=6),
    st.sampled_from(("", ":", ".", "!", " -")),
)
def test_view_any_header_wording_that_names_the_attempt_is_accepted(
    given_view, before, named, after, end
):
    failures, attempt = given_view
    header = " ".join([*before, named.format(n=attempt), *after]) + end
    assert (
        view_ref.view_problem(
            "\n".join([header, *_lines(failures)]), failures, attempt, s07._CHECKS
        )
        is None
    )


@SEEDED
@given(view_ref.failure_sets(Failure), st.lists(_IDLE, min_size=1, max_size=8), st.booleans())
def test_view_a_sentence_about_nothing_the_view_is_for_is_commentary(given_view, words, above):
    failures, attempt = given_view
    said = " ".join(words).capitalize() + "."
    lines = [f"Attempt {attempt} failed.", *_lines(failures)]
    lines.insert(1 if above else len(lines), said)
    found = view_ref.view_problem("\n".join(lines), failures, attempt, s07._CHECKS)
    assert found is not None and found[1] == "no commentary: the view asks for a specific edit"
    assert said.rstrip(".") in found[0]


def test_check_attempt_failure_view_accepts_headers_and_fences_in_the_learner_s_words():
    headers = (
        "Attempt {n}: fix each and change nothing else.",
        "Attempt {n} was rejected for these reasons:",
        "Your ticket (draft {n}) bounced; every field below needs a fix, the others stay.",
        "Kitchen says no to attempt {n}, sorry.",
    )
    for header in headers:

        def view(failures, attempt, header=header):
            return "\n".join([header.format(n=attempt), *_lines(failures)])

        assert check_attempt_failure_view(view) == [], header


def test_check_repair_loop_a_refusal_lists_every_reason_policy_gives():
    def first_reason_only(spec, generate, cap=3):
        result = reference_repair(spec, generate, cap)
        if result.stop_reason != "policy_violation":
            return result
        return dataclasses.replace(result, blocked_by=result.blocked_by[:1])

    (problem,) = check_repair_loop(first_reason_only)
    assert problem.startswith("on table 6, ") and "every reason policy_failures gives" in problem


def test_check_repair_loop_logs_the_draft_as_the_model_wrote_it():
    def strips(spec, generate, cap=3):
        return reference_repair(spec, lambda messages: generate(messages).strip(), cap)

    (problem,) = check_repair_loop(strips)
    assert "logged as written" in problem, problem


# --- the notebook's your-turn cells --------------------------------------------------------------


def test_notebook_stubs_are_not_attempted_and_the_references_pass(tmp_path, monkeypatch):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))  # the notebook banks a checkpoint
    namespace = run_notebook_source("s07-repair-loop")
    assert (
        course.compare(namespace["my_repair_ticket"], check=check_repair_loop).status
        == "not_attempted"
    )
    assert (
        course.compare(namespace["attempt_failure_view"], check=check_attempt_failure_view).status
        == "not_attempted"
    )
    assert namespace["distributions"] == {
        "naive": {"1": 4, "2": 0, "3": 0, "exhausted": 6, "blocked": 0},
        "curated": {"1": 4, "2": 3, "3": 1, "exhausted": 2, "blocked": 0},
    }


def _run_with_solutions(tmp_path, monkeypatch, replacements):
    """The notebook source with its stubs replaced by working solutions; the progress file."""
    import contextlib
    import io
    import json
    from pathlib import Path

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    path = Path(__file__).resolve().parent.parent / "sessions" / "s07-repair-loop" / "notebook.py"
    source = path.read_text(encoding="utf-8")
    for stub, solution in replacements.items():
        assert stub in source, stub
        source = source.replace(stub, solution)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(path), "exec"), {"__name__": "__notebook__"})
    return json.loads((tmp_path / "progress.json").read_text(encoding="utf-8"))


def test_notebook_banks_your_figures_only_once_your_exercises_pass(tmp_path, monkeypatch):
    progress = _run_with_solutions(
        tmp_path,
        monkeypatch,
        {
            'raise NotImplementedError("your turn: write the bounded re-ask")': (
                "from cafe.exercises.s07 import reference_repair\n"
                "    return reference_repair(spec, generate, cap)"
            ),
            'raise NotImplementedError("your turn: write the failure view")': (
                "from cafe.exercises.reference_s07 import view\n    return view(failures, attempt)"
            ),
        },
    )
    banked = progress["checkpoints"]["s07"]
    assert banked["attempts_to_pass"]["source"] == "scripted"
    assert banked["your_loop_attempts_to_pass"]["source"] == "yours"
    assert banked["your_loop_attempts_to_pass"]["value"] == {
        "1": 4,
        "2": 3,
        "3": 1,
        "exhausted": 2,
        "blocked": 0,
    }
    assert banked["your_failure_view"]["source"] == "yours"
    assert banked["your_failure_view"]["value"]["of"] == 6


def test_notebook_banks_nothing_as_yours_for_the_stubs(tmp_path, monkeypatch):
    progress = _run_with_solutions(tmp_path, monkeypatch, {})
    banked = progress["checkpoints"]["s07"]
    assert set(banked) == {"attempts_to_pass"}
    assert {entry["source"] for entry in banked.values()} == {"scripted"}
