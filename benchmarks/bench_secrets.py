"""Secret scan speed: ``find_secrets`` and ``redact`` per ~1 KB record on the reference workload.

Prints µs per record for plain records, records with a token-like run (git SHA), and records
that hold a credential. ``python benchmarks/bench_secrets.py``.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from benchmarks.workload import generate_workload
from core.secrets import find_secrets, redact


def _per_call_us(texts: list[str], fn: Callable[[str], object], repeat: int = 5) -> tuple[float, float]:
    """Median and p95 of µs per call over ``repeat`` passes of ``texts``."""
    samples: list[float] = []
    for _ in range(repeat):
        for text in texts:
            start = time.perf_counter()
            fn(text)
            samples.append((time.perf_counter() - start) * 1e6)
    samples.sort()
    return statistics.median(samples), samples[int(len(samples) * 0.95)]


def main() -> int:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        generate_workload(root, workspaces=5, records=100)
        plain = [p.read_text(encoding="utf-8") for p in sorted(root.glob("workspaces/*/*.md"))]
    plain = [t for t in plain if not t.startswith("<!--")]
    sha = [t + "\nFixed in commit 3f9a8b7c6d5e4f30a1b2c3d4e5f6a7b8c9d0e1f2.\n" for t in plain]
    leaky = [t + "\nexport DEEPSEEK_API_KEY=sk-3f9a8b7c6d5e4f30a1b2c3d4e5f6a7b8\n" for t in plain]
    find_secrets("warm-up")  # the first scan imports detect-secrets and compiles the patterns
    size = statistics.mean(len(t.encode("utf-8")) for t in plain)
    print(f"{len(plain)} records, mean {size:.0f} bytes")
    for label, texts in (("plain", plain), ("with git SHA", sha), ("with an API key", leaky)):
        for name, fn in (("find_secrets", find_secrets), ("redact", redact)):
            p50, p95 = _per_call_us(texts, fn)
            print(f"{name:>12} {label:<16} p50 {p50:7.1f} µs   p95 {p95:7.1f} µs")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
