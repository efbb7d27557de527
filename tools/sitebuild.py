"""Build the course site: one HTML page per session, an index, one stylesheet.

`python tools/build.py site` calls `build_site(root)`; tests call `load_lesson(path)` to get the
same parsed, validated record the builder renders. The lesson format is the contract in
`docs/AUTHORING.md`; this module is the code that enforces it.

What the build checks, so a maintainer does not have to by hand:

- front matter: every field present, of the right type, number and slug matching the folder;
- sections: the ten required `##` headings, in order, the state-of-the-art one dated, its table
  with the columns Development, Status, Take, and a self-check made of `###` questions with answers;
- links: every link in a lesson and every link the templates generate (previous/next, index,
  prerequisites, notebook, toy, source) resolves, `#anchors` included.

Every failure is a `Problem` naming the file, the field or link, and what to fix. The build
collects all of them, writes what it could, and then raises `SiteBuildError` listing them all.

Layout of the output (`site/` by default, ignored by git):

    site/index.html            the course, both paths, every session
    site/sNN-slug.html         one page per session
    site/style.css             the one stylesheet (layout + pygments colours)

Pages link into the repository with paths relative to `site/` at the repository root
(`../notebooks/s07-repair-loop.ipynb`, `../sessions/s07-repair-loop/toy.py`), so they open from a
checkout; repository links are checked against `root` whatever `out` is.
"""

from __future__ import annotations

import html
import posixpath
import re
import time
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Iterable, Sequence
from urllib.parse import unquote, urlsplit

import jinja2
import yaml
from markdown_it import MarkdownIt
from markdown_it.token import Token
from pygments import highlight as pygments_highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name
from pygments.util import ClassNotFound

__all__ = [
    "COURSE_NAME",
    "COURSE_MODULES",
    "REQUIRED_SECTIONS",
    "BuildReport",
    "Lesson",
    "LessonError",
    "Problem",
    "Section",
    "SiteBuildError",
    "build_site",
    "discover_lessons",
    "load_lesson",
    "main",
]

COURSE_NAME = "The Agent Harness Path"

TEMPLATES = Path(__file__).parent / "site_templates"

# The session map from DESIGN.md: number -> (topic, module). The page's module list shows these,
# with the page's own session marked.
COURSE_MODULES: tuple[tuple[int, str, str], ...] = (
    (1, "loop", "cafe/loop.py"),
    (2, "evals", "cafe/evals.py"),
    (3, "context", "cafe/context.py"),
    (4, "schema", "cafe/schema.py"),
    (5, "consent", "cafe/consent.py"),
    (6, "detect", "cafe/detect.py"),
    (7, "repair", "cafe/repair.py"),
    (8, "trace", "cafe/trace.py"),
    (9, "report", "cafe/report.py"),
    (10, "taxonomy", "cafe/taxonomy.py"),
    (11, "routing", "cafe/routing.py"),
    (12, "judge", "cafe/judge.py"),
    (13, "stall", "cafe/stall.py"),
    (14, "governor", "cafe/governor.py"),
    (15, "monitors", "cafe/monitors.py"),
)

# Which path a session number belongs to (AUTHORING.md: setup s00, core s01-s12, harness s13-s15).
PATHS: dict[str, range] = {"setup": range(0, 1), "core": range(1, 13), "harness": range(13, 16)}

MONTHS = (
    "January February March April May June July August September October November December"
).split()
_STATE_OF_THE_ART = re.compile(r"State of the art \(as of (%s) (\d{4})\)$" % "|".join(MONTHS))
STATE_OF_THE_ART_EXAMPLE = "State of the art (as of November 2026)"

# The ten `##` sections, in order (AUTHORING.md). The sixth is matched by `_STATE_OF_THE_ART`.
REQUIRED_SECTIONS: tuple[str, ...] = (
    "The hook",
    "The promise",
    "The theory in depth",
    "Build (in the notebook, predict first)",
    "Checkpoint: the number you bank",
    "State of the art (as of Month YYYY)",
    "Annotated readings",
    "Misconceptions and failure modes",
    "Self-check",
    "What this unlocks",
)
_SOTA_INDEX = 5
_SELF_CHECK = "Self-check"
SOTA_COLUMNS = ("Development", "Status", "Take")

TIME_KEYS = ("reading", "notebook", "self_check")
TIME_LABELS = {"reading": "reading", "notebook": "notebook", "self_check": "self-check"}
MAX_TIME_CHARS = 40  # "short string": a range and a unit, not a paragraph

FOLDER_RE = re.compile(r"^s(\d{2})-([a-z0-9]+(?:-[a-z0-9]+)*)$")
_EXAMPLE_FRONT_MATTER = "see the example in docs/AUTHORING.md"


# ---------------------------------------------------------------------------------------------
# Records


