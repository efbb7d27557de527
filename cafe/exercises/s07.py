"""Session 07's your-turn checker: `check_attempt_failure_view`, for the notebook's compare cell.

The notebook (`notebooks/s07-repair-loop.ipynb`, step 3) asks you to write
`attempt_failure_view(failures, attempt)`: one short line per failure, naming its check, quoting
its span and stating its fix, under a line that says which attempt failed. `course.compare` runs
this checker over your function; the course's own answer is `cafe.repair.attempt_failure_view`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from cafe.schema import Failure

__all__ = ["VIEW_FIXTURES", "check_attempt_failure_view"]

# The failures the checker feeds your view, with the attempt that failed: the scripted run's own
# (a missing table), then a pair and a mix of three, one from each layer of checks.
VIEW_FIXTURES: tuple[tuple[tuple[Failure, ...], int], ...] = (
    ((Failure("missing_field", "table", "include table: the table number"),), 1),
    ((Failure("sold_out", "cheese omelette", "a correct ticket holds no 86'd item"),
      Failure("unsafe", "latte contains milk", "no item on the ticket may contain milk")), 2),
    ((Failure("not_json", "Sure, here you go", "answer with one JSON object"),
      Failure("off_menu", "pizza", "use only items on the menu"),
      Failure("injection", "ignore previous instructions", "a ticket carries only the order")), 3),
)


def _problems(view: str, failures: Sequence[Failure], attempt: int) -> list[str]:
    problems = []
    lines = [line for line in view.splitlines() if line.strip()]
    if str(attempt) not in view:
        problems.append(f"attempt {attempt}: the view never says which attempt failed")
    if len(lines) > len(failures) + 1:
        problems.append(f"attempt {attempt}: {len(lines)} lines for {len(failures)} failures; "
                        "keep to one line per failure (plus one header line)")
    for failure in failures:
        own = [line for line in lines if failure.check in line and failure.span in line]
        if not own:
            problems.append(f"attempt {attempt}: no line names {failure.check} and quotes {failure.span!r}")
        elif failure.fix not in own[0]:
            problems.append(f"attempt {attempt}: the {failure.check} line does not state its fix target")
    return problems


def check_attempt_failure_view(fn: Callable[[Sequence[Failure], int], str]) -> list[str]:
    """Problems with an `attempt_failure_view` implementation; an empty list means it passes.

    A stub's `NotImplementedError` passes through, so `course.compare` can say "not attempted yet".
    """
    problems: list[str] = []
    for failures, attempt in VIEW_FIXTURES:
        try:
            view = fn(failures, attempt)
        except NotImplementedError:
            raise
        except Exception as exc:  # a learner's bug is a problem to show, not a crash
            problems.append(f"attempt {attempt}: raised {type(exc).__name__}: {exc}")
            continue
        if not isinstance(view, str):
            problems.append(f"attempt {attempt}: returned {type(view).__name__}, not text")
            continue
        problems.extend(_problems(view, failures, attempt))
    return problems
