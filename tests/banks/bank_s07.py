"""Session 07's banks: `check_repair_loop` and `check_attempt_failure_view` (cafe/exercises/s07.py).

The exercise ideas: the bounded re-ask refuses a request no draft can fix before the first draft;
scores every draft against every check (the contract, then the menu, the 86'd list, the order's
scope and the allergies); logs each draft with what scoring found; ends on the first clean draft
or at the cap, never later, never sooner; and tells each retry the brief plus a view of what the
last attempt failed, never the failed draft. A failure view says which attempt failed and gives
each failure one short line: its check, its quoted span, its fix.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from banks.harness import Bank, Entry
from cafe.consent import changes_to_confirm
from cafe.exercises import s07
from cafe.exercises.reference_s07 import view
from cafe.exercises.s07 import check_attempt_failure_view, check_repair_loop
from cafe.repair.feedback import (
    CHANGE_NOTHING_ELSE,
    attempt_failure_view,
    brief_for,
    failure_view,
    retry_messages,
)
from cafe.repair.reask import (
    Attempt,
    RepairResult,
    policy_failures,
    repair_ticket,
    score_ticket,
)
from cafe.schema.parsing import parse_draft
from cafe.schema.ticket import Failure, contract_text
from cafe.world.menu import load_menu

MENU = load_menu()
Scorer = Callable[[str, Any], tuple[Any, tuple[Failure, ...]]]


def _every_check(draft: str, spec: Any) -> tuple[Any, tuple[Failure, ...]]:
    score = score_ticket(draft, spec, MENU)
    return score.ticket, score.failures


def _retry(brief: Any, failures: Sequence[Failure], number: int, draft: str) -> list[Any]:
    return list(retry_messages(brief, failures, number, "curated"))


def _loop(
    spec: Any,
    generate: Any,
    cap: int,
    *,
    score: Scorer = _every_check,
    retry: Callable[[Any, Sequence[Failure], int, str], list[Any]] = _retry,
    logged: Callable[[tuple[Failure, ...]], tuple[Failure, ...]] = lambda found: found,
) -> RepairResult:
    """The loop as a learner writes it, with one piece swappable per wrong entry."""
    blocked = policy_failures(spec, MENU)
    if blocked:
        return RepairResult("policy_violation", None, (), blocked_by=blocked)
    brief = brief_for(spec)
    messages, attempts = list(brief), []
    for number in range(1, cap + 1):
        draft = generate(list(messages))
        ticket, failures = score(draft, spec)
        attempts.append(Attempt(number, draft, logged(failures), 0, None))
        if ticket is not None:
            return RepairResult("passed", ticket, tuple(attempts))
        messages = retry(brief, failures, number, draft)
    return RepairResult("retries_exhausted", None, tuple(attempts))


# --- the bounded re-ask: wrong ---------------------------------------------------------------


def contract_only(spec, generate, cap=3):
    """Scores each draft with parse_draft (session 04) alone: menu, 86'd list, scope unchecked."""

    def score(draft, spec):
        parsed = parse_draft(draft)
        return parsed.ticket, parsed.failures

    return _loop(spec, generate, cap, score=score)


def next_attempt_named(spec, generate, cap=3):
    """The view after attempt 1 says attempt 2 failed (counts the attempt about to be made)."""
    return _loop(
        spec,
        generate,
        cap,
        retry=lambda brief, failures, n, draft: _retry(brief, failures, n + 1, draft),
    )


def log_without_failures(spec, generate, cap=3):
    """The log keeps each draft but not what failed in it (session 10 reads that log)."""
    return _loop(spec, generate, cap, logged=lambda found: ())


def naive_retry(spec, generate, cap=3):
    """Asks again with the brief alone: another draw, nothing learned."""
    return _loop(spec, generate, cap, retry=lambda brief, failures, n, draft: list(brief))


def shows_the_failed_draft(spec, generate, cap=3):
    """Keeps the rejected draft in view, as many retry libraries do."""

    def retry(brief, failures, n, draft):
        view = {"role": "user", "content": failure_view(failures, n)}
        return [*brief, {"role": "assistant", "content": draft}, view]

    return _loop(spec, generate, cap, retry=retry)


def view_without_brief(spec, generate, cap=3):
    """Sends the failure view alone, so the retry no longer sees the order."""
    return _loop(
        spec,
        generate,
        cap,
        retry=lambda brief, failures, n, draft: [
            {"role": "user", "content": failure_view(failures, n)}
        ],
    )