@dataclass(frozen=True)
class Problem:
    """One thing wrong with the course: where it is and what to do about it."""

    file: str  # repository-relative path of the file at fault
    where: str  # the field, section or link, e.g. "field 'time'" or "link 'x.md#y' (line 12)"
    message: str  # what is wrong and how to fix it

    def __str__(self) -> str:
        return f"{self.file}: {self.where}: {self.message}"


class LessonError(ValueError):
    """A lesson does not meet docs/AUTHORING.md; `problems` lists every reason."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = list(problems)
        super().__init__("\n".join(str(p) for p in self.problems))


class SiteBuildError(RuntimeError):
    """The site build found problems; `problems` lists all of them, `report` has what was built."""

    def __init__(self, problems: Sequence[Problem], report: "BuildReport") -> None:
        self.problems = list(problems)
        self.report = report
        lines = [f"site build failed with {len(self.problems)} problem(s):"]
        lines += [f"  - {p}" for p in self.problems]
        super().__init__("\n".join(lines))


@dataclass(frozen=True)
class CarriedIn:
    module: str
    session: int
    summary: str


@dataclass(frozen=True)
class Shipped:
    module: str
    summary: str


@dataclass(frozen=True)
class Section:
    """A `##` section of a lesson: its heading, its anchor and its tokens' line span."""

    title: str
    anchor: str
    line: int  # 1-based line of the heading in lesson.md
    tokens: tuple[Token, ...] = field(repr=False, compare=False)


@dataclass(frozen=True)
class Lesson:
    """A parsed, validated lesson: front matter fields plus its sections."""

    source: Path  # absolute path of lesson.md
    rel: str  # repository-relative path, e.g. sessions/s07-repair-loop/lesson.md
    folder: str  # e.g. s07-repair-loop
    number: int
    slug: str
    title: str
    path: str  # setup, core or harness
    carried_in: tuple[CarriedIn, ...]
    ships: tuple[Shipped, ...]
    teaches: str
    time: dict[str, str]
    prerequisites: tuple[int, ...]
    hands_on: str
    sections: tuple[Section, ...]
    body: str = field(repr=False)
    body_line: int = 1  # 1-based line in lesson.md where the body (after front matter) starts

    @property
    def page(self) -> str:
        return f"{self.folder}.html"

    @property
    def label(self) -> str:
        return f"S{self.number:02d}"

    def section(self, title: str) -> Section:
        for section in self.sections:
            if section.title == title or (title == "State of the art" and _STATE_OF_THE_ART.match(section.title)):
                return section
        raise KeyError(title)


@dataclass
class BuildReport:
    """What a build wrote, what it found wrong, and how long it took."""

    out: Path
    pages: list[Path] = field(default_factory=list)
    lessons: list[Lesson] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> str:
        state = "ok" if self.ok else f"{len(self.problems)} problem(s)"
        return (
            f"site: {len(self.pages)} page(s), {len(self.lessons)} session(s) -> {self.out} "
            f"in {self.seconds:.2f}s ({state})"
        )


# ---------------------------------------------------------------------------------------------
# Markdown: one parser, pygments for code, GitHub-style heading anchors


def _highlight(code: str, lang: str, _attrs: str) -> str:
    """Highlight a fenced block with pygments; plain escaped text when the language is unknown."""
    try:
        lexer = get_lexer_by_name(lang or "text")
    except ClassNotFound:
        lexer = get_lexer_by_name("text")
    inner = pygments_highlight(code, lexer, HtmlFormatter(nowrap=True))
    css_lang = html.escape(lang or "text", quote=True)
    return f'<pre class="highlight"><code class="language-{css_lang}">{inner}</code></pre>\n'


def make_markdown() -> MarkdownIt:
    md = MarkdownIt("commonmark", {"html": False, "highlight": _highlight})
    md.enable(["table", "strikethrough"])

    def table_open(self, tokens, idx, options, env):  # tables scroll inside their own box on a phone
        return '<div class="scroll">' + md.renderer.renderToken(tokens, idx, options, env)

    def table_close(self, tokens, idx, options, env):
        return md.renderer.renderToken(tokens, idx, options, env) + "</div>\n"

    md.add_render_rule("table_open", table_open)
    md.add_render_rule("table_close", table_close)
    return md


def slugify(text: str) -> str:
    """GitHub's heading anchor: lower case, punctuation dropped, spaces to hyphens."""
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text, flags=re.UNICODE)
    return text.replace(" ", "-")


class Slugger:
    """Unique anchors within one page, deduplicated the way GitHub does (`x`, `x-1`, `x-2`)."""

    def __init__(self, reserved: Iterable[str] = ()) -> None:
        self.seen: dict[str, int] = {name: 0 for name in reserved}

    def __call__(self, text: str) -> str:
        base = slugify(text) or "section"
        if base not in self.seen:
            self.seen[base] = 0
            return base
        while True:
            self.seen[base] += 1
            candidate = f"{base}-{self.seen[base]}"
            if candidate not in self.seen:
                self.seen[candidate] = 0
                return candidate


