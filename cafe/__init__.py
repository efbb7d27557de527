"""cafe: the package behind The Agent Harness Path.

One module per session concept, each read beside its lesson:

- `cafe.loop` (with `cafe.tools`)   session 01: the agent loop, tools from plain functions;
- `cafe.menu`                       session 03: the trusted menu (prices, allergens, 86'd list);
- `cafe.schema`                     session 04: the ticket contract and its strict JSON schema;
- `cafe.detect`                     session 06: unsafe, off-menu, 86'd, out-of-scope, injection;
- `cafe.repair` (with `cafe.lottery`) session 07: the bounded re-ask;
- `cafe.workbench`                  the till project sessions 13 to 15 really edit and test;
- `cafe.stall`                      session 13: the evidence-aware repair loop;
- `cafe.facts`, `cafe.governor`     session 14: host-supplied facts and the pure pace decision;
- `cafe.pacing`                     session 14: the host side that runs the pace decision in the loop;

plus the shared plumbing every session uses:

- `cafe.config`   which mode we are in (`COURSE_MODE`) and the live endpoint's settings;
- `cafe.client`   `make_client()`: a scripted model offline, `openai.OpenAI` live;
- `cafe.scripted` the scripted model itself, shared by offline runs and `cafe serve`;
- `cafe.serve`    a local OpenAI-compatible HTTP endpoint for rehearsing live mode;
- `cafe.health`   `doctor()`: is the endpoint usable, and if not, how to fix it;
- `cafe.progress` the progress file: where it lives, atomic writes, a damaged file set aside;
- `cafe.course`   the notebook toolkit: predict, compare, checkpoint, and reveal (re-exported);
- `cafe.reveal`   the reveal switch: an answer or a function's source, read only when flipped;
- `cafe.cells`    what the notebook cells share: the course key, headless text, widget display;

Importing `cafe` is deliberately cheap: `openai`, `ipywidgets` and Jupyter are imported only by
the functions that need them.
"""

from __future__ import annotations

from typing import Any

from cafe.client import make_client
from cafe.config import OFFLINE_MODEL, course_mode, live_settings, mask_key, model_name
from cafe.errors import CafeError, ConfigError, EndpointError, RequestRejected, ScriptExhausted

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
    """Check the course set-up and the model endpoint; see `cafe.health.doctor` for the details."""
    from cafe.health import doctor as run_doctor

    return run_doctor(**kwargs)
