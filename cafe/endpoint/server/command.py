"""`cafe serve` as a command: the script it answers from, the banner it prints, and Ctrl-C.

`serve_forever(...)` binds a `cafe.endpoint.server.serve.CafeServer` answering from the default rule, a
session's rehearsal script (`--session NN`, `cafe.endpoint.scripts.rehearsals`) or a script file
(`--script`), prints a banner with the lines that point the course at it (the key masked), and
serves until Ctrl-C or SIGTERM. A script that cannot be loaded or a port that cannot be bound is
said in one line, with exit status 2, never a traceback. The flags are `cafe.cli`'s. Session 00
(`sessions/s00-setup/lesson.md`) rehearses live mode with it.
"""

from __future__ import annotations

import ipaddress
import signal
import sys
import threading
from typing import Any, TextIO

from cafe.endpoint.client.script import Script
from cafe.endpoint.scripts.rehearsals import session_label, session_script
from cafe.endpoint.secrets.redaction import mask_key
from cafe.endpoint.server.faults import Faults
from cafe.endpoint.server.serve import (
    DEFAULT_HOST,
    DEFAULT_PORT,
    POLL_INTERVAL_S,
    CafeServer,
    make_server,
)

__all__ = ["serve_forever", "banner"]


def banner(server: CafeServer, api_key: str | None) -> str:
    """What `cafe serve` prints on start: where it listens, what it answers from, and lines to copy.

    Every line in the copyable block works as it stands. With `--api-key` the key cannot be one of
    them (it is never printed), so the block leaves CAFE_API_KEY out and a sentence after it says
    to set it: copying the block then gets the doctor's "CAFE_API_KEY is not set", never a 401.
    """
    exports = [
        "export COURSE_MODE=live",
        f"export CAFE_BASE_URL={server.base_url}",
        f"export CAFE_MODEL={server.script.models[0]}",
    ]
    if api_key is None:
        exports.insert(2, "export CAFE_API_KEY=sk-local    # any text: this server checks no key")
        key_note, after = "any key is accepted", []
    else:
        masked = mask_key(api_key)
        key_note = f"requests must carry the key you gave --api-key ({masked})"
        after = [
            f"Also set CAFE_API_KEY to the key you gave --api-key ({masked}): it is not printed",
            "here, and any other key gets 401.",
        ]
    lines = [
        f"cafe serve: a scripted OpenAI-compatible endpoint at {server.base_url}",
        f"Models: {', '.join(server.script.models)}; {key_note}.",
        f"Replies: {_replies_note(server.label)}.",
        "To point the course at it, run these in another terminal:",
        "",
        *(f"  {line}" for line in exports),
        "",
        *after,
        "Then run `cafe doctor` to check. Press Ctrl-C to stop.",
    ]
    if not ipaddress.ip_address(str(server.server_address[0])).is_loopback:
        lines.append(
            "Note: this server listens beyond loopback; "
            "anyone who can reach this machine can use it."
        )
    return "\n".join(lines)


def _replies_note(label: str) -> str:
    if label == "default":
        return (
            "the default rule (the first tool offered, smallest arguments); --session NN fits a toy"
        )
    if label.startswith("session-"):
        return (
            f"the script for session {label.removeprefix('session-')}'s toy and notebook; "
            "cafe doctor's probes get the default rule, so the doctor checks this server, not the "
            "script"
        )
    return "your script file"


def _chosen_script(script_path: str | None, session: str | None) -> tuple[Script, str]:
    """The script `cafe serve` answers from, and its label: --script, --session, or the default rule."""
    if script_path and session:
        raise ValueError("give --script or --session, not both.")
    if session:
        return session_script(session), session_label(session)
    return (Script.from_file(script_path), "script") if script_path else (Script(), "default")


def _raise_interrupt(signum: int, frame: Any) -> None:
    raise KeyboardInterrupt


def _bind(
    script_path: str | None, session: str | None, settings: dict[str, Any]
) -> CafeServer | None:
    """The server `cafe serve` runs, bound; None after saying on stderr why it could not be."""
    host, port = settings.get("host", DEFAULT_HOST), settings.get("port", DEFAULT_PORT)
    try:
        script, label = _chosen_script(script_path, session)
        return make_server(script, label=label, **settings)
    except ValueError as exc:
        print(f"cafe serve: {exc}", file=sys.stderr)
    except PermissionError as exc:
        print(
            f"cafe serve: not allowed to listen on {host}:{port} ({exc.strerror or exc}). Ports below "
            "1024 usually need administrator rights; pick one above 1024 with --port.",
            file=sys.stderr,
        )
    except (OSError, OverflowError) as exc:
        reason = getattr(exc, "strerror", None) or exc
        print(
            f"cafe serve: could not listen on {host}:{port} ({reason}). Is another server using "
            "that port? Pick another with --port, or --port 0 for any free one.",
            file=sys.stderr,
        )
    return None


def _stop_signals() -> dict[int, Any]:
    """Make Ctrl-C and SIGTERM both mean "stop cleanly", even if our parent started us ignoring
    SIGINT; returns the handlers to put back. Only the main thread may set handlers."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    return {sig: signal.signal(sig, _raise_interrupt) for sig in (signal.SIGINT, signal.SIGTERM)}


def serve_forever(
    *,
    host: str = DEFAULT_HOST,
    port: int = DEFAULT_PORT,
    api_key: str | None = None,
    script_path: str | None = None,
    session: str | None = None,
    log_requests: bool = False,
    faults: Faults | None = None,
    out: TextIO | None = None,
) -> int:
    """`cafe serve`: answer HTTP requests until Ctrl-C (or SIGTERM), then return 0. `session` ("01")
    answers from that session's rehearsal script instead of the default rule.
    Returns 2 when the script file cannot be loaded or the port cannot be bound, after saying why.
    """
    out = out or sys.stdout
    server = _bind(
        script_path,
        session,
        {
            "host": host,
            "port": port,
            "api_key": api_key,
            "log_requests": log_requests,
            "faults": faults,
        },
    )
    if server is None:
        return 2
    previous = _stop_signals()
    print(banner(server, api_key), file=out, flush=True)
    if faults is not None:
        print(f"Misbehaving on purpose: {faults}.", file=out, flush=True)
    try:
        server.serve_forever(poll_interval=POLL_INTERVAL_S)
    except KeyboardInterrupt:
        pass
    finally:
        server.stopping.set()
        server.server_close()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    print("\ncafe serve: stopped. Goodbye from the café.", file=out, flush=True)
    return 0
