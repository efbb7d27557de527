"""Asking for a draft: the strictest output format an endpoint accepts, stepping down when it refuses.

Session 04. `StructuredDrafts` is the drafter later sessions hand to the repair loop (session 07):
it asks with strict `json_schema` first and remembers each format the endpoint refused, so a
server that speaks only JSON mode, or only plain text, still gets asked in a form it accepts. A
refusal about anything other than the format is raised as it is.

Lesson: sessions/s04-schema/lesson.md. Notebook: notebooks/s04-schema.ipynb.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from cafe.endpoint.client.chat import chat_in_format
from cafe.endpoint.client.protocol import ChatClient
from cafe.schema.ticket import FORMATS, TICKET_SCHEMA_NAME, Draft, Usage, strict_ticket_schema

__all__ = ["StructuredDrafts"]


class StructuredDrafts:
    """Ask an endpoint for ticket drafts, strictest output format the endpoint accepts first.

    Tries `json_schema` (strict); when the endpoint refuses the request (`RequestRejected`: an
    HTTP 400/422, or any status whose message names `response_format`) and the refusal is about the
    output format, it steps down through `FORMATS` (llama-cpp-python's `json_object` with a
    schema, then plain `json_object`, then plain text) and remembers the step for later calls. A refusal about anything else (the messages, the model)
    is raised as it is: the format was not the problem, so dropping it would only hide the cause.
    Transport failures are `EndpointError`s and are not caught: a dead endpoint is not a bad draft.
    """

    def __init__(self, client: ChatClient, model: str, system_prompt: str):
        self.client = client
        self.model = model
        self.system_prompt = system_prompt
        self.format: str = FORMATS[0]
        self.rejections: list[str] = []  # why each stronger format was dropped

    def __call__(self, messages: Sequence[dict[str, Any]]) -> Draft:
        sent = [{"role": "system", "content": self.system_prompt}, *copy.deepcopy(list(messages))]
        # (No temperature: some reasoning models refuse any value but their own.)
        completion, self.format = chat_in_format(
            self.client,
            self.format,
            strict_ticket_schema(),
            TICKET_SCHEMA_NAME,
            rejections=self.rejections,
            model=self.model,
            messages=sent,
        )
        text = (completion.choices[0].message.content or "") if completion.choices else ""
        usage = completion.usage
        counted = Usage(usage.prompt_tokens, usage.completion_tokens) if usage is not None else None
        return Draft(text=text, usage=counted)
