"""Pin the versions the test suite last passed with, and check an install against the pins.

    python tools/refresh_constraints.py            write constraints.txt from this environment
                                                   (run the README's test command in it first)
    python tools/refresh_constraints.py --fresh    make build/constraints-venv with the newest
                                                   versions of .[test,otel], run the README's test
                                                   command there, and write the pins only if it passes
    python tools/refresh_constraints.py --check    exit 1 unless this environment matches
                                                   constraints.txt (CI runs it after installing
                                                   with `pip install -c constraints.txt ...`)

What is pinned: the course's own requirements (the core set and the `test` and `otel` extras) and
everything they pull in, found by walking the installed distributions' metadata from `cafe`
outward, with each requirement's environment markers evaluated here. Nothing else in the
environment is pinned, and neither is `cafe` itself nor pip.

The file is for the Python and the platform it was written on; its first lines say which. Pins of
packages another platform does not install are ignored there by pip, and packages only another
platform needs (colorama on Windows, for instance) stay unpinned. Several pinned versions need
Python 3.11 or newer, so on 3.10 the course installs without the constraints.

`--check` fails when an installed version differs from its pin, when a distribution the course
pulls in has no pin (a new dependency: refresh the file), or when `pip check` finds a broken
requirement. It also says when it runs under another Python than the file was written for.
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
CONSTRAINTS = ROOT / "constraints.txt"
FRESH_VENV = ROOT / "build" / "constraints-venv"
PROJECT = "cafe"
# The extras the pins cover: the README installs [test]; [otel] is session 08's exporter. [dev]
# (pre-commit) and [local] (a 20-minute compile) are left to their users.
EXTRAS = ("test", "otel")
# The README's test command (Quickstart, second block), as arguments to `python -m`.
TEST_COMMAND = ("pytest", "-n", "auto", "--dist", "loadfile", "--nbval-lax", "--nbval-current-env")
_PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==(\S+)$")
_HEADER_PYTHON = re.compile(r"^# Python (\d+\.\d+)")


def normalize(name: str) -> str:
    """A distribution name as PEP 503 compares them: 'Jinja2', 'jinja2' and 'jinja_2' alike."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Pin:
    """One line of constraints.txt: a distribution and its exact version."""

    name: str  # as the distribution spells it, e.g. "Jinja2"
    version: str

    @property
    def key(self) -> str:
        return normalize(self.name)

    def line(self) -> str:
        return f"{self.name}=={self.version}"


def read_pins(path: Path = CONSTRAINTS) -> dict[str, Pin]:
    """{normalized name: Pin} from a constraints file; ValueError naming a line that is not a pin."""
    pins: dict[str, Pin] = {}
    for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        match = _PIN.match(line)
        if match is None:
            raise ValueError(f"{path.name}, line {number}: {raw!r} is not `name==version`")
        pin = Pin(match.group(1), match.group(2))
        pins[pin.key] = pin
    return pins


def written_for(path: Path = CONSTRAINTS) -> str | None:
    """The Python version ("3.11") the file's header says it was written for, if it says."""
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _HEADER_PYTHON.match(line)
        if match:
            return match.group(1)
    return None


def _wanted(requirement: Requirement, extras: Iterable[str]) -> bool:
    """Whether a requirement applies here, for a distribution installed with these extras."""
    if requirement.marker is None:
        return True
    environment = dict(default_environment())
    return any(
        requirement.marker.evaluate({**environment, "extra": extra}) for extra in ("", *extras)
    )


def closure(project: str = PROJECT, extras: Sequence[str] = EXTRAS) -> list[Pin]:
    """Every installed distribution `project[extras]` pulls in, sorted by name, with its version.

    Raises LookupError naming a requirement that applies here but is not installed.
    """
    found: dict[str, Pin] = {}
    seen: set[tuple[str, tuple[str, ...]]] = set()
    todo: list[tuple[str, tuple[str, ...], str]] = [(project, tuple(extras), "")]
    while todo:
        name, wanted_extras, needed_by = todo.pop()
        if (normalize(name), wanted_extras) in seen:
            continue
        seen.add((normalize(name), wanted_extras))
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            raise LookupError(
                f"{name} is required{needed_by} but not installed; "
                f'install the course first: pip install -e ".[{",".join(EXTRAS)}]"'
            ) from None
        key = normalize(dist.metadata["Name"])
        if key != normalize(project):
            found[key] = Pin(dist.metadata["Name"], dist.version)
        for text in dist.requires or []:
            requirement = Requirement(text)
            if _wanted(requirement, wanted_extras):
                todo.append((requirement.name, tuple(requirement.extras), f" by {key}"))
    return sorted(found.values(), key=lambda pin: pin.key)


