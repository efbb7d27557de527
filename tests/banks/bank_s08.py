"""Session 08's banks: `check_replay_client` and `check_mask` (cafe/exercises/s08.py).

The exercise ideas: a replay answers model call k with the reply recorded at call k only when
call k is the call the recording made (every message, the model asked), and stops at the first
call that differs or that the recording has no reply for; and a mask takes the whole of anything
that looks like a credential out of a trace while ordinary text, model names and ids stay as they
were. The entries after the red-team comments passed the checkers before they judged generated
recordings and texts (issue 35); each is rejected now.
"""

from __future__ import annotations

import re
from typing import Any

from banks.harness import Bank, Entry
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.exercises.reference_s08 import ReplayPieces, masked
from cafe.exercises.s08 import check_mask, check_replay_client, reference_replay
from cafe.stories.feedback_model import FeedbackModel
from cafe.trace.replay import recorded_reply, replay_client, request_difference
from cafe.trace.spans import scrub

# --- replay client: wrong -----------------------------------------------------------------------


def _responder_client(trace: Any, same: Any) -> ScriptedClient:
    """A replay built the way the notebook hints, with `same(span, request)` deciding a match."""
    calls, answered = list(trace.model_calls), []

    def responder(request: dict) -> Any:
        if len(answered) == len(calls):
            raise RuntimeError("the recording has no call left")
        span = calls[len(answered)]
        if not same(span, request):
            raise RuntimeError(f"call {len(answered) + 1} is not the recorded one")
        answered.append(span)
        return recorded_reply(span)

    return ScriptedClient(responder)


def _recorded_messages(span: Any) -> list:
    return span.get("gen_ai.input.messages") or []


def message_count_only(trace: Any) -> ScriptedClient:
    """Compares how many messages a call sends, not what they say."""
    return _responder_client(
        trace, lambda span, request: len(request["messages"]) == len(_recorded_messages(span))
    )


def _without_system(request: dict, span: Any) -> dict:
    """The request with the recording's system message in place of its own."""
    recorded = _recorded_messages(span)
    messages = list(request["messages"])
    if messages and recorded and messages[0].get("role") == "system":
        parts = recorded[0].get("parts") or [{}]
        messages[0] = {**messages[0], "content": parts[0].get("content")}
    return {**request, "messages": messages}


def system_prompt_blind(trace: Any) -> ScriptedClient:
    """Compares the conversation but never the system prompt (where the menu is)."""
    return _responder_client(
        trace,
        lambda span, request: request_difference(span, _without_system(request, span)) is None,
    )


def past_the_end(trace: Any) -> ScriptedClient:
    """When the recording runs out, answers with its last reply again."""
    calls, answered = list(trace.model_calls), []

    def responder(request: dict) -> Any:
        span = calls[min(len(answered), len(calls) - 1)]
        if len(answered) < len(calls) and request_difference(span, request) is not None:
            raise RuntimeError("differs")
        answered.append(span)
        return recorded_reply(span)

    return ScriptedClient(responder)


def model_blind(trace: Any) -> ScriptedClient:
    """The messages must match; which model was asked does not matter."""

    def same(span: Any, request: dict) -> bool:
        asked = {**request, "model": span.get("gen_ai.request.model")}
        return request_difference(span, asked) is None

    return _responder_client(trace, same)


def blind_list(trace: Any) -> ScriptedClient:
    """The recorded replies in order, never compared with the calls."""
    return ScriptedClient([recorded_reply(span) for span in trace.model_calls])


def first_call_only(trace: Any) -> ScriptedClient:
    """Checks call 1 against the recording, then trusts the rest."""
    calls, answered = list(trace.model_calls), []

    def responder(request: dict) -> Any:
        span = calls[len(answered)]
        if not answered and request_difference(span, request) is not None:
            raise RuntimeError("call 1 differs")
        answered.append(span)
        return recorded_reply(span)

    return ScriptedClient(responder)


def fresh_model(trace: Any) -> Any:
    """A model (the session 07 stand-in) instead of the recording."""
    return make_client(FeedbackModel())


