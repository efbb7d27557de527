"""cafe.exercises.s15: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

from __future__ import annotations

from banks.bank_s15 import right_loop, tier_by_rules

from cafe import course
from cafe.exercises.s15 import RESTORE_CASES, TIER_TABLE, check_can_restore, check_verification_tier
from cafe.monitors.snapshots import can_restore
from cafe.monitors.tiers import is_verification_command, verification_tier


def _stub(*args):
    raise NotImplementedError("your turn")


def reference_tier(command):
    return verification_tier(command) if is_verification_command(command) else None


def test_tier_table_agrees_with_the_library_both_ways():
    assert {expected for _, expected, _ in TIER_TABLE} == {"fast", "slow", None}
    assert all(reference_tier(c) == expected for c, expected, _ in TIER_TABLE)
    assert check_verification_tier(tier_by_rules) == []
    assert course.compare(tier_by_rules, check=check_verification_tier).status == "passed"


def test_tier_course_function_is_refused():
    (problem,) = check_verification_tier(reference_tier)
    assert "course's `verification_tier`" in problem and "write your own" in problem


def test_tier_course_function_is_refused_through_a_wrapper_that_imports_it_inside():
    """Held-out reader, 7 Dec 2026: a wrapper hides the name, not the code that runs."""

    def my_tier(command):
        from cafe.monitors.runners import verification_tier as tier

        return tier(command)

    (problem,) = check_verification_tier(my_tier)
    assert "course's `verification_tier`" in problem


def test_tier_asking_the_lesson_whether_a_piece_verifies_is_not_refused():
    """Held-out readerI, 7 Dec 2026 (afternoon): the exercise refuses `verification_tier` or a
    wrapper round it; `is_verification_command` is another lesson function, so a tier of one's
    own that asks it per piece passes, and the course's tier behind it is still refused."""
    from banks.bank_s15 import verifies_by_the_lesson

    assert check_verification_tier(verifies_by_the_lesson) == []

    def wrapped(command):
        return verification_tier(command) if is_verification_command(command) else None

    assert "write your own" in check_verification_tier(wrapped)[0]


def test_tier_a_flag_after_dashdash_is_no_test_name():
    """Held-out readerI: `cargo test -- --nocapture` runs the whole suite. The generated
    commands hold flags after `--` (go's `-args`) for cargo, npm and go, with and without a test
    name before them, so a rule that reads such a flag as a name is found on generated input."""
    from banks.bank_s15 import dashdash_words_as_names

    problems = check_verification_tier(dashdash_words_as_names)
    assert problems and "--" in "\n".join(problems)


def test_tier_generated_commands_find_what_the_rows_miss():
    def doubled_space_launcher(command):  # strips 'python -m ' only with single spaces
        return tier_by_rules(command.replace("python -m ", "").replace("python", "cpython"))

    (problem,) = check_verification_tier(doubled_space_launcher)
    assert problem.startswith("on 'python  -m  pytest") and "expected 'fast'" in problem


def test_tier_generated_commands_read_a_command_word_by_its_file_and_any_python_as_a_launcher():
    """Held-out reader M: `.venv/bin/pytest` compared with its path, and only the word `python`
    taken for a launcher; each is shown the smallest generated command where it goes wrong, with
    the rule, and so is one more of each kind (an absolute folder, a versioned python)."""
    from banks.bank_s15 import (
        absolute_path_kept,
        path_kept,
        python_version_or_path_unread,
        python_word_only,
    )

    shown = {
        path_kept: "'.venv/bin/",
        absolute_path_kept: "/usr/local/bin/",
        python_word_only: "python3",
        python_version_or_path_unread: "python3.12 -m pytest",
    }
    for wrong, command in shown.items():
        (problem,) = check_verification_tier(wrong)
        assert problem.startswith("on '") and command in problem, wrong.__name__
        assert "a command word is its file's name" in problem and "launcher" in problem


def test_tier_an_option_s_value_narrows_pytest_nothing_whichever_option():
    from banks.bank_s15 import option_value_narrows, warning_filter_only

    for wrong, command in (
        (option_value_narrows, "'pytest -W error::UserWarning': returned 'fast'"),
        (warning_filter_only, "'pytest -q -o python_files=check_*.py': returned 'fast'"),
    ):
        (problem,) = check_verification_tier(wrong)
        assert problem.startswith(command) and "an option's value narrows nothing" in problem


