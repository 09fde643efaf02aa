"""The review queue for stale memory: what in a workspace deserves a second look, and why.

Six reasons, each a :class:`StaleItem` with keep / edit / delete left to the user:

- **old**: not changed for ``older_than_days`` (file mtime) *and*, once the usage ledger exists
  (``core.usage``), not used by an agent in that time either: a record read every day is not
  stale just because nobody had to change it;
- **never-used**: in the ledger's time, never opened, matched, served or edited by an agent,
  though it has been there for ``never_used_days`` (only when the ledger exists);
- **used-unchanged**: used often (``used_often`` uses) but not changed for ``unchanged_days``:
  agents lean on it, so it is worth checking it is still true;
- **broken-links**: ``[[name]]`` links to records that don't exist in the workspace;
- **near-duplicate**: says nearly what another record says (the scores of
  ``core.consolidation.similarity``: the same normalized fact text and the same scorers);
- **missing-files**: mentions paths (``src/app.py``, ``docs/CHANGELOG.md``) that no longer exist in
  the workspace folder (checked only when the folder exists; URLs are not paths).

"Mark reviewed" is kept outside the record (the design note wants frontmatter for the agent, not
for bookkeeping): the store keeps, per workspace, a private map of record name -> the record file's
revision when it was marked (``store.files(STALE_MARKS)``). A record whose file still has that
revision is left out of the queue; any change to it (by anyone) puts it back. Marks of records that
no longer exist are dropped on the next mark.

Each item carries its reason's parameters (``days``, ``links``, ``similar``/``score``, ``paths``)
so the window words it in the user's language; ``detail`` is the English wording (CLI, fallback).
"""

from __future__ import annotations

import json
import os
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Literal

from rapidfuzz import fuzz, process

from core.consolidation.similarity import SIMILAR_THRESHOLD
from core.errors import CancelledError, DshMemoryError
from core.models import Record, Revision, WorkspaceSnapshot
from core.store.api import MemoryStore
from core.store.files import STALE_MARKS
from core.usage import RecordUsage, UsageView, load_view

Reason = Literal["old", "broken-links", "near-duplicate", "missing-files", "never-used", "used-unchanged"]
REASONS: tuple[Reason, ...] = ("old", "broken-links", "near-duplicate", "missing-files", "never-used", "used-unchanged")
DEFAULT_DAYS = 180
NEVER_USED_DAYS = 30  # younger records had little chance to be used yet
USED_OFTEN = 10  # opened/matched/served/edited at least this often
UNCHANGED_DAYS = 365
_LINK = re.compile(r"\[\[([^\[\]\n]+)\]\]")
_URL = re.compile(r"[a-z][a-z0-9+.-]*://\S+", re.IGNORECASE)
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
# A relative path with a folder or a file extension: "src/app.py", "docs/", "Makefile.am"; backticks
# and quotes around it are common in notes.
_PATH = re.compile(
    r"(?<![\w/.~-])((?:[\w.-]+/)+[\w.-]*|[\w-]+\.(?:py|ts|tsx|js|jsx|md|toml|ya?ml|json|rs|go|sh|cfg|ini|txt))(?![\w/])"
)
MARKS_VERSION = 1
MAX_DUPLICATE_RECORDS = 1000  # ~0.5 M pairs, 5-10 s; 2000 records took 67 s on the shared 2-core box


@dataclass(frozen=True)
class StaleItem:
    name: str
    reason: Reason
    detail: str  # English: "links to [[x]], [[y]]", "similar to [[z]], 87 %", ...
    key: str = ""  # the workspace
    revision: Revision = ""  # the record file's revision when scanned (what "mark reviewed" stores)
    days: int = 0  # old: days since the last change
    links: tuple[str, ...] = ()  # broken-links: the missing targets
    similar: str = ""  # near-duplicate: the other record
    score: int = 0  # near-duplicate: 0-100
    paths: tuple[str, ...] = ()  # missing-files: the paths that are gone (at most five)
    uses: int = 0  # agent uses in the ledger (opened, matched, served, edited)
    last_used_days: int | None = None  # days since the last use; None: never (or no ledger)


