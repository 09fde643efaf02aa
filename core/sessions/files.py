"""Finding a session's log file in its folder and reading its bytes (plain or multi-frame zstd).

Read-only: files are opened for reading only; nothing is created, locked or renamed.
"""

from __future__ import annotations

import os
import re
import struct
import threading
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

import zstandard

from core import foreign
from core.foreign import InflateBudget, load_json, read_capped
from core.sessions.models import SessionRevision

# Canonical names only: session.jsonl[.zstd] and session.v<N>.jsonl[.zstd] with N >= 1 written
# without leading zeros (no ".v0", no ".v03"). Temporary, upper-case and other names are ignored.
_LOG_NAME = re.compile(r"^session(?:\.v([1-9][0-9]{0,8}))?\.jsonl(\.zstd)?$")

_ZSTD_MAGIC = 0xFD2FB528
_SKIPPABLE_MASK = 0xFFFFFFF0
_SKIPPABLE_MAGIC = 0x184D2A50
_MAGIC_BYTES = struct.pack("<I", _ZSTD_MAGIC)
_HEADER_READ_LIMIT = 1 << 20  # a header line longer than this is not a DSH header


@dataclass(frozen=True)
class SessionFile:
    """The log file chosen for one session folder.

    ``warnings`` say what was passed over to choose it (a generation file whose header disagrees
    with its name, both encodings of one generation). ``unusable`` is set when no canonical file
    in the folder can be read as its name says: ``path`` is then the highest one, not to be read.
    """

    path: Path
    generation: int  # 0 for session.jsonl[.zstd], N for session.vN.jsonl[.zstd]
    compressed: bool
    revision: SessionRevision  # stat identity when it was found
    warnings: tuple[str, ...] = ()
    unusable: str | None = None


def log_generation(name: str) -> tuple[int, bool] | None:
    """``(generation, compressed)`` for a canonical session log file name, None for anything else."""
    match = _LOG_NAME.match(name)
    if match is None:
        return None
    return (int(match.group(1)) if match.group(1) else 0, match.group(2) is not None)


def _revision(path: Path, st: os.stat_result) -> SessionRevision:
    return SessionRevision(path=str(path), dev=st.st_dev, inode=st.st_ino, size=st.st_size, mtime_ns=st.st_mtime_ns)


class HeaderVersions:
    """Header versions of generation files by stat identity, kept by whoever chooses logs again and
    again (a :class:`~core.sessions.catalog.SessionCatalog` owns one): choosing a folder's log must not
    re-read headers on every listing. The headers read are bounded; a changed file has a new identity
    and is read again. Thread-safe (listings run on workers)."""

    MAX_READ = 4096

    def __init__(self) -> None:
        self._known: Mapping[SessionRevision, int] = {}
        self._read: dict[SessionRevision, int | None] = {}
        self._lock = threading.Lock()

    def learn(self, known: Mapping[SessionRevision, int]) -> None:
        """Versions known from elsewhere (the catalog's parsed summaries): they replace the last ones."""
        with self._lock:
            self._known = dict(known)

    def version_of(self, path: Path, compressed: bool, revision: SessionRevision) -> int | None:
        with self._lock:
            if revision in self._known:
                return self._known[revision]
            if revision in self._read:
                return self._read[revision]
        version = header_version_of(path, compressed)
        with self._lock:
            if len(self._read) >= self.MAX_READ:
                self._read.clear()
            self._read[revision] = version
        return version


def _first_line(path: Path, compressed: bool) -> bytes:
    """The header line, reading (and decompressing) no more than it takes: headers are small."""
    with open(path, "rb") as handle:
        reader = zstandard.ZstdDecompressor().stream_reader(handle, read_across_frames=True) if compressed else handle
        data = b""
        while b"\n" not in data and len(data) < _HEADER_READ_LIMIT:
            chunk = reader.read(8192)
            if not chunk:
                break
            data += chunk
    return data.split(b"\n", 1)[0]


def header_version_of(path: Path, compressed: bool) -> int | None:
    """The ``version`` a log's header line declares (0 when it has none); None when there is no header."""
    try:
        obj = load_json(_first_line(path, compressed))
    except (OSError, ValueError, zstandard.ZstdError):  # ForeignDataError is a ValueError
        obj = None
    version: int | None = None
    if isinstance(obj, dict) and obj.get("type") == "session":
        raw = obj.get("version")
        if isinstance(raw, int) and not isinstance(raw, bool):
            version = raw
        elif isinstance(raw, str) and raw.strip().isdigit():
            version = int(raw)
        else:
            version = 0
    return version