# ids the page template uses itself; lesson headings never take them
TEMPLATE_IDS = ("page-top", "page-on-this-page", "page-modules", "page-main", "page-nav")


def _inline_text(inline: Token) -> str:
    """The plain text of an inline token (code spans keep their content, markup is dropped)."""
    return "".join(child.content for child in inline.children or () if child.type in ("text", "code_inline"))


# ---------------------------------------------------------------------------------------------
# Loading and validating one lesson


def _rel(path: Path, root: Path) -> str:
    try:
        return path.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return path.as_posix()


def _split_front_matter(text: str) -> tuple[str | None, str, int]:
    """(front matter YAML or None, body, 1-based line where the body starts)."""
    lines = text.splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        return None, text, 1
    for i in range(1, len(lines)):
        if lines[i].strip() == "---":
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), i + 2
    return None, text, 1


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _type_name(value: Any) -> str:
    return {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", type(None): "empty"}.get(
        type(value), type(value).__name__
    )


def _check_front_matter(
    data: dict[str, Any], folder_number: int | None, folder_slug: str | None, rel: str
) -> list[Problem]:
    problems: list[Problem] = []

    def bad(name: str, message: str) -> None:
        problems.append(Problem(rel, f"field '{name}'", message))

    def nonempty_str(name: str, value: Any) -> bool:
        if not isinstance(value, str) or not value.strip():
            bad(name, f"expected a non-empty string, got {_type_name(value)} ({value!r}); {_EXAMPLE_FRONT_MATTER}")
            return False
        return True

    required = ("number", "slug", "title", "path", "carried_in", "ships", "teaches", "time", "prerequisites", "hands_on")
    for name in required:
        if name not in data:
            bad(name, f"missing; every front-matter field is required ({', '.join(required)}); {_EXAMPLE_FRONT_MATTER}")
    for name in data:
        if name not in required:
            bad(str(name), f"unknown field; the fields are {', '.join(required)} (check the spelling)")

    number = data.get("number")
    if "number" in data:
        if not _is_int(number):
            bad("number", f"expected an integer like 7, got {_type_name(number)} ({number!r})")
            number = None
        elif folder_number is not None and number != folder_number:
            bad("number", f"is {number} but the folder says {folder_number:02d}; make them match")
    if "slug" in data and nonempty_str("slug", data["slug"]):
        if folder_slug is not None and data["slug"] != folder_slug:
            bad("slug", f"is {data['slug']!r} but the folder says {folder_slug!r}; make them match")
    if "title" in data:
        nonempty_str("title", data["title"])
    if "path" in data:
        value = data["path"]
        if value not in PATHS:
            bad("path", f"expected one of setup, core, harness, got {value!r}")
        elif _is_int(number) and number not in PATHS[value]:
            right = next((name for name, span in PATHS.items() if number in span), None)
            hint = f"session {number} belongs on the {right} path" if right else "sessions run 00 to 15"
            bad("path", f"is {value!r} but {hint} (setup s00, core s01-s12, harness s13-s15)")

    if "carried_in" in data:
        value = data["carried_in"]
        if not isinstance(value, list):
            bad("carried_in", f"expected a list of {{module, session, summary}} entries, got {_type_name(value)}")
        else:
            if not value and _is_int(number) and number > 0:
                bad("carried_in", "is empty; only s00 may carry nothing in; list what earlier sessions gave you")
            for i, entry in enumerate(value):
                where = f"carried_in[{i}]"
                if not isinstance(entry, dict):
                    bad(where, f"expected a mapping with module, session, summary, got {_type_name(entry)}")
                    continue
                for key in ("module", "session", "summary"):
                    if key not in entry:
                        bad(f"{where}.{key}", "missing; each entry needs module, session and summary")
                for key in entry:
                    if key not in ("module", "session", "summary"):
                        bad(f"{where}.{key}", "unknown key; each entry has module, session and summary")
                if "module" in entry:
                    nonempty_str(f"{where}.module", entry["module"])
                if "summary" in entry:
                    nonempty_str(f"{where}.summary", entry["summary"])
                if "session" in entry and not _is_int(entry["session"]):
                    bad(f"{where}.session", f"expected a session number (int), got {entry['session']!r}")

    if "ships" in data:
        value = data["ships"]
        if not isinstance(value, list) or not value:
            bad("ships", f"expected a list with at least one {{module, summary}} entry, got {value!r}")
        else:
            for i, entry in enumerate(value):
                where = f"ships[{i}]"
                if not isinstance(entry, dict):
                    bad(where, f"expected a mapping with module and summary, got {_type_name(entry)}")
                    continue
                for key in ("module", "summary"):
                    if key not in entry:
                        bad(f"{where}.{key}", "missing; each entry needs module and summary")
                    else:
                        nonempty_str(f"{where}.{key}", entry[key])
                for key in entry:
                    if key not in ("module", "summary"):
                        bad(f"{where}.{key}", "unknown key; each entry has module and summary")

    if "teaches" in data:
        nonempty_str("teaches", data["teaches"])
    if "hands_on" in data:
        nonempty_str("hands_on", data["hands_on"])

    if "time" in data:
        value = data["time"]
        if not isinstance(value, dict):
            bad("time", f"expected a mapping with {', '.join(TIME_KEYS)}, got {_type_name(value)}")
        else:
            for key in TIME_KEYS:
                if key not in value:
                    bad(f"time.{key}", f"missing; time needs {', '.join(TIME_KEYS)} (e.g. '20–40 min')")
                elif nonempty_str(f"time.{key}", value[key]) and len(value[key]) > MAX_TIME_CHARS:
                    bad(f"time.{key}", f"is {len(value[key])} characters; keep it a short estimate like '20–40 min'")
            for key in value:
                if key not in TIME_KEYS:
                    bad(f"time.{key}", f"unknown key; time has {', '.join(TIME_KEYS)}")

    if "prerequisites" in data:
        value = data["prerequisites"]
        if not isinstance(value, list):
            bad("prerequisites", f"expected a list of session numbers like [1, 2, 6], got {_type_name(value)}")
        else:
            for i, item in enumerate(value):
                if not _is_int(item):
                    bad(f"prerequisites[{i}]", f"expected a session number (int), got {item!r}")
                elif _is_int(number) and not 0 <= item < number:
                    bad(f"prerequisites[{i}]", f"session {item} is not an earlier session than {number}")
    return problems


