"""Keeping secrets out of everything the course shows or writes: one redactor, by value and by shape.

A key can reach text by many roads: an endpoint quoting it in an error, a tool printing it, a
model echoing it, a learner pasting it into a request. So every text bound for a trace, a notebook
cell, the progress file or the terminal passes through one `Redactor` first, and only then is it
clipped: a cut made first can leave half a key that no longer matches anything.

A `Redactor` masks, in this order:

1. by value, the secrets it holds: a secret of `SHORT_SECRET_CHARS` or more wherever it stands,
   a shorter one only as a whole token (`local` is masked in `key local`, not in `locally`);
2. by encoding, a secret of `ENCODED_SECRET_CHARS` or more spaced out, percent-encoded, in hex
   or in base64 at any of its three alignments (`cafe.endpoint.secrets.encodings`);
3. by fragment: any run of `FRAGMENT_CHARS` characters of a secret of `FRAGMENT_SECRET_CHARS` or
   more, and a message that ends in the first few characters of one (someone else cut it);
4. by shape, `SECRET_SHAPES` (`cafe.endpoint.secrets.shapes`): the kinds of credential the course
   can name (`sk-...`, `Bearer ...`, `api_key=...`, a password inside a URL, ...), masked even
   when nobody said what the key is;
5. by label, in a JSON value: a string of `LABELLED_SECRET_CHARS` or more whose key names a
   secret (`{"api_key": ...}`, `{"OPENAI_API_KEY": ...}`: `secret_label`), whole.

A JSON value is walked without recursion, so a value nested as deep as any parser reads is masked
too (a model can write tool arguments hundreds of levels deep).

Shapes are a porous filter, so they are never the only guard: the values come from
`known_secrets()`, which reads the course's key, any variable named like a secret, and the
credentials inside `CAFE_BASE_URL` (`cafe.endpoint.secrets.urls`), when it is called.
`display_url`, from the same module, shows a URL with its credentials masked, wherever a URL is
printed. `cafe.endpoint.secrets.redaction.redact` and
`cafe.trace.attributes.Scrubber` are this redactor with the course's keys in it.

Session 00 (`sessions/s00-setup/lesson.md`) explains what the course promises about the key.
"""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

from cafe.endpoint.errors import ConfigError
from cafe.endpoint.secrets.encodings import ENCODED_SECRET_CHARS, encoded_patterns
from cafe.endpoint.secrets.shapes import (
    LABELLED_SECRET_CHARS,
    REDACTED,
    SECRET_SHAPES,
    SecretShape,
    mask_shapes,
    secret_label,
)
from cafe.endpoint.secrets.urls import SECRET_QUERY_NAMES, display_url, url_secrets
from cafe.endpoint.settings.environment import course_environ, settings_snapshot

__all__ = [
    "REDACTED",
    "SHORT_SECRET_CHARS",
    "ENCODED_SECRET_CHARS",
    "FRAGMENT_CHARS",
    "COURSE_KEYS",
    "SECRET_QUERY_NAMES",
    "SecretShape",
    "SECRET_SHAPES",
    "mask_key",
    "display_url",
    "url_secrets",
    "known_secrets",
    "Redactor",
    "redactor_for",
    "redact",
]

# Secrets shorter than this are masked only as whole tokens: a local server takes any key, and
# masking every "a" or "sk" inside other words would garble the text.
SHORT_SECRET_CHARS = 8
# A run of this many characters of a secret is the secret, wherever it stands...
FRAGMENT_CHARS = 8
# ...when the secret is at least this long (shorter ones have too few runs to tell apart).
FRAGMENT_SECRET_CHARS = 12
# The shortest start of a secret masked at the very end of a message that was cut short.
PREFIX_CHARS = 4
# The variables that hold the course's own key: masked at any length.
COURSE_KEYS = ("CAFE_API_KEY", "OPENAI_API_KEY")
# Other variables named like these hold secrets too; their values are masked from 8 characters
# up (a variable such as `SOME_TOKEN=1` would otherwise mask every "1").
SECRET_SUFFIXES = ("_API_KEY", "_KEY", "_TOKEN", "_SECRET", "_PASSWORD", "_PASSWD", "_PWD")
OTHER_SECRET_CHARS = 8
# --- small pure helpers -----------------------------------------------------------------------


def mask_key(key: str | None) -> str:
    """Show an API key as at most its last 4 characters: `sk-abc...wxyz` becomes `…wxyz`.

    Keys shorter than `SHORT_SECRET_CHARS` are fully hidden, since 4 of them would be half the secret.
    """
    if key is None:
        return "(not set)"
    if not key:
        return "(empty)"
    if len(key) <= SHORT_SECRET_CHARS:
        return "****"
    return "…" + key[-4:]