def find_session_file(folder: Path, headers: HeaderVersions | None = None) -> SessionFile | None:
    """The log to read in ``folder``: the highest generation whose header agrees with its name.

    Rules (DSH's own naming; never the modification time, which copies and restores change):

    - only canonical names count (see ``_LOG_NAME``);
    - the highest generation N wins across the plain and the compressed family; within one
      generation the compressed file wins (DSH's default encoding) and a warning says both exist;
    - ``session.vN.*`` declares format version N: a file whose header says otherwise (or has no
      readable header) is skipped with a warning and the next lower generation is read instead.
      If nothing is left, the result is ``unusable`` (the folder is reported, not read).
      ``session.jsonl[.zstd]`` predates generation files and its header version is not checked.

    ``headers``: header versions already read, by file identity (a catalog's, seeded from its parsed
    summaries so a fresh process with a persisted cache does not re-read every header); without it
    each generation file's header is read.
    """
    candidates: list[tuple[int, bool, str, os.stat_result]] = []
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                parsed = log_generation(entry.name)
                if parsed is None:
                    continue
                try:
                    if not entry.is_file():
                        continue
                    st = entry.stat()
                except OSError:
                    continue
                candidates.append((parsed[0], parsed[1], entry.name, st))
    except OSError:
        return None
    if not candidates:
        return None
    candidates.sort(key=lambda c: (c[0], c[1], c[2]), reverse=True)
    warnings: list[str] = []
    generations = [c[0] for c in candidates]
    for generation, compressed, name, st in candidates:  # compressed first within a generation
        path = folder / name
        revision = _revision(path, st)
        if generation >= 1:
            if headers is not None:
                declared = headers.version_of(path, compressed, revision)
            else:
                declared = header_version_of(path, compressed)
            if declared != generation:
                said = "has no readable header" if declared is None else f"says format v{declared} in its header"
                warnings.append(f"{name} {said}, which disagrees with its name; skipped it")
                continue
        if compressed and generations.count(generation) > 1:
            plain = name.removesuffix(".zstd")
            warnings.append(f"both {plain} and {name} exist; read {name} (DSH's own encoding)")
        return SessionFile(path, generation, compressed, revision, tuple(warnings))
    top = candidates[0]
    path = folder / top[2]
    return SessionFile(
        path,
        top[0],
        top[1],
        _revision(path, top[3]),
        tuple(warnings),
        unusable="no session log here can be read as its name says: " + "; ".join(warnings),
    )


def stat_revision(path: Path) -> SessionRevision:
    """Stat identity of ``path`` (raises OSError when it is gone)."""
    st = os.stat(path)
    return SessionRevision(path=str(path), dev=st.st_dev, inode=st.st_ino, size=st.st_size, mtime_ns=st.st_mtime_ns)


def read_stable_bytes(
    path: Path, attempts: int = 5, max_bytes: int | None = None
) -> tuple[bytes, SessionRevision]:
    """File bytes and the revision they belong to.

    A writer appending between the stat and the read would give bytes that do not match the
    revision, so the read is retried while the revision moves (the last attempt is kept). Every
    attempt goes through the bounded door: a log over ``max_bytes`` raises ForeignDataError.
    """
    cap = foreign.MAX_LOG_BYTES if max_bytes is None else max_bytes
    data = b""
    revision = stat_revision(path)
    for _ in range(max(1, attempts)):
        data, _st = read_capped(path, cap)
        after = stat_revision(path)
        if after == revision and len(data) == after.size:
            return data, after
        revision = after
    return data, revision


def _frame_end(data: bytes, start: int) -> int | None:
    """End offset of the zstd (or skippable) frame starting at ``start``; None when torn or not a frame."""
    size = len(data)
    if start + 4 > size:
        return None
    (magic,) = struct.unpack_from("<I", data, start)
    if magic & _SKIPPABLE_MASK == _SKIPPABLE_MAGIC:
        if start + 8 > size:
            return None
        (length,) = struct.unpack_from("<I", data, start + 4)
        end = start + 8 + length
        return end if end <= size else None
    if magic != _ZSTD_MAGIC:
        return None
    if start + 5 > size:
        return None
    descriptor = data[start + 4]
    fcs_flag = descriptor >> 6
    single_segment = (descriptor >> 5) & 1
    has_checksum = (descriptor >> 2) & 1
    dict_id_flag = descriptor & 3
    header = 5 + (0 if single_segment else 1) + (0, 1, 2, 4)[dict_id_flag]
    header += (1 if single_segment else 0, 2, 4, 8)[fcs_flag]
    pos = start + header
    while True:
        if pos + 3 > size:
            return None
        block_header = data[pos] | (data[pos + 1] << 8) | (data[pos + 2] << 16)
        last = block_header & 1
        block_type = (block_header >> 1) & 3
        block_size = block_header >> 3
        if block_type == 3:  # reserved: corrupt
            return None
        pos += 3 + (1 if block_type == 1 else block_size)
        if pos > size:
            return None
        if last:
            break
    if has_checksum:
        pos += 4
    return pos if pos <= size else None


def _starts_frame(data: bytes, pos: int) -> bool:
    if pos == len(data):
        return True
    if pos + 4 > len(data):
        return False
    (magic,) = struct.unpack_from("<I", data, pos)
    return bool(magic == _ZSTD_MAGIC or magic & _SKIPPABLE_MASK == _SKIPPABLE_MAGIC)