def the_replies(trace: Any) -> list:
    """The recorded replies handed back as a list, not a client."""
    return [recorded_reply(span) for span in trace.model_calls]


def format_blind(trace: Any) -> ScriptedClient:
    """Compares the model and the messages, and never the output format asked for."""
    left = list(trace.model_calls)

    def answer(request: dict) -> Any:
        if not left:
            raise LookupError("no recorded call left")
        span = left.pop(0)
        if request.get("model") != span.get("gen_ai.request.model"):
            raise LookupError("another model")
        if request["messages"] != _recorded_messages(span):
            raise LookupError("other messages")
        return recorded_reply(span)

    return ScriptedClient(answer)


def calls_the_course(trace: Any) -> Any:
    """Hands the course's replay_client back instead of building one."""
    return replay_client(trace)


# Found by a red team before the checker judged generated recordings: each answered every case
# the checker named, and each is caught now by a generated recording (`reference_s08.replays`).


def _ordered(trace: Any, *, ignored: tuple[str, ...] = (), reply: Any = None) -> ScriptedClient:
    """The hinted replay, letting through a difference in the `ignored` fields, and answering
    with `reply(recorded reply)` when given."""
    calls, answered = list(trace.model_calls), []

    def responder(request: dict) -> Any:
        if len(answered) == len(calls):
            raise RuntimeError("the recording has no call left")
        span = calls[len(answered)]
        difference = request_difference(span, request)
        if difference is not None and not difference.where.startswith(ignored or ("-",)):
            raise RuntimeError(f"call {len(answered) + 1} differs: {difference}")
        answered.append(span)
        return reply(recorded_reply(span)) if reply else recorded_reply(span)

    return ScriptedClient(responder)


def tools_ignored(trace: Any) -> ScriptedClient:
    """A change in the tools offered is let through."""
    return _ordered(trace, ignored=("cafe.request.tools",))


def content_only(trace: Any) -> ScriptedClient:
    """Answers with the recorded text alone: tool calls, finish reason and tokens dropped."""
    return _ordered(trace, reply=lambda recorded: {"content": recorded["content"]})


def tokens_dropped(trace: Any) -> ScriptedClient:
    """Drops the recorded token counts (the scripted client counts its own)."""
    return _ordered(trace, reply=lambda recorded: {**recorded, "usage": None})


def finish_always_stop(trace: Any) -> ScriptedClient:
    """Every reply finishes 'stop', even one the recording cut at its length."""
    return _ordered(trace, reply=lambda recorded: {**recorded, "finish_reason": "stop"})


def tool_calls_dropped(trace: Any) -> ScriptedClient:
    """Replies without the tool calls the recording got."""
    return _ordered(trace, reply=lambda recorded: {**recorded, "tool_calls": []})


def cycles_when_out(trace: Any) -> ScriptedClient:
    """Past the end of the recording, starts again from call 1."""
    calls, count = list(trace.model_calls), [0]

    def responder(request: dict) -> Any:
        span = calls[count[0] % len(calls)]
        count[0] += 1
        if request_difference(span, request) is not None:
            raise RuntimeError("differs")
        return recorded_reply(span)

    return ScriptedClient(responder)


def skips_ahead(trace: Any) -> ScriptedClient:
    """At a call that differs, skips forward to the next recorded call that matches."""
    calls = list(trace.model_calls)

    def responder(request: dict) -> Any:
        while calls:
            span = calls.pop(0)
            if request_difference(span, request) is None:
                return recorded_reply(span)
        raise RuntimeError("the recording has no call left")

    return ScriptedClient(responder)


def any_matching_call(trace: Any) -> ScriptedClient:
    """Answers with any recorded call whose request matches, in whatever order."""
    calls = list(trace.model_calls)

    def responder(request: dict) -> Any:
        for span in calls:
            if request_difference(span, request) is None:
                return recorded_reply(span)
        raise RuntimeError("no recorded call matches")

    return ScriptedClient(responder)


def stops_one_call_late(trace: Any) -> ScriptedClient:
    """Answers the call that differs, and refuses only the call after it."""
    calls, diverged = list(trace.model_calls), [False]

    def responder(request: dict) -> Any:
        if diverged[0] or not calls:
            raise RuntimeError("diverged")
        span = calls.pop(0)
        diverged[0] = request_difference(span, request) is not None
        return recorded_reply(span)

    return ScriptedClient(responder)