def test_generated_commands_put_folders_pythons_and_option_values_before_every_kind():
    """The seeded draws hold command words given by a folder, every python launcher, and
    pytest options whose value looks like a test id or a file, on fast and slow pieces alike;
    and the library reads each as the references do (test_exercise_references checks all)."""
    from hypothesis import given, settings

    from cafe.exercises.reference_s15 import labelled_commands

    seen: set[str] = set()

    @settings(max_examples=600, derandomize=True, database=None)
    @given(labelled_commands())
    def draw(labelled):
        command, tier = labelled
        for mark in (".venv/bin/", "/usr/local/bin/", "python3 -m", "python3.12 -m", "-W error::"):
            if mark in command:
                seen.add(f"{mark} {tier}")

    draw()
    marks = (".venv/bin/", "/usr/local/bin/", "python3 -m", "python3.12 -m", "-W error::")
    assert {f"{mark} {tier}" for mark in marks for tier in ("fast", "slow")} <= seen


def test_the_library_reads_a_command_word_with_exe_as_it_reads_its_path():
    """`.exe` on a bare command word reads as it does behind a Windows folder (reader M found
    `pytest.exe -k split` not a verification while `C:\\venv\\Scripts\\pytest.exe -k split`
    was fast); a word that only looks stays a word that only looks."""
    for bare in ("pytest.exe -k split", "PYTEST.EXE", "make.exe check", "ruff.exe check ."):
        folder = "C:\\venv\\Scripts\\" + bare
        assert is_verification_command(bare) and is_verification_command(folder)
        assert verification_tier(bare) == verification_tier(folder)
    assert reference_tier("pytest.exe -k split") == "fast"
    assert not is_verification_command("cat.exe pytest.exe") and not is_verification_command(
        "pip.exe install pytest"
    )


def test_tier_stub_is_not_attempted():
    assert course.compare(_stub, check=check_verification_tier).status == "not_attempted"


def test_tier_wrong_answers_are_named_with_their_rule():
    invocation = check_verification_tier(
        lambda c: (
            None if tier_by_rules(c) is None else ("slow" if "pytest" in c else tier_by_rules(c))
        )
    )
    assert (
        invocation
        and all("pytest" in p for p in invocation)
        and any("-k narrows" in p for p in invocation)
    )
    substring = check_verification_tier(lambda c: "fast" if "check" in c else tier_by_rules(c))
    assert any("not the whole word check" in p for p in substring)


def test_restore_cases_agree_with_the_library_both_ways():
    assert {case[3] for case in RESTORE_CASES} == {True, False}
    assert all(can_restore(g, a, dict(c)) is want for g, a, c, want, _ in RESTORE_CASES)
    assert check_can_restore(right_loop) == []
    assert course.compare(right_loop, check=check_can_restore).status == "passed"


def test_restore_course_function_is_refused():
    (problem,) = check_can_restore(can_restore)
    assert "course's `can_restore`" in problem


def test_restore_generated_cases_find_what_the_rows_miss():
    def head_is_fine(at_green, at_abort, captured):  # HEAD's version taken as good enough
        if at_green is None or at_abort is None:
            return False
        moved = {p for p in {*at_green, *at_abort} if at_green.get(p) != at_abort.get(p)}
        return all(captured.get(p) in (at_green.get(p, "<head>"), "<head>") for p in moved)

    (problem,) = check_can_restore(head_is_fine)
    assert problem.startswith("on ({'bill.py': 'b1'}, {}, {'bill.py': '<head>'})")


def test_restore_stub_is_not_attempted():
    assert course.compare(_stub, check=check_can_restore).status == "not_attempted"


def test_restore_wrong_answers_name_the_case():
    def captured_only(at_green, at_abort, captured):  # trusts the captures, never looks at the tree
        return (
            at_green is not None
            and at_abort is not None
            and all(captured.get(p) == at_green.get(p, "<head>") for p in captured)
        )

    problems = check_can_restore(captured_only)
    assert problems and any("behind the harness's back" in p for p in problems)
    (wrong,) = check_can_restore(lambda g, a, c: "yes")
    assert wrong.endswith("returned str ('yes'); return True or False")


def test_tier_table_passed_through_is_not_the_learners_work():
    answers = {command: expected for command, expected, _ in TIER_TABLE}
    problems = check_verification_tier(lambda c: answers.get(c, "slow"))
    assert problems and all("expected" in p or "more rows" in p for p in problems)
    assert course.compare(lambda c: answers[c], check=check_verification_tier).status == "failed"


