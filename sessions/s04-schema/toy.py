"""Session 04 toy: the same ten orders asked for three ways, and what each way lets through.

    python sessions/s04-schema/toy.py                      # offline: a scripted waiter with habits
    COURSE_MODE=live python sessions/s04-schema/toy.py     # adds your model's parse rate per format

A waiter with habits (chatty prose, a table number written as text, a field of its own) answers
each output format as a server that enforces it would, so it can only send what the format lets
out. The toy tells three stories, in plain words with the technical name after:

1. Plain text and JSON mode (`json_object`): what each lets through, counted by check.
2. Strict structured output (`json_schema`): the schema stops every shape mistake, and still lets
   through the rules it does not carry (a table from 1 to 30, at least one item), which
   `parse_draft` catches.
3. The table range closed in the schema itself (an `enum`): the order for table 31 now comes back
   as a ticket for a table that exists, and passes.

Live, story 4 sends the ten orders to your model in each format and prints its parse rate per
format; a format the endpoint refuses is said to be refused (a refused `json_schema` is tried
again as `json_object_schema`, the spelling llama-cpp-python's server takes), and an order the
endpoint fails (a timeout) is counted apart. Against `cafe serve` with no `--session 04`, the
default rule answers and the toy says so. A missing setting or a refused key is explained in one message, with exit
status 1.
"""

from __future__ import annotations

from cafe.cli import run_command
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.scripts.rehearsals import default_rehearsal_note, rehearsal_script
from cafe.endpoint.settings.config import OFFLINE_MODEL, course_mode, model_name
from cafe.schema.trials import (
    LESSON_FORMATS,
    FormatTally,
    Trial,
    ask_once,
    closed_table_schema,
    format_trial,
    practice_orders,
    unenforced_keywords,
    waiter_client,
)

# Each check in plain words, for a reader who has not met the check names yet.
CHECK_WORDS = {
    "not_json": "no JSON",
    "missing_field": "field left out",
    "unknown_field": "extra field",
    "bad_value": "value not allowed",
}


def counted(tally: FormatTally) -> str:
    failed = ", ".join(
        f"{n} {CHECK_WORDS[check]} ({check})" for check, n in sorted(tally.checks.items())
    )
    return f"{tally.parsed} of {len(tally.trials)} became tickets; failed: {failed or 'none'}"


# Each format in plain words, before its technical name.
FORMAT_WORDS = {
    "plain": "no format",
    "json_object": "any JSON object",
    "json_schema": "the strict schema",
    "json_object_schema": "the strict schema, in JSON mode's spelling",
}


def short(text: str, width: int) -> str:
    """`text` cut at a word boundary to fit `width` characters, with "…" when it was cut."""
    if len(text) <= width:
        return text
    return text[: width - 1].rsplit(" ", 1)[0] + "…"


def dot(_: Trial) -> None:
    print(".", end="", flush=True)


def main() -> int:
    mode, orders, waiter = course_mode(), practice_orders(), waiter_client()
    print(
        f"Session 04 toy ({mode}): ten orders, asked for three ways; what each way lets through.\n"
    )

    loose = format_trial(waiter, OFFLINE_MODEL, orders, ["plain", "json_object"])
    print("1. No format, then any JSON object (plain, json_object)")
    for kind, tally in loose.items():
        print(f"  {FORMAT_WORDS[kind]} ({kind}): {counted(tally)}")

    strict = format_trial(waiter, OFFLINE_MODEL, orders, ["json_schema"])["json_schema"]
    rules = ", ".join(f"{rule.field} {rule.keyword} {rule.value}" for rule in unenforced_keywords())
    print("\n2. The contract as a strict schema the server enforces (json_schema)")
    print(f"  {FORMAT_WORDS['json_schema']} (json_schema): {counted(strict)}")
    print(
        f"  every draft fitted the schema; {strict.caught} broke rules the schema leaves out ({rules})"
    )
    for trial in strict.trials:
        if trial.parsed.ticket is None:
            failure = trial.parsed.failures[0]
            print(
                f"    {short(trial.order.words, 52):<54} caught: {failure.span} ({failure.check})"
            )

    table_31 = next(order for order in orders if order.table == 31)
    bent = ask_once(waiter, OFFLINE_MODEL, table_31, "json_schema", closed_table_schema())
    print("\n3. The table range closed in the schema (an enum of 1 to 30)")
    print(f"  {table_31.words!r} comes back as {bent.draft}")
    print(
        f"  checked (parse_draft): {'a ticket, and it passes' if bent.parsed.ticket else bent.outcome}: "
        "the impossible table became a wrong one, quietly"
    )

    if mode == "live":
        client, model = make_client(), model_name()
        if model == OFFLINE_MODEL and rehearsal_script(client, model) == "default":
            print(f"\n  note: {default_rehearsal_note('04')}")
        print(f"\n4. Your model, {model}: the ten orders in each format ", end="", flush=True)
        tallies = format_trial(client, model, orders, LESSON_FORMATS, on_trial=dot)
        print()
        for kind, tally in tallies.items():
            if tally.refused:
                said = f"refused by the endpoint: {short(tally.refused, 80)}"
            elif not tally.trials:
                said = "every order hit an endpoint problem; no parse rate"
            else:
                said = f"parse rate {tally.parse_rate:.0%}; {counted(tally)}"
            if tally.failed:
                kinds = ", ".join(sorted({kind for _, kind in tally.failed}))
                said += f"; {len(tally.failed)} not drafted (endpoint problem: {kinds})"
            print(f"  {FORMAT_WORDS[kind]} ({kind}): {said}")
    return 0


if __name__ == "__main__":
    raise SystemExit(run_command(main))
