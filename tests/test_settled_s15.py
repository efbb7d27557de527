"""Session 15's unsettled mutmut survivors, settled (docs/notes/checker-mutation.md, 7 Dec 2026
morning).

`bank_s15.right_loop` with `now = at_abort.get(path)` (no `AT_HEAD` default) is equivalent. The
default is read only for a path the green fingerprint names and the abort's leaves out; there
the reference compares the green hash with `AT_HEAD`, the mutant with `None`, and both differ
from it, because a fingerprint maps a path to its blob hash or `ABSENT`, never to `AT_HEAD` (the
notebook's step 5: "a fingerprint maps each path whose bytes differ from HEAD to their git blob
hash"; `AT_HEAD` names a capture). The test draws fingerprints as the notebook describes them,
with real-looking hashes, and cannot tell the two apart.
"""

from __future__ import annotations

from typing import Any

from banks.bank_s15 import right_loop
from hypothesis import HealthCheck, find, given, settings
from hypothesis import strategies as st

from cafe.monitors.snapshots import ABSENT, AT_HEAD

SEEDED = settings(
    max_examples=500,
    derandomize=True,
    database=None,
    deadline=None,
    suppress_health_check=list(HealthCheck),
)
PATHS = ("bill.py", "check_bill.py", "pytest.ini", "notes.txt", "src/till/tip.py")


def loop_without_head_default(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """The mutant: `right_loop` reading a path the abort leaves out as None, not AT_HEAD."""
    if None in (at_green, at_abort):
        return False
    for path in {**at_green, **at_abort}:
        then, now = at_green.get(path, AT_HEAD), at_abort.get(path)
        if then != now and captured.get(path) != then:
            return False
    return True


@st.composite
def restore_inputs(draw: Any) -> tuple[Any, Any, dict[str, str]]:
    """Two fingerprints as the notebook describes them (path -> 40-hex blob hash or ABSENT, or
    None), often sharing hashes, and captures holding a hash, ABSENT, AT_HEAD, or what a path
    held at either sample."""
    hashes = draw(st.lists(st.text("0123456789abcdef", min_size=40, max_size=40), min_size=1))
    content = st.sampled_from((*hashes, ABSENT))
    fingerprint = st.one_of(st.dictionaries(st.sampled_from(PATHS), content), st.none())
    green, abort = draw(fingerprint), draw(fingerprint)
    held = (*hashes, ABSENT, AT_HEAD, *(green or {}).values(), *(abort or {}).values())
    captured = draw(st.dictionaries(st.sampled_from(PATHS), st.sampled_from(held)))
    return green, abort, captured


def test_restore_inputs_reach_the_default_s_only_reader():
    """The search is not idle: it reaches a path that only the green fingerprint names, with a
    capture that does not hold its green content (where the default would decide)."""

    def only_green(given: tuple[Any, Any, dict[str, str]]) -> bool:
        green, abort, captured = given
        return bool(
            green is not None
            and abort is not None
            and any(p not in abort and captured.get(p) != h for p, h in green.items())
        )

    find(restore_inputs(), only_green, settings=SEEDED)


@SEEDED
@given(restore_inputs())
def test_a_gate_reading_a_missing_abort_path_as_none_agrees_with_the_bank_s_answer(given_case):
    assert loop_without_head_default(*given_case) == right_loop(*given_case), given_case