def known_secrets(environ: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """The secret values the course knows of, read now (not at import): the course's key at any
    length, other variables named like a secret (`*_TOKEN`, `*_PASSWORD`, ...) from 8 characters,
    and the credentials inside `CAFE_BASE_URL`. Never raises: scrubbing must not fail where a
    settings file named by `CAFE_ENV_FILE` is missing (the environment alone is used then).

    Every failure a check quotes is scrubbed, so this runs tens of thousands of times in a
    session's stories. Read from the process environment (no `environ` given), the answer is kept
    until the environment or the settings file's text changes (`_settings_now`), which costs a
    stat and a small read instead of a parse of the file and of every variable."""
    if environ is not None:
        return _secrets_in(environ)
    now = _settings_now()
    last = _LAST_READ.get("process")  # one read: another thread may replace it meanwhile
    if last is not None and last[0] == now:
        return last[1]
    try:
        env = course_environ()
    except ConfigError:  # a settings file that cannot be read: scrub with what can be
        env = os.environ
    found = _secrets_in(env)
    _LAST_READ["process"] = (now, found)
    return found


# The settings `known_secrets()` last read from the process, and what it found in them.
_LAST_READ: dict[str, tuple[tuple[Any, ...], tuple[str, ...]]] = {}


def _settings_now() -> tuple[Any, ...]:
    """What `known_secrets()` reads, in a form cheap to compare: every variable of the process
    environment, and the settings file the settings would read, found the same way (from the
    current folder up to the course root) and read the same careful way: never a pipe or a
    device, never past its size cap (`settings_snapshot`). This runs on every quoted failure."""
    stored = getattr(os.environ, "_data", None)  # CPython keeps the environment as bytes here
    variables = frozenset(stored.items() if isinstance(stored, dict) else os.environ.items())
    return variables, settings_snapshot()


def _secrets_in(env: Mapping[str, str]) -> tuple[str, ...]:
    """The secrets `known_secrets` names, read from `env`."""
    found = [env.get(name, "").strip() for name in COURSE_KEYS]
    for name, value in env.items():
        if name.upper().endswith(SECRET_SUFFIXES) and name not in COURSE_KEYS:
            if len(value.strip()) >= OTHER_SECRET_CHARS:
                found.append(value.strip())
    found += url_secrets(env.get("CAFE_BASE_URL", ""))
    return tuple(s for s in dict.fromkeys(found) if s)


# --- the redactor -----------------------------------------------------------------------------


class Redactor:
    """Masks `secrets` by value and by fragment, then every `SECRET_SHAPES` match, in text and in
    JSON values; remembers each string it has cleaned (a run sends the same prompt many times).

    A secret is replaced by `REDACTED`, or with `show_tail=True` by `mask_key(secret)` (`…wxyz`),
    which lets a person tell which key it was. Shapes always read `REDACTED`.
    """

    # Cleaned strings kept for reuse; past this many the memory starts again (a long process).
    MEMO_LIMIT = 20_000

    def __init__(self, secrets: Iterable[str] = (), *, show_tail: bool = False):
        kept = {s for s in secrets if isinstance(s, str) and s.strip()}
        self.secrets: tuple[str, ...] = tuple(sorted(kept, key=lambda s: (-len(s), s)))
        self.show_tail = show_tail
        self._long = [s for s in self.secrets if len(s) >= SHORT_SECRET_CHARS]
        shorts = [re.escape(s) for s in self.secrets if len(s) < SHORT_SECRET_CHARS]
        self._short = (
            re.compile(rf"(?<![A-Za-z0-9_-])(?:{'|'.join(shorts)})(?![A-Za-z0-9_-])")
            if shorts
            else None
        )
        self._grams: dict[str, list[tuple[str, int]]] = {}
        for secret in self._long:
            if len(secret) >= FRAGMENT_SECRET_CHARS:
                for at in range(len(secret) - FRAGMENT_CHARS + 1):
                    self._grams.setdefault(secret[at : at + FRAGMENT_CHARS], []).append(
                        (secret, at)
                    )
        self._fragment = (
            re.compile("|".join(re.escape(g) for g in self._grams)) if self._grams else None
        )
        self._encoded = [(p, s) for s in self._long for p in encoded_patterns(s)]
        self._clean: dict[str, str] = {}
        self.memo: dict[Any, Any] = {}  # for callers that convert the same value many times

    def _mask(self, secret: str) -> str:
        return mask_key(secret) if self.show_tail else REDACTED

    def _run_end(self, text: str, start: int) -> tuple[int, str]:
        """Where the run of secret characters starting at `start` ends, and whose secret it is."""
        best, owner = start + FRAGMENT_CHARS, ""
        for secret, at in self._grams[text[start : start + FRAGMENT_CHARS]]:
            end, k = start + FRAGMENT_CHARS, at + FRAGMENT_CHARS
            while end < len(text) and k < len(secret) and text[end] == secret[k]:
                end, k = end + 1, k + 1
            if end >= best:
                best, owner = end, secret
        return best, owner

    def _encodings(self, text: str) -> str:
        """`text` with every stretch an encoded secret covers masked (overlapping finds as one)."""
        found = sorted(
            (m.start(), m.end(), secret)
            for pattern, secret in self._encoded
            for m in pattern.finditer(text)
        )
        pieces, last = [], 0
        for start, end, secret in found:
            if end <= last:
                continue  # inside a stretch already masked
            if start >= last:
                pieces += [text[last:start], self._mask(secret)]
            last = end
        return "".join(pieces) + text[last:] if pieces else text

    def _fragments(self, text: str) -> str:
        if self._fragment is None:
            return text
        pieces, last = [], 0
        found = self._fragment.search(text)
        while found is not None:
            end, secret = self._run_end(text, found.start())
            pieces += [text[last : found.start()], self._mask(secret)]
            last = end
            found = self._fragment.search(text, end)
        return "".join(pieces) + text[last:] if pieces else text

    def _cut_prefix(self, text: str) -> str:
        """A message cut short can end in the first characters of a secret: mask that tail
        (from `PREFIX_CHARS` when the text shows its cut with "…", else from `FRAGMENT_CHARS`)."""
        body = text.rstrip()
        cut = body.endswith(("…", "..."))
        body = body.removesuffix("…").removesuffix("...").rstrip() if cut else body
        shortest = PREFIX_CHARS if cut else FRAGMENT_CHARS
        for secret in self._long:
            for length in range(min(len(secret) - 1, len(body)), shortest - 1, -1):
                if body.endswith(secret[:length]):
                    return body[:-length] + self._mask(secret) + text[len(body) :]
        return text

    def text(self, value: str) -> str:
        """`value` with every secret masked (see the class docstring for the order)."""
        clean = self._clean.get(value)
        if clean is not None:
            return clean
        clean = value
        for secret in self._long:
            if secret in clean:
                clean = clean.replace(secret, self._mask(secret))
        clean = self._cut_prefix(self._fragments(self._encodings(clean)))
        if self._short is not None:
            clean = self._short.sub(lambda m: self._mask(m.group(0)), clean)
        clean = mask_shapes(clean)
        if len(self._clean) >= self.MEMO_LIMIT:
            self._clean.clear()
        self._clean[value] = clean
        return clean

    def _item(self, name: Any, value: Any) -> Any:
        """A JSON object's `value` under the key `name`: a string long enough, whole, when the
        name labels a secret; else `value` itself masked when it is a string."""
        if not isinstance(value, str):
            return value
        if len(value) >= LABELLED_SECRET_CHARS and secret_label(str(name)):
            return REDACTED
        return self.text(value)

    def __call__(self, value: Any) -> Any:
        """`value` (a JSON value) with every string masked; numbers, booleans and None as they are.
        Tuples become lists and mapping keys become text, as JSON writes them. Each list or object
        is made empty and filled when the walk reaches it (a stack, not recursion)."""
        if isinstance(value, str):
            return self.text(value)
        if not isinstance(value, (Mapping, list, tuple)):
            return value
        whole: dict[Any, Any] | list[Any] = {} if isinstance(value, Mapping) else []
        waiting = [(value, whole)]
        while waiting:
            source, made = waiting.pop()
            pairs = source.items() if isinstance(source, Mapping) else enumerate(source)
            for name, item in pairs:
                if isinstance(item, (Mapping, list, tuple)):
                    copy: Any = {} if isinstance(item, Mapping) else []
                    waiting.append((item, copy))
                else:
                    copy = self._item(name if isinstance(made, dict) else "", item)
                if isinstance(made, dict):
                    made[self.text(str(name))] = copy
                else:
                    made.append(copy)
        return whole


@functools.lru_cache(maxsize=32)
def redactor_for(secrets: tuple[str, ...], *, show_tail: bool = False) -> Redactor:
    """A `Redactor` for these secrets, shared by every caller that asks for the same ones, so the
    strings it has cleaned are reused (the doctor's lines, an error's text)."""
    return Redactor(secrets, show_tail=show_tail)


def redact(text: str, key: str | None = None) -> str:
    """`text` with `key` and every secret the course knows of masked.

    By value at any length (a key shorter than 8 characters only as a whole word, so a local key
    such as `a` does not garble the text), by fragment, and by shape (`sk-...`, `Bearer ...`,
    `api_key=...`, credentials in a URL). A masked key reads `…` plus its last 4 characters.
    """
    secrets = tuple(dict.fromkeys(((key,) if key else ()) + known_secrets()))
    return redactor_for(secrets, show_tail=True).text(text)
