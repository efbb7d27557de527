"""cafe.exercises.s12: each checker passes the reference, says "not attempted" for the stub, and
fails plausible wrong answers with a specific complaint."""

import pytest

from cafe import course
from cafe.exercises.feedback import library_answer
from cafe.exercises.reference_s12 import confusion, floor_trusts
from cafe.exercises.s12 import check_calibrate, check_trust_rule
from cafe.judge.calibration import Calibration, calibrate, cohen_kappa
from cafe.judge.trust import trust_reading

# A calibration's model and five counts, in the order `Calibration` takes them.
CELLS_AND_MODEL = ("model", "tp", "fn", "tn", "fp", "unparsed")


def _stub(*args):
    raise NotImplementedError("your turn")


def test_check_calibrate_reference_passes_and_stub_is_not_attempted():
    assert check_calibrate(confusion) == []
    assert course.compare(_stub, check=check_calibrate).status == "not_attempted"


def test_check_calibrate_refuses_the_course_s_calibrate_and_a_wrapper_of_it():
    def wraps(judge, labelled):
        return calibrate(judge, labelled)

    for handed_in in (calibrate, wraps):
        assert check_calibrate(handed_in) == [library_answer("calibrate")]


def test_check_calibrate_shows_a_shrunk_day_where_a_substring_reads_a_verdict():
    def substring(judge, labelled):  # 'passed' read as pass: only a generated answer says it
        cells = dict.fromkeys(("tp", "fn", "tn", "fp", "unparsed"), 0)
        for item in labelled:
            answer = judge(item.spec, item.ticket)  # asked once: a judge may answer again otherwise
            word = str(getattr(answer, "verdict", answer))
            said = "fail" if "fail" in word.lower() else "pass" if "pass" in word.lower() else "?"
            if said == "?":
                cells["unparsed"] += 1
            elif item.truth == "fail":
                cells["tp" if said == "fail" else "fn"] += 1
            else:
                cells["tn" if said == "pass" else "fp"] += 1
        tp, fn, tn, fp = cells["tp"], cells["fn"], cells["tn"], cells["fp"]
        return {**cells, "kappa": cohen_kappa(tp, fn, fp, tn)}

    problems = check_calibrate(substring)
    assert len(problems) == 1 and problems[0].startswith("on tickets "), problems
    assert "'Pass.'" in problems[0] or "'passed'" in problems[0]


def test_check_calibrate_accepts_a_calibration_record():
    def as_record(judge, labelled):
        found = confusion(judge, labelled)
        cells = [found[cell] for cell in ("tp", "fn", "tn", "fp", "unparsed")]
        return Calibration("m", *cells)

    assert check_calibrate(as_record) == []


def test_check_calibrate_catches_raw_agreement_reported_as_kappa():
    def agreement(judge, labelled):
        result = confusion(judge, labelled)
        judged = sum(result[c] for c in ("tp", "fn", "tn", "fp"))
        return {**result, "kappa": (result["tp"] + result["tn"]) / judged if judged else None}

    assert any("returned {'kappa': 0.95}" in problem for problem in check_calibrate(agreement))


def test_check_calibrate_catches_the_positive_class_swapped():
    def swapped(judge, labelled):
        r = confusion(judge, labelled)
        return {**r, "tp": r["tn"], "fn": r["fp"], "tn": r["tp"], "fp": r["fn"]}

    assert any("tp is" in problem for problem in check_calibrate(swapped))


def test_check_calibrate_catches_no_verdict_counted_as_a_pass():
    def folded(judge, labelled):
        def strict(spec, ticket):
            answer = judge(spec, ticket)
            return answer if answer in ("pass", "fail") else "pass"

        return confusion(strict, labelled)

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
    assert check_trust_rule(floor_trusts) == []
    assert course.compare(_stub, check=check_trust_rule).status == "not_attempted"


def test_check_trust_rule_refuses_the_course_s_trust_reading():
    def course_rule(calibration, model):
        return trust_reading(calibration, model).trusted

    assert check_trust_rule(course_rule) == [library_answer("trust_reading")]