def _section_index(title: str) -> int | None:
    """Position of a heading in REQUIRED_SECTIONS, or None when it is not one of them."""
    if _STATE_OF_THE_ART.match(title):
        return _SOTA_INDEX
    if title in REQUIRED_SECTIONS and REQUIRED_SECTIONS.index(title) != _SOTA_INDEX:
        return REQUIRED_SECTIONS.index(title)
    return None


def _check_sections(sections: list[Section], rel: str) -> list[Problem]:
    """The ten required `##` sections, each once, in order; extra `##` headings are flagged."""
    problems: list[Problem] = []
    found: dict[int, Section] = {}
    furthest: tuple[int, Section] | None = None  # the latest required section seen so far
    for section in sections:
        where = f"section '## {section.title}' (line {section.line})"
        i = _section_index(section.title)
        if i is None:
            if section.title.lower().startswith("state of the art"):
                problems.append(Problem(rel, where, f"the heading must carry the month it was written, "
                                                    f"exactly like '## {STATE_OF_THE_ART_EXAMPLE}'"))
            else:
                close = [t for t in REQUIRED_SECTIONS if t.lower() == section.title.lower()]
                hint = f"did you mean '## {close[0]}'?" if close else "make it a '###' subsection or use one of the ten required headings"
                problems.append(Problem(rel, where, f"is not one of the required sections; {hint}"))
            continue
        if i in found:
            problems.append(Problem(rel, where, f"appears twice (first at line {found[i].line}); keep one"))
            continue
        if furthest is not None and i < furthest[0]:
            problems.append(Problem(rel, where, f"is out of order: it must come before '## {furthest[1].title}' "
                                                f"(order: {'; '.join(REQUIRED_SECTIONS)})"))
        found[i] = section
        if furthest is None or i > furthest[0]:
            furthest = (i, section)
    for i, title in enumerate(REQUIRED_SECTIONS):
        if i not in found:
            shown = STATE_OF_THE_ART_EXAMPLE if i == _SOTA_INDEX else title
            after = f"after '## {REQUIRED_SECTIONS[i - 1]}'" if i else "as the first section"
            problems.append(Problem(rel, f"section '## {title}'", f"is missing; add '## {shown}' {after}"))

    if _SOTA_INDEX in found:
        problems += _check_sota_table(found[_SOTA_INDEX], rel)
    self_check = REQUIRED_SECTIONS.index(_SELF_CHECK)
    if self_check in found:
        problems += _check_self_check(found[self_check], rel)
    return problems


def _check_sota_table(section: Section, rel: str) -> list[Problem]:
    where = f"section '## {section.title}' (line {section.line})"
    tokens = section.tokens
    for i, token in enumerate(tokens):
        if token.type == "thead_open":
            headers = []
            for t in tokens[i:]:
                if t.type == "thead_close":
                    break
                if t.type == "inline":
                    headers.append(t.content.strip())
            if tuple(headers) == SOTA_COLUMNS:
                return []
            return [Problem(rel, where, f"the table's columns are {' | '.join(headers)}; "
                                        f"they must be {' | '.join(SOTA_COLUMNS)}")]
    return [Problem(rel, where, f"needs a table with the columns {' | '.join(SOTA_COLUMNS)}")]