def _looks_like_path(path: str) -> bool:
    """ "src/app.py", "db/migrations/", "a/b/c": yes; "hit/miss", "and/or", "input/output": no (prose)."""
    parts = [p for p in path.split("/") if p]
    return path.endswith("/") or len(parts) >= 3 or "." in parts[-1] or len(parts) == 1


def _mentioned_paths(text: str) -> list[str]:
    text = _URL.sub(" ", text)
    out: list[str] = []
    for m in _PATH.finditer(text):
        path = m.group(1).rstrip(".")
        if path.startswith(("/", "~")) or ".." in path.split("/") or len(path) < 3 or not _looks_like_path(path):
            continue
        out.append(path)
    # "errors.ts" right after "src/api/errors.ts" names the same file, not one at the folder's top.
    named = {p.rsplit("/", 1)[-1] for p in out if "/" in p.rstrip("/")}
    return list(dict.fromkeys(p for p in out if "/" in p or p not in named))


_MARKUP = re.compile(r"\*\*(?:why|how to apply):\*\*", re.IGNORECASE)
_NOT_WORD = re.compile(r"[^\w./-]")  # \w is str.isalnum() plus "_": the same characters similarity keeps


def _fact_text(record: Record) -> str:
    """:func:`core.consolidation.similarity.fact_text`, with one regex instead of a per-character loop
    (the same result; tested against it), because a scan normalizes every record of the root."""
    text = _MARKUP.sub(" ", unicodedata.normalize("NFKC", f"{record.description}\n{record.body}").lower())
    return " ".join(_NOT_WORD.sub(" ", text).split())


def near_duplicates(
    records: Sequence[Record],
    *,
    threshold: int = SIMILAR_THRESHOLD,
    cancelled: Callable[[], bool] = lambda: False,
) -> dict[str, tuple[str, int]]:
    """record name -> (the other record it most resembles, score) for every pair at or above threshold.

    The same scores as :func:`core.consolidation.similarity.most_similar` (word-sorted ratio for
    Latin text, character ratio when either side has Chinese), computed with rapidfuzz's own C
    scorers over texts normalized (and word-sorted) once. Still quadratic: 100 records take
    ~0.1 s, 1000 about 10 s, 2000 over a minute (see ``MAX_DUPLICATE_RECORDS``). ``cancelled`` is
    asked every 50 records (CancelledError).
    """
    texts = [_fact_text(r) for r in records]
    cjk = [bool(_CJK.search(t)) for t in texts]
    squeezed = [t.replace(" ", "") for t in texts]
    # token_sort_ratio(a, b) is ratio() of the word-sorted texts: sort each text once, not per pair.
    word_sorted = [" ".join(sorted(t.split())) for t in texts]
    latin_idx = [i for i, c in enumerate(cjk) if not c]
    cjk_idx = [i for i, c in enumerate(cjk) if c]
    out: dict[str, tuple[str, int]] = {}
    for i, record in enumerate(records):
        if i % 50 == 49 and cancelled():  # a large workspace takes seconds: stay cancellable inside it
            raise CancelledError("The scan was cancelled; nothing was changed.")
        best: tuple[float, int] | None = None
        candidates: list[tuple[list[int], list[str], Callable[..., float], str]] = []
        if cjk[i]:
            candidates.append((list(range(len(records))), squeezed, fuzz.ratio, squeezed[i]))
        else:
            candidates.append((latin_idx, word_sorted, fuzz.ratio, word_sorted[i]))
            candidates.append((cjk_idx, squeezed, fuzz.ratio, squeezed[i]))
        for indexes, pool, scorer, query in candidates:
            choices = {j: pool[j] for j in indexes if j != i and records[j].name != record.name}
            if not choices:
                continue
            hit = process.extractOne(query, choices, scorer=scorer, score_cutoff=threshold, processor=None)
            if hit is not None and (best is None or hit[1] > best[0]):
                best = (hit[1], int(hit[2]))
        if best is not None:
            out[record.name] = (records[best[1]].name, round(best[0]))
    return out


