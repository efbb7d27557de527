"""Session 08's banks: `check_replay_client` and `check_mask` (cafe/exercises/s08.py).

The exercise ideas: a replay answers model call k with the reply recorded at call k only when
call k is the call the recording made (every message, the model asked), and stops at the first
call that differs or that the recording has no reply for; and a mask takes the whole of anything
that looks like a credential out of a trace while ordinary text, model names and ids stay as they
were.
"""

from __future__ import annotations

import re
from typing import Any

from banks.harness import Bank, Entry
from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import ScriptedClient
from cafe.exercises.reference_s08 import masked
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

_LABELS = r"(?:api[_-]?key|secret|token|password)"


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


# --- mask: right --------------------------------------------------------------------------------


def right_patterns(text: str) -> str:
    """A list of shapes, each replaced in turn; a label's value with or without a space."""
    for pattern in (
        r"\bsk-[\w-]{8,}",
        r"(?<=Bearer )[\w.~+/=-]{8,}",
        r"\bAKIA[0-9A-Z]{16}\b",
    ):
        text = re.sub(pattern, "[secret]", text)
    return re.sub(
        rf"(?i)(\b{_LABELS}\s*[:=]\s*)[^\s,;\"']{{4,}}", lambda m: m.group(1) + "[secret]", text
    )


def right_word_by_word(text: str) -> str:
    """Word by word: a word after a label ending in ':' or '=', or of a known shape, is hidden."""
    out: list[str] = []
    hide_next = False
    for word in re.split(r"(\s+)", text):
        bare = word.strip(",.;")
        if not bare.strip():
            out.append(word)
            continue
        label = re.fullmatch(rf"(?i)({_LABELS})([:=])(.*)", bare)
        if hide_next or re.fullmatch(r"sk-[\w-]{8,}|AKIA[0-9A-Z]{16}", bare):
            out.append(word.replace(bare, "****"))
            hide_next = False
        elif label and label.group(3):
            out.append(word.replace(bare, label.group(1) + label.group(2) + "****"))
        else:
            out.append(word)
            hide_next = bool(label) or bare == "Bearer"
    return "".join(out)


# --- the banks ----------------------------------------------------------------------------------

BANKS = (
    Bank(
        "s08",
        check_replay_client,
        reference_replay,
        wrong=(
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
        ),
        right=(
            Entry("right_hinted", right_hinted, "the notebook's hints, call by call"),
            Entry("right_iterator", right_iterator, "an iterator over the spans"),
        ),
        reference_module="cafe.exercises.s08",
        targets=("reference_replay",),
    ),
    Bank(
        "s08",
        check_mask,
        masked,
        wrong=(
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
        ),
        right=(
            Entry("right_patterns", right_patterns, "shapes replaced in turn, labels in any case"),
            Entry("right_word_by_word", right_word_by_word, "word by word, a flag for the next"),
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
