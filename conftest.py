"""Test-suite set-up shared by `tests/` and the nbval run over `notebooks/`.

Set before any test or notebook kernel starts (kernels inherit this process's environment):

- offline mode, whatever the instructor's shell says, so every run is scripted and repeatable;
- `CAFE_HEADLESS=1`, so widget cells print their fixed plain-text form;
- `CAFE_HOME` in a fresh temporary folder, so no test touches the learner's real progress file.

Hypothesis runs derandomized: the same examples on every run, so a property test cannot pass on
one machine and fail on the next by luck. Set HYPOTHESIS_PROFILE=explore to search afresh.
"""

import os
import tempfile

for _name in ("COURSE_MODE", "CAFE_BASE_URL", "CAFE_API_KEY", "CAFE_MODEL"):
    os.environ.pop(_name, None)
os.environ["CAFE_HEADLESS"] = "1"
os.environ["CAFE_HOME"] = tempfile.mkdtemp(prefix="cafe-home-")

try:
    from hypothesis import settings as _hypothesis_settings
except ImportError:  # the test extra is not installed; the tests will say so themselves
    pass
else:
    _hypothesis_settings.register_profile("course", derandomize=True, deadline=None)
    _hypothesis_settings.register_profile("explore", deadline=None)
    _hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "course"))

# nbval waits at most 5 s for a cell's outputs once the kernel has said the cell is done (a fixed
# attribute of its cell items, not a command-line option). On a loaded machine a kernel can take
# longer than that to send them, and a notebook that is fine fails "waiting for output"; a
# minute is still short enough to report a kernel that really hangs.
NBVAL_OUTPUT_WAIT_S = 60


def pytest_collection_modifyitems(items):
    for item in items:
        if isinstance(getattr(item, "output_timeout", None), (int, float)):
            item.output_timeout = max(item.output_timeout, NBVAL_OUTPUT_WAIT_S)
