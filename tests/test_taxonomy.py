"""cafe.taxonomy: every run that did not pass lands in exactly one class, by a stated precedence,
and a shift's counts add up."""

import itertools

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cafe.consent import PARTIAL_ALLERGEN_SPEC, OrderSpec
from cafe.endpoint.errors import SETUP_PROBLEMS, ConfigError, EndpointError
from cafe.repair.front import front_of_house
from cafe.repair.reask import (
    OMELETTE_SPEC,
    UNSAFE_SPEC,
    Attempt,
    RepairResult,
    make_scripted_generator,
    repair_ticket,
)
from cafe.schema.ticket import Failure, Ticket
from cafe.taxonomy import (
    CLASS_TESTS,
    EXAMPLES_PER_CLASS,
    FAILURE_CLASSES,
    Run,
    Taxonomy,
    class_tests,
    classify,
    code,
    comes_back,
    first_fix,
    holds_throughout,
    run_from_trace,
    run_shift,
    sort_runs,
)

SPEC = OrderSpec(table=4, items=("latte",), request="A latte for table 4.")
# Single failures the patterns below are spelled with.
FAILURES = {
    "A": Failure("missing_field", "table", "include table"),
    "B": Failure("sold_out", "cheese omelette", "no 86'd item"),
    "C": Failure("out_of_scope", "espresso", "remove espresso"),
    "D": Failure("not_json", "Sure!", "answer with JSON"),
}


def exhausted(*attempts: str) -> RepairResult:
    """An exhausted result whose attempts fail the lettered failures: exhausted("AB", "A")."""
    return RepairResult(
        "retries_exhausted",
        None,
        tuple(
            Attempt(n, "{}", tuple(FAILURES[letter] for letter in letters), 0, None)
            for n, letters in enumerate(attempts, start=1)
        ),
    )


def run_of(*attempts: str) -> Run:
    return Run(SPEC, result=exhausted(*attempts))


BLOCKED = Run(
    UNSAFE_SPEC,
    result=RepairResult(
        "policy_violation",
        None,
        (),
        blocked_by=(Failure("unsafe", "every item contains milk", "take a new order"),),
    ),
)
TRANSPORT = Run(SPEC, transport="timeout", detail="did not answer within 30 s")
PASSED = Run(
    SPEC,
    result=RepairResult(
        "passed",
        Ticket(table=4, items=("latte",), allergies=(), notes=""),
        (Attempt(1, "{}", (), 0, None),),
    ),
)


@pytest.mark.parametrize(
    "pattern, expected",
    [
        (("A", "A", "A"), "systematic"),
        (("A", "B", "A"), "alternating"),
        (("A", "B", "C"), "drifting"),
        (("A", "A", "B"), "drifting"),  # stuck, then moved on: nothing came back, nothing held
        (("A", "B", "B"), "drifting"),
        (("A",), "systematic"),  # one attempt: its failure held on every attempt there was
    ],
)
def test_classify_cap_three_patterns_each_get_the_stated_class(pattern, expected):
    assert classify(run_of(*pattern)) == expected


def test_classify_precedence_systematic_beats_alternating_and_drifting():
    # The table is missing every time, and the omelette comes and goes: three tests hold.
    run = run_of("AB", "A", "AB")
    assert class_tests(run) == ("systematic", "alternating", "drifting")
    assert classify(run) == "systematic"


def test_classify_precedence_alternating_beats_drifting():
    run = run_of("A", "BC", "A")
    assert class_tests(run) == ("alternating", "drifting")
    assert classify(run) == "alternating"


def test_classify_blocked_and_transport_runs_have_their_own_classes():
    assert classify(BLOCKED) == "blocked" and class_tests(BLOCKED) == ("blocked",)
    assert classify(TRANSPORT) == "transport" and class_tests(TRANSPORT) == ("transport",)


def test_classify_a_passed_run_has_no_class():
    with pytest.raises(ValueError, match="passed"):
        classify(PASSED)


