"""Reading a shell command: does it check the work at all, and can its exit status be trusted?

Session 15 (run monitors). The verify-before-done gate sees the commands an agent runs, not what
they did. This module reads one command line the way the reference design does, with a few rules
of the course's own (each marked "Course choice" below and in the lesson's "Where the reference
differs" note):

- `split_segments(command)`: the pieces between `&`, `|`, `;` and newlines.
- `is_verification_command(command)`: a piece counts when one of its words, leading dashes
  stripped, is in `WORD_MARKERS` (`pytest`, `make`, `test`, `ruff`, ...), when two neighbouring
  words are in `PAIR_MARKERS` (`go test`), or when its command word is a path whose file name
  pieces name a marker (`./run-tests.sh`); by course choice, also when its runner, read as the
  tier reads it (`runner_call`: `.exe` dropped), is a marker (`pytest.exe -k split`, as
  `C:\\venv\\Scripts\\pytest.exe -k split`). A piece holding a word of `NON_VERIFY_WORDS`
  (`npm install`) never counts; nor, by course choice, does a piece whose command word only looks
  at or names things (`which pytest`, `cat test`, `git commit -m "fix the test"`: `NEVER_CHECKS`).
- `is_masked(command)`: the command's exit status may belong to something other than the check:
  a pipe (`pytest | tail`, `pytest || true`), a `;` or a newline with more after it (`pytest;
  echo done`), a lone `&` (`pytest &`), and by course choice a piece that starts with `!` (`!
  pytest` turns a failure into a success). A masked command that passed proves nothing.

Which runner a piece calls, and how thoroughly it runs it (the tiers), is next door in
`cafe/monitors/runners.py`; one tool result read as evidence is `cafe/monitors/tiers.py`, and
what the gate does with it is `cafe/monitors/gate.py`.

Lesson: sessions/s15-run-monitors/lesson.md. Notebook: notebooks/s15-run-monitors.ipynb.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType

__all__ = [
    "WORD_MARKERS",
    "PAIR_MARKERS",
    "NON_VERIFY_WORDS",
    "NEVER_CHECKS",
    "VERIFY_MARKERS",
    "split_segments",
    "command_words",
    "command_name",
    "Launcher",
    "WRAPPERS",
    "runner_call",
    "program_word",
    "is_verification_segment",
    "is_verification_command",
    "is_masked",
]

# --- constants: the reference's word lists --------------------------------------------------

# Words that make a piece of a command a verification, matched as whole words after stripping
# leading dashes (`--check` is `check`). The reference's list, word for word.
WORD_MARKERS: frozenset[str] = frozenset(
    {
        "test",
        "build",
        "check",
        "lint",
        "compile",
        "cargo",
        "npm",
        "pnpm",
        "yarn",
        "pytest",
        "unittest",
        "tox",
        "make",
        "gradle",
        "mvn",
        "ctest",
        "cmake",
        "rustc",
        "tsc",
        "jest",
        "vitest",
        "mocha",
        "clippy",
        "eslint",
        "golangci-lint",
        "prettier",
        "ruff",
        "flake8",
        "mypy",
        "shellcheck",
        "rubocop",
    }
)
# Two neighbouring words that verify though the first is no marker on its own (`go mod tidy`
# checks nothing): the reference's pairs.
PAIR_MARKERS: frozenset[tuple[str, str]] = frozenset({("go", "vet"), ("go", "run"), ("go", "test")})
# Words that make a piece something else however many markers it holds (`npm install`, `git
# checkout tests/`, `cargo add serde`): the reference's list.
NON_VERIFY_WORDS: frozenset[str] = frozenset({"checkout", "install", "add", "remove", "uninstall"})
# The name this module's first version gave the marker list; kept for readers of older notebooks.
VERIFY_MARKERS = WORD_MARKERS

# --- constants: the course's own rule -------------------------------------------------------

# Course choice (the reference counts any piece that names a marker): command words that only
# look at files, name a program or record history. A piece they start runs no check, whatever
# it mentions: `which pytest`, `pip show pytest`, `cat test`, `echo "now run make"`,
# `git commit -m "make the test pass"`. One command a line.
NEVER_CHECKS: frozenset[str] = frozenset(
    {
        "which",  # where a program is
        "type",
        "whereis",
        "command",  # `command -v pytest`: as which (`command pytest` would run it: rare)
        "man",  # how to use a program
        "info",
        "help",
        "apropos",
        "echo",  # text, not a run
        "printf",
        "cat",  # reading files
        "less",
        "more",
        "head",
        "tail",
        "grep",
        "rg",
        "ls",
        "find",
        "wc",
        "file",
        "stat",
        "tree",
        "cd",  # moving around and arranging files
        "mkdir",
        "touch",
        "cp",
        "mv",
        "rm",
        "sed",
        "pip",  # package managers: `pip show pytest` names a runner and runs nothing
        "pip3",
        "pipx",
        "git",  # history: `git commit -m "fix test"` is a commit, not a test run
    }
)


@dataclass(frozen=True)
class Launcher:
    """A command that starts another program, and how to find that program among its words."""

    name: str
    own: tuple[str, ...] = ()  # its own words first: `run` of `uv run`
    module_flag: str = ""  # the program is the word after this flag (`python -m pytest`)
    value_flags: frozenset[str] = frozenset()  # its flags whose value is the next word
    values: int = 0  # plain words it takes before the program (`timeout 60`)
    settings: bool = False  # it takes `NAME=value` words before the program (`env`)

    def program_at(self, args: Sequence[str]) -> int | None:
        """Where the program it starts sits in `args`, or None when it starts none."""
        if [a.lower() for a in args[: len(self.own)]] != list(self.own):
            return None
        i, plain = len(self.own), 0
        while i < len(args):
            word = args[i]
            if self.module_flag and word == self.module_flag:
                return i + 1 if i + 1 < len(args) else None
            if word.startswith("-"):
                i += 2 if word in self.value_flags else 1
            elif self.settings and "=" in word:
                i += 1
            elif plain < self.values:
                plain, i = plain + 1, i + 1
            else:
                return None if self.module_flag else i
        return None


# Course choice: a launcher is read as the program it starts, one rule for all of them (the
# reference reads the command word only, so it tiers `python -m pytest x.py` on `python`).
# Launchers nest: `timeout 60 uv run pytest` is pytest. `python3.12` reads as `python`.
WRAPPERS: tuple[Launcher, ...] = (
    Launcher("python", module_flag="-m", value_flags=frozenset({"-X", "-W"})),
    Launcher("py", module_flag="-m", value_flags=frozenset({"-X", "-W"})),
    Launcher("coverage", ("run",), "-m", frozenset({"--rcfile", "--source", "--data-file"})),
    Launcher("npx", value_flags=frozenset({"-p", "--package", "-c", "--call"})),
    Launcher("bunx", value_flags=frozenset({"-p", "--package"})),
    Launcher("uvx", value_flags=frozenset({"--from", "--with", "--python", "-p"})),
    Launcher("uv", ("run",), value_flags=frozenset({"--with", "--python", "-p", "--directory"})),
    Launcher("poetry", ("run",)),
    Launcher("pipenv", ("run",)),
    Launcher("pdm", ("run",)),
    Launcher("hatch", ("run",)),
    Launcher("env", value_flags=frozenset({"-u", "--unset", "-C", "--chdir"}), settings=True),
    Launcher("timeout", value_flags=frozenset({"-s", "--signal", "-k", "--kill-after"}), values=1),
)
_LAUNCHERS: Mapping[str, Launcher] = MappingProxyType({w.name: w for w in WRAPPERS})
# How many launchers deep a command is read (`env A=1 timeout 60 uv run pytest` is three).
_MAX_LAUNCHERS = 8

_PYTHON = re.compile(r"python[0-9.]*")
_SPLIT = re.compile(r"[&|;\n]")
_NAME_PIECES = re.compile(r"[-_.]")
# What a command word's file name may end in on Windows (`pytest.exe`); dropped before reading it.
_WINDOWS_SUFFIXES = (".exe", ".cmd", ".bat")


# --- small pure helpers: the words of one piece ---------------------------------------------


def split_segments(command: str) -> list[str]:
    """The pieces of a shell command between `&`, `|`, `;` and newlines, blanks dropped."""
    return [piece.strip() for piece in _SPLIT.split(command) if piece.strip()]


def command_words(segment: str) -> list[str]:
    """The words of one piece from its command word on: leading `VAR=value` words dropped (the
    reference drops every leading word holding `=`). Case is kept; flags such as `-V` and `-v`
    differ."""
    words = segment.split()
    while words and "=" in words[0]:
        words = words[1:]
    return words


def command_name(word: str) -> str:
    """A command word as the rules read it: its file's base name, lowercased (`./bin/Pytest` is
    `pytest`). Course choice, for Windows: `\\` separates folders too, and `.exe`, `.cmd` and
    `.bat` are dropped (`C:\\venv\\Scripts\\pytest.exe` is `pytest`)."""
    name = re.split(r"[/\\]", word)[-1].lower()
    for suffix in _WINDOWS_SUFFIXES:
        if name.endswith(suffix) and len(name) > len(suffix):
            return name[: -len(suffix)]
    return name


def _launched(segment: str) -> tuple[str, list[str]]:
    """(program word as written, its arguments): the command word, or what launchers start."""
    words = command_words(segment)
    if not words:
        return "", []
    word, args = words[0], words[1:]
    for _ in range(_MAX_LAUNCHERS):
        name = command_name(word)
        launcher = _LAUNCHERS.get("python" if _PYTHON.fullmatch(name) else name)
        at = launcher.program_at(args) if launcher is not None else None
        if at is None:
            break
        word, args = args[at], args[at + 1 :]
    return word, args


def runner_call(segment: str) -> tuple[str, list[str]]:
    """(runner name, its arguments) for one piece: the command word's name, or the program a
    launcher in `WRAPPERS` starts, through any number of launchers (`timeout 60 python -m
    pytest -q` is `("pytest", ["-q"])`)."""
    word, args = _launched(segment)
    return command_name(word), args


def program_word(segment: str) -> str:
    """The program one piece runs, as written (`./check.sh`, also behind `timeout 60`)."""
    return _launched(segment)[0]


def _script_names_a_marker(word: str) -> bool:
    """A path-shaped command word (`./run-tests.sh`, `scripts/lint.sh`) whose file name pieces
    hold a marker, singular or plural. Only the command word gets this reading: `ls tests/` and
    `cat tests/test_bill.py` check nothing."""
    if "/" not in word and "\\" not in word:
        return False
    pieces = _NAME_PIECES.split(re.split(r"[/\\]", word)[-1].lower())
    return any(p in WORD_MARKERS or (p.endswith("s") and p[:-1] in WORD_MARKERS) for p in pieces)


def is_verification_segment(segment: str) -> bool:
    """True when this one piece runs a check (the rule is in the module docstring)."""
    words = command_words(segment)
    runner = runner_call(segment)[0]
    if not words or runner in NEVER_CHECKS:
        return False
    lowered = [word.lower() for word in segment.split()]
    if any(word in NON_VERIFY_WORDS for word in lowered):
        return False
    if runner in WORD_MARKERS or any(word.lstrip("-") in WORD_MARKERS for word in lowered):
        return True  # `pytest.exe`: the runner by the name its tier reads
    if any(pair in PAIR_MARKERS for pair in zip(lowered, lowered[1:])):
        return True
    return _script_names_a_marker(program_word(segment))  # behind launchers too


# --- the two questions ------------------------------------------------------------------------


def is_verification_command(command: str) -> bool:
    """True when some piece of `command` runs a check (see the module docstring for the rule)."""
    if not isinstance(command, str):
        raise TypeError(
            f"command must be the command line as a string, not {type(command).__name__}."
        )
    return any(is_verification_segment(segment) for segment in split_segments(command))


def _negated(segment: str) -> bool:
    """Course choice: a piece starting with `!` inverts its status (`! pytest` passes when the
    tests fail)."""
    return segment == "!" or segment.startswith(("! ", "!\t"))


def is_masked(command: str) -> bool:
    """True when the command's exit status may not be the check's (the reference's rule): a pipe
    (`|` or `||`), a `;` or a newline with more after it (a `\\` before the newline continues the
    line instead), or a lone `&` (`&&` short-circuits, and `>&` as in `2>&1` redirects). By
    course choice, also a piece that starts with `!`."""
    if any(_negated(segment) for segment in split_segments(command)):
        return True
    i = 0
    while i < len(command):
        char = command[i]
        if char == "|":
            return True
        if char in ";\n":
            if char == "\n" and i > 0 and command[i - 1] == "\\":
                i += 1
                continue
            return bool(command[i + 1 :].strip())
        if char == "&":
            if command[i + 1 : i + 2] == "&":
                i += 2
                continue
            if i == 0 or command[i - 1] != ">":
                return True
        i += 1
    return False
