"""Every lesson meets docs/AUTHORING.md, and every identifier it names exists in `cafe`.

Format: each `sessions/*/lesson.md` must pass `tools/sitebuild.py`'s `load_lesson` (front matter
fields and types, the ten sections in order, the dated state of the art, the self-check).

Identifiers: a backticked span that looks like a Python name (`repair_ticket`, `CAP_DEFAULT`,
`cafe.repair.failure_view`, `retry_messages()`, `make_client(mode="live")`) must resolve, in this
order, as

1. a `cafe` submodule (`repair`, `cafe.repair`);
2. a module-level name of any `cafe` module (every module under cafe/ is imported and its
   names collected), or a dotted attribute of one (`cafe.repair.CAP_DEFAULT`, `Ticket.table`);
3. a string constant in the cafe source, collected with `ast` (stop reasons such as `passed`,
   modes such as `offline`, variable names such as `COURSE_MODE`);
4. a field, method or parameter name declared in cafe (`stop_reason` on a result record, the
   `cap` argument), also collected with `ast`;
5. Python itself (`None`, `ValueError`, `json.dumps`) or a name inside one of the few third-party
   packages in THIRD_PARTY (`openai.OpenAI`), looked up in the installed package.

Spans with `/`, spaces outside a call's parentheses, `=`, or a file extension (`toy.py`,
`cafe/repair/reask.py`, `cafe doctor`, `COURSE_MODE=live`) are paths, commands or settings, not
identifiers, and are not checked. Code inside fenced blocks is not checked either.
"""

from __future__ import annotations

import ast
import builtins
import importlib
import keyword
import math
import pkgutil
import re
import sys
import textwrap
from collections.abc import Iterator
from dataclasses import dataclass, fields, is_dataclass
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from markdown_it import MarkdownIt

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

import sitebuild  # noqa: E402
from lessons import split_front_matter  # noqa: E402
from sitebuild import LessonError, load_lesson  # noqa: E402

LESSONS = sitebuild.discover_lessons(ROOT)
LESSON_IDS = [path.parent.name for path in LESSONS]

# Third-party packages a lesson may name without cafe defining them. A name under one of these is
# still checked: the package is imported and the dotted attribute looked up, so `openai.OpenAI`
# passes and `openai.NoSuchClient` fails. Keep it to the real dependencies a lesson cites.
THIRD_PARTY = frozenset(
    {
        "openai",  # the client library every live call goes through (s00, s01)
        "pydantic",  # the ticket contract's models and JSON schema (cafe/schema/ticket.py)
    }
)

FILE_EXTENSIONS = frozenset(
    {
        "py",
        "md",
        "ipynb",
        "json",
        "jsonl",
        "toml",
        "yaml",
        "yml",
        "txt",
        "csv",
        "html",
        "css",
        "sh",
        "cfg",
        "ini",
        "lock",
        "png",
        "svg",
        "log",
    }
)

_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_IDENTIFIER = re.compile(rf"(?P<name>{_NAME}(?:\.{_NAME})*)(?P<call>\(.*\))?", re.S)


def identifier_of(span: str) -> str | None:
    """The dotted name a span names, or None when the span is a path, command or setting."""
    span = span.strip()
    if "/" in span:
        return None
    match = _IDENTIFIER.fullmatch(span)
    if match is None:
        return None
    name = match.group("name")
    if (
        match.group("call") is None
        and "." in name
        and name.rsplit(".", 1)[1].lower() in FILE_EXTENSIONS
    ):
        return None
    return name


# ---------------------------------------------------------------------------------------------
# What cafe declares


@dataclass(frozen=True)
class CafeNames:
    modules: dict[str, ModuleType]  # "cafe.repair" -> module
    module_level: dict[str, list[Any]]  # name -> the objects bound to it in cafe modules
    strings: frozenset[str]  # every str constant in the cafe source
    members: frozenset[str]  # class fields/methods/attributes and function parameters
    import_errors: tuple[str, ...]


