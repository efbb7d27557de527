"""Where a test runner writes noise of its own: clocks, durations, locations, ids, thread names.

Session 13 (`cafe/stall/evidence.py` applies these; the scopes and token classes are explained
in `cafe/stall/noise.py`). Every rule here has the scope `outside_data`: it masks a token only
where the runner wrote it (a result line, a summary, a log line's prefix), never inside a quoted
literal or a `KeyError`'s key, where the same characters are the test's data. One runner's format
a rule: pytest, unittest, go test, cargo (and cargo-nextest), jest, mocha, vitest, bun, deno,
rspec, maven and gradle.

Lesson: sessions/s13-stall-detection/lesson.md. Notebook: notebooks/s13-stall-detection.ipynb.
"""

from __future__ import annotations

from cafe.stall.noise import Rule, rule

__all__ = ["outside_data_rules"]

# A duration's number, and the marks JavaScript runners put before a result line.
_SECONDS = r"\d+(?:\.\d+)?"
_RESULT_MARKS = "✓✕√×✔✖✗❯"
# A log line's level word, and a clock time with an optional date, fraction and zone before it.
_LEVEL = r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL|FATAL)"
_CLOCK = (
    r"(?:\d{4}[-/]\d\d[-/]\d\d[T ])?\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?(?=\]?[\s,])"
)

