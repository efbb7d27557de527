"""cafe.endpoint.doctor.setup_checks: the doctor checks what the sessions run on this machine, and the settings.

Sessions 13-15 run real tests (pytest), keep the agent's project in a git work tree, and session
15 runs shell commands with bash; the doctor names whichever is missing, with how to install it.
The lookups are parameters, so these tests play machines without them.
"""

from __future__ import annotations

import io
import re
import subprocess
from importlib import metadata
from pathlib import Path
from types import SimpleNamespace

import pytest

from cafe.cli import main, version_text
from cafe.endpoint.doctor import setup_checks
from cafe.endpoint.doctor.health import doctor
from cafe.endpoint.doctor.setup_checks import PACKAGES, Lookups

ROOT = Path(__file__).resolve().parent.parent


def run(lookups: Lookups | None = None, **env: str):
    out = io.StringIO()
    report = doctor(environ=env, out=out, lookups=lookups)
    return {c.name: c for c in report.checks}, out.getvalue()


def test_doctor_checks_pytest_git_and_bash_on_this_machine():
    checks, text = run()
    for name in ("pytest", "git", "shell", "settings"):
        assert checks[name].ok, text
    assert "pytest" in PACKAGES and "pytest" in checks["packages"].detail
    assert checks["git"].detail.startswith("git version")


def _no(name: str):
    return lambda wanted: None if wanted == name else f"/usr/bin/{wanted}"


def _git_runs(args, **kwargs):
    return SimpleNamespace(returncode=0, stdout="git version 2.99.0\n")


@pytest.mark.parametrize(
    ("lookups", "failed", "fix"),
    [
        (Lookups(which=_no("git"), run=_git_runs), "git", "Install git"),
        (Lookups(which=_no("bash"), run=_git_runs), "shell", "Install bash"),
        (Lookups(find_spec=lambda name: None, run=_git_runs), "pytest", 'pip install -e ".[test]"'),
    ],
)
def test_a_missing_tool_is_named_with_how_to_install_it(lookups, failed, fix):
    checks, text = run(lookups)
    assert not checks[failed].ok and fix in checks[failed].fix
    assert all(checks[n].ok for n in ("pytest", "git", "shell") if n != failed), text
    assert "Traceback" not in text


def test_git_that_does_not_run_is_not_counted_as_there():
    def broken(args, **kwargs):
        raise subprocess.TimeoutExpired(args, 5)

    checks, _ = run(Lookups(run=broken))
    assert not checks["git"].ok and "does not run" in checks["git"].detail


def test_the_settings_line_names_a_bad_variable_in_one_line():
    checks, _ = run(CAFE_MAX_TOKENS="²", CAFE_HEADLESS="maybe")
    detail = checks["settings"].detail
    assert not checks["settings"].ok
    assert "CAFE_MAX_TOKENS is '²'" in detail and "CAFE_HEADLESS is 'maybe'" in detail


def test_the_settings_line_says_a_dot_env_file_was_read(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CAFE_ENV_FILE", raising=False)
    (tmp_path / ".env").write_text("CAFE_MAX_TOKENS=512\n", encoding="utf-8")
    out = io.StringIO()
    report = doctor(out=out)
    (settings,) = [c for c in report.checks if c.name == "settings"]
    assert settings.ok and f"then {tmp_path / '.env'} (the nearest .env " in settings.detail
    assert "the environment wins)" in settings.detail
    assert "replies capped" not in out.getvalue() or "512" in out.getvalue()


def test_cafe_env_file_naming_no_file_is_a_failed_check_not_a_traceback(monkeypatch, tmp_path):
    monkeypatch.setenv("CAFE_ENV_FILE", str(tmp_path / "missing.env"))
    out = io.StringIO()
    report = doctor(out=out)
    (settings,) = [c for c in report.checks if c.name == "settings"]
    assert not settings.ok and "CAFE_ENV_FILE" in settings.detail


def test_cafe_version_names_the_version_python_and_where_cafe_is(capsys):
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    out = capsys.readouterr().out
    assert out.strip() == version_text()
    assert out.startswith("cafe 0.1.0 (Python 3.") and "/cafe)" in out


# --- every hint for a missing package installs it ------------------------------------------------

# `pip install -e .` or `pip install -e ".[a,b]"`, as a hint writes it between backticks.
INSTALL = re.compile(r'`pip install -e (?:\.|"\.\[([a-z0-9_,-]+)\]")`')


def _name(requirement: str) -> str:
    """A requirement's distribution name, normalised as pip compares them (PEP 503)."""
    match = re.match(r"[A-Za-z0-9._-]+", requirement.strip())
    assert match, requirement
    return re.sub(r"[-_.]+", "-", match.group(0)).lower()


def _installed_by(hint: str) -> set[str]:
    """The distributions the install command in `hint` brings, read from pyproject.toml."""
    tomllib = pytest.importorskip("tomllib")  # Python 3.11 and later
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    (match,) = INSTALL.finditer(hint)
    extras = match.group(1).split(",") if match.group(1) else []
    wanted = list(project["dependencies"])
    for extra in extras:
        wanted += project["optional-dependencies"][extra]  # an extra pyproject lacks: KeyError
    return {_name(project["name"])} | {_name(r) for r in wanted}


def _missing(*names: str) -> SimpleNamespace:
    """importlib.metadata as the doctor sees it on a machine without `names`."""

    def version(name: str) -> str:
        if name in names:
            raise metadata.PackageNotFoundError(name)
        return metadata.version(name)

    return SimpleNamespace(version=version, PackageNotFoundError=metadata.PackageNotFoundError)


@pytest.mark.parametrize("names", [(name,) for name in PACKAGES] + [PACKAGES])
def test_the_fix_for_a_missing_package_names_a_command_that_installs_it(monkeypatch, names):
    monkeypatch.setattr(setup_checks, "metadata", _missing(*names))
    checks, text = run(Lookups(run=_git_runs))
    packages = checks["packages"]
    assert not packages.ok and all(f"{name} (not installed)" in packages.detail for name in names)
    brought = _installed_by(packages.fix)
    assert {_name(name) for name in names} <= brought, (packages.fix, names)


def test_the_fix_for_pytest_that_cannot_be_imported_installs_it():
    checks, _ = run(Lookups(find_spec=lambda name: None, run=_git_runs))
    assert _name("pytest") in _installed_by(checks["pytest"].fix)


def test_every_extra_the_doctor_names_is_in_pyproject():
    for extra in setup_checks.EXTRA_OF.values():
        assert _installed_by(f'`pip install -e ".[{extra}]"`')