def first_failure_only(spec, generate, cap=3):
    """Tells the retry about the first failure and drops the rest."""
    return _loop(
        spec,
        generate,
        cap,
        retry=lambda brief, failures, n, draft: _retry(brief, failures[:1], n, draft),
    )


def fixed_cap(spec, generate, cap=3):
    """Ignores the cap it is given and always allows three attempts."""
    return _loop(spec, generate, 3)


def no_policy_check(spec, generate, cap=3):
    """Drafts before asking whether the request may be drafted at all."""
    brief = brief_for(spec)
    messages, attempts = list(brief), []
    for number in range(1, cap + 1):
        draft = generate(list(messages))
        score = score_ticket(draft, spec, MENU)
        attempts.append(Attempt(number, draft, score.failures, 0, None))
        if score.ticket is not None:
            return RepairResult("passed", score.ticket, tuple(attempts))
        messages = retry_messages(brief, score.failures, number, "curated")
    return RepairResult("retries_exhausted", None, tuple(attempts))


def policy_after_a_draft(spec, generate, cap=3):
    """Drafts once, then asks the policy: a draft paid for on a request that was never allowed."""
    draft = generate(list(brief_for(spec)))
    blocked = policy_failures(spec, MENU)
    if blocked:
        return RepairResult("policy_violation", None, (), blocked_by=blocked)
    first = score_ticket(draft, spec, MENU)
    log = [Attempt(1, draft, first.failures, 0, None)]
    if first.ticket is not None:
        return RepairResult("passed", first.ticket, tuple(log))
    rest = _loop(spec, generate, cap - 1) if cap > 1 else None
    if rest is None:
        return RepairResult("retries_exhausted", None, tuple(log))
    more = tuple(Attempt(a.number + 1, a.draft, a.failures, 0, None) for a in rest.attempts)
    return RepairResult(rest.stop_reason, rest.ticket, (*log, *more))


def refuses_what_the_customer_can_change(spec, generate, cap=3):
    """Folds front of house into the refusal: a question for the customer becomes a refusal."""
    conflicts = changes_to_confirm(spec, MENU)
    if conflicts and not policy_failures(spec, MENU):
        return RepairResult("policy_violation", None, (), blocked_by=conflicts)
    return _loop(spec, generate, cap)


def keeps_going_after_a_pass(spec, generate, cap=3):
    """Drafts until the cap even when a draft has passed (each one billed)."""
    blocked = policy_failures(spec, MENU)
    if blocked:
        return RepairResult("policy_violation", None, (), blocked_by=blocked)
    brief, attempts, ticket = brief_for(spec), [], None
    messages = list(brief)
    for number in range(1, cap + 1):
        draft = generate(list(messages))
        score = score_ticket(draft, spec, MENU)
        attempts.append(Attempt(number, draft, score.failures, 0, None))
        ticket = ticket or score.ticket
        if score.failures:
            messages = list(retry_messages(brief, score.failures, number, "curated"))
    if ticket is None:
        return RepairResult("retries_exhausted", None, tuple(attempts))
    return RepairResult("passed", ticket, tuple(attempts))


def stops_when_a_failure_repeats(spec, generate, cap=3):
    """Gives up as soon as an attempt fails exactly as the one before, under the cap."""
    result = _loop(spec, generate, cap)
    for index in range(1, len(result.attempts)):
        before, now = result.attempts[index - 1], result.attempts[index]
        if result.stop_reason != "passed" and before.failures == now.failures:
            return RepairResult("retries_exhausted", None, result.attempts[: index + 1])
    return result


def keeps_the_first_ticket(spec, generate, cap=3):
    """Returns the first draft that parsed as the ticket, not the draft that passed."""
    result = _loop(spec, generate, cap)
    if result.stop_reason != "passed":
        return result
    parsed = [parse_draft(a.draft).ticket for a in result.attempts]
    first = next(ticket for ticket in parsed if ticket is not None)
    return RepairResult("passed", first, result.attempts)


# --- the bounded re-ask: right ---------------------------------------------------------------


def right_while_loop(spec, generate, cap=3):
    """A while loop over the log, its own retry messages built from attempt_failure_view."""
    menu = load_menu()
    refused = policy_failures(spec, menu)
    if refused:
        return RepairResult("policy_violation", None, (), blocked_by=tuple(refused))
    brief = [dict(m) for m in brief_for(spec)]
    messages: list[dict[str, str]] = list(brief)
    log: list[Attempt] = []
    while len(log) < cap:
        draft = generate([dict(m) for m in messages])
        scored = score_ticket(draft, spec, menu)
        chars = sum(len(m["content"]) for m in messages)
        log.append(Attempt(len(log) + 1, draft, scored.failures, chars, None))
        if not scored.failures:
            return RepairResult("passed", scored.ticket, tuple(log))
        view = attempt_failure_view(scored.failures, len(log))
        messages = [*brief, {"role": "user", "content": view}]
    return RepairResult("retries_exhausted", None, tuple(log))