def test_classify_an_exhausted_run_with_a_clean_attempt_is_refused():
    with pytest.raises(ValueError, match="every attempt must have failed"):
        classify(run_of("", ""))


def test_classify_takes_a_bare_repair_result_too():
    assert classify(exhausted("A", "B", "A")) == "alternating"
    with pytest.raises(TypeError, match="a cafe.repair.RepairResult or a cafe.trace.spans.Trace"):
        classify("alternating")


def test_run_holds_a_result_or_a_transport_failure_never_both():
    with pytest.raises(ValueError, match="exactly one"):
        Run(SPEC, result=exhausted("A"), transport="timeout")
    with pytest.raises(ValueError, match="exactly one"):
        Run(SPEC)


def test_classify_an_order_sent_back_has_no_class_and_sort_runs_counts_it_apart():
    sent = front_of_house(PARTIAL_ALLERGEN_SPEC)
    run = Run(PARTIAL_ALLERGEN_SPEC, sent_back=sent)
    assert class_tests(run) == ()
    with pytest.raises(ValueError, match="sent back to the customer before any draft"):
        classify(run)
    taxonomy = sort_runs([run, PASSED, BLOCKED])
    assert (taxonomy.sent_back, taxonomy.passed, taxonomy.failed) == (1, 1, 1)
    assert taxonomy.counts["blocked"] == 1 and taxonomy.shares()["blocked"] == 1.0


def test_taxonomy_counts_orders_sent_back_in_its_sum():
    counts = dict.fromkeys(FAILURE_CLASSES, 0) | {"drifting": 1}
    piles = (("drifting", "not_json", 1),)
    assert Taxonomy(runs=3, passed=1, counts=counts, piles=piles, sent_back=1).failed == 1
    with pytest.raises(ValueError, match="1 sent back"):
        Taxonomy(runs=2, passed=1, counts=counts, piles=piles, sent_back=1)


def test_run_shift_sends_an_order_back_before_the_runner_sees_it():
    seen = []

    def runner(spec, generate):
        seen.append(spec.table)
        return repair_ticket(spec, generate)

    runs = run_shift(
        [PARTIAL_ALLERGEN_SPEC, UNSAFE_SPEC], make_scripted_generator(["{}"]), runner=runner
    )
    assert runs[0].sent_back == front_of_house(PARTIAL_ALLERGEN_SPEC)
    assert runs[1].result.stop_reason == "policy_violation"  # refused by the loop, not sent back
    assert seen == [UNSAFE_SPEC.table]


# Up to four attempts, each failing a non-empty subset of four failures: every shape the loop can make.
attempt_sets = st.lists(st.sets(st.sampled_from("ABCD"), min_size=1), min_size=1, max_size=4)


@settings(max_examples=300, deadline=None)
@given(attempt_sets)
def test_classify_every_exhausted_run_gets_exactly_the_first_class_whose_test_holds(attempts):
    run = run_of(*("".join(sorted(letters)) for letters in attempts))
    held = class_tests(run)
    assert held, "the tests cover every exhausted run"
    assert classify(run) == held[0]
    assert [name for name in FAILURE_CLASSES if CLASS_TESTS[name](run)] == list(held)
    assert code(run) in {f.check for f in FAILURES.values()}


def test_classify_all_cap_three_single_failure_patterns_fall_in_one_class_each():
    classes = {}
    for pattern in itertools.product("ABC", repeat=3):
        classes["".join(pattern)] = classify(run_of(*pattern))
    assert {p for p, c in classes.items() if c == "systematic"} == {"AAA", "BBB", "CCC"}
    assert all(classes[p] == "alternating" for p in ("ABA", "BAB", "CAC"))
    assert sum(1 for c in classes.values() if c in FAILURE_CLASSES) == 27


