"""Import an export zip (``core.export``) through review, like a consolidation.

Reading the zip trusts nothing in it. :func:`read_export_zip` checks, before a byte of memory is
proposed:

- it is a zip at all, not encrypted, at most ``Limits.max_zip_bytes`` on disk, at most
  ``max_members`` entries;
- every member name is one of ``manifest.json``, ``GLOBAL.md``, ``workspaces/<key>/<name>.md``
  (``MEMORY.md`` is read past: the store rebuilds the index) — no absolute path, no ``..``, no
  backslash, no drive letter, no NUL; no symlink member; no name twice (also not case-folded);
- sizes are bounded by what is *actually* decompressed (the header's sizes can lie): each member
  at most ``max_member_bytes``, all together at most ``max_total_bytes``, and a member whose
  compression ratio is beyond ``max_ratio`` is refused as a zip bomb;
- the manifest has our format, lists every file with its SHA-256, and every file matches; a
  workspace's ``cwd`` is an absolute path; a record parses like a record file in the store.

Fatal problems (not a zip, no or bad manifest, limits) raise :class:`ImportZipError` with a
``kind``; problems of one file leave that file out and are listed in ``ZipContents.refused`` (the
user sees them with the reviews). Credential-shaped text is *flagged* (``ZipContents.secrets``)
and still proposed: the review refuses it like any other credential, so the user sees why.

:func:`open_zip_reviews` then turns the contents into one review per workspace (and one for
Global) with the same objects an import from another store uses (evidence, a
:class:`~core.consolidation.proposals.Proposal`, :class:`ConsolidationService.propose`): the
Consolidation tab reviews, edits and commits them with CAS and a receipt. Nothing is written to
memory here. Decisions where the issue was silent: an imported record whose name exists with the
same content is ``no_change``; with other content it is a ``put`` (the review shows the diff);
records only in memory are left alone (an import never deletes); an archived workspace is refused
(restore it first); Global is taken whole when ours is empty, else its paragraphs we don't have are
appended under ``## Imported from <zip name>``.
"""

from __future__ import annotations

import contextlib
import hashlib
import lzma
import stat
import struct
import zipfile
import zlib
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Any, Literal

from core.consolidation.base import CancelCheck, ConsolidationInput, DebugSink, never_cancelled
from core.consolidation.proposals import NoChange, Proposal, ProposedChange, ProposedRecord, PutRecord, ReplaceGlobal
from core.errors import DshMemoryError
from core.export import FORMAT, MANIFEST
from core.foreign import ForeignDataError, load_json
from core.models import Record

ZipProblemKind = Literal[
    "not-a-zip",
    "encrypted",
    "too-large",
    "too-many",
    "no-manifest",
    "bad-manifest",
    "wrong-format",
    "unsafe-path",
    "symlink",
    "duplicate",
    "member-too-large",
    "zip-bomb",
    "unlisted",
    "hash-mismatch",
    "missing",
    "not-text",
    "invalid-record",
    "bad-workspace",
    "archived",
    "damaged",
    "corrupt-data",
    "unsupported-method",
    "truncated",
]
CONSOLIDATOR = "import:zip"


class ImportZipError(DshMemoryError):
    """The zip cannot be imported at all; nothing was read into a review, nothing was written."""

    code = "import-zip"
    exit_code = 16

    def __init__(self, kind: ZipProblemKind, message: str, *, path: str = "", limit: int = 0) -> None:
        super().__init__(message)
        self.kind = kind
        self.path = path
        self.limit = limit


@dataclass(frozen=True)
class Limits:
    max_zip_bytes: int = 256 << 20
    max_members: int = 50_000
    max_member_bytes: int = 4 << 20  # a record file is at most 1 MiB in the store; GLOBAL.md likewise
    max_total_bytes: int = 512 << 20
    max_ratio: int = 200  # Markdown deflates ~3-10x; 200x is a bomb, not notes


@dataclass(frozen=True)
class Refused:
    """One file of the zip left out, and why (``kind`` for the window's wording)."""

    path: str
    kind: ZipProblemKind
    detail: str


@dataclass(frozen=True)
class ZipWorkspace:
    folder: str  # the zip's folder name (the exporting machine's key)
    cwd: str
    records: tuple[Record, ...]
    digest: str  # of the records' bytes: the same content gives the same review id


