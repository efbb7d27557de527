"""cafe.judge.calibration: labelled tickets labelled by the checks, the confusion table, kappa, the
bias probes and the trust rule."""

import math

import pytest

from cafe.detect.checks import check_ticket
from cafe.judge.calibration import (
    Calibration,
    calibrate,
    catch_rate_by_notes,
    cohen_kappa,
    grade_of,
    position_probe,
    probe_pairs,
    scripted_judge,
)
from cafe.judge.grading import Grade, ModelJudge
from cafe.judge.labelled import FAULTS, VERBOSE_NOTES, labelled_tickets
from cafe.judge.trust import TRUST_MINIMUMS, trust_reading
from cafe.schema.ticket import Usage
from cafe.world.menu import load_menu

MENU = load_menu()


def test_labelled_tickets_take_every_label_from_the_checks():
    for item in labelled_tickets(60, 0.5, seed=1):
        failures = check_ticket(item.ticket, item.spec, MENU)
        assert item.truth == ("fail" if failures else "pass")
        assert item.checks == tuple(dict.fromkeys(f.check for f in failures))


def test_labelled_tickets_break_the_share_asked_for_in_every_fault():
    labelled = labelled_tickets(200, 0.5, seed=2)
    assert sum(item.fault is not None for item in labelled) == 100
    assert {item.fault for item in labelled if item.fault} == FAULTS
    assert all(
        item.truth == "fail" for item in labelled if item.fault
    )  # every fault is one the checks see


def test_labelled_tickets_are_the_same_for_a_seed_and_differ_across_seeds():
    assert labelled_tickets(30, 0.3, seed=5) == labelled_tickets(30, 0.3, seed=5)
    assert labelled_tickets(30, 0.3, seed=5) != labelled_tickets(30, 0.3, seed=6)


def test_labelled_tickets_carry_verbose_notes_on_some_tickets_only():
    labelled = labelled_tickets(40, 0.5)
    assert {item.ticket.notes for item in labelled} == {"", VERBOSE_NOTES}
    assert all(item.verbose == (item.ticket.notes == VERBOSE_NOTES) for item in labelled)


@pytest.mark.parametrize(
    "kwargs, word",
    [({"size": 0}, "size"), ({"size": True}, "size"), ({"bad_share": 1.5}, "bad_share")],
)
def test_labelled_tickets_refuse_a_bad_argument(kwargs, word):
    with pytest.raises(ValueError, match=word):
        labelled_tickets(**{"size": 10, "bad_share": 0.5, **kwargs})


def test_cohen_kappa_matches_the_worked_example():
    # 20 caught, 5 missed, 10 false alarms, 65 passed correctly: observed 0.85; the judge fails
    # 0.30, the checks fail 0.25, so chance = 0.3*0.25 + 0.7*0.75 = 0.6; kappa = 0.25/0.4.
    assert math.isclose(cohen_kappa(20, 5, 10, 65), 0.625)


def test_cohen_kappa_is_zero_for_a_judge_that_always_passes_and_none_when_undefined():
    assert cohen_kappa(0, 5, 0, 95) == 0.0
    assert cohen_kappa(0, 0, 0, 40) is None  # both raters said pass to every ticket
    assert cohen_kappa(0, 0, 0, 0) is None


def test_cohen_kappa_is_negative_for_a_judge_worse_than_chance():
    assert cohen_kappa(0, 10, 10, 0) == -1.0


def test_calibrate_counts_add_up_and_agree_with_the_truth():
    labelled = labelled_tickets(40, 0.5)
    result = calibrate(scripted_judge(), labelled)
    assert (result.tp, result.fn, result.tn, result.fp, result.unparsed) == (20, 0, 20, 0, 0)
    assert result.kappa == 1.0 and result.usage.total_tokens > 0


def test_calibrate_leniency_lowers_the_catch_rate_only():
    result = calibrate(scripted_judge(leniency=0.5), labelled_tickets(60, 0.5))
    assert result.catch_rate < 0.8 and result.pass_rate_on_good == 1.0


