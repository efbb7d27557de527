"""The session map, declared once: each session's number, folder, topic, path, modules and product.

Everything else that lists the sessions reads this tuple or is checked against it: the site build
(`tools/lesson_format.py`) takes each lesson's path and folder name from it, the README's sessions
table is tested against it (`tests/test_readme.py`), and the architecture test
(`tests/test_architecture.py`) gives each `cafe` module the session listed here, so that a module
may import only modules of its own or an earlier session.

A session's `modules` are what it teaches, in one of three forms: a topic package (`cafe/repair/`,
every file in it), a one-module topic (`cafe/context.py`), or one file on a shared shelf
(`cafe/world/menu.py`: the café's world; `cafe/stories/feedback_model.py`: a scripted stand-in
that drives a story). Session 00 teaches the course's machinery: `cafe/endpoint/`, `cafe/course/`
and the `cafe` command. Modules of a session not written yet may be listed before they exist.
Adding a module to `cafe/` means adding it (or its package) to one session here; the architecture
test names any module missing from the map.

This is course machinery, not a lesson: no session teaches it. Whether a session is written is
not declared here; it is written when `sessions/<folder>/lesson.md` exists.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Literal, get_args

__all__ = [
    "COURSE_PATHS",
    "CoursePath",
    "MODULE_SESSIONS",
    "SESSIONS",
    "Session",
    "module_name",
    "session",
]

# The three paths, in the order a learner walks them: the on-ramp, the core harness (sessions
# 01 to 12), then the harness for long-running agents (13 to 15, and the capstone, 16).
CoursePath = Literal["setup", "core", "harness"]
COURSE_PATHS: tuple[str, ...] = get_args(CoursePath)

# A session folder is `sNN-<slug>`: lower-case words joined by hyphens.
SLUG_RE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")
# A module entry is a top-level file (`cafe/context.py`), a package (`cafe/repair/`) or a file on a
# shelf package (`cafe/world/menu.py`).
MODULE_RE = re.compile(r"cafe/([a-z_][a-z0-9_]*(?:/[a-z_][a-z0-9_]*)?)(?:\.py|/)")


def module_name(path: str) -> str:
    """`cafe/context.py` -> `cafe.context`, `cafe/repair/` -> `cafe.repair`, `cafe/world/menu.py` -> `cafe.world.menu`."""
    match = MODULE_RE.fullmatch(path)
    if match is None:
        raise ValueError(
            f"{path!r} is not a module of cafe; write a top-level file like 'cafe/context.py', "
            "a topic package like 'cafe/repair/' or a file on a shelf like 'cafe/world/menu.py'"
        )
    return "cafe." + match.group(1).replace("/", ".")


@dataclass(frozen=True)
class Session:
    """One session of the course: where it lives, what it is about and what it adds to `cafe`."""

    number: int  # 0 to 16
    slug: str  # the folder is sessions/sNN-<slug>, the notebook notebooks/sNN-<slug>.ipynb
    topic: str  # one word, as the site's module list and the README show it
    path: CoursePath
    modules: tuple[
        str, ...
    ]  # what it teaches, e.g. ("cafe/repair/", "cafe/stories/feedback_model.py")
    ships: str  # what it ships, in one line

    def __post_init__(self) -> None:
        if not SLUG_RE.fullmatch(self.slug):
            raise ValueError(
                f"session {self.number}: slug {self.slug!r} must be lower-case words joined by hyphens"
            )
        if self.path not in COURSE_PATHS:
            raise ValueError(
                f"session {self.number}: path {self.path!r} is not one of {', '.join(COURSE_PATHS)}"
            )
        if not isinstance(self.modules, tuple):
            raise TypeError(
                f"session {self.number}: modules must be a tuple of paths like ('cafe/loop/',)"
            )
        for path in self.modules:
            module_name(path)  # raises, naming the entry, when it is not a cafe module
        if not self.ships.strip() or "\n" in self.ships:
            raise ValueError(
                f"session {self.number}: ships must be one line saying what the session adds"
            )

    @property
    def folder(self) -> str:
        """`s07-repair-loop`: the session's folder under sessions/ and its notebook's name."""
        return f"s{self.number:02d}-{self.slug}"

    @property
    def module_names(self) -> tuple[str, ...]:
        """The modules as Python names: ("cafe.repair", "cafe.stories.feedback_model")."""
        return tuple(module_name(path) for path in self.modules)


SESSIONS: tuple[Session, ...] = (
    Session(
        0,
        "setup",
        "setup",
        "setup",
        ("cafe/endpoint/", "cafe/course/", "cafe/cli.py"),
        "install check, offline vs live, `cafe doctor`, how the notebook cells work",
    ),
    # The menu is the café's data from the first order on (session 01's order pad sells from it);
    # session 03 teaches why it is the trusted part of what the model sees, session 05 its kitchen
    # modifiers and how the café compares spellings (allergens, spelling, modifiers: the menu's own
    # files, which it imports).
    Session(
        1,
        "agent-loop",
        "loop",
        "core",
        (
            "cafe/loop/",
            "cafe/world/menu.py",
            "cafe/world/allergens.py",
            "cafe/world/spelling.py",
            "cafe/world/modifiers.py",
            "cafe/world/orderpad.py",
        ),
        "the agent loop: ask, run the tools asked for, repeat; a turn budget and a named stop",
    ),
    Session(
        2,
        "evals",
        "evals",
        "core",
        ("cafe/evals/", "cafe/stories/waiter.py"),
        "deterministic checks; every check has a fixture it passes and one it fails",
    ),
    Session(
        3,
        "context",
        "context",
        "core",
        ("cafe/context.py", "cafe/stories/obedient_waiter.py"),
        "what the model sees: trusted menu vs untrusted request, the context budget",
    ),
    Session(
        4,
        "schema",
        "schema",
        "core",
        ("cafe/schema/",),
        "the ticket contract (four fields) and strict structured output",
    ),
    Session(
        5,
        "consent-gate",
        "consent",
        "core",
        ("cafe/consent/",),
        "the consent gate: nothing may grow what the customer approved",
    ),
    Session(
        6,
        "detect",
        "detect",
        "core",
        ("cafe/detect/", "cafe/stories/obedient_drafter.py"),
        "unsafe, off-menu, 86'd, out-of-scope and injected requests, caught before the pass",
    ),
    Session(
        7,
        "repair-loop",
        "repair",
        "core",
        ("cafe/repair/", "cafe/stories/feedback_model.py"),
        "the bounded re-ask with a curated failure view and a closed stop-reason set",
    ),
    Session(
        8,
        "tracing",
        "trace",
        "core",
        ("cafe/trace/",),
        "spans, a JSONL record of a live session, a replay proven content-identical",
    ),
    Session(
        9,
        "shift-report",
        "report",
        "core",
        ("cafe/report/",),
        "a shift report: stop reasons, attempts, cost",
    ),
    Session(
        10,
        "failure-taxonomy",
        "taxonomy",
        "core",
        ("cafe/taxonomy/", "cafe/stories/practice_shift.py"),
        "error analysis: exhausted runs sorted into a failure taxonomy",
    ),
    Session(
        11,
        "cost-routing",
        "routing",
        "core",
        ("cafe/routing/",),
        "cost-aware routing between models; what retries cost",
    ),
    Session(
        12,
        "model-judge",
        "judge",
        "core",
        ("cafe/judge/",),
        "a model as judge, calibrated against the deterministic checks",
    ),
    Session(
        13,
        "stall-detection",
        "stall",
        "harness",
        (
            "cafe/stall/",
            "cafe/world/workbench.py",
            "cafe/world/atomic_write.py",
            "cafe/world/pytest_runs.py",
            "cafe/world/processes.py",
            "cafe/stories/scenarios.py",
        ),
        "the evidence-aware repair loop: a current-failure model keyed on failure signatures",
    ),
    Session(
        14,
        "host-facts",
        "governor",
        "harness",
        ("cafe/governor/",),
        "host-supplied facts (`progress_signal`, `remediation_delivered`) and the pace governor",
    ),
    Session(
        15,
        "run-monitors",
        "monitors",
        "harness",
        ("cafe/monitors/", "cafe/stories/monitor_stories.py"),
        "verification tiers, the progress monitor, safe-state abort, residual objectives",
    ),
    # The capstone: a new agent in the same world (the café's restock agent), whose harness the
    # learner makes from the pieces of sessions 04 to 15; `cafe capstone check` grades it.
    Session(
        16,
        "capstone",
        "capstone",
        "harness",
        ("cafe/capstone/",),
        "the restock agent's harness, made by the learner and graded on generated scenarios",
    ),
)


def _module_sessions(sessions: tuple[Session, ...]) -> Mapping[str, int]:
    """`cafe.repair` -> 7, refusing a module given to two sessions."""
    found: dict[str, int] = {}
    for entry in sessions:
        for name in entry.module_names:
            if name in found:
                raise ValueError(
                    f"{name} is listed under sessions {found[name]} and {entry.number}; keep it in one"
                )
            found[name] = entry.number
    return MappingProxyType(found)


# Which session teaches each module, read off SESSIONS.
MODULE_SESSIONS: Mapping[str, int] = _module_sessions(SESSIONS)

# The sessions run 00 to 16 without a gap, and the paths come in course order, each one unbroken.
assert [entry.number for entry in SESSIONS] == list(range(len(SESSIONS)))
assert [entry.path for entry in SESSIONS] == sorted(
    (entry.path for entry in SESSIONS), key=COURSE_PATHS.index
)


def session(number: int) -> Session:
    """The session with this number; ValueError naming the valid range for any other."""
    if isinstance(number, bool) or not isinstance(number, int) or not 0 <= number < len(SESSIONS):
        raise ValueError(f"there is no session {number!r}; sessions run 0 to {len(SESSIONS) - 1}")
    return SESSIONS[number]
