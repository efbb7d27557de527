"""cafe: the package behind The Agent Harness Path.

The folder is the course's table of contents. Each session's concept is one module or one topic
package, read beside its lesson, in session order:

    loop/ (01)  evals/ (02)  context.py (03)  schema/ (04)  consent/ (05)  detect/ (06)
    repair/ (07)  trace/ (08)  report/ (09)  taxonomy.py (10)  routing/ (11)  judge/ (12)
    stall/ (13)  governor/ (14)  monitors/ (15)

A topic package's `__init__` names its session and lists its files in reading order. Beside them
sit two shelves that are not harness code: `cafe.world` (the café's menu, its till, and the small
project the late sessions work in) and `cafe.stories` (the scripted stand-ins that play the model
in the notebooks' stories). Which session teaches which module is declared once, in
`cafe.course.syllabus` (the README's sessions table and the site are checked against it).

Then the machinery that runs the course (read it when you are curious, not for a lesson):

- `cafe.endpoint`  config, errors, the client, the scripted model, `cafe serve` and the doctor;
- `cafe.course`    the notebook toolkit: predict, reveal, compare, checkpoint, the progress file;
- `cafe.exercises` the your-turn checkers, one module per session, apart from the code they check.

Importing `cafe` is deliberately cheap: `openai`, `ipywidgets` and Jupyter are imported only by
the functions that need them.
"""

from __future__ import annotations

from typing import Any

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.errors import (
    CafeError,
    ConfigError,
    EndpointError,
    RequestRejected,
    ScriptExhausted,
)
from cafe.endpoint.settings.config import (
    OFFLINE_MODEL,
    course_mode,
    live_settings,
    mask_key,
    model_name,
)

__version__ = "0.1.0"

__all__ = [
    "__version__",
    "doctor",
    "make_client",
    "course_mode",
    "live_settings",
    "model_name",
    "mask_key",
    "OFFLINE_MODEL",
    "CafeError",
    "ConfigError",
    "EndpointError",
    "RequestRejected",
    "ScriptExhausted",
]


def doctor(**kwargs: Any) -> Any:
    """Check the course set-up and the model endpoint; see `cafe.endpoint.doctor.health.doctor` for the details."""
    from cafe.endpoint.doctor.health import doctor as run_doctor

    return run_doctor(**kwargs)