def stale_items(
    snapshot: WorkspaceSnapshot,
    *,
    older_than_days: int = DEFAULT_DAYS,
    reviewed: Mapping[str, Revision] | None = None,
    now: datetime | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    usage: UsageView | None = None,
) -> list[StaleItem]:
    """Every reason each record of ``snapshot`` deserves a look, in record-name order.

    ``reviewed``: record name -> the file revision it was marked reviewed at (see the module doc).
    ``usage``: the usage ledger's view; without one (or before the ledger was ever built) the
    usage rules stay quiet and "old" means only "not changed".
    """
    now = now or datetime.now(UTC)
    reviewed = reviewed or {}
    entries = {e.name: e for e in snapshot.entries if e.record is not None and e.is_valid}
    records = snapshot.records()
    names = {r.name for r in records}
    folder = snapshot.info.cwd if os.path.isdir(snapshot.info.cwd) else None
    # Comparing every pair is quadratic (10-20 µs a pair of ~1 KB notes): past this size a workspace's
    # scan would take minutes, so the near-duplicate check is left out there (the scan says so).
    duplicates = near_duplicates(records, cancelled=cancelled) if len(records) <= MAX_DUPLICATE_RECORDS else {}
    items: list[StaleItem] = []
    key = snapshot.key
    for record in sorted(records, key=lambda r: r.name):
        entry = entries.get(record.name)
        revision = entry.revision if entry is not None else ""
        if revision and reviewed.get(record.name) == revision:
            continue
        when = datetime.fromtimestamp(entry.mtime_ns / 1e9, UTC) if entry is not None and entry.mtime_ns else None
        used = usage.get(key, record.name) if usage is not None and usage.available else None
        items += _usage_items(record.name, key, revision, when, now, used, usage, older_than_days)
        broken = tuple(sorted({m.group(1).strip() for m in _LINK.finditer(record.body)} - names))
        if broken:
            detail = "links to " + ", ".join(f"[[{b}]]" for b in broken)
            items.append(StaleItem(record.name, "broken-links", detail, links=broken, key=key, revision=revision))
        similar = duplicates.get(record.name)
        if similar is not None:
            other, score = similar
            detail = f"similar to [[{other}]], {score} %"
            items.append(
                StaleItem(record.name, "near-duplicate", detail, similar=other, score=score, key=key, revision=revision)
            )
        if folder is not None:
            missing = tuple(p for p in _mentioned_paths(record.body) if not os.path.lexists(os.path.join(folder, p)))
            if missing:
                shown = missing[:5]
                detail = "mentions " + ", ".join(shown)
                items.append(StaleItem(record.name, "missing-files", detail, paths=shown, key=key, revision=revision))
    return items


def _usage_items(
    name: str,
    key: str,
    revision: Revision,
    when: datetime | None,
    now: datetime,
    used: RecordUsage | None,
    usage: UsageView | None,
    older_than_days: int,
) -> list[StaleItem]:
    """The rules on age and use: "old", "never-used", "used-unchanged" (see the module doc)."""
    if when is None:
        return []
    days = (now - when).days
    ledger = usage is not None and usage.available
    uses = used.used if used is not None else 0
    last = used.last_used_at() if used is not None else None
    last_days = (now - last).days if last is not None else None
    common = {"key": key, "revision": revision, "days": days, "uses": uses, "last_used_days": last_days}
    out: list[StaleItem] = []
    recently_used = last_days is not None and last_days <= older_than_days
    if days > older_than_days and not recently_used:
        detail = f"not changed for {days} days" + (", not used by an agent since" if ledger else "")
        out.append(StaleItem(name, "old", detail, **common))  # type: ignore[arg-type]
    if ledger and uses == 0 and days >= NEVER_USED_DAYS:
        out.append(StaleItem(name, "never-used", f"never used since created ({days} days)", **common))  # type: ignore[arg-type]
    if ledger and uses >= USED_OFTEN and days >= UNCHANGED_DAYS:
        detail = f"used often ({uses} times), never changed in {days} days"
        out.append(StaleItem(name, "used-unchanged", detail, **common))  # type: ignore[arg-type]
    return out


