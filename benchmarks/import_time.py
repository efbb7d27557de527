"""Cold-start cost of `import cafe`, beside an empty interpreter start.

Runs each command several times in a fresh interpreter and prints the medians in milliseconds,
plus the extra time `import cafe` adds. Usage: python benchmarks/import_time.py [--runs N]
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time


def _median_ms(code: str, runs: int) -> float:
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([sys.executable, "-c", code], check=True)
        samples.append((time.perf_counter() - start) * 1000)
    return statistics.median(samples)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    _median_ms("import cafe", 2)  # warm the file-system cache and write .pyc files first
    bare = _median_ms("pass", args.runs)
    with_cafe = _median_ms("import cafe", args.runs)
    print(f"python -c pass         median {bare:6.1f} ms over {args.runs} runs")
    print(f"python -c 'import cafe' median {with_cafe:6.1f} ms over {args.runs} runs")
    print(f"import cafe adds       {with_cafe - bare:6.1f} ms")


if __name__ == "__main__":
    main()
