"""Run-to-run noise in failure output, as rules: one rule a record, grouped by token class.

Session 13 (`cafe/stall/evidence.py` applies these). Two sightings of one failure rarely print
the same bytes: a temporary folder is new, a clock moved on, a worker or thread got another
number. A rule masks one kind of such token. Each rule has a scope:

- `anywhere`: tokens that are random by construction or by their own format, masked even inside
  the test's data: a generated temporary name, a random or time-based UUID, an object's address, a
  build hash, a seed the runner prints, an ephemeral port, the order of a set display.
- `outside_data`: tokens that are noise only where the RUNNER writes them: a clock at the start
  of a log line, a duration on a result or summary line, a source location, a process id, a worker
  id, a progress percentage, a thread name. Inside data (a quoted literal, or what follows
  `KeyError:`) the same characters are the test's own values and are kept: `'09:30:00' ==
  '10:30:00'` and `KeyError: 'pid 4'` name different failures.

    token class        masked as            where the rules come from
    colour             (removed)            ANSI escape codes
    temp path          <tmp>/...            POSIX, macOS and Windows temporary roots, the first
                                            folder below them (mkdtemp, pytest-of-u/pytest-N,
                                            Go's TestX123/001, go-build123, node's mkdtemp)
    temp file          <tmp>/<tmpname>      tmpk3j4h5g6.json, ticket-q8w7e6r5.lock, tmp.AbC123
    uuid               <uuid>               versions 1, 4, 6, 7 (3, 5 and the nil UUID are data)
    address            at 0x<addr>          Python reprs, Go's race detector; `+0x1d` pc offsets
    traceback line     line <n>             Python's `File "x.py", line 34`
    set order          elements sorted      flat set and dict displays (hash-seed order)
    thread id          <ident>              `<Thread(worker, started 1402...)>`
    build hash         name-<hash>          cargo's target/debug/deps/till-3f0c2a1e9b7d4c1a
    seed               <seed>               pytest-randomly, hypothesis, go -shuffle, jest, rspec
    port               <port>               32768-65535 on a local address
    clock              <time>               a log line's leading time or date-time
    duration           <t>                  pytest, unittest, go test, cargo, cargo-nextest, jest,
                                            mocha, vitest, bun, deno, rspec, maven, gradle
    location           :<line>              `bill.py:21`, `src/lib.rs:21:5`
    process id         pid <n>              `pid 4242`, `PID=311`, a leading `[12345]`
    worker             gw<n>                pytest-xdist workers
    progress           [<pct>]              `[ 50%]`
    thread name        <thread>             Thread-3, goroutine 7, rust's `'main' (1718223)`,
                                            pool-1-thread-2, ThreadPoolExecutor-0_1, Task-12
    run count          <n>                  proptest's successes and rejects

The `outside_data` rules are next door, one runner's format a line, in
`cafe/stall/runner_noise.py`. Every pattern starts on fixed characters or at a line start, and no two adjacent parts can match
the same run of characters, so each rule is one linear pass; a rule whose keywords are all
absent is skipped.

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

import functools
import re
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal, get_args

__all__ = [
    "Scope",
    "SCOPES",
    "EPHEMERAL_PORT_FLOOR",
    "Rule",
    "rule",
    "anywhere_rules",
    "temp_rules",
]

# --- constants ------------------------------------------------------------------------------

# Where a rule may fire (module docstring).
Scope = Literal["anywhere", "outside_data"]
SCOPES: frozenset[str] = frozenset(get_args(Scope))

# Linux hands out ephemeral ports from 32768 up (its default ip_local_port_range); a port below
# that on a local address is one a test or a config file chose, and it is kept. (The port rule
# spells the range 32768-65535 out as a pattern; a test checks it against this number.)
EPHEMERAL_PORT_FLOOR = 32768

# A run of random characters as generators write them: 6 to 10 letters, digits and underscores
# holding at least one digit and one letter ("ticket-config" and "tmp-final" stay names).
_RANDOM = r"(?=[A-Za-z0-9_]{0,9}\d)(?=[A-Za-z0-9_]{0,9}[A-Za-z])[A-Za-z0-9_]{6,10}"
# A path separator: POSIX, Windows, or Windows inside a repr ('\\').
_SEP = r"(?:/|\\{1,2})"
_NAME = r"[^\\/\s'\":]+"
_PORTS = (
    r"(?:3276[89]|327[7-9]\d|32[89]\d\d|3[3-9]\d{3}|[45]\d{4}|6[0-4]\d{3}"
    r"|65[0-4]\d\d|655[0-2]\d|6553[0-5])\b"
)


# --- records --------------------------------------------------------------------------------


@dataclass(frozen=True)
class Rule:
    """One kind of noise: its name and token class, where it may fire, words one of which must
    occur for it to run (a cheap skip), the pattern, and what a match becomes."""

    name: str
    token_class: str
    scope: Scope
    keywords: tuple[str, ...]
    pattern: re.Pattern[str]
    mask: str | Callable[[re.Match[str]], str]

    def apply(self, text: str) -> str:
        if any(word in text for word in self.keywords):
            return self.pattern.sub(self.mask, text)
        return text


def rule(
    name: str,
    token_class: str,
    scope: Scope,
    keywords: tuple[str, ...],
    pattern: str,
    mask: str | Callable[[re.Match[str]], str],
) -> Rule:
    """A `Rule`, its pattern compiled with `^` and `$` at every line's start and end."""
    return Rule(name, token_class, scope, keywords, re.compile(pattern, re.MULTILINE), mask)


