"""Seconds per scanner on 1 MB of adversarial text: the checks that read untrusted text stay linear.

    python benchmarks/detect_speed.py              # 1 MB per input (the target: under 0.2 s each)
    python benchmarks/detect_speed.py --mb 0.25    # a quicker look

Every scanner that reads a customer's words or a model's draft (`cafe.detect`'s injection and
scope patterns and its layers, each intent and shape rule, `cafe.detect.normalize`'s folding and decoding, `cafe.schema`'s JSON extraction and `clip`, `cafe.world.menu`'s name and allergy
folding) gets the inputs that make a careless pattern quadratic: long runs of newlines, spaces
or one letter, a keyword followed by a long blank run, many braces, quotes or unclosed fences,
invisible or look-alike characters, letters spelled out one at a time, one long base64 run.
A pattern that is quadratic on one of them took 18 s on 20,000 newlines before it was fixed.

For each scanner it prints the slowest input's time at the full size, and the growth: the time
at 4x a small size divided by the time at that size (about 4 for linear work, 16 for quadratic).
The tests run the same `CASES` through `growth()` and fail when it passes `GROWTH_LIMIT`.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from dataclasses import dataclass

from cafe.consent.spec import OrderSpec
from cafe.detect.checks import (
    LAYERS,
    check_ticket,
    scan_layer,
    scan_scope,
    scan_text,
)
from cafe.detect.intent import INTENT_RULES
from cafe.detect.normalize import normalize_text
from cafe.detect.phrases import INJECTION_PATTERNS, SCOPE_PATTERNS
from cafe.detect.shapes import SHAPE_RULES
from cafe.detect.structure import STRUCTURE_RULES
from cafe.detect.views import decoded_views
from cafe.schema.parsing import extract_json, parse_draft
from cafe.schema.ticket import Ticket, clip
from cafe.world.allergens import allergen_key, is_no_allergy
from cafe.world.menu import load_menu, normalize_name

# Linear work grows 4x when the input does; 6x leaves room for a busy machine's noise, and
# quadratic work (16x) is well past it.
GROWTH_LIMIT = 6.0
# The target: 1 MB of adversarial text through any scanner in under 0.2 s.
TARGET_SECONDS = 0.2
# The small size the growth is measured from (and 4x that): small enough that a quadratic scanner
# fails a test in seconds rather than hours, and that both sizes sit in the processor's cache
# (from about 16,000 characters up, a cache boundary alone can double the ratio).
GROWTH_SIZE = 1_000

MENU = load_menu()


def _runs(n: int) -> dict[str, str]:
    """Adversarial texts of about `n` characters, by name."""
    return {
        "newlines": "\n" * n + "x",
        "spaces": " " * n + "x",
        "newline-space": "\n " * (n // 2) + "x",
        "one letter": "a" * n,
        "braces": "{" * n,
        "quotes": '"' * n,
        "escaped quotes": '\\"' * (n // 2),
        "'<' then spaces": "<" + " " * n + "x",
        "'<|' then spaces": "<|" + " " * (n // 2) + "/" + " " * (n // 2),
        "keyword then spaces": "ignore all of the previous" + " " * n + "x",
        "'system' then spaces": "\nsystem" + " " * n,
        "repeated phrase": "you are now give me call me " * (n // 28),
        "unclosed fence": "```" + "a" * n,
        "many fences": "```a" * (n // 4),
        "unclosed strings": '{"a":"' * 32 + "x" * n,
        "nested objects": '{"a":' * (n // 5),
        "brackets": "(" * n + "milk",
        "hashes": "#" * n + "system",
        "spelled-out letters": "a " * (n // 2) + "x",
        "zero-width spaces": "\u200b" * n + "x",
        "look-alike letters": "\u0430" * n,
        "base64 run": "QUFB" * (n // 4),
        "dismissing verbs": "ignore " * (n // 7),
    }


def _notes_ticket(text: str) -> tuple[Ticket, OrderSpec]:
    return (
        Ticket(table=4, items=("latte",), allergies=(), notes=text),
        OrderSpec(table=4, items=("latte",)),
    )


def _check_notes(text: str) -> object:
    ticket, spec = _notes_ticket(text)
    return check_ticket(ticket, spec, MENU)


def _check_item(text: str) -> object:
    ticket = Ticket(table=4, items=(text,), allergies=(), notes="")
    return check_ticket(ticket, OrderSpec(table=4, items=("latte",)), MENU)


@dataclass(frozen=True)
class Case:
    """One scanner: its name, and the function that runs it over a text."""

    scanner: str
    run: Callable[[str], object]


# The scanners the tests hold to linear growth, over every adversarial input.
CASES: tuple[Case, ...] = (
    Case("detect.scan_text", scan_text),
    *(
        Case(f"detect.scan_layer ({layer})", lambda text, layer=layer: scan_layer(text, layer))
        for layer in LAYERS
    ),
    Case("normalize.normalize_text", normalize_text),
    Case("normalize.decoded_views", decoded_views),
    Case("detect.scan_scope", scan_scope),
    Case("detect.check_ticket (notes)", _check_notes),
    Case("detect.check_ticket (one item)", _check_item),
    Case("schema.extract_json", extract_json),
    Case("schema.parse_draft", parse_draft),
    Case("schema.clip", clip),
    Case("menu.normalize_name", normalize_name),
    Case("menu.allergen_key", allergen_key),
    Case("menu.is_no_allergy", is_no_allergy),
)

# Each pattern `scan_text` and `scan_scope` run, on its own: the benchmark prints these too, so a
# slow scan points at its pattern.
PATTERN_CASES: tuple[Case, ...] = (
    tuple(
        Case(f"detect pattern {i} ({r.name})", lambda text, p=r.pattern: list(p.finditer(text)))
        for i, r in enumerate(INJECTION_PATTERNS + SCOPE_PATTERNS)
    )
    + tuple(
        Case(f"intent rule {i} ({rule.name})", lambda text, p=rule.pattern: list(p.finditer(text)))
        for i, rule in enumerate(INTENT_RULES)
    )
    + tuple(
        Case(f"shape rule {i} ({rule.name})", lambda text, p=rule.pattern: list(p.finditer(text)))
        for i, rule in enumerate(SHAPE_RULES)
    )
    + tuple(
        Case(
            f"structure rule {i} ({rule.name})", lambda text, p=rule.pattern: list(p.finditer(text))
        )
        for i, rule in enumerate(STRUCTURE_RULES)
    )
)


def seconds(run: Callable[[str], object], text: str, loops: int = 1, repeats: int = 3) -> float:
    """The best of `repeats` timings of `loops` calls of `run(text)`, in CPU seconds per call.

    CPU time, not wall time: on a shared machine the wall clock also counts the time other
    programs ran, which says nothing about the scanner.
    """
    best = float("inf")
    for _ in range(repeats):
        start = time.process_time()
        for _ in range(loops):
            run(text)
        best = min(best, time.process_time() - start)
    return best / loops


def growth(
    run: Callable[[str], object], adversary: str, size: int = GROWTH_SIZE, repeats: int = 3
) -> float:
    """Time at 4x `size` over time at `size`, for one adversarial input: ~4 linear, ~16 quadratic.

    Calls are looped until the small size takes about 2 ms, so the ratio is not timer noise, and
    the two sizes are timed in turn, so a busy spell on the machine slows both alike.
    """
    small, large = _runs(size)[adversary], _runs(4 * size)[adversary]
    once = max(seconds(run, small, loops=5, repeats=1), 1e-7)
    loops = max(1, min(10_000, int(0.002 / once)))
    pairs = [
        (seconds(run, small, loops, repeats=1), seconds(run, large, loops, repeats=1))
        for _ in range(repeats)
    ]
    return min(large for _, large in pairs) / max(min(small for small, _ in pairs), 1e-9)


def grows_linearly(run: Callable[[str], object], adversary: str, tries: int = 3) -> bool:
    """Whether `growth` stays within `GROWTH_LIMIT` in any of `tries` measurements.

    Quadratic work is over the limit every time; a linear scanner on a loaded machine may be
    over it once by chance, rarely three times running. So each measurement takes the best of two
    timings, not three: a retry is only paid for when a measurement is over the limit.
    """
    return any(growth(run, adversary, repeats=2) <= GROWTH_LIMIT for _ in range(tries))


def adversaries() -> tuple[str, ...]:
    return tuple(_runs(8))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--mb", type=float, default=1.0, help="size of each adversarial input in MB (default 1)"
    )
    args = parser.parse_args(argv)
    size = int(args.mb * 1_000_000)
    texts = _runs(size)
    print(f"{'scanner':<46} {'slowest input':<22} {'seconds':>8} {'growth 4x':>9}")
    over = 0
    for case in (*PATTERN_CASES, *CASES):
        timed = {name: seconds(case.run, text, repeats=1) for name, text in texts.items()}
        worst = max(timed, key=timed.__getitem__)
        ratio = growth(case.run, worst)
        flag = (
            ""
            if timed[worst] < TARGET_SECONDS * args.mb and ratio <= GROWTH_LIMIT
            else "  <-- over"
        )
        over += bool(flag)
        print(f"{case.scanner:<46} {worst:<22} {timed[worst]:>8.3f} {ratio:>9.1f}{flag}")
    print(
        f"target: under {TARGET_SECONDS} s per MB and growth at most {GROWTH_LIMIT}x; {over} over"
    )
    return 1 if over else 0


if __name__ == "__main__":
    raise SystemExit(main())
