"""Session 15's banks: `check_verification_tier` and `check_can_restore` (cafe/exercises/s15.py).

The exercise ideas: a command's tier is read from the command itself, piece by piece (split on
`&`, `|`, `;` and newlines, leading `VAR=value` words dropped): a piece verifies when it holds a
marker as a whole word and no non-verify word, and a looking command (`cat`, `grep`, `git`)
never does; linters are fast, pytest is fast only when narrowed, a chain is as slow as its
slowest verifying piece. The restore gate says yes only when every path that changed between
green and the abort, either way, can be put back to exactly what it held at green.
"""

from __future__ import annotations

import re
from typing import Any

from banks.harness import Bank, Entry
from cafe.exercises.s15 import TIER_TABLE, check_can_restore, check_verification_tier
from cafe.monitors.runners import verification_tier
from cafe.monitors.snapshots import ABSENT, AT_HEAD, can_restore
from cafe.monitors.tiers import is_verification_command

# --- my_tier: the learner-shaped reference ------------------------------------------------------


def launched(words: list[str]) -> list[str]:
    """The words of a piece from the command a launcher starts: leading VAR=value words, `env`
    (and its settings), `timeout` and its duration, `python -m` by any python, as many as there
    are; the command word then read by its file name (`.venv/bin/pytest` is pytest)."""
    while words:
        if re.match(r"^\w+=", words[0]) or words[0] == "env":
            words = words[1:]
        elif words[0] == "timeout" and len(words) > 1:
            words = words[2:]
        elif re.fullmatch(r"python[\d.]*", words[0].split("/")[-1]) and words[1:2] == ["-m"]:
            words = words[2:]
        else:
            return [words[0].split("/")[-1], *words[1:]]
    return words


# pytest's options that take the next word as their value: a value is no test and no file.
PYTEST_VALUES = {"-W", "-o", "-p", "-c"}


def tier_by_rules(command: str) -> str | None:
    """The notebook's rules, one piece of the command at a time."""
    markers = {"test", "tests", "pytest", "make", "ruff", "mypy", "tsc", "vet", "flake8", "check"}
    non_verify = {"install", "checkout", "add", "uninstall"}
    looks = {"cat", "which", "grep", "git"}
    always_fast = {"ruff", "mypy", "tsc", "flake8", "vet"}
    tiers = []
    for piece in re.split(r"[&|;\n]", command):
        words = launched(piece.split())
        names = [w.lstrip("-").lower() for w in words]
        if not words or names[0] in looks or set(names) & non_verify:
            continue
        script = re.split(r"[-_./]", names[0])
        if not (set(names) & markers or set(script) & markers):
            continue
        if set(names) & always_fast:
            tiers.append("fast")
        elif names[0] == "pytest":
            narrowed = any(
                w.startswith(("-k", "-m")) or ("::" in w or w.endswith(".py"))
                for i, w in enumerate(words)
                if words[i - 1] not in PYTEST_VALUES
            )
            tiers.append("fast" if narrowed else "slow")
        elif names[:2] == ["cargo", "test"]:
            rest = words[2:]
            named = [
                w
                for i, w in enumerate(rest)
                if not w.startswith("-") and (i == 0 or rest[i - 1] != "-p")
            ]
            tiers.append("fast" if named else "slow")
        elif names[:2] == ["go", "test"]:
            tiers.append("fast" if any(w.split("=")[0] == "-run" for w in words) else "slow")
        else:
            tiers.append("slow")
    if not tiers:
        return None
    return "slow" if "slow" in tiers else "fast"


# --- my_tier: wrong -------------------------------------------------------------------------

_ANSWERS = {command: expected for command, expected, _ in TIER_TABLE}


def table_lookup(command: str) -> str | None:
    """The course's table passed through: the visible answers looked up, the rest guessed."""
    return _ANSWERS.get(command, "slow" if "test" in command else None)


def course_tier(command: str) -> str | None:
    """The course's answer, as the library gives it."""
    return verification_tier(command) if is_verification_command(command) else None


