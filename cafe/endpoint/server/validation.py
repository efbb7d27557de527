"""What a chat completion request must look like to `cafe serve`, and the errors it answers with.

A hosted endpoint refuses a malformed request with HTTP 400 (or 404 for a model it does not
offer) and an error body of OpenAI's shape, `{"error": {"message", "type", "param", "code"}}`, so
the SDK raises its usual exceptions. `validate_chat_request` does the same checks for
`cafe.endpoint.server.serve`, raising `Problem`, which the server turns into that body. Session 00
(`sessions/s00-setup/lesson.md`) introduces `cafe serve`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["Problem", "validate_chat_request", "RESPONSE_FORMATS", "TOOL_CHOICES"]

# The response_format types OpenAI's chat completions accept.
RESPONSE_FORMATS = frozenset({"text", "json_object", "json_schema"})
# The string forms of tool_choice; the dict form names one function.
TOOL_CHOICES = frozenset({"none", "auto", "required"})


class Problem(Exception):
    """An HTTP error to send back, raised anywhere inside a request handler."""

    def __init__(
        self,
        status: int,
        message: str,
        *,
        kind: str = "invalid_request_error",
        code: str | None = None,
        param: str | None = None,
    ):
        super().__init__(message)
        self.status = status
        self.body = {"error": {"message": message, "type": kind, "param": param, "code": code}}
        self.headers: dict[str, str] = {}


def validate_chat_request(
    request: Any, *, models: Sequence[str], supports_json_schema: bool
) -> None:
    """Raise `Problem` (400 or 404) unless `request` is a chat completion request we can answer."""
    if not isinstance(request, dict):
        raise Problem(400, "The request body must be a JSON object.")
    model = request.get("model")
    if not isinstance(model, str) or not model:
        raise Problem(
            400,
            "Missing required field 'model' (a model name, as GET /v1/models lists it).",
            param="model",
        )
    messages = request.get("messages")
    if not isinstance(messages, list) or not messages:
        raise Problem(
            400,
            "Missing required field 'messages' (a non-empty list of messages).",
            param="messages",
        )
    for i, message in enumerate(messages):
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            raise Problem(
                400, f"messages[{i}] must be an object with a 'role'.", param=f"messages[{i}]"
            )
    if model not in models:
        raise Problem(
            404,
            f"The model {model!r} does not exist on this server. It offers: "
            f"{', '.join(models)}. Set CAFE_MODEL to one of them.",
            code="model_not_found",
            param="model",
        )
    if request.get("stream"):
        raise Problem(
            400,
            "Streaming is not supported by cafe serve; call without stream=True.",
            param="stream",
        )
    _validate_tools(request)
    _validate_response_format(request.get("response_format"), supports_json_schema)


def _validate_tools(request: dict) -> None:
    tools = request.get("tools")
    names = []
    if tools is not None:
        if not isinstance(tools, list):
            raise Problem(400, "'tools' must be a list of function tools.", param="tools")
        for i, tool in enumerate(tools):
            function = tool.get("function") if isinstance(tool, dict) else None
            if (
                not isinstance(function, dict)
                or tool.get("type") != "function"
                or not function.get("name")
            ):
                raise Problem(
                    400,
                    f"tools[{i}] must look like "
                    '{"type": "function", "function": {"name": ..., "parameters": {...}}}.',
                    param=f"tools[{i}]",
                )
            names.append(function["name"])
    choice = request.get("tool_choice")
    if choice is None:
        return
    if not names:
        raise Problem(
            400, "'tool_choice' is only allowed when 'tools' are given.", param="tool_choice"
        )
    if isinstance(choice, str) and choice in TOOL_CHOICES:
        return
    function = choice.get("function") if isinstance(choice, dict) else None
    wanted = function.get("name") if isinstance(function, dict) else None
    if wanted not in names:
        raise Problem(
            400,
            f"'tool_choice' must be one of {sorted(TOOL_CHOICES)} or name one of the "
            f"offered tools ({', '.join(names)}); got {choice!r}.",
            param="tool_choice",
        )


def _validate_response_format(response_format: Any, supports_json_schema: bool) -> None:
    if response_format is None:
        return
    kind = response_format.get("type") if isinstance(response_format, dict) else None
    if kind not in RESPONSE_FORMATS:
        raise Problem(
            400,
            f"'response_format' must have a 'type' among {sorted(RESPONSE_FORMATS)}; "
            f"got {response_format!r}.",
            param="response_format",
        )
    if kind == "json_schema":
        if not supports_json_schema:
            raise Problem(
                400,
                "response_format json_schema is not supported by this server. "
                'Use {"type": "json_object"} and check the reply against the schema yourself.',
                param="response_format",
            )
        if not isinstance(response_format.get("json_schema"), dict):
            raise Problem(
                400,
                "response_format json_schema needs a 'json_schema' object "
                "(with 'name' and 'schema').",
                param="response_format",
            )
