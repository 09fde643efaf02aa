"""Coverage-guided fuzzing of every reader of bytes another program (or a hostile file) wrote.

    .venv/bin/python benchmarks/fuzz.py                     # every target, 60 s each
    .venv/bin/python benchmarks/fuzz.py --seconds 300 zip   # one target, 5 minutes

Engine: atheris (libFuzzer for Python; ``pip install .[fuzz]``), one child process per target so a
crash or an out-of-memory kill of one target is that target's result, not the run's. Each target
says which failures are *reported problems* (typed errors the window shows); anything else that
escapes (``RecursionError``, ``IndexError``, ``MemoryError``, a ``zlib.error``…) is a crash, saved
by libFuzzer under ``tests/data/fuzz/<target>/`` where ``tests/core/test_fuzz_regressions.py``
replays it on every test run. Without atheris the same targets run on seeded random mutations
(no coverage guidance; said in the output).

Targets: ``record`` (record file parser), ``session`` (zstd frame walker + JSONL session parser +
evidence), ``foreign`` (other stores' files, DSH's workspace registry), ``query`` (search query
tokenizer), ``zip`` (export-zip importer), ``journal`` (the store's journal parser; inputs get a
valid checksum so they reach it). Printed per target: executions, crashes, seconds, and the load.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import io
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import time
import zipfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))
CRASH_DIR = REPO / "tests" / "data" / "fuzz"

# --- targets -----------------------------------------------------------------------------------
# Each takes the fuzzer's bytes and returns normally, or raises only what is caught here.


def _lower_budgets() -> None:
    """Keep each input cheap: the budgets' logic is the same at 4 MiB as at 512 MiB."""
    from core import foreign

    foreign.MAX_INFLATED_BYTES = 4 << 20
    foreign.MAX_LOG_BYTES = 4 << 20


def record_target(data: bytes) -> None:
    from core.store.base import entry_from_bytes

    entry = entry_from_bytes("fuzz.md", data)
    if entry.record is not None:
        from core.records import render_record

        render_record(entry.record)


def session_target(data: bytes) -> None:
    import zstandard

    from core.errors import DshMemoryError
    from core.foreign import ForeignDataError
    from core.sessions.evidence import build_evidence, render_evidence
    from core.sessions.files import decode_zstd_frames
    from core.sessions.models import SessionRevision
    from core.sessions.parse import parse_session, summarize_session

    mode, payload = (data[0], data[1:]) if data else (0, b"")
    try:
        if mode % 3 == 1:  # raw bytes as a .zstd log: the frame walker
            payload, _ = decode_zstd_frames(payload)
        elif mode % 3 == 2:  # valid frames around fuzzed JSONL: reaches the parser through zstd
            payload, _ = decode_zstd_frames(zstandard.ZstdCompressor().compress(payload) * 2)
    except ForeignDataError:
        return
    revision = SessionRevision(path="/fuzz/session.jsonl", dev=0, inode=0, size=len(payload), mtime_ns=0)
    folder = Path("/fuzz")
    try:
        summarize_session(payload, revision, folder)
        parsed = parse_session(payload, revision, folder)
        render_evidence(build_evidence(parsed))
    except DshMemoryError:  # SessionReadError (no header), EvidenceTooLargeError
        return


def foreign_target(data: bytes) -> None:
    from core.sessions.workspaces import read_registry
    from core.sources.claude_code import parse_topic
    from core.sources.cross_workspace import read_cross_workspace
    from core.sources.project_memory import split_entries
    from core.sources.workspace_memory import read_scope

    mode, payload = (data[0], data[1:]) if data else (0, b"")
    text = payload.decode("utf-8", "replace")
    with tempfile.TemporaryDirectory(prefix="dsh-fuzz-") as tmp:
        base = Path(tmp)
        kind = mode % 5
        if kind == 0:
            (base / "memory.json").write_bytes(payload)
            read_cross_workspace(base / "memory.json")
        elif kind == 1:
            (base / "storages").mkdir()
            (base / "storages" / "workspace.json").write_bytes(payload)
            read_registry(base)
        elif kind == 2:
            with contextlib.suppress(ValueError):  # its contract: a malformed topic file is a ValueError
                parse_topic(text)
        elif kind == 3:
            split_entries(text)
        else:
            (base / "scope.json").write_bytes(payload)
            (base / "memory_entries.json").write_bytes(payload)
            (base / "memory_summary.md").write_bytes(payload)
            read_scope(base)


def query_target(data: bytes) -> None:
    from core.search import tokenizer

    text = data.decode("utf-8", "replace")
    tokenizer.parse_query(text)
    tokenizer.squash(tokenizer.normalize(text))