def _sort_display(match: re.Match[str]) -> str:
    """A flat set or dict of plain literals, its elements in sorted order; anything else as it was."""
    literal = r"""(?:'[^'\\\n,]*'|"[^"\\\n,]*"|-?\d+(?:\.\d+)?|True|False|None)"""
    inside = match.group(1)
    if not re.fullmatch(rf"{literal}(?:: {literal})?(?:, {literal}(?:: {literal})?)*", inside):
        return match.group(0)
    return "{" + ", ".join(sorted(inside.split(", "))) + "}"


def _local_port_lookbehind() -> str:
    """A port right after a local address: the end of an IPv4 address (".1:", ".1', "),
    localhost, or IPv6's closing bracket."""
    return "|".join(
        rf"(?<={host}{sep}\d{{5}})"
        for host in (r"\.\d", r"\.\d\d", r"\.\d\d\d", "localhost", r"\]")
        for sep in (":", "', ")
        if not (host == r"\]" and sep != ":")
    )


# --- the rules that read the environment: temporary roots ----------------------------------


@functools.cache
def temp_rules() -> tuple[Rule, ...]:
    """Temporary folders and the generated names right under them. Built on first use, not at
    import: the platform's temporary root comes from the environment (TMPDIR, through
    `tempfile`), and nothing in `cafe` reads it on import."""
    roots = sorted({tempfile.gettempdir().rstrip("/\\"), "/tmp", "/var/tmp"}, key=len, reverse=True)
    posix = "|".join(re.escape(root) for root in roots if root.startswith("/"))
    windows = (  # Windows paths ignore case
        rf"(?i:[A-Z]:{_SEP}(?:Users{_SEP}{_NAME}{_SEP}AppData{_SEP}Local{_SEP}Temp"
        rf"|Windows{_SEP}Temp))"
    )
    root = rf"(?:(?:/private)?(?:/var/folders/[^/\s]+/[^/\s]+/T|{posix})|{windows})"
    below = rf"(?:{_SEP}pytest-of-{_NAME}{_SEP}pytest-\d+|{_SEP}{_NAME}(?={_SEP}))?"
    return (
        rule("ansi", "colour", "anywhere", ("\x1b",), r"\x1b\[[0-9;?]*[ -/]*[@-~]", ""),
        rule(
            "temp_folder",
            "temp path",
            "anywhere",
            ("tmp", "Temp", "temp", "TEMP", "/var/folders/"),
            rf"(?<![\w.-]){root}(?![\w.-]){below}",
            "<tmp>",
        ),
        rule(
            "temp_file",
            "temp file",
            "anywhere",
            ("<tmp>",),
            rf"(?<=<tmp>){_SEP}(?:\.?tmp\.?|[\w.]+?[-_]){_RANDOM}(?=[.\s'\"]|$)",
            "/<tmpname>",
        ),
        rule(
            "pytest_base",
            "temp path",
            "anywhere",
            ("pytest-",),
            r"pytest-(?<![\w-]pytest-)\d+\b",
            "pytest-<n>",
        ),
    )