def test_check_trust_rule_accepts_a_stricter_rule_and_shows_a_looser_one_shrunk():
    def stricter(calibration, model):
        return floor_trusts(calibration, model) and calibration.tp + calibration.fn >= 40

    assert check_trust_rule(stricter) == []

    def kappa_seven(calibration, model):  # kappa 0.7: looser than the lesson's 0.8
        return (
            model == calibration.model
            and min(calibration.tp + calibration.fn, calibration.tn + calibration.fp) >= 20
            and calibration.unparsed <= 0.05 * (calibration.judged + calibration.unparsed)
            and (calibration.kappa or 0) >= 0.7
            and (calibration.catch_rate or 0) >= 0.9
        )

    problems = check_trust_rule(kappa_seven)
    assert len(problems) == 1 and problems[0].startswith("on ("), problems


def test_trust_rule_calibrations_put_both_rates_within_half_a_percent_either_side_of_the_bar():
    """Held-out readerI, 7 Dec 2026 (afternoon): a rule that rounds a rate as a report prints it
    (5.45% unparsed shown as 5%, a catch rate of 89.5% shown as 90%) is wrong only within half a
    percent of the bar, and the generated calibrations never landed there. Among the seeded draws
    there are now unparsed shares and catch rates within half a percent of their bar, over it and
    under it, exact and not round (so no tuned case stands in for the property)."""
    from hypothesis import given, settings

    from cafe.exercises.reference_s12 import calibrations

    near: dict[str, set[bool]] = {"unparsed": set(), "catch": set()}

    @settings(max_examples=300, derandomize=True, database=None)
    @given(calibrations(Calibration))
    def draw(pair):
        c = pair[0]
        asked = c.judged + c.unparsed
        if asked and 0 < abs(c.unparsed / asked - 0.05) <= 0.005:
            near["unparsed"].add(c.unparsed / asked > 0.05)
        if c.catch_rate is not None and 0 < abs(c.catch_rate - 0.9) <= 0.005:
            near["catch"].add(c.catch_rate >= 0.9)

    draw()
    assert near == {"unparsed": {True, False}, "catch": {True, False}}


def test_check_trust_rule_catches_a_rate_rounded_as_it_prints():
    """Held-out readerI: each rounding, of the unparsed share or of the catch rate, is found
    on a generated calibration whose rate sits just past the bar."""
    from banks.bank_s12 import catch_rate_as_printed, unparsed_as_a_whole_percent

    for rounded in (unparsed_as_a_whole_percent, catch_rate_as_printed):
        problems = check_trust_rule(rounded)
        assert problems and "trusted" in problems[-1], rounded.__name__


@pytest.mark.parametrize("tolerated", [1, 2, 3])
def test_check_trust_rule_catches_any_tolerance_of_tickets_never_graded(tolerated):
    """Held-out reader M: rule 3 asks every ticket graded, so a rule that lets a few failed
    tickets through, however it counts them (a share, a number, as misses), is shown the smallest
    generated calibration with one, the idea naming the rule it breaks."""

    def few_holes(calibration, model):
        cleared = Calibration(*[getattr(calibration, f) for f in CELLS_AND_MODEL], failed=0)
        return calibration.failed <= tolerated and floor_trusts(cleared, model)

    (problem,) = check_trust_rule(few_holes)
    assert "failed=1)" in problem and "returned 'trusted'" in problem
    assert "every ticket graded" in problem


def test_trust_rule_calibrations_hold_holes_beside_unparsed_replies_of_every_share():
    """The generated calibrations leave tickets never graded on judges every other clause
    trusts, with no unparsed reply and with unparsed ones up to the limit: no sum of the two
    under 5% can pass."""
    from hypothesis import given, settings

    from cafe.exercises.reference_s12 import calibrations

    shares: set[bool] = set()

    @settings(max_examples=300, derandomize=True, database=None)
    @given(calibrations(Calibration))
    def draw(pair):
        c, model = pair
        if c.failed and floor_trusts(Calibration(*[getattr(c, f) for f in CELLS_AND_MODEL]), model):
            shares.add(c.unparsed > 0)

    draw()
    assert shares == {True, False}


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


