"""What recording costs: a 100-attempt offline re-ask, with and without its trace.

    python benchmarks/trace_overhead.py              # prints the ratios; target under 1.10
    python benchmarks/trace_overhead.py --repeats 9

The run is session 07's worked example stretched to 100 attempts: table 4 orders the 86'd
cheese omelette, and the drafts alternate between a ticket with no table and a complete ticket
for the omelette, so no attempt passes and all 100 are spent. It runs two ways:

- `client`: the drafts come from the scripted endpoint through `make_model_generator`, the path
  every live run takes (the recorder wraps the client, so each model call is a GenAI span
  with the messages sent and received);
- `generator`: the drafts come straight from `make_scripted_generator`, with no client at all,
  so the run itself is as cheap as it gets and recording is the largest share of it.

Each is timed plain (`repair_ticket`) and recorded (`cafe.trace.record_repair`, which also
builds the `Trace`). A model call's and a check's attributes are built, and their strings
masked, when they are first read (`cafe.trace.spans.DeferredAttributes`), so that work is timed apart,
with writing the file: the last lines print both. Each run is timed in CPU seconds (time the
process spent, not time it waited for a shared core), `--repeats` times, alternating plain and
recorded so the machine's drift hits both; the figure is the ratio of the fastest of each.
"""

from __future__ import annotations

import argparse
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from cafe.endpoint.client.chat import make_client
from cafe.endpoint.client.scripted import Script
from cafe.repair.reask import (
    ALTERNATING_CANDIDATES,
    OMELETTE_SPEC,
    make_model_generator,
    make_scripted_generator,
    repair_ticket,
)
from cafe.trace.record import Recorder, record_repair, write_trace
from cafe.trace.spans import REQUEST_MODEL

ATTEMPTS = 100  # the run the issue names: a 100-attempt offline repair run
TARGET = 1.10  # recording may add at most a tenth to the run


def _client_run(record: bool) -> Callable[[], object]:
    client = make_client(Script(list(ALTERNATING_CANDIDATES), cycle=True))
    if not record:
        return lambda: repair_ticket(OMELETTE_SPEC, make_model_generator(client), cap=ATTEMPTS)

    def recorded() -> object:
        recorder = Recorder()
        return record_repair(
            OMELETTE_SPEC,
            make_model_generator(recorder.client(client)),
            cap=ATTEMPTS,
            recorder=recorder,
        )

    return recorded


def _generator_run(record: bool) -> Callable[[], object]:
    def run() -> object:
        generate = make_scripted_generator(ALTERNATING_CANDIDATES)
        return (record_repair if record else repair_ticket)(OMELETTE_SPEC, generate, cap=ATTEMPTS)

    return run


def _fastest_seconds(
    plain: Callable[[], object], recorded: Callable[[], object], repeats: int
) -> tuple[float, float]:
    times: dict[str, list[float]] = {"plain": [], "recorded": []}
    plain(), recorded()  # warm up: imports, pydantic's first validation
    for _ in range(repeats):
        for name, run in (("plain", plain), ("recorded", recorded)):
            started = time.process_time()
            run()
            times[name].append(time.process_time() - started)
    return min(times["plain"]), min(times["recorded"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--repeats", type=int, default=21, help="timed runs of each kind (default 21)"
    )
    args = parser.parse_args(argv)
    print(
        f"A {ATTEMPTS}-attempt offline re-ask, plain and recorded (fastest of {args.repeats} runs each, CPU time):"
    )
    client_ratio = 0.0
    for name, make in (("client", _client_run), ("generator", _generator_run)):
        plain, recorded = _fastest_seconds(make(False), make(True), args.repeats)
        ratio = recorded / plain
        client_ratio = ratio if name == "client" else client_ratio
        print(
            f"  {name:9}  plain {plain * 1e3:7.1f} ms   recorded {recorded * 1e3:7.1f} ms   "
            f"ratio {ratio:.3f}  (+{(ratio - 1) * 100:.1f}%)"
        )
    _, trace = _client_run(True)()  # type: ignore[misc]
    started = time.perf_counter()
    for span in trace.spans:
        span.attributes.get(REQUEST_MODEL)  # the first read builds a deferred span's attributes
    built = time.perf_counter() - started
    print(f"  building the client run's deferred attributes (first read): {built * 1e3:.1f} ms")
    with tempfile.TemporaryDirectory() as folder:
        started = time.perf_counter()
        path = write_trace(trace, Path(folder) / "run.jsonl")
        wrote = time.perf_counter() - started
        print(
            f"  writing the client run's trace: {len(trace.spans)} spans, {path.stat().st_size / 1024:.0f} KiB "
            f"in {wrote * 1e3:.1f} ms"
        )
    print(
        f"client ratio {client_ratio:.3f}: {'within' if client_ratio < TARGET else 'over'} the target of {TARGET:.2f}"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
