"""The package surface: `import cafe` stays light, and the command line is wired."""

import subprocess
import sys

import pytest

import cafe
from cafe.cli import find_toy, main


def _run(code: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout


def test_import_cafe_does_not_import_heavy_libraries():
    loaded = _run("import sys, cafe; print(' '.join(sorted(sys.modules)))").split()
    for heavy in ("openai", "ipywidgets", "IPython", "jupyter_client", "httpx", "pydantic"):
        assert heavy not in loaded, f"`import cafe` imported {heavy}"


def test_import_cafe_reads_no_environment_variable():
    # A bad COURSE_MODE must not break the import; it is an error only when a mode is needed.
    out = subprocess.run(
        [sys.executable, "-c", "import cafe; print('ok')"],
        capture_output=True,
        text=True,
        env={"COURSE_MODE": "sideways", "PATH": ""},
    ).stdout
    assert out.strip() == "ok"


def test_public_names_exist():
    for name in cafe.__all__:
        assert hasattr(cafe, name), name


def test_python_dash_m_cafe_shows_the_subcommands():
    out = subprocess.run(
        [sys.executable, "-m", "cafe", "--help"], capture_output=True, text=True
    ).stdout
    for command in ("doctor", "toy", "serve"):
        assert command in out


@pytest.mark.parametrize("spelling", ["0", "00", "s00", "S0"])
def test_find_toy_accepts_the_usual_spellings(spelling):
    assert find_toy(spelling).name == "toy.py"
    assert find_toy(spelling).parent.name.startswith("s00-")


def test_find_toy_rejects_a_non_number():
    with pytest.raises(ValueError, match="not a session number"):
        find_toy("seven")


def test_cafe_toy_unknown_session_lists_the_available_ones(capsys):
    assert main(["toy", "99"]) == 2
    err = capsys.readouterr().err
    assert "No toy for session 99" in err and "s00-setup" in err


def test_cafe_toy_without_a_number_says_only_the_number_is_required(capsys):
    assert main(["toy"]) == 2
    err = capsys.readouterr().err
    assert "usage: cafe toy [-h] number [toy_args ...]" in err
    assert "cafe toy 07" in err
    assert "toy_args" not in err.split("\n", 1)[1]  # only the usage line mentions them, as optional


def test_cafe_toy_passes_what_follows_the_number_to_the_toy(monkeypatch):
    calls = []
    monkeypatch.setattr("cafe.cli.subprocess.call", lambda command: calls.append(command) or 0)
    assert main(["toy", "00", "--flag", "x"]) == 0
    assert calls[0][-3:] == [str(find_toy("00")), "--flag", "x"]


@pytest.mark.parametrize("value", ["0", "-3", "soon"])
def test_cafe_doctor_timeout_must_be_a_positive_number(value, capsys):
    with pytest.raises(SystemExit) as caught:
        main(["doctor", "--timeout", value])
    assert caught.value.code == 2
    assert "not a positive number of seconds" in capsys.readouterr().err


def test_import_cafe_then_every_plumbing_module_stays_light():
    # The modules a notebook imports first must not drag the SDK or the widgets in either.
    code = (
        "import sys, cafe, cafe.endpoint.settings.config, cafe.endpoint.client.chat, cafe.course, cafe.course.progress, cafe.endpoint.client.scripted; "
        "print(' '.join(sorted(sys.modules)))"
    )
    loaded = _run(code).split()
    for heavy in ("openai", "ipywidgets", "IPython"):
        assert heavy not in loaded, f"importing the plumbing imported {heavy}"