def test_calibrate_an_always_pass_judge_agrees_95_percent_with_kappa_zero_on_a_good_day():
    result = calibrate(lambda spec, ticket: "pass", labelled_tickets(100, 0.05))
    assert result.agreement == 0.95 and result.kappa == 0.0 and result.catch_rate == 0.0


def test_calibrate_counts_no_verdict_apart_from_both_classes():
    result = calibrate(lambda spec, ticket: "perhaps", labelled_tickets(10, 0.5))
    assert (result.unparsed, result.judged, result.agreement, result.kappa) == (10, 0, None, None)


def test_calibrate_sums_the_judges_usage_and_names_its_model():
    result = calibrate(
        lambda spec, ticket: Grade("pass", usage=Usage(10, 2)), labelled_tickets(5, 0.0), model="m1"
    )
    assert result.usage == Usage(50, 10) and result.model == "m1"


def test_calibrate_with_nothing_to_grade_says_how_to_make_tickets():
    with pytest.raises(ValueError, match="labelled_tickets"):
        calibrate(lambda spec, ticket: "pass", [])


def test_grade_of_refuses_an_answer_that_is_no_verdict_type():
    with pytest.raises(TypeError, match="Grade"):
        grade_of(True)


def test_catch_rate_by_notes_shows_a_verbosity_bias_and_no_gap_without_one():
    labelled = labelled_tickets(80, 0.5)
    biased = catch_rate_by_notes(calibrate(scripted_judge(verbosity=0.8), labelled))
    fair = catch_rate_by_notes(calibrate(scripted_judge(), labelled))
    assert biased["plain"] == 1.0 and biased["verbose"] < 0.5
    assert fair == {"verbose": 1.0, "plain": 1.0}


@pytest.mark.parametrize(
    "dials, plain_through, verbose_through",
    [
        ({"leniency": 1.0}, 1.0, 1.0),
        ({"leniency": 0.3}, 0.3, 0.3),
        ({"leniency": 0.1, "verbosity": 0.5}, 0.1, 0.6),
        ({"leniency": 0.15, "verbosity": 0.3}, 0.15, 0.45),
    ],
)
def test_scripted_judge_given_its_tickets_realises_its_dials_exactly(
    dials, plain_through, verbose_through
):
    labelled = labelled_tickets(40, 0.5)
    result = calibrate(scripted_judge(**dials, tickets=labelled), labelled)
    for verbose, rate in ((False, plain_through), (True, verbose_through)):
        verdicts = [
            v for item, v in result.graded if item.truth == "fail" and item.verbose == verbose
        ]
        assert verdicts.count("pass") == math.floor(rate * len(verdicts) + 0.5)
    assert result.fp == 0 and result.pass_rate_on_good == 1.0


def test_scripted_judge_lenient_three_in_ten_catches_seven_in_ten():
    # The toy's second judge: "lets 30% of broken tickets through" must be what it measures.
    labelled = labelled_tickets(40, 0.5)
    result = calibrate(scripted_judge(leniency=0.3, tickets=labelled), labelled)
    assert (result.tp, result.fn) == (14, 6) and result.catch_rate == 0.7


def test_scripted_judge_verdicts_do_not_depend_on_the_order_tickets_are_graded_in():
    labelled = labelled_tickets(40, 0.5)
    judge = scripted_judge(leniency=0.3, verbosity=0.2, tickets=labelled)
    forward = calibrate(judge, labelled).graded
    backward = calibrate(judge, labelled[::-1]).graded
    assert [v for _, v in forward] == [v for _, v in backward][::-1]


def test_probe_pairs_put_each_broken_ticket_beside_its_twin_both_ways_round():
    labelled = labelled_tickets(40, 0.5)
    pairs = probe_pairs(labelled)
    assert len(pairs) == 2 * sum(item.truth == "fail" for item in labelled)
    for (spec, right, broken), (spec2, first, second) in zip(pairs[::2], pairs[1::2]):
        assert spec == spec2 and (first, second) == (broken, right)
        assert not check_ticket(right, spec, MENU) and check_ticket(broken, spec, MENU)


