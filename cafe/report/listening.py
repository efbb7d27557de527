"""When a live shift stops asking an endpoint that has gone quiet: one rule for every shift.

Session 09 (toys 09 and 10 run their shifts through it). A shift sends its orders one after
another. When the endpoint stops answering (no connection, or nothing back within the deadline),
asking again for each of the orders left only waits out the deadline once more per order, twenty
minutes later, and tells the learner nothing new. So a `Listener` keeps count of what the endpoint
did with each order:

- an order it answered, even with something unusable, is `heard`;
- an order it never saw (sent back by front of house, or refused before any draft) is `never_sent`
  and counts for neither side;
- an order it left unanswered is `missed`: before it has answered any order, the first one ends
  the shift; once it has answered, `GIVE_UP_AFTER` in a row end it.

`missed` hands back the sentence that ends the shift, or None to go on; the toy raises it as an
`EndpointError` together with the endpoint's own message and fix.

Lesson: sessions/s09-shift-report/lesson.md. Toys: sessions/s09-shift-report/toy.py and
sessions/s10-failure-taxonomy/toy.py.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["GIVE_UP_AFTER", "NOT_ANSWERING", "Listener"]

# The endpoint problems that mean no answer came back at all: no connection, or nothing within
# the deadline (`slow` is a server that took the connection and wrote nothing back in time).
NOT_ANSWERING = frozenset({"timeout", "slow", "connection"})
# Course choice: unanswered orders in a row that end a shift once the endpoint has answered at
# least one. One is a dropped request; three is an endpoint that went away.
GIVE_UP_AFTER = 3


@dataclass
class Listener:
    """What the endpoint did with the shift's orders so far, out of `orders` in all."""

    orders: int
    seen: int = 0  # orders that ended, whoever ended them
    answered: bool = False  # the endpoint has answered at least one order
    unanswered: int = 0  # orders in a row it left unanswered (orders it never saw skipped)

    def heard(self) -> None:
        """The endpoint answered this order (with a draft, or with something unusable)."""
        self.seen += 1
        self.answered, self.unanswered = True, 0

    def never_sent(self) -> None:
        """The order ended before it reached the endpoint: it says nothing about the endpoint."""
        self.seen += 1

    def missed(self, kind: str) -> str | None:
        """The endpoint failed on this order with the problem `kind` (`EndpointError.kind`):
        the sentence that ends the shift, or None to go on with the next order."""
        if kind not in NOT_ANSWERING:  # it answered, with something the loop could not use
            self.heard()
            return None
        self.seen += 1
        self.unanswered += 1
        if self.answered and self.unanswered < GIVE_UP_AFTER:
            return None
        said = "any order yet" if not self.answered else f"{self.unanswered} orders in a row"
        return (
            f"the shift stopped after {self.seen} of {self.orders} orders: the endpoint has not "
            f"answered {said}, and asking again for each of the rest would say no more."
        )
