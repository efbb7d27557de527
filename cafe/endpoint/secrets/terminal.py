"""What reaches the terminal: a stream that scrubs every secret from what a command writes, and
shows control characters instead of obeying them.

A toy or a `cafe` command prints what the harness saw: a tool's output, an endpoint's error, a
model's reply. Each source scrubs what it quotes, and `ScrubbedStream` is the guard behind them:
`cafe.cli.run_command`, which every toy and command runs through, puts one in front of stdout and
stderr for as long as the command runs, and puts the real streams back afterwards. What is
written is scrubbed a line at a time (`cafe.endpoint.secrets.redaction.Redactor`, with every
secret the course knows of when the command starts), as a terminal shows it: `print(*key)` makes
one write per character, and a line is the least that holds them all. A flush sends what is
waiting at once, so a progress dot written with `flush=True` is not held back; a secret split
across two lines, or across a flush, is left to the source that wrote it.

Text from an endpoint (an error message, a model's name in its list, a reply) may hold terminal
control sequences: an ESC that clears the screen, retitles the window or writes the clipboard. So
`visible(text)` writes every control character other than a line break or a tab as its escape
(ESC is shown as the four characters `\\x1b`), and the stream `scrubbed_output` puts in front
of a command's output does so for everything it writes. `cafe.endpoint.client.problems.describe`
does it too for what an endpoint said, so an `EndpointError` reads the same wherever it is shown.
It happens where text leaves the program, never while a reply is read: the harness sees what
the endpoint sent, and only the person is shielded from it. A notebook's stream
(`cafe.endpoint.secrets.notebook`) obeys them: Jupyter draws colours, and moves no cursor.
Session 00 (`sessions/s00-setup/lesson.md`) says what the course promises about the key.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TextIO

from cafe.endpoint.secrets.redaction import known_secrets, redactor_for

__all__ = ["Scrubber", "ScrubbedStream", "scrubbed_output", "visible"]


# Characters held back waiting for the end of a line before they go out anyway (a command that
# writes megabytes without a newline or a flush is not made to wait for one).
HELD_CHARS = 65_536
# The control characters a terminal would obey (Unicode's category Cc: C0, DEL and C1), but for a
# line feed, a tab, and a carriage return that ends a line ("\r\n", as Windows writes one).
_CONTROLS = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]|\r(?!\n)")


def visible(text: str) -> str:
    """`text` with each control character a terminal would obey written as its escape: ESC as
    `\\x1b`, a lone carriage return as `\\x0d`; line feeds, tabs and "\\r\\n" are kept."""
    return _CONTROLS.sub(lambda found: f"\\x{ord(found.group()):02x}", text)


class Scrubber(Protocol):
    """What scrubs a stream's text: a `Redactor` with the secrets known when a command starts,
    or a notebook's `cafe.endpoint.secrets.notebook.CurrentSecrets`, which reads them each time."""

    def text(self, value: str) -> str: ...


class ScrubbedStream:
    """A text stream that writes to `stream` each complete line written to it, as
    `redactor.text(lines)` (then `visible(...)` when `show_controls`); `flush()` sends what is
    left of a line too.

    Everything else (`fileno`, `isatty`, `encoding`, ...) is the wrapped stream's, so code that
    asks for a file descriptor (a pipe that closed early) still gets the real one.
    """

    def __init__(self, stream: TextIO, redactor: Scrubber, *, show_controls: bool = False):
        self.stream = stream
        self.redactor = redactor
        self.show_controls = show_controls
        self.held: list[str] = []  # written, not yet sent: the start of a line, in pieces
        self._held_chars = 0

    def _send(self, text: str) -> None:
        scrubbed = self.redactor.text(text)
        self.stream.write(visible(scrubbed) if self.show_controls else scrubbed)

    def write(self, text: str) -> int:
        self.held.append(text)
        self._held_chars += len(text)
        if "\n" in text or self._held_chars >= HELD_CHARS:
            waiting = "".join(self.held)
            end = waiting.rfind("\n") + 1 if self._held_chars < HELD_CHARS else len(waiting)
            self._send(waiting[:end])
            self.held = [waiting[end:]] if end < len(waiting) else []
            self._held_chars = len(waiting) - end
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if self.held:
            waiting, self.held, self._held_chars = "".join(self.held), [], 0
            self._send(waiting)
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def scrubbed_output() -> Iterator[None]:
    """Scrub stdout and stderr (as they are now) for the length of a `with` block, and show the
    control characters written to them (`visible`)."""
    redactor = redactor_for(known_secrets(), show_tail=True)
    saved = sys.stdout, sys.stderr
    streams = tuple(ScrubbedStream(s, redactor, show_controls=True) for s in saved)
    sys.stdout, sys.stderr = streams
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
        for stream in streams:
            if stream.held:  # the last line, when it had no newline
                try:
                    stream.flush()
                except (OSError, ValueError):  # a pipe closed early: nobody is left to read it
                    pass
