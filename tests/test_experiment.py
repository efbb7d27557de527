"""cafe.evals.compare and cafe.evals.experiment: a comparison's interval, its verdict, and a run
that resumes. The stand-ins' true rates are known, so the intervals are checked against the truth
over many seeds (counts, with fixed seeds: the same figures every run)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cafe.evals.checks import wilson_interval
from cafe.evals.compare import VERDICTS, difference_interval, judge, orders_needed
from cafe.evals.experiment import (
    EXPERIMENTS,
    pick,
    run_experiment,
    scripted_outcome,
    standin_arms,
)
from cafe.evals.experiment_program import program as main

SEEDS = range(1000)


def _count(session: str, arm: str, seed: int, n: int, rate: float) -> int:
    return sum(scripted_outcome(session, arm, seed, order, rate) for order in range(n))


@pytest.mark.parametrize(("p_a", "p_b", "n"), [(0.4, 0.7, 40), (0.6, 0.6, 20), (0.85, 0.95, 60)])
def test_difference_interval_covers_the_true_difference_at_about_95_percent(p_a, p_b, n) -> None:
    covered = 0
    for seed in SEEDS:
        a, b = _count("t", "a", seed, n, p_a), _count("t", "b", seed, n, p_b)
        low, high = difference_interval(a, n, b, n)
        covered += low <= p_b - p_a <= high
    assert 930 <= covered <= 990, f"{covered} of {len(SEEDS)} intervals covered {p_b - p_a:+.2f}"


def test_wilson_interval_covers_the_true_rate_at_about_95_percent() -> None:
    covered = sum(
        lo <= 0.3 <= hi
        for lo, hi in (wilson_interval(_count("t", "w", s, 30, 0.3), 30) for s in SEEDS)
    )
    assert 930 <= covered <= 980, covered


def test_judge_each_verdict() -> None:
    assert judge("a", 20, 100, "b", 60, 100).verdict == "shows the claim"
    assert judge("a", 60, 100, "b", 20, 100).verdict == "shows the opposite"
    tie = judge("a", 5, 10, "b", 6, 10)
    assert tie.verdict == "not enough orders to tell" and tie.more_orders and tie.more_orders > 10
    assert "more orders per arm" in tie.sentence()
    assert {c.verdict for c in (judge("a", 1, 2, "b", 1, 2),)} <= set(VERDICTS)


def test_orders_needed_none_for_equal_rates_and_more_for_smaller_gaps() -> None:
    assert orders_needed(0.5, 0.5) is None
    assert orders_needed(0.4, 0.7) < orders_needed(0.4, 0.5)


def test_the_wrong_claim_is_not_shown_with_enough_orders() -> None:
    """With the true rates 0.4 and 0.7, 07's claim holds; at 200 orders it is shown."""
    experiment = EXPERIMENTS["07"]
    (a, p_a), (b, p_b) = experiment.arms
    verdict = judge(a, _count("07", a, 0, 200, p_a), 200, b, _count("07", b, 0, 200, p_b), 200)
    assert verdict.verdict == "shows the claim"


def _counted_arms(session: str, calls: list[tuple[str, int]], stop_at=None):
    """The stand-in arms, each call recorded; `stop_at` (arm, order) raises KeyboardInterrupt."""
    arms = standin_arms(EXPERIMENTS[session])

    def wrap(name):
        def one(seed, order):
            if (name, order) == stop_at:
                raise KeyboardInterrupt
            calls.append((name, order))
            return arms[name](seed, order)

        return one

    return {name: wrap(name) for name in arms}


def test_run_experiment_resumes_without_running_an_order_twice(tmp_path: Path) -> None:
    calls: list[tuple[str, int]] = []
    path = tmp_path / "07.json"
    arms = _counted_arms("07", calls)
    run_experiment(EXPERIMENTS["07"], 20, 3, path, say=lambda _: None, arms=arms)
    resumed = run_experiment(EXPERIMENTS["07"], 40, 3, path, say=lambda _: None, arms=arms)
    straight = run_experiment(EXPERIMENTS["07"], 40, 3, tmp_path / "s.json", say=lambda _: None)
    assert len(calls) == 80 and len(set(calls)) == 80
    assert resumed.to_json()["arms"] == straight.to_json()["arms"]


def test_run_experiment_stopped_mid_way_keeps_what_it_ran(tmp_path: Path) -> None:
    path = tmp_path / "04.json"
    stops = _counted_arms("04", [], stop_at=("json_object", 7))
    with pytest.raises(KeyboardInterrupt):
        run_experiment(EXPERIMENTS["04"], 15, 0, path, say=lambda _: None, arms=stops)
    saved = json.loads(path.read_text(encoding="utf-8"))["arms"]
    assert len(saved["plain"]) == 15 and len(saved["json_object"]) == 7
    again = run_experiment(EXPERIMENTS["04"], 15, 0, path, say=lambda _: None)
    fresh = run_experiment(EXPERIMENTS["04"], 15, 0, tmp_path / "f.json", say=lambda _: None)
    assert again.to_json() == {**fresh.to_json()}