_SHARED_COUNT = [0]  # the mistake itself: one counter for every client ever built


def shared_counter(trace: Any) -> ScriptedClient:
    """Counts calls in a module-level counter, so a second client starts where the first ended."""
    calls = list(trace.model_calls)

    def responder(request: dict) -> Any:
        if _SHARED_COUNT[0] >= len(calls):
            raise RuntimeError("the recording has no call left")
        span = calls[_SHARED_COUNT[0]]
        _SHARED_COUNT[0] += 1
        if request_difference(span, request) is not None:
            raise RuntimeError("differs")
        return recorded_reply(span)

    return ScriptedClient(responder)


def empty_reply_when_out(trace: Any) -> ScriptedClient:
    """Past the end of the recording, answers with an empty reply instead of refusing."""
    calls, answered = list(trace.model_calls), []

    def responder(request: dict) -> Any:
        if len(answered) == len(calls):
            return {"content": ""}
        span = calls[len(answered)]
        if request_difference(span, request) is not None:
            raise RuntimeError("differs")
        answered.append(span)
        return recorded_reply(span)

    return ScriptedClient(responder)


def last_message_only(trace: Any) -> ScriptedClient:
    """Compares the model and the last message's text, not the messages before it."""

    def same(span: Any, request: dict) -> bool:
        parts = _recorded_messages(span)[-1].get("parts") or [{}]
        said = request["messages"][-1].get("content")
        return (
            span.get("gen_ai.request.model") == request["model"] and parts[0].get("content") == said
        )

    return _responder_client(trace, same)


# --- replay client: right -----------------------------------------------------------------------


def right_hinted(trace: Any) -> ScriptedClient:
    """The notebook's hints: a responder that checks, then answers, call by call."""
    return _responder_client(trace, lambda span, request: request_difference(span, request) is None)


def right_iterator(trace: Any) -> ScriptedClient:
    """An iterator over the recorded spans; a call past the end finds None."""
    recorded = iter(trace.model_calls)

    def responder(request: dict) -> Any:
        span = next(recorded, None)
        if span is None:
            raise LookupError("no recorded call left to answer")
        found = request_difference(span, request)
        if found is not None:
            raise LookupError(f"the replay differs here: {found}")
        return recorded_reply(span)

    return ScriptedClient(responder)


# --- mask: wrong --------------------------------------------------------------------------------

_LABELS = r"(?:api[ _-]?key|secret|token|password)"


def prefix_only(text: str) -> str:
    """Masks the tell-tale start of a key and leaves the rest."""
    text = re.sub(r"\bsk-[A-Za-z0-9]{0,6}", "[redacted]", text)
    text = re.sub(r"\bBearer\s+\S{0,8}", "Bearer [redacted]", text)
    text = re.sub(r"\bAKIA\w{0,4}", "[redacted]", text)
    return re.sub(rf"({_LABELS}\s*[:=]\s*)\S{{0,4}}", r"\1[redacted]", text, flags=re.I)


def labels_lower_case_only(text: str) -> str:
    """Known shapes, and labels written in lower case only: 'password:' yes, 'PASSWORD=' no."""
    text = re.sub(r"\bsk-[\w-]{8,}|\bBearer\s+\S{8,}|\bAKIA[0-9A-Z]{16}\b", "[redacted]", text)
    return re.sub(rf"\b({_LABELS})(\s*[:=]\s*)[^\s,;]+", r"\1\2[redacted]", text)


def long_tokens(text: str) -> str:
    """Anything long with a digit in it looks like a key."""
    return re.sub(r"\b(?=[\w.-]*\d)[\w.-]{12,}", "[redacted]", text)


def whole_text(text: str) -> str:
    """A text that mentions a credential is hidden whole."""
    return "[redacted]" if re.search(r"sk-|bearer|akia|key|password|secret", text, re.I) else text


def sk_keys_only(text: str) -> str:
    """One shape only: OpenAI-style keys."""
    return re.sub(r"\bsk-[\w-]+", "[redacted]", text)