def _split_questions(section: Section) -> tuple[list[Token], list[tuple[Token, int, list[Token], str]]]:
    """Self-check tokens -> (intro tokens, [(question inline token, line, answer tokens, anchor)])."""
    intro: list[Token] = []
    questions: list[tuple[Token, int, list[Token], str]] = []
    tokens = list(section.tokens)
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open" and token.tag == "h3" and token.level == 0:
            line = (token.map[0] + 1) if token.map else 0
            questions.append((tokens[i + 1], line, [], str(token.attrs.get("id", ""))))
            i += 3  # heading_open, inline, heading_close
            continue
        (questions[-1][2] if questions else intro).append(token)
        i += 1
    return intro, questions


def _check_self_check(section: Section, rel: str) -> list[Problem]:
    intro, questions = _split_questions(section)
    where = f"section '## {section.title}' (line {section.line})"
    if not questions:
        return [Problem(rel, where, "has no questions; write each question as a '### ' heading with its answer below it")]
    problems = []
    for inline, line, answer, _ in questions:
        if not any(t.type != "hr" for t in answer):
            problems.append(Problem(rel, f"self-check question '{inline.content}' (line {line})",
                                    "has no answer; write the answer as paragraphs under the question"))
    return problems


def _sections_from_tokens(tokens: list[Token], body_line: int, reserved: Iterable[str] = TEMPLATE_IDS) -> tuple[list[Token], list[Section], Slugger]:
    """Split a parsed body on top-level `##` headings; give every heading a unique anchor."""
    slugger = Slugger(reserved)
    preamble: list[Token] = []
    sections: list[tuple[str, str, int, list[Token]]] = []
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token.type == "heading_open" and token.level == 0:
            inline = tokens[i + 1]
            anchor = slugger(_inline_text(inline))
            if token.map:
                token.map = [token.map[0] + body_line - 1, token.map[1] + body_line - 1]
            if token.tag == "h2":
                sections.append((inline.content.strip(), anchor, token.map[0] + 1 if token.map else 0, []))
                i += 3
                continue
            token.attrSet("id", anchor)
        elif token.map:
            token.map = [token.map[0] + body_line - 1, token.map[1] + body_line - 1]
        (sections[-1][3] if sections else preamble).append(token)
        i += 1
    return preamble, [Section(t, a, ln, tuple(toks)) for t, a, ln, toks in sections], slugger


def _parse(path: Path, root: Path) -> tuple[Lesson | None, list[Problem]]:
    """Read and check lesson.md: (the record if its front matter is usable, every problem found)."""
    rel = _rel(path, root)
    folder = path.parent.name
    problems: list[Problem] = []
    folder_number = folder_slug = None
    m = FOLDER_RE.match(folder)
    if m:
        folder_number, folder_slug = int(m.group(1)), m.group(2)
    else:
        problems.append(Problem(rel, "folder", f"folder '{folder}' must be named sNN-slug, e.g. s07-repair-loop"))

    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        return None, [Problem(rel, "file", f"cannot be read as UTF-8 text ({exc})")]
    yaml_text, body, body_line = _split_front_matter(text)
    data: Any = None
    if yaml_text is None:
        problems.append(Problem(rel, "front matter", "missing; start the file with YAML between two '---' lines "
                                                     f"({_EXAMPLE_FRONT_MATTER})"))
    else:
        try:
            data = yaml.safe_load(yaml_text)
        except yaml.YAMLError as exc:
            problems.append(Problem(rel, "front matter", f"is not valid YAML: {exc}".replace("\n", " ")))
        if data is not None and not isinstance(data, dict):
            problems.append(Problem(rel, "front matter", f"must be a YAML mapping of fields, got {_type_name(data)}"))
            data = None
        if isinstance(data, dict):
            problems += _check_front_matter(data, folder_number, folder_slug, rel)
        elif data is None and not problems:
            problems.append(Problem(rel, "front matter", "is empty; every field is required"))

    md = make_markdown()
    tokens = md.parse(body, {})
    _, sections, _ = _sections_from_tokens(tokens, body_line)
    problems += _check_sections(sections, rel)

    front_ok = isinstance(data, dict) and not any(p.where.startswith(("field", "front matter", "folder")) for p in problems)
    if not front_ok:
        return None, problems
    lesson = Lesson(
        source=path.resolve(),
        rel=rel,
        folder=folder,
        number=data["number"],
        slug=data["slug"],
        title=data["title"].strip(),
        path=data["path"],
        carried_in=tuple(CarriedIn(e["module"], e["session"], e["summary"].strip()) for e in data["carried_in"]),
        ships=tuple(Shipped(e["module"], e["summary"].strip()) for e in data["ships"]),
        teaches=data["teaches"].strip(),
        time={key: data["time"][key].strip() for key in TIME_KEYS},
        prerequisites=tuple(data["prerequisites"]),
        hands_on=data["hands_on"].strip(),
        sections=tuple(sections),
        body=body,
        body_line=body_line,
    )
    return lesson, problems


