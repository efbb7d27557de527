"""What a trace is made of, as against what it says: the format's own words, which are never masked.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). Every
string a trace keeps passes the scrubber (`cafe.trace.attributes.Scrubber`), and a short key is
masked as a whole word. Session 00 lets a local server's key be any text, `cafe` or `user` or
`text`, and those are words the trace format is built from: an attribute is named
`cafe.request.tools`, a message's role is `user`, a part's type is `text`. Masking them would
not hide a secret; it would break the file (the writer refuses a part whose type is not one it
knows, the replay finds a role it never sent).

The rule: redaction hides a secret wherever one can be carried, and never changes what the trace
format itself is made of. The format's vocabulary, declared here once, is the names of attributes,
the field names of a message and its parts, and each value the format draws from a closed set
(a role, a part type, a finish reason, an operation, a provider, a stop reason, a span
name's first word). A string in one of
those places that is one of those words cannot hold a secret the learner typed, so it is kept as
it is. Anything else in those places, and every free-text value anywhere (content, tool
arguments and their keys, ids, model and tool names), is masked as before.

`scrub_attributes` and `scrub_span_name` apply the rule; the recorder and `scrubbed` (what the
file and the OpenTelemetry export pass every span through) both use them, so a run is masked the
same way when it is recorded and when it is written. What it leaves out: the masking itself
(`cafe.endpoint.secrets.redaction`) and the shapes a reader checks (`cafe.trace.attribute_shapes`).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any, get_args

from cafe.endpoint.secrets.redaction import Redactor
from cafe.loop.turns import RunStopReason
from cafe.repair.reask import StopReason
from cafe.trace.attributes import (
    AGENT_NAME,
    EVALUATION_LABEL,
    FINISH_REASONS,
    INPUT_MESSAGES,
    OPERATION,
    OUTPUT_MESSAGES,
    PROVIDER,
    STOP_REASON,
)
from cafe.trace.origin import LIVE_PROVIDER, SCRIPTED_PROVIDER

__all__ = [
    "ROLES",
    "PART_TYPES",
    "MESSAGE_FIELDS",
    "FINISH_REASON_WORDS",
    "SPAN_NAME_WORDS",
    "CLOSED_VALUES",
    "is_attribute_name",
    "scrub_attributes",
    "scrub_span_name",
]

# The roles a chat message has (the OpenAI chat API's, "function" being its older name for "tool").
ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
# A message part's types, as `cafe.trace.attribute_shapes.PART_FIELDS` checks them.
PART_TYPES = frozenset({"text", "tool_call", "tool_call_response"})
# The field names of a GenAI message and of its parts (`cafe.trace.calls` writes them).
MESSAGE_FIELDS = frozenset(
    {"role", "parts", "finish_reason", "type", "content", "id", "name", "arguments", "response"}
)
# The finish reasons the OpenAI chat API defines (`attribute_shapes.FINISH_REASON_VALUES`).
FINISH_REASON_WORDS = frozenset({"stop", "length", "tool_calls", "content_filter", "function_call"})
# A span name's first word: the operation or step it names ("chat cafe-scripted", "turn 2").
SPAN_NAME_WORDS = frozenset({"invoke_agent", "chat", "execute_tool", "turn", "attempt", "check"})
# Attributes whose value is one of a closed set of words: attribute name -> its words.
CLOSED_VALUES: Mapping[str, frozenset[str]] = {
    OPERATION: frozenset({"invoke_agent", "chat", "execute_tool"}),
    "gen_ai.output.type": frozenset({"text", "json"}),
    "cafe.request.format": frozenset({"json_schema", "json_object", "text"}),
    EVALUATION_LABEL: frozenset({"pass", "fail"}),
    # who served a call: `cafe.trace.origin`'s two, and the replay's (`cafe.trace.replay`)
    PROVIDER: frozenset({LIVE_PROVIDER, SCRIPTED_PROVIDER, "cafe.trace.replay"}),
    AGENT_NAME: frozenset({"cafe.loop", "cafe.repair"}),  # `record_loop`, `record_repair`
    STOP_REASON: frozenset(get_args(StopReason) + get_args(RunStopReason)),
}
# An attribute's name as OpenTelemetry spells one: lower-case namespaces joined by dots.
ATTRIBUTE_NAME = re.compile(r"[a-z][a-z0-9_]*(?:\.[a-z][a-z0-9_]*)+")


def is_attribute_name(name: Any) -> bool:
    """Whether `name` is kept as it is, as an attribute's name: it is spelled as the course spells
    one (`ATTRIBUTE_NAME`). The limit, said plainly: a secret written into an attribute's name in
    lower case and dots only is kept with it; one with a capital, a digit first or a dash is not
    a name, and is masked (a hand-made trace can put one there: `tests/test_trace_secrets.py`)."""
    return isinstance(name, str) and ATTRIBUTE_NAME.fullmatch(name) is not None


def _word(value: Any, words: Collection[str], clean: Redactor) -> Any:
    """`value` as it is when it is one of the format's `words`, else masked as any value is."""
    return value if isinstance(value, str) and value in words else clean(value)


def _part(part: Any, clean: Redactor) -> Any:
    if not isinstance(part, Mapping):
        return clean(part)
    return {
        (k if k in MESSAGE_FIELDS else clean.text(str(k))): (
            _word(v, PART_TYPES, clean) if k == "type" else clean(v)
        )
        for k, v in part.items()
    }


def _message(message: Any, clean: Redactor) -> Any:
    """A GenAI message: its field names, role, finish reason and part types are the format's."""
    if not isinstance(message, Mapping):
        return clean(message)
    kept: dict[str, Any] = {}
    for k, v in message.items():
        if k == "role":
            v = _word(v, ROLES, clean)
        elif k == "finish_reason":
            v = _word(v, FINISH_REASON_WORDS, clean)
        elif k == "parts" and isinstance(v, list):
            v = [_part(p, clean) for p in v]
        else:
            v = clean(v)
        kept[k if k in MESSAGE_FIELDS else clean.text(str(k))] = v
    return kept


def _value(name: str, value: Any, clean: Redactor) -> Any:
    if name in (INPUT_MESSAGES, OUTPUT_MESSAGES) and isinstance(value, list):
        return [_message(m, clean) for m in value]
    if name == FINISH_REASONS and isinstance(value, list):
        return [_word(v, FINISH_REASON_WORDS, clean) for v in value]
    if name in CLOSED_VALUES:
        return _word(value, CLOSED_VALUES[name], clean)
    return clean(value)


def scrub_attributes(attributes: Mapping[str, Any], clean: Redactor) -> dict[str, Any]:
    """A span's `attributes` with every secret masked by `clean` and the format's words kept."""
    return {
        (name if is_attribute_name(name) else clean.text(str(name))): _value(
            str(name), value, clean
        )
        for name, value in attributes.items()
    }


def scrub_span_name(name: str, clean: Redactor) -> str:
    """A span's name masked by `clean`, its first word kept when it is one of `SPAN_NAME_WORDS`
    (`chat` in "chat cafe-scripted"); what follows it (a model's or a tool's name) is text."""
    first, space, rest = name.partition(" ")
    if first in SPAN_NAME_WORDS:
        return first + space + clean.text(rest) if space else first
    return clean.text(name)
