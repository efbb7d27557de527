"""One line that says what a notebook is talking to: which model at which endpoint, or offline and why.

A notebook's kernel runs in `work/` or `notebooks/`, not where you typed `cafe doctor`, so a
notebook could run offline while the doctor says live, and nothing on the page would show it.
`settings_line()` says it in one line: the mode, where `COURSE_MODE` came from (the environment
or which settings file), and, live, the model and the endpoint's address (a password in the URL
masked, the key never shown). Offline, it says why: `COURSE_MODE` unset, with where the settings
file was looked for, or set to `offline` and where.

`announce()` prints that line inside a Jupyter kernel only, and only when it differs from the last
line this process printed: `cafe.course_mode()` calls it, so the first cell of every notebook
(which asks for the mode) shows the line, and a notebook whose settings change mid-way shows the
new one. Scripts, tests and the command line print nothing from it. `cafe doctor` gives the long
form (`cafe.endpoint.doctor.setup_checks`). Session 00 (`sessions/s00-setup/lesson.md`).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping

from cafe.endpoint.errors import ConfigError
from cafe.endpoint.secrets.redaction import display_url, redact
from cafe.endpoint.settings.environment import SettingsFile, find_env_file
from cafe.endpoint.settings.reading import shown_path
from cafe.endpoint.settings.variables import parse_base_url, parse_mode, parse_model

__all__ = ["settings_line", "in_kernel", "announce"]

# The last line `announce` printed in this process: a new line is printed, a repeat is not.
_last_said: list[str] = []


def _mode_source(environ: Mapping[str, str], file: SettingsFile) -> str:
    """Where `COURSE_MODE` came from, as the line says it (the environment wins over the file)."""
    if "COURSE_MODE" in environ or file.path is None:
        return "the environment"
    return shown_path(file.path)


def _live_part(settings: Mapping[str, str]) -> str:
    """ "model 'x' at http://host/v1", or what is missing (the first live call raises the fix)."""
    missing = [n for n in ("CAFE_BASE_URL", "CAFE_MODEL") if not settings.get(n, "").strip()]
    if missing:
        return f"but {' and '.join(missing)} not set (the first live call says the fix)"
    try:
        model = parse_model(settings.get("CAFE_MODEL", ""))
        url = display_url(parse_base_url(settings.get("CAFE_BASE_URL", "")))
    except ConfigError as exc:
        return f"but a live setting is not usable ({str(exc).split('.', 1)[0]})"
    key = "a key is set" if settings.get("CAFE_API_KEY", "").strip() else "no CAFE_API_KEY"
    return f"model {model!r} at {url} ({key})"


def settings_line(
    settings: Mapping[str, str], environ: Mapping[str, str], file: SettingsFile
) -> str:
    """The one line: `settings` is what the course reads (`course_environ()`), `environ` the process
    environment, `file` the settings file looked for (`find_env_file()`)."""
    raw = settings.get("COURSE_MODE", "")
    where = _mode_source(environ, file)
    read = (
        f"settings file {shown_path(file.path)}"
        if file.path is not None
        else f"no settings file: {file.origin}"
    )
    if not raw.strip():
        return (
            f"offline (scripted stand-ins): COURSE_MODE is not set; {read}. "
            "Set COURSE_MODE=live there to use your model."
        )
    mode = parse_mode(raw)
    if mode == "offline":
        return f"offline (scripted stand-ins): COURSE_MODE=offline in {where}; {read}."
    return redact(f"live: {_live_part(settings)}; COURSE_MODE=live in {where}; {read}.")


def in_kernel() -> bool:
    """True inside a Jupyter kernel (IPython is looked up, never imported: no IPython, no kernel)."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    return getattr(shell, "kernel", None) is not None


def announce(settings: Mapping[str, str], environ: Mapping[str, str]) -> None:
    """Print `settings_line` inside a kernel when it is not the line printed last; never raises
    on a settings file it cannot find (the caller's own reading raises that)."""
    if not in_kernel():
        return
    try:
        line = settings_line(settings, environ, find_env_file(environ))
    except ConfigError:
        return
    if _last_said[-1:] != [line]:
        _last_said[:] = [line]
        print(line)