@dataclass
class ZipContents:
    name: str  # the zip's file name (shown in titles)
    exported_at: str = ""
    global_text: str | None = None
    workspaces: list[ZipWorkspace] = field(default_factory=list)
    refused: list[Refused] = field(default_factory=list)
    secrets: list[str] = field(default_factory=list)  # paths with credential-shaped text (flagged)

    @property
    def records(self) -> int:
        return sum(len(w.records) for w in self.workspaces)


def _member_path(name: str) -> tuple[str, ...] | None:
    """The parts of a safe member name we accept, or None."""
    if not name or "\\" in name or "\0" in name or name.startswith("/") or ":" in name.split("/", 1)[0]:
        return None
    parts = PurePosixPath(name).parts
    if any(p in ("", ".", "..") or p.startswith(".") for p in parts):
        return None
    if parts == (MANIFEST,) or parts == ("GLOBAL.md",):
        return parts
    if len(parts) == 3 and parts[0] == "workspaces" and parts[2].endswith(".md"):
        return parts
    return None


@contextlib.contextmanager
def _zip_failures(zip_name: str, member: str = "") -> Iterator[None]:
    """Every way zipfile and its decompressors fail on hostile bytes, as its own typed error.

    zipfile raises whatever its parts raise (zlib, lzma, struct, IndexError on an empty name…);
    the window translates ``kind``, so each failure class gets one (the exception type decides,
    never its message)."""
    where = member or zip_name
    try:
        yield
    except ImportZipError:
        raise
    except zipfile.BadZipFile as exc:  # a bad CRC-32, a bad local header, overlapping entries
        raise ImportZipError("damaged", f"{where} is damaged ({exc}).", path=member) from exc
    except (zlib.error, lzma.LZMAError, OSError, ValueError) as exc:  # bz2 raises OSError/ValueError
        raise ImportZipError("corrupt-data", f"{where} holds corrupt compressed data ({exc}).", path=member) from exc
    except NotImplementedError as exc:
        raise ImportZipError(
            "unsupported-method", f"{where} uses a compression method this app cannot read ({exc}).", path=member
        ) from exc
    except EOFError as exc:
        raise ImportZipError("truncated", f"{where} ends before its data does ({exc}).", path=member) from exc
    except (IndexError, KeyError, struct.error, OverflowError, RuntimeError, UnicodeError) as exc:
        raise ImportZipError("damaged", f"{where} is damaged ({type(exc).__name__}: {exc}).", path=member) from exc


def _read_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, limits: Limits, budget: list[int]) -> bytes:
    """The member's bytes, decompressed at most ``max_member_bytes`` + 1 (headers can lie)."""
    with _zip_failures(zf.filename or "", info.filename), zf.open(info) as fh:
        data = fh.read(limits.max_member_bytes + 1)
    if len(data) > limits.max_member_bytes:
        raise ImportZipError(
            "member-too-large",
            f"{info.filename} is larger than {limits.max_member_bytes:,} bytes; not a memory file.",
            path=info.filename,
            limit=limits.max_member_bytes,
        )
    if info.compress_size and len(data) > 4096 and len(data) / info.compress_size > limits.max_ratio:
        raise ImportZipError(
            "zip-bomb", f"{info.filename} expands over {limits.max_ratio}x: refused as a zip bomb.", path=info.filename
        )
    budget[0] -= len(data)
    if budget[0] < 0:
        raise ImportZipError(
            "too-large",
            f"The zip expands to more than {limits.max_total_bytes:,} bytes; refused.",
            limit=limits.max_total_bytes,
        )
    return data


def _open(path: Path, limits: Limits) -> zipfile.ZipFile:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise ImportZipError("not-a-zip", f"Could not read {path}: {exc.strerror or exc}.", path=str(path)) from exc
    if size > limits.max_zip_bytes:
        raise ImportZipError(
            "too-large", f"{path.name} is {size:,} bytes, over {limits.max_zip_bytes:,}.", limit=limits.max_zip_bytes
        )
    try:
        return zipfile.ZipFile(path)
    except NotImplementedError as exc:  # a zip version this reader cannot read (found by benchmarks/fuzz.py)
        raise ImportZipError(
            "unsupported-method", f"{path.name} needs a zip feature this app cannot read ({exc}).", path=path.name
        ) from exc
    except (
        zipfile.BadZipFile, OSError, ValueError, EOFError, IndexError, KeyError, struct.error, OverflowError
    ) as exc:  # the central directory is damaged or this is no zip at all
        raise ImportZipError("not-a-zip", f"{path.name} is not a zip file ({exc}).", path=str(path)) from exc