def zip_target(data: bytes) -> None:
    from core.import_zip import ImportZipError, read_export_zip

    mode, payload = (data[0], data[1:]) if data else (0, b"")
    with tempfile.TemporaryDirectory(prefix="dsh-fuzz-") as tmp:
        path = Path(tmp) / "fuzz.zip"
        if mode % 2:  # raw bytes: the zip container itself
            path.write_bytes(payload)
        else:  # a valid container around fuzzed members: reaches the manifest and record checks
            path.write_bytes(_zip_around(payload))
        try:
            read_export_zip(path)
        except ImportZipError:
            return


def _zip_around(payload: bytes) -> bytes:
    from core.export import FORMAT

    half = len(payload) // 2
    record, manifest_extra = payload[:half], payload[half:]
    name = "workspaces/fuzz-1/fuzz.md"
    manifest = {
        "format": FORMAT,
        "workspaces": [{"key": "fuzz-1", "cwd": "/home/fuzz"}],
        "files": {name: hashlib.sha256(record).hexdigest()},
    }
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        text = json.dumps(manifest)
        if manifest_extra[:1] == b"{":  # sometimes the fuzzed bytes are the manifest
            zf.writestr("manifest.json", manifest_extra)
        else:
            zf.writestr("manifest.json", text)
        zf.writestr(name, record)
    return buffer.getvalue()


def journal_target(data: bytes) -> None:
    """The journal parser, behind its checksum: the fuzzed document gets the checksum it needs."""
    from pydantic import ValidationError

    from core.store import journal_doc, journal_recovery

    try:
        body = json.loads(data)
    except (ValueError, RecursionError):
        body = None  # not JSON: parsed as it is (the checksum never matches)
    line = data
    if isinstance(body, dict):
        body.pop("checksum", None)
        try:
            checksum = journal_doc.checksum(journal_doc.body_of(journal_doc.JournalDoc.model_construct(**body)))
        except Exception:  # model_construct takes anything; dumping odd values may not work
            checksum = journal_doc.checksum(body)
        line = json.dumps({**body, "checksum": checksum}).encode()
    staging = Path("/fuzz/.manager/staging") / "global"
    try:
        journal_recovery._parse_copy(line.split(b"\n")[0], staging)
    except (ValueError, ValidationError):
        return


TARGETS: dict[str, Callable[[bytes], None]] = {
    "record": record_target,
    "session": session_target,
    "foreign": foreign_target,
    "query": query_target,
    "zip": zip_target,
    "journal": journal_target,
}

# --- seeds ---------------------------------------------------------------------------------------


def seeds(name: str) -> list[bytes]:
    record = b"---\nname: deploy\ndescription: How we deploy\nmetadata:\n  type: project\n---\n\nfly.io\n"
    header = {"type": "session", "version": 1, "id": "s-1", "createdAt": 1, "cwd": "/home/a", "delegationDepth": 0}
    user = {
        "type": "user/message",
        "seq": 1,
        "time": 2,
        "data": {"message": {"role": "user", "content": [{"type": "text", "text": "remember x"}]}},
    }
    log = (json.dumps(header) + "\n" + json.dumps(user) + "\n").encode()
    if name == "record":
        return [record, record.replace(b"fly.io", b"[[link]] \xe4\xb8\xad"), b"---\n&a [*a]\n---\n"]
    if name == "session":
        return [b"\x00" + log, b"\x02" + log, b"\x01" + _zstd(log)]
    if name == "foreign":
        return [
            b"\x00" + json.dumps({"version": 1, "items": [{"text": "a", "kind": "fact"}]}).encode(),
            b"\x01" + json.dumps({"workspaces": [{"path": "/a", "title": "A"}]}).encode(),
            b"\x02---\nname: a\n---\nbody\n",
            b"\x03- one\n- two\n",
            b"\x04" + json.dumps({"cwd": "/a", "entries": []}).encode(),
        ]
    if name == "query":
        return ["打包 electron-builder \"exact phrase\" -not OR sk-learn".encode(), b"a" * 100]
    if name == "zip":
        return [b"\x00" + record + b'{"format": 1}', b"\x01" + _zip_around(record + b"x")]
    if name == "journal":
        from core.store import journal_doc

        doc = journal_doc.make_doc("commit", ["global"])
        return [doc.model_dump_json().encode()]
    return [b""]


def _zstd(data: bytes) -> bytes:
    import zstandard

    return zstandard.ZstdCompressor().compress(data)


