"""What reaches the terminal: a stream that scrubs every secret from what a command writes.

A toy or a `cafe` command prints what the harness saw: a tool's output, an endpoint's error, a
model's reply. Each source scrubs what it quotes, and `ScrubbedStream` is the guard behind them:
`cafe.cli.run_command`, which every toy and command runs through, puts one in front of stdout and
stderr for as long as the command runs, and puts the real streams back afterwards. What is
written is scrubbed a line at a time (`cafe.endpoint.secrets.redaction.Redactor`, with every
secret the course knows of when the command starts), as a terminal shows it: `print(*key)` makes
one write per character, and a line is the least that holds them all. A flush sends what is
waiting at once, so a progress dot written with `flush=True` is not held back; a secret split
across two lines, or across a flush, is left to the source that wrote it.
Session 00 (`sessions/s00-setup/lesson.md`) says what the course promises about the key.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, Protocol, TextIO

from cafe.endpoint.secrets.redaction import known_secrets, redactor_for

__all__ = ["Scrubber", "ScrubbedStream", "scrubbed_output"]


# Characters held back waiting for the end of a line before they go out anyway (a command that
# writes megabytes without a newline or a flush is not made to wait for one).
HELD_CHARS = 65_536


class Scrubber(Protocol):
    """What scrubs a stream's text: a `Redactor` with the secrets known when a command starts,
    or a notebook's `cafe.endpoint.secrets.notebook.CurrentSecrets`, which reads them each time."""

    def text(self, value: str) -> str: ...


class ScrubbedStream:
    """A text stream that writes to `stream` each complete line written to it, as
    `redactor.text(lines)`; `flush()` sends what is left of a line too.

    Everything else (`fileno`, `isatty`, `encoding`, ...) is the wrapped stream's, so code that
    asks for a file descriptor (a pipe that closed early) still gets the real one.
    """

    def __init__(self, stream: TextIO, redactor: Scrubber):
        self.stream = stream
        self.redactor = redactor
        self.held: list[str] = []  # written, not yet sent: the start of a line, in pieces
        self._held_chars = 0

    def _send(self, text: str) -> None:
        self.stream.write(self.redactor.text(text))

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
    """Scrub stdout and stderr (as they are now) for the length of a `with` block."""
    redactor = redactor_for(known_secrets(), show_tail=True)
    saved = sys.stdout, sys.stderr
    streams = ScrubbedStream(saved[0], redactor), ScrubbedStream(saved[1], redactor)
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
