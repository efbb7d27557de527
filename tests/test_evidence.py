"""Tests for cafe/stall/evidence.py: which outputs count as the same failure, and how fast that is decided.

The table below pairs real-looking pytest, unittest and traceback output: each SAME pair is one
failure seen twice with cosmetic noise between the two sightings, each DIFFERENT pair is two
failures that must never share a signature.
"""

from __future__ import annotations

import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.loop.agent import ToolResult
from cafe.stall.evidence import (
    HANDBACK_MAX_CHARS,
    failure_signature,
    failure_snippet,
    handback_snippet,
    normalize_evidence,
)
from cafe.stall.noise import EPHEMERAL_PORT_FLOOR
from cafe.stories.scenarios import edited_bill
from cafe.world.workbench import open_workbench, project_file
from work import grows_linearly

# --- signatures: the rules one by one ------------------------------------------------------------------------------

PYTEST_FAILURE = """\
...F
_____ test_split _____
check_bill.py:21: in test_split
    assert sum(shares) == 1000
E   assert 999 == 1000
1 failed, 3 passed in 0.02s
"""


def result(output, ok=False, kind="verify", name="run_tests"):
    return ToolResult("c", name, {}, ok, output, kind)


def test_signature_ignores_moved_lines():
    moved = PYTEST_FAILURE.replace("check_bill.py:21:", "check_bill.py:24:")
    assert failure_signature(result(moved)) == failure_signature(result(PYTEST_FAILURE))
    tb = 'File "bill.py", line 34, in split\nZeroDivisionError'
    assert failure_signature(result(tb)) == failure_signature(result(tb.replace("34", "40")))
    assert normalize_evidence("bill.py:12:5: E501") == "bill.py:<line>: E501"


def test_signature_ignores_temporary_paths_ansi_whitespace_and_timings():
    base = failure_signature(result(PYTEST_FAILURE))
    in_tmp = PYTEST_FAILURE.replace(
        "check_bill.py:21", "/tmp/cafe-workbench-ab12/till/check_bill.py:21"
    )
    in_other_tmp = PYTEST_FAILURE.replace(
        "check_bill.py:21", "/tmp/cafe-workbench-zz99/till/check_bill.py:21"
    )
    assert failure_signature(result(in_tmp)) == failure_signature(result(in_other_tmp))
    coloured = PYTEST_FAILURE.replace("E   assert", "\x1b[31mE   assert\x1b[0m")
    assert failure_signature(result(coloured)) == base
    spaced = PYTEST_FAILURE.replace("\n", "\r\n  ").replace("    assert", "\tassert")
    assert failure_signature(result(spaced)) == base
    assert failure_signature(result(PYTEST_FAILURE.replace("0.02s", "1.75s"))) == base