def split_on_and_only(command: str) -> str | None:
    """'&&' is the only chain it knows: ';', '|' and newlines are read as part of one piece."""
    pieces = [re.sub(r"[;|\n]", " ", piece) for piece in command.split("&&")]
    found = [t for t in (tier_by_rules(piece) for piece in pieces) if t]
    return None if not found else ("slow" if "slow" in found else "fast")


def any_argument_narrows(command: str) -> str | None:
    """pytest with any argument at all counts as narrowed."""
    found = course_tier(command)
    if (
        found == "slow"
        and re.search(r"\bpytest \S", command)
        and "&" not in command
        and ";" not in command
    ):
        return "fast"
    return found


def fastest_piece_wins(command: str) -> str | None:
    """A chain is as fast as its fastest piece."""
    tiers = [course_tier(piece) for piece in re.split(r"[&|;\n]", command) if piece.strip()]
    found = [t for t in tiers if t]
    return None if not found else ("fast" if "fast" in found else "slow")


def pytest_always_slow(command: str) -> str | None:
    """pytest is slow whatever narrows it."""
    found = course_tier(command)
    return "slow" if found and "pytest" in command else found


def check_substring(command: str) -> str | None:
    """'check' anywhere in the text makes a fast check, a file name too."""
    return "fast" if "check" in command else course_tier(command)


def marker_substring(command: str) -> str | None:
    """A marker inside a longer word counts: 'testing' reads as 'test'."""
    if "test" in command and course_tier(command) is None and "install" not in command:
        return "slow"
    return course_tier(command)


def non_verify_ignored(command: str) -> str | None:
    """Forgets the non-verify words: installing pytest reads as running it."""
    if re.search(r"\b(install|uninstall|add)\b", command) and "pytest" in command:
        return "slow"
    return course_tier(command)


def launcher_unread(command: str) -> str | None:
    """python -m pytest is not read as pytest: unknown, so slow."""
    return "slow" if command.startswith("python -m") else course_tier(command)


def one_prefix_only(command: str) -> str | None:
    """Drops one leading VAR=value word, not all of them: 'A=1 B=2 pytest' is not read."""
    pieces = re.split(r"[&|;\n]", command)
    kept = [re.sub(r"^\s*\w+=\S*\s+", "", piece, count=1) for piece in pieces]
    found = (
        [t for t in (tier_by_rules(piece) for piece in kept if "=" not in piece.split()[0]) if t]
        if all(p.split() for p in kept)
        else []
    )
    return None if not found else ("slow" if "slow" in found else "fast")


def single_spaces(command: str) -> str | None:
    """Strips the launcher as the text 'python -m ' with single spaces: with a doubled space,
    python stays the command word, unknown, so slow."""
    return tier_by_rules(command.replace("python -m ", "").replace("python", "cpython"))


def fast_or_slow_only(command: str) -> str:
    """Never None: a command that checks nothing is called slow."""
    return course_tier(command) or "slow"


# --- my_tier: right -------------------------------------------------------------------------


def library_pieces(command: str) -> str | None:
    """The course's rules applied piece by piece through the library's own pieces."""
    from cafe.monitors.commands import split_segments
    from cafe.monitors.runners import segment_tier
    from cafe.monitors.tiers import is_verification_command as verifies

    tiers = [segment_tier(piece) for piece in split_segments(command) if verifies(piece)]
    return None if not tiers else max(tiers, key=("fast", "slow").index)


_LOOKS = {"cat", "grep", "which", "git"}
_NON_VERIFY = {"install", "uninstall", "add", "remove", "checkout"}
_LINTERS = {"ruff", "mypy", "flake8", "tsc"}


