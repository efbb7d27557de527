"""README.md is the contract with a new user: its Quickstart is what CI runs, line for line."""

import re
from pathlib import Path

from cafe.course.syllabus import SESSIONS, Session

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")


def _section(heading: str) -> str:
    match = re.search(rf"^## {re.escape(heading)}\n(.*?)(?=^## )", README, re.S | re.M)
    assert match, f"README.md has no '## {heading}' section"
    return match.group(1)


def _shell_blocks(text: str) -> list[str]:
    return re.findall(r"```(?:bash|sh|shell)\n(.*?)```", text, re.S)


def test_quickstart_has_exactly_two_shell_blocks():
    assert len(_shell_blocks(_section("Quickstart"))) == 2


def test_quickstart_first_block_installs_and_runs_a_toy():
    first = _shell_blocks(_section("Quickstart"))[0]
    assert 'pip install -e ".[test]"' in first
    assert re.search(r"^cafe toy \d\d$", first, re.M)


def test_ci_runs_every_quickstart_line_verbatim():
    ci_lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    for block in _shell_blocks(_section("Quickstart")):
        for line in block.strip().splitlines():
            assert line in ci_lines, f".ci/run does not run the Quickstart line {line!r}"


def test_quickstart_toy_exists():
    first = _shell_blocks(_section("Quickstart"))[0]
    number = re.search(r"^cafe toy (\d\d)$", first, re.M).group(1)
    assert list((ROOT / "sessions").glob(f"s{number}-*/toy.py")), f"no toy for session {number}"


def _syllabus_row(entry: Session) -> str:
    """The README row the syllabus implies: linked when sessions/<folder>/lesson.md exists, else planned."""
    modules = ", ".join(f"`{path}`" for path in entry.modules)
    written = (ROOT / "sessions" / entry.folder / "lesson.md").exists()
    lesson = (
        f"[lesson](sessions/{entry.folder}/lesson.md) · [notebook](notebooks/{entry.folder}.ipynb)"
        if written
        else "*planned*"
    )
    return f"| {entry.number:02d} | {entry.path} | {entry.topic} | {modules} | {entry.ships} | {lesson} |"


def test_sessions_table_agrees_with_the_syllabus():
    rows = re.findall(r"^\| \d\d \|.*$", _section("The sessions"), re.M)
    assert len(rows) == len(SESSIONS), (
        f"README's sessions table has {len(rows)} rows; the syllabus has {len(SESSIONS)}"
    )
    for row, entry in zip(rows, SESSIONS):
        expected = _syllabus_row(entry)
        assert row == expected, (
            f"README's row for session {entry.number:02d} disagrees with cafe/course/syllabus.py "
            f"(number, path, topic, modules, ships, written or planned).\n"
            f"README:   {row}\nexpected: {expected}"
        )


def test_every_session_folder_is_named_by_the_syllabus():
    folders = {entry.folder for entry in SESSIONS}
    for folder in sorted((ROOT / "sessions").glob("s[0-9][0-9]-*")):
        assert folder.name in folders, (
            f"sessions/{folder.name} is not a session of cafe/course/syllabus.py; "
            f"name the folder as the syllabus does, or change the syllabus"
        )


def test_live_mode_names_the_three_variables_and_the_doctor():
    live = _section("Live mode")
    for name in ("COURSE_MODE", "CAFE_BASE_URL", "CAFE_API_KEY", "CAFE_MODEL", "cafe doctor"):
        assert name in live
    for server in ("OpenAI", "Ollama", "vLLM", "llama.cpp", "LM Studio"):
        assert server in live


def test_ci_installs_chromium_and_requires_the_browser_test():
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "apt-get install -y -qq chromium chromium-driver" in ci
    lines = ci.splitlines()
    assert "export CAFE_REQUIRE_BROWSER=1" in lines, (
        ".ci/run must make a missing browser fail the run"
    )
    assert lines.index("export CAFE_REQUIRE_BROWSER=1") < lines.index(
        "pytest -n auto --dist loadfile --nbval-lax --nbval-current-env"
    )
    assert "sudo apt-get install chromium chromium-driver" in _section("Quickstart")
    assert "CAFE_REQUIRE_BROWSER=1" in _section("Quickstart")