# --- "mark reviewed" (private state through the store) -------------------------------------------
def read_marks(store: MemoryStore, key: str) -> dict[str, Revision]:
    """record name -> revision marked reviewed; {} when none (or the saved marks are unreadable:
    they are bookkeeping, never memory, so a bad file only puts records back in the queue)."""
    text = store.files(STALE_MARKS).read(key)
    if not text:
        return {}
    try:
        data = json.loads(text)
    except ValueError:
        return {}
    marks = data.get("reviewed") if isinstance(data, dict) else None
    if not isinstance(marks, dict):
        return {}
    return {str(k): str(v) for k, v in marks.items() if isinstance(v, str)}


def mark_reviewed(store: MemoryStore, snapshot: WorkspaceSnapshot, names: Iterable[str]) -> dict[str, Revision]:
    """Mark ``names`` reviewed at their current revision in ``snapshot``; returns the saved marks.

    Marks of records no longer in the workspace are dropped (a record created later under the same
    name is a different record)."""
    current = {e.name: e.revision for e in snapshot.entries if e.record is not None}
    marks = {n: r for n, r in read_marks(store, snapshot.key).items() if n in current}
    for name in names:
        if name in current:
            marks[name] = current[name]
    text = json.dumps({"version": MARKS_VERSION, "reviewed": dict(sorted(marks.items()))}, ensure_ascii=False)
    store.files(STALE_MARKS).write(snapshot.key, text + "\n")
    return marks


# --- a scan over several workspaces (a job in the window) ------------------------------------------
ProgressFn = Callable[[int, int, str], None]


@dataclass
class StaleScan:
    """What one scan found: the items, the snapshots they were found in (the CAS bases of a delete)."""

    items: list[StaleItem] = field(default_factory=list)
    snapshots: dict[str, WorkspaceSnapshot] = field(default_factory=dict)
    failed: dict[str, str] = field(default_factory=dict)  # key -> why it could not be scanned
    records: int = 0
    no_duplicate_check: list[str] = field(default_factory=list)  # keys too large for the pairwise check
    usage_available: bool = False  # the usage ledger existed: the usage rules were applied


def scan(
    store: MemoryStore,
    keys: Sequence[str] | None = None,
    *,
    older_than_days: int = DEFAULT_DAYS,
    now: datetime | None = None,
    cancelled: Callable[[], bool] = lambda: False,
    progress: ProgressFn | None = None,
    usage: UsageView | None = None,
) -> StaleScan:
    """Scan ``keys`` (None: every active workspace). Cancellable between workspaces (CancelledError).

    ``usage``: the usage ledger's view (None: the one on disk now, which may be none yet)."""
    wanted = list(keys) if keys is not None else [w.key for w in store.list_workspaces()]
    if usage is None:
        try:
            usage = load_view(store)
        except DshMemoryError:
            usage = UsageView()
    out = StaleScan(usage_available=usage.available)
    for done, key in enumerate(wanted):
        if cancelled():
            raise CancelledError("The scan was cancelled; nothing was changed.")
        if progress is not None:
            progress(done, len(wanted), key)
        try:
            snapshot = store.read_workspace(key)
            marks = read_marks(store, key)
        except DshMemoryError as exc:
            out.failed[key] = exc.message
            continue
        out.snapshots[key] = snapshot
        out.records += len(snapshot.entries)
        if len(snapshot.entries) > MAX_DUPLICATE_RECORDS:
            out.no_duplicate_check.append(key)
        out.items += stale_items(
            snapshot, older_than_days=older_than_days, reviewed=marks, now=now, cancelled=cancelled, usage=usage
        )
    if progress is not None:
        progress(len(wanted), len(wanted), "")
    return out
