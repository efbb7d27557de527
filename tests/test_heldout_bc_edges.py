"""Held-out reader BC (sessions 12-15): four wrong solutions that passed, each closed by the
principle it broke, on generated inputs, against oracles written here.

- s12 calibrate: every threshold at and either side of its edge. Kappa is None only when chance
  agreement is exactly 1; the generated days reach chance exactly 1 and chance in (0.99, 1)
  (1 broken ticket among up to 250), and the reference's kappa there is the one worked out here
  with exact fractions.
- s13 fold: a streak has no cap; the generated runs reach streaks well past any small cap.
- s13 signature: a signature is a function of the failure's text alone, whatever was signed
  before it in the process; a signature numbering failures as it meets them is refused.
- s15 tier: a look-or-name command word (the notebook's `cat`, `which`, `grep`, `git`) never
  verifies, whatever marker words follow it unquoted; `git bisect run make` is None by the
  notebook's words ("a piece whose command word only looks or names ... never verifies").
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from hypothesis import HealthCheck, Phase, find, given, settings
from hypothesis import strategies as st

from cafe.exercises.reference_s12 import JudgeDay, confusion, judge_days
from cafe.exercises.reference_s13 import fold, turns
from cafe.exercises.reference_s15 import LOOKING, MARKERS, every_piece, looking_commands
from cafe.exercises.s12 import check_calibrate
from cafe.exercises.s13 import SIGNATURE_PAIRS, _fresh_process
from cafe.exercises.s15 import check_verification_tier
from cafe.judge.grading import Grade
from cafe.judge.labelled import labelled_tickets
from cafe.loop.agent import ToolResult
from cafe.stall.evidence import failure_signature
from cafe.stall.failure_state import FailureState

SEEDED = settings(
    max_examples=60, derandomize=True, database=None, deadline=None,
    suppress_health_check=list(HealthCheck),
)  # fmt: skip
REACH = settings(SEEDED, max_examples=400, phases=[Phase.generate])
_POOL = tuple({(t.spec, t.ticket): t for t in labelled_tickets(24, 0.5, seed=5)}.values())
_LOOKERS = ("cat", "which", "grep", "git")  # the notebook's list, word for word


# --- s12: kappa None only at chance exactly 1 -------------------------------------------------


def _said(answer: Any) -> str:
    word = answer if isinstance(answer, str) else answer.verdict
    word = word.strip().lower()
    return word if word in ("pass", "fail") else "unparsed"


def _chance(day: Any) -> Fraction | None:
    """Chance agreement of the judge and the truth over the judged tickets, exactly (the first
    listing of a ticket gives its answer); None when nothing was judged."""
    first: dict[Any, Any] = {}
    for n, answer in day.picks:
        first.setdefault((day.pool[n].spec, day.pool[n].ticket), answer)
    pairs = [
        (_said(first[(day.pool[n].spec, day.pool[n].ticket)]), day.pool[n].truth)
        for n, _ in day.picks
    ]
    judged = [(said, truth) for said, truth in pairs if said != "unparsed"]
    if not judged:
        return None
    fails = Fraction(sum(said == "fail" for said, _ in judged), len(judged))
    truly = Fraction(sum(truth == "fail" for _, truth in judged), len(judged))
    return fails * truly + (1 - fails) * (1 - truly)


def test_generated_days_reach_chance_one_and_just_under_it() -> None:
    steady = judge_days(_POOL, Grade).filter(lambda day: not day.unsteady)
    find(steady, lambda day: _chance(day) == 1 and len(day.picks) > 50, settings=REACH)
    find(steady, lambda day: Fraction(99, 100) < (_chance(day) or 0) < 1, settings=REACH)


@SEEDED
@given(judge_days(_POOL, Grade).filter(lambda day: not day.unsteady))
def test_reference_kappa_is_none_only_at_chance_exactly_one(day: Any) -> None:
    kappa, chance = confusion(day.judge(), day.labelled())["kappa"], _chance(day)
    assert (kappa is None) == (chance is None or chance == 1), (day, chance, kappa)


def test_reader_case_one_broken_in_200_always_pass() -> None:
    """The reader's case: chance 0.995, kappa 0.0, and a calibrate giving None over 0.99 fails."""
    right = [n for n, t in enumerate(_POOL) if t.truth == "pass"]
    broken = next(n for n, t in enumerate(_POOL) if t.truth == "fail")
    picks = (*((right[n % len(right)], "pass") for n in range(199)), (broken, "pass"))
    lopsided = JudgeDay(picks, _POOL)
    assert _chance(lopsided) == Fraction(199, 200)
    assert confusion(lopsided.judge(), lopsided.labelled())["kappa"] == 0.0

    def over_99(judge: Any, labelled: Any) -> dict[str, Any]:
        found = confusion(judge, labelled)
        tp, fn, tn, fp = (found[k] for k in ("tp", "fn", "tn", "fp"))
        n = tp + fn + tn + fp
        a, b = (tp + fp) / n if n else 0, (tp + fn) / n if n else 0
        return {**found, "kappa": None if a * b + (1 - a) * (1 - b) > 0.99 else found["kappa"]}

    assert check_calibrate(over_99)