def test_holds_throughout_and_comes_back_read_the_attempts():
    keys = [
        frozenset({("x", "1"), ("y", "2")}),
        frozenset({("x", "1")}),
        frozenset({("x", "1"), ("y", "2")}),
    ]
    assert holds_throughout(keys) == {("x", "1")}
    assert comes_back(keys) == [("y", "2")]
    assert holds_throughout([]) == frozenset()


def test_code_names_the_check_behind_the_class():
    assert code(run_of("AB", "A", "A")) == "missing_field"
    assert code(run_of("A", "B", "A")) == "missing_field"
    assert code(run_of("A", "B", "CD")) == "out_of_scope"  # the last attempt's first failure
    assert code(BLOCKED) == "unsafe" and code(TRANSPORT) == "timeout"


def test_sort_runs_counts_add_up_and_keep_examples():
    runs = [PASSED, BLOCKED, TRANSPORT] + [run_of("A", "B", "A")] * 5 + [run_of("A", "A", "A")] * 2
    taxonomy = sort_runs(runs)
    assert taxonomy.runs == 10 and taxonomy.passed == 1 and taxonomy.failed == 9
    assert dict(taxonomy.counts) == {
        "transport": 1,
        "blocked": 1,
        "systematic": 2,
        "alternating": 5,
        "drifting": 0,
    }
    assert sum(taxonomy.counts.values()) + taxonomy.passed == taxonomy.runs
    assert len(taxonomy.examples["alternating"]) == EXAMPLES_PER_CLASS
    assert taxonomy.piles[0] == ("alternating", "missing_field", 5)
    assert abs(sum(taxonomy.shares().values()) - 1.0) < 1e-9


def test_taxonomy_refuses_counts_that_do_not_add_up():
    counts = dict.fromkeys(FAILURE_CLASSES, 0) | {"drifting": 2}
    with pytest.raises(ValueError, match="do not add up"):
        Taxonomy(runs=3, passed=0, counts=counts, piles=(("drifting", "not_json", 2),))
    with pytest.raises(ValueError, match="piles do not add up"):
        Taxonomy(runs=2, passed=0, counts=counts, piles=(("drifting", "not_json", 1),))


def test_first_fix_skips_blocked_runs_and_is_none_when_nothing_else_failed():
    taxonomy = sort_runs([BLOCKED] * 4 + [run_of("A", "A")] * 2)
    assert first_fix(taxonomy) == ("systematic", "missing_field", 2)
    assert first_fix(sort_runs([PASSED, BLOCKED])) is None


def test_sort_runs_all_passed_has_zero_shares():
    taxonomy = sort_runs([PASSED, PASSED])
    assert taxonomy.failed == 0 and set(taxonomy.shares().values()) == {0.0}


class Failing:
    """A generator whose endpoint fails on the orders of the given tables."""

    def __init__(self, tables, error):
        self.tables, self.error = tables, error

    def __call__(self, messages):
        if any(f"table {t}." in messages[0]["content"] for t in self.tables):
            raise self.error
        return '{"items": ["latte"], "allergies": [], "notes": ""}'


def test_run_shift_records_an_endpoint_failure_and_goes_on():
    orders = [SPEC, OrderSpec(table=9, items=("latte",)), OMELETTE_SPEC]
    seen = []
    runs = run_shift(
        orders, Failing({9}, EndpointError("down", kind="connection")), on_run=seen.append
    )
    assert [run.transport for run in runs] == [None, "connection", None]
    assert runs[1].detail == "down" and list(runs) == seen
    assert [classify(run) for run in runs] == ["systematic", "transport", "systematic"]


def test_run_shift_lets_a_setup_error_stop_the_shift():
    with pytest.raises(ConfigError):
        run_shift([SPEC], Failing({4}, ConfigError("CAFE_MODEL is not set")))


@pytest.mark.parametrize("kind", sorted(SETUP_PROBLEMS))
def test_run_shift_stops_on_an_endpoint_problem_that_means_the_settings_are_wrong(kind):
    with pytest.raises(EndpointError):
        run_shift([SPEC, SPEC], Failing({4}, EndpointError("check CAFE_API_KEY", kind=kind)))