def _piece_tier(words: list[str]) -> str | None:
    lowered = [w.lower() for w in words]
    if not lowered or lowered[0] in _LOOKS or _NON_VERIFY & set(lowered):
        return None
    prog, rest = lowered[0], lowered[1:]
    if prog in _LINTERS or rest[:1] == ["vet"] and prog == "go":
        return "fast"
    if prog == "pytest":
        values = {i + 1 for i, w in enumerate(rest) if w in ("-w", "-o", "-p", "-c")}  # lowered
        narrow = any(
            w[:2] in ("-k", "-m") or "::" in w or w.endswith(".py")
            for i, w in enumerate(rest)
            if i not in values
        )
        return "fast" if narrow else "slow"
    if prog in ("cargo", "go") and rest[:1] == ["test"]:
        if prog == "go":
            return "fast" if any(w.split("=")[0] == "-run" for w in rest) else "slow"
        names = [w for i, w in enumerate(rest[1:]) if w[0] != "-" and rest[i] != "-p"]
        return "fast" if names else "slow"
    if prog in ("make", "npm") or {"test", "tests", "pytest", "check"} & {
        w.lstrip("-") for w in lowered
    }:
        return "slow"
    return "slow" if re.search(r"(^|[-_./])tests?([-_./]|$)", prog) else None


def right_dispatch(command: str) -> str | None:
    """A dispatch on the command word per piece, the tiers ranked by a dict."""
    rank = {None: 0, "fast": 1, "slow": 2}
    best: str | None = None
    for piece in re.split(r"[;&|\n]", command):
        tier = _piece_tier(launched(piece.split()))
        best = tier if rank[tier] > rank[best] else best
    return best


# --- my_can_restore: wrong ------------------------------------------------------------------