def test_position_probe_sorts_every_pair_into_one_kind():
    labelled = labelled_tickets(40, 0.5)
    fair, biased = (
        position_probe(scripted_judge(), labelled),
        position_probe(scripted_judge(position=1.0), labelled),
    )
    assert fair.right_both_ways == fair.pairs == 20
    assert biased.first_both_times == biased.pairs == 20


def _cal(model="m", tp=45, fn=5, tn=48, fp=2, unparsed=0):
    return Calibration(model, tp, fn, tn, fp, unparsed)


def test_trust_reading_trusts_a_good_calibration_of_this_model():
    assert trust_reading(_cal(), "m").trusted


@pytest.mark.parametrize(
    "calibration, model, word",
    [
        (_cal(), "other", "calibrate this model"),
        (_cal(tp=5, fn=0), "m", "at least"),
        (_cal(unparsed=20), "m", "no verdict"),
        (_cal(tp=40, fn=10), "m", "caught 80%"),
        (_cal(tp=0, fn=5, tn=95, fp=0), "m", "kappa is 0.00"),
    ],
)
def test_trust_reading_refuses_and_says_why(calibration, model, word):
    reading = trust_reading(calibration, model)
    assert not reading.trusted and any(word in reason for reason in reading.reasons), (
        reading.reasons
    )


def test_trust_minimums_are_read_only():
    with pytest.raises(TypeError):
        TRUST_MINIMUMS["kappa"] = 0.1  # type: ignore[index]


class _Flaky:
    """A chat client that times out on every `every`-th request and passes the rest on."""

    def __init__(self, inner, every=4, kind="timeout"):
        self.inner, self.every, self.kind, self.calls = inner, every, kind, 0
        self.chat = self
        self.completions = self

    def create(self, *args, **kwargs):
        from cafe.endpoint.errors import EndpointError

        self.calls += 1
        if self.calls % self.every == 0:
            raise EndpointError("The endpoint did not answer within 60 s.", kind=self.kind)
        return self.inner.chat.completions.create(*args, **kwargs)


def test_calibrate_counts_a_ticket_the_endpoint_failed_on_and_goes_on():
    labelled = labelled_tickets(40, 0.5)
    scripted = scripted_judge(tickets=labelled)
    flaky = _Flaky(scripted.client)
    result = calibrate(ModelJudge(flaky, "m"), labelled)
    assert result.failed == 10 and flaky.calls == 40
    assert result.judged + result.unparsed + result.failed == len(labelled)
    assert len(result.graded) == 30 and result.as_dict()["not_graded"] == 10
    assert (result.fn, result.fp, result.unparsed) == (0, 0, 0)  # the rest graded as ever
    reading = trust_reading(result, "m")
    assert not reading.trusted and any("never graded" in r for r in reading.reasons)


def test_calibrate_stops_on_a_setup_problem():
    from cafe.endpoint.errors import EndpointError

    labelled = labelled_tickets(8, 0.5)
    scripted = scripted_judge(tickets=labelled)
    with pytest.raises(EndpointError):
        calibrate(ModelJudge(_Flaky(scripted.client, every=1, kind="key_refused"), "m"), labelled)


def test_trust_reading_refuses_a_calibration_with_tickets_never_graded():
    full = Calibration("m", 45, 5, 48, 2)
    holed = Calibration("m", 45, 5, 48, 2, failed=3)
    assert trust_reading(full, "m").trusted and not trust_reading(holed, "m").trusted


def test_calibrate_with_every_ticket_failed_raises_the_last_error():
    from cafe.endpoint.errors import EndpointError

    labelled = labelled_tickets(6, 0.5)
    scripted = scripted_judge(tickets=labelled)
    flaky = _Flaky(scripted.client, every=1)
    with pytest.raises(EndpointError, match="did not answer"):
        calibrate(ModelJudge(flaky, "m"), labelled)
    assert flaky.calls == 6  # it tried every ticket before giving up