def test_temp_root_is_read_on_first_use_not_at_import():
    # STYLE 7: nothing reads the environment (here TMPDIR, through tempfile) when cafe is imported.
    probe = (
        "import tempfile; calls = []; real = tempfile.gettempdir; "
        "tempfile.gettempdir = lambda: calls.append(1) or real(); "
        "import cafe.stall; assert calls == [], 'read at import'; "
        "assert cafe.stall.evidence.normalize_evidence(real() + '/w1/bill.py:3') == '<tmp>/bill.py:<line>'; "
        "assert calls == [1], calls"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr


def test_signature_changes_with_a_different_error_or_tool():
    base = failure_signature(result(PYTEST_FAILURE))
    assert failure_signature(result(PYTEST_FAILURE.replace("999", "1002"))) != base
    assert failure_signature(result(PYTEST_FAILURE, name="read_file")) != base
    assert len(base) == 64 and int(base, 16) >= 0  # SHA-256, hex


def test_signature_from_real_pytest_output_survives_moved_lines_and_new_folders():
    with open_workbench() as bench:
        first = bench.run_tests()
        bench.write_file(
            "check_bill.py", "# moved down two lines\n\n" + project_file("check_bill.py")
        )
        moved = bench.run_tests()
    with open_workbench() as other:
        elsewhere = other.run_tests()
        other.write_file("bill.py", edited_bill("ceil"))
        different = other.run_tests()
    assert "check_bill.py:21" in first.text and "check_bill.py:23" in moved.text
    sig = failure_signature(result(first.text))
    assert failure_signature(result(moved.text)) == sig
    assert failure_signature(result(elsewhere.text)) == sig
    assert failure_signature(result(different.text)) != sig


def test_failure_snippet_quotes_pytest_error_lines():
    assert failure_snippet(PYTEST_FAILURE) == "assert 999 == 1000"
    assert failure_snippet("no E lines\nlast words") == "no E lines; last words"
    assert len(failure_snippet("E " + "x" * 1000)) <= 240


def test_handback_snippet_keeps_a_short_output_whole():
    output = "E   assert 999 == 1000\n1 failed, 3 passed in 0.02s"
    assert handback_snippet(output) == output


def test_handback_snippet_keeps_head_and_tail_of_a_long_traceback():
    output = "Traceback (most recent call last):\n" + "  frame\n" * 2000 + "KeyError: 'tip'"
    kept = handback_snippet(output)
    assert len(kept) == HANDBACK_MAX_CHARS
    assert kept.startswith("Traceback") and kept.endswith("KeyError: 'tip'")
    assert "KeyError: 'tip'" in failure_snippet(output)  # the line a nudge quotes, kept too


@settings(max_examples=100, deadline=None)
@given(st.text(alphabet="ab \n", max_size=9000))
def test_handback_snippet_is_the_whole_text_or_a_head_and_a_tail_of_it(text):
    kept, whole = handback_snippet(text), text.strip()
    assert len(kept) <= HANDBACK_MAX_CHARS
    if len(whole) <= HANDBACK_MAX_CHARS:
        assert kept == whole
    else:
        head, cut, tail = kept.partition("\n[… cut …]\n")
        assert cut and whole.startswith(head) and whole.endswith(tail)
        assert abs(len(head) - len(tail)) <= 1


@settings(max_examples=100, deadline=None)
@given(
    st.integers(min_value=1, max_value=999),
    st.integers(min_value=1, max_value=999),
    st.sampled_from(["", "\x1b[1m", "\x1b[31;1m"]),
    st.sampled_from([" ", "\t", "\n  "]),
)
def test_signature_is_invariant_to_noise(line_a, line_b, ansi, gap):
    text_a = f"check_bill.py:{line_a}: in test{gap}E{gap}assert 999 == 1000"
    text_b = f"{ansi}check_bill.py:{line_b}: in test\x1b[0m E assert 999 == 1000"
    assert failure_signature(result(text_a)) == failure_signature(result(text_b))


# --- the table: same failure, or different? --------------------------------------------------

SAME = [
    (
        "pytest tmp_path folder numbered per session",
        "E   FileNotFoundError: [Errno 2] No such file or directory: '/tmp/pytest-of-u/pytest-12/test_load0/config.json'",
        "E   FileNotFoundError: [Errno 2] No such file or directory: '/tmp/pytest-of-u/pytest-13/test_load0/config.json'",
    ),
    (
        "pytest tmp_path under another user",
        "tmp_path = PosixPath('/tmp/pytest-of-alice/pytest-3/test_split0')",
        "tmp_path = PosixPath('/tmp/pytest-of-bob/pytest-41/test_split0')",
    ),
    (
        "the workbench's own temporary copy",
        "/tmp/cafe-workbench-ab12/till/check_bill.py:21: AssertionError",
        "/tmp/cafe-workbench-zz99/till/check_bill.py:21: AssertionError",
    ),
    (
        "tempfile.mkdtemp folder",
        "OSError: cannot write /tmp/tmpab12cd34/ticket.json",
        "OSError: cannot write /tmp/tmpq9x8w7v6/ticket.json",
    ),
    (
        "ISO timestamp in a log line",
        "2024-05-01T12:34:56.789Z ERROR till: split failed for order 42",
        "2024-05-01T12:35:07.001Z ERROR till: split failed for order 42",
    ),
    (
        "logging's default timestamp",
        "2024-05-01 12:34:56,123 - till - ERROR - split failed",
        "2024-05-02 08:00:01,999 - till - ERROR - split failed",
    ),
    (
        "clock time in brackets",
        "[12:34:56] ERROR split failed\nE   assert 999 == 1000",
        "[12:35:07] ERROR split failed\nE   assert 999 == 1000",
    ),
    (
        "pytest summary duration",
        "E   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        "E   assert 999 == 1000\n1 failed, 3 passed in 1.75s",
    ),
    (
        "pytest summary with its (h:mm:ss) suffix",
        "========== 1 failed, 3 passed in 65.32s (0:01:05) ==========",
        "========== 1 failed, 3 passed in 66.01s (0:01:06) ==========",
    ),
    (
        "older pytest's 'in N seconds'",
        "=========================== 1 failed in 0.03 seconds ===========================",
        "=========================== 1 failed in 0.05 seconds ===========================",
    ),
    (
        "pytest summary with warnings and errors",
        "1 failed, 2 passed, 1 warning, 1 error in 0.41s",
        "1 failed, 2 passed, 1 warning, 1 error in 0.38s",
    ),
    (
        "unittest's run time",
        "FAIL: test_split (check_bill.SplitTest)\nRan 4 tests in 0.003s\n\nFAILED (failures=1)",
        "FAIL: test_split (check_bill.SplitTest)\nRan 4 tests in 0.004s\n\nFAILED (failures=1)",
    ),
    (
        "a 'took' report",
        "GET /health took 12ms; E   assert 503 == 200",
        "GET /health took 15ms; E   assert 503 == 200",
    ),
    ("process id", "worker (pid 4242) exited with code 1", "worker (pid 5167) exited with code 1"),
    (
        "process id written PID=",
        "till daemon PID=311 failed to start",
        "till daemon PID=9020 failed to start",
    ),
    (
        "ephemeral port in a URL",
        "ConnectionError: http://127.0.0.1:54321/health refused the connection",
        "ConnectionError: http://127.0.0.1:49877/health refused the connection",
    ),
    (
        "ephemeral port in Python's address tuple",
        "ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 54321)",
        "ConnectionRefusedError: [Errno 111] Connect call failed ('127.0.0.1', 60102)",
    ),
    (
        "ephemeral port on localhost",
        "server at localhost:41234 did not answer",
        "server at localhost:33001 did not answer",
    ),
    (
        "object address",
        "E   assert <till.Ticket object at 0x7f3a9c2e1d30> is None",
        "E   assert <till.Ticket object at 0x7f11aa2e1d40> is None",
    ),
    (
        "function address",
        "TypeError: <function split at 0x7f3a9c2e1d30> is not a ticket",
        "TypeError: <function split at 0x10f2b3c40> is not a ticket",
    ),
    (
        "set order under another hash seed",
        "E   AssertionError: assert {'oat', 'soy'} == {'oat'}",
        "E   AssertionError: assert {'soy', 'oat'} == {'oat'}",
    ),
    (
        "dict built from a set",
        "E   assert {'soy': 1, 'oat': 2} == {}",
        "E   assert {'oat': 2, 'soy': 1} == {}",
    ),
    (
        "frozenset order",
        "KeyError: frozenset({'milk', 'nuts'})",
        "KeyError: frozenset({'nuts', 'milk'})",
    ),
    (
        "failing line moved by an edit above it",
        "check_bill.py:21: in test_split\nE   assert 999 == 1000",
        "check_bill.py:23: in test_split\nE   assert 999 == 1000",
    ),
    (
        "traceback line moved, in another temporary copy",
        'File "/tmp/cafe-workbench-a1/till/bill.py", line 34, in split\nZeroDivisionError: division by zero',
        'File "/tmp/cafe-workbench-b2/till/bill.py", line 40, in split\nZeroDivisionError: division by zero',
    ),
    (
        "colour codes and line endings",
        "\x1b[31mE   assert 999 == 1000\x1b[0m\n",
        "E   assert 999 == 1000\r\n",
    ),
]

DIFFERENT = [
    (
        "two different missing files in /tmp",
        "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/config.json'",
        "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/data.csv'",
    ),
    (
        "two different files in one tmp_path",
        "FileNotFoundError: '/tmp/pytest-of-u/pytest-12/test_load0/config.json'",
        "FileNotFoundError: '/tmp/pytest-of-u/pytest-12/test_load0/data.csv'",
    ),
    (
        "same file name in different folders of the copy",
        "/tmp/cafe-workbench-ab12/till/bill.py:3: SyntaxError",
        "/tmp/cafe-workbench-ab12/kitchen/bill.py:3: SyntaxError",
    ),
    (
        "checksums",
        "E   AssertionError: checksum mismatch: 0xdeadbeef != 0x12345678",
        "E   AssertionError: checksum mismatch: 0xdeadbeef != 0xcafebabe",
    ),
    (
        "hex that only looks like an address",
        "E   assert expected format 0x7f3a9c2e1d30",
        "E   assert expected format 0x7f11aa2e1d40",
    ),
    (
        "'line N' inside assertion data",
        "E   AssertionError: expected 'line 3' in the receipt",
        "E   AssertionError: expected 'line 4' in the receipt",
    ),
    (
        "a duration that is the test's own data",
        "E   TimeoutError: till not ready in 5s",
        "E   TimeoutError: till not ready in 9s",
    ),
    ("different numbers in one assertion", "E   assert 999 == 1000", "E   assert 1002 == 1000"),
    ("different missing keys", "E   KeyError: 'oat'", "E   KeyError: 'soy'"),
    (
        "different exception types",
        "ZeroDivisionError: division by zero",
        "ValueError: division by zero",
    ),
    (
        "ports a test chose",
        "ConnectionError: http://127.0.0.1:8000/health refused the connection",
        "ConnectionError: http://127.0.0.1:8001/health refused the connection",
    ),
    (
        "different failing tests",
        "FAILED check_bill.py::test_split - assert 999 == 1000",
        "FAILED check_bill.py::test_total - assert 999 == 1000",
    ),
    (
        "sets with different members",
        "E   AssertionError: assert {'oat', 'soy'} == {'oat'}",
        "E   AssertionError: assert {'oat', 'rice'} == {'oat'}",
    ),
    (
        "different counts in the pytest summary",
        "1 failed, 3 passed in 0.02s",
        "2 failed, 2 passed in 0.02s",
    ),
    (
        "different unittest failure counts",
        "Ran 4 tests in 0.003s\n\nFAILED (failures=1)",
        "Ran 4 tests in 0.003s\n\nFAILED (failures=2)",
    ),
    (
        "bare dates are data",
        "E   assert date(2024, 5, 1) == date(2024, 5, 2): expected 2024-05-01",
        "E   assert date(2024, 5, 1) == date(2024, 5, 2): expected 2024-05-02",
    ),
    (
        "a configured timeout",
        "E   TimeoutError: no answer after 30 seconds",
        "E   TimeoutError: no answer after 60 seconds",
    ),
    (
        "lists keep their order",
        "E   assert ['oat', 'soy'] == ['soy', 'oat']",
        "E   assert ['soy', 'oat'] == ['soy', 'oat']",
    ),
]


@pytest.mark.parametrize(("label", "first", "second"), SAME, ids=[row[0] for row in SAME])
def test_signature_table_same_failure_with_noise_keeps_one_signature(label, first, second):
    assert failure_signature(result(first)) == failure_signature(result(second)), (
        normalize_evidence(first),
        normalize_evidence(second),
    )


@pytest.mark.parametrize(("label", "first", "second"), DIFFERENT, ids=[row[0] for row in DIFFERENT])
def test_signature_table_different_failures_never_share_one(label, first, second):
    assert failure_signature(result(first)) != failure_signature(result(second)), (
        normalize_evidence(first)
    )


@pytest.mark.parametrize(
    "port", [EPHEMERAL_PORT_FLOOR - 1, EPHEMERAL_PORT_FLOOR, 40000, 59999, 65535, 65536]
)
def test_port_rule_masks_exactly_the_ephemeral_range(port):
    masked = normalize_evidence(f"refused by 127.0.0.1:{port}") == "refused by 127.0.0.1:<port>"
    assert masked == (EPHEMERAL_PORT_FLOOR <= port <= 65535)


def test_signature_table_has_at_least_thirty_pairs():
    assert len(SAME) + len(DIFFERENT) >= 30 and len(SAME) >= 15 and len(DIFFERENT) >= 15


# --- speed: linear in the input ----------------------------------------------------------------

# Inputs built to make a careless pattern backtrack: long runs of the characters a rule scans.
HOSTILE = [
    "a.b\\c/",
    "x",
    "\n",
    "/tmp",
    "{'a', ",
    "1.1.",
    'File "',
    "pid ",
    "took 1",
    "E x\n",
    ".py:1",
    "\x1b[",
    "12:34:",
    " in 0.1s",
    "at 0x",
    "pytest-",
    "'a ",  # an opening quote that never closes, again and again
    "KeyError: ",
    " [ 5%]",
    "✓ a (",
    " ... ",
]


@pytest.mark.parametrize("unit", HOSTILE)
@pytest.mark.parametrize(
    "function", [normalize_evidence, failure_snippet], ids=["normalize", "snippet"]
)
def test_scanning_work_grows_linearly_with_the_input(function, unit):
    # 1,000 and 4,000 characters, counted in steps (tests/work.py); benchmarks/scan_speed.py
    # times 1 MB.
    def make(n):
        text = (unit * (n // len(unit) + 1))[:n]
        return lambda: function(text)

    assert grows_linearly(make, 1_000)