def abort_paths_only(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """Walks what differs at the abort, and misses a path that went back to HEAD."""
    if at_green is None or at_abort is None:
        return False
    changed = [p for p in at_abort if at_abort[p] != at_green.get(p, AT_HEAD)]
    return all(captured.get(p) == at_green.get(p, AT_HEAD) for p in changed)


def captured_only(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """Trusts the captures and never looks at what changed."""
    if at_green is None or at_abort is None:
        return False
    return all(captured.get(p) == at_green.get(p, AT_HEAD) for p in captured)


def missing_means_absent(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """Reads a path missing from a fingerprint as a deleted file, not as HEAD's version."""
    if at_green is None or at_abort is None:
        return False
    paths = {
        p for p in {*at_green, *at_abort} if at_green.get(p, ABSENT) != at_abort.get(p, ABSENT)
    }
    return all(captured.get(p) == at_green.get(p, ABSENT) for p in paths)


def exact_capture_set(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """Wants a capture for the changed paths and no others."""
    if at_green is None or at_abort is None:
        return False
    changed = {
        p for p in {*at_green, *at_abort} if at_green.get(p, AT_HEAD) != at_abort.get(p, AT_HEAD)
    }
    return set(captured) == changed and all(
        captured[p] == at_green.get(p, AT_HEAD) for p in changed
    )


def captured_at_all(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """A capture exists for every changed path; what it holds is never compared."""
    if at_green is None or at_abort is None:
        return False
    changed = {
        p for p in {*at_green, *at_abort} if at_green.get(p, AT_HEAD) != at_abort.get(p, AT_HEAD)
    }
    return all(p in captured for p in changed)


def empty_is_none(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """'if not at_green': a clean tree read as no sample at all."""
    if not at_green or not at_abort:
        return False
    return can_restore(at_green, at_abort, captured)


def none_is_empty(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """A missing sample read as a clean tree: nothing proven, yet a yes."""
    return can_restore(at_green or {}, at_abort or {}, captured)


# --- my_can_restore: right ------------------------------------------------------------------


def head_capture_always_ok(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """Takes a capture of HEAD's version as good enough, whatever the path held at green."""
    if at_green is None or at_abort is None:
        return False
    for path in {*at_green, *at_abort}:
        then, now = at_green.get(path, AT_HEAD), at_abort.get(path, AT_HEAD)
        if then != now and captured.get(path) not in (then, AT_HEAD):
            return False
    return True


def green_paths_only(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """Walks only the paths the green sample names: a file changed since green is missed."""
    if at_green is None or at_abort is None:
        return False
    return all(
        captured.get(p) == held for p, held in at_green.items() if at_abort.get(p, AT_HEAD) != held
    )


def right_sets(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """Set algebra: the moved paths are a subset of those captured at their green content."""
    if at_green is None or at_abort is None:
        return False
    paths = set(at_green) | set(at_abort)
    moved = {p for p in paths if at_green.get(p, AT_HEAD) != at_abort.get(p, AT_HEAD)}
    return moved <= {p for p, held in captured.items() if held == at_green.get(p, AT_HEAD)}


def right_loop(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """One loop over every path either side names, returning at the first that cannot go back."""
    if None in (at_green, at_abort):
        return False
    for path in {**at_green, **at_abort}:
        then, now = at_green.get(path, AT_HEAD), at_abort.get(path, AT_HEAD)
        if then != now and captured.get(path) != then:
            return False
    return True


def right_any(at_green: Any, at_abort: Any, captured: dict[str, str]) -> bool:
    """No path that moved and cannot go back: one any() over the paths either side names."""
    if not isinstance(at_green, dict) or not isinstance(at_abort, dict):
        return False

    def held(sample: dict[str, str], path: str) -> str:
        return sample[path] if path in sample else AT_HEAD

    return not any(
        held(at_green, p) != held(at_abort, p) and captured.get(p) != held(at_green, p)
        for p in set(at_green).union(at_abort)
    )


# --- held-out reader, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def newline_not_split(command: str) -> str | None:
    """Splits on &, | and ; but not on newlines: 'ruff check .\\npytest' is one fast piece."""
    return tier_by_rules(command.replace("\n", " "))


def timeout_value_as_program(command: str) -> str | None:
    """Reads timeout's duration as the program: 'timeout 60 pytest -k split' starts '60'."""
    return tier_by_rules(re.sub(r"\btimeout\s+", "", command))


def marker_inside_a_name_piece(command: str) -> str | None:
    """Finds a marker inside a script's name piece: './deploy-latest.sh' holds 'test'."""
    found = tier_by_rules(command)
    return "slow" if found is None and re.search(r"\./\S*test", command) else found


def dashes_kept(command: str) -> str | None:
    """Never strips the leading dashes: 'tidy --check bill.py' holds no marker."""
    return tier_by_rules(command.replace(" --", " ~~"))


def env_not_a_launcher(command: str) -> str | None:
    """Reads env as an unknown program: 'env CI=1 pytest -k x' is slow."""
    return tier_by_rules(re.sub(r"\benv\b", "envy", command))


# --- held-out readerF, 7 Dec 2026: written from the lesson alone, without the checkers -----------


def run_flag_apart_only(command: str) -> str | None:
    """go test's -run seen only as a word of its own: '-run=TestSplit', the same flag with its
    value attached, is read as some other flag, so the run reads as the whole suite."""
    return tier_by_rules(command.replace("-run=", "-r="))


def pytest_flag_apart_only(command: str) -> str | None:
    """pytest's -k and -m seen only as words of their own: '-ksplit', the same flag with its
    value attached, is read as some other flag, so the run reads as the whole suite."""
    return tier_by_rules(re.sub(r"(?<!\S)-([km])(?=\S)", r"-x\1", command))


# --- held-out readerI, 7 Dec 2026 (afternoon): written from the lesson alone ----------------------


def dashdash_words_as_names(command: str) -> str | None:
    """Every word after cargo's `--` counted as a test name: 'cargo test -- --nocapture' reads
    as narrowed, though --nocapture is a flag for the test binary and names no test."""
    return tier_by_rules(re.sub(r"(?<=\s)--\s+-+(?=\w)", "", command))


def verifies_by_the_lesson(command: str) -> str | None:
    """Its own tier rules, but 'does this piece verify?' asked of the lesson's
    `is_verification_command`: a lesson function used, not the tier handed in."""
    pieces = [p for p in re.split(r"[&|;\n]", command) if p.strip() and is_verification_command(p)]
    tiers = [tier for tier in map(tier_by_rules, pieces) if tier is not None]
    return None if not tiers else ("slow" if "slow" in tiers else "fast")


# --- held-out reader M, 7 Dec 2026 (evening), and one more of each kind --------------------------


def python_word_only(command: str) -> str | None:
    """Only the word `python` starts a module: `python3 -m pytest -k split` is an unknown
    command holding the marker pytest, so slow (reader M's wrong_21)."""
    return tier_by_rules(re.sub(r"(?<!\S)(?!python\s)\S*python[\d.]*(?=\s+-m\s)", "py3", command))


def python_version_or_path_unread(command: str) -> str | None:
    """`python` and `python3` start a module, but not `python3.12` or a python given by its path
    (`.venv/bin/python -m pytest` is an unknown command, so slow)."""
    return tier_by_rules(re.sub(r"(?<!\S)(\S+/python[\d.]*|python3\.\d+)(?=\s)", "py3", command))


def path_kept(command: str) -> str | None:
    """The command word compared with its path: `.venv/bin/pytest -k split` names no runner and
    holds no marker, so None; `.venv/bin/ruff check .` is an unknown checker, so slow (reader M's
    wrong_20)."""
    return tier_by_rules(re.sub(r"(?<!\S)(?!\./)(\S*)/", lambda m: m.group(1) + "~", command))


def absolute_path_kept(command: str) -> str | None:
    """A command word read by its file name only when the path is relative: `/usr/local/bin/ruff
    check .` is an unknown checker, so slow."""
    return tier_by_rules(
        re.sub(r"(?<!\S)/(\S*)", lambda m: "~" + m.group(1).replace("/", "~"), command)
    )


def option_value_narrows(command: str) -> str | None:
    """An option's value read as a positional argument: `pytest -W error::UserWarning` holds a
    test id (::), so fast (reader M's wrong_17)."""
    return tier_by_rules(re.sub(r"(?<!\S)-[Wo]\s+", "", command))


def warning_filter_only(command: str) -> str | None:
    """-W's value skipped, but not an ini setting's: `pytest -o python_files=check_*.py` holds a
    .py file, so fast."""
    return tier_by_rules(re.sub(r"(?<!\S)-o\s+", "", command))


def git_not_a_looker(command: str) -> str | None:
    """`git` left out of the looking command words (held-out BC): `git log --grep test` and
    `git commit -m fix test` read as the test they name, slow."""
    return tier_by_rules(re.sub(r"\bgit(?=\s)", "g1t", command))


def git_bisect_runs(command: str) -> str | None:
    """`git bisect run make` read as the make it hands to git, slow; the notebook's rule reads
    the piece's command word, git, which never verifies."""
    return tier_by_rules(re.sub(r"\bgit\s+bisect\s+run\s+", "", command))


# --- the banks --------------------------------------------------------------------------------

BANKS = (
    Bank(
        "s15",
        check_verification_tier,
        tier_by_rules,
        wrong=(
            # held-out reader BC, and one more of the same kind
            Entry(
                "git_not_a_looker",
                git_not_a_looker,
                "a command word that only looks or names (cat, which, grep, git) never verifies, "
                "whatever marker words follow it",
                "'git log --grep pytest': slow; None is due",
            ),
            Entry(
                "git_bisect_runs",
                git_bisect_runs,
                "a command word that only looks or names (cat, which, grep, git) never verifies, "
                "whatever marker words follow it",
                "'git bisect run make': slow; None is due",
            ),
            # held-out reader M, 7 Dec 2026 (evening), and one more of each kind
            Entry(
                "python_word_only",
                python_word_only,
                "a launcher reads as what it starts, whichever python starts it",
                "'python3 -m pytest -k split': slow",
            ),
            Entry(
                "python_version_or_path_unread",
                python_version_or_path_unread,
                "a launcher reads as what it starts, whichever python starts it",
                "'.venv/bin/python -m pytest -k split': slow",
            ),
            Entry(
                "path_kept",
                path_kept,
                "a command word is read by its file name, as ./run-tests.sh is",
                "'.venv/bin/pytest -k split': None",
            ),
            Entry(
                "absolute_path_kept",
                absolute_path_kept,
                "a command word is read by its file name, whatever its folder",
                "'/usr/local/bin/ruff check .': slow",
            ),
            Entry(
                "option_value_narrows",
                option_value_narrows,
                "an option's value is no name: it narrows nothing",
                "'pytest -W error::UserWarning': fast",
            ),
            Entry(
                "warning_filter_only",
                warning_filter_only,
                "an option's value is no name, whichever option takes it",
                "'pytest -q -o python_files=check_*.py': fast",
            ),
            # held-out readerI, 7 Dec 2026 (afternoon)
            Entry(
                "dashdash_words_as_names",
                dashdash_words_as_names,
                "a flag after `--` goes to the test binary: it names no test",
                "'cargo test -- --nocapture': fast",
            ),
            # held-out readerF, 7 Dec 2026
            Entry(
                "run_flag_apart_only",
                run_flag_apart_only,
                "a flag is the same flag with its value attached: go test -run=X names a test",
                "'go test -run=split ./...': slow",
            ),
            Entry(
                "pytest_flag_apart_only",
                pytest_flag_apart_only,
                "a flag is the same flag with its value attached: pytest -ksplit is narrowed",
                "'pytest -ksplit': slow",
            ),
            # held-out reader, 7 Dec 2026
            Entry(
                "newline_not_split",
                newline_not_split,
                "split on &, |, ; and newlines",
                "'ruff check .\\npytest' -> 'fast'",
            ),
            Entry(
                "timeout_value_as_program",
                timeout_value_as_program,
                "a launcher reads as what it starts",
                "'timeout 60 pytest -k split' -> 'slow'",
            ),
            Entry(
                "marker_inside_a_name_piece",
                marker_inside_a_name_piece,
                "a script's name pieces hold a marker as a whole piece",
                "'./deploy-latest.sh' -> 'slow'",
            ),
            Entry(
                "dashes_kept",
                dashes_kept,
                "a marker as a whole word, leading dashes stripped",
                "'tidy --check bill.py' -> None",
            ),
            Entry(
                "env_not_a_launcher",
                env_not_a_launcher,
                "env is a launcher (WRAPPERS): it reads as what it starts",
                "'env CI=1 pytest -k x' -> 'slow'",
            ),
            Entry(
                "table_lookup",
                table_lookup,
                "the tier is read from the command, not looked up in the course's table",
                "'pytest -m smoke' -> 'slow'",
            ),
            Entry(
                "split_on_and_only",
                split_on_and_only,
                "';', '|' and newlines split a command too",
                "'ruff check . ; pytest -q' -> 'fast'",
            ),
            Entry(
                "any_argument_narrows",
                any_argument_narrows,
                "only -k, -m, :: or a .py file narrows pytest",
                "'pytest -x tests' -> 'fast'",
            ),
            Entry(
                "fastest_piece_wins",
                fastest_piece_wins,
                "a chain is as slow as its slowest verifying piece",
                "'ruff check . && pytest' -> 'fast'",
            ),
            Entry(
                "pytest_always_slow",
                pytest_always_slow,
                "a narrowed pytest is fast",
                "'pytest -k split' -> 'slow'",
            ),
            Entry(
                "check_substring",
                check_substring,
                "a marker counts only as a whole word",
                "'cat check_bill.py' -> 'fast'",
            ),
            Entry(
                "marker_substring",
                marker_substring,
                "testing is not the whole word test",
                "'echo testing' -> 'slow'",
            ),
            Entry(
                "non_verify_ignored",
                non_verify_ignored,
                "install, add, uninstall: nothing is checked",
                "'pip install pytest' -> 'slow'",
            ),
            Entry(
                "launcher_unread",
                launcher_unread,
                "python -m pytest is pytest",
                "'python -m pytest -q tests/test_bill.py' -> 'slow'",
            ),
            Entry(
                "fast_or_slow_only",
                fast_or_slow_only,
                "a command that checks nothing has no tier: None",
                "'ls -la' -> 'slow'",
            ),
            Entry(
                "course_tier",
                course_tier,
                "write your own: the course's verification_tier is refused",
                "itself",
            ),
            Entry(
                "one_prefix_only",
                one_prefix_only,
                "every leading VAR=value word is stripped",
                "'A=1 B=2 pytest' -> None",
            ),
            Entry(
                "single_spaces",
                single_spaces,
                "stray spaces between words change nothing",
                "'python  -m  pytest  -k  split' -> 'slow'",
            ),
            Entry(
                "library_pieces",
                library_pieces,
                "write your own: the course's segment_tier is refused",
                "itself",
            ),
        ),
        right=(
            # held-out readerI, 7 Dec 2026 (afternoon): refused before, as if it were the tier
            Entry(
                "verifies_by_the_lesson",
                verifies_by_the_lesson,
                "the lesson's is_verification_command asked per piece, the tier its own",
            ),
            Entry("right_dispatch", right_dispatch, "a dispatch on the command word, tiers ranked"),
            Entry(
                "tier_by_rules_spaced",
                lambda command: tier_by_rules(f"  {command}  "),
                "the reference, run on the command with spaces around it",
            ),
        ),
    ),
    Bank(
        "s15",
        check_can_restore,
        right_loop,
        wrong=(
            Entry(
                "course_can_restore",
                can_restore,
                "write your own: the course's can_restore is refused",
                "itself",
            ),
            Entry(
                "head_capture_always_ok",
                head_capture_always_ok,
                "the capture must hold what the path held at green, HEAD's version only if that",
                "({'bill.py': 'b1'}, {}, {'bill.py': '<head>'}) -> True",
            ),
            Entry(
                "green_paths_only",
                green_paths_only,
                "a path the green sample leaves out was as at HEAD, and may have changed since",
                "({}, {'bill.py': 'b2'}, {}) -> True",
            ),
            Entry(
                "abort_paths_only",
                abort_paths_only,
                "a path that went back to HEAD since green changed too",
                "({'bill.py': 'b1'}, {}, {}) -> True",
            ),
            Entry(
                "captured_only",
                captured_only,
                "what changed decides, not what was captured",
                "sed -i on check_bill.py -> True",
            ),
            Entry(
                "missing_means_absent",
                missing_means_absent,
                "a path missing from a fingerprint is as at HEAD",
                "capture '<head>' for bill.py -> False",
            ),
            Entry(
                "exact_capture_set",
                exact_capture_set,
                "an extra capture is never in the way",
                "captures bill.py and notes.txt -> False",
            ),
            Entry(
                "captured_at_all",
                captured_at_all,
                "the capture must hold the green-time content",
                "capture b0 where green held b1 -> True",
            ),
            Entry(
                "empty_is_none",
                empty_is_none,
                "a clean tree ({}) is a sample; None is none",
                "({}, {'bill.py': 'b2'}, ...) -> False",
            ),
            Entry(
                "none_is_empty",
                none_is_empty,
                "no sample proves nothing",
                "(None, {'bill.py': 'b2'}, ...) -> True",
            ),
        ),
        right=(
            Entry("right_sets", right_sets, "set algebra over the moved paths"),
            Entry("right_any", right_any, "one any() over every path either side names"),
        ),
        reference_module="banks.bank_s15",
    ),
)

_REDUNDANT = (
    "equivalent: redundant in this reference; every row where the word appears is decided by "
    "another rule too (git checkout rows: git never verifies)"
)
_INTERNAL_FAST = (
    "equivalent: an internal label; `tiers` is only asked whether it holds 'slow', and the "
    "function itself writes 'fast' when it does not"
)
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_verification_tier": {
        "tier_by_rules:17: constant: `'fast'` -> `'XXfastXX'`": _INTERNAL_FAST,
        "tier_by_rules:24: constant: `'fast'` -> `'XXfastXX'`": _INTERNAL_FAST,
        "tier_by_rules:32: constant: `'fast'` -> `'XXfastXX'`": _INTERNAL_FAST,
        "tier_by_rules:34: constant: `'fast'` -> `'XXfastXX'`": _INTERNAL_FAST,
        "tier_by_rules:4: constant: `'checkout'` -> `'XXcheckoutXX'`": _REDUNDANT,
    },
}