def _manifest(data: bytes) -> dict[str, Any]:
    try:
        manifest = load_json(data.decode("utf-8"))  # the bounded loader: nesting is a budget too
    except (UnicodeDecodeError, ForeignDataError) as exc:
        raise ImportZipError("bad-manifest", f"manifest.json is not valid JSON ({exc}).", path=MANIFEST) from exc
    if not isinstance(manifest, dict):
        raise ImportZipError("bad-manifest", "manifest.json is not a JSON object.", path=MANIFEST)
    if manifest.get("format") != FORMAT:
        raise ImportZipError(
            "wrong-format",
            f"manifest.json says format {manifest.get('format')!r}, not {FORMAT!r}: not an export of this app.",
            path=MANIFEST,
        )
    files, workspaces = manifest.get("files"), manifest.get("workspaces")
    if not isinstance(files, dict) or not isinstance(workspaces, list):
        raise ImportZipError("bad-manifest", "manifest.json lists no files or no workspaces.", path=MANIFEST)
    return manifest


def read_export_zip(path: Path, limits: Limits = Limits()) -> ZipContents:
    """Validate ``path`` and return what it holds (see the module doc). Reads only the zip."""
    from core.secrets import has_secrets
    from core.store.base import entry_from_bytes

    with _open(path, limits) as zf:
        infos = zf.infolist()
        if len(infos) > limits.max_members:
            raise ImportZipError("too-many", f"{path.name} has {len(infos):,} entries.", limit=limits.max_members)
        contents = ZipContents(name=path.name)
        seen: set[str] = set()
        members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            name = info.filename
            if not name:  # ZipInfo.is_dir() would raise IndexError on it
                contents.refused.append(Refused(name, "unsafe-path", "a member without a name"))
                continue
            if info.is_dir():
                continue
            folded = name.casefold()
            if folded in seen:
                contents.refused.append(Refused(name, "duplicate", "the zip holds this name twice; both left out"))
                members.pop(next((m for m in members if m.casefold() == folded), ""), None)
                continue
            seen.add(folded)
            if info.flag_bits & 0x1:
                raise ImportZipError("encrypted", f"{path.name} is encrypted; export it again without a password.")
            if stat.S_ISLNK(info.external_attr >> 16):
                contents.refused.append(Refused(name, "symlink", "a symbolic link, not a file"))
                continue
            if _member_path(name) is None:
                contents.refused.append(Refused(name, "unsafe-path", "not a file an export holds"))
                continue
            members[name] = info
        if MANIFEST not in members:
            raise ImportZipError("no-manifest", f"{path.name} has no manifest.json: not an export of this app.")
        budget = [limits.max_total_bytes]
        manifest = _manifest(_read_member(zf, members.pop(MANIFEST), limits, budget))
        hashes: Mapping[str, Any] = manifest["files"]
        contents.exported_at = str(manifest.get("exported_at", ""))
        cwds: dict[str, str] = {}
        for ws in manifest["workspaces"]:
            folder, cwd = (ws.get("key"), ws.get("cwd")) if isinstance(ws, dict) else (None, None)
            if not isinstance(folder, str) or not isinstance(cwd, str) or not cwd.startswith("/") or "\0" in cwd:
                contents.refused.append(
                    Refused(str(folder), "bad-workspace", "no absolute folder path in the manifest")
                )
                continue
            cwds[folder] = cwd
        data_of: dict[str, bytes] = {}
        for name, info in members.items():
            data = _read_member(zf, info, limits, budget)
            expected = hashes.get(name)
            if name.endswith("/MEMORY.md"):
                continue
            if not isinstance(expected, str):
                contents.refused.append(Refused(name, "unlisted", "not listed in manifest.json"))
            elif hashlib.sha256(data).hexdigest() != expected:
                contents.refused.append(Refused(name, "hash-mismatch", "its SHA-256 differs from manifest.json"))
            else:
                data_of[name] = data
        present = {i.filename for i in infos}
        for name in sorted(set(hashes) - present):
            if not name.endswith("/MEMORY.md"):
                contents.refused.append(Refused(name, "missing", "listed in manifest.json but not in the zip"))
    if "GLOBAL.md" in data_of:
        try:
            contents.global_text = data_of.pop("GLOBAL.md").decode("utf-8")
        except UnicodeDecodeError:
            contents.refused.append(Refused("GLOBAL.md", "not-text", "not UTF-8 text"))
        if contents.global_text and has_secrets(contents.global_text):
            contents.secrets.append("GLOBAL.md")
    by_folder: dict[str, list[tuple[str, bytes]]] = {}
    for name, data in sorted(data_of.items()):
        folder = name.split("/")[1]
        if folder not in cwds:
            contents.refused.append(Refused(name, "bad-workspace", "its workspace is not in manifest.json"))
            continue
        by_folder.setdefault(folder, []).append((name, data))
    for folder, files in by_folder.items():
        records: list[Record] = []
        digest = hashlib.sha256()
        for name, data in files:
            entry = entry_from_bytes(name.rsplit("/", 1)[1], data)
            if entry.record is None or not entry.is_valid:
                contents.refused.append(Refused(name, "invalid-record", "; ".join(entry.invalid_reasons)))
                continue
            if has_secrets(data.decode("utf-8", "replace")):  # the whole file, unknown frontmatter keys too
                contents.secrets.append(name)
            records.append(entry.record)
            digest.update(name.encode() + b"\0" + data + b"\0")
        if records:
            contents.workspaces.append(ZipWorkspace(folder, cwds[folder], tuple(records), digest.hexdigest()[:16]))
    return contents


