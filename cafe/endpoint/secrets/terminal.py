"""What reaches the terminal: a stream that scrubs every secret from what a command writes.

A toy or a `cafe` command prints what the harness saw: a tool's output, an endpoint's error, a
model's reply. Each source scrubs what it quotes, and `ScrubbedStream` is the guard behind them:
`cafe.cli.run_command`, which every toy and command runs through, puts one in front of stdout and
stderr for as long as the command runs, and puts the real streams back afterwards. Every write is
scrubbed on its own (`cafe.endpoint.secrets.redaction.Redactor`, with every secret the course knows of when
the command starts), and goes out at once, so a progress dot is not held back; a secret split
across two separate writes is left to the source that wrote it.
Session 00 (`sessions/s00-setup/lesson.md`) says what the course promises about the key.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, TextIO

from cafe.endpoint.secrets.redaction import Redactor, known_secrets, redactor_for

__all__ = ["ScrubbedStream", "scrubbed_output"]


class ScrubbedStream:
    """A text stream that writes `redactor.text(text)` to `stream` for every `write(text)`.

    Everything else (`flush`, `fileno`, `isatty`, `encoding`, ...) is the wrapped stream's, so
    code that asks for a file descriptor (a pipe that closed early) still gets the real one.
    """

    def __init__(self, stream: TextIO, redactor: Redactor):
        self.stream = stream
        self.redactor = redactor

    def write(self, text: str) -> int:
        self.stream.write(self.redactor.text(text))
        return len(text)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextmanager
def scrubbed_output() -> Iterator[None]:
    """Scrub stdout and stderr (as they are now) for the length of a `with` block."""
    redactor = redactor_for(known_secrets(), show_tail=True)
    saved = sys.stdout, sys.stderr
    sys.stdout = ScrubbedStream(saved[0], redactor)
    sys.stderr = ScrubbedStream(saved[1], redactor)
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved
