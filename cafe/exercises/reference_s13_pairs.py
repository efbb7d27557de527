"""The pairs of test output `check_signature` (`cafe.exercises.s13`) holds a learner's signature
to: the hand-picked ones first (`SIGNATURE_PAIRS`, the notebook's teaching examples), then one
failure seen twice with the run-to-run noise between the sightings drawn across its whole range
(`noise_pairs`), which must get one signature.

The notebook's exercise names the noise: the failure "moved two lines, ran slower, ran in another
temporary folder, in colour, on another test worker, with an object at another address" (and was
logged later: `reference_s13.logged_pairs`). The lesson says why each is noise: pytest numbers its
temporary base folder per session, an edit above the failing line shifts its number, runners
number their workers in the order they start, an object lands at a new address. Each pair here
changes one kind, and draws it the way real runs do, not only as the notebook's examples show it:

- a location moves to any line, one digit or four, and so does a traceback's `line 34`;
- a run takes any time under a minute, `in 9.80s` or `in 12.50s`, whatever the summary counts;
- the temporary folder is any run's own folder under the temp root (pytest's `pytest-of-ana/
  pytest-12`, `tempfile`'s `tmpk3j4h5g6`, the workbench's `cafe-workbench-ab12`), on Linux's
  `/tmp` or macOS's `/var/folders/.../T`, the file below it kept;
- a worker is any `gw` number, an address any length of hex after `at 0x`, in either case;
- colour is any of the codes pytest writes, on any of the lines.

A runner's duration over a minute (`in 75.20s (0:01:15)`) and Windows' temp root are left out:
the lesson shows neither. Two failures the lesson tells apart are `reference_s13.different_failures`.
Like the other references, this module imports nothing from `cafe`.
"""

from __future__ import annotations

from typing import Any

__all__ = ["SIGNATURE_PAIRS", "noise_pairs"]

# Pairs of test output for `check_signature`: (what the pair is, first, second, same failure?).
# Written for this course from pytest's and Python's own output shapes.
SIGNATURE_PAIRS: tuple[tuple[str, str, str, bool], ...] = (
    (
        "the failing line moved down two lines",
        "check_bill.py:21: in test_split\nE   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        "check_bill.py:23: in test_split\nE   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        True,
    ),
    (
        "the same run, a little slower",
        "E   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        "E   assert 999 == 1000\n1 failed, 3 passed in 0.31s",
        True,
    ),
    (
        "the same run in another temporary folder",
        "/tmp/pytest-of-ana/pytest-12/till/check_bill.py:21: AssertionError\nE   assert 999 == 1000",
        "/tmp/pytest-of-ana/pytest-13/till/check_bill.py:21: AssertionError\nE   assert 999 == 1000",
        True,
    ),
    (
        "a different wrong total",
        "check_bill.py:21: in test_split\nE   assert 999 == 1000\n1 failed, 3 passed in 0.02s",
        "check_bill.py:21: in test_split\nE   assert 1002 == 1000\n1 failed, 3 passed in 0.02s",
        False,
    ),
    (
        "a different missing file in the temporary folder",
        "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/pytest-of-ana/pytest-12/config.json'",
        "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/pytest-of-ana/pytest-12/data.csv'",
        False,
    ),
    (
        "a different test failing",
        "FAILED check_bill.py::test_split - assert 999 == 1000",
        "FAILED check_bill.py::test_tip - assert 999 == 1000",
        False,
    ),
    (
        "a different wrong total in the short summary",
        "FAILED check_bill.py::test_split - assert 999 == 1000",
        "FAILED check_bill.py::test_split - assert 1002 == 1000",
        False,
    ),
    (
        "the same object at another address",
        "E   AssertionError: <bill.Bill object at 0x7f3a2c1d9e50> has no tip",
        "E   AssertionError: <bill.Bill object at 0x7f9b11e04c10> has no tip",
        True,
    ),
    (
        "the same failure logged a few seconds later",
        "2026-11-30 12:00:01,204 ERROR total 999 != 1000",
        "2026-11-30 12:00:07,881 ERROR total 999 != 1000",
        True,
    ),
    (
        "the same failure, in colour and plain",
        "\x1b[31mE   assert 999 == 1000\x1b[0m\n1 failed in 0.02s",
        "E   assert 999 == 1000\n1 failed in 0.02s",
        True,
    ),
    (
        "the same error on another test worker",
        "ERROR [gw0] check_bill.py::test_tip - KeyError: 'tip'",
        "ERROR [gw1] check_bill.py::test_tip - KeyError: 'tip'",
        True,
    ),
    (
        "a different call in the failing assertion",
        "E   assert split(1000, 3) == [334, 333, 333]",
        "E   assert split(1000, 4) == [250, 250, 250, 250]",
        False,
    ),
)

# The colour codes pytest writes (red, green, yellow, bold, bold red, reset).
_COLOURS = ("\x1b[31m", "\x1b[32m", "\x1b[33m", "\x1b[1m", "\x1b[1;31m")
_RESET = "\x1b[0m"
# What `tempfile` draws a folder's name from (`tempfile._RandomNameSequence`).
_TEMPFILE_CHARS = "abcdefghijklmnopqrstuvwxyz0123456789_"
# The temp roots: Linux's, and macOS's per-user folder (also reached through /private).
_ROOTS = ("/tmp", "/var/folders/h3/k2j4x7q/T", "/private/var/folders/h3/k2j4x7q/T")
# pytest's summary before its duration: what ran, however many.
_COUNTS = ("1 failed", "1 failed, 3 passed", "2 failed, 1 passed, 1 error", "1 failed, 12 passed")