def test_run_shift_uses_the_runner_it_is_given():
    calls = []

    def runner(spec, generate):
        calls.append(spec.table)
        return repair_ticket(spec, generate, cap=1)

    runs = run_shift(
        [SPEC, OMELETTE_SPEC], make_scripted_generator(['{"table": 4}']), runner=runner
    )
    assert calls == [4, 4] and all(len(run.result.attempts) == 1 for run in runs)
    with pytest.raises(TypeError, match="must return a RepairResult"):
        run_shift([SPEC], make_scripted_generator(["{}"]), runner=lambda spec, generate: "passed")


def test_code_of_an_alternating_run_is_the_failure_seen_first_whatever_the_cap():
    # The 86'd omelette drafted, dropped, drafted...: sold_out first, however many attempts.
    assert code(run_of("B", "C", "B")) == "sold_out"
    assert code(run_of("B", "C", "B", "C", "B")) == "sold_out"


# --- runs read back from traces ---------------------------------------------------------------------


def test_run_from_trace_gives_the_practice_shift_the_same_classes_through_a_trace_file(tmp_path):
    from cafe.stories.practice_shift import PRACTICE_SHIFT, practice_generator, practice_orders
    from cafe.trace.record import Recorder, read_traces, record_repair, write_traces

    generate, traces = practice_generator(), []
    for spec in practice_orders():
        recorder = Recorder()
        try:
            record_repair(spec, generate, recorder=recorder)
        except EndpointError:
            pass  # the trace keeps the spans of a run the endpoint cut short
        traces.append(recorder.trace())
    write_traces(traces, tmp_path / "shift.jsonl")
    runs = [run_from_trace(trace) for trace in read_traces(tmp_path / "shift.jsonl")]
    direct = run_shift(practice_orders(), practice_generator())
    assert ["passed" if run.passed else classify(run) for run in runs] == [
        o.designed for o in PRACTICE_SHIFT
    ]
    for traced, ran in zip(runs, direct):
        assert traced.spec.table == ran.spec.table
        if ran.result is not None:
            assert [a.failures for a in traced.result.attempts] == [
                a.failures for a in ran.result.attempts
            ]
            assert traced.result.ticket == ran.result.ticket
            assert traced.result.blocked_by == ran.result.blocked_by
    assert classify(traces[7]) == "alternating"  # classify takes a Trace as it is


def test_run_from_trace_names_the_retired_needs_consent():
    from cafe.trace.spans import STOP_REASON, Span, Trace

    old = Trace(
        "old",
        "2026-11-30T12:00:00+00:00",
        (
            Span(
                "s1",
                None,
                "run",
                "invoke_agent cafe.repair",
                0.0,
                0.1,
                {STOP_REASON: "needs_consent"},
            ),
        ),
    )
    with pytest.raises(ValueError, match="sent back to the customer"):
        run_from_trace(old)


def test_run_from_trace_refuses_a_run_that_stopped_on_a_bug():
    from cafe.trace.record import Recorder, record_repair

    def broken(messages):
        raise KeyError("a bug in the generator")

    recorder = Recorder()
    with pytest.raises(KeyError):
        record_repair(SPEC, broken, recorder=recorder)
    with pytest.raises(ValueError, match="not a finished repair_ticket run"):
        run_from_trace(recorder.trace())


def test_run_from_trace_reads_a_span_quoting_a_quote_back():
    from cafe.trace.record import record_repair

    result, trace = record_repair(
        SPEC,
        make_scripted_generator(
            ['{"table": 4, "items": ["it\'s. Fix: me"], "allergies": [], "notes": ""}']
        ),
    )
    assert [a.failures for a in run_from_trace(trace).result.attempts] == [
        a.failures for a in result.attempts
    ]