# --- running ------------------------------------------------------------------------------------


def _child(name: str, seconds: int, corpus: Path, crashes: Path) -> None:
    import warnings

    import atheris  # type: ignore[import-untyped]  # no stubs; only its Setup/Fuzz/instrument calls

    warnings.simplefilter("ignore")  # pydantic's serializer warnings on odd journal bodies: noise
    _lower_budgets()
    with atheris.instrument_imports(include=["core"]):
        import core.foreign  # noqa: F401  (instrumented before the targets import the rest)
    target = TARGETS[name]
    for i, seed in enumerate(seeds(name)):
        (corpus / f"seed-{i}").write_bytes(seed)
    atheris.instrument_all()
    argv = [
        sys.argv[0],
        str(corpus),
        f"-max_total_time={seconds}",
        f"-artifact_prefix={crashes}/",
        "-timeout=30",
        "-rss_limit_mb=3072",
        "-print_final_stats=1",
        "-close_fd_mask=1",
    ]
    atheris.Setup(argv, target)
    atheris.Fuzz()


def _random_run(name: str, seconds: int, crashes: Path) -> tuple[int, int]:
    """Fallback without atheris: random byte mutations of the seeds (no coverage feedback)."""
    _lower_budgets()
    rng = random.Random(25)
    pool = seeds(name)
    runs = found = 0
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        data = bytearray(rng.choice(pool))
        for _ in range(rng.randint(1, 8)):
            op = rng.randrange(3)
            pos = rng.randrange(len(data) + 1)
            if op == 0 and data:
                data[min(pos, len(data) - 1)] = rng.randrange(256)
            elif op == 1:
                data[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
            else:
                del data[pos : pos + rng.randint(1, 16)]
        runs += 1
        try:
            TARGETS[name](bytes(data))
        except Exception:
            found += 1
            crashes.mkdir(parents=True, exist_ok=True)
            (crashes / f"crash-{hashlib.sha1(data).hexdigest()}").write_bytes(bytes(data))
    return runs, found


def run(name: str, seconds: int) -> dict[str, object]:
    crashes = CRASH_DIR / name
    crashes.mkdir(parents=True, exist_ok=True)
    before = {p.name for p in crashes.glob("crash-*")}
    started = time.monotonic()
    try:
        import atheris  # noqa: F401
    except ImportError:
        runs, _ = _random_run(name, seconds, crashes)
        engine = "random mutation (atheris not installed)"
    else:
        engine = "atheris"
        with tempfile.TemporaryDirectory(prefix=f"dsh-fuzz-{name}-") as corpus:
            proc = subprocess.run(
                [sys.executable, __file__, "--child", name, "--seconds", str(seconds), "--corpus", corpus],
                capture_output=True,
                text=True,
                cwd=str(REPO),
                timeout=seconds + 600,
            )
        stats = re.findall(r"stat::number_of_executed_units:\s*(\d+)", proc.stderr)
        done = re.findall(r"Done (\d+) runs", proc.stderr)
        runs = int(stats[-1]) if stats else int(done[-1]) if done else 0
        if proc.returncode != 0 and not set(p.name for p in crashes.glob("crash-*")) - before:
            tail = proc.stderr.strip().splitlines()[-15:]
            print(f"  {name}: the fuzzer exited {proc.returncode} without an artifact:", *tail, sep="\n    ")
    new = sorted({p.name for p in crashes.glob("crash-*")} - before)
    return {
        "target": name,
        "engine": engine,
        "seconds": round(time.monotonic() - started, 1),
        "executions": runs,
        "crashes": len(new),
        "new_inputs": new,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("targets", nargs="*", help=f"some of {', '.join(TARGETS)} (default: all)")
    parser.add_argument("--seconds", type=int, default=60, help="time per target")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--corpus", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.child, args.seconds, Path(args.corpus), CRASH_DIR / args.child)
        return 0
    unknown = [t for t in args.targets if t not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}; choose from {', '.join(TARGETS)}")
    results = [run(name, args.seconds) for name in (args.targets or list(TARGETS))]
    with open("/proc/loadavg") as handle:
        load = handle.read().strip()
    for r in results:
        print(
            f"{r['target']:8} {r['engine']}: {r['executions']:>9,} executions in {r['seconds']} s, "
            f"{r['crashes']} crash(es) {' '.join(map(str, r['new_inputs']))}"  # type: ignore[call-overload]
        )
    print(f"/proc/loadavg: {load}")
    return 1 if any(r["crashes"] for r in results) else 0


if __name__ == "__main__":
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    sys.exit(main())