# --- s13: a streak has no cap ---------------------------------------------------------------


def _result(name: str, ok: bool, output: str, kind: str, forced: bool = False) -> ToolResult:
    return ToolResult("c", name, {}, ok, output, kind, forced)  # type: ignore[arg-type]


def _forced(name: str, ok: bool, output: str, kind: str) -> ToolResult:
    return _result(name, ok, output, kind, forced=True)


def _streak(case: Any) -> int:
    state = FailureState()
    for turn in (*case[0], case[1]):
        state = fold(state, turn, FailureState, failure_signature)
    return int(state.same_diagnostic_streak)


def test_generated_runs_reach_streaks_past_any_small_cap() -> None:
    find(turns(_result, _forced), lambda case: _streak(case) >= 13, settings=REACH)


def test_a_run_failing_alike_counts_every_turn() -> None:
    """The oracle here: n turns failing red A, each after an edit or not, make a streak of n."""
    red = _result("run_tests", False, "check_bill.py:21: E   assert 999 == 1000", "verify")
    edit = _result("write_file", True, "wrote bill.py", "mutate")
    for n in (5, 6, 12, 15):
        history = [[edit, red] if k % 2 else [red] for k in range(n - 1)]
        assert _streak((history, [red])) == n


# --- s13: a signature is a function of the failure's text alone ------------------------------

_MET: dict[str, int] = {}


def _digest(output: str) -> str:
    """A right signature (the bank's, each kind of noise masked by its own rule)."""
    from banks.bank_s13 import signature_by_rules

    return signature_by_rules(output)


def numbered_as_met(output: str) -> str:
    """The reader's case: failures numbered in the order this process met them."""
    return f"failure-{_MET.setdefault(_digest(output), len(_MET) + 1)}"


_SEEN: list[str] = []


def digest_and_rank(output: str) -> str:
    """One more of the kind: a real digest, with how many failures came before it appended."""
    if _digest(output) not in _SEEN:
        _SEEN.append(_digest(output))
    return f"{_digest(output)}-{_SEEN.index(_digest(output))}"


def test_a_signature_that_counts_what_came_before_is_refused() -> None:
    """The last step of `check_signature` (the rest is the banks' business), asked directly."""
    texts = [text for _, *pair, _ in SIGNATURE_PAIRS for text in pair]
    for signature in (numbered_as_met, digest_and_rank):
        for text in texts:  # as check_signature does before its last step
            signature(text)
        problem = _fresh_process(signature)
        assert problem and "signed it first" in problem, (signature.__name__, problem)
    assert _fresh_process(_digest) is None


# --- s15: a look-or-name command word never verifies -----------------------------------------


def _command_word(piece: str) -> str:
    words = [w for w in piece.split() if "=" not in w]
    return words[0].rsplit("/", 1)[-1] if words else ""


def test_every_looking_word_comes_before_every_marker_alone() -> None:
    pieces = {command: tier for command, tier in every_piece()}
    for looker in _LOOKERS:
        for marker in MARKERS:
            held = [c for c, t in pieces.items() if _command_word(c) == looker and marker in c]
            assert held and all(pieces[c] is None for c in held), (looker, marker)
    assert pieces["git bisect run make"] is None  # the notebook: git only looks or names


@SEEDED
@given(st.sampled_from(LOOKING), st.sampled_from(MARKERS))
def test_looking_templates_hold_the_marker_unquoted_after_a_looking_word(
    template: str, marker: str
) -> None:
    command = template.replace("{marker}", marker).replace("{py}", "bill.py")
    words = command.split()
    assert words[0] in _LOOKERS and marker in [w.lstrip("-") for w in words[1:]]
    assert not any(q in command for q in "'\"")


def test_generated_chains_reach_a_looking_word_before_a_marker() -> None:
    def looked(labelled: Any) -> bool:
        pieces = labelled[0].replace("&&", ";").replace("||", ";").replace("&", ";").split(";")
        return any(
            _command_word(p) == "git" and set(p.split()[1:]) & set(MARKERS)
            for piece in pieces
            for p in piece.split("\n")
        )

    find(looking_commands(), looked, settings=REACH)


def test_git_left_out_of_the_looking_words_is_refused() -> None:
    """The reader's case (git read as a runner) and one more (`git bisect run` as a launcher),
    each otherwise the bank's right `tier_by_rules`."""
    from banks.bank_s15 import git_bisect_runs, git_not_a_looker, tier_by_rules

    assert git_not_a_looker("git log --grep test") == "slow"
    assert git_bisect_runs("git bisect run make") == "slow"
    assert not check_verification_tier(tier_by_rules)
    for wrong in (git_not_a_looker, git_bisect_runs):
        assert check_verification_tier(wrong), wrong.__name__


@SEEDED
@given(looking_commands())
def test_looking_chains_are_labelled_as_the_library_reads_them(labelled: Any) -> None:
    from cafe.monitors.runners import verification_tier
    from cafe.monitors.tiers import is_verification_command

    command, tier = labelled
    assert (verification_tier(command) if is_verification_command(command) else None) == tier
