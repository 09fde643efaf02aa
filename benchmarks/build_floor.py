"""What a cold build at scale cannot go below on this design (issue 24: "a measured alternative for
anything you claim is a floor"). Each step runs in a fresh process over the scale benchmark's
workload and adds one stage of the real build, so the difference between two lines is that
stage's cost:

1. ``read``: every record file of every workspace read through the store (``store.inspect.scan``);
2. ``fields``: + name, description, type and body taken out of each (``record_fields``);
3. ``raw``: + each record handed to tantivy as it is (no normalization, no CJK bigrams, no
   compounds, no stored document), committed: Python's part of the hand-off and tantivy's indexing;
4. ``chars``: + the alternative design of the issue's prototype: each field normalized (NFKC +
   case folding), CJK as one token per character (bigrams become two-token phrase queries), no
   compound, squashed or CJK fields, the stored document: the least Python per record that still
   serves the matching contract through tantivy's own analyzers (it lets ``打包`` match ``打。包``
   and loses the squashed compounds, ``electronbuilder``);
5. ``build``: the real cold build (``SearchIndex.refresh()``: text prep, stored documents, scopes).

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

STEPS = ("read", "fields", "raw", "chars", "build")


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

        index = tantivy.Index(build_schema() if name != "chars" else _chars_schema())
        register_analyzers(index)
        writer = index.writer(96_000_000, 2) if name in ("raw", "chars") else None
        keys = sorted(p.name for p in (root / "workspaces").iterdir() if p.is_dir())
        for key in keys:
            for r in store.inspect.scan(key).records:
                if name == "read" or r.data is None or (f := record_fields(r.file_name, r.data)) is None:
                    continue
                if writer is not None and name == "chars":
                    writer.add_document(_chars_document(key, r.file_name, f, r.mtime_ns))
                elif writer is not None:
                    writer.add_document(tantivy.Document(name=f[0], desc=f[1], type=f[2], text=f[3]))
        if writer is not None:
            writer.commit()
            writer.wait_merging_threads()
    return {"wall": time.perf_counter() - t0, "cpu": time.process_time(), "main": time.thread_time()}


def _chars_schema() -> Any:
    import tantivy

    sb = tantivy.SchemaBuilder()
    sb.add_text_field("text", stored=False, tokenizer_name="dsh_word", index_option="position")
    for field in ("name", "desc", "type"):
        sb.add_text_field(field, stored=False, tokenizer_name="dsh_word", index_option="freq")
    for field in ("id", "sid", "arch", "named"):
        sb.add_text_field(field, stored=field == "id", tokenizer_name="raw", index_option="basic")
    sb.add_bytes_field("doc", stored=True)
    sb.add_integer_field("mtime", fast=True)
    return sb.build()


def _chars_document(key: str, file_name: str, f: tuple[str, str, str, str], mtime: int) -> Any:
    import re

    import tantivy

    from core.search.tokenizer import CJK_CLASS, normalize, squash

    runs = re.compile(rf"([{CJK_CLASS}]+)").split  # (compiled once: re's own cache)

    def spaced(text: str) -> str:  # each CJK run's characters between spaces, cut out in C as the build does
        parts = runs(normalize(text))
        parts[1::2] = [" ".join(run) for run in parts[1::2]]
        return " ".join(parts)

    name, desc, kind, body = (spaced(x) if not x.isascii() else x.lower() for x in f)
    stored = json.dumps([key, "", False, "record", *f, file_name, -1, mtime, ""], ensure_ascii=False)
    return tantivy.Document(
        id=f"w:{key}\x1f{file_name}",
        sid=f"w:{key}",
        arch="0",
        named=squash(name),
        text=f"{name}\n{desc}\n{kind}\n{body}",
        name=name,
        desc=desc,
        type=kind,
        mtime=mtime,
        doc=stored.encode(),
    )


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
