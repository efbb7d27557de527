"""Scripts for `cafe serve --session NN`, and how a toy tells it is talking to `cafe serve`.

`cafe serve` with no script answers from `default_responder`: it calls the first tool offered with
the smallest valid arguments, which proves the plumbing and makes a toy's story unreadable
(`look_up(item='')` on every turn). `cafe serve --session 01` answers from a script written for
that session's toy and notebook instead, so a learner rehearsing live mode without a key sees a
story that reads like the offline one, over real HTTP.

`rehearsal_script(client, model)` says which script a `cafe serve` endpoint answers from, read off
its model list (each entry's `owned_by` is `cafe-serve:<label>`), so a toy can say "this is the
rehearsal server's default rule, not a model" without spending a request. Any other endpoint, and
the offline scripted client, give None.

A session adds its script as a responder (in `cafe.endpoint.scripts.drafters` or `cafe.endpoint.scripts.stand_ins`,
which may import only session 00's modules) listed in `SESSION_SCRIPTS`, or, when a fixed list of
replies tells its story, as `cafe/data/serve/sNN.json`.
What it leaves out: sessions without a script fall back to the default rule; a script is a
stand-in that proves the story reads, never a judgement a real model would make. Part of session
00's set-up (sessions/s00-setup/lesson.md); `cafe.cli` adds the flag.
"""

from __future__ import annotations

import json
import types
from collections.abc import Callable, Mapping
from pathlib import Path

from cafe.endpoint.client.chat import model_entries
from cafe.endpoint.client.completions import Reply
from cafe.endpoint.client.protocol import EndpointClient
from cafe.endpoint.client.script import Script
from cafe.endpoint.scripts.drafters import (
    eager_responder,
    gullible_responder,
    routing_responder,
    ticket_responder,
    waiter_responder,
)
from cafe.endpoint.scripts.restock import restock_responder
from cafe.endpoint.scripts.stand_ins import (
    SCRIPTS_DIR,
    SHIFT_HABITS,
    habit_orders,
    habits_responder,
    lenient_judge_responder,
    shift_responder,
)
from cafe.endpoint.settings.config import OFFLINE_MODEL

__all__ = [
    "OWNER_PREFIX",
    "DEFAULT_LABEL",
    "SESSION_SCRIPTS",
    "SCRIPTS_DIR",
    "session_script",
    "session_label",
    "by_turn",
    "available_sessions",
    "rehearsal_script",
    "rehearsal_note",
    "default_rehearsal_note",
    # the scripts themselves, importable from here as before
    "waiter_responder",
    "ticket_responder",
    "routing_responder",
    "eager_responder",
    "gullible_responder",
    "habits_responder",
    "habit_orders",
    "shift_responder",
    "SHIFT_HABITS",
    "lenient_judge_responder",
]

# `cafe serve` names itself in each model's `owned_by` field, which OpenAI's model list carries.
OWNER_PREFIX = "cafe-serve:"
# Seconds `rehearsal_script` waits for the model list: listing runs no model, so a server answers
# at once; a toy must not hang on a question it only asks to choose its words.
LISTING_S = 5.0
# The label of the built-in responder (no --script, no --session).
DEFAULT_LABEL = "default"

# Session number -> the responder `cafe serve --session NN` answers from. Read-only.
SESSION_SCRIPTS: Mapping[str, Callable[[dict], Reply]] = types.MappingProxyType(
    {
        "00": waiter_responder,
        "01": waiter_responder,
        "04": habits_responder,
        "05": eager_responder,
        "06": gullible_responder,
        "07": ticket_responder,
        "08": ticket_responder,  # session 08 records and replays session 07's re-ask
        "09": ticket_responder,  # session 09's shift: the same drafter, over twenty orders
        "10": shift_responder,
        "11": routing_responder,
        "12": lenient_judge_responder,
        "16": restock_responder,  # the restock agent in session 16's capstone harness
    }
)


def _number(session: str) -> str:
    digits = str(session).strip().lower().removeprefix("s")
    if not digits.isdigit():
        raise ValueError(f"--session takes a session number like 01, not {session!r}.")
    return f"{int(digits):02d}"


def session_label(session: str) -> str:
    """The label `cafe serve --session` shows in its model list, e.g. "session-01"."""
    return f"session-{_number(session)}"


