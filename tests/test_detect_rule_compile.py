"""A detection rule compiles its pattern the first time a scan reads it (`cafe.detect.rules.Rule`).

The four rule modules hold some two hundred VERBOSE patterns. Compiling them all at import cost
every process that imports `cafe.detect` a tenth of a second or more, scanning or not (the
capstone grader, a notebook kernel that only builds tickets), and a scan compiles only the rules
whose keywords its text holds. What must hold: the compiled pattern is exactly the rule's source
compiled with its flags, a rule compiles once however often it is read, and importing the rules
compiles none of them.
"""

from __future__ import annotations

import re
import subprocess
import sys

from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.detect import GRANT_RULES, INTENT_RULES, SHAPE_RULES, STRUCTURE_RULES
from cafe.detect.rules import Rule, rule

ALL_RULES = (*GRANT_RULES, *INTENT_RULES, *SHAPE_RULES, *STRUCTURE_RULES)


def test_every_rule_compiles_to_its_own_source_and_flags() -> None:
    for each in ALL_RULES:
        assert each.pattern.pattern == each.source, each.name
        assert each.pattern.flags & re.VERBOSE, each.name
        assert each.pattern.flags & each.flags == each.flags, each.name


def test_a_rule_compiles_once_however_often_it_is_read() -> None:
    built = rule("probe", r"free \s+ cake", ("free",))
    assert "pattern" not in vars(built)  # nothing compiled until a scan asks
    first = built.pattern
    assert "pattern" in vars(built) and built.pattern is first


@settings(max_examples=60, deadline=None)
@given(
    chosen=st.sampled_from(ALL_RULES),
    text=st.text(
        alphabet="ignore previous instructions free cake owner said 0123.!?\n", max_size=80
    ),
)
def test_a_lazily_built_rule_finds_what_a_compiled_pattern_finds(chosen: Rule, text: str) -> None:
    """The reference: the source compiled by `re` directly, apart from the rule's own cache."""
    fresh = Rule(chosen.name, chosen.source, chosen.keywords, raw=chosen.raw, flags=chosen.flags)
    reference = re.compile(chosen.source, re.VERBOSE | chosen.flags)
    spans = [m.span() for m in reference.finditer(text)]
    assert [m.span() for m in fresh.pattern.finditer(text)] == spans


def test_importing_the_rules_compiles_none_of_them() -> None:
    """In a fresh interpreter (this one's rules may have been read by another test)."""
    probe = (
        "from cafe.detect import GRANT_RULES, INTENT_RULES, SHAPE_RULES, STRUCTURE_RULES\n"
        "rules = (*GRANT_RULES, *INTENT_RULES, *SHAPE_RULES, *STRUCTURE_RULES)\n"
        "print(len(rules), sum('pattern' in vars(r) for r in rules))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=60
    )
    count, compiled = map(int, done.stdout.split())
    assert count == len(ALL_RULES) and compiled == 0, done.stdout
