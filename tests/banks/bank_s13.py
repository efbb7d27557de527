"""Session 13's banks: `check_fold_diagnostic` and `check_signature` (cafe/exercises/s13.py).

The exercise ideas: the fold keeps one current failure per run, its streak counting sightings of
one signature (an edit holds it, a new signature restarts it, a clean pass clears it), a turn's
results read in the order they ran (the first failing check of its latest checked stretch
decides it; a failing tool that is not a check changes nothing), a re-verify owed only for an
edit on top of a live failure and paid only by a check that ran after it, and a write counted
in `write_epoch` whichever tool or hook made it; a signature masks what changes between two runs
of one failure, in whatever shape the noise takes, keeps what tells two failures apart, and gives
one failure the same signature in two fresh processes.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import replace

from banks.harness import Bank, Entry
from cafe.exercises.reference_s13 import fold
from cafe.exercises.s13 import check_fold_diagnostic, check_signature
from cafe.loop.turns import ToolResult
from cafe.stall.evidence import failure_signature, normalize_evidence
from cafe.stall.failure_state import FailureState, classify_turn, fold_diagnostic

# --- the fold: wrong --------------------------------------------------------------------------


def owes_after_any_edit(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Every edit owes a re-verify, even with nothing failing."""
    folded = right_by_hand(state, dispatch)
    kind, _ = classify_turn(dispatch)
    if kind == "edit":
        return replace(folded, edit_since_failure=True, reverify_owed=True)
    return folded