def _walk(data: bytes, start: int) -> int:
    """End of the run of complete frames that begins at ``start`` (``start`` itself when there is none).

    A frame torn by a crash and followed by later appends can look complete: its last block
    header claims bytes that belong to the next frame. Such a frame does not end where another
    frame starts, and a real frame starts inside it, which is how it is told apart from a good
    frame followed by garbage.
    """
    pos = start
    while pos < len(data):
        end = _frame_end(data, pos)
        if end is None:
            break
        if not _starts_frame(data, end):
            resume = _resync(data, pos + 1)
            if resume is not None and resume < end:
                break
        pos = end
    return pos


def _resync(data: bytes, after: int) -> int | None:
    """Where complete frames start again after damaged bytes (a crash mid-append, then more appends)."""
    found = data.find(_MAGIC_BYTES, after)
    while found != -1:
        if _frame_end(data, found) is not None:
            return found
        found = data.find(_MAGIC_BYTES, found + 1)
    return None


def _decode_run(
    dctx: zstandard.ZstdDecompressor, data: bytes, start: int, end: int, warnings: list[str], budget: InflateBudget
) -> bytes:
    """Decode a run of structurally complete frames; a frame with a damaged block is dropped, the rest kept."""
    view = memoryview(data)
    left = budget.left
    try:
        return budget.inflate(dctx, view[start:end], across_frames=True)
    except zstandard.ZstdError:
        budget.left = left  # decoded again frame by frame below
        pass
    parts: list[bytes] = []
    offset = start
    while offset < end:
        frame_end = _frame_end(data, offset)
        if frame_end is None:  # pragma: no cover - the walk already succeeded
            break
        try:
            parts.append(budget.inflate(dctx, view[offset:frame_end], across_frames=False))
        except zstandard.ZstdError as exc:
            warnings.append(f"zstd frame at byte {offset} is damaged ({exc}); ignored it")
        offset = frame_end
    return b"".join(parts)


def _decode_partial(
    dctx: zstandard.ZstdDecompressor, data: bytes, start: int, end: int, budget: InflateBudget
) -> bytes:
    """What the complete blocks of a torn frame decode to (nothing when it is not a frame at all)."""
    if end - start < 4 or struct.unpack_from("<I", data, start)[0] != _ZSTD_MAGIC:
        return b""
    try:
        return budget.inflate(dctx, memoryview(data)[start:end], across_frames=False)
    except zstandard.ZstdError:
        return b""


def decode_zstd_frames(data: bytes, budget: InflateBudget | None = None) -> tuple[bytes, list[str]]:
    """Decompress concatenated zstd frames; keep what decodes and describe what did not.

    Frame boundaries are found by walking frame and block headers (cheap, no decompression), so
    each run of complete frames decodes in one call and a torn frame is detected, not guessed.
    A torn final frame's decodable blocks are kept (its torn last line is dropped later). Damaged
    bytes in the middle (a frame torn by a crash, then appended after) are skipped: the torn
    frame's complete lines are kept and reading resumes at the next complete frame.

    Everything decodes into ``budget`` (a fresh :class:`InflateBudget` by default): a bomb raises
    ForeignDataError(INFLATES_TOO_LARGE) instead of exhausting memory.
    """
    budget = budget if budget is not None else InflateBudget()
    warnings: list[str] = []
    dctx = zstandard.ZstdDecompressor()
    parts: list[bytes] = []
    size = len(data)
    pos = 0
    while pos < size:
        end = _walk(data, pos)
        if end > pos:
            parts.append(_decode_run(dctx, data, pos, end, warnings, budget))
        if end >= size:
            break
        resume = _resync(data, end + 1)
        if resume is None:  # the tail: a torn final frame, or bytes that are no frame at all
            partial = _decode_partial(dctx, data, end, size, budget)
            if size - end >= 4 and struct.unpack_from("<I", data, end)[0] == _ZSTD_MAGIC:
                parts.append(partial)
                warnings.append(f"torn final zstd frame at byte {end} ({size - end} bytes); kept its complete lines")
            else:
                warnings.append(f"{size - end} trailing bytes at byte {end} are not a zstd frame; ignored them")
            break
        partial = _decode_partial(dctx, data, end, resume, budget)
        parts.append(partial[: partial.rfind(b"\n") + 1])  # its torn last line would glue onto the next
        warnings.append(f"damaged zstd data at byte {end} ({resume - end} bytes); kept its complete lines and read on")
        pos = resume
    return b"".join(parts), warnings


def read_log_text(path: Path, compressed: bool | None = None) -> tuple[bytes, SessionRevision, list[str]]:
    """Decoded JSONL bytes of a session log, the revision they were read at, and warnings.

    Raises OSError, or ForeignDataError when the log is over its size or decompression budget."""
    data, revision = read_stable_bytes(path)
    if compressed is None:
        compressed = path.name.endswith(".zstd")
    if not compressed:
        return data, revision, []
    text, warnings = decode_zstd_frames(data)
    return text, revision, warnings