def word_after_label(text: str) -> str:
    """Masks the word after 'key', 'token' or 'secret', whether a credential follows or not."""
    text = re.sub(r"\bBearer\s+\S+|\bAKIA[0-9A-Z]{16}\b|\bsk-[\w-]+", "[redacted]", text)
    return re.sub(rf"\b({_LABELS}\b\W*)(\S+)", r"\1[redacted]", text, flags=re.I)


def label_dropped(text: str) -> str:
    """Takes the label out and leaves the value behind."""
    text = re.sub(r"\bsk-[\w-]{8,}|\bAKIA[0-9A-Z]{16}\b", "[redacted]", text)
    text = re.sub(r"\bBearer\s+", "", text)
    return re.sub(rf"{_LABELS}\s*[:=]\s*", "", text, flags=re.I)


def hex_is_secret(text: str) -> str:
    """Every run of 12 hex digits or more is a secret: trace and span ids too."""
    text = masked(text)
    return re.sub(r"\b[0-9a-f]{12,}\b", "[redacted]", text)


def title_case_labels_missed(text: str) -> str:
    """Labels in lower case and capitals, not in title case: 'Password:' and 'Api-Key=' kept."""
    text = re.sub(r"\bsk-[\w-]{8,}|\bAKIA[0-9A-Z]{16}\b|(?<=Bearer )\S{8,}", "[m]", text)
    labels = r"(api[_-]?key|API[_-]?KEY|token|TOKEN|password|PASSWORD|secret|Secret|SECRET)"
    return re.sub(rf"\b{labels}(\s*[:=]\s*)[^\s,;]+", r"\1\2[m]", text)


def short_keys_kept(text: str) -> str:
    """sk- keys of 20 characters or more only: a short project key slips through."""
    text = re.sub(r"\bsk-[\w-]{20,}|\bAKIA[0-9A-Z]{16}\b|(?<=Bearer )\S{8,}", "[m]", text)
    return re.sub(rf"(?i)\b({_LABELS})(\s*[:=]\s*)[^\s,;]+", r"\1\2[m]", text)


def wraps_scrub(text: str) -> str:
    """Hands the course's scrub back instead of writing a mask."""
    return scrub(text)


# Found by a red team before the checker generated texts with several secrets, every shape the
# lesson names, bearer schemes in any case and whitespace around ordinary text.

_KEY = r"(?<![A-Za-z0-9])sk-[A-Za-z0-9_-]+"
_VALUE = r"(?i)\b(password|token|secret|api[ _-]?key)(\s*[:=]\s*)\S+"
_SHAPES = {
    "sk": _KEY,
    "bearer": r"(?i)(?<=bearer )\S+",
    "aws": r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    "github": r"\bgh[pousr]_[A-Za-z0-9]{20,}",
    "github_fine_grained": r"\bgithub_pat_\w{20,}",
}


def _masked_but(text: str, count: int = 0, **shapes: str) -> str:
    """A mask of every shape the lesson names, with `shapes` put in place of some of them."""
    for shape in {**_SHAPES, **shapes}.values():
        text = re.sub(shape, "[m]", text, count=count)
    return re.sub(shapes.get("value", _VALUE), r"\1\2[m]", text, count=count)


def first_match_only(text: str) -> str:
    """Each shape masked at its first match only (`count=1`)."""
    return _masked_but(text, count=1)


def bearer_capitalised_only(text: str) -> str:
    """'Bearer' as HTTP examples write it; 'bearer' and 'BEARER' missed."""
    return _masked_but(text, bearer=r"(?<=Bearer )\S+")


def akia_only(text: str) -> str:
    """AWS key ids that start AKIA; the temporary ASIA ones missed."""
    return _masked_but(text, aws=r"\bAKIA[0-9A-Z]{16}\b")


def no_github_tokens(text: str) -> str:
    """No GitHub tokens, which the lesson names."""
    return _masked_but(text, github=r"(?!)")


def strips_the_text(text: str) -> str:
    """Masks well, then strips the text: a space at either end of ordinary text is lost."""
    return _masked_but(text).strip()


