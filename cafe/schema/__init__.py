"""Session 04, the ticket contract: four fields, a strict JSON schema, and output formats compared.

Read the files in this order:

- `ticket.py`: `Ticket`, its strict schema (`strict_ticket_schema`), `parse_draft` (which never
  raises) and the `Failure` records every later session reads;
- `trials.py`: the same orders asked for in each output format, and the parse rate of each.

Lesson: sessions/s04-schema/lesson.md. Notebook: notebooks/s04-schema.ipynb.
"""

from __future__ import annotations

from cafe.schema.ticket import (
    CONTRACT_CHECKS,
    FIELD_HINTS,
    FIX_CHARS,
    FORMATS,
    MAX_TABLE,
    SPAN_CHARS,
    TICKET_FIELDS,
    Draft,
    Failure,
    Format,
    Parsed,
    StructuredDrafts,
    Ticket,
    Usage,
    clip,
    contract_text,
    extract_json,
    failures_from,
    parse_draft,
    response_format,
    strict_ticket_schema,
)
from cafe.schema.trials import (
    LESSON_FORMATS,
    SCHEMA_FORMATS,
    TICKET_SCHEMA_NAME,
    FormatTally,
    PracticeOrder,
    Trial,
    Unenforced,
    ask_once,
    closed_table_schema,
    format_trial,
    practice_orders,
    ticket_messages,
    unenforced_keywords,
    waiter_client,
)

__all__ = [
    "CONTRACT_CHECKS",
    "Draft",
    "FIELD_HINTS",
    "FIX_CHARS",
    "FORMATS",
    "Failure",
    "Format",
    "FormatTally",
    "LESSON_FORMATS",
    "MAX_TABLE",
    "Parsed",
    "PracticeOrder",
    "SCHEMA_FORMATS",
    "SPAN_CHARS",
    "StructuredDrafts",
    "TICKET_FIELDS",
    "TICKET_SCHEMA_NAME",
    "Ticket",
    "Trial",
    "Unenforced",
    "Usage",
    "ask_once",
    "clip",
    "closed_table_schema",
    "contract_text",
    "extract_json",
    "failures_from",
    "format_trial",
    "parse_draft",
    "practice_orders",
    "response_format",
    "strict_ticket_schema",
    "ticket_messages",
    "unenforced_keywords",
    "waiter_client",
]