def last_failure_decides(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """The last failing result of a turn decides it, not the first."""
    failing = [r for r in dispatch if not r.ok]
    if len(failing) < 2:
        return right_by_hand(state, dispatch)
    return right_by_hand(state, [*[r for r in dispatch if r.ok], failing[-1]])


def edit_keyed(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """An edit resets the streak: the design that never sees a thrash."""
    folded = right_by_hand(state, dispatch)
    edited = any(r.kind == "mutate" and r.ok for r in dispatch)
    return replace(folded, same_diagnostic_streak=0) if edited else folded


def edit_decides_the_turn(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Any turn with a successful edit is an edit, whatever its checks said after it."""
    if any(r.kind == "verify" and not r.ok for r in dispatch):
        return right_by_hand(state, dispatch)
    if any(r.kind == "mutate" and r.ok for r in dispatch):
        return right_by_hand(state, [r for r in dispatch if r.kind == "mutate"])
    return right_by_hand(state, dispatch)


def any_failure_decides(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """The first failing result of any tool is the turn's diagnostic, a refused write too."""
    failing = next((r for r in dispatch if not r.ok), None)
    if failing is None or failing.kind == "verify":
        return right_by_hand(state, dispatch)
    return right_by_hand(state, [replace(failing, kind="verify")])


def check_pays_any_edit(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """A check anywhere in the turn pays for every edit in it, one that ran after it too."""
    folded = right_by_hand(state, dispatch)
    if any(r.kind == "verify" for r in dispatch):
        return replace(folded, edit_since_failure=False, reverify_owed=False)
    return folded


def green_vouches_for_a_later_edit(
    state: FailureState, dispatch: Sequence[ToolResult]
) -> FailureState:
    """A green check clears the failure even when an edit ran after it in the same turn."""
    checks = [r for r in dispatch if r.kind == "verify"]
    if checks and all(r.ok for r in checks):
        epoch = state.write_epoch + sum(r.kind == "mutate" and r.ok for r in dispatch)
        return FailureState("pass", None, epoch, 0, False, False)
    return right_by_hand(state, dispatch)


def refused_write_counts(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Every mutate result bumps the epoch, a refused write too."""
    folded = right_by_hand(state, dispatch)
    refused = sum(1 for r in dispatch if r.kind == "mutate" and not r.ok)
    return replace(folded, write_epoch=folded.write_epoch + refused)


def any_failure_pays(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Any failing result pays the re-verify, a refused write too."""
    folded = right_by_hand(state, dispatch)
    return replace(folded, reverify_owed=False) if any(not r.ok for r in dispatch) else folded


def raw_signature(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Hashes the output as it is: a moved line is a new failure."""
    kind, deciding = classify_turn(dispatch)
    folded = right_by_hand(state, dispatch)
    if kind != "fail" or deciding is None:
        return folded
    signature = hashlib.sha256(deciding.output.encode()).hexdigest()
    same = (state.last_diagnostic_class, state.last_diagnostic_signature) == ("fail", signature)
    streak = state.same_diagnostic_streak + 1 if same else 1
    return replace(folded, last_diagnostic_signature=signature, same_diagnostic_streak=streak)


def streak_from_zero(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Off by one: a first sighting counts 0, so every trip comes one sighting late."""
    folded = right_by_hand(state, dispatch)
    if folded.last_diagnostic_class == "fail":
        return replace(folded, same_diagnostic_streak=folded.same_diagnostic_streak - 1)
    return folded


def quiet_clears(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """A turn that only reads (or does nothing) clears the failure, as if it had passed."""
    kind, _ = classify_turn(dispatch)
    if kind == "quiet":
        return FailureState(write_epoch=state.write_epoch)
    return right_by_hand(state, dispatch)


def owed_survives_a_pass(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """A clean pass clears the failure but leaves the re-verify owed."""
    folded = right_by_hand(state, dispatch)
    return (
        replace(folded, reverify_owed=state.reverify_owed)
        if folded.last_diagnostic_class == "pass"
        else folded
    )


# --- the fold: right --------------------------------------------------------------------------


def right_by_hand(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """No classify_turn: a walk over the results in order, the last checked stretch kept."""
    epoch = state.write_epoch + sum(r.kind == "mutate" and r.ok for r in dispatch)
    verdict, stretch, edit_after = None, None, False  # stretch: first failing check, else a pass
    for r in dispatch:
        if r.kind == "mutate" and r.ok:
            verdict, stretch, edit_after = stretch or verdict, None, True
        elif r.kind == "verify":
            if stretch is None or (stretch.ok and not r.ok):
                stretch = r
            edit_after = False
    verdict = stretch or verdict
    if verdict is not None and not verdict.ok:
        sig = failure_signature(verdict)
        again = (state.last_diagnostic_class, state.last_diagnostic_signature) == ("fail", sig)
        streak = state.same_diagnostic_streak + 1 if again else 1
        return FailureState("fail", sig, epoch, streak, edit_after, edit_after)
    if verdict is not None and not edit_after:  # a pass clears only with no edit after it
        return FailureState("pass", None, epoch, 0, False, False)
    if edit_after:
        live = state.last_diagnostic_class == "fail"
        return FailureState(
            state.last_diagnostic_class,
            state.last_diagnostic_signature,
            epoch,
            state.same_diagnostic_streak,
            state.edit_since_failure or live,
            state.reverify_owed or live,
        )
    return state


def right_match(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """classify_turn and a match statement, each branch a replace()."""
    kind, deciding = classify_turn(dispatch)
    epoch = state.write_epoch + len([r for r in dispatch if r.ok and r.kind == "mutate"])
    checks = [i for i, r in enumerate(dispatch) if r.kind == "verify"]
    after = dispatch[checks[-1] + 1 :] if checks else []
    unchecked = any(r.kind == "mutate" and r.ok for r in after)
    match kind:
        case "fail" if deciding is not None:
            sig = failure_signature(deciding)
            again = state.last_diagnostic_class == "fail" and sig == state.last_diagnostic_signature
            return replace(
                state,
                last_diagnostic_class="fail",
                last_diagnostic_signature=sig,
                write_epoch=epoch,
                same_diagnostic_streak=(state.same_diagnostic_streak if again else 0) + 1,
                edit_since_failure=unchecked,
                reverify_owed=unchecked,
            )
        case "edit":
            if state.last_diagnostic_class != "fail":
                return replace(state, write_epoch=epoch)
            return replace(state, write_epoch=epoch, edit_since_failure=True, reverify_owed=True)
        case "pass":
            return FailureState("pass", None, epoch)
        case _:
            return state


# --- the signature: the learner-shaped reference ------------------------------------------------


def signature_by_rules(output: str) -> str:
    """Mask each kind of noise with its own rule, fold the spaces, hash what is left."""
    noise = [
        (r"\x1b\[[0-9;]*m", ""),  # colour codes
        (r"(?:(?<=/tmp/)|(?<=/T/))[^/\s]+/", "<run>/"),  # a run's own temporary folder
        (r"(?<=\.py):\d+", ":<line>"),  # a line number after a file name
        (r'(?<=", line )\d+', "<line>"),  # a traceback's line number
        (r"\b\d+(?:\.\d+)?s\b", "<secs>"),  # a duration
        (r"pytest-\d+", "pytest-<n>"),  # pytest's numbered temporary folders
        (r"\bat 0x[0-9a-fA-F]+", "at <addr>"),  # an object's address
        (r"(?:\d{4}-\d\d-\d\d[ T])?\d\d:\d\d:\d\d(?:[.,]\d+)?", "<time>"),  # a log line's clock
        (r"\[gw\d+\]", "[gw]"),  # an xdist worker
    ]
    text = output
    for pattern, mask in noise:
        text = re.sub(pattern, mask, text)
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]


# --- the signature: wrong ---------------------------------------------------------------------


def digits_outside_error_lines(output: str) -> str:
    """Every number masked except on pytest's E lines."""
    lines = [
        line if line.lstrip().startswith("E ") else re.sub(r"\d+", "N", line)
        for line in output.splitlines()
    ]
    return "\n".join(lines)


def addresses_kept(output: str) -> str:
    """Lines, durations and temporary folders masked; object addresses left in."""
    text = re.sub(r"\.py:\d+", ".py:N", output)
    text = re.sub(r" in \d+(\.\d+)?s", " in Ts", text)
    text = re.sub(r"pytest-\d+", "pytest-N", text)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+", "<time>", text)


def clock_with_a_space_only(output: str) -> str:
    """Every rule of `signature_by_rules`, its clock only as Python's logging writes it (a date,
    a space, a time): a time alone, or joined to its date by ISO 8601's "T", is left in."""
    noise = [
        (r"\x1b\[[0-9;]*m", ""),
        (r"(?<=\.py):\d+", ":<line>"),
        (r"\b\d+(?:\.\d+)?s\b", "<secs>"),
        (r"pytest-\d+", "pytest-<n>"),
        (r"\bat 0x[0-9a-fA-F]+", "at <addr>"),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?", "<time>"),
        (r"\[gw\d+\]", "[gw]"),
    ]
    text = output
    for pattern, mask in noise:
        text = re.sub(pattern, mask, text)
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:16]


def timestamps_kept(output: str) -> str:
    """Lines, durations, folders and addresses masked; a log line's clock left in."""
    text = re.sub(r"\.py:\d+", ".py:N", output)
    text = re.sub(r" in \d+(\.\d+)?s", " in Ts", text)
    text = re.sub(r"pytest-\d+", "pytest-N", text)
    return re.sub(r"at 0x[0-9a-f]+", "at 0xADDR", text)


def raw_hash(output: str) -> str:
    """Nothing masked."""
    return hashlib.sha256(output.encode()).hexdigest()


def digit_blind(output: str) -> str:
    """Every digit masked, the wrong total too."""
    return re.sub(r"\d+", "N", output)


def tmp_path_whole(output: str) -> str:
    """A whole temporary path masked, the file's name too."""
    text = re.sub(r"/tmp/\S+", "<tmp>", output)
    text = re.sub(r":\d+", ":N", text)
    text = re.sub(r" in \d+(\.\d+)?s", " in Ts", text)
    text = re.sub(r"at 0x[0-9a-f]+", "at 0xADDR", text)
    return re.sub(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+", "<time>", text)


def first_line_only(output: str) -> str:
    """The first line only."""
    return output.splitlines()[0] if output else ""


def error_lines_only(output: str) -> str:
    """pytest's E lines only: every other line of the failure dropped."""
    kept = [line.strip() for line in output.splitlines() if line.lstrip().startswith("E ")]
    return "\n".join(kept)


def visible_pairs(output: str) -> str:
    """The notebook's three 'same' pairs hard-coded: each known noise masked by literal text."""
    for noise in ("21", "23", "0.02s", "0.31s", "pytest-12", "pytest-13"):
        output = output.replace(noise, "N")
    return output


# --- the signature: right ---------------------------------------------------------------------


def right_course(output: str) -> str:
    """The course's own failure_signature, on a result built from the text."""
    return failure_signature(ToolResult("c", "run_tests", {}, False, output, "verify"))


def right_normalize(output: str) -> str:
    """The course's normalize_evidence, and a hash of the learner's choosing."""
    return hashlib.sha1(normalize_evidence(output).encode()).hexdigest()[:12]


def right_tokens(output: str) -> str:
    """Word by word: each noisy token replaced by its kind, the rest kept; no hash. A hex word is
    an address only after "at" (`<bill.Bill object at 0x7f3a...>`): a checksum is data. A
    traceback's line number is masked before the words are read."""
    address = re.compile(r"0x[0-9a-fA-F]+>?")
    kinds = (
        (re.compile(r".*\.py:\d+:?"), "<file:line>"),
        (re.compile(r"\d+(\.\d+)?s"), "<secs>"),
        (re.compile(r"\[?(?:\d{4}-\d\d-\d\dT)?\d\d:\d\d:\d\d(?:[.,]\d+)?\]?"), "<clock>"),
        (re.compile(r"\[?\d{4}-\d\d-\d\d"), "<date>"),  # a clock's date, a space before its time
        (re.compile(r"\S*pytest-\d+\S*"), None),
        (re.compile(r"\[gw\d+\]"), "[gw]"),
    )
    words = []
    plain = re.sub(r"\x1b\[[0-9;]*m", "", output)
    for word in re.sub(r'(?<=", line )\d+', "<n>", plain).split():  # File "bill.py", line 21
        if words and words[-1] == "at" and address.fullmatch(word):
            word = "<addr>"
        for pattern, kind in kinds:
            if pattern.fullmatch(word):
                word = kind if kind is not None else re.sub(r"pytest-\d+", "pytest-N", word)
                break
        words.append(word)
    return " ".join(words)


# --- held-out reader, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def long_numbers_masked(output: str) -> str:
    """Masks any run of six or more hex-looking characters, to catch addresses: a wrong total of
    100050 and one of 100070 share a signature."""
    return signature_by_rules(re.sub(r"\b(?:0x)?[0-9a-fA-F]{6,}\b", "<hex>", output))


def fold_imported_inside(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """The course's fold_diagnostic, imported inside the function body."""
    from cafe.stall.failure_state import fold_diagnostic as course_fold

    return course_fold(state, dispatch)


# --- held-out readerF, 7 Dec 2026: written from the lesson alone, without the checkers -----------


def forced_dropped(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """Leaves out the checks a hook ran itself (forced), the mandated re-verify among them, as
    "not the agent's": an edit and a forced red re-test read as an edit turn."""
    return right_by_hand(state, [r for r in dispatch if not r.forced])


def first_error_line_only(output: str) -> str:
    """Colour stripped, then the first E line alone (the whole output when there is none): two
    tests failing on the same assertion share it."""
    clean = re.sub(r"\x1b\[[0-9;]*m", "", output)
    line = next((line for line in clean.splitlines() if line.startswith("E ")), clean)
    return signature_by_rules(line)


def every_hex_masked(output: str) -> str:
    """Every 0x number masked as if it were an object's address: a checksum is data."""
    return signature_by_rules(re.sub(r"0x[0-9a-fA-F]+", "0xN", output))


def decimals_masked(output: str) -> str:
    """Every decimal number masked as if it were a timing: 'latte 3.40 != 3.60' is a price."""
    return signature_by_rules(re.sub(r"\d+\.\d+", "<secs>", output))


def words_sorted(output: str) -> str:
    """The words sorted, so that a set's order cannot change it: a list's order is lost too."""
    return " ".join(sorted(normalize_evidence(output).split()))


def lower_cased(output: str) -> str:
    """Everything lower-cased to 'normalise' it: 'Latte' and 'LATTE' are the test's own values."""
    return normalize_evidence(output).lower()


def _reader_normalised(text: str) -> str:
    """Colour, temporary folders (the file's name kept), line numbers, timings, clocks, object
    addresses and xdist workers masked; spaces folded."""
    text = re.sub(r"\x1b\[[0-9;]*[A-Za-z]", "", text)
    text = re.sub(r"/(?:tmp|var/folders|private/var)/[^\s:'\"]*/", "/TMP/", text)
    text = re.sub(r"(\.py)[:(](\d+)\)?", r"\1:N", text)
    text = re.sub(r"\bline \d+\b", "line N", text)
    text = re.sub(r"\bin \d+(?:\.\d+)?s\b", "in Ts", text)
    text = re.sub(r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?", "TIMESTAMP", text)
    text = re.sub(r"\b\d\d:\d\d:\d\d(?:[.,]\d+)?\b", "TIME", text)
    text = re.sub(r" at 0x[0-9a-fA-F]+", " at 0xADDR", text)
    text = re.sub(r"\bgw\d+\b", "gwN", text)
    return re.sub(r"\s+", " ", text).strip()


def right_naming_lines(output: str) -> str:
    """Only the lines that name the failure (E lines, FAILED and ERROR lines, pytest's test
    headers, exceptions, asserts), each normalised, then hashed."""
    lines = [_reader_normalised(line) for line in output.splitlines()]
    kept = [
        line
        for line in lines
        if line.startswith(("E ", "FAILED", "ERROR", "_")) or "Error" in line or "assert" in line
    ]
    kept = [re.sub(r"^\[gwN\] ", "", line) for line in kept]
    return hashlib.sha256("\n".join(kept or lines).encode()).hexdigest()


# --- held-out readerI, 7 Dec 2026 (afternoon): written from the lesson alone ----------------------


def bracketed_numbers_masked(output: str) -> str:
    """Masks every number in square brackets, meaning pytest's `[gw0]` workers and `[ 50%]`
    progress: `assert shares[0] == 334` and `assert shares[1] == 334` share a signature."""
    return signature_by_rules(re.sub(r"\[\s*\d+%?\]", "[N]", output))


def right_assert_lines(output: str) -> str:
    """Only the E, FAILED and ERROR lines and those holding an error or an assert (the test's
    header left out: its FAILED line names it), each normalised, then hashed."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output)
    lines = text.splitlines()
    kept = [
        line
        for line in lines
        if re.match(r"\s*(E\s|FAILED|ERROR)", line) or "Error" in line or "assert" in line
    ]
    body = [_reader_normalised(line) for line in kept or lines]
    return "sig:" + hashlib.sha256("\n".join(body).encode()).hexdigest()[:16]


# --- held-out reader M, 7 Dec 2026 (evening): written from the lesson alone, and one more of each
# kind, another input shape, written for the bank ---------------------------------------------


def forced_writes_uncounted(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """write_epoch leaves out the writes a hook ran itself (forced), as not the agent's."""
    folded = right_by_hand(state, dispatch)
    forced = sum(r.kind == "mutate" and r.ok and r.forced for r in dispatch)
    return replace(folded, write_epoch=folded.write_epoch - forced)


def writes_by_tool_name(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """write_epoch counts `write_file`'s results only: another mutate tool's write is left out."""
    folded = right_by_hand(state, dispatch)
    other = sum(r.kind == "mutate" and r.ok and r.name != "write_file" for r in dispatch)
    return replace(folded, write_epoch=folded.write_epoch - other)


# Reader M's rules, from their right solution; each wrong signature below changes one of them.
_READER_M: dict[str, tuple[str, str]] = {
    "colour": (r"\x1b\[[0-9;]*[A-Za-z]", ""),
    "pytest": (r"pytest-of-[^/\\\s]+[/\\]pytest-\d+", "pytest-of-U/pytest-N"),
    "folder": (
        r"((?:/private)?/var/folders/[^/\s]+/[^/\s]+/T|/tmp|[A-Za-z]:\\[^\s'\"]*?\\Temp)"
        r"([/\\])[^/\\\s'\":]+(?=[/\\])",
        r"\1\2TMP",
    ),
    "location": (r"(\.py)[:(](\d+)\)?", r"\1:N"),
    "traceback": (r"\bline \d+", "line N"),
    "duration": (r"\bin \d+(?:\.\d+)?s\b(?: \(\d+:\d{2}:\d{2}\))?", "in Ts"),
    "worker": (r"\bgw\d+\b", "gwN"),
    "address": (r"\bat 0x[0-9a-fA-F]+", "at 0xADDR"),
    "clock": (
        r"\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?",
        "CLOCK",
    ),
    "time": (r"\b\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?(?:\s?[AaPp]\.?[Mm]\.?)?", "CLOCK"),
}


def _reader_m_text(output: str, **changed: tuple[str, str] | None) -> str:
    """The output with reader M's rules applied, some `changed` (None: the rule left out)."""
    for rule in {**_READER_M, **changed}.values():
        if rule is not None:
            output = re.sub(rule[0], rule[1], output)
    return output


def _reader_m(output: str, **changed: tuple[str, str] | None) -> str:
    return hashlib.sha256(_reader_m_text(output, **changed).encode()).hexdigest()[:16]


def long_hex_masked(output: str) -> str:
    """Any 0x followed by eight hex digits or more taken for an address, "at" or not."""
    return _reader_m(output, address=(r"0x[0-9a-fA-F]{8,}", "0xADDR"))


def bare_hex_words_masked(output: str) -> str:
    """A bare hex word of eight characters or more, a letter among them, taken for a build hash
    or an id: a checksum printed without 0x is data."""
    return _reader_m(output, ids=(r"\b(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b", "<id>"))


def pytest_folders_only(output: str) -> str:
    """Only pytest's own `pytest-of-*/pytest-N` folders masked: another run's temporary folder
    (`/tmp/cafe-workbench-ab12/`, `tempfile`'s `/tmp/tmpk3j4h5g6/`) is kept."""
    return _reader_m(output, folder=None)


def posix_tmp_only(output: str) -> str:
    """A run's folder masked under Linux's /tmp only: macOS's /var/folders/.../T/ is kept."""
    return _reader_m(output, folder=(r"/tmp/[^/\s'\":]+(?=/)", "/tmp/TMP"))


def traceback_lines_kept(output: str) -> str:
    """`bill.py:21` masked, a traceback's `line 21` kept."""
    return _reader_m(output, traceback=None)


def short_line_numbers_only(output: str) -> str:
    """Line numbers masked up to three digits: line 1234 of a long file is kept."""
    short = {
        "location": (r"(\.py):\d{1,3}\b", r"\1:N"),
        "traceback": (r"\bline \d{1,3}\b", "line N"),
    }
    return _reader_m(output, **short)


def one_digit_durations(output: str) -> str:
    """A duration masked only with one digit before its point: `in 12.50s` is kept."""
    return _reader_m(output, duration=(r"\bin \d\.\d+s\b", "in Ts"))


def passed_durations_only(output: str) -> str:
    """A duration masked only after "passed": a run where every test failed keeps its time."""
    return _reader_m(output, duration=(r"passed in \d+\.\d+s", "passed in Ts"))


def builtin_hash(output: str) -> str:
    """Python's hash() of the normalised text: one process agrees with itself, the next does not."""
    return format(hash(_reader_m_text(output)) & 0xFFFFFFFFFFFF, "x")


def tuple_hash_of_lines(output: str) -> str:
    """hash() of the tuple of the normalised lines: their hashes change with each process."""
    return str(hash(tuple(_reader_m_text(output).splitlines())))


def _streak_capped(state: FailureState, dispatch: Sequence[ToolResult], cap: int) -> FailureState:
    folded = right_by_hand(state, dispatch)
    return replace(folded, same_diagnostic_streak=min(folded.same_diagnostic_streak, cap))


def streak_capped_at_5(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """The streak stops at 5, "nobody needs more" (held-out BC): a detector set above 5 never trips."""
    return _streak_capped(state, dispatch, 5)


def streak_capped_at_12(state: FailureState, dispatch: Sequence[ToolResult]) -> FailureState:
    """The streak stops at 12: wrong only on runs that fail alike longer than that."""
    return _streak_capped(state, dispatch, 12)


_MET: dict[str, int] = {}


def numbered_as_met(output: str) -> str:
    """Failures numbered in the order this process met them (held-out BC): steady within one
    order of calls, another signature in a process that met another failure first."""
    return f"failure-{_MET.setdefault(signature_by_rules(output), len(_MET) + 1)}"


def numbered_in_default(output: str, seen: list[str] = []) -> str:  # noqa: B006
    """The same numbering kept in a default argument's list, of digests this time."""
    digest = signature_by_rules(output)
    if digest not in seen:
        seen.append(digest)
    return f"{digest[:8]}-{seen.index(digest)}"


# --- the banks --------------------------------------------------------------------------------

BANKS = (
    Bank(
        "s13",
        check_fold_diagnostic,
        right_by_hand,
        wrong=(
            # held-out reader BC, and one more of the same kind
            Entry(
                "streak_capped_at_5",
                streak_capped_at_5,
                "a streak has no cap: the same signature as a live failure adds one, every time",
                "[red A] five turns running, then [red A]: streak 5; 6 is due",
            ),
            Entry(
                "streak_capped_at_12",
                streak_capped_at_12,
                "a streak has no cap: the same signature as a live failure adds one, every time",
                "[red A] twelve turns running, then [red A]: streak 12; 13 is due",
            ),
            # held-out reader M, 7 Dec 2026 (evening), and one of the same kind for the bank
            Entry(
                "forced_writes_uncounted",
                forced_writes_uncounted,
                "write_epoch counts every successful mutate result, a write a hook ran too",
                "[edit, forced edit] as the first turn: write_epoch 1; 2 is due",
            ),
            Entry(
                "writes_by_tool_name",
                writes_by_tool_name,
                "write_epoch counts every successful mutate result, whichever tool wrote",
                "[patch] as the first turn: write_epoch 0; 1 is due",
            ),
            # held-out readerF, 7 Dec 2026
            Entry(
                "forced_dropped",
                forced_dropped,
                "a check a hook ran itself (forced) is folded like any other evidence",
                "[forced red A] as the first turn: nothing changes; a fail, streak 1, is due",
            ),
            # held-out reader, 7 Dec 2026
            Entry(
                "fold_imported_inside",
                fold_imported_inside,
                "write your own fold",
                "fold_diagnostic imported inside the body",
            ),
            Entry(
                "course_fold",
                fold_diagnostic,
                "write your own: the course's fold_diagnostic is refused",
                "itself",
            ),
            Entry(
                "owes_after_any_edit",
                owes_after_any_edit,
                "only an edit on a live failure owes a re-verify",
                "edit after a clean pass -> reverify_owed True",
            ),
            Entry(
                "last_failure_decides",
                last_failure_decides,
                "the first failing result decides a turn",
                "[fail_b, fail_a] after fail_a -> streak 2",
            ),
            Entry(
                "edit_keyed",
                edit_keyed,
                "an edit holds the streak: it is a try, not a fix",
                "edit on a live failure -> streak 0",
            ),
            Entry(
                "edit_decides_the_turn",
                edit_decides_the_turn,
                "a check that ran after the edit verifies it",
                "[edit, pass] -> class fail, owed True",
            ),
            Entry(
                "any_failure_decides",
                any_failure_decides,
                "a refused write is about the write, not the bug",
                "[refused] on a live failure -> a new signature, streak 1",
            ),
            Entry(
                "check_pays_any_edit",
                check_pays_any_edit,
                "an edit after the turn's last check is still unchecked",
                "[fail_a, edit] -> owed False",
            ),
            Entry(
                "green_vouches_for_a_later_edit",
                green_vouches_for_a_later_edit,
                "a failure is cleared only by a pass with no edit after it",
                "[pass, edit] on a live failure -> class pass, owed False",
            ),
            Entry(
                "refused_write_counts",
                refused_write_counts,
                "the epoch counts successful writes only",
                "a refused write -> epoch + 1",
            ),
            Entry(
                "any_failure_pays",
                any_failure_pays,
                "only a verify tool pays the re-verify",
                "a refused write while owed -> owed False",
            ),
            Entry(
                "raw_signature",
                raw_signature,
                "one failure moved two lines is still one failure",
                "moved two lines -> streak 1",
            ),
            Entry(
                "streak_from_zero",
                streak_from_zero,
                "a first sighting is a streak of 1",
                "first failure -> streak 0",
            ),
            Entry(
                "quiet_clears",
                quiet_clears,
                "a turn that only reads changes nothing",
                "read_file on a live failure -> class None",
            ),
            Entry(
                "owed_survives_a_pass",
                owed_survives_a_pass,
                "a clean pass clears everything owed",
                "pass after an edit -> owed True",
            ),
        ),
        right=(
            Entry("right_match", right_match, "classify_turn and a match statement"),
            Entry(
                "right_stretches",
                lambda state, dispatch: fold(state, dispatch, FailureState, failure_signature),
                "the turn cut into stretches at each edit, the last checked one speaking",
            ),
        ),
        reference_module="banks.bank_s13",
    ),
    Bank(
        "s13",
        check_signature,
        signature_by_rules,
        wrong=(
            # held-out reader BC, and one more of the same kind
            Entry(
                "numbered_as_met",
                numbered_as_met,
                "a signature is a function of the failure's text alone, whatever was signed before",
                "a fresh process that signs another failure first: failure-9 here, failure-8 there",
            ),
            Entry(
                "numbered_in_default",
                numbered_in_default,
                "a signature is a function of the failure's text alone, whatever was signed before",
                "a fresh process that signs another failure first: its number moves by one",
            ),
            # held-out reader M, 7 Dec 2026 (evening), each with one of the same kind for the bank
            Entry(
                "long_hex_masked",
                long_hex_masked,
                "a hex number not after 'at' is data, whatever its length: a checksum stays",
                "checksum 0xdeadbeef != 0x12345678 and 0x87654321 != 0x12345678: one signature",
            ),
            Entry(
                "bare_hex_words_masked",
                bare_hex_words_masked,
                "a checksum stays, printed with 0x or bare",
                "checksum deadbeef != 12345678 and cafebabe != 12345678: one signature",
            ),
            Entry(
                "pytest_folders_only",
                pytest_folders_only,
                "any run's own temporary folder is noise, not only pytest's",
                "/tmp/cafe-workbench-ab12/till/... and /tmp/cafe-workbench-xy99/till/...: differ",
            ),
            Entry(
                "posix_tmp_only",
                posix_tmp_only,
                "a run's own temporary folder is noise under macOS's temp root too",
                "/var/folders/h3/k2/T/tmpab12cd34/till/... and .../T/tmpxy99zz00/till/...: differ",
            ),
            Entry(
                "traceback_lines_kept",
                traceback_lines_kept,
                "a failing line that moved is one failure, in a traceback's 'line 21' too",
                'File "bill.py", line 21 and File "bill.py", line 23: differ',
            ),
            Entry(
                "short_line_numbers_only",
                short_line_numbers_only,
                "a failing line that moved is one failure, whatever its number's length",
                "check_bill.py:1234 and check_bill.py:1236: differ",
            ),
            Entry(
                "one_digit_durations",
                one_digit_durations,
                "a run's duration is noise, whatever its length",
                "1 failed in 9.80s and 1 failed in 12.50s: differ",
            ),
            Entry(
                "passed_durations_only",
                passed_durations_only,
                "a run's duration is noise, whatever the summary counts before it",
                "1 failed in 0.02s and 1 failed in 0.31s: differ",
            ),
            Entry(
                "builtin_hash",
                builtin_hash,
                "one failure gets one signature in two fresh processes: hash() changes with each",
                "any output: another hash seed, another signature",
            ),
            Entry(
                "tuple_hash_of_lines",
                tuple_hash_of_lines,
                "one failure gets one signature in two fresh processes: hash() changes with each",
                "any output: hash() of its lines' tuple changes with the hash seed",
            ),
            # held-out readerI, 7 Dec 2026 (afternoon)
            Entry(
                "bracketed_numbers_masked",
                bracketed_numbers_masked,
                "another index in the assertion is another failure: only [gwN] is a worker",
                "assert shares[0] == 334 and assert shares[1] == 334: one signature",
            ),
            # held-out readerF, 7 Dec 2026
            Entry(
                "first_error_line_only",
                first_error_line_only,
                "which test failed is the failure too",
                "test_split and test_split_rounds_down, each E assert 999 == 1000: one signature",
            ),
            Entry(
                "every_hex_masked",
                every_hex_masked,
                "only an address after 'at 0x' is noise; a checksum stays",
                "checksum 0x0 != 0x2 and checksum 0x1 != 0x2: one signature",
            ),
            Entry(
                "decimals_masked",
                decimals_masked,
                "a decimal in the test's data is a value, not a timing",
                "latte 0.00 != 0.02 and latte 0.01 != 0.02: one signature",
            ),
            Entry(
                "words_sorted",
                words_sorted,
                "a list's order is data; only a set's order is noise",
                "assert [0, 1, 2, 3] == [3, 2, 1, 0] and assert [0, 2, 1, 3] == ...: one signature",
            ),
            Entry(
                "lower_cased",
                lower_cased,
                "case inside the test's data is the test's value",
                "assert 'Latte' == 'latte' and assert 'lAtte' == 'latte': one signature",
            ),
            # held-out reader, 7 Dec 2026
            Entry(
                "long_numbers_masked",
                long_numbers_masked,
                "mask only what cannot be the failure: a long number is data, not an address",
                "E assert 100050 == 100000 and E assert 100070 == 100000 share a signature",
            ),
            Entry(
                "digits_outside_error_lines",
                digits_outside_error_lines,
                "a number outside the E lines can be the failure",
                "short summary 999 vs 1002 -> same",
            ),
            Entry(
                "addresses_kept",
                addresses_kept,
                "an object's address changes on every run",
                "0x7f3a... vs 0x7f9b... -> differ",
            ),
            Entry(
                "timestamps_kept",
                timestamps_kept,
                "a log line's clock changes on every run",
                "12:00:01 vs 12:00:07 -> differ",
            ),
            # mutmut's survivor (7 Dec 2026): the clock's pattern no longer matching "T"
            Entry(
                "clock_with_a_space_only",
                clock_with_a_space_only,
                "a log line's clock moves in every shape it takes: alone, or after a date and 'T'",
                "'2026-11-30T12:00:01 ERROR ...' vs '2026-11-30T12:00:07 ERROR ...' -> differ",
            ),
            Entry("raw_hash", raw_hash, "nothing masked", "moved line -> differ"),
            Entry("digit_blind", digit_blind, "every digit masked", "999 vs 1002 -> same"),
            Entry(
                "tmp_path_whole",
                tmp_path_whole,
                "a missing file's name is the failure",
                "config.json vs data.csv -> same",
            ),
            Entry("first_line_only", first_line_only, "the first line only", "moved -> differ"),
            Entry(
                "error_lines_only",
                error_lines_only,
                "the failing test's name and the summary are the failure too",
                "test_split vs test_tip -> same",
            ),
            Entry(
                "visible_pairs",
                visible_pairs,
                "the rule, not the visible pairs' literal noise",
                "0x7f3a... vs 0x7f9b... -> differ",
            ),
        ),
        right=(
            Entry("right_course", right_course, "the course's own failure_signature"),
            Entry("right_normalize", right_normalize, "normalize_evidence with another hash"),
            Entry("right_tokens", right_tokens, "token by token, no hash"),
            # held-out readerF, 7 Dec 2026
            Entry("right_naming_lines", right_naming_lines, "only the lines naming the failure"),
            # held-out readerI, 7 Dec 2026 (afternoon)
            Entry(
                "right_assert_lines", right_assert_lines, "E, FAILED and assert lines, normalised"
            ),
        ),
    ),
)

_MASK = "equivalent: the text a rule masks with; any fixed text does, as long as it is the same every run"
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_fold_diagnostic": {},
    "check_signature": {
        "signature_by_rules:5: constant: `'<run>/'` -> `'XX<run>/XX'`": _MASK,
        "signature_by_rules:6: constant: `':<line>'` -> `'XX:<line>XX'`": _MASK,
        "signature_by_rules:7: constant: `'<line>'` -> `'XX<line>XX'`": _MASK,
        "signature_by_rules:8: constant: `'<secs>'` -> `'XX<secs>XX'`": _MASK,
        "signature_by_rules:9: constant: `'pytest-<n>'` -> `'XXpytest-<n>XX'`": _MASK,
        "signature_by_rules:10: constant: `'at <addr>'` -> `'XXat <addr>XX'`": _MASK,
        "signature_by_rules:11: constant: `'<time>'` -> `'XX<time>XX'`": _MASK,
        "signature_by_rules:12: constant: `'[gw]'` -> `'XX[gw]XX'`": _MASK,
        "signature_by_rules:17: constant: `16` -> `17`": (
            "equivalent: how much of the hash is kept; 17 hex digits tell the pairs apart as 16 do"
        ),
        "signature_by_rules:17: constant: `' '` -> `'XX XX'`": (
            "equivalent: the text the folded spaces are joined with; any fixed text does"
        ),
    },
}
