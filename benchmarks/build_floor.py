"""What a cold build at scale cannot go below on this design (issue 24: "a measured alternative for
anything you claim is a floor"). Each step runs in a fresh process over the scale benchmark's
workload and adds one stage of the real build, so the difference between two lines is that
stage's cost:

1. ``read``: every record file of every workspace read through the store (``store.inspect.scan``);
2. ``fields``: + name, description, type and body taken out of each (``record_fields``);
3. ``raw``: + each record handed to tantivy as it is (no normalization, no CJK bigrams, no
   compounds, no stored document), committed: Python's part of the hand-off and tantivy's indexing;
4. ``build``: the real cold build (``SearchIndex.refresh()``: text prep, stored documents, scopes).

Run: ``python benchmarks/build_floor.py [--size 100k] [--dir /tmp]``. Prints wall, process CPU and
the main thread's CPU (the build's critical path: Python runs on one core) with the load average.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

STEPS = ("read", "fields", "raw", "build")


def step(root: Path, name: str) -> dict[str, Any]:
    t0 = time.perf_counter()
    from core.store.fs import FileStore

    store = FileStore(root)
    if name == "build":
        from core.search import SearchIndex

        for p in (root / ".manager" / "cache").glob("search-*"):
            shutil.rmtree(p)
        SearchIndex(store).refresh()
    else:
        import tantivy

        from core.records import record_fields
        from core.search.engine import build_schema, register_analyzers

        index = tantivy.Index(build_schema())
        register_analyzers(index)
        writer = index.writer(96_000_000, 2) if name == "raw" else None
        keys = sorted(p.name for p in (root / "workspaces").iterdir() if p.is_dir())
        for key in keys:
            for r in store.inspect.scan(key).records:
                if name == "read" or r.data is None or (f := record_fields(r.file_name, r.data)) is None:
                    continue
                if writer is not None:
                    writer.add_document(tantivy.Document(name=f[0], desc=f[1], type=f[2], text=f[3]))
        if writer is not None:
            writer.commit()
            writer.wait_merging_threads()
    return {"wall": time.perf_counter() - t0, "cpu": time.process_time(), "main": time.thread_time()}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--size", default="100k")
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("DSH_BENCH_DIR", "/tmp")))
    parser.add_argument("--step", choices=STEPS, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.step:
        print(json.dumps(step(args.root, args.step)))
        return 0
    from benchmarks.scale_bench import ensure_workload, load

    root = ensure_workload(args.dir, args.size)
    print(f"cold build floor at {args.size} ({root})")
    for name in STEPS:
        before = load()
        argv = [sys.executable, str(Path(__file__).resolve()), "--step", name, "--root", str(root)]
        out = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
        r = json.loads(out.strip().splitlines()[-1])
        print(f"  {name:7} wall {r['wall']:6.2f} s  CPU {r['cpu']:6.2f} s  main thread {r['main']:6.2f} s   ({before})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
