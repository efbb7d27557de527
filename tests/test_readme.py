"""README.md is the contract with a new user: its Quickstart is what CI runs, line for line."""

import re
from pathlib import Path

import pytest

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
    # a maintainer's matter: docs/maintaining.md says how to install the browser and require it
    maintaining = (ROOT / "docs" / "maintaining.md").read_text(encoding="utf-8")
    assert "sudo apt-get install chromium chromium-driver" in maintaining
    assert "CAFE_REQUIRE_BROWSER=1" in maintaining
    assert "[docs/maintaining.md](docs/maintaining.md)" in README


# --- the learner's first hour -----------------------------------------------------------------


def _fenced(text: str, language: str) -> list[str]:
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_quickstart_checks_the_set_up_then_runs_session_00():
    first = _shell_blocks(_section("Quickstart"))[0].strip().splitlines()
    assert first[-2:] == ["cafe doctor", "cafe toy 00"], first
    assert first.index('pip install -e ".[test]"') < first.index("cafe doctor")


def test_quickstart_gives_windows_the_same_steps_in_powershell():
    bash = _shell_blocks(_section("Quickstart"))[0].strip().splitlines()
    blocks = _fenced(_section("Quickstart"), "powershell")
    assert len(blocks) == 1, "the Quickstart needs one ```powershell block beside the bash one"
    powershell = blocks[0].strip().splitlines()
    assert powershell[:2] == ["py -m venv .venv", ".venv\\Scripts\\Activate.ps1"]
    assert powershell[2:] == bash[1:], "the PowerShell block must install and run what bash does"
    assert ".venv\\Scripts\\activate.bat" in _section("Quickstart")  # cmd.exe


def test_live_mode_offers_a_dotenv_file_and_powershell_lines():
    live = " ".join(_section("Live mode").split())
    assert "`.env` file" in live and "the shell wins" in live
    assert '$env:CAFE_API_KEY = "sk-..."' in live


def test_the_stale_planned_sentence_is_gone():
    assert "Sessions marked *planned*" not in README


def test_get_the_course_comes_before_the_quickstart_and_names_git_for_windows():
    assert README.index("## Get the course") < README.index("## Quickstart")
    assert "git clone" in _section("Get the course")
    assert "Git for Windows" in _section("Get the course")


_LINK = re.compile(r"\]\(([^)\s]+)\)")


def _anchors(markdown: str) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    headings = re.findall(r"^#{1,6} (.+)$", markdown, re.M)
    return {re.sub(r"[^a-z0-9 _-]", "", h.lower()).replace(" ", "-") for h in headings}


@pytest.mark.parametrize(
    "page",
    ["README.md", *sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "docs").glob("*.md"))],
)
def test_every_relative_link_in_the_readme_and_docs_resolves(page):
    source = ROOT / page
    text = source.read_text(encoding="utf-8")
    broken = []
    for link in _LINK.findall(text):
        if re.match(r"[a-z]+:", link):
            continue  # another site: not followed here
        path, _, anchor = link.partition("#")
        target = (source.parent / path).resolve() if path else source
        if not target.exists():
            broken.append(f"{link}: no file {target.relative_to(ROOT)}")
        elif anchor and target.suffix == ".md":
            if anchor not in _anchors(target.read_text(encoding="utf-8")):
                broken.append(f"{link}: no heading #{anchor} in {target.relative_to(ROOT)}")
    assert not broken, f"{page}: broken links: {broken}"


def test_license_is_the_mit_licence_pyproject_names():
    licence = (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert licence.startswith("MIT License\n")
    assert "Copyright (c) 2026 The Agent Harness Path contributors" in licence
    pyproject = (ROOT / "pyproject.toml").read_text(encoding="utf-8")
    assert re.search(r'^license = (\{ text = "MIT" \}|"MIT")$', pyproject, re.M)
    assert "[LICENSE](LICENSE)" in README