# --- reviews ------------------------------------------------------------------------------------
class ZipConsolidator:
    """The ``Consolidator`` of a zip import: it "proposes" what was built from the zip."""

    def __init__(self) -> None:
        self.proposals: dict[str, Proposal] = {}

    @property
    def name(self) -> str:
        return CONSOLIDATOR

    @property
    def model(self) -> str:
        return ""

    def propose(
        self, request: ConsolidationInput, *, cancelled: CancelCheck = never_cancelled, debug: DebugSink | None = None
    ) -> Proposal:
        return self.proposals[request.evidence.session_id]


def workspace_changes(records: tuple[Record, ...], existing: Mapping[str, Record], zip_name: str) -> Proposal:
    changes: list[ProposedChange] = []
    for seq, record in enumerate(records, start=1):
        current = existing.get(record.name)
        if current is not None and (current.description, current.type, current.body.strip()) == (
            record.description,
            record.type,
            record.body.strip(),
        ):
            changes.append(
                NoChange(reason=f"{record.name}.md is already in memory as it is in the zip", evidence=(seq,))
            )
            continue
        reason = (
            f"replaces {record.name}.md with the version in {zip_name}"
            if current is not None
            else f"{record.name}.md from {zip_name}"
        )
        changes.append(PutRecord(record=ProposedRecord.from_record(record), reason=reason, evidence=(seq,)))
    return Proposal(changes=tuple(changes), summary=f"{len(records)} record(s) from {zip_name}")


def global_change(zip_text: str, current: str, zip_name: str) -> Proposal:
    if not zip_text.strip() or zip_text.strip() == current.strip():
        return Proposal(changes=(NoChange(reason="GLOBAL.md already says this", evidence=(1,)),), summary="")
    if not current.strip():
        text, reason = zip_text, f"GLOBAL.md from {zip_name} (yours is empty)"
    else:
        have = {" ".join(p.split()) for p in current.split("\n\n")}
        new = [p.strip("\n") for p in zip_text.split("\n\n") if p.strip() and " ".join(p.split()) not in have]
        if not new:
            return Proposal(changes=(NoChange(reason="GLOBAL.md already holds every paragraph", evidence=(1,)),))
        text = current.rstrip("\n") + f"\n\n## Imported from {zip_name}\n\n" + "\n\n".join(new) + "\n"
        reason = f"adds {len(new)} paragraph(s) from {zip_name} to GLOBAL.md"
    return Proposal(changes=(ReplaceGlobal(text=text, reason=reason, evidence=(1,)),), summary=reason)