def sk_word_characters(text: str) -> str:
    """sk-\\w+ stops at the dash in sk-proj-..., leaving the rest of the key."""
    return _masked_but(text, sk=r"\bsk-\w+")


def sk_letters_and_digits(text: str) -> str:
    """sk- keys of letters and digits only: a dash or underscore inside ends the match."""
    return _masked_but(text, sk=r"\bsk-(?:proj-)?[A-Za-z0-9]+")


def lower_cased(text: str) -> str:
    """Lower-cases the text so every label matches, and returns that."""
    return _masked_but(text.lower())


def word_by_word_joined(text: str) -> str:
    """Splits on whitespace and joins with single spaces: new lines and tabs are lost."""
    return " ".join(_masked_but(word) for word in text.split())


def label_value_word_characters(text: str) -> str:
    """A label's value matched by \\w+: it stops at a dash, 'till-4f9a…' keeps '-4f9a…'."""
    return _masked_but(text, value=r"(?i)\b(password|token|secret|api[_-]?key)(\s*[:=]\s*)\w+")


def sk_inside_words(text: str) -> str:
    """'sk-' anywhere, even inside 'ask-me-anything'."""
    return _masked_but(text, sk=r"sk-\S*")


def colon_labels_only(text: str) -> str:
    """Labels followed by ':' only: 'api_key=…' missed."""
    return _masked_but(text, value=r"(?i)\b(password|token|secret|api[_-]?key)(\s*:\s*)\S+")


def label_touching_only(text: str) -> str:
    """Label and value must touch: 'password: x' with a space is missed."""
    return _masked_but(text, value=r"(?i)\b(password|token|secret|api[_-]?key)([:=])\S+")


def password_and_token_only(text: str) -> str:
    """Two labels only: 'api_key=' and 'Secret:' missed."""
    return _masked_but(text, value=r"(?i)\b(password|token)(\s*[:=]\s*)\S+")


def long_bearer_only(text: str) -> str:
    """Bearer tokens of 20 characters or more only."""
    return _masked_but(text, bearer=r"(?i)(?<=bearer )\S{20,}")


# held-out reader K, 7 Dec 2026: the lesson's examples only, password and api key the only labels
def the_lessons_examples_only(text: str) -> str:
    """sk- keys, bearer, AKIA, GitHub tokens, and a value after 'password' or 'api key': 'token='
    and 'Secret:' kept (the notebook now names those labels too)."""
    text = re.sub(r"\bsk-[\w-]{8,}", "[redacted]", text)
    text = re.sub(r"(?i)\b(bearer)\s+\S+", r"\1 [redacted]", text)
    text = re.sub(r"\bAKIA[0-9A-Z]{16}\b", "[redacted]", text)
    text = re.sub(r"\b(?:ghp_|github_pat_)\w{20,}", "[redacted]", text)
    text = re.sub(r"(?i)\b(password)(\s*[:=]\s*)\S+", r"\1\2[redacted]", text)
    return re.sub(r"(?i)\b(api[-_]key)(\s*[:=]\s*)[^\s&]+", r"\1\2[redacted]", text)


# held-out reader S, 7 Dec 2026: an api key labelled one way, a GitHub token of the old kind only
_READER_S_LABEL = r"access[\s_-]?token|auth[\s_-]?token|token|secret(?:[\s_-]?key)?|password|pwd"


def _reader_s(text: str, api_key: str, github: str) -> str:
    """Reader S's mask, with its api key label and GitHub token shape passed in: a labelled value
    (a quoted one whole, 'is' too), a URL query's value, bearer tokens, sk- keys and AWS ids."""
    for pattern in (
        rf"(?i)\b((?:{api_key}|{_READER_S_LABEL})(?:\s*[:=]\s*|\s+is\s+))(?:\"[^\"]*\"|'[^']*'|\S+)",
        r"(?i)([?&](?:api[-_]?key|key|token|access_token)=)[^&\s]+",
        r"(?i)(\bbearer\s+)[A-Za-z0-9._~+/=-]{8,}",
        r"()\bsk-[A-Za-z0-9_-]{8,}",
        r"()\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
        rf"()\b(?:{github})",
    ):
        text = re.sub(pattern, lambda found: found.group(1) + "[redacted]", text)
    return text


