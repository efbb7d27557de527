"""Session 07's unsettled mutmut survivor, settled: `text = draft if isinstance(draft, str) or
True else draft.text` in `reference_s07.loop` is equivalent (docs/notes/checker-mutation.md,
7 Dec 2026 morning).

The exercise's generator is "messages in, draft text out" (the notebook's step 4; its own call
hands `my_repair_ticket` a `lambda messages: ....text`), and every generator the checker hands a
loop (`reference_s07.Recorder`) answers with text. For text, `isinstance(draft, str)` is true, so
the mutant's `or True` changes nothing. The test runs the mutant beside the reference on
generated drafts wider than the checker's own (any text at all besides the checker's drafts) and
finds no run where they differ.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.exercises import reference_s07 as ref
from cafe.exercises import s07

SEEDED = settings(
    max_examples=300,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)


def loop_text_always(spec: Any, generate: Callable[..., Any], cap: int, pieces: ref.Pieces) -> Any:
    """The mutant: `reference_s07.loop` taking whatever the generator returns as the draft."""
    refused = tuple(pieces.policy_failures(spec))
    if refused:
        return pieces.result("policy_violation", None, (), blocked_by=refused)
    brief = list(pieces.brief_for(spec))
    logged: list[Any] = []
    sent = brief
    while len(logged) < cap:
        draft = generate([dict(message) for message in sent])
        text = draft  # the mutant: `draft if isinstance(draft, str) or True else draft.text`
        score = pieces.score(text, spec)
        logged.append(pieces.attempt(len(logged) + 1, text, score.failures, 0, None))
        if score.ticket is not None:
            return pieces.result("passed", score.ticket, tuple(logged))
        sent = list(pieces.retry(brief, score.failures, len(logged)))
    return pieces.result("retries_exhausted", None, tuple(logged))


def mutant_repair(spec: Any, generate: Callable[..., Any], cap: int = 3) -> Any:
    return loop_text_always(spec, generate, cap, s07._PIECES)


# The checker's drafts, and any text a model may write (prose, broken JSON, nothing).
drafts = st.one_of(st.sampled_from(ref.DRAFTS), st.text(max_size=80))
runs = st.tuples(st.lists(drafts, min_size=1, max_size=5).map(tuple), st.integers(1, 4))


@SEEDED
@given(st.one_of(ref.draft_runs(), runs))
def test_a_loop_that_takes_every_draft_as_text_runs_as_the_reference_does(given_run):
    assert s07._played(mutant_repair, given_run) == s07._played(s07.reference_repair, given_run)


@SEEDED
@given(st.one_of(ref.draft_runs(), runs))
def test_every_generator_the_checker_hands_a_loop_answers_with_text(given_run):
    """The premise of the argument: the checker's generators write text, as the notebook says."""
    drafts_given, cap = given_run
    generate = ref.Recorder(drafts_given)
    answers = [generate([{"role": "user", "content": "order"}]) for _ in range(cap)]
    assert all(isinstance(answer, str) for answer in answers)