@dataclass
class ZipReviews:
    """What opening a zip's reviews gave: one (service, review) per target, targets refused and why."""

    contents: ZipContents
    reviews: list[tuple[Any, Any]] = field(default_factory=list)  # (ConsolidationService, Review)
    refused: list[ImportZipError] = field(default_factory=list)


def _evidence(session_id: str, revision: str, cwd: str | None, title: str, texts: list[str], *, user: bool) -> Any:
    from core.sessions.models import Evidence, EvidenceMessage, EvidenceTurn

    role: Literal["user", "assistant"] = "user" if user else "assistant"
    turns = tuple(
        EvidenceTurn(index=seq, messages=(EvidenceMessage(seq=seq, role=role, text=text),))
        for seq, text in enumerate(texts, start=1)
    )
    rendered = "\n".join(f"## seq {seq}\n{text}\n" for seq, text in enumerate(texts, start=1))
    evidence = Evidence(
        session_id=session_id,
        session_revision=revision,
        cwd=cwd,
        title=title,
        turns=turns,
        size_bytes=len(rendered.encode("utf-8")),
    )
    return evidence, rendered


def open_zip_reviews(store: Any, contents: ZipContents, settings: Any = None) -> ZipReviews:
    """Open (propose) one review per workspace of ``contents`` and one for Global: each writes its
    ``proposed`` receipt and pending state, like any consolidation; memory is not touched.

    A review settled earlier (same zip content, same target) comes back ``reused`` and is left out.
    """
    from core.consolidation.service import ConsolidationService, PreparedSession
    from core.keys import normalize_cwd, workspace_key
    from core.model_catalog import ModelCatalog
    from core.records import render_record
    from core.settings import AppSettings
    from core.sources.importer import GLOBAL_CWD, GLOBAL_TARGET

    consolidator = ZipConsolidator()
    service = ConsolidationService(
        store, ModelCatalog(()), settings or AppSettings(), consolidators={CONSOLIDATOR: consolidator}
    )
    out = ZipReviews(contents)
    global_snapshot = store.read_global()
    title = f"Import from {contents.name}"
    prepared: list[PreparedSession] = []
    active = {i.key for i in store.list_workspaces()}
    archived = {i.key for i in store.list_workspaces(archived=True)}
    for ws in contents.workspaces:
        cwd = normalize_cwd(ws.cwd)
        key = workspace_key(cwd)
        if key not in active and key in archived:
            out.refused.append(
                ImportZipError(
                    "archived",
                    f"The memory of workspace {cwd} is in the Recycle Bin (archived). Restore it first, then import "
                    "the zip again; nothing was written.",
                    path=cwd,
                )
            )
            continue
        snapshot = store.read_workspace(key) if key in active else None
        sid = f"{CONSOLIDATOR}:{key}"
        texts = [f"[{contents.name}] {r.name}.md\n{render_record(r).decode('utf-8')}" for r in ws.records]
        evidence, rendered = _evidence(sid, ws.digest, cwd, title, texts, user=False)
        existing = {r.name: r for r in snapshot.records()} if snapshot is not None else {}
        consolidator.proposals[sid] = workspace_changes(ws.records, existing, contents.name)
        prepared.append(PreparedSession(evidence, rendered, cwd, key, global_snapshot, snapshot))
    if contents.global_text is not None:
        sid = f"{CONSOLIDATOR}:{GLOBAL_TARGET}"
        revision = hashlib.sha256(contents.global_text.encode("utf-8")).hexdigest()[:16]
        # Global text the user exported from their own memory counts as their own words.
        evidence, rendered = _evidence(sid, revision, None, title, [contents.global_text], user=True)
        consolidator.proposals[sid] = global_change(contents.global_text, global_snapshot.text, contents.name)
        prepared.append(PreparedSession(evidence, rendered, GLOBAL_CWD, GLOBAL_TARGET, global_snapshot, None))
    for item in prepared:
        review = service.propose(item, consolidator=CONSOLIDATOR)  # type: ignore[arg-type]  # registered above
        if not review.reused:
            out.reviews.append((service, review))
    return out
