"""What a span holds: the attribute names, the scrubber every value passes, and attributes built late.

Session 08 (`sessions/s08-tracing/lesson.md`, notebook `notebooks/s08-tracing.ipynb`). A span
(`cafe.trace.spans.Span`) carries a mapping of attributes. This module declares what goes in it:

- the attribute names, taken from the OpenTelemetry GenAI semantic conventions where one exists
  (`gen_ai.request.model`, `gen_ai.usage.input_tokens`, ...) and under `cafe.` where none does;
- `Scrubber` (and `scrub`): every string a span keeps, with every secret masked as `REDACTED`:
  the keys the recorder was given and the ones the course knows of, by value at any length and
  by fragment, and anything shaped like a credential. It is the course's one redactor,
  `cafe.endpoint.secrets.redaction.Redactor`, in the form a trace needs;
- `DeferredAttributes`: a span's attributes built on first read, so that recording a run keeps
  what a model call was sent and answered and converts (and masks) it only when someone looks.

What it leaves out: the spans and the hash of their content (`cafe.trace.spans`), and writing
them to a file (`cafe.trace.file`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from types import MappingProxyType
from typing import Any

from cafe.endpoint.secrets.redaction import REDACTED, Redactor, known_secrets

__all__ = [
    "OPERATION",
    "REQUEST_MODEL",
    "RESPONSE_MODEL",
    "RESPONSE_ID",
    "FINISH_REASONS",
    "INPUT_TOKENS",
    "OUTPUT_TOKENS",
    "INPUT_MESSAGES",
    "OUTPUT_MESSAGES",
    "PROVIDER",
    "AGENT_NAME",
    "TOOL_NAME",
    "TOOL_CALL_ID",
    "TOOL_ARGUMENTS",
    "TOOL_RESULT",
    "EVALUATION_NAME",
    "EVALUATION_LABEL",
    "ERROR_TYPE",
    "SERVER_ADDRESS",
    "SERVER_PORT",
    "REQUEST_MAX_TOKENS",
    "STOP_REASON",
    "STOP_DETAIL",
    "ATTEMPT_NUMBER",
    "TURN_NUMBER",
    "CHECK_FAILURES",
    "CHECK_LINES",
    "NOT_HASHED",
    "CONTENT_ATTRIBUTES",
    "REDACTED",
    "Scrubber",
    "scrub",
    "DeferredAttributes",
]

# Attribute names from the OpenTelemetry GenAI semantic conventions (the gen_ai registry of
# the open-telemetry/semantic-conventions repository, as of November 2026), so that any tool
# that reads GenAI spans reads these.
OPERATION = "gen_ai.operation.name"  # "invoke_agent" (a run), "chat", "execute_tool"
PROVIDER = "gen_ai.provider.name"  # who served the model: "openai" for a live endpoint
AGENT_NAME = "gen_ai.agent.name"  # which harness ran: "cafe.repair", "cafe.loop"
REQUEST_MODEL = "gen_ai.request.model"
RESPONSE_MODEL = "gen_ai.response.model"
RESPONSE_ID = "gen_ai.response.id"
FINISH_REASONS = "gen_ai.response.finish_reasons"
INPUT_TOKENS = "gen_ai.usage.input_tokens"
OUTPUT_TOKENS = "gen_ai.usage.output_tokens"
INPUT_MESSAGES = "gen_ai.input.messages"  # [{"role": ..., "parts": [{"type": "text", ...}]}]
OUTPUT_MESSAGES = "gen_ai.output.messages"
TOOL_NAME = "gen_ai.tool.name"
TOOL_CALL_ID = "gen_ai.tool.call.id"
TOOL_ARGUMENTS = "gen_ai.tool.call.arguments"
TOOL_RESULT = "gen_ai.tool.call.result"
EVALUATION_NAME = "gen_ai.evaluation.name"  # a check is an evaluation: its name...
EVALUATION_LABEL = "gen_ai.evaluation.score.label"  # ...and "pass" or "fail"
ERROR_TYPE = "error.type"  # OpenTelemetry's general name for what went wrong
SERVER_ADDRESS = "server.address"  # the endpoint's host name (stable OpenTelemetry attribute)
SERVER_PORT = "server.port"  # required by the conventions whenever server.address is set
REQUEST_MAX_TOKENS = "gen_ai.request.max_tokens"  # the reply cap the call was sent with
# The course's own names, for what the conventions do not cover.
STOP_REASON = "cafe.run.stop_reason"  # one of the harness's closed set of stop reasons
STOP_DETAIL = "cafe.run.stop_detail"
ATTEMPT_NUMBER = "cafe.attempt.number"
TURN_NUMBER = "cafe.turn.number"
CHECK_FAILURES = "cafe.check.failures"  # the failed checks' names, e.g. ["missing_field"]
CHECK_LINES = "cafe.check.lines"  # each failure as one readable line

# Left out of the content hash: ids and where the run was served from. The same run replayed
# from its trace has a new response id and a different server, and did the same thing.
# The reply cap is a setting of the endpoint (`CAFE_MAX_TOKENS`), not part of what the run did.
NOT_HASHED: frozenset[str] = frozenset(
    {RESPONSE_ID, TOOL_CALL_ID, PROVIDER, SERVER_ADDRESS, SERVER_PORT, REQUEST_MAX_TOKENS}
)

# What was said: the attributes that quote the order, the brief, a draft or a tool's answer. The
# conventions make the gen_ai ones Opt-In ("don't record instructions, inputs, or outputs" by
# default); the course's own ones quote the same text. The course's JSONL keeps them all (replay
# compares the messages); `cafe.trace.otel` sends them to a backend only when asked to.
CONTENT_ATTRIBUTES: frozenset[str] = frozenset(
    {
        INPUT_MESSAGES,
        OUTPUT_MESSAGES,
        "gen_ai.system_instructions",
        "gen_ai.tool.definitions",
        TOOL_ARGUMENTS,
        TOOL_RESULT,
        CHECK_LINES,  # each failure quotes the draft, e.g. "(notes) call me a taxi for 9"
        STOP_DETAIL,
        "cafe.order.items",
        "cafe.turn.nudges",  # what the loop told the model
        "cafe.error.message",  # the endpoint's words, which may quote the request
    }
)


class Scrubber(Redactor):
    """Masks secrets in JSON values as `REDACTED`, remembering each string it has cleaned.

    A run sends the same long texts again and again (the system prompt, the brief), so a recorder
    keeps one `Scrubber` and each distinct string is searched once. It masks `secrets` (the keys
    the recorder was handed) and every secret the course knows of when it is made
    (`cafe.endpoint.secrets.redaction.known_secrets`: the course's key, variables named like secrets, the
    credentials in `CAFE_BASE_URL`): a long one wherever it stands, or any 8-character run of it;
    a short one as a whole word. Then anything shaped like a credential (`SECRET_SHAPES`).
    """

    def __init__(self, secrets: Iterable[str] = ()):
        super().__init__((*secrets, *known_secrets()))


def scrub(value: Any, secrets: tuple[str, ...] = ()) -> Any:
    """`value` (a JSON value) with every credential-looking string, and each of `secrets`, masked."""
    return Scrubber(secrets)(value)


class DeferredAttributes(Mapping[str, Any]):
    """Read-only attributes that `build(*arguments)` makes on the first read, then keeps.

    Converting a model call to GenAI attributes and masking its strings is much of what
    recording costs, and many recorded runs are never read. So the recorder keeps the call (a
    copy of its message list, and what the completion said) as `arguments`, and a `build` that converts
    them through the recorder's `Scrubber`. Every way of reading (`[]`, `get`, iterating, `len`,
    `repr`, comparing) reads the built attributes, so masked text is all a reader can get.
    """

    __slots__ = ("_build", "_arguments", "_built")

    def __init__(self, build: Callable[..., Mapping[str, Any]], *arguments: Any):
        self._build: Callable[..., Mapping[str, Any]] | None = build
        self._arguments = arguments
        self._built: Mapping[str, Any] | None = None

    def built(self) -> Mapping[str, Any]:
        """The attributes, built now if nothing has read them yet."""
        if self._built is None:
            assert self._build is not None
            self._built = MappingProxyType(dict(self._build(*self._arguments)))
            self._build, self._arguments = None, ()  # what they were built from is let go
        return self._built

    def __getitem__(self, name: str) -> Any:
        return self.built()[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.built())

    def __len__(self) -> int:
        return len(self.built())

    def get(self, name: str, default: Any = None) -> Any:
        return self.built().get(name, default)

    def items(self) -> Any:
        return self.built().items()

    def __repr__(self) -> str:
        return repr(self.built())

    def __reduce__(self) -> tuple[Any, ...]:
        """A copy or a pickle holds the built (masked) attributes, never what they are built from."""
        return (DeferredAttributes, (dict, tuple(self.built().items())))


def _frozen(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    if isinstance(attributes, (MappingProxyType, DeferredAttributes)):
        return attributes
    return MappingProxyType(dict(attributes))
