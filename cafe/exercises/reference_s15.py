"""Session 15's references, written apart from `cafe.monitors`: commands built with their tier,
and the restore gate, with the inputs to try them on.

`check_verification_tier` (`cafe.exercises.s15`) hands the learner's `my_tier` commands drawn by
`labelled_commands`: each is built piece by piece from commands whose tier the lesson's rules
settle (a linter, a narrowed or whole-suite runner, a command that checks nothing), with stray
spaces, `VAR=value` prefixes, launchers (`python -m` by any python, `timeout 60`, `env`),
command words given by their path (`.venv/bin/pytest`) and options whose value looks like a test
id or a file (`-W error::UserWarning`), a looking command word (`cat`, `which`, `grep`, `git`)
before marker words (`git bisect run make`: None), chained with `&&`, `||`, `;` or a newline. The
expected answer is worked out as the command is built (a chain as slow as its slowest verifying
piece), so no classifier stands behind it. `check_can_restore` compares `my_can_restore` with
`restorable` on `restore_cases`. `tests/test_exercise_references.py` holds both to the library.

This module imports nothing from `cafe` (only `cafe.exercises.sNN` may): `ABSENT` and `AT_HEAD`
are passed in to build the generated fingerprints.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = [
    "FAST",
    "SLOW",
    "QUIET",
    "LOOKING",
    "MARKERS",
    "chain_tier",
    "labelled_commands",
    "looking_commands",
    "every_piece",
    "restorable",
    "restore_cases",
]

# Pieces whose tier the lesson's rules settle, "{name}" filled with a test name and "{py}" with a
# .py file. Linters, type checkers, go vet and narrowed runs (-k, -m, ::, a .py file, a cargo or
# go test name) are fast; a flag is the same flag with its value attached, as the runner reads it
# (pytest's `-ksplit`, go's `-run=TestSplit`)...
FAST: tuple[str, ...] = (
    "ruff check .",
    "ruff check {py}",
    "ruff format --diff {py}",  # ruff is a marker by itself: no `check` word to lean on
    "mypy --strict cafe",
    "flake8 {py}",
    "tsc --noEmit",
    "go vet ./...",
    "pytest -k {name}",
    "pytest -k{name}",
    "pytest -q -m smoke",
    "pytest -msmoke",
    "pytest {py}",
    "pytest -x {py}::test_{name}",
    # an option's value is no test id and no file to run, whatever it looks like (`-p till`)...
    "pytest -W error::UserWarning -k {name}",
    "pytest -o python_files=check_*.py {py}",
    "cargo test {name}",
    "cargo test -p till {name}",
    "go test -run {name} ./...",
    "go test -run={name} ./...",
    # a flag after `--` (go's `-args`) goes to the test binary: the name before it decides
    "cargo test {name} -- --nocapture",
    "cargo test -p till {name} -- --test-threads=1",
    "go test -run {name} ./... -args -v",
)
# ...the whole suite, make and unknown test scripts are slow (-x and -q do not narrow, a folder
# is not one test, -p names a package)...
SLOW: tuple[str, ...] = (
    "pytest",
    "pytest -q",
    "pytest -x tests",
    "pytest tests/",
    # ...so it narrows nothing: a warning filter, an ini setting, a plugin
    "pytest -W error::UserWarning",
    "pytest -q -o python_files=check_*.py",
    "pytest -p no:randomly tests/",
    "cargo test",
    "cargo test -p till",
    # ...a flag after `--` (or go's `-args`) is for the test binary, not a test name...
    "cargo test -- --nocapture",
    "cargo test -- --test-threads=1",
    "cargo test -p till -- --nocapture",
    "npm test -- --coverage",
    "go test ./... -args -v",
    "tidy --check {py}",  # its one marker behind dashes: it verifies, and tidy is nobody's linter
    "go test ./...",
    "npm test",
    "make",
    "make check",
    "make {name}",
    "./run-tests.sh",
)
# ...and these check nothing: installs, git, looking at files, moving about, running a program.
QUIET: tuple[str, ...] = (
    "pip install pytest",
    "npm install",
    "git add {py}",
    "git checkout {py}",
    "cat {py}",
    "cat check_bill.py",
    "grep -r pytest .",
    "which pytest",
    "ls -la",
    "cd till",
    "echo done",
    "echo testing",
    "python {py}",
    "./deploy-latest.sh",  # name pieces deploy, latest: "test" inside a piece is no marker
    "./contest.sh",
)
# ...and a command word that only looks or names (the notebook's `cat`, `which`, `grep`, `git`)
# never verifies, whatever marker words follow it unquoted: `git bisect run make` is git's.
LOOKING: tuple[str, ...] = (
    "cat {marker}",
    "cat {py} {marker}",
    "which {marker}",
    "which -a {marker} {marker}",
    "grep -r {marker} .",
    "grep -n {marker} {py}",
    "git log --grep {marker}",
    "git commit -m fix {marker}",
    "git bisect run {marker}",
    "git diff --{marker}",
    "git stash push -m {marker} {py}",
)
# Marker words the lesson names, each a verifying piece's whole word when it leads one.
MARKERS = ("pytest", "make", "test", "check", "lint", "ruff", "mypy", "cargo", "tox", "npm")
_NAMES = ("split", "tip", "total", "bill_adds_up", "Rounding")
_FILES = ("bill.py", "tests/test_bill.py", "src/till/bill.py")
_PREFIXES = ("", "", "", "CI=1 ", "PYTHONPATH=. ", "A=1 B=2 ")
_SEPARATORS = (" && ", " || ", " ; ", ";", " & ", "\n")
# Launchers a verifying piece may start with: a launcher reads as what it starts (the lesson's
# `WRAPPERS`: `timeout 60 pytest` is pytest; `env` runs what follows it, settings and all).
_LAUNCHERS = ("", "", "", "timeout 60 ", "env ", "env CI=1 ")
# The pythons that may start pytest as a module: `python -m pytest` is pytest, whichever python
# it is (a version, a venv's, the system's by its path).
_PYTHONS = ("python", "python3", "python3.12", ".venv/bin/python", "/usr/bin/python3")
# Folders a program may be run from by its path: a command word is read by its file name, as
# `./run-tests.sh` is (`.venv/bin/pytest` is pytest, `/usr/local/bin/cat` is cat).
_FOLDERS = ("", "", "", ".venv/bin/", "/usr/local/bin/")
# Command words never given a folder: `cd` is the shell's own, a script starting `./` has its
# path already, and `go`'s pairs (`go vet`) are two words as written: `cafe.monitors.commands`
# does not read `/usr/local/bin/go vet` as the pair, and the lesson does not say it must.
_NO_FOLDER = frozenset({"cd", "go"})


def chain_tier(tiers: Any) -> str | None:
    """A chain's tier from its pieces' (None for a piece that checks nothing): the slowest."""
    verifying = [t for t in tiers if t is not None]
    if not verifying:
        return None
    return "slow" if "slow" in verifying else "fast"


def _piece(
    template: str,
    tier: str | None,
    name: str,
    py: str,
    prefix: str,
    python: str,
    gap: str,
    launcher: str,
    folder: str,
) -> Any:
    text = template.format(name=name, py=py)
    if python and tier is not None and text.startswith("pytest"):
        text = f"{python} -m {text}"  # python -m pytest is pytest, whichever python
    elif text.split()[0] not in _NO_FOLDER and not text.startswith("./"):
        text = folder + text  # .venv/bin/pytest is pytest
    if tier is not None:
        text = launcher + text
    return (prefix + gap.join(text.split()), tier)


def _looking(template: str, marker: str) -> tuple[str, None]:
    return template.replace("{marker}", marker), None


def _pieces() -> Any:
    from hypothesis import strategies as st

    template = st.one_of(
        st.sampled_from(FAST).map(lambda t: (t, "fast")),
        st.sampled_from(SLOW).map(lambda t: (t, "slow")),
        st.sampled_from(QUIET).map(lambda t: (t, None)),
    )
    return st.builds(
        lambda pair, *rest: _piece(pair[0], pair[1], *rest),
        template,
        st.sampled_from(_NAMES),
        st.sampled_from(_FILES),
        st.sampled_from(_PREFIXES),
        st.one_of(st.just(""), st.sampled_from(_PYTHONS)),
        st.sampled_from((" ", "  ")),
        st.sampled_from(_LAUNCHERS),
        st.sampled_from(_FOLDERS),
    )


def _joined(pieces: list[tuple[str, str | None]], separators: list[str]) -> tuple[str, Any]:
    text = pieces[0][0]
    for (piece, _), separator in zip(pieces[1:], separators, strict=False):
        text += separator + piece
    return text, chain_tier(tier for _, tier in pieces)


def looking_commands() -> Any:
    """(command, its tier): a looking piece (a `LOOKING` command word before a marker word,
    unquoted, with prefixes, stray spaces and folders as any piece) chained anywhere among none
    to two pieces of any kind: it never verifies, so the chain's tier is the others'."""
    from hypothesis import strategies as st

    looking = st.builds(
        lambda pair, *rest: _piece(pair[0], None, *rest),
        st.builds(_looking, st.sampled_from(LOOKING), st.sampled_from(MARKERS)),
        st.sampled_from(_NAMES),
        st.sampled_from(_FILES),
        st.sampled_from(_PREFIXES),
        st.just(""),
        st.sampled_from((" ", "  ")),
        st.just(""),
        st.sampled_from(_FOLDERS),
    )
    chain = st.tuples(looking, st.lists(_pieces(), max_size=2), st.integers(0, 2))
    return st.builds(
        lambda c, separators: _joined([*c[1][: c[2]], c[0], *c[1][c[2] :]], separators),
        chain,
        st.lists(st.sampled_from(_SEPARATORS), min_size=2, max_size=2),
    )


def every_piece() -> tuple[tuple[str, str | None], ...]:
    """Each piece the rules settle, alone, with a test name and a file filled in: the generated
    chains may not draw every one of them on its own, and a rule can hang on one piece alone."""
    tiers = ((FAST, "fast"), (SLOW, "slow"), (QUIET, None))
    looking = tuple(_looking(t, m) for t in LOOKING for m in MARKERS)
    return tuple(
        (template.format(name=_NAMES[0], py=_FILES[0]), tier)
        for templates, tier in (*tiers, (tuple(t for t, _ in looking), None))
        for template in templates
    )


def labelled_commands() -> Any:
    """(command, its tier): chains of one to three pieces, the tier worked out while building."""
    from hypothesis import strategies as st

    return st.builds(
        _joined,
        st.lists(_pieces(), min_size=1, max_size=3),
        st.lists(st.sampled_from(_SEPARATORS), min_size=2, max_size=2),
    )


def restorable(at_green: Any, at_abort: Any, captured: Mapping[str, str], at_head: str) -> bool:
    """Every path whose content differs between the two samples (a path a sample leaves out is
    as at HEAD) has a capture equal to its content at green; no sample at either end: False."""
    if at_green is None or at_abort is None:
        return False
    for path in {*at_green, *at_abort}:
        then, now = at_green.get(path, at_head), at_abort.get(path, at_head)
        if then != now and captured.get(path) != then:
            return False
    return True


_PATHS = ("bill.py", "check_bill.py", "pytest.ini", "notes.txt")


def _case(green: Any, abort: Any, picks: tuple[int, ...], absent: str, at_head: str) -> Any:
    """One case: for each path, a capture picked from nothing, the green content, the abort's,
    ABSENT, AT_HEAD or another hash (picked by index, so a shrunk case captures nothing)."""
    captured = {}
    for path, pick in zip(_PATHS, picks, strict=True):
        options = (None, (green or {}).get(path, at_head), (abort or {}).get(path, at_head))
        held = (*options, absent, at_head, "b0")[pick]
        if held is not None:
            captured[path] = held
    return green, abort, captured


def restore_cases(absent: str, at_head: str) -> Any:
    """(at_green, at_abort, captured): samples of three paths (or None: no sample), and captures
    of four that hold the green content, the abort's, ABSENT, AT_HEAD or another hash."""
    from hypothesis import strategies as st

    sample = st.dictionaries(st.sampled_from(_PATHS[:3]), st.sampled_from(("b1", "b2", absent)))
    maybe = st.one_of(sample, st.none())
    picks = st.tuples(*[st.integers(0, 5)] * len(_PATHS))
    return st.builds(lambda g, a, p: _case(g, a, p, absent, at_head), maybe, maybe, picks)