def api_key_underscore_only(text: str) -> str:
    """The api key label as api_key only: 'my API key: Zq81…' and 'Api-Key=…' kept."""
    return _reader_s(text, "api_key", r"gh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}")


def no_github_pat(text: str) -> str:
    """GitHub tokens as gh?_ only: a fine-grained github_pat_ token kept."""
    return _reader_s(text, r"api[\s_-]?key", r"gh[pousr]_[A-Za-z0-9]{20,}")


def api_key_dash_or_underscore(text: str) -> str:
    """The api key label joined by '-' or '_' only: 'apikey=…' and 'api key: …' kept."""
    return _masked_but(text, value=r"(?i)\b(password|token|secret|api[-_]key)(\s*[:=]\s*)\S+")


def github_pat_letters_and_digits(text: str) -> str:
    """A fine-grained token read as letters and digits: the match ends at its inner '_'."""
    return _masked_but(text, github_fine_grained=r"\bgithub_pat_[A-Za-z0-9]{20,}")


# --- mask: right --------------------------------------------------------------------------------


def right_patterns(text: str) -> str:
    """A list of shapes, each replaced in turn; a label's value with or without a space."""
    for pattern in (
        r"\bsk-[\w-]{8,}",
        r"(?i)(?<=bearer )[\w.~+/=-]{8,}",
        r"\bA[KS]IA[0-9A-Z]{16}\b",
        r"\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_\w{20,}",
    ):
        text = re.sub(pattern, "[secret]", text)
    return re.sub(
        rf"(?i)(\b{_LABELS}\s*[:=]\s*)[^\s,;\"']{{4,}}", lambda m: m.group(1) + "[secret]", text
    )


_WORD_SHAPE = r"sk-[\w-]{8,}|A[KS]IA[0-9A-Z]{16}|gh[pousr]_\w{20,}|github_pat_\w{20,}"


def right_word_by_word(text: str) -> str:
    """Word by word: a word after a label ending in ':' or '=', or of a known shape, is hidden
    ("api key:" is a label in two words)."""
    out: list[str] = []
    hide_next, last = False, ""
    for word in re.split(r"(\s+)", text):
        bare = word.strip(",.;")
        if not bare.strip():
            out.append(word)
            continue
        label = re.search(rf"(?i)({_LABELS})([:=])(.*)", bare)  # in a URL's query too
        if last.lower() == "api":
            label = label or re.match(r"(?i)(key)([:=])(.*)", bare)
        last = bare
        if hide_next or re.fullmatch(_WORD_SHAPE, bare):
            out.append(word.replace(bare, "****"))
            hide_next = False
        elif label and label.group(3):
            out.append(word.replace(label.group(3), "****"))
        else:
            out.append(word)
            hide_next = bool(label) or bare.lower() == "bearer"
    return "".join(out)


def right_label_and_value(text: str) -> str:
    """Each shape replaced whole, a labelled secret with its label (`password: ...` is the shape
    the lesson names) and a bearer token with its scheme: a held-out reader's mask."""
    for pattern in (
        r"\bsk-[\w-]{8,}",
        r"(?i)\bbearer\s+[\w.~+/=-]{8,}",
        r"\bA[KS]IA[0-9A-Z]{16}\b",
        r"\bgh[pousr]_[A-Za-z0-9]{20,}|\bgithub_pat_\w{20,}",
        rf"(?i)(?<![A-Za-z]){_LABELS}\s*[:=]\s*[^\s,;\"']+",
    ):
        text = re.sub(pattern, "[redacted]", text)
    return text


# --- held-out reader, 7 Dec 2026: written from the lesson alone, without the checkers ------------


def replay_imported_inside(trace: Any) -> Any:
    """The course's replay_client, imported inside the function body."""
    from cafe.trace.replay import replay_client as course_replay

    return course_replay(trace)


def mask_by_default(text: str, _clean: Any = scrub) -> str:
    """The course's scrub, handed in as a default argument: no name in the body says so."""
    return str(_clean(text))


# --- the banks ----------------------------------------------------------------------------------

