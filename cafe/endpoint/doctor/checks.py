"""What `cafe doctor` reports: one `Check` per line, a `DoctorReport` of them all, and the writer.

`ReportWriter` prints each check as it is added, one line each (plus a fix line for a failure),
with every secret scrubbed from every line (`cafe.endpoint.secrets.redaction`: the API key, the other
secrets the settings hold, and anything shaped like a credential), then every control character a
terminal would obey written as its escape (`cafe.endpoint.secrets.terminal.visible`: a model id or
a reply from the endpoint may hold ESC), and keeps them for the `DoctorReport` the doctor returns.
Both happen here, where each line leaves, so a line reads the same on a terminal, in a notebook
and in a `StringIO`, whichever check wrote it. `cafe.endpoint.doctor.health` runs the checks. Session 00 (`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TextIO

from cafe.endpoint.secrets.redaction import redactor_for
from cafe.endpoint.secrets.terminal import visible
from cafe.endpoint.settings.variables import Mode

__all__ = ["Check", "DoctorReport", "ReportWriter"]


@dataclass(frozen=True)
class Check:
    """One line of the report: what was checked, whether it passed, what was seen, how to fix it.

    `skipped` checks were not run because an earlier one failed; they count as not passed.
    """

    name: str
    ok: bool
    detail: str
    fix: str = ""
    skipped: bool = False


@dataclass(frozen=True)
class DoctorReport:
    """Every check the doctor ran, in order. `ok` is True when all of them passed."""

    mode: Mode | None  # None when COURSE_MODE itself is invalid
    checks: tuple[Check, ...]

    @property
    def ok(self) -> bool:
        return all(check.ok for check in self.checks)

    @property
    def failed(self) -> tuple[Check, ...]:
        return tuple(check for check in self.checks if not check.ok)

    def __repr__(self) -> str:  # the printed report is the readable form; keep the repr short
        return (
            f"DoctorReport(ok={self.ok}, mode={self.mode!r}, "
            f"checks={len(self.checks)}, failed={[c.name for c in self.failed]})"
        )


class ReportWriter:
    """Collects checks and prints each as it is added, every line scrubbed of `key` and `secrets`
    (masked keys read `…` plus at most their last 4 characters), its control characters shown."""

    def __init__(self, out: TextIO, key: str | None, *, secrets: Sequence[str] = ()):
        self.out = out
        self.key = key
        self.clean = redactor_for(
            tuple(dict.fromkeys(((key,) if key else ()) + tuple(secrets))), show_tail=True
        )
        self.checks: list[Check] = []

    def add(
        self, name: str, ok: bool, detail: str, fix: str = "", *, skipped: bool = False
    ) -> None:
        # One line per check: a reply that spans lines (pretty-printed JSON, say) is folded.
        detail, fix = " ".join(detail.split()), " ".join(fix.split())
        check = Check(name, ok, self._shown(detail), self._shown(fix) if not ok else "", skipped)
        self.checks.append(check)
        label = "skip" if skipped else (" ok " if ok else "FAIL")
        print(f"  [{label}] {name:<18} {check.detail}", file=self.out, flush=True)
        if check.fix and not skipped:
            print(f"         {'':<18} fix: {check.fix}", file=self.out, flush=True)

    def skip(self, names: Sequence[str], why: str) -> None:
        for name in names:
            self.add(name, False, f"skipped: {why}", skipped=True)

    def say(self, text: str) -> None:
        print(self._shown(text), file=self.out, flush=True)

    def _shown(self, text: str) -> str:
        """`text` as a line of the report: scrubbed, then its control characters escaped."""
        return visible(self.clean.text(text))