def _attempts(spec, generate, sent, number, cap, menu):
    """Recursive: one attempt, then the rest; returns (ticket or None, attempts)."""
    draft = generate(list(sent))
    scored = score_ticket(draft, spec, menu)
    here = (Attempt(number, draft, scored.failures, 0, None),)
    if scored.ticket is not None or number == cap:
        return scored.ticket, here
    lines = "\n".join(f"* [{f.check}] {f.span!r} -> {f.fix}" for f in scored.failures)
    view = f"Attempt {number} was rejected; fix only these:\n{lines}"
    ticket, rest = _attempts(
        spec, generate, [*sent[:1], {"role": "user", "content": view}], number + 1, cap, menu
    )
    return ticket, here + rest


def right_recursive(spec, generate, cap=3):
    """Recursion over attempts, a view of its own ('[check] span -> fix')."""
    menu = load_menu()
    if policy_failures(spec, menu):
        return RepairResult("policy_violation", None, (), blocked_by=policy_failures(spec, menu))
    ticket, attempts = _attempts(spec, generate, list(brief_for(spec)), 1, cap, menu)
    if ticket is None:
        return RepairResult("retries_exhausted", None, attempts)
    return RepairResult("passed", ticket, attempts)


# --- the failure view: wrong -----------------------------------------------------------------


def one_line(failures, attempt):
    """Every failure on the header's line."""
    return f"Attempt {attempt} failed: " + "; ".join(f.line() for f in failures)


def header_counts_failures(failures, attempt):
    """The header counts the failures instead of naming the attempt."""
    return f"{len(failures)} failed:\n" + "\n".join(f.line() for f in failures)


def first_failure_shown(failures, attempt):
    """Lists the first failure only."""
    return f"Attempt {attempt} failed:\n- {failures[0].line()}"


def no_fix(failures, attempt):
    """Names and quotes each failure, but never says what a correct ticket holds."""
    return f"Attempt {attempt} failed:\n" + "\n".join(f"- {f.check}: {f.span!r}" for f in failures)


def no_span(failures, attempt):
    """Names each check and its fix, but not where the draft went wrong."""
    return f"Attempt {attempt} failed:\n" + "\n".join(
        f"- {f.check}. Fix: {f.fix}" for f in failures
    )


def next_attempt_number(failures, attempt):
    """Names the attempt about to be made, not the one that failed."""
    return f"Attempt {attempt + 1}: fix these\n" + "\n".join(f"- {f.line()}" for f in failures)


def two_lines_each(failures, attempt):
    """The span on one line, the fix on the next."""
    lines = [f"Attempt {attempt} failed:"]
    for f in failures:
        lines += [f"- {f.check}: {f.span!r}", f"  fix: {f.fix}"]
    return "\n".join(lines)


def whole_rubric(failures, attempt):
    """Sends the whole ticket contract again above the failures ("so it has everything")."""
    rubric = " ".join(contract_text().split())
    return f"Attempt {attempt} failed. The rules: {rubric}\n" + "\n".join(
        f"- {f.line()}" for f in failures
    )


def attempt_one_always(failures, attempt):
    """The visible example hard-coded: every view says attempt 1."""
    return "Attempt 1 failed:\n" + "\n".join(f"- {f.line()}" for f in failures)


# --- the failure view: right -----------------------------------------------------------------


def right_numbered(failures, attempt):
    """A numbered list, its own wording."""
    return "\n".join(
        [
            f"Attempt {attempt} was rejected. Fix only these:",
            *(f"{i}. [{f.check}] '{f.span}' -> {f.fix}" for i, f in enumerate(failures, 1)),
        ]
    )


def right_table_rows(failures, attempt):
    """Markdown-ish rows under a heading, the attempt in words and digits."""
    rows = [f"| {f.check} | {f.span} | {f.fix} |" for f in failures]
    return f"Your attempt #{attempt} did not pass:\n\n" + "\n".join(rows)


# --- mistakes only generated inputs or the growth property find (issue 35) -----------------------


