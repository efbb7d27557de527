"""Session 04, the ticket contract: four fields, a strict JSON schema, and output formats compared.

Read the files in this order:

- `ticket.py`: `Ticket`, its strict schema (`strict_ticket_schema`) and the `Failure` records
  every later session reads;
- `parsing.py`: `parse_draft`, model text in, a ticket or named failures out, never raising;
- `drafts.py`: `StructuredDrafts`, asking an endpoint in the strictest format it accepts;
- `trials.py`: the same orders asked for in each output format, and the parse rate of each;
- `experiment_arms.py`: `cafe experiment 03` and `04` on your model (session 03's arms sit here,
  in the first package after its one-file module).

Lesson: sessions/s04-schema/lesson.md. Notebook: notebooks/s04-schema.ipynb.
"""

from __future__ import annotations

from cafe.schema.drafts import (
    StructuredDrafts,
)
from cafe.schema.parsing import (
    extract_json,
    failures_from,
    parse_draft,
)
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
    Ticket,
    Usage,
    clip,
    contract_text,
    response_format,
    strict_ticket_schema,
)
from cafe.schema.trials import (
    LESSON_FORMATS,
    SAME_PROMISE,
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
    "SAME_PROMISE",
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
