"""`cafe capstone check` offline prints nothing that holds the API key (reader AA).

The course's rule: everything it prints passes the redactor, whatever printed it. `--live` did
that already; offline, a harness whose error quoted CAFE_API_KEY (a learner's own code, or an SDK
error it let through) was printed as it was. Both ways out are checked: a harness that raises
while the grader runs it, and a harness file that cannot even be loaded.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cafe.capstone.grader import main

KEY = "sk-offline-capstone-key-0123456789abcdef"

RAISES = "import os\n\ndef run_restock(env):\n    raise RuntimeError('key ' + os.environ['CAFE_API_KEY'])\n"
BROKEN = "import os\n\nraise ImportError('cannot start with key ' + os.environ['CAFE_API_KEY'])\n"


@pytest.mark.parametrize(("source", "status"), [(RAISES, 1), (BROKEN, 2)], ids=["raises", "broken"])
def test_offline_check_masks_a_key_the_harness_quotes(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    source: str,
    status: int,
) -> None:
    monkeypatch.setenv("CAFE_API_KEY", KEY)
    harness = tmp_path / "harness.py"
    harness.write_text(source, encoding="utf-8")
    assert main([str(harness), "--seed", "1", "--scenarios", "1", "--no-bank"]) == status
    printed = capsys.readouterr()
    shown = printed.out + printed.err
    assert KEY not in shown and KEY[-8:] not in shown, shown[-400:]
    assert "key" in shown  # the message itself is still there, masked
