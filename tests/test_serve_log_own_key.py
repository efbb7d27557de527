"""`cafe serve --log` masks the key the server holds itself, in every form the course's redactor
masks, even in a shell with no CAFE_API_KEY (reader BF, F4: C75).

The oracle is written here: the key, and its base64 (at each of three alignments, standard and
URL-safe), hex and percent-encoded spellings, as the test itself computes them, never appear in
what the log printed, wherever a client put them (the path or the query string).
"""

from __future__ import annotations

import base64
import http.client
import os
import string

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cafe.endpoint.server.serve import running_server

READER_KEY = "Zq9vRtY7uIoP3aS5dF8"


def forms(key: str) -> list[str]:
    """The key's spellings a client might put in a URL, as this test computes them."""
    raw = key.encode()
    spelled = [key, raw.hex(), "".join(f"%{b:02X}" for b in raw)]
    for prefix in (b"", b"x", b"xy"):
        for encode in (base64.b64encode, base64.urlsafe_b64encode):
            spelled.append(encode(prefix + raw).decode().rstrip("="))
    return spelled


def _logged(key: str, capfd: pytest.CaptureFixture[str]) -> str:
    """What `--log` printed while a client asked for the key in each form, in the path and in
    the query string, with no key in its headers (so every request is refused, and logged)."""
    capfd.readouterr()
    with running_server(api_key=key, log_requests=True) as server:
        host, port = server.server_address[:2]
        for spelled in forms(key):
            for target in (f"/v1/models/{spelled}", f"/v1/models?key={spelled}"):
                connection = http.client.HTTPConnection(str(host), int(port), timeout=5)
                try:
                    connection.request("GET", target)
                    connection.getresponse().read()
                finally:
                    connection.close()
    return capfd.readouterr().err


@pytest.fixture
def no_key_in_shell(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in [n for n in os.environ if n.endswith(("_KEY", "_TOKEN", "_SECRET"))]:
        monkeypatch.delenv(name)


def _leaks(key: str, printed: str) -> list[str]:
    assert printed.count("cafe serve:") == 2 * len(forms(key)), printed  # one line a request
    return [spelled for spelled in forms(key) if spelled.lower() in printed.lower()]


@settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))
@given(key=st.text(string.ascii_letters + string.digits + "-_", min_size=12, max_size=40))
def test_the_servers_own_key_never_reaches_its_log_in_any_form(key, capfd, no_key_in_shell):
    assert _leaks(key, _logged(key, capfd)) == []


@pytest.mark.parametrize(
    "key",
    [
        READER_KEY,  # the reader's case (C75)
        "sk-local-9f8e7d6c5b4a3210",  # one more: a key shaped like a hosted one
    ],
)
def test_reader_bf_c75_serve_log_masks_its_api_key(key, capfd, no_key_in_shell):
    assert _leaks(key, _logged(key, capfd)) == []
