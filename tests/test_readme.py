"""README.md is the contract with a new user: its Quickstart is what CI runs, line for line."""

import re
from pathlib import Path

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


def test_session_map_links_every_session_and_marks_the_rest_planned():
    table = _section("The sessions")
    for folder in sorted((ROOT / "sessions").glob("s[0-9][0-9]-*")):
        assert f"sessions/{folder.name}/lesson.md" in table, f"README's session map misses {folder.name}"
    for number in re.findall(r"^\| (\d\d) \|.*\*planned\*", table, re.M):
        assert not list((ROOT / "sessions").glob(f"s{number}-*")), f"session {number} exists but is marked planned"


def test_live_mode_names_the_three_variables_and_the_doctor():
    live = _section("Live mode")
    for name in ("COURSE_MODE", "CAFE_BASE_URL", "CAFE_API_KEY", "CAFE_MODEL", "cafe doctor"):
        assert name in live
    for server in ("OpenAI", "Ollama", "vLLM", "llama.cpp", "LM Studio"):
        assert server in live