def running_messages(spec, generate, cap=3):
    """Passes the running messages to each retry: every earlier failure view rides along."""
    blocked = policy_failures(spec, MENU)
    if blocked:
        return RepairResult("policy_violation", None, (), blocked_by=blocked)
    messages, attempts = list(brief_for(spec)), []
    for number in range(1, cap + 1):
        draft = generate(list(messages))
        score = score_ticket(draft, spec, MENU)
        attempts.append(Attempt(number, draft, score.failures, 0, None))
        if score.ticket is not None:
            return RepairResult("passed", score.ticket, tuple(attempts))
        messages.append(retry_messages(brief_for(spec), score.failures, number, "curated")[-1])
    return RepairResult("retries_exhausted", None, tuple(attempts))


def calls_the_course(spec, generate, cap=3):
    """Hands the course's repair_ticket back instead of writing the loop."""
    return repair_ticket(spec, generate, cap=cap)


def carries_history(failures, attempt):
    """A line per earlier attempt too: the view grows with the attempt number."""
    earlier = [f"(attempt {n} failed as well)" for n in range(1, attempt)]
    return "\n".join([*earlier, attempt_failure_view(failures, attempt)])


def right_sentences(failures, attempt):
    """A sentence per failure under a header: 'Your attempt 2 did not pass.'"""
    lines = [f"Your attempt {attempt} did not pass."]
    lines += [f"The {f.check} check flagged '{f.span}'; {f.fix}." for f in failures]
    return "\n".join(lines)


# --- held-out reader, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def every_failure_so_far(spec, generate, cap=3):
    """Each retry's view lists every failure seen so far, not the last attempt's: the omelette's
    missing table, fixed in draft 2, is still named after attempt 2."""
    blocked = policy_failures(spec, MENU)
    if blocked:
        return RepairResult("policy_violation", None, (), blocked_by=blocked)
    brief, attempts, seen = brief_for(spec), [], []
    messages = list(brief)
    for number in range(1, cap + 1):
        draft = generate(list(messages))
        score = score_ticket(draft, spec, MENU)
        attempts.append(Attempt(number, draft, score.failures, 0, None))
        if score.ticket is not None:
            return RepairResult("passed", score.ticket, tuple(attempts))
        seen.extend(score.failures)
        messages = list(retry_messages(brief, seen, number, "curated"))
    return RepairResult("retries_exhausted", None, tuple(attempts))


def imports_the_course_inside(spec, generate, cap=3):
    """The course's repair_ticket, imported inside the function body."""
    from cafe.repair import repair_ticket as course_loop

    return course_loop(spec, generate, cap=cap)


def unquoted_span(failures, attempt):
    """The span written bare: 'unsafe: latte contains milk. Fix: ...'."""
    return "\n".join(
        [f"Attempt {attempt} failed:", *(f"- {f.check}: {f.span}. Fix: {f.fix}" for f in failures)]
    )


def pep_talk(failures, attempt):
    """A line of commentary on the header: the view no longer only asks for an edit."""
    header = f"Attempt {attempt} failed. Take a deep breath and think carefully this time!"
    return "\n".join([header, *(f"- {f.line()}" for f in failures)])


def short_rubric(failures, attempt):
    """One line listing every check by name above the failures: the rubric, kept short."""
    rubric = (
        "Checks: missing_field, wrong_type, extra_field, off_menu, sold_out, unsafe, "
        "out_of_scope, not_json, injection, notes."
    )
    return "\n".join([rubric, f"Attempt {attempt} failed:", *(f"- {f.line()}" for f in failures)])


def view_imported_inside(failures, attempt):
    """The course's failure_view, imported inside the function body."""
    from cafe.repair import failure_view as course_view

    return course_view(failures, attempt)


def right_draft_number(failures, attempt):
    """'Draft number 2 was rejected': the attempt named in other words, spans in double quotes,
    at most 8 lines and a count of the rest."""
    shown, rest = list(failures)[:8], len(failures) - 8
    width = max((len(f.check) for f in shown), default=0)
    lines = [f"Draft number {attempt} was rejected by these checks (change nothing else):"]
    lines += [f'  {f.check.ljust(width)} | "{f.span}" | fix: {f.fix}' for f in shown]
    return "\n".join([*lines, *([f"  ...and {rest} more"] if rest > 0 else [])])


def right_capped_with_count(failures, attempt):
    """Like failure_view: at most 8 failure lines, then a count of the rest."""
    lines = [f"Attempt {attempt} failed {len(failures)} check(s):"]
    lines += [f"- {f.check}: {f.span!r}. Fix: {f.fix}" for f in list(failures)[:8]]
    more = [f"(and {len(failures) - 8} more failures)"] if len(failures) > 8 else []
    return "\n".join([*lines, *more])