@lru_cache(maxsize=1)
def cafe_names() -> CafeNames:
    import cafe

    modules: dict[str, ModuleType] = {"cafe": cafe}
    errors: list[str] = []
    for info in pkgutil.walk_packages(cafe.__path__, "cafe."):
        if info.name.rsplit(".", 1)[-1] == "__main__":
            continue  # running it would start the command line
        try:
            modules[info.name] = importlib.import_module(info.name)
        except Exception as exc:  # report every module that fails, not just the first
            errors.append(f"{info.name}: {type(exc).__name__}: {exc}")
    module_level: dict[str, list[Any]] = {}
    for module in modules.values():
        for name, value in vars(module).items():
            module_level.setdefault(name, []).append(value)

    strings: set[str] = set()
    members: set[str] = set()
    for path in sorted((ROOT / "cafe").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                strings.add(node.value)
            elif isinstance(node, ast.ClassDef):
                for item in node.body:
                    if isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
                        members.add(item.target.id)
                    elif isinstance(item, ast.Assign):
                        members.update(t.id for t in item.targets if isinstance(t, ast.Name))
                    elif isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                        members.add(item.name)
            elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
                args = node.args
                members.update(a.arg for a in [*args.posonlyargs, *args.args, *args.kwonlyargs])
            elif (
                isinstance(node, ast.Attribute)
                and isinstance(node.value, ast.Name)
                and node.value.id == "self"
            ):
                members.add(node.attr)
    members.discard("self")
    members.discard("cls")
    return CafeNames(modules, module_level, frozenset(strings), frozenset(members), tuple(errors))


def _has_member(obj: Any, name: str, names: CafeNames) -> tuple[bool, Any]:
    """getattr, or a declared field (dataclass, pydantic, annotations) of a cafe class."""
    try:
        return True, getattr(obj, name)
    except Exception:
        pass
    if isinstance(obj, type):
        declared = set(getattr(obj, "__annotations__", {})) | set(
            getattr(obj, "model_fields", {}) or {}
        )
        if is_dataclass(obj):
            declared |= {f.name for f in fields(obj)}
        if name in declared:
            return True, None
    return False, None


def _attribute_chain(obj: Any, parts: list[str], names: CafeNames) -> bool:
    for i, part in enumerate(parts):
        if obj is None:  # past a declared field we cannot introspect: accept only cafe member names
            return all(p in names.members for p in parts[i:])
        found, obj = _has_member(obj, part, names)
        if not found:
            return False
    return True


def _package_name(parts: list[str]) -> bool:
    """A dotted name inside an importable package: the longest importable prefix, then attributes."""
    for cut in range(len(parts), 0, -1):
        try:
            module = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        return _attribute_chain(module, parts[cut:], cafe_names())
    return False


def _python_name(parts: list[str]) -> bool:
    first = parts[0]
    if keyword.iskeyword(first) or (len(parts) == 1 and hasattr(builtins, first)):
        return True
    if hasattr(builtins, first):
        return _attribute_chain(getattr(builtins, first), parts[1:], cafe_names())
    if first in sys.stdlib_module_names:
        return _package_name(parts)
    return False


def resolves(name: str) -> bool:
    """True when a dotted name exists in cafe, in Python itself, or on the third-party allowlist."""
    names = cafe_names()
    parts = name.split(".")
    if parts[0] in THIRD_PARTY:
        return _package_name(parts)
    if parts[0] == "cafe":
        for cut in range(len(parts), 0, -1):
            module = names.modules.get(".".join(parts[:cut]))
            if module is not None:
                return _attribute_chain(module, parts[cut:], names)
        return False
    submodule = names.modules.get(f"cafe.{parts[0]}")
    if submodule is not None and _attribute_chain(submodule, parts[1:], names):
        return True
    if any(_attribute_chain(obj, parts[1:], names) for obj in names.module_level.get(parts[0], ())):
        return True
    if name in names.strings:
        return True
    if len(parts) == 1 and name in names.members:
        return True
    return _python_name(parts)


# ---------------------------------------------------------------------------------------------
# What a lesson names


def code_spans(path: Path) -> Iterator[tuple[int, str]]:
    """(line, span) for every inline code span in lesson.md, front matter included."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    yaml_text, body, body_line = split_front_matter(text)
    if yaml_text is not None:
        for number, line in enumerate(lines[1 : body_line - 2], start=2):
            for span in re.findall(r"`([^`\n]+)`", line):
                yield number, span
    md = MarkdownIt("commonmark").enable(["table", "strikethrough"])
    for token in md.parse(body):
        if token.type != "inline" or not token.children:
            continue
        start = (token.map[0] if token.map else 0) + body_line
        end = (token.map[1] if token.map else 0) + body_line
        for child in token.children:
            if child.type != "code_inline":
                continue
            line = next(
                (
                    n
                    for n in range(start, max(end, start + 1))
                    if n - 1 < len(lines) and child.content in lines[n - 1]
                ),
                start,
            )
            yield line, child.content


def unknown_identifiers(path: Path) -> list[tuple[int, str]]:
    """(line, span) of every identifier-looking span that does not resolve."""
    out = []
    for line, span in code_spans(path):
        name = identifier_of(span)
        if name is not None and not resolves(name):
            out.append((line, span))
    return out


def _report(path: Path, missing: list[tuple[int, str]]) -> str:
    rel = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
    lines = [
        f"{rel}: {len(missing)} backticked identifier(s) not found in cafe "
        "(not a submodule, module-level name, attribute, field/parameter or string constant):"
    ]
    lines += [f"  {rel}:{line}: `{span}`" for line, span in missing]
    lines.append(
        "Fix the name, add it to cafe, or (for a path or command) write it with a '/' or a space; "
        "third-party names go in THIRD_PARTY in tests/test_lessons.py with a reason."
    )
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------
# The real lessons


def test_every_cafe_module_imports() -> None:
    assert not cafe_names().import_errors, "cafe modules that fail to import:\n" + "\n".join(
        cafe_names().import_errors
    )


@pytest.mark.parametrize("path", LESSONS, ids=LESSON_IDS)
def test_lesson_meets_the_authoring_format(path: Path) -> None:
    try:
        load_lesson(path)
    except LessonError as exc:
        problems = str(exc)
    else:
        problems = ""
    assert not problems, f"{path.relative_to(ROOT)} does not meet docs/AUTHORING.md:\n{problems}"


def check_lesson_identifiers(path: Path) -> None:
    """Fail the test, listing line and span, when the lesson names something cafe does not have."""
    missing = unknown_identifiers(path)
    assert not missing, _report(path, missing)


@pytest.mark.parametrize("path", LESSONS, ids=LESSON_IDS)
def test_lesson_identifiers_exist_in_cafe(path: Path) -> None:
    check_lesson_identifiers(path)


@pytest.mark.parametrize("path", LESSONS, ids=LESSON_IDS)
def test_the_check_reads_the_names_each_lesson_uses(path: Path) -> None:
    # a checker that sees nothing passes everything: every lesson names cafe code in backticks
    checked = [identifier_of(span) for _, span in code_spans(path)]
    checked = [name for name in checked if name is not None]
    assert len(checked) >= 5, (
        f"{path.relative_to(ROOT)}: only {checked} were checked; is identifier_of too lax?"
    )


# ---------------------------------------------------------------------------------------------
# The checker itself, on fixtures


@pytest.mark.parametrize(
    "span, name",
    [
        ("repair_ticket", "repair_ticket"),
        ("cafe.repair.failure_view", "cafe.repair.failure_view"),
        ("retry_messages()", "retry_messages"),
        ("retry_messages(brief, failures, attempt, mode)", "retry_messages"),
        ("CAP_DEFAULT", "CAP_DEFAULT"),
        ("toy.py", None),
        ("cafe/repair/reask.py", None),
        ("cafe doctor", None),
        ("COURSE_MODE=live", None),
        ("python tools/build.py notebooks", None),
        ("0.50", None),
        ("'latte'", None),
        ("ticket: None", None),
        ("notebook.ipynb", None),
    ],
)
def test_identifier_of_tells_names_from_paths_and_commands(span: str, name: str | None) -> None:
    assert identifier_of(span) == name


@pytest.mark.parametrize(
    "name",
    [
        "cafe",
        "config",
        "cafe.endpoint.settings.config",
        "cafe.endpoint.settings.config.course_mode",
        "course_mode",
        "make_client",
        "COURSE_MODE",
        "CAFE_MODEL",
        "offline",
        "live",
        "None",
        "ValueError",
        "json.dumps",
        "openai.OpenAI",
        "pydantic.BaseModel",
    ],
)
def test_resolves_names_cafe_python_and_the_allowlist_declare(name: str) -> None:
    assert resolves(name), name


@pytest.mark.parametrize(
    "name",
    [
        "no_such_function_anywhere",
        "cafe.endpoint.settings.config.no_such_name",
        "cafe.no_such_module",
        "json.no_such_name",
        "config.no_such_name",
        "NoSuchClass.field",
    ],
)
def test_resolves_rejects_names_nobody_declares(name: str) -> None:
    assert not resolves(name), name


def test_unknown_identifiers_lists_lesson_line_and_span(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "s01-loop" / "lesson.md"
    path.parent.mkdir(parents=True)
    path.write_text(
        textwrap.dedent("""\
        ---
        number: 1
        teaches: the `course_mode()` switch and `made_up_in_front_matter`.
        ---

        ## The hook

        Set `COURSE_MODE` with `cafe.endpoint.settings.config.course_mode` or call `make_client(mode="offline")`;
        see `cafe/endpoint/settings/config.py` and run `cafe doctor` or `toy.py`.

        | Development | Status | Take |
        |---|---|---|
        | a | b | uses `not_in_cafe_at_all` |

        ```python
        fenced_code_is_not_checked()
        ```

        The record has `cafe.endpoint.settings.config.definitely_missing`, and `None` is Python.
        """),
        encoding="utf-8",
    )
    missing = unknown_identifiers(path)
    assert missing == [
        (3, "made_up_in_front_matter"),
        (13, "not_in_cafe_at_all"),
        (19, "cafe.endpoint.settings.config.definitely_missing"),
    ]
    message = _report(path, missing)
    assert f"{path}:13: `not_in_cafe_at_all`" in message


def _fixture_lesson(tmp_path: Path, sentence: str) -> Path:
    path = tmp_path / "sessions" / "s07-repair-loop" / "lesson.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        f"---\nnumber: 7\n---\n\n## The theory in depth\n\n{sentence}\n", encoding="utf-8"
    )
    return path


# Near misses a lesson could plausibly print: a typo, a renamed function, an attribute or field
# that does not exist, a made-up name inside a real module or a real third-party package.
MADE_UP = [
    "`repair_ticket_with_retries`",
    "`retries_exhaust`",
    "`cafe.repair.CAP_MAXIMUM`",
    "`cafe.repair.repair_ticket.retry_view`",
    "`RepairResult.ticket_text`",
    "`cafe.detective`",
    "`openai.NoSuchClient`",
    "`json.dumpz`",
    "`failure_view_v2(failures)`",
]


@pytest.mark.parametrize("made_up", MADE_UP)
def test_a_lesson_naming_a_made_up_identifier_fails(tmp_path: Path, made_up: str) -> None:
    path = _fixture_lesson(
        tmp_path, f"`repair_ticket` stops at `CAP_DEFAULT`; then {made_up} runs."
    )
    with pytest.raises(AssertionError) as caught:
        check_lesson_identifiers(path)
    assert f":7: {made_up}" in str(caught.value), str(caught.value)


def test_the_same_lesson_with_real_names_passes(tmp_path: Path) -> None:
    # the control for the test above: the check fails on the made-up name, not on everything
    path = _fixture_lesson(
        tmp_path,
        "`repair_ticket` stops at `CAP_DEFAULT` with `retries_exhausted`; "
        "`cafe.repair.failure_view`, `RepairResult.stop_reason`, `openai.OpenAI`, "
        "`json.dumps` and `retry_messages(brief, failures, attempt, mode)` all exist.",
    )
    check_lesson_identifiers(path)


# ---------------------------------------------------------------------------------------------
# Reading time: what `time.reading` states holds the lesson's words at WORDS_PER_MINUTE

WORDS_PER_MINUTE = 200  # issue 27's reading speed
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_RANGE = re.compile(r"(\d+)\s*[–-]\s*(\d+) min")
_ONE = re.compile(r"(\d+) min")
_SPLIT = re.compile(r"(\d+) min before the notebook, (\d+) after")


def prose_words(text: str) -> int:
    """Words a reader reads: outside fenced code blocks, tokens holding a letter or digit (so a
    table's pipes and rules, and a list's dashes, are not words)."""
    count, fence = 0, None
    for line in text.splitlines():
        opened = _FENCE.match(line)
        if fence is None and opened:
            fence = opened.group(1)[:3]
        elif fence is not None:
            fence = None if line.strip().startswith(fence) else fence
        else:
            count += sum(1 for token in line.split() if re.search(r"\w", token))
    return count


def lesson_words(path: Path) -> tuple[int, int]:
    """(words up to the end of Build, words after it) in the lesson's body."""
    _, body, _ = split_front_matter(path.read_text(encoding="utf-8"))
    before, marker, after = body.partition("\n## Checkpoint")
    return prose_words(before), prose_words(marker + after)


def stated_minutes(reading: str) -> list[tuple[int, int]]:
    """(low, high) minutes per part `reading` states: one part for "15–20 min" or "15 min", two
    for "8 min before the notebook, 7 after"."""
    text = reading.replace("minutes", "min")
    if found := _SPLIT.fullmatch(text):
        return [(int(found[1]), int(found[1])), (int(found[2]), int(found[2]))]
    if found := _RANGE.fullmatch(text):
        return [(int(found[1]), int(found[2]))]
    if found := _ONE.fullmatch(text):
        return [(int(found[1]), int(found[1]))]
    return []


def reading_time_problem(path: Path) -> str | None:
    """Why the stated reading time does not hold the lesson's words, or None when it does."""
    reading = load_lesson(path).time["reading"]
    before, after = lesson_words(path)
    parts = [before, after] if "before the notebook" in reading else [before + after]
    minutes = [words / WORDS_PER_MINUTE for words in parts]
    stated = stated_minutes(reading)
    # rounding either way: 15.6 minutes is "15" or "16", and inside 16–20 or 10–15
    if len(stated) == len(minutes) and all(
        math.floor(m) <= high and math.ceil(m) >= low
        for m, (low, high) in zip(minutes, stated, strict=True)
    ):
        return None
    at = f"{WORDS_PER_MINUTE} words a minute"
    return (
        f"{path.relative_to(ROOT)}: time.reading says {reading!r}, but the body reads "
        f"{before + after} words ({before} up to the end of Build, {after} after) = "
        f"{(before + after) / WORDS_PER_MINUTE:.1f} min at {at}; state "
        f"'{round(before / WORDS_PER_MINUTE)} min before the notebook, "
        f"{round(after / WORDS_PER_MINUTE)} after' or a range that holds "
        f"{(before + after) / WORDS_PER_MINUTE:.1f} min (docs/AUTHORING.md, 'Reading time')"
    )


@pytest.mark.parametrize("path", LESSONS, ids=LESSON_IDS)
def test_lesson_reading_time_matches_its_words(path: Path) -> None:
    problem = reading_time_problem(path)
    assert problem is None, problem


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("one two three", 3),
        ("| a | b |\n|---|---|\n| 3 | x |", 4),
        ("- a list item\n\n```python\nnot = counted(at_all)\n```\nafter", 4),
        ("~~~\ncode\n~~~\n`code span` counts", 3),
    ],
)
def test_prose_words_leaves_out_code_blocks_and_pipes(text: str, words: int) -> None:
    assert prose_words(text) == words


@pytest.mark.parametrize(
    ("reading", "parts"),
    [
        ("15–20 min", [(15, 20)]),
        ("15-20 min", [(15, 20)]),
        ("16 min", [(16, 16)]),
        ("8 min before the notebook, 7 after", [(8, 8), (7, 7)]),
        ("a quarter of an hour", []),
    ],
)
def test_stated_minutes_reads_a_range_a_figure_or_a_split(reading: str, parts) -> None:
    assert stated_minutes(reading) == parts