def render(pins: Sequence[Pin], today: str) -> str:
    """The text of constraints.txt: a header saying what it is for, then one pin a line."""
    python = ".".join(platform.python_version_tuple()[:2])
    header = [
        f"# Python {python} on {platform.system()}: the versions the test suite last passed with,",
        f"# written {today} by `python tools/refresh_constraints.py` (the course's requirements,",
        f"# extras {', '.join(EXTRAS)}, and everything they pull in). Install with:",
        '#   pip install -c constraints.txt -e ".[test]"',
        "# On Python 3.10, install without -c: several of these versions need 3.11.",
    ]
    return "\n".join([*header, *(pin.line() for pin in pins)]) + "\n"


def write(path: Path = CONSTRAINTS) -> int:
    """Pin this environment's closure of the course's requirements into `path`."""
    try:
        pins = closure()
    except LookupError as exc:
        print(f"refresh_constraints: {exc}", file=sys.stderr)
        return 1
    path.write_text(render(pins, time.strftime("%Y-%m-%d")), encoding="utf-8", newline="\n")
    print(f"wrote {path.name}: {len(pins)} pins for Python {platform.python_version()}")
    return 0


def problems(path: Path = CONSTRAINTS) -> list[str]:
    """What stops this environment from matching the pins (an empty list when it matches)."""
    pins = read_pins(path)
    found: list[str] = []
    try:
        needed = closure()
    except LookupError as exc:
        return [str(exc)]
    for pin in needed:
        if pin.key not in pins:
            found.append(f"{pin.name} {pin.version} is installed for the course but not pinned")
        elif pins[pin.key].version != pin.version:
            pinned = pins[pin.key].version
            found.append(f"{pin.name} {pin.version} is installed; {path.name} pins {pinned}")
    return found


def _pip_check() -> list[str]:
    done = subprocess.run(
        [sys.executable, "-m", "pip", "check"], capture_output=True, text=True, check=False
    )
    if done.returncode == 0:
        return []
    return [f"pip check: {line}" for line in done.stdout.splitlines() if line.strip()]


def check(path: Path = CONSTRAINTS) -> int:
    """CI's check: the installed set is exactly the pinned one, and pip finds nothing broken."""
    expected = written_for(path)
    running = ".".join(platform.python_version_tuple()[:2])
    if expected and expected != running:
        print(f"note: {path.name} was written for Python {expected}; this is Python {running}")
    found = problems(path) + _pip_check()
    for line in found:
        print(f"constraints: {line}", file=sys.stderr)
    if found:
        print(
            "The installed set differs from constraints.txt. After the README's test command "
            "passes in an environment, `python tools/refresh_constraints.py` pins it.",
            file=sys.stderr,
        )
        return 1
    print(f"constraints: the installed set matches {path.name} ({len(read_pins(path))} pins)")
    return 0


def _venv_python(venv: Path) -> Path:
    return venv / ("Scripts/python.exe" if sys.platform == "win32" else "bin/python")


def fresh(venv: Path = FRESH_VENV) -> int:
    """A new venv with the newest versions; the README's test command; the pins only if it passes."""
    subprocess.run([sys.executable, "-m", "venv", "--clear", str(venv)], check=True)
    python = str(_venv_python(venv))
    subprocess.run([python, "-m", "pip", "install", "-q", "--upgrade", "pip"], check=True)
    install = [python, "-m", "pip", "install", "-q", "-e", f".[{','.join(EXTRAS)}]"]
    subprocess.run(install, cwd=ROOT, check=True)
    print("running the README's test command with the newest versions ...", flush=True)
    if subprocess.run([python, "-m", *TEST_COMMAND], cwd=ROOT, check=False).returncode != 0:
        print("the suite failed with the newest versions; constraints.txt is unchanged")
        return 1
    return subprocess.run([python, str(Path(__file__).resolve())], check=False).returncode


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="tools/refresh_constraints.py", description=__doc__.split("\n\n")[0]
    )
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument(
        "--fresh",
        action="store_true",
        help="newest versions in a new venv, pinned if the suite passes",
    )
    mode.add_argument(
        "--check", action="store_true", help="exit 1 unless this environment matches the pins"
    )
    args = parser.parse_args(argv)
    if args.check:
        if not CONSTRAINTS.exists():
            print(
                f"refresh_constraints: {CONSTRAINTS.name} is missing; run this script to write it"
            )
            return 1
        return check()
    if args.fresh:
        return fresh()
    return write()


if __name__ == "__main__":
    raise SystemExit(main())
