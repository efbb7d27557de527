"""Session 04, the ticket contract: four fields, a strict JSON schema, and output formats compared.

Read the files in this order:

- `ticket.py`: `Ticket`, its strict schema (`strict_ticket_schema`), `parse_draft` (which never
  raises) and the `Failure` records every later session reads;
- `trials.py`: the same orders asked for in each output format, and the parse rate of each.

Lesson: sessions/s04-schema/lesson.md. Notebook: notebooks/s04-schema.ipynb.
"""

from __future__ import annotations

from cafe.schema.ticket import (
    MAX_TABLE,
    TICKET_FIELDS,
    FIELD_HINTS,
    CONTRACT_CHECKS,
    FORMATS,
    Format,
    Ticket,
    SPAN_CHARS,
    FIX_CHARS,
    clip,
    Failure,
    Parsed,
    Usage,
    Draft,
    strict_ticket_schema,
    response_format,
    contract_text,
    extract_json,
    parse_draft,
    failures_from,
    StructuredDrafts,
)
from cafe.schema.trials import (
    LESSON_FORMATS,
    SCHEMA_FORMATS,
    TICKET_SCHEMA_NAME,
    Unenforced,
    unenforced_keywords,
    closed_table_schema,
    PracticeOrder,
    practice_orders,
    waiter_client,
    ticket_messages,
    Trial,
    FormatTally,
    ask_once,
    format_trial,
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
