"""Commands the site quotes from README.md, so the two never disagree.

The index page's instructor path tells you how to check every notebook. That command is written
once, in README.md's "## The instructor path" section (the `pytest` line of its first shell
block), and the site build reads it from there. A README without it is a build problem that says
what to add.
"""

from __future__ import annotations

import re
from pathlib import Path

from lesson_format import Problem

__all__ = ["INSTRUCTOR_HEADING", "instructor_command"]

INSTRUCTOR_HEADING = "## The instructor path"
_SECTION = re.compile(rf"^{re.escape(INSTRUCTOR_HEADING)}\n(.*?)(?=^## |\Z)", re.S | re.M)
_SHELL_BLOCK = re.compile(r"```(?:bash|sh|shell)\n(.*?)```", re.S)


def instructor_command(root: Path) -> tuple[str, list[Problem]]:
    """The README's notebook-check command (`pytest ...`), and a problem when it cannot be found."""
    readme = root / "README.md"
    text = readme.read_text(encoding="utf-8") if readme.exists() else ""
    section = _SECTION.search(text)
    block = _SHELL_BLOCK.search(section.group(1)) if section else None
    lines = [line.split("#", 1)[0].strip() for line in block.group(1).splitlines()] if block else []
    command = next((line for line in lines if line.startswith("pytest ")), None)
    if command is None:
        return "pytest", [
            Problem(
                "README.md",
                f"section '{INSTRUCTOR_HEADING}'",
                "needs a ```bash block whose `pytest ...` line checks every notebook; "
                "the site's instructor path quotes it",
            )
        ]
    return command, []