def test_run_experiment_counts_none_as_nothing_to_count(tmp_path: Path) -> None:
    """An arm answering None (nothing to rescue, a reply that did not parse) runs the order but
    leaves it out of the rate and the interval; the report says how many were left out."""
    arms = {
        "naive": lambda seed, order: None if order % 2 else False,
        "curated": lambda seed, order: True,
    }
    result = run_experiment(
        EXPERIMENTS["07"], 10, 0, tmp_path / "n.json", arms=arms, say=lambda _: None
    )
    naive, curated = result.arms
    assert (naive.passed, naive.counted, len(naive.outcomes)) == (0, 5, 10)
    assert "5 of 10 not counted" in naive.line() and curated.counted == 10
    assert result.comparisons[0].verdict == "shows the claim"
    assert json.loads((tmp_path / "n.json").read_text())["arms"]["naive"][1] is None


def test_run_experiment_refuses_arms_that_are_not_the_catalogues(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="arms are naive, curated"):
        run_experiment(EXPERIMENTS["07"], 2, 0, tmp_path / "x.json", arms={"naive": lambda s, o: 1})


def test_pick_gives_every_arm_the_same_item_and_each_round_every_item() -> None:
    items = tuple(range(7))
    first_round = [pick(items, 5, order) for order in range(7)]
    assert sorted(first_round) == list(items)
    assert [pick(items, 5, order) for order in range(7)] == first_round
    assert sorted(pick(items, 5, order) for order in range(7, 14)) == list(items)
    with pytest.raises(ValueError, match="at least one item"):
        pick((), 0, 0)


def test_run_experiment_refuses_another_seed_in_the_same_file(tmp_path: Path) -> None:
    path = tmp_path / "x.json"
    run_experiment(EXPERIMENTS["12"], 5, 0, path, say=lambda _: None)
    with pytest.raises(ValueError, match="holds session 12, --seed 0"):
        run_experiment(EXPERIMENTS["12"], 5, 1, path, say=lambda _: None)


def test_main_prints_json_with_a_verdict_per_comparison(tmp_path: Path) -> None:
    out = io.StringIO()
    code = main(
        ["04", "--orders", "12", "--seed", "2", "--json", "--out", str(tmp_path / "r.json")], out
    )
    data = json.loads(out.getvalue())
    assert code == 0 and data["runs_on"] == "scripted stand-ins"
    assert [c["b"] for c in data["comparisons"]] == ["json_object", "json_schema"]
    assert all(c["verdict"] in VERDICTS for c in data["comparisons"])


def test_main_unknown_session_exits_2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["05"]) == 2
    assert "no experiment for session '05'" in capsys.readouterr().err
    assert main(["10"]) == 2


def test_cafe_experiment_command_runs_the_module(tmp_path: Path) -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "cafe",
            "experiment",
            "07",
            "--orders",
            "10",
            "--out",
            str(tmp_path / "e.json"),
        ],
        capture_output=True,
        text=True,
        env={**__import__("os").environ, "CAFE_ENV_FILE": "", "COURSE_MODE": "offline"},
    )
    assert done.returncode == 0, done.stderr
    assert "10 of 10 orders" in done.stdout and "95% interval" in done.stdout


def test_main_all_runs_every_experiment_with_a_plot_beside_each_file(tmp_path: Path) -> None:
    out = io.StringIO()
    assert main(["all", "--orders", "3", "--out", str(tmp_path)], out) == 0
    for session in EXPERIMENTS:
        saved = json.loads((tmp_path / f"s{session}.json").read_text(encoding="utf-8"))
        assert saved["session"] == session and saved["stopped"] is None
        assert (tmp_path / f"s{session}.png").read_bytes().startswith(b"\x89PNG")
    assert out.getvalue().count("runs on: scripted stand-ins") == len(EXPERIMENTS)


def test_main_refuses_an_out_that_is_not_a_file_and_too_many_orders(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder (or a device such as /dev/null) given as --out is refused before anything is
    written: replacing it would destroy it. So is an order count no endpoint could answer."""
    assert main(["07", "--orders", "2", "--out", str(tmp_path)]) == 2
    assert "is not a file" in capsys.readouterr().err and tmp_path.is_dir()
    assert main(["07", "--orders", str(10**30), "--out", str(tmp_path / "x.json")]) == 2
    assert "give from 1 to 10,000 orders" in capsys.readouterr().err


def test_plot_goes_beside_the_results_and_never_over_them(tmp_path: Path) -> None:
    from cafe.evals.experiment_program import plot_path

    assert plot_path(tmp_path / "r.json") == tmp_path / "r.png"
    assert plot_path(tmp_path / "r.png") == tmp_path / "r.png.png"
    assert main(["07", "--orders", "2", "--out", str(tmp_path / "r.png")], io.StringIO()) == 0
    assert json.loads((tmp_path / "r.png").read_text())["session"] == "07"


def test_main_with_a_wrong_course_mode_exits_2_naming_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("COURSE_MODE", "bogus")
    assert main(["07", "--orders", "1"]) == 2
    assert "COURSE_MODE is 'bogus'" in capsys.readouterr().err