_PIECES = ReplayPieces(request_difference, recorded_reply, ScriptedClient)
# The witness of a wrong replay only a generated recording finds (the compare shows it, shrunk).
_GEN = "a generated recording, replayed unchanged or changed at one call"

BANKS = (
    Bank(
        "s08",
        check_replay_client,
        reference_replay,
        wrong=(
            # held-out reader, 7 Dec 2026
            Entry(
                "replay_imported_inside",
                replay_imported_inside,
                "write your own",
                "replay_client imported inside the body",
            ),
            Entry(
                "format_blind",
                format_blind,
                "the output format asked for is part of the call",
                "a replay asking for json_object where the recording asked for a schema",
            ),
            Entry("calls_the_course", calls_the_course, "write your own", "replay_client"),
            Entry("replay_client", replay_client, "the course's own function", "itself"),
            Entry(
                "message_count_only",
                message_count_only,
                "compare what the messages say, not how many",
                "the croissant 86'd: same count, new system prompt",
            ),
            Entry(
                "system_prompt_blind",
                system_prompt_blind,
                "the system prompt (the menu) is part of the call",
                "the croissant 86'd",
            ),
            Entry(
                "past_the_end",
                past_the_end,
                "a recording that ran out has no reply for the next call",
                "a one-call recording replayed with 3 attempts",
            ),
            Entry(
                "model_blind",
                model_blind,
                "the model asked for is part of the call",
                "another model",
            ),
            Entry("blind_list", blind_list, "compare before answering", "naive retries"),
            Entry("first_call_only", first_call_only, "every call is compared", "naive retries"),
            Entry("fresh_model", fresh_model, "the recording answers, not a model", "table 3"),
            Entry("the_replies", the_replies, "return a client", "any recording"),
            Entry("tools_ignored", tools_ignored, "the tools offered are part of the call", _GEN),
            Entry("content_only", content_only, "answer with the whole recorded reply", _GEN),
            Entry("tokens_dropped", tokens_dropped, "the token counts are the recording's", _GEN),
            Entry("finish_always_stop", finish_always_stop, "a reply cut at its length", _GEN),
            Entry("tool_calls_dropped", tool_calls_dropped, "the tool calls are the reply", _GEN),
            Entry("cycles_when_out", cycles_when_out, "a recording has an end", _GEN),
            Entry("skips_ahead", skips_ahead, "stop at the first call that differs", _GEN),
            Entry("any_matching_call", any_matching_call, "replay in order", "naive retries"),
            Entry(
                "stops_one_call_late", stops_one_call_late, "refuse, don't answer", "naive retries"
            ),
            Entry("shared_counter", shared_counter, "each client replays from call 1", "table 5"),
            Entry("empty_reply_when_out", empty_reply_when_out, "refuse past the end", "one call"),
            Entry("last_message_only", last_message_only, "every message", "croissant 86'd"),
        ),
        right=(
            Entry("right_hinted", right_hinted, "the notebook's hints, call by call"),
            Entry("right_iterator", right_iterator, "an iterator over the spans"),
        ),
        reference_module="cafe.exercises.reference_s08",
        targets=("replay",),
        adapt=lambda ns: lambda trace: ns["replay"](trace.model_calls, _PIECES),
    ),
    Bank(
        "s08",
        check_mask,
        masked,
        wrong=(
            # held-out reader, 7 Dec 2026
            Entry(
                "mask_by_default",
                mask_by_default,
                "write your own",
                "scrub as a default argument",
            ),
            Entry(
                "title_case_labels_missed",
                title_case_labels_missed,
                "a label in any case is a label",
                "'Password: x9…' kept",
            ),
            Entry(
                "short_keys_kept",
                short_keys_kept,
                "an sk- key of any length is a key",
                "'sk-abcdefgh1' kept",
            ),
            Entry("wraps_scrub", wraps_scrub, "write your own", "scrub"),
            Entry("scrub", scrub, "the course's own function", "itself"),
            Entry("prefix_only", prefix_only, "mask the whole secret", "sk-proj-[redacted]7Hq2…"),
            Entry(
                "labels_lower_case_only",
                labels_lower_case_only,
                "a label in capitals is still a label",
                "'PASSWORD=Latte-Art-2026' unchanged",
            ),
            Entry("long_tokens", long_tokens, "long with digits is not a secret", "a model name"),
            Entry("whole_text", whole_text, "mask the secret, keep the sentence", "'order' gone"),
            Entry("sk_keys_only", sk_keys_only, "credentials come in many shapes", "AKIA… kept"),
            Entry(
                "word_after_label",
                word_after_label,
                "a label word in a sentence is not a credential",
                "'The secret ingredient is cinnamon.'",
            ),
            Entry("label_dropped", label_dropped, "the value is the secret", "'password: …'"),
            Entry("hex_is_secret", hex_is_secret, "ids are not secrets", "a trace id masked"),
            Entry("first_match_only", first_match_only, "every secret, not the first", "two keys"),
            Entry("bearer_capitalised_only", bearer_capitalised_only, "any case", "'bearer x'"),
            Entry("akia_only", akia_only, "ASIA ids are AWS key ids too", "'ASIA' + 16"),
            Entry("no_github_tokens", no_github_tokens, "the lesson names them", "'ghp_' + 20"),
            Entry(
                "strips_the_text", strips_the_text, "ordinary text exactly", "a space at the end"
            ),
            Entry("sk_word_characters", sk_word_characters, "the whole key", "sk-proj-…"),
            Entry("sk_letters_and_digits", sk_letters_and_digits, "keys hold - and _", "sk-A0-0…"),
            Entry("lower_cased", lower_cased, "ordinary text exactly", "'Authorization'"),
            Entry("word_by_word_joined", word_by_word_joined, "whitespace too", "a new line"),
            Entry("label_value_word_characters", label_value_word_characters, "all of it", "till-"),
            Entry("sk_inside_words", sk_inside_words, "a key starts a word", "ask-me-anything"),
            Entry("colon_labels_only", colon_labels_only, "'=' too", "api_key=…"),
            Entry("label_touching_only", label_touching_only, "spacing too", "'password: …'"),
            Entry("password_and_token_only", password_and_token_only, "every label", "api_key="),
            Entry("long_bearer_only", long_bearer_only, "any length", "a short bearer token"),
            # held-out reader K, 7 Dec 2026
            Entry(
                "the_lessons_examples_only",
                the_lessons_examples_only,
                "a value after any label: token, secret (the notebook names them)",
                "'my token=cafe-till-778899'",
            ),
            # held-out reader S, 7 Dec 2026, and one more of each kind
            Entry(
                "api_key_underscore_only",
                api_key_underscore_only,
                "an api key label however it is written, in any case",
                "'order api key=0000000A'",
            ),
            Entry(
                "api_key_dash_or_underscore",
                api_key_dash_or_underscore,
                "an api key label however it is written: apikey, api key",
                "'https://till.example/pay?apikey=0000000A'",
            ),
            Entry(
                "no_github_pat",
                no_github_pat,
                "a fine-grained token is a GitHub token",
                "'github_pat_…'",
            ),
            Entry(
                "github_pat_letters_and_digits",
                github_pat_letters_and_digits,
                "the whole token, past its inner '_'",
                "'github_pat_' + 22 + '_' + the rest",
            ),
        ),
        right=(
            Entry("right_patterns", right_patterns, "shapes replaced in turn, labels in any case"),
            Entry("right_word_by_word", right_word_by_word, "word by word, a flag for the next"),
            Entry("right_label_and_value", right_label_and_value, "label and secret masked whole"),
        ),
        reference_module="cafe.exercises.reference_s08",
        targets=("masked",),
    ),
)

# Surviving mutants that are not wrong solutions: checker name -> {mutant key: reason}.
_MASK_WORD = "open: the word a mask writes in a secret's place is the learner's own choice"
EQUIVALENT: dict[str, dict[str, str]] = {
    "check_mask": {
        "masked:5: constant: `'[masked]'` -> `'XX[masked]XX'`": _MASK_WORD,
        "masked:8: constant: `'[masked]'` -> `'XX[masked]XX'`": _MASK_WORD,
    },
}