# --- held-out readerE, 7 Dec 2026: written from the lesson alone, without the checkers ----------

_ORDINAL = "first second third fourth fifth sixth seventh eighth ninth tenth".split()


def right_ordinal_header(failures, attempt):
    """'Your second attempt failed:': the attempt said as an ordinal word ('#11' past ten); the
    notebook asks only to "say which attempt failed"."""
    name = _ORDINAL[attempt - 1] if attempt <= len(_ORDINAL) else f"#{attempt}"
    return "\n".join(
        [f"Your {name} attempt failed:", *(f"- {f.check}: {f.span!r} -> {f.fix}" for f in failures)]
    )


def ordinal_of_the_next(failures, attempt):
    """Names the attempt to come in words ('Your third attempt' after attempt 2 failed)."""
    name = _ORDINAL[attempt] if attempt < len(_ORDINAL) else f"#{attempt + 1}"
    return "\n".join(
        [f"Your {name} attempt failed:", *(f"- {f.check}: {f.span!r} -> {f.fix}" for f in failures)]
    )


# --- held-out reader L, 7 Dec 2026 (evening): written from the lesson alone ---------------------


def first_reason_only(spec, generate, cap=3):
    """Keeps only the first reason policy gives in blocked_by (reader L's wrong_20)."""
    blocked = policy_failures(spec, MENU)
    if blocked:
        return RepairResult("policy_violation", None, (), blocked_by=tuple(blocked)[:1])
    return _loop(spec, generate, cap)


def one_reason_per_check(spec, generate, cap=3):
    """One reason per kind of check in blocked_by: two allergies the menu cannot check (sesame
    and lupin) collapse into one."""
    blocked = {f.check: f for f in policy_failures(spec, MENU)}
    if blocked:
        return RepairResult("policy_violation", None, (), blocked_by=tuple(blocked.values()))
    return _loop(spec, generate, cap)


def _logged_as(write: Callable[[str], str]) -> Callable[..., RepairResult]:
    """The loop logging `write(draft)` instead of the draft the model wrote."""

    def loop(spec, generate, cap=3):
        run = _loop(spec, generate, cap)
        log = tuple(Attempt(a.number, write(a.draft), a.failures, 0, None) for a in run.attempts)
        return RepairResult(run.stop_reason, run.ticket, log, blocked_by=run.blocked_by)

    return loop


# reader L's wrong_17: the blank space around a draft stripped before it is logged
strip_draft = _logged_as(str.strip)
# the same kind: a draft written over several lines logged as one line
one_line_draft = _logged_as(lambda draft: " ".join(draft.split()))


def right_fix_each(failures, attempt):
    """Reader L's right_06: 'Attempt 2: 1 problem(s), fix each and change nothing else.'"""
    head = f"Attempt {attempt}: {len(failures)} problem(s), fix each and change nothing else."
    body = [f"{i}. [{f.check}] {f.span!r}: {f.fix}" for i, f in enumerate(failures, 1)]
    return "\n".join([head, *body])


def right_reasons_header(failures, attempt):
    """Reader L's right_07: 'Attempt 2 was rejected for these reasons:'."""
    lines = [f"Attempt {attempt} was rejected for these reasons:"]
    return "\n".join([*lines, *(f"- {f.check}: {f.span!r}. Fix: {f.fix}" for f in failures)])


def right_fence_them(failures, attempt):
    """Reader L's right_08: 'Attempt 2: 1 problem(s), fix them and change nothing else.'"""
    lines = [f"Attempt {attempt}: {len(failures)} problem(s), fix them and change nothing else."]
    return "\n".join([*lines, *(f"- {f.check}: {f.span!r}. Fix: {f.fix}" for f in failures)])


def right_fence_in_own_words(failures, attempt):
    """A header in words no list foresaw, the fence on it: 'Sorry, kitchen ticket attempt 2
    bounced back from the pass; every other field stays exactly as it was.'"""
    head = f"Sorry, kitchen ticket attempt {attempt} bounced back from the pass; every other "
    rows = [f"* {f.check} -> '{f.span}' => {f.fix}" for f in failures]
    return "\n".join([head + "field stays exactly as it was.", *rows])


def fence_on_its_own_line(failures, attempt):
    """Was right_fence_in_own_words until reader BB: the fence as a line of its own under the
    failures, one line more than the header and the failure lines ("nothing more")."""
    head = f"Sorry, kitchen ticket attempt {attempt} bounced back from the pass."
    rows = [f"* {f.check} -> '{f.span}' => {f.fix}" for f in failures]
    return "\n".join([head, *rows, "Every other field stays exactly as it was."])