_OUTSIDE_DATA = (
    # clocks: a log line's leading time, or the time right after its leading level
    rule("log_clock", "clock", "outside_data", (":",), rf"^([ \t]*\[?){_CLOCK}", r"\1<time>"),
    rule(
        "log_clock_after_level",
        "clock",
        "outside_data",
        (":",),
        rf"^([ \t]*\[?{_LEVEL}\]?[ \t]+\[?){_CLOCK}",
        r"\1<time>",
    ),
    rule(
        "vitest_start",
        "clock",
        "outside_data",
        ("Start at",),
        r"^([ \t]*Start at[ \t]+)\d\d:\d\d:\d\d",
        r"\1<time>",
    ),
    # durations, one runner's format a line
    rule(
        "pytest_summary",
        "duration",
        "outside_data",
        (" in ",),
        r"\b((?:passed|failed|errors?|skipped|xfailed|xpassed|warnings?|deselected|rerun"
        rf"|no tests ran) in ){_SECONDS}(?:s| seconds)\b(?: \(\d+:\d\d:\d\d\))?",
        r"\1<t>s",
    ),
    rule(
        "unittest_summary",
        "duration",
        "outside_data",
        ("Ran ",),
        rf"\b(Ran \d+ tests? in ){_SECONDS}s\b",
        r"\1<t>s",
    ),
    rule(
        "durations_report",
        "duration",
        "outside_data",
        ("s ",),
        rf"^{_SECONDS}s(?=[ \t]+(?:call|setup|teardown|test)\w*)",
        "<t>s",
    ),
    rule(
        "go_result",
        "duration",
        "outside_data",
        ("--- ",),
        rf"^([ \t]*--- (?:FAIL|PASS|SKIP): \S+) \({_SECONDS}s\)",
        r"\1 (<t>s)",
    ),
    rule(
        "go_package",
        "duration",
        "outside_data",
        ("ok", "FAIL"),
        rf"^((?:ok|FAIL)[ \t]+\S+[ \t]+)(?:{_SECONDS}s|\(cached\))",
        r"\1<t>s",
    ),
    rule(
        "cargo_finished",
        "duration",
        "outside_data",
        ("finished in ",),
        rf"(?<=finished in ){_SECONDS}s\b",
        "<t>s",
    ),
    rule(
        "nextest_result",
        "duration",
        "outside_data",
        ("s]",),
        rf"(?<=\[)[ \t]*{_SECONDS}s(?=\])",
        "<t>s",
    ),
    rule(
        "js_result_line",
        "duration",
        "outside_data",
        ("ms",),
        rf"^([ \t]*(?:[{_RESULT_MARKS}]|\(pass\)|\(fail\)) [^\n]*?)"
        rf"(?: \({_SECONDS} ?ms\)| {_SECONDS} ?ms| \[{_SECONDS} ?ms\])$",
        r"\1 <t>",
    ),
    rule(
        "jest_file_line",
        "duration",
        "outside_data",
        ("PASS", "FAIL"),
        rf"^((?:PASS|FAIL)[ \t]+\S+) \({_SECONDS} ?m?s\)$",
        r"\1 (<t>)",
    ),
    rule(
        "jest_time",
        "duration",
        "outside_data",
        ("Time:",),
        rf"^(Time:[ \t]+){_SECONDS} ?m?s(?:, estimated {_SECONDS} ?m?s)?",
        r"\1<t>",
    ),
    rule(
        "mocha_passing",
        "duration",
        "outside_data",
        ("passing",),
        rf"^([ \t]*\d+ passing) \({_SECONDS}m?s\)$",
        r"\1 (<t>)",
    ),
    rule(
        "vitest_duration",
        "duration",
        "outside_data",
        ("Duration",),
        rf"^([ \t]*Duration[ \t]+){_SECONDS}m?s(?: \([^()\n]*\))?",
        r"\1<t>",
    ),
    rule(
        "deno_test",
        "duration",
        "outside_data",
        (" ... ",),
        rf"^([^\n]*? \.\.\. (?:ok|FAILED|ignored)) \({_SECONDS}m?s\)$",
        r"\1 (<t>)",
    ),
    rule(
        "deno_summary",
        "duration",
        "outside_data",
        (" | ",),
        rf"^((?:ok|FAILED) \| \d+ passed[^\n]*?) \({_SECONDS}m?s\)$",
        r"\1 (<t>)",
    ),
    rule(
        "bun_summary",
        "duration",
        "outside_data",
        ("Ran ",),
        rf"^([ \t]*Ran \d+ tests? across \d+ files?\.) \[{_SECONDS}m?s\]",
        r"\1 [<t>]",
    ),
    rule(
        "rspec_finished",
        "duration",
        "outside_data",
        ("Finished in ",),
        rf"\b(Finished in ){_SECONDS} seconds?(?: \(files took {_SECONDS} seconds? to load\))?",
        r"\1<t>",
    ),
    rule(
        "maven_elapsed",
        "duration",
        "outside_data",
        ("Time elapsed",),
        rf"(Time elapsed: ){_SECONDS} ?s",
        r"\1<t>",
    ),
    rule(
        "gradle_build",
        "duration",
        "outside_data",
        ("BUILD ",),
        r"^(BUILD (?:FAILED|SUCCESSFUL) in )\d+\S*",
        r"\1<t>",
    ),
    rule(
        "tap_duration",
        "duration",
        "outside_data",
        ("duration_ms",),
        rf"^([ \t]*duration_ms: ){_SECONDS}$",
        r"\1<t>",
    ),
    rule(
        "took",
        "duration",
        "outside_data",
        ("took ",),
        rf"took(?<!\wtook) {_SECONDS} ?(?:ns|us|µs|ms|s|sec|secs|seconds|min|minutes)\b",
        "took <t>",
    ),
    # a line number right after a file extension of up to five characters ("check_bill.py:21",
    # "bill.py:12:5"); the extension is checked looking back from the colon
    rule(
        "location",
        "location",
        "outside_data",
        (":",),
        ":(?:" + "|".join(rf"(?<=\.[A-Za-z]\w{{{n}}}:)" for n in range(5)) + r")\d+(?::\d+)?",
        ":<line>",
    ),
    rule(
        "pid",
        "process id",
        "outside_data",
        ("pid", "PID", "Pid"),
        r"[Pp][Ii][Dd](?<!\w[Pp][Ii][Dd])[ =:#]*\d+",
        "pid <n>",
    ),
    rule("pid_prefix", "process id", "outside_data", ("[",), r"^\[\d{3,7}\](?= )", "[<pid>]"),
    rule("xdist_worker", "worker", "outside_data", ("gw",), r"\bgw\d+\b", "gw<n>"),
    rule("progress", "progress", "outside_data", ("%]",), r"\[[ \t]*\d{1,3}%\]", "[<pct>]"),
    rule(
        "python_thread",
        "thread name",
        "outside_data",
        ("Thread",),
        r"\b(?:Thread-\d+|ThreadPoolExecutor-\d+_\d+)\b",
        "<thread>",
    ),
    rule("asyncio_task", "thread name", "outside_data", ("Task-",), r"\bTask-\d+\b", "<thread>"),
    rule(
        "goroutine",
        "thread name",
        "outside_data",
        ("goroutine ",),
        r"\bgoroutine \d+\b",
        "goroutine <n>",
    ),
    rule(
        "rust_thread_id",
        "thread name",
        "outside_data",
        ("panicked",),
        r" \(\d+\)(?= panicked)",  # after the thread's quoted name, which is a data span
        " (<n>)",
    ),
    rule(
        "java_thread",
        "thread name",
        "outside_data",
        ("-thread-", "-worker-"),
        r"\b(?:pool-\d+-thread-\d+|ForkJoinPool(?:\.commonPool)?-worker-\d+)\b",
        "<thread>",
    ),
    rule(
        "proptest_counts",
        "run count",
        "outside_data",
        ("successes", "rejects"),
        r"^([ \t]*(?:successes|local rejects|global rejects): )\d+$",
        r"\1<n>",
    ),
)


def outside_data_rules() -> tuple[Rule, ...]:
    """The rules that never see inside a data span, in the order they apply."""
    return _OUTSIDE_DATA
