"""How fast the model writes, and which reply cap and deadline fit it: what the doctor measures.

A call that is not streamed comes back when the whole reply is written, so the time it needs is
the time before the first token plus the reply's tokens divided by the model's speed. The reply
cap (`CAFE_MAX_TOKENS`) bounds the second part; the deadline (`CAFE_TIMEOUT_S`) must cover both,
or a healthy but slow model is cut off and looks dead. `measure_speed` times the two parts apart:

- the time before the first token: a request for one token whose prompt opens with a fresh
  random tag, so no server can have read it before;
- the writing: a request for `SPEED_PROBE_TOKENS` tokens, asked twice with the same prompt, the
  second timed. A server that keeps the prompt it has read (llama.cpp keeps a cached prefix)
  then only writes; one that does not reads it again, and the speed comes out lower than the
  truth, never higher (safe for the deadline it recommends).

The doctor once took the difference of a 1-token and a 64-token request instead. With the same
prompt, the server answered the second from its cache and the speed read 380,000 tokens a
second (issue 38); with fresh prompts the difference was still mostly noise on a busy machine:
`cafe local` took 4.9 to 13.6 s to read a 40-token prompt, from one request to the next
(7 December 2026, 2 cores at a load of 8 to 10), while writing 63 tokens took about 3 s, and the
doctor read 380,000 tokens/s again where a streamed reply wrote 13 to 22. A slow reading is
taken again (`fastest_reading`), since a busy machine can only make a probe slower; `advice`
compares a reply at the cap with the deadline and, when they do not fit, names the settings that
would (`deadline_for`), a smaller cap too when the deadline alone would pass five minutes.

Measured on 1 December 2026 (`cafe local`, SmolLM2-135M Q4_1, two cores): 26 to 28 reply
tokens/s on an idle machine, about a third of that under load, so a 1,024-token reply needs
well over the 60 s default on a busy laptop. Session 00 (`sessions/s00-setup/lesson.md`) and
`docs/doctor.md` show the doctor's speed line.
"""

from __future__ import annotations

import math
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

from cafe.endpoint.client.chat import complete
from cafe.endpoint.client.protocol import ChatClient
from cafe.endpoint.settings.config import DEFAULT_TIMEOUT_S, MAX_TOKENS_VARIABLE, TIMEOUT_VARIABLE
from cafe.endpoint.settings.variables import TIMEOUT_CEILING_S

__all__ = [
    "SPEED_PROBE_TOKENS",
    "FIRST_TOKEN_S",
    "SHARED_MACHINE_FACTOR",
    "SLOW_TOKENS_PER_S",
    "CAP_STEPS",
    "Clock",
    "Speed",
    "probe_messages",
    "measure_speed",
    "SPEED_TRIES",
    "fastest_reading",
    "deadline_for",
    "advice",
]

# The speed probe's longer reply: enough tokens that writing them outweighs a request's own cost.
SPEED_PROBE_TOKENS = 64
# Seconds allowed before the first reply token: the request, a queue of one, and the prompt. A
# course prompt is at most about 1,000 tokens; `cafe local` read 500 in 3 s idle, 8 s under load.
FIRST_TOKEN_S = 15.0
# How much slower than measured a call may run before it is cut off: the doctor measures at a
# quiet moment; a notebook runs beside a kernel, a browser and a test suite (a third of the
# speed was measured under load, above).
SHARED_MACHINE_FACTOR = 3.0
# Below this many reply tokens a second, the doctor calls the model slow (slow, not dead): a
# reply at the default cap then takes minutes.
SLOW_TOKENS_PER_S = 10.0
# Reply caps the doctor may recommend, largest first: each still leaves room for a ticket (about
# 100 tokens) or a tool call, with margin for a wordy model.
CAP_STEPS = (1024, 512, 384, 256)
# Recommended deadlines are rounded up to this many seconds, so they read as settings.
ROUND_S = 10
# The longest deadline the doctor recommends before it recommends a smaller cap instead.
PATIENCE_S = 300.0
# The question the probe asks: a reply that can run as long as it is allowed to.
_COUNTING = {"role": "user", "content": "Count from 1 to 500 in words, separated by commas."}
# Random bytes in a probe's opening tag: a prompt the server cannot have read before.
TAG_BYTES = 6
# Readings the doctor takes, at most, before it calls a model too slow for its settings. A pause
# on a shared machine (another process, a garbage collection) only ever slows a probe down, so
# one slow reading may be the machine; a model is too slow when every reading says so. A CI run
# once read 30 tokens/s from the scripted server, which answers at once.
SPEED_TRIES = 3


# A clock: seconds since some fixed moment (`time.perf_counter`, or a test's fake).
Clock = Callable[[], float]


@dataclass(frozen=True)
class Speed:
    """What the speed probe saw: reply tokens per second, and the seconds before the first."""

    tokens_per_s: float
    first_token_s: float


def _fresh_tag() -> str:
    return secrets.token_hex(TAG_BYTES)


def probe_messages(tag: str) -> list[dict[str, str]]:
    """The speed probe's prompt, opening with `tag`: a fresh tag is a prompt no server has read,
    the same tag again one it may have kept."""
    return [{"role": "system", "content": f"Speed probe {tag}."}, dict(_COUNTING)]