def by_turn(replies: list[Reply]) -> Callable[[dict], Reply]:
    """A responder answering turn N of a conversation with `replies[N - 1]` (the last one after
    that), N counted from the assistant messages already in the request. Unlike a queue, every
    run starts at the first reply, however many runs or `cafe doctor` checks came before."""
    if not replies:
        raise ValueError("by_turn needs at least one reply.")

    def responder(request: dict) -> Reply:
        turn = sum(1 for m in request.get("messages") or [] if m.get("role") == "assistant")
        return replies[min(turn, len(replies) - 1)]

    return responder


def _from_file(path: Path) -> Script:
    data = json.loads(path.read_text(encoding="utf-8"))
    if isinstance(data, dict) and data.get("by_turn"):
        return Script(by_turn(list(data["replies"])), models=data.get("models", [OFFLINE_MODEL]))
    return Script.from_file(path)


def available_sessions(folder: Path = SCRIPTS_DIR) -> list[str]:
    """The sessions `cafe serve --session NN` has a script for, in order ("00", "01", "04", ...):
    those in `SESSION_SCRIPTS` and those with a file `folder/sNN.json`."""
    files = (
        {path.stem.removeprefix("s") for path in folder.glob("s[0-9][0-9].json")}
        if folder.is_dir()
        else set()
    )
    return sorted(set(SESSION_SCRIPTS) | files)


def session_script(session: str, *, folder: Path = SCRIPTS_DIR) -> Script:
    """The `Script` for `cafe serve --session NN`: a responder in `SESSION_SCRIPTS`, else the file
    `folder/sNN.json`; ValueError naming the sessions that have one."""
    number = _number(session)
    if number in SESSION_SCRIPTS:
        return Script(SESSION_SCRIPTS[number], models=(OFFLINE_MODEL,))
    path = folder / f"s{number}.json"
    if path.is_file():
        return _from_file(path)
    raise ValueError(
        f"No rehearsal script for session {number}; there are scripts for sessions "
        f"{', '.join(available_sessions(folder))}. Without --session, the default rule answers."
    )


# --- telling a toy where its replies come from ------------------------------------------------


def rehearsal_script(client: EndpointClient, model: str) -> str | None:
    """The label of the script a `cafe serve` endpoint answers `model` from ("default",
    "session-01", "script"); None for any other endpoint or the offline client. Asks the model
    list only (within `LISTING_S`), so it spends no scripted reply; an endpoint that cannot list
    models gives None."""
    try:
        listed = model_entries(client, LISTING_S)
    except Exception:  # not ours to diagnose here: the toy's own request will say what is wrong
        return None
    for name, owner in listed:
        if name == model and owner.startswith(OWNER_PREFIX):
            return owner[len(OWNER_PREFIX) :]
    return None


def _default_note(number: str) -> str:
    hint = (
        f"Restart it with `cafe serve --session {number}` for replies written for this toy."
        if number in available_sessions()
        else "Start it with `cafe serve --script FILE` to choose its replies."
    )
    return (
        "This is cafe serve's default rule, not a model: it calls the first tool offered with the "
        "smallest valid arguments (an empty item, a zero), so the story does not read. " + hint
    )


def rehearsal_note(session: str, label: str | None) -> str:
    """What session `session`'s toy or notebook says about where its live replies came from, given
    `label` from `rehearsal_script`: "" for a real endpoint (None); the script it answered from
    for `cafe serve`, with the `--session NN` to restart with when the script is not this one's.
    """
    number = _number(session)
    if label is None:
        return ""
    if label == DEFAULT_LABEL:
        return _default_note(number)
    if label == session_label(number):
        return f"(cafe serve answered from session {number}'s script, not a real model.)"
    if label.startswith("session-"):
        restart = (
            f"restart it with `cafe serve --session {number}`."
            if number in available_sessions()
            else f"session {number} has no script, so restart it without --session."
        )
        return (
            f"(cafe serve is answering from {label.replace('-', ' ')}'s script, written for "
            f"another toy: {restart})"
        )
    return "(cafe serve answered from your --script file, not a real model.)"


def default_rehearsal_note(session: str) -> str:
    """What a toy prints when `cafe serve`'s default rule answered it, in plain words."""
    return _default_note(_number(session))