# --- held-out reader BB: the view is the header and the failure lines, nothing more ---------------


def change_nothing_else_above(failures, attempt):
    """Reader BB's w08: the course's change-nothing-else line above the header."""
    rows = [f"- {f.check}: '{f.span}' -> {f.fix}" for f in failures]
    return "\n".join([CHANGE_NOTHING_ELSE, f"Attempt {attempt} failed:", *rows])


def footer_line(failures, attempt):
    """Reader BB's w15: a closing line asking for the whole ticket again."""
    rows = [f"- {f.check}: '{f.span}' -> {f.fix}" for f in failures]
    return "\n".join(
        [f"Attempt {attempt} failed:", *rows, "Fix these and write the whole ticket again."]
    )


def two_header_lines(failures, attempt):
    """Reader BB's w17: 'Attempt 2 failed.' and 'Please fix the following:', two header lines."""
    rows = [f"- {f.check}: '{f.span}' -> {f.fix}" for f in failures]
    return "\n".join([f"Attempt {attempt} failed.", "Please fix the following:", *rows])


def right_blank_after_header(failures, attempt):
    """Reader BB's w09, decided right: a blank line holds nothing to read and is not counted."""
    rows = [f"- {f.check}: '{f.span}' -> {f.fix}" for f in failures]
    return "\n".join([f"Attempt {attempt} failed:", "", *rows])


def closing_pep_talk(failures, attempt):
    """Reader L's wrong_16: a closing line of encouragement, 'You are close! Good luck.'"""
    lines = [f"Attempt {attempt} failed {len(failures)} check(s):"]
    lines += [f"- {f.check}: {f.span!r}. Fix: {f.fix}" for f in failures]
    return "\n".join([*lines, "You are close! Good luck."])


def advice_between(failures, attempt):
    """Commentary in another place: advice on how to think between the header and the failures."""
    lines = [f"Attempt {attempt} failed.", "Slow down and read the brief once more, word by word."]
    return "\n".join([*lines, *(f"- {f.check}: {f.span!r}. Fix: {f.fix}" for f in failures)])


# --- the banks --------------------------------------------------------------------------------


# --- held-out readerH, 7 Dec 2026 (afternoon): written from the lesson alone ---------------------


def header_last(failures: Sequence[Failure], attempt: int) -> str:
    """Wrong: the line naming the attempt comes after the failures ("in a header line")."""
    rows = [f"- {f.check}: {f.span!r}. Fix: {f.fix}" for f in failures]
    return "\n".join([*rows, f"(those were the failures of attempt {attempt})"])


def right_header_on_first_line(failures: Sequence[Failure], attempt: int) -> str:
    """Right: the attempt named at the start of the first failure's own line; the header is
    above every other failure, and the checker judges the order, not the layout."""
    rows = [f"{f.check}: {f.span!r} -> {f.fix}" for f in failures]
    return "\n".join([f"Attempt {attempt} failed. {rows[0]}", *rows[1:]])


