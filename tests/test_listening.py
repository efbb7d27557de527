"""`cafe.report.listening`: a live shift stops where the rule says, and only there.

The rule, in one sentence: an endpoint that has answered nothing is given up on at its first
silence, and one that has answered is given up on at its third silence in a row, where orders it
never saw count for nothing. The oracle below is written from that sentence alone, over generated
shifts (what happened to each order), and never calls `Listener`.
"""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.report.listening import NOT_ANSWERING, Listener

SILENT = sorted(NOT_ANSWERING)
EVENTS = st.lists(
    st.one_of(
        st.just("heard"),
        st.just("never_sent"),
        st.sampled_from(SILENT),  # missed: no answer at all
        st.sampled_from(["bad_body", "http_error", "broken_reply"]),  # missed, but it answered
    ),
    max_size=30,
)


def stop_at(events: list[str]) -> int | None:
    """The index of the order that ends the shift, from the rule alone; None if none does."""
    answered, silences = False, 0
    for index, event in enumerate(events):
        if event == "never_sent":
            continue
        if event not in SILENT:
            answered, silences = True, 0
            continue
        silences += 1
        if not answered or silences == 3:
            return index
    return None


def replay(events: list[str]) -> tuple[int | None, str | None]:
    listener = Listener(len(events))
    for index, event in enumerate(events):
        if event == "heard":
            listener.heard()
        elif event == "never_sent":
            listener.never_sent()
        elif (said := listener.missed(event)) is not None:
            return index, said
    return None, None


@settings(max_examples=200, derandomize=True, deadline=None)
@given(events=EVENTS)
def test_a_shift_stops_at_the_order_the_rule_names(events):
    index, said = replay(events)
    assert index == stop_at(events)
    if index is not None:
        assert said is not None and f"after {index + 1} of {len(events)} orders" in said


def test_the_sentence_says_whether_the_endpoint_ever_answered():
    first = Listener(5)
    assert first.missed("timeout") == (
        "the shift stopped after 1 of 5 orders: the endpoint has not answered any order yet, "
        "and asking again for each of the rest would say no more."
    )
    later = Listener(9)
    later.heard()
    later.never_sent()
    assert [later.missed("connection") for _ in range(2)] == [None, None]
    assert "has not answered 3 orders in a row" in (later.missed("slow") or "")