def _labelled(kind: str, first: str, second: str) -> tuple[str, str, str]:
    """(first run, second run, the label a problem shows): the first line where they differ."""
    lines = zip(first.splitlines(), second.splitlines(), strict=False)
    one, other = next((pair for pair in lines if pair[0] != pair[1]), (first, second))
    return first, second, f"one failure, {kind}: {one.strip()!r} and {other.strip()!r}"


def _failed(total: int, where: str = "check_bill.py:21", took: str = "1 failed in 0.02s") -> str:
    """A red pytest run: the failing line's location, its E line, the summary."""
    return f"{where}: AssertionError\nE       assert {total} == 1000\n{took}"


def _moved(total: int, lines: tuple[int, int]) -> tuple[str, str, str]:
    runs = (_failed(total, f"check_bill.py:{line}") for line in lines)
    return _labelled("moved to another line", *runs)


def _traceback(frames: tuple[tuple[int, int], tuple[int, int]]) -> tuple[str, str, str]:
    """A Python traceback through the test and the code under test, each frame's line moved."""

    def run(test_line: int, code_line: int) -> str:
        return (
            "Traceback (most recent call last):\n"
            f'  File "/home/ana/till/check_bill.py", line {test_line}, in test_split\n'
            "    shares = split(1000, 0)\n"
            f'  File "/home/ana/till/bill.py", line {code_line}, in split\n'
            "    return [total // people] * people\n"
            "ZeroDivisionError: integer division or modulo by zero"
        )

    return _labelled("moved, in a traceback", run(*frames[0]), run(*frames[1]))


def _slower(total: int, counts: str, cents: tuple[int, int]) -> tuple[str, str, str]:
    runs = (_failed(total, took=f"{counts} in {c // 100}.{c % 100:02d}s") for c in cents)
    return _labelled("ran slower", *runs)


def _folder(root: str, shape: str, names: tuple[str, str]) -> tuple[str, str, str]:
    """The run's own folder under one temp root, named anew; the path below it kept."""
    runs = (
        f"{root}/{shape.format(name)}/till/check_bill.py:21: AssertionError\n"
        "E       assert 999 == 1000\n1 failed in 0.02s"
        for name in names
    )
    return _labelled("ran in another temporary folder", *runs)


def _worker(total: int, workers: tuple[int, int]) -> tuple[str, str, str]:
    runs = (
        f"{'_' * 12} test_tip {'_' * 12}\n[gw{n}] linux -- Python 3.11.4 /usr/bin/python3\n"
        f"E       KeyError: 'tip {total}'\nFAILED check_bill.py::test_tip - KeyError: 'tip {total}'"
        for n in workers
    )
    return _labelled("on another test worker", *runs)


def _address(shape: str, addresses: tuple[int, int]) -> tuple[str, str, str]:
    runs = (
        f"E       AssertionError: <bill.Bill object at 0x{shape.format(at)}> has no tip\n"
        "1 failed in 0.02s"
        for at in addresses
    )
    return _labelled("an object at another address", *runs)


def _colour(total: int, codes: list[str | None]) -> tuple[str, str, str]:
    """The run in colour (each line's code, or none), and plain."""
    plain = _failed(total).splitlines()
    painted = [line if code is None else code + line + _RESET for line, code in zip(plain, codes)]
    return _labelled("in colour and plain", "\n".join(painted), "\n".join(plain))


def _two(values: Any) -> Any:
    """Two different values from one strategy: the two sightings' noise."""
    from hypothesis import strategies as st

    return st.tuples(values, values).filter(lambda pair: pair[0] != pair[1])


def noise_pairs() -> Any:
    """(first run, second run, label): one failure seen twice, one kind of noise changed (see the
    module's docstring); the wrong total, alike in both runs, of any length."""
    from hypothesis import strategies as st

    total = st.integers(0, 10**6)
    line = st.integers(1, 9999)
    roots = st.sampled_from(_ROOTS)
    numbered = _two(st.integers(0, 9999).map(str))  # pytest's numbered base folder
    named = _two(st.text(_TEMPFILE_CHARS, min_size=4, max_size=8))  # tempfile's, the workbench's
    # an address as Linux and macOS print it, or as Windows does (16 upper-case digits)
    address = st.builds(
        _address, st.sampled_from(("{:x}", "{:016X}")), _two(st.integers(2**28, 2**48 - 1))
    )
    colours = st.lists(st.sampled_from((None, *_COLOURS)), min_size=3, max_size=3).filter(any)
    return st.one_of(
        st.builds(_moved, total, _two(line)),
        st.builds(_traceback, _two(st.tuples(line, line))),
        st.builds(_slower, total, st.sampled_from(_COUNTS), _two(st.integers(0, 5999))),
        st.builds(_folder, roots, st.just("pytest-of-ana/pytest-{}"), numbered),
        st.builds(_folder, roots, st.sampled_from(("tmp{}", "cafe-workbench-{}")), named),
        st.builds(_worker, total, _two(st.integers(0, 63))),
        address,
        st.builds(_colour, total, colours),
    )