def _root_of(path: Path) -> Path:
    """A lesson lives at <root>/sessions/sNN-slug/lesson.md."""
    return path.resolve().parent.parent.parent


def load_lesson(path: Path | str) -> Lesson:
    """Parse and validate one `sessions/sNN-slug/lesson.md`; raise `LessonError` listing every problem."""
    path = Path(path)
    lesson, problems = _parse(path, _root_of(path))
    if problems or lesson is None:
        raise LessonError(problems)
    return lesson


def discover_lessons(root: Path) -> list[Path]:
    """Every `sessions/*/lesson.md` under root, in folder order."""
    return sorted((root / "sessions").glob("*/lesson.md"))


# ---------------------------------------------------------------------------------------------
# Links: rewrite lesson links for the site, then check every link on every page


@dataclass(frozen=True)
class _LinkOrigin:
    file: str
    where: str  # "link 'x' (line 12)" or "notebook link" ...
    hint: str = ""


def _rewrite_links(lesson: Lesson, tokens: Iterable[Token], root: Path, origins: dict[str, _LinkOrigin]) -> None:
    """Point lesson links at the site: `../sNN-x/lesson.md#a` -> `sNN-x.html#a`, repo files -> `../path`.

    Links in lesson.md are written relative to the lesson file, so they also work when the file is
    read on a forge. Records where each rewritten href came from, for error messages.
    """
    lesson_dir = posixpath.dirname(lesson.rel)
    for token in tokens:
        children = token.children or ()
        for child in children:
            attr = "href" if child.type == "link_open" else "src" if child.type == "image" else None
            if attr is None:
                continue
            written = str(child.attrs.get(attr, ""))
            place = f"line {token.map[0] + 1}" if token.map else "front matter"
            origin = _LinkOrigin(lesson.rel, f"link '{written}' ({place})")
            parts = urlsplit(written)
            if parts.scheme or written.startswith("//") or not written:
                continue  # external: no network at build time, so not checked
            if not parts.path:  # '#anchor' on this page
                origins.setdefault(written, origin)
                continue
            target = posixpath.normpath(posixpath.join(lesson_dir, unquote(parts.path)))
            fragment = f"#{parts.fragment}" if parts.fragment else ""
            m = re.fullmatch(r"sessions/([^/]+)/lesson\.md", target)
            new = f"{m.group(1)}.html{fragment}" if m else f"../{target}{fragment}"
            if target.startswith("../") or target == "..":
                new = written  # outside the repository: leave it, the check reports it
                origins.setdefault(new, _LinkOrigin(lesson.rel, origin.where,
                                                    "points outside the repository; link to a file inside it"))
                continue
            child.attrs[attr] = new
            origins.setdefault(new, origin)