def _timed(
    client: ChatClient, model: str, tokens: int, timeout: float, tag: str, clock: Clock
) -> tuple[float, int]:
    """(seconds, tokens written) for one plain-text request capped at `tokens`."""
    started = clock()
    reply = complete(
        client,
        model=model,
        messages=probe_messages(tag),
        max_tokens=tokens,
        temperature=0,
        timeout=timeout,
    )
    usage = getattr(reply, "usage", None)
    written = getattr(usage, "completion_tokens", None)
    return clock() - started, written if isinstance(written, int) else tokens


def measure_speed(
    client: ChatClient,
    model: str,
    timeout: float,
    *,
    tag: Callable[[], str] = _fresh_tag,
    clock: Clock = time.perf_counter,
) -> Speed | None:
    """The model's speed from three requests, each timed by `clock()` (seconds; a test passes a
    fake one): 1 token on a prompt opening with its own `tag()` (the time before the first
    token), then `SPEED_PROBE_TOKENS` on another, asked twice, the second timed (the writing).
    None when the model stopped after a token or two, which leaves nothing to time. Raises what
    `cafe.endpoint.client.chat.complete` raises."""
    first_token_s, _ = _timed(client, model, 1, timeout, tag(), clock)
    repeated = tag()
    _timed(client, model, SPEED_PROBE_TOKENS, timeout, repeated, clock)  # the server reads it
    writing_s, written = _timed(client, model, SPEED_PROBE_TOKENS, timeout, repeated, clock)
    if written < 3:
        return None
    return Speed(tokens_per_s=written / max(writing_s, 1e-4), first_token_s=first_token_s)


def fastest_reading(
    measure: Callable[[], Speed | None],
    fits: Callable[[Speed], bool],
    tries: int = SPEED_TRIES,
) -> Speed | None:
    """The fastest of up to `tries` calls of `measure()`, stopping at the first reading that
    `fits`; None when the first reading is None (the reply was too short to time)."""
    best: Speed | None = None
    for _ in range(tries):
        reading = measure()
        if reading is None:
            return best
        if best is None or reading.tokens_per_s > best.tokens_per_s:
            best = reading
        if fits(best):
            break
    return best


def deadline_for(cap: int, tokens_per_s: float) -> float:
    """Seconds a call capped at `cap` tokens needs at `tokens_per_s` on a busy machine, rounded
    up to `ROUND_S`; never below `DEFAULT_TIMEOUT_S`, which a fast model never comes near."""
    if cap < 1 or not tokens_per_s > 0:
        raise ValueError(
            f"deadline_for({cap!r}, {tokens_per_s!r}): a cap of 1 or more, a speed above 0."
        )
    needed = FIRST_TOKEN_S + cap / tokens_per_s * SHARED_MACHINE_FACTOR
    return max(DEFAULT_TIMEOUT_S, float(math.ceil(needed / ROUND_S) * ROUND_S))


def _recommended(speed: Speed, cap: int) -> tuple[int, float]:
    """The largest cap (this one, else one of `CAP_STEPS`) whose deadline stays within
    `PATIENCE_S`, and that deadline."""
    for step in (cap, *(c for c in CAP_STEPS if c < cap)):
        needed = deadline_for(step, speed.tokens_per_s)
        if needed <= PATIENCE_S:
            return step, needed
    smallest = min(cap, CAP_STEPS[-1])
    return smallest, min(deadline_for(smallest, speed.tokens_per_s), TIMEOUT_CEILING_S)


def advice(speed: Speed, cap: int, timeout: float) -> tuple[bool, str, str]:
    """(fits, what the doctor says, the settings it recommends) for a measured speed, the reply
    cap and the deadline live calls get. It fits when a reply at the cap, at a third of the
    measured speed, ends inside the deadline."""
    full = speed.first_token_s + cap / speed.tokens_per_s
    busy = FIRST_TOKEN_S + cap / speed.tokens_per_s * SHARED_MACHINE_FACTOR
    said = (
        f"{speed.tokens_per_s:.0f} reply tokens/s, {speed.first_token_s:.1f} s before the first; "
        f"a reply at the cap ({cap} tokens) takes about {full:.0f} s here, now, "
        f"and up to {busy:.0f} s on a busy machine"
    )
    if speed.tokens_per_s < SLOW_TOKENS_PER_S:
        said += " (a slow model: slow, not dead)"
    if deadline_for(cap, speed.tokens_per_s) <= timeout:
        return True, f"{said}; calls give up after {timeout:g} s, which fits", ""
    step, needed = _recommended(speed, cap)
    exports = [f"export {TIMEOUT_VARIABLE}={needed:g}"]
    if step != cap:
        exports.append(f"export {MAX_TOKENS_VARIABLE}={step}")
    fix = (
        f"Let the deadline fit the model: `{'; '.join(exports)}` (or those lines in .env). "
        f"A reply at the cap on a busy machine can take about {needed:g} s."
    )
    if deadline_for(step, speed.tokens_per_s) > needed:  # even the longest deadline is too short
        fix += (
            f" Even so, a reply of {step} tokens may outlast the longest deadline the course "
            f"allows ({TIMEOUT_CEILING_S:g} s) on a busy machine: this model is too slow for "
            "the course here; use a faster model, or a machine with more cores or a GPU."
        )
    return False, f"{said}, past the {timeout:g} s calls allow", fix