def test_tier_examples_hold_no_answers():
    from cafe.exercises.s15 import TIER_EXAMPLES, TIER_HELD_OUT

    assert all(isinstance(command, str) for command in TIER_EXAMPLES)
    assert not {c for c, _, _ in TIER_HELD_OUT} & {c for c, _, _ in TIER_TABLE}
    assert all(reference_tier(c) == expected for c, expected, _ in TIER_HELD_OUT)


# --- the checkpoint: the learner's own figures -----------------------------------------------

_SOLVED = {
    "raise NotImplementedError(\"your turn: 'fast', 'slow', or None when the command checks nothing\")": (
        "import re\n"
        "    tiers = []\n"
        "    for piece in re.split(r'[&|;\\n]', command):\n"
        "        words = piece.split()\n"
        "        while words and (re.match(r'^\\w+=', words[0]) or words[0] in ('env', 'timeout')):\n"
        "            words = words[2:] if words[0] == 'timeout' else words[1:]\n"
        "        python = re.fullmatch(r'python[\\d.]*', words[0].split('/')[-1]) if words else None\n"
        "        if python and words[1:2] == ['-m']:\n"
        "            words = words[2:]\n"
        "        words = [words[0].split('/')[-1], *words[1:]] if words else words\n"
        "        names = [w.lstrip('-').lower() for w in words]\n"
        "        if not names or names[0] in ('cat', 'which', 'grep', 'git'):\n"
        "            continue\n"
        "        if {'install', 'checkout', 'add', 'uninstall'} & set(names):\n"
        "            continue\n"
        "        marks = {'test', 'tests', 'pytest', 'make', 'ruff', 'mypy', 'tsc', 'vet', 'flake8', 'check'}\n"
        "        if not (marks & set(names) or marks & set(re.split(r'[-_./]', names[0]))):\n"
        "            continue\n"
        "        if {'ruff', 'mypy', 'tsc', 'flake8', 'vet'} & set(names):\n"
        "            tiers.append('fast')\n"
        "        elif names[0] == 'pytest':\n"
        "            values = {i + 1 for i, w in enumerate(words) if w in ('-W', '-o', '-p')}\n"
        "            narrow = any(w[:2] in ('-k', '-m') or '::' in w or w.endswith('.py')\n"
        "                         for i, w in enumerate(words) if i not in values)\n"
        "            tiers.append('fast' if narrow else 'slow')\n"
        "        elif names[:2] == ['cargo', 'test']:\n"
        "            rest = words[2:]\n"
        "            named = [w for i, w in enumerate(rest) if w[0] != '-' and (i == 0 or rest[i - 1] != '-p')]\n"
        "            tiers.append('fast' if named else 'slow')\n"
        "        elif names[:2] == ['go', 'test']:\n"
        "            named = any(w.split('=')[0] == '-run' for w in words)  # -run X or -run=X\n"
        "            tiers.append('fast' if named else 'slow')\n"
        "        else:\n"
        "            tiers.append('slow')\n"
        "    return None if not tiers else ('slow' if 'slow' in tiers else 'fast')"
    ),
    'raise NotImplementedError(\n        "your turn: True only if every path mutated since green can be put back"\n    )': (
        "if at_green is None or at_abort is None:\n"
        "        return False\n"
        "    for path in {**at_green, **at_abort}:\n"
        "        then, now = at_green.get(path, '<head>'), at_abort.get(path, '<head>')\n"
        "        if then != now and captured.get(path) != then:\n"
        "            return False\n"
        "    return True"
    ),
}


def test_notebook_with_the_exercises_solved_banks_the_learners_own_figures(tmp_path, monkeypatch):
    import contextlib
    import io
    from pathlib import Path

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    path = Path(__file__).resolve().parents[1] / "sessions" / "s15-run-monitors" / "notebook.py"
    source = path.read_text(encoding="utf-8")
    for stub, body in _SOLVED.items():
        assert stub in source, f"the notebook's stub changed: {stub}"
        source = source.replace(stub, body)
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(source, str(path), "exec"), {"__name__": "__notebook__"})
    checkpoints = course.load_progress()["checkpoints"]["s15"]
    assert checkpoints["monitor_messages"]["source"] == "scripted"
    yours = checkpoints["your_gates"]
    assert yours["source"] == "yours" and yours["model"] is None
    agreed, total = yours["value"]["tier_agrees"].split(" of ")
    assert agreed == total and int(total) >= 5
    assert yours["value"]["restore_gate"] == {"library": True, "yours": True}