BANKS = (
    Bank(
        "s07",
        check_repair_loop,
        s07.reference_repair,
        wrong=(
            Entry(
                "running_messages",
                running_messages,
                "each retry is the brief and one view, not every earlier view",
                "the retry after attempt 2 carries two views",
            ),
            Entry("calls_the_course", calls_the_course, "write your own", "repair_ticket"),
            # held-out reader, 7 Dec 2026
            Entry(
                "every_failure_so_far",
                every_failure_so_far,
                "a retry names the last attempt's failures, none an earlier one the draft fixed",
                "the omelette: the retry after attempt 2 still names the missing table",
            ),
            Entry(
                "imports_the_course_inside",
                imports_the_course_inside,
                "write your own",
                "repair_ticket imported inside the body",
            ),
            Entry("repair_ticket", repair_ticket, "the course's own loop", "itself"),
            Entry(
                "contract_only",
                contract_only,
                "every check scores a draft, not only the ticket contract",
                "the 86'd omelette as a complete ticket -> passed, sent to the kitchen",
            ),
            Entry(
                "next_attempt_named",
                next_attempt_named,
                "the retry names the attempt that failed",
                "the retry after attempt 1 says 'Attempt 2 failed'",
            ),
            Entry(
                "log_without_failures",
                log_without_failures,
                "the log records what scoring found in each draft",
                "attempt 1 of the omelette logs no failures",
            ),
            Entry(
                "naive_retry",
                naive_retry,
                "a retry carries the failure view",
                "the listener is never told the table is missing -> exhausted",
            ),
            Entry(
                "shows_the_failed_draft",
                shows_the_failed_draft,
                "the failed draft stays out of the retry",
                "the retry after attempt 1 holds the draft with no table",
            ),
            Entry(
                "view_without_brief",
                view_without_brief,
                "a curated retry keeps the brief",
                "the retry after attempt 1 starts with the view",
            ),
            Entry(
                "first_failure_only",
                first_failure_only,
                "the retry names every failure of the last attempt",
                "pumpkin muffin: off_menu named, out_of_scope left out",
            ),
            Entry(
                "fixed_cap",
                fixed_cap,
                "the cap given is the cap",
                "cap 2 -> 3 drafts",
            ),
            Entry(
                "no_policy_check",
                no_policy_check,
                "a request no draft can fix is refused before the first draft",
                "the injected request -> passed",
            ),
            Entry(
                "policy_after_a_draft",
                policy_after_a_draft,
                "the policy is asked before any draft is paid for",
                "the unsafe latte -> 1 draft, then refused",
            ),
            Entry(
                "refuses_what_the_customer_can_change",
                refuses_what_the_customer_can_change,
                "the loop refuses only what policy_failures names",
                "latte and espresso, milk allergy -> policy_violation",
            ),
            Entry(
                "keeps_going_after_a_pass",
                keeps_going_after_a_pass,
                "the first clean draft ends the run",
                "a first draft that passes -> 3 drafts",
            ),
            Entry(
                "stops_when_a_failure_repeats",
                stops_when_a_failure_repeats,
                "a retry after each failure until the cap",
                "the complete omelette -> 2 drafts at cap 3",
            ),
            Entry(
                "keeps_the_first_ticket",
                keeps_the_first_ticket,
                "the ticket is the draft that passed",
                "pumpkin muffin then the latte -> ticket holds the muffin",
            ),
            # held-out reader L, 7 Dec 2026 (evening): passed while no order had two reasons
            Entry(
                "first_reason_only",
                first_reason_only,
                "blocked_by lists every reason policy_failures gives",
                "an injected request for a latte, milk declared -> only the injection",
            ),
            Entry(
                "one_reason_per_check",
                one_reason_per_check,
                "blocked_by lists every reason policy_failures gives",
                "sesame and lupin declared -> one unknown_allergen",
            ),
            # held-out reader L: passed while every draft was one line with no blank around it
            Entry(
                "strip_draft",
                strip_draft,
                "the log holds the draft as the model wrote it",
                "a draft with a newline before it -> logged stripped",
            ),
            Entry(
                "one_line_draft",
                one_line_draft,
                "the log holds the draft as the model wrote it",
                "a draft over six lines -> logged as one",
            ),
        ),
        right=(
            Entry("right_while_loop", right_while_loop, "a while loop, its own messages"),
            Entry("right_recursive", right_recursive, "recursion, a view of its own"),
        ),
        reference_module="cafe.exercises.reference_s07",
        targets=("loop",),
        adapt=lambda ns: lambda spec, generate, cap=3: ns["loop"](spec, generate, cap, s07._PIECES),
    ),
    Bank(
        "s07",
        check_attempt_failure_view,
        view,
        wrong=(
            Entry(
                "carries_history",
                carries_history,
                "the view does not grow with the attempt number",
                "attempt 5: four lines about earlier attempts",
            ),
            Entry(
                "attempt_failure_view",
                attempt_failure_view,
                "the course's own view",
                "itself",
            ),
            Entry("failure_view", failure_view, "the course's own view", "itself"),
            # held-out reader, 7 Dec 2026
            Entry(
                "view_imported_inside",
                view_imported_inside,
                "the course's own view",
                "failure_view imported inside the body",
            ),
            Entry(
                "unquoted_span", unquoted_span, "quote the span", "- unsafe: latte contains milk"
            ),
            Entry(
                "pep_talk",
                pep_talk,
                "no commentary: the view asks for an edit",
                "'Take a deep breath and think carefully this time!'",
            ),
            Entry(
                "short_rubric",
                short_rubric,
                "never the rubric: only the checks that failed are named",
                "a line naming ten checks, most of which did not fail",
            ),
            Entry("one_line", one_line, "one line per failure", "3 failures on the header line"),
            Entry(
                "header_counts_failures",
                header_counts_failures,
                "the header names the attempt",
                "attempt 2 with 1 failure -> '1 failed:'",
            ),
            Entry(
                "first_failure_shown",
                first_failure_shown,
                "every failure is listed",
                "3 failures -> 1 listed",
            ),
            Entry("no_fix", no_fix, "each line states the fix", "missing_field: 'table'"),
            Entry("no_span", no_span, "each line quotes the span", "missing_field. Fix: ..."),
            Entry(
                "next_attempt_number",
                next_attempt_number,
                "the attempt that failed, not the next",
                "attempt 2 -> 'Attempt 3'",
            ),
            Entry(
                "two_lines_each",
                two_lines_each,
                "one line per failure",
                "the fix on a line of its own",
            ),
            Entry(
                "whole_rubric",
                whole_rubric,
                "the view is short: the rubric stays out",
                "the contract's text on the header line",
            ),
            Entry(
                "attempt_one_always",
                attempt_one_always,
                "the attempt is the one given",
                "attempt 3 -> 'Attempt 1'",
            ),
            # held-out readerH, 7 Dec 2026 (afternoon): passed before the order was judged
            Entry(
                "header_last",
                header_last,
                "say which attempt failed in a header line, above the failures",
                "attempt 2 -> the failure lines, then '(those were the failures of attempt 2)'",
            ),
            # held-out readerE, 7 Dec 2026 (the wrong twin of its right_ordinal_header)
            Entry(
                "ordinal_of_the_next",
                ordinal_of_the_next,
                "the attempt that failed, in words or digits",
                "attempt 2 -> 'Your third attempt failed'",
            ),
            # held-out reader L, 7 Dec 2026 (evening), and one of the same kind elsewhere
            Entry(
                "closing_pep_talk",
                closing_pep_talk,
                "no commentary: the view asks for a specific edit",
                "'You are close! Good luck.' under the failures",
            ),
            Entry(
                "advice_between",
                advice_between,
                "no commentary: the view asks for a specific edit",
                "'Slow down and read the brief once more' under the header",
            ),
            # held-out reader BB: lines counted against the failures, whatever the extra one says
            Entry(
                "change_nothing_else_above",
                change_nothing_else_above,
                "the view is the header and the failure lines, nothing more",
                "CHANGE_NOTHING_ELSE above 'Attempt 2 failed:': 3 lines for 1 failure",
            ),
            Entry(
                "footer_line",
                footer_line,
                "the view is the header and the failure lines, nothing more",
                "'Fix these and write the whole ticket again.' under the failures",
            ),
            Entry(
                "two_header_lines",
                two_header_lines,
                "the view is the header and the failure lines, nothing more",
                "'Attempt 2 failed.' / 'Please fix the following:'",
            ),
            Entry(
                "fence_on_its_own_line",
                fence_on_its_own_line,
                "the view is the header and the failure lines, nothing more",
                "'Every other field stays exactly as it was.' under the failures",
            ),
        ),
        right=(
            Entry("right_sentences", right_sentences, "a sentence per failure"),
            Entry("right_numbered", right_numbered, "a numbered list"),
            Entry("right_table_rows", right_table_rows, "table rows under a heading"),
            # held-out reader, 7 Dec 2026
            Entry("right_draft_number", right_draft_number, "'Draft number 2', double quotes"),
            Entry("right_capped_with_count", right_capped_with_count, "8 lines and a count"),
            # held-out readerE, 7 Dec 2026: rejected before, as "expected a line naming attempt 2"
            Entry("right_ordinal_header", right_ordinal_header, "'Your second attempt failed'"),
            # held-out readerH, 7 Dec 2026 (afternoon): the order judged, not the layout
            Entry(
                "right_header_on_first_line", right_header_on_first_line, "'Attempt 2 failed. x'"
            ),
            # held-out reader L, 7 Dec 2026 (evening): refused before, as "without 'each'" etc.
            Entry("right_fix_each", right_fix_each, "'fix each and change nothing else'"),
            Entry("right_reasons_header", right_reasons_header, "'rejected for these reasons'"),
            Entry("right_fence_them", right_fence_them, "'fix them and change nothing else'"),
            Entry("right_fence_in_own_words", right_fence_in_own_words, "a header no list foresaw"),
            # held-out reader BB: a blank line after the header is not a line more to read
            Entry("right_blank_after_header", right_blank_after_header, "a blank line (reader BB)"),
        ),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}.
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_repair_loop": {
        "loop:14: constant: `0` -> `1`": (
            "outside: Attempt.prompt_chars, which the notebook says may be 0"
        ),
    },
}