# --- the rules that fire anywhere, data included --------------------------------------------

_ANYWHERE = (
    rule(
        "uuid_random",
        "uuid",
        "anywhere",
        ("-",),
        r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[1467][0-9a-fA-F]{3}-[89abAB][0-9a-fA-F]{3}"
        r"-[0-9a-fA-F]{12}\b",
        "<uuid>",
    ),
    rule(
        "address",
        "address",
        "anywhere",
        ("at 0x",),
        r"at 0x(?<!\wat 0x)[0-9a-fA-F]+\b",
        "at 0x<addr>",
    ),
    rule(
        "go_signal_pc",
        "address",
        "anywhere",
        (" pc=0x",),
        r"(?<= pc=)0x[0-9a-f]+(?=\])",
        "0x<pc>",
    ),
    rule("go_pc", "address", "anywhere", ("+0x",), r"(\.go:\d+) \+0x[0-9a-f]+$", r"\1 +0x<off>"),
    rule(
        "traceback_line",
        "traceback line",
        "anywhere",
        ('File "',),
        r'(File "[^"\n]*", line )\d+',
        r"\1<n>",
    ),
    rule("set_display", "set order", "anywhere", ("{",), r"\{([^{}\n]*)\}", _sort_display),
    rule(
        "thread_ident",
        "thread id",
        "anywhere",
        ("started ",),
        r"(?<=, started )(?:daemon )?\d+(?=\)>)",
        "<ident>",
    ),
    rule(
        "cargo_build_hash",
        "build hash",
        "anywhere",
        ("deps",),
        r"(?<=deps[/\\])([\w-]+?)-[0-9a-f]{16}\b",
        r"\1-<hash>",
    ),
    rule(
        "pytest_randomly_seed", "seed", "anywhere", ("seed",), r"(?<=--randomly-seed=)\d+", "<seed>"
    ),
    rule("hypothesis_seed", "seed", "anywhere", ("@seed(",), r"(?<=@seed\()\d+(?=\))", "<seed>"),
    rule("go_shuffle_seed", "seed", "anywhere", ("shuffle",), r"(?<=-test\.shuffle )\d+", "<seed>"),
    rule("jest_seed_flag", "seed", "anywhere", ("--seed=",), r"(?<=--seed=)-?\d+", "<seed>"),
    rule(
        "jest_seed_line", "seed", "anywhere", ("Seed:",), r"^([ \t]*Seed:[ \t]+)-?\d+", r"\1<seed>"
    ),
    rule("rspec_seed", "seed", "anywhere", ("seed ",), r"(?<=Randomized with seed )\d+", "<seed>"),
    # thread and task names Java and asyncio print inside quotes of their own: generated, not data
    rule(
        "uncaught_thread",
        "thread name",
        "anywhere",
        ("Exception in thread",),
        r'(?<=Exception in thread ")(?:pool-\d+-thread-\d+|Thread-\d+|ForkJoinPool[\w.]*-worker-\d+)(?=")',
        "<thread>",
    ),
    rule(
        "asyncio_task_name",
        "thread name",
        "anywhere",
        ("name='Task-",),
        r"(?<=name=')Task-\d+(?=')",
        "Task-<n>",
    ),
    rule(
        "local_port",
        "port",
        "anywhere",
        (":", ", "),
        _PORTS + "(?:" + _local_port_lookbehind() + ")",
        "<port>",
    ),
)


# --- the main function ----------------------------------------------------------------------


def anywhere_rules() -> tuple[Rule, ...]:
    """The rules that fire on the whole text, in order: temporary paths first."""
    return temp_rules() + _ANYWHERE
