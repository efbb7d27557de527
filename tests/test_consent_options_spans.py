"""cafe.consent.notes.hidden_span: the count of hidden characters is always whole in a span.

A failure quotes notes or an allergy that hold characters nobody can see as the visible text and
"[+N hidden characters]", after a label ("(notes) ", "(allergy) "), and every span is clipped to
`SPAN_CHARS`. The visible part used to be cut at 40 characters whatever the label and the count,
so past about 27 visible characters the clip cut the count itself ("[+1 hidden characte…"), and
the retry was not told how many characters to take out. Tested on generated text of any length,
with any number of hidden characters anywhere in it, through every place that quotes one: a
draft's notes, a draft's allergy, and approved notes front of house asks about.
"""

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import OrderSpec, changes_to_confirm, confirmation_question, consent_findings
from cafe.consent.notes import hidden_span
from cafe.schema.ticket import SPAN_CHARS, Ticket
from cafe.world.menu import load_menu
from cafe.world.spelling import hidden_characters

MENU = load_menu()
# Characters a reader cannot see (zero-width, bidi, soft hyphen, tag characters).
_HIDDEN = st.one_of(
    st.sampled_from("\u200b\u200c\u200d\u2060\ufeff\u00ad\u202e"),
    st.characters(min_codepoint=0xE0020, max_codepoint=0xE007E),
)
# What a reader does see: letters of any script, digits, punctuation and plain spaces.
_VISIBLE = st.characters(categories=["L", "Nd", "P"], include_characters=" ")


@st.composite
def texts_with_hidden(draw: st.DrawFn) -> str:
    """Visible text of any length (none to a few hundred characters) with hidden characters
    (one to a few hundred) put in at any places."""
    length = draw(st.integers(0, 300))  # drawn first, so long texts are as common as short
    visible = draw(st.text(_VISIBLE, min_size=length, max_size=length))
    count = draw(st.sampled_from([1, 2, 9, 10, 99, 100, 300]))
    hidden = draw(st.lists(_HIDDEN, min_size=count, max_size=count))
    chars = list(visible)
    for char in hidden:
        chars.insert(draw(st.integers(0, len(chars))), char)
    return "".join(chars)


def _whole_count(span: str, text: str) -> bool:
    """Whether `span` ends in the whole count of `text`'s hidden characters, and fits."""
    count = f"[+{len(hidden_characters(text))} hidden characters]"
    return span.endswith(count) and len(span) <= SPAN_CHARS


@given(text=texts_with_hidden(), label=st.sampled_from(["", "(notes)", "(allergy)"]))
@settings(max_examples=100, deadline=None, derandomize=True)
def test_hidden_span_always_fits_with_the_count_whole(text, label):
    span = hidden_span(text, hidden_characters(text), label)
    assert _whole_count(span, text), span
    assert span.startswith(label)


@given(text=texts_with_hidden())
@settings(max_examples=60, deadline=None, derandomize=True)
def test_draft_notes_with_hidden_characters_quote_the_whole_count(text):
    spec = OrderSpec(table=5, items=["latte"], notes="")
    ticket = Ticket(table=5, items=("latte",), allergies=(), notes=text)
    spans = [f.span for f in consent_findings(ticket, spec, MENU) if "invisible" in f.fix]
    assert len(spans) == 1, spans
    assert spans[0].startswith("(notes) ") and _whole_count(spans[0], text), spans[0]


@given(text=texts_with_hidden())
@settings(max_examples=60, deadline=None, derandomize=True)
def test_draft_allergy_with_hidden_characters_quotes_the_whole_count(text):
    spec = OrderSpec(table=5, items=["latte"], allergies=["milk"], notes="")
    ticket = Ticket(table=5, items=("latte",), allergies=("milk", text), notes="")
    spans = [f.span for f in consent_findings(ticket, spec, MENU) if "invisible" in f.fix]
    assert len(spans) == 1, spans
    assert spans[0].startswith("(allergy) ") and _whole_count(spans[0], text), spans[0]


@given(text=texts_with_hidden())
@settings(max_examples=40, deadline=None, derandomize=True)
def test_approved_notes_with_hidden_characters_are_asked_about_with_the_whole_count(text):
    """Front of house's failure quotes the count whole, and so does its question."""
    spec = OrderSpec(table=5, items=["latte"], notes=text)
    spans = [f.span for f in changes_to_confirm(spec, MENU) if "hidden characters]" in f.span]
    assert len(spans) == 1, spans
    assert spans[0].startswith("(notes) ") and _whole_count(spans[0], text), spans[0]
    count = len(hidden_characters(text))
    quoted = re.compile(rf"""\[\+{count} hidden characters\]['"]""")
    assert quoted.search(confirmation_question(spec, MENU))


def test_hidden_span_keeps_short_notes_whole():
    """The worked example: short notes are quoted in full, the count after them."""
    text = "to go\U000e0070\U000e0061\U000e0069\U000e0064"
    assert hidden_span(text, hidden_characters(text), "(notes)") == (
        "(notes) to go [+4 hidden characters]"
    )