class _PageScan(HTMLParser):
    """Collect ids and outgoing link targets of one generated page."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])  # type: ignore[arg-type]
        if tag == "a" and values.get("name"):
            self.ids.add(values["name"])  # type: ignore[arg-type]
        for attr in ("href", "src"):
            if tag in ("a", "link", "img", "script") and values.get(attr):
                self.links.append(values[attr])  # type: ignore[arg-type]


def _scan(page_html: str) -> _PageScan:
    scan = _PageScan()
    scan.feed(page_html)
    scan.close()
    return scan


def _check_links(
    pages: dict[str, str], origins: dict[str, dict[str, _LinkOrigin]], page_sources: dict[str, str], root: Path, extra_files: set[str]
) -> list[Problem]:
    # a page missing because its lesson.md failed validation is reported as that, not as a typo
    """Every href/src on every page resolves: site pages and their anchors, repository files."""
    scans = {name: _scan(text) for name, text in pages.items()}
    problems: list[Problem] = []
    for name, scan in scans.items():
        seen: set[str] = set()
        for href in scan.links:
            if href in seen:
                continue
            seen.add(href)
            parts = urlsplit(href)
            if parts.scheme or href.startswith("//"):
                continue
            origin = origins.get(name, {}).get(href) or _LinkOrigin(page_sources[name], f"generated link '{href}' on {name}",
                                                                   "this link comes from the page template")
            fragment = unquote(parts.fragment)
            # the page's place in the repository is site/<name>
            target = posixpath.normpath(posixpath.join("site", unquote(parts.path))) if parts.path else f"site/{name}"
            problem = None
            if target.startswith("../") or target == "..":
                problem = origin.hint or "points outside the repository; link to a file inside it"
            elif target.startswith("site/"):
                page = target[len("site/"):]
                if page in scans:
                    if fragment and fragment not in scans[page].ids:
                        known = ", ".join(sorted(i for i in scans[page].ids if not i.startswith("page-"))[:20])
                        on = "this page" if page == name else page
                        problem = f"anchor '#{fragment}' does not exist on {on}; use one of: {known}"
                elif page not in extra_files:
                    lesson = re.fullmatch(r"(s\d{2}-[^/]+)\.html", page)
                    if lesson and (root / "sessions" / lesson.group(1) / "lesson.md").exists():
                        problem = (f"sessions/{lesson.group(1)}/lesson.md did not build (its problems are listed "
                                   f"in this report), so the link cannot be checked; fix that lesson first")
                    else:
                        problem = (f"there is no page {page}" + (f" (no sessions/{lesson.group(1)}/lesson.md)" if lesson else "")
                                   + "; link to an existing session's lesson.md, e.g. ../s01-loop/lesson.md")
            else:
                # a repository file; anchors into files other than lessons are not checked
                if not (root / target).exists():
                    problem = f"{target} does not exist in the repository; " + (
                        origin.hint or "fix the path (links are relative to the lesson file)")
            if problem:
                problems.append(Problem(origin.file, origin.where, problem))
    return problems


# ---------------------------------------------------------------------------------------------
# Rendering


def _environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    return env


def _stylesheet() -> str:
    base = (TEMPLATES / "style.css").read_text(encoding="utf-8")
    colours = HtmlFormatter(style="friendly").get_style_defs(".highlight")
    return f"{base}\n/* code colours: pygments 'friendly' style, generated by tools/sitebuild.py */\n{colours}\n"


def _render_lesson_parts(lesson: Lesson, root: Path, md: MarkdownIt, origins: dict[str, _LinkOrigin]) -> dict[str, Any]:
    """Render the lesson body: preamble, sections (self-check as <details>), inline front-matter text."""
    env: dict[str, Any] = {}
    tokens = md.parse(lesson.body, env)  # fresh tokens: rendering rewrites links in place
    preamble, sections, _ = _sections_from_tokens(tokens, lesson.body_line)
    _rewrite_links(lesson, tokens, root, origins)
    render = lambda toks: md.renderer.render(list(toks), md.options, env)  # noqa: E731

    rendered = []
    for section in sections:
        item: dict[str, Any] = {"title": section.title, "anchor": section.anchor, "questions": None,
                                "title_html": md.renderInline(section.title, env)}
        if section.title == _SELF_CHECK:
            intro, questions = _split_questions(section)
            item["html"] = render(intro)
            item["questions"] = [
                {
                    "html": md.renderer.renderInline(inline.children or [], md.options, env),
                    "anchor": anchor,
                    "answer": render(answer),
                }
                for inline, _, answer, anchor in questions
            ]
        else:
            item["html"] = render(section.tokens)
        rendered.append(item)

    def inline(text: str) -> str:
        inline_tokens = md.parseInline(text, env)
        _rewrite_links(lesson, inline_tokens, root, origins)
        return md.renderer.render(inline_tokens, md.options, env)

    return {"preamble": render(preamble), "sections": rendered, "inline": inline}


def _format_time(time_: dict[str, str]) -> list[tuple[str, str]]:
    return [(TIME_LABELS[k], time_[k]) for k in TIME_KEYS]


def _lesson_context(
    lesson: Lesson, neighbours: tuple[Lesson | None, Lesson | None], by_number: dict[int, Lesson], root: Path, md: MarkdownIt
) -> tuple[dict[str, Any], dict[str, _LinkOrigin]]:
    """What lesson.html needs for one page, and where each of its links comes from."""
    origins: dict[str, _LinkOrigin] = {}
    parts = _render_lesson_parts(lesson, root, md, origins)
    inline = parts["inline"]
    notebook = f"notebooks/{lesson.folder}.ipynb"
    toy = f"sessions/{lesson.folder}/toy.py"
    origins[f"../{notebook}"] = _LinkOrigin(
        lesson.rel, f"notebook link '../{notebook}'",
        f"write sessions/{lesson.folder}/notebook.py and run `python tools/build.py notebooks`")
    origins[f"../{toy}"] = _LinkOrigin(
        lesson.rel, f"toy link '../{toy}'", f"add sessions/{lesson.folder}/toy.py (docs/AUTHORING.md, toy.py)")

    def page_of(number: int) -> str | None:
        return by_number[number].page if number in by_number else None

    context = {
        "course": COURSE_NAME,
        "lesson": lesson,
        "path_label": f"{lesson.path} path",
        "title_text": f"{lesson.label} · {lesson.title}",
        "teaches": inline(lesson.teaches),
        "hands_on": inline(lesson.hands_on),
        "carried_in": [{"module": c.module, "session": c.session, "summary": inline(c.summary), "page": page_of(c.session)}
                       for c in lesson.carried_in],
        "ships": [{"module": s.module, "summary": inline(s.summary)} for s in lesson.ships],
        "time": _format_time(lesson.time),
        "prerequisites": [{"label": f"S{n:02d}", "title": by_number[n].title if n in by_number else _topic(n),
                           "page": page_of(n)} for n in lesson.prerequisites],
        "modules": [{"number": n, "topic": topic, "module": module, "current": n == lesson.number, "page": page_of(n)}
                    for n, topic, module in COURSE_MODULES],
        "preamble": parts["preamble"],
        "sections": parts["sections"],
        "notebook": f"../{notebook}",
        "toy": f"../{toy}",
        "source": f"../{lesson.rel}",
        "prev": neighbours[0],
        "next": neighbours[1],
    }
    return context, origins


def _load_all(root: Path) -> tuple[list[Lesson], list[Problem]]:
    """Every lesson that parsed, in session order, and every problem found on the way."""
    lessons: list[Lesson] = []
    problems: list[Problem] = []
    for path in discover_lessons(root):
        lesson, found = _parse(path, root)
        problems += found
        if lesson is not None:
            lessons.append(lesson)
    lessons.sort(key=lambda lesson: (lesson.number, lesson.folder))
    for before, after in zip(lessons, lessons[1:]):
        if before.number == after.number:
            problems.append(Problem(after.rel, "field 'number'", f"session {after.number} is also {before.rel}; renumber one"))
    return lessons, problems


def build_site(root: Path | str, out: Path | str | None = None) -> BuildReport:
    """Render every session under `root/sessions` into `out` (default `root/site`).

    Returns a `BuildReport` when the course is clean. Otherwise writes what it could and raises
    `SiteBuildError` listing every problem (front matter, sections, links) at once.
    """
    started = time.perf_counter()
    root = Path(root).resolve()
    out = Path(out).resolve() if out is not None else root / "site"
    report = BuildReport(out=out)
    lessons, report.problems = _load_all(root)
    report.lessons = lessons

    md = make_markdown()
    jenv = _environment()
    by_number = {lesson.number: lesson for lesson in lessons}
    pages: dict[str, str] = {}
    origins: dict[str, dict[str, _LinkOrigin]] = {}
    page_sources: dict[str, str] = {"index.html": "tools/site_templates/index.html"}
    for i, lesson in enumerate(lessons):
        neighbours = (lessons[i - 1] if i > 0 else None, lessons[i + 1] if i + 1 < len(lessons) else None)
        context, origins[lesson.page] = _lesson_context(lesson, neighbours, by_number, root, md)
        pages[lesson.page] = jenv.get_template("lesson.html").render(**context)
        page_sources[lesson.page] = lesson.rel
    pages["index.html"] = jenv.get_template("index.html").render(
        course=COURSE_NAME, paths=_index_paths(lessons, md), sessions=lessons)

    report.problems += _check_links(pages, origins, page_sources, root, extra_files={"style.css"})

    out.mkdir(parents=True, exist_ok=True)
    for stale in out.glob("*.html"):
        if stale.name not in pages:
            stale.unlink()
    (out / "style.css").write_text(_stylesheet(), encoding="utf-8")
    for name, text in pages.items():
        (out / name).write_text(text, encoding="utf-8")
        report.pages.append(out / name)
    report.seconds = time.perf_counter() - started
    if report.problems:
        raise SiteBuildError(report.problems, report)
    return report


def _topic(number: int) -> str:
    for n, topic, _ in COURSE_MODULES:
        if n == number:
            return topic
    return "setup" if number == 0 else f"session {number}"


def _index_paths(lessons: list[Lesson], md: MarkdownIt) -> list[dict[str, Any]]:
    """Sessions grouped by path, each with its time estimate and what it ships; planned ones named."""
    env: dict[str, Any] = {}
    inline = lambda text: md.renderInline(text, env)  # noqa: E731
    present = {lesson.number: lesson for lesson in lessons}
    groups = []
    for name, span in PATHS.items():
        entries = []
        for n in span:
            if n in present:
                lesson = present[n]
                entries.append({
                    "lesson": lesson,
                    "time": _format_time(lesson.time),
                    "ships": [{"module": s.module, "summary": inline(s.summary)} for s in lesson.ships],
                })
            else:
                module = next((m for k, _, m in COURSE_MODULES if k == n), None)
                entries.append({"lesson": None, "number": n, "topic": _topic(n), "module": module})
        groups.append({"name": name, "entries": entries})
    return groups


# ---------------------------------------------------------------------------------------------
# Command line: `python tools/sitebuild.py [root] [out]` (tools/build.py site calls build_site)


def main(argv: Sequence[str] | None = None) -> int:
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    root = Path(args[0]) if args else Path(__file__).resolve().parent.parent
    out = Path(args[1]) if len(args) > 1 else None
    try:
        report = build_site(root, out)
    except SiteBuildError as exc:
        print(exc, file=sys.stderr)
        print(exc.report.summary(), file=sys.stderr)
        return 1
    print(report.summary())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