_SOLVED = {
    'raise NotImplementedError("your turn: count the confusion table and work out kappa")': (
        "from cafe.exercises.reference_s12 import confusion\n    return confusion(judge, labelled)"
    ),
    'raise NotImplementedError("your turn: decide when a judge may be trusted")': (
        "from cafe.exercises.reference_s12 import floor_trusts\n"
        "    return floor_trusts(calibration, model)"
    ),
}


def _run(source_changes=None):
    import contextlib
    import io
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "sessions" / "s12-model-judge" / "notebook.py"
    source = path.read_text(encoding="utf-8")
    for stub, body in (source_changes or {}).items():
        assert stub in source, f"the notebook's stub changed: {stub}"
        source = source.replace(stub, body)
    namespace = {"__name__": "__notebook__"}
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(source, str(path), "exec"), namespace)
    return namespace, out.getvalue()


def test_notebook_solved_banks_the_learners_reading_beside_the_house_judge(tmp_path, monkeypatch):
    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    _run(_SOLVED)
    banked = course.load_progress()["checkpoints"]["s12"]
    assert banked["calibration"]["source"] == "scripted"
    yours = banked["your_judge_rules"]
    assert yours["source"] == "yours"
    assert yours["value"]["calibration"] == {
        key: banked["calibration"]["value"][key] for key in ("tp", "fn", "tn", "fp", "unparsed")
    } | {"kappa": banked["calibration"]["value"]["kappa"]}
    assert yours["value"]["your_rule_trusts_it"] is False


class _Down:
    """A client whose every request meets an endpoint problem of one kind."""

    def __init__(self, kind):
        self.kind = kind
        self.chat = self
        self.completions = self

    def create(self, *args, **kwargs):
        from cafe.endpoint.errors import EndpointError

        raise EndpointError("The endpoint did not answer within 60 s.", kind=self.kind)


@pytest.mark.parametrize("kind", ["timeout", "key_refused"])
def test_notebook_live_with_a_dead_endpoint_goes_on_and_keeps_what_was_banked(
    tmp_path, monkeypatch, kind
):
    import cafe
    from cafe.judge.calibration import scripted_judge
    from cafe.judge.labelled import labelled_tickets

    monkeypatch.setenv("CAFE_HOME", str(tmp_path))
    monkeypatch.setenv("COURSE_MODE", "live")
    monkeypatch.setenv("CAFE_MODEL", "my-model")
    monkeypatch.setenv("CAFE_BASE_URL", "http://127.0.0.1:9/v1")
    monkeypatch.setenv("CAFE_API_KEY", "sk-test-not-a-real-key")
    # A first live run that works (a scripted judge behind the client) banks both entries...
    working = scripted_judge(leniency=0.5, tickets=labelled_tickets(40, 0.5)).client
    monkeypatch.setattr(cafe, "make_client", lambda *a, **k: working)
    _run(_SOLVED)
    before = course.load_progress()["checkpoints"]["s12"]
    assert before["calibration"]["model"] == "my-model"
    assert before["calibration"]["source"] == "live"
    assert before["calibration"]["value"]["not_graded"] == 0
    # ...and a second one against a dead endpoint says so, goes on, and replaces neither.
    monkeypatch.setattr(cafe, "make_client", lambda *a, **k: _Down(kind))
    namespace, printed = _run(_SOLVED)
    assert namespace["graded"].failed == kind
    assert "live: s12.your_judge stopped" in printed
    assert "skipped: your model's line needs s12.your_judge" in printed
    assert "skipped: the trust reading of your model" in printed
    after = course.load_progress()["checkpoints"]["s12"]
    assert after["calibration"] == before["calibration"]
    assert after["your_judge_rules"] == before["your_judge_rules"]
