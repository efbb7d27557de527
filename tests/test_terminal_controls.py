"""Text from an endpoint reaches a person with its control characters shown, not obeyed.

The principle: where text leaves the program (the stream every toy and `cafe` command writes
through, and the words of an endpoint problem), every control character a terminal would obey
(Unicode category Cc: C0, DEL, C1) is written as its escape, `\\x1b` for ESC, except a line feed,
a tab and a carriage return that ends a line. Checked on generated text holding any of them,
against a reference that walks the text one character at a time by Unicode category.
"""

from __future__ import annotations

import io
import json
import sys
import unicodedata

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_live_hostile_replies import outcome

from cafe.cli import run_command
from cafe.endpoint.errors import EndpointError
from cafe.endpoint.secrets.redaction import redactor_for
from cafe.endpoint.secrets.terminal import ScrubbedStream, scrubbed_output, visible

CONTROLS = [chr(n) for n in range(0x100) if unicodedata.category(chr(n)) == "Cc"]
# Any text, with control characters (C0, DEL, C1) far more often than chance would give them.
texts = st.text(st.one_of(st.characters(), st.sampled_from(CONTROLS)), max_size=40)


def shown(text: str) -> str:
    """The reference: each Cc character escaped, but "\\n", "\\t" and a "\\r" before "\\n"."""
    out = []
    for at, char in enumerate(text):
        ends_line = char == "\r" and text[at + 1 : at + 2] == "\n"
        obeyed = unicodedata.category(char) == "Cc" and char not in "\n\t" and not ends_line
        out.append(f"\\x{ord(char):02x}" if obeyed else char)
    return "".join(out)


def harmless(text: str) -> bool:
    """Does `text` hold no control character a terminal would obey?"""
    return shown(text) == text


@settings(max_examples=100)
@given(text=texts)
def test_visible_escapes_every_control_character_a_terminal_obeys(text):
    assert visible(text) == shown(text)


@settings(max_examples=60)
@given(pieces=st.lists(texts, max_size=5))
def test_a_stream_that_shows_controls_writes_them_escaped(pieces):
    sink = io.StringIO()
    stream = ScrubbedStream(sink, redactor_for(()), show_controls=True)
    for piece in pieces:
        stream.write(piece)
    stream.flush()
    assert sink.getvalue() == shown("".join(pieces))


def test_a_notebooks_stream_leaves_controls_to_jupyter():
    sink = io.StringIO()
    stream = ScrubbedStream(sink, redactor_for(()))
    stream.write("\x1b[31mred\x1b[0m\n")
    assert sink.getvalue() == "\x1b[31mred\x1b[0m\n"


@settings(max_examples=40, deadline=None)
@given(text=texts)
def test_what_a_command_prints_reaches_the_terminal_with_controls_shown(text):
    # As a toy prints a model's reply or a model's name from /models, through `run_command`.
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = out, err = io.StringIO(), io.StringIO()
    try:
        status = run_command(lambda: print(text) or print(text, file=sys.stderr) or 0)
    finally:
        sys.stdout, sys.stderr = saved
    assert status == 0
    assert out.getvalue() == err.getvalue() == shown(text + "\n")


def test_scrubbed_output_puts_the_real_streams_back():
    saved = sys.stdout
    with scrubbed_output():
        assert sys.stdout is not saved
    assert sys.stdout is saved


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    status=st.sampled_from([200, 400, 404, 429, 500]),
    message=texts.filter(lambda t: not harmless(t)),
    param=st.one_of(st.none(), texts),
)
def test_an_endpoints_words_in_an_error_are_shown_not_obeyed(status, message, param):
    result = outcome(status, json.dumps({"error": {"message": message, "param": param}}).encode())
    assert isinstance(result, EndpointError)
    assert harmless(str(result)), str(result)
