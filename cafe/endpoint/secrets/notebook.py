"""What reaches a notebook: a kernel's output streams, a cell's value and a traceback, scrubbed.

A toy or a `cafe` command runs through `cafe.cli.run_command`, which puts a `ScrubbedStream` in
front of the terminal (`cafe.endpoint.secrets.terminal`). A notebook has no such door: its sinks
are the kernel's. A live cell prints what the endpoint sent back, and an endpoint can echo the key
in a reply's content or a tool call's arguments; whatever a cell shows is also saved in the
.ipynb. So `guard_kernel()` puts a guard at each of the running IPython kernel's sinks:

- what a cell prints: `ScrubbedStream`s in front of `sys.stdout` and `sys.stderr`;
- the value a cell ends on, and anything `display()` shows: each text form IPython's display
  formatter makes of it (`text/*`, `application/json`; never an image or a widget's id);
- the traceback of an exception a cell raises: IPython's own custom exception handler
  (`set_custom_exc`) shows the usual traceback, with it and the exception's message scrubbed.

Each guard reads the secrets when it scrubs (`CurrentSecrets`), not when it is put up, so a key
set in a later cell is masked too. `cafe.course` calls `guard_kernel()` when it is imported, and
that is on purpose: a notebook imports `cafe.course` in its first code cell, and the guard must be
in place before the first live cell prints anything. It is done once per kernel (a second call,
or a re-import, finds it in place), and it does nothing outside a kernel: a script or the test
suite has no kernel, and `cafe toy` has the terminal's guard. IPython is never imported here; a
kernel has imported it already.

Left out: text C code writes straight to the process's file descriptors (ipykernel forwards it
without passing `sys.stdout`), the exception message in the reply ipykernel sends the front end
(it is not shown in a cell or saved in the notebook), and what a widget draws from its own state.
Session 00 (`sessions/s00-setup/lesson.md`) says what the course promises about the key.
"""

from __future__ import annotations

import sys
from typing import Any

from cafe.endpoint.secrets.redaction import known_secrets, redactor_for
from cafe.endpoint.secrets.terminal import ScrubbedStream

__all__ = ["CurrentSecrets", "guard_kernel"]

# The mime types whose data is text a person reads: scrubbed before it is shown. Images and
# widget ids are left alone (masking part of one would only break it).
SCRUBBED_MIME_PREFIXES = ("text/", "application/json")
# The attribute that marks a shell whose sinks are guarded (so the guard goes up once a kernel).
GUARDED_MARK = "_cafe_secrets_guarded"


class CurrentSecrets:
    """Scrubs with every secret the course knows of when it is called (`known_secrets` keeps its
    last reading until the environment changes, so each call costs a comparison)."""

    def text(self, value: str) -> str:
        return redactor_for(known_secrets(), show_tail=True).text(value)

    def data(self, value: Any) -> Any:
        """A JSON value with every string scrubbed (`Redactor.__call__`)."""
        return redactor_for(known_secrets(), show_tail=True)(value)


def _running_shell() -> Any:
    """The IPython shell of a running kernel, or None (no IPython, or IPython with no kernel)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return shell if getattr(shell, "kernel", None) is not None else None


def _guard_streams(secrets: CurrentSecrets) -> None:
    """A `ScrubbedStream` in front of stdout and stderr, unless one is there already. ipykernel
    flushes both at the end of each cell, so a last line with no newline still comes out."""
    if not isinstance(sys.stdout, ScrubbedStream):
        sys.stdout = ScrubbedStream(sys.stdout, secrets)
    if not isinstance(sys.stderr, ScrubbedStream):
        sys.stderr = ScrubbedStream(sys.stderr, secrets)


def _guard_display(shell: Any, secrets: CurrentSecrets) -> None:
    """Scrub each text form of what the shell shows. IPython offers no hook that sees a value
    after it is formatted, so this wraps the `format` method of this one shell's formatter, the
    one both a cell's value and `display()` go through."""
    formatter = shell.display_formatter
    made = formatter.format  # IPython's own, bound to this formatter

    def scrubbed_format(obj: Any, include: Any = None, exclude: Any = None) -> Any:
        data, metadata = made(obj, include=include, exclude=exclude)
        clean = {
            mime: secrets.data(value) if mime.startswith(SCRUBBED_MIME_PREFIXES) else value
            for mime, value in data.items()
        }
        return clean, metadata

    formatter.format = scrubbed_format


def _guard_tracebacks(shell: Any, secrets: CurrentSecrets) -> None:
    """Show every exception a cell raises as IPython would, with the traceback's lines and the
    exception's message scrubbed. `Exception` only: IPython keeps its own handling of
    `SystemExit` and `KeyboardInterrupt`, whose messages are the course's, not an endpoint's."""

    def scrubbed_traceback(
        shell: Any, kind: type, value: BaseException, tb: Any, tb_offset: Any = None
    ) -> list[str]:
        lines = shell.InteractiveTB.structured_traceback(kind, value, tb, tb_offset=tb_offset)
        shell._showtraceback(kind, secrets.text(str(value)), [secrets.text(x) for x in lines])
        return []  # shown already: nothing left for IPython to show

    shell.set_custom_exc((Exception,), scrubbed_traceback)


def guard_kernel() -> bool:
    """Put the guards at the running kernel's sinks (see the module docstring); True when they are
    in place, False outside a kernel. Safe to call again: each guard goes up once per kernel."""
    shell = _running_shell()
    if shell is None:
        return False
    secrets = CurrentSecrets()
    _guard_streams(secrets)  # checked on its own: a kernel can replace its streams
    if not getattr(shell, GUARDED_MARK, False):
        _guard_display(shell, secrets)
        _guard_tracebacks(shell, secrets)
        setattr(shell, GUARDED_MARK, True)
    return True
