"""cafe.exercises.s12: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

from cafe import course
from cafe.exercises.s12 import check_calibrate, check_trust_rule
from cafe.judge.calibration import calibrate
from cafe.judge.trust import trust_reading


def _stub(*args):
    raise NotImplementedError("your turn")


def test_check_calibrate_reference_passes_and_stub_is_not_attempted():
    assert check_calibrate(calibrate) == []
    assert course.compare(_stub, check=check_calibrate).status == "not_attempted"


def test_check_calibrate_accepts_a_dict_answer():
    def as_dict(judge, labelled):
        result = calibrate(judge, labelled)
        return {
            "tp": result.tp,
            "fn": result.fn,
            "tn": result.tn,
            "fp": result.fp,
            "unparsed": result.unparsed,
            "kappa": result.kappa,
        }

    assert check_calibrate(as_dict) == []


def test_check_calibrate_catches_raw_agreement_reported_as_kappa():
    def agreement(judge, labelled):
        result = calibrate(judge, labelled)
        return {
            **{c: getattr(result, c) for c in ("tp", "fn", "tn", "fp", "unparsed")},
            "kappa": result.agreement,
        }

    assert any("returned {'kappa': 0.95}" in problem for problem in check_calibrate(agreement))


def test_check_calibrate_catches_the_positive_class_swapped():
    def swapped(judge, labelled):
        r = calibrate(judge, labelled)
        return {
            "tp": r.tn,
            "fn": r.fp,
            "tn": r.tp,
            "fp": r.fn,
            "unparsed": r.unparsed,
            "kappa": r.kappa,
        }

    assert any("tp is" in problem for problem in check_calibrate(swapped))


def test_check_calibrate_catches_no_verdict_counted_as_a_pass():
    def folded(judge, labelled):
        def strict(spec, ticket):
            answer = judge(spec, ticket)
            return answer if answer in ("pass", "fail") else "pass"

        return calibrate(strict, labelled)

    assert any(
        "never gives a verdict" in problem and "unparsed" in problem
        for problem in check_calibrate(folded)
    )


def test_check_calibrate_reports_a_crash_and_a_wrong_type():
    assert any(
        "raised ZeroDivisionError" in p for p in check_calibrate(lambda judge, labelled: 1 / 0)
    )
    assert any("returned int" in p for p in check_calibrate(lambda judge, labelled: 3))


def test_check_trust_rule_reference_passes_and_stub_is_not_attempted():
    assert (
        check_trust_rule(lambda calibration, model: trust_reading(calibration, model).trusted) == []
    )
    assert course.compare(_stub, check=check_trust_rule).status == "not_attempted"


def test_check_trust_rule_catches_a_rule_on_raw_agreement():
    problems = check_trust_rule(lambda calibration, model: (calibration.agreement or 0) >= 0.9)
    assert any("95% agreement" in problem for problem in problems)
    assert any("another model" in problem for problem in problems)


def test_check_trust_rule_catches_a_rule_that_trusts_nothing_and_a_non_boolean():
    assert any(
        "returned 'refused', expected 'trusted'" in problem
        for problem in check_trust_rule(lambda calibration, model: False)
    )
    assert any(
        "True or False" in problem for problem in check_trust_rule(lambda calibration, model: "yes")
    )


def test_notebook_stubs_are_not_attempted_and_the_checkpoint_banks_the_house_judge(
    tmp_path, monkeypatch
):
    from samples import run_notebook_source

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    namespace = run_notebook_source("s12-model-judge")
    assert (
        course.compare(namespace["my_calibrate"], check=check_calibrate).status == "not_attempted"
    )
    assert (
        course.compare(namespace["my_trust_rule"], check=check_trust_rule).status == "not_attempted"
    )
    figures = namespace["figures"]
    assert figures["tp"] + figures["fn"] + figures["tn"] + figures["fp"] + figures["unparsed"] == 40
    assert namespace["reading"].trusted is False  # the house judge misses too many broken tickets
    # The scripted judges realise their dials, so the notebook prints what the prose says.
    lenient = namespace["lenient"]
    assert (lenient.tp, lenient.fn, lenient.catch_rate) == (14, 6, 0.7)
    assert (figures["tp"], figures["fn"], figures["kappa"]) == (14, 6, 0.7)
    assert namespace["report"].right_both_ways == 8 and namespace["report"].pairs == 20


def test_reveals_state_the_shares_the_scripted_judges_produce():
    from cafe.course.reveals import load_answer
    from cafe.judge.calibration import position_probe, scripted_judge
    from cafe.judge.labelled import labelled_tickets

    labelled = labelled_tickets(40, 0.5)
    wordy = calibrate(scripted_judge(leniency=0.1, verbosity=0.5, tickets=labelled), labelled)
    said = load_answer("s12.why_verbose")
    for verbose in (True, False):
        verdicts = [
            v for item, v in wordy.graded if item.truth == "fail" and item.verbose == verbose
        ]
        assert f"{verdicts.count('fail')} of the {len(verdicts)}" in said
    probe = position_probe(scripted_judge(position=0.6, tickets=labelled), labelled)
    told = load_answer("s12.why_position")
    assert f"{probe.right_both_ways} of the {probe.pairs} pairs" in told
    assert f"the other {probe.first_both_times} land in 'first both times'" in told
