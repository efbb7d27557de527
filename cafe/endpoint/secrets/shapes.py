"""What a credential looks like: the shapes the redactor masks even when nobody said what the key is.

`SECRET_SHAPES` is one rule a line: an `sk-...` key, a bearer token, an AWS key id, a GitHub,
Slack, Google, GitLab or Hugging Face token, a JSON web token, a private key block, credentials
inside a URL or its query, and a value labelled as a secret. A label (`SECRET_LABEL`: `api_key`,
`password`, `token`, ... in any case, alone or ending a longer name such as `OPENAI_API_KEY` or
`db.password`) labels its value whatever the syntax: `api_key=X`, `password: X`, `export
OPENAI_API_KEY=X` (a .env line), `{"api_key": "X"}` (JSON, escaped or not), `{'password': 'X'}`
(a Python dict in an error), `secret => X`. `secret_label` answers the same question for the key of
a JSON object, which the redactor asks of every object it walks. Each pattern's `value` group is
the secret, so what names it (`api_key=`) stays readable. Shapes are a porous filter: a key of no
known shape passes them, which is why `cafe.endpoint.secrets.redaction.Redactor` masks the secrets it knows
by value first, and uses `mask_shapes` after. Each rule was checked against the course's own
texts (menus, tickets, lessons), none of which it masks. Session 00 (`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = [
    "REDACTED",
    "LABELLED_SECRET_CHARS",
    "SECRET_LABEL",
    "SecretShape",
    "SECRET_SHAPES",
    "secret_label",
    "mask_shapes",
]

# What a masked secret reads as in a trace or a file.
REDACTED = "[redacted]"
# Text holding none of these (in any case) cannot match a shape, so the shapes are not run on it.
_SHAPE_HINT = re.compile(
    r"sk-|bearer|basic|akia|asia|gh[pousr]_|github_pat|xox|aiza|glpat|hf_|eyj|private key|@"
    r"|key|token|secret|passw|pwd|auth|sig",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class SecretShape:
    """One kind of credential the course can recognise: its name, and a pattern whose `value`
    group is the secret (the rest, such as `api_key=`, stays readable)."""

    name: str
    pattern: re.Pattern[str]


def _shape(name: str, pattern: str, flags: int = 0) -> SecretShape:
    return SecretShape(name, re.compile(pattern, flags))


# The words that label a secret, in any case; a longer name ending in one labels a secret too
# (`OPENAI_API_KEY`, `client_secret`, `x-api-key`, `access_token`, `db.password`).
SECRET_LABEL = r"(?:api[-_ ]?key|apikey|secret|token|password|passwd|pwd)"
# A labelled value shorter than this is left alone: `token: 12` or `pwd: /` is not a secret.
LABELLED_SECRET_CHARS = 8
_LABELLED_NAME = re.compile(rf"[\w .-]*?{SECRET_LABEL}", re.IGNORECASE)
_QUERY_NAME = (
    r"(?:api[-_]?key|key|token|access[-_]token|auth|sig|signature|password|secret|client[-_]secret)"
)
# One shape a line; each was checked against the course's own texts (menus, tickets, lessons),
# none of which it masks.
SECRET_SHAPES: tuple[SecretShape, ...] = (
    _shape("OpenAI or Anthropic key", r"\b(?P<value>sk-(?:proj-|ant-)?[A-Za-z0-9_-]{8,})"),
    _shape("bearer token", r"\bBearer\s+(?P<value>[A-Za-z0-9._~+/=-]{8,})", re.IGNORECASE),
    _shape("basic credentials", r"\bBasic\s+(?P<value>[A-Za-z0-9+/]{8,}={0,2})"),
    _shape("AWS access key id", r"\b(?P<value>(?:AKIA|ASIA)[0-9A-Z]{16})\b"),
    _shape("GitHub token", r"\b(?P<value>gh[pousr]_[A-Za-z0-9]{20,})"),
    _shape("GitHub fine-grained token", r"\b(?P<value>github_pat_[A-Za-z0-9_]{20,})"),
    _shape("Slack token", r"\b(?P<value>xox[abposr]-[A-Za-z0-9-]{10,})"),
    _shape("Google API key", r"\b(?P<value>AIza[0-9A-Za-z_-]{35})"),
    _shape("GitLab token", r"\b(?P<value>glpat-[A-Za-z0-9_-]{20,})"),
    _shape("Hugging Face token", r"\b(?P<value>hf_[A-Za-z0-9]{20,})"),
    _shape("JSON web token", r"\b(?P<value>eyJ[\w-]{8,}\.eyJ[\w-]{8,}\.[\w-]{8,})"),
    _shape(
        "private key block",
        r"(?P<value>-----BEGIN [A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z ]*PRIVATE KEY-----|\Z))",
    ),
    _shape("credentials in a URL", r"//(?P<value>[^/\s@?#]+)@(?=[^\s@/]+)"),
    _shape(
        "credential in a URL query",
        rf"[?&;]{_QUERY_NAME}=(?P<value>[^&#\s\"'<>]+)",
        re.IGNORECASE,
    ),
    _shape(  # the label, its closing quote (escaped or not), `:`, `=`, `:=` or `=>`, an opening quote
        "labelled secret",
        rf"{SECRET_LABEL}(?:\\*[\"'])?\s*(?::=|=>|[:=])\s*(?:\\*[\"'])?"
        rf"(?P<value>(?:[^\s\"',;&\\]|\\(?![\\\"'])){{{LABELLED_SECRET_CHARS},}})",
        re.IGNORECASE,
    ),
)


def secret_label(name: str) -> bool:
    """Whether `name`, the key of a JSON object or a variable's name, labels a secret: `api_key`,
    `Password`, `OPENAI_API_KEY`, `clientSecret` do; `max_tokens` and `keyboard` do not."""
    return _LABELLED_NAME.fullmatch(name.strip()) is not None


def mask_shapes(text: str) -> str:
    """`text` with the `value` of every `SECRET_SHAPES` match masked."""
    if not _SHAPE_HINT.search(text):
        return text
    for shape in SECRET_SHAPES:

        def masked(match: re.Match[str]) -> str:
            whole, start = match.group(0), match.start()
            return (
                whole[: match.start("value") - start]
                + REDACTED
                + whole[match.end("value") - start :]
            )

        text = shape.pattern.sub(masked, text)
    return text
