"""Where a search index cold build spends its time (issue 15): prints figures, asserts nothing.

    python benchmarks/cold_build_probe.py --root /tmp/bench-10k/memory [--repeat 3] [--profile PHASE]

Three phases, each in a fresh interpreter (the store's parse cache is process-wide, so a phase run
after another in the same process would measure a warm cache):

1. **read**: ``FileStore(root).read_workspace(key)`` for every workspace folder (front matter, YAML,
   validation, content hashes, the scope revision);
2. **analyze**: ``analyze(name, description, type, body)`` of every valid record (tokens, BM25
   weights, field points), the records read beforehand and not timed;
3. **refresh**: the whole ``SearchIndex(FileStore(root), cache_dir=<empty dir>).refresh()``, as a
   fresh process with no persisted index does it (reading, analysis, tables, encoding, saving).

Phases 1 and 2 run with the cyclic garbage collector off, as ``refresh()`` runs them.

The root is never written: reading through a FileStore takes scope locks (it creates ``.manager/``
in the root), so the probe first copies the root with ``cp -a`` into ``--scratch`` (reused when it
is already there) and measures the copy. The copy also leaves the files in the page cache, so the
figures are CPU, not disk. Each figure is printed with ``/proc/loadavg`` before and after: on a
shared two-core machine, a run with a load far above 1 is not worth comparing. The process's CPU
time is printed beside the wall time (less sensitive to the other processes, not immune).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make ``core`` and ``benchmarks`` importable
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

PHASES = ("read", "analyze", "refresh")


def loadavg() -> str:
    try:
        return Path("/proc/loadavg").read_text().strip()
    except OSError:
        one, five, fifteen = os.getloadavg()
        return f"{one:.2f} {five:.2f} {fifteen:.2f}"


def workspace_keys(root: Path) -> list[str]:
    """The workspace folders, named the way the index finds them (no store listing: it would parse)."""
    top = root / "workspaces"
    return sorted(e.name for e in os.scandir(top) if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))


def read_all(root: Path) -> tuple[list[Any], int, int]:
    from core.store.fs import FileStore

    store = FileStore(root)
    snaps = [store.read_workspace(key) for key in workspace_keys(root)]
    valid = sum(1 for s in snaps for e in s.entries if e.is_valid)
    invalid = sum(1 for s in snaps for e in s.entries if not e.is_valid)
    return snaps, valid, invalid


def phase(name: str, root: Path) -> dict[str, Any]:
    out: dict[str, Any] = {"phase": name, "load_before": loadavg()}
    # As SearchIndex.refresh() runs: no cyclic collection while millions of acyclic objects are
    # made (each full collection would walk them all again).
    gc.disable()
    from core.search import SearchIndex  # imports are not what is measured
    from core.search.documents import analyze
    from core.store.fs import FileStore

    if name == "read":
        t0, c0 = time.perf_counter(), time.process_time()
        _snaps, valid, invalid = read_all(root)
        out["seconds"], out["cpu"] = time.perf_counter() - t0, time.process_time() - c0
        out["records"], out["invalid"] = valid, invalid
    elif name == "analyze":
        snaps, valid, _invalid = read_all(root)
        fields = [(r.name, r.description, r.type, r.body) for s in snaps for r in s.records()]
        del snaps
        t0, c0 = time.perf_counter(), time.process_time()
        for f in fields:
            analyze(*f)
        out["seconds"], out["cpu"] = time.perf_counter() - t0, time.process_time() - c0
        out["records"] = len(fields)
        many = getattr(sys.modules["core.search.documents"], "analyze_many", None)
        if many is not None:  # the batch form, when this tree has one
            t0 = time.perf_counter()
            many(fields)
            out["analyze_many_seconds"] = time.perf_counter() - t0
    elif name == "refresh":
        with tempfile.TemporaryDirectory(prefix="coldbuild-cache-") as cache_dir:
            index = SearchIndex(FileStore(root), cache_dir=Path(cache_dir))
            t0, c0 = time.perf_counter(), time.process_time()
            stats = index.refresh()
            out["seconds"], out["cpu"] = time.perf_counter() - t0, time.process_time() - c0
            out["records"] = stats.docs_reindexed
            out["docs"] = index.doc_count
    else:
        raise SystemExit(f"unknown phase {name!r}")
    out["load_after"] = loadavg()
    return out


def scratch_copy(root: Path, scratch: Path) -> Path:
    """``root`` copied under ``scratch`` (once: reused when its GLOBAL.md and folder count match)."""
    dest = scratch / root.parent.name / root.name
    if dest.is_dir() and len(workspace_keys(dest)) == len(workspace_keys(root)):
        print(f"  using the copy in {dest}")
        return dest
    shutil.rmtree(dest, ignore_errors=True)
    dest.parent.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    subprocess.run(["cp", "-a", str(root), str(dest)], check=True)
    print(f"  copied {root} to {dest} in {time.perf_counter() - t0:.1f} s")
    return dest


def run_child(name: str, root: Path, profile: bool) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", name, "--root", str(root)]
    if profile:
        cmd.append("--profile-child")
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise SystemExit(f"phase {name} failed:\n{proc.stderr}")
    if profile:
        print(proc.stderr)
    return dict(json.loads(proc.stdout.strip().splitlines()[-1]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--root", type=Path, required=True, help="a memory root (never written)")
    parser.add_argument("--scratch", type=Path, default=Path(tempfile.gettempdir()) / "cold-build-probe")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--phases", default=",".join(PHASES))
    parser.add_argument("--profile", choices=PHASES, help="print a cProfile of this phase (one run)")
    parser.add_argument("--child", choices=PHASES, help=argparse.SUPPRESS)
    parser.add_argument("--profile-child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        if args.profile_child:
            import cProfile
            import pstats

            prof = cProfile.Profile()
            result = prof.runcall(phase, args.child, args.root)
            pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(45)
        else:
            result = phase(args.child, args.root)
        print(json.dumps(result))
        return 0
    print(f"cold build probe on {args.root} (python {sys.version.split()[0]}, {os.cpu_count()} cpus)")
    root = scratch_copy(args.root.resolve(), args.scratch)
    if args.profile:
        run_child(args.profile, root, profile=True)
        return 0
    for name in args.phases.split(","):
        walls: list[float] = []
        for _ in range(args.repeat):
            r = run_child(name, root, profile=False)
            walls.append(r["seconds"])
            extra = f", analyze_many {r['analyze_many_seconds']:.2f} s" if "analyze_many_seconds" in r else ""
            print(
                f"  ({PHASES.index(name) + 1}) {name:8} {r['seconds']:7.2f} s wall {r['cpu']:7.2f} s cpu"
                f"  {r['records']:>7} records{extra}   loadavg {r['load_before']} -> {r['load_after']}"
            )
        if len(walls) > 1:
            print(f"      {name}: best {min(walls):.2f} s, median {statistics.median(walls):.2f} s of {len(walls)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
