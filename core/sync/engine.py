"""``dsh-memory sync``: the owned part of the root against a git remote, record by record.

One run, under ``.manager/sync/lock``:

1. finish an interrupted move; if a sync review is pending, stop until every item is chosen, then
   commit the merge it stands for (parents: this machine's commit and the remote commit reviewed);
2. scan the root (:mod:`core.sync.scan`) and commit what changed since the last sync to the private
   repository ``.manager/sync/repo.git`` (author: this machine; message: what changed and why) —
   unless a changed record holds a credential-shaped value: then stop, say which, commit nothing;
3. ask the remote for its branch; fetch it when it is new to us;
4. three-way merge per synced path (base = the merge base): a change on one side only is written
   here through the store (:mod:`core.sync.apply`); a record (or GLOBAL.md) changed on both sides
   becomes a sync review item; frozen (invalid) local files are never touched;
5. with no review pending: commit the merge and push it. Nothing is pushed before that commit.

Every write to memory is a store transaction; git refs move only after their objects are written;
state files are written atomically; the merge's memory changes are ONE store transaction over the
whole root (:mod:`core.sync.apply`). So a run killed at any instant leaves the root old or new,
and the next run converges (``DSH_SYNC_KILL_AT=N`` kills the process at step N, for the tests).
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import signal
import socket
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path

from core import messages as msg
from core.errors import CancelledError, ConflictError, DshMemoryError, UsageError
from core.fingerprint import content_hash
from core.layout import ARCHIVED_DIR, GLOBAL_FILE, RECORD_SUFFIX, REVIEWS_DIR, SCOPE_FILE, WORKSPACES_DIR
from core.secrets import has_secrets
from core.store.api import MemoryStore
from core.sync import mapping, purge, state
from core.sync.apply import apply_changes, archive_transition, split
from core.sync.exact import same_record
from core.sync.gitcli import Git, GitMissingError, SyncError, blob_sha
from core.sync.models import PendingReview, SyncConfig, SyncResult, SyncSummary
from core.sync.move import finish_pending_moves
from core.sync.review import Resolution, ReviewItem, resolved_text
from core.sync.scan import LocalTree, scan

LOCAL_REF = "refs/heads/local"
TRACK_REF = "refs/remotes/sync/main"
KILL_ENV = "DSH_SYNC_KILL_AT"


class _Steps:
    """Counts the steps of a run; with ``DSH_SYNC_KILL_AT=N`` the process SIGKILLs itself at step N."""

    def __init__(self, cancelled: Callable[[], bool] | None = None) -> None:
        self.cancelled = cancelled
        raw = os.environ.get(KILL_ENV, "")
        self.kill_at = int(raw) if raw.isdigit() else 0
        self.n = 0
        self.names: list[str] = []

    def __call__(self, name: str) -> None:
        self.n += 1
        self.names.append(name)
        if self.n == self.kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
        # Every step boundary is a safe place to stop (the kill tests prove it), so Cancel acts here.
        if self.cancelled is not None and self.cancelled():
            raise CancelledError(msg.SYNC_CANCELLED.format())


def _paths(root: Path) -> dict[str, Path]:
    d = state.sync_path(root)
    return {n: d / f"{n}.json" for n in ("config", "last", "review", "held")}


def load_config(root: Path) -> SyncConfig:
    obj = state.read_json(_paths(root)["config"])
    try:
        return SyncConfig.model_validate(obj) if obj else SyncConfig()
    except ValueError:
        return SyncConfig()


def save_config(root: Path, remote: str, branch: str = "main") -> SyncConfig:
    if has_secrets(remote):
        raise UsageError(msg.SYNC_REMOTE_CREDENTIAL.format())
    cfg = SyncConfig(remote=remote.strip(), branch=branch)
    state.sync_dir(root)
    state.write_json(_paths(root)["config"], cfg.model_dump())
    return cfg


def last_result(root: Path) -> SyncResult | None:
    obj = state.read_json(_paths(root)["last"])
    try:
        return SyncResult.model_validate(obj) if obj else None
    except ValueError:
        return None


def pending_review(root: Path) -> PendingReview | None:
    obj = state.read_json(_paths(root)["review"])
    try:
        return PendingReview.model_validate(obj) if obj else None
    except ValueError:
        return None


@contextlib.contextmanager
def sync_lock(root: Path) -> Iterator[None]:
    d = state.sync_dir(root)
    fd = os.open(d / "lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise SyncError(msg.SYNC_BUSY.format(), reason="busy") from None
        yield
    finally:
        os.close(fd)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _author() -> tuple[str, str]:
    host = socket.gethostname() or "unknown-host"
    return f"dsh-memory on {host}", f"dsh-memory@{host}"


class _Run:
    """One sync run over ``store`` (its root must be on disk)."""

    def __init__(
        self, store: MemoryStore, cfg: SyncConfig, env: Mapping[str, str] | None,
        cancelled: Callable[[], bool] | None = None,
    ) -> None:
        root = store.root
        if root is None:
            raise UsageError(msg.SYNC_NO_ROOT.format())
        self.store, self.root, self.cfg = store, root, cfg
        self.git = Git(state.sync_dir(root) / "repo.git", env)
        self.git.init()
        self.step = _Steps(cancelled)
        self.map = mapping.load_map(root)
        self.to_sync = {loc: s for s, loc in self.map.items()}
        held = state.read_json(_paths(root)["held"]) or {}
        self.held: dict[str, str] = {str(k): str(v) for k, v in held.items()}
        self.result = SyncResult(status="up-to-date", message="", time=_now(), remote=cfg.remote)
        self.purges = purge.load_state(root)
        self.lease: str | None = None  # set when this run must force-push a rewritten history

    # --- local side -----------------------------------------------------------------------------
    def mine(self, head_map: Mapping[str, str]) -> tuple[LocalTree, dict[str, str]]:
        """The local tree as it should be committed: frozen and held paths keep the committed version."""
        tree = scan(self.root, self.to_sync, local_only=frozenset(self.purges.local_only))
        if self.purges.seen:  # the tombstones travel with the tree, never into a memory root
            tree.add(purge.META_PATH, purge.meta_bytes(self.purges.seen))
        out = dict(tree.files)
        for p in list(tree.frozen):
            out.pop(p, None)
            if p in head_map:
                out[p] = head_map[p]
        for p, local_sha in list(self.held.items()):
            if tree.files.get(p, "") == local_sha:
                out.pop(p, None)
                if p in head_map:
                    out[p] = head_map[p]
            else:
                del self.held[p]  # edited here since: a real local change now
        # A workspace's identity file is its first machine's: a mapped one keeps the synced copy.
        for p in [p for p in out if p.endswith("/" + SCOPE_FILE) and p in head_map]:
            out[p] = head_map[p]
        self.result.frozen = dict(tree.frozen)
        return tree, out

    def commit_tree(
        self, head: str | None, head_map: Mapping[str, str], target: Mapping[str, str], tree: LocalTree,
        parents_extra: list[str], message: str,
    ) -> str | None:
        """Commit ``target`` (synced path -> blob id) on top of ``head``: local bytes where they are
        the wanted version, the rest (the remote's versions) from the repository, in one batch."""
        changes: dict[str, bytes | None] = {}
        from_git: dict[str, str] = {}
        for p in set(head_map) | set(target):
            if head_map.get(p) == target.get(p):
                continue
            if p not in target:
                changes[p] = None
                continue
            data = tree.read(p) if p in tree.local else None
            if data is not None and blob_sha(data) == target[p]:
                changes[p] = data
            else:
                from_git[p] = target[p]
        blobs = self.git.read_blobs(from_git.values())
        for p, sha in from_git.items():
            if sha not in blobs:
                raise SyncError(msg.SYNC_FILE_CHANGED.format(path=p), reason="git")
            changes[p] = blobs[sha]
        if not changes and not parents_extra:
            return head
        parents = ([head] if head else []) + parents_extra
        return self.git.commit(LOCAL_REF, parents, changes, message, _author(), int(time.time()))

    def describe(self, changed: list[str]) -> str:
        """What changed and why, from the store's own commit logs and the receipts that came with it."""
        host = socket.gethostname()
        lines = [f"Memory from {host}: {len(changed)} file(s)", ""]
        by_ws: dict[str, list[str]] = {}
        for p in changed:
            top, skey, name = split(p)
            if p == purge.META_PATH:
                lines.append("- the list of workspaces deleted forever (their synced history was rewritten)")
            elif top in (WORKSPACES_DIR, ARCHIVED_DIR):
                by_ws.setdefault(skey, []).append(name.removesuffix(RECORD_SUFFIX))
            elif top == REVIEWS_DIR:
                lines.append(f"- consolidation review {name.removesuffix(RECORD_SUFFIX)}")
            else:
                lines.append(f"- {p}{self._why('global')}")
        for skey, names in sorted(by_ws.items()):
            key = mapping.local_key(self.map, skey)
            lines.append(f"- {skey}: {', '.join(sorted(names)[:20])}{self._why(key)}")
        return "\n".join(lines) + "\n"

    def _why(self, scope: str) -> str:
        try:
            log = self.store.history.commit_log(scope)[:5]
        except DshMemoryError:
            return ""
        kinds = sorted({"user edit" if e.origin == "manual" else "consolidation" for e in log})
        return f" ({', '.join(kinds)})" if kinds else ""

    # --- the whole run --------------------------------------------------------------------------
    def run(self) -> SyncResult:
        finish_pending_moves(self.store)
        git, cfg = self.git, self.cfg
        if self.purges.pending and purge.needs_rewrite(git, self.purges.pending, [LOCAL_REF, TRACK_REF]):
            purge.rewrite(git, self.root, self.purges.pending, [LOCAL_REF, TRACK_REF])  # a purge killed midway
            self.step("purge-rewritten")
        if self.purges.following:  # a tombstone from another machine, half-applied by a killed run
            purge.finish_follow(self.store, git)
            self.purges = purge.load_state(self.root)
        head = git.rev(LOCAL_REF)
        head_map = git.ls_tree(head)
        pending = pending_review(self.root)
        if pending is not None and self._stale(pending):
            # A record under review was edited here since: review it afresh (the merge below finds it).
            state.remove(_paths(self.root)["review"])
            pending = None
        if pending is not None:
            if pending.open_items():
                return self.done(
                    "review", msg.SYNC_REVIEW_WAITING.format(n=len(pending.open_items())),
                    conflicts=[i.id for i in pending.open_items()], commit=head,
                )
            if head is None or not git.is_ancestor(pending.remote_commit, head):
                tree, target = self.mine(head_map)
                theirs = git.ls_tree(pending.remote_commit)
                for p in {*tree.frozen, *self.held}:
                    # Never written here: the remote keeps its version (as in an unreviewed merge).
                    if p in theirs:
                        target[p] = theirs[p]
                    else:
                        target.pop(p, None)
                head = self.commit_tree(
                    head, head_map, target, tree, [pending.remote_commit],
                    f"Merge the sync review of {len(pending.items)} record(s)\n",
                )
                self.step("review-merged")
                head_map = git.ls_tree(head)
            state.remove(_paths(self.root)["review"])
        committed = self.commit_local(head, head_map)
        if isinstance(committed, SyncResult):
            return committed
        head, head_map = committed
        remote = git.remote_head(cfg.remote, cfg.branch)
        self.step("asked-remote")
        fetched = False
        if remote is not None and self.purges.pending:
            # This machine purged a workspace: the remote still has it in its history. Merge what it
            # has (rewritten the same way), then replace its branch: forced, with a lease on ``remote``.
            self.lease = remote
            if remote != self.purges.lease:
                git.fetch(cfg.remote, cfg.branch, TRACK_REF)
                self.step("fetched")
                purge.rewrite(git, self.root, self.purges.pending, [TRACK_REF])
                fetched = True
            remote = git.rev(TRACK_REF)
        elif remote not in (None, head) and (git.rev(remote) is None or not (head and git.is_ancestor(remote, head))):
            git.fetch(cfg.remote, cfg.branch, TRACK_REF)
            self.step("fetched")
            fetched = True
        if fetched and remote is not None:
            # Tombstones of workspaces another machine deleted forever: rewrite ours the same way.
            gone = purge.follow(self.store, git, self._blob(git.blob_id(remote, purge.META_PATH)), self.map)
            if gone:
                self.purges = purge.load_state(self.root)
                self.result.purged = gone
                head = git.rev(LOCAL_REF)
                committed = self.commit_local(head, git.ls_tree(head))
                if isinstance(committed, SyncResult):
                    return committed
                head, head_map = committed
        if remote is None or remote == head or (head is not None and git.is_ancestor(remote, head)):
            return self.push(head, remote)
        return self.merge(head, head_map, remote)

    def commit_local(
        self, head: str | None, head_map: dict[str, str]
    ) -> tuple[str | None, dict[str, str]] | SyncResult:
        """Commit what changed here since the last sync (or stop: a credential-shaped value)."""
        tree, mine = self.mine(head_map)
        changed = sorted(p for p in set(mine) | set(head_map) if mine.get(p) != head_map.get(p))
        secrets = [p for p in changed if p in mine and _has_secret(tree, p)]
        if secrets:
            return self.done(
                "secret",
                msg.SYNC_SECRETS.format(paths=", ".join(secrets)),
                secrets=secrets, commit=head,
            )
        if changed:
            head = self.commit_tree(head, head_map, mine, tree, [], self.describe(changed))
            head_map = dict(mine)
            self.step("local-commit")
        self.result.sent = [p for p in changed if not p.endswith("/" + SCOPE_FILE) and p != purge.META_PATH]
        return head, head_map

    def push(self, head: str | None, remote: str | None) -> SyncResult:
        if self.lease is not None and head is not None:
            self.git.push(self.cfg.remote, head, self.cfg.branch, lease=self.lease)
            self.git.update_ref(TRACK_REF, head)
            self.step("pushed")
            self._rewrite_pushed()
            return self.done(
                "pushed",
                msg.SYNC_REWRITTEN.format(),
                commit=head, rewritten=True,
            )
        if head is not None and head != remote:
            self.git.push(self.cfg.remote, head, self.cfg.branch)
            self.git.update_ref(TRACK_REF, head)
            self.step("pushed")
            if self.purges.pending:  # the remote had no branch: nothing of the purge was ever there
                self._rewrite_pushed()
            if self.result.received:
                return self.done("merged", msg.SYNC_RECEIVED.format(n=len(self.result.received)), commit=head)
            return self.done("pushed", msg.SYNC_SENT.format(n=len(self.result.sent)), commit=head)
        sent = self.result.sent
        status = "merged" if self.result.received else ("pushed" if sent else "up-to-date")
        said = msg.SYNC_UP_TO_DATE if status == "up-to-date" else msg.SYNC_SYNCED
        return self.done(status, said.format(), commit=head)

    def merge(self, head: str | None, head_map: dict[str, str], remote: str) -> SyncResult:
        git = self.git
        base = git.merge_base(head, remote) if head else None
        base_map, theirs = git.ls_tree(base), git.ls_tree(remote)
        frozen = self.result.frozen
        take: dict[str, str | None] = {}
        both: list[str] = []
        override: dict[str, str | None] = {}
        moved = self._transitions(base_map, head_map, theirs)
        for p in sorted(set(base_map) | set(head_map) | set(theirs)):
            b, m, t = base_map.get(p), head_map.get(p), theirs.get(p)
            if m == t or split(p)[1] in moved or p == purge.META_PATH:
                continue  # (the tombstones: this machine's list already holds the remote's, see follow)
            if p in frozen or p in self.held:
                override[p] = t  # never written here; the remote keeps its version
            elif m == b:
                take[p] = t
            elif t == b:
                continue
            elif p.endswith("/" + SCOPE_FILE):
                if t is not None:
                    override[p] = t
            elif split(p)[0] == REVIEWS_DIR:
                continue  # a receipt edited on both machines: each keeps its own (a log, not memory)
            else:
                both.append(p)
        # Both changed, but to the same record in different YAML formatting (a crash between the
        # transaction and the exact-bytes step leaves that): settled by taking theirs, no review.
        base_of = {p: base_map.get(p) for p in take}
        pairs = git.read_blobs(s for p in both for s in (head_map.get(p), theirs.get(p)) if s)
        for p in [p for p in both if head_map.get(p) and theirs.get(p)]:
            if same_record(split(p)[2], pairs[head_map[p]], pairs[theirs[p]]):
                both.remove(p)
                take[p], base_of[p] = theirs[p], head_map[p]
        blobs = git.read_blobs([s for s in [*take.values(), *base_of.values()] if s])
        applied_moves = self._apply_transitions({s: a for s, a in moved.items() if not a})  # restores first
        archive = {mapping.local_key(self.map, s): s for s, a in moved.items() if a}
        applied = apply_changes(
            self.store,
            {p: (blobs[s] if s else None) for p, s in take.items()},
            {p: blobs[s] if s else None for p, s in base_of.items()},
            lambda s: mapping.local_key(self.map, s),
            lambda s: self._blob(theirs.get(f"{WORKSPACES_DIR}/{s}/{SCOPE_FILE}")),
            self.step,
            archive=sorted(archive),
        )
        applied_moves += [f"{ARCHIVED_DIR}/{archive[k]}/" for k in applied.archived]
        self.result.received = sorted(p for p in [*applied.done, *applied_moves] if not p.endswith("/" + SCOPE_FILE))
        self.result.held = dict(applied.held)
        if applied.changed_here:
            # Edited here while we merged: committing the merge now would claim those remote versions
            # were taken. Nothing is pushed; the next run sees both edits (a sync review).
            self._save_held(applied.held, override)
            return self.done(
                "changed-here",
                msg.SYNC_CHANGED_HERE.format(paths=", ".join(applied.changed_here)),
                commit=head,
            )
        if both:
            self._save_review(remote, both, base_map, head_map, theirs)
            self._save_held(applied.held, override)
            return self.done(
                "review",
                msg.SYNC_BOTH_CHANGED.format(n=len(both)),
                conflicts=both, commit=head,
            )
        tree, merged = self.mine(head_map)
        for p in [p for p in merged if p.endswith("/" + SCOPE_FILE) and p in theirs]:
            merged[p] = theirs[p]  # identity: the synced copy, not this machine's new scope.json
        for p, t in {**override, **{p: theirs.get(p) for p in applied.held}}.items():
            if t is None:
                merged.pop(p, None)
            else:
                merged[p] = t
        self._save_held(applied.held, override)
        if (head is None or git.is_ancestor(head, remote)) and merged == theirs:
            git.update_ref(LOCAL_REF, remote)
            new_head: str | None = remote
        else:
            new_head = self.commit_tree(
                head, head_map, merged, tree, [remote],
                f"Merge memory from the remote into {socket.gethostname()}\n",
            )
        self.step("merge-commit")
        return self.push(new_head, remote)

    def _rewrite_pushed(self) -> None:
        """The forced push went through: nothing pending; old objects pruned here and, when the
        remote is a repository on a local path, there too (a hosted one prunes on its own schedule)."""
        self.purges = self.purges.model_copy(update={"pending": [], "lease": None})
        purge.save_state(self.root, self.purges)
        self.git.prune()
        purge.prune_local_remote(self.cfg.remote, self.git.env)

    def _blob(self, sha: str | None) -> bytes | None:
        return self.git.read_blobs([sha]).get(sha) if sha else None

    def _transitions(
        self, base: Mapping[str, str], mine: Mapping[str, str], theirs: Mapping[str, str]
    ) -> dict[str, bool]:
        """Sync keys the remote archived (True) or restored (False) while this machine left them alone."""
        out: dict[str, bool] = {}
        keys = {split(p)[1] for p in theirs if p.endswith("/" + SCOPE_FILE)}
        for s in keys:
            act, arc = f"{WORKSPACES_DIR}/{s}/{SCOPE_FILE}", f"{ARCHIVED_DIR}/{s}/{SCOPE_FILE}"
            for frm, to, archived in ((act, arc, True), (arc, act, False)):
                if frm in base and to in theirs and frm not in theirs and frm in mine:
                    prefix = frm.rsplit("/", 1)[0] + "/"
                    untouched = all(mine.get(p) == base.get(p) for p in set(base) | set(mine) if p.startswith(prefix))
                    if untouched:
                        out[s] = archived
        return out

    def _apply_transitions(self, moved: Mapping[str, bool]) -> list[str]:
        done = []
        for s, archived in sorted(moved.items()):
            if archive_transition(self.store, mapping.local_key(self.map, s), archived):
                done.append(f"{ARCHIVED_DIR if archived else WORKSPACES_DIR}/{s}/")
                self.step(f"archive:{s}")
        return done

    def _save_review(
        self, remote: str, paths: list[str], base: Mapping[str, str], mine: Mapping[str, str], theirs: Mapping[str, str]
    ) -> None:
        blobs = self.git.read_blobs(s for p in paths for s in (base.get(p), mine.get(p), theirs.get(p)) if s)

        def text(sha: str | None) -> str | None:
            return blobs[sha].decode("utf-8", "replace") if sha else None

        items = []
        for p in paths:
            _, skey, name = split(p)
            key = "global" if p == GLOBAL_FILE else mapping.local_key(self.map, skey)
            items.append(
                ReviewItem(
                    id=p, scope=key, name=name.removesuffix(RECORD_SUFFIX) if p != GLOBAL_FILE else "GLOBAL",
                    label="Global" if p == GLOBAL_FILE else self._label(key),
                    base=text(base.get(p)), mine=text(mine.get(p)), theirs=text(theirs.get(p)),
                )
            )
        review = PendingReview(remote_commit=remote, items=items)
        state.write_json(_paths(self.root)["review"], review.model_dump(mode="json"))
        self.step("review-saved")

    def _stale(self, review: PendingReview) -> bool:
        """True when an item still to choose no longer shows what is here."""
        for item in review.open_items():
            if item.scope == "global":
                now: str | None = self.store.read_global().text if self.store.read_global().exists else None
            else:
                try:
                    data = self.store.inspect.record_file(item.scope, item.name + RECORD_SUFFIX)
                except DshMemoryError:
                    data = None
                now = data.decode("utf-8", "replace") if data is not None else None
            if now != item.mine:
                return True
        return False

    def _label(self, key: str) -> str:
        try:
            return self.store.read_workspace(key).info.display_name
        except DshMemoryError:
            return key

    def _save_held(self, held: Mapping[str, str], override: Mapping[str, str | None]) -> None:
        new = [*held, *(p for p in override if p not in self.result.frozen)]
        if new:  # a scan only when something is held (the stat cache makes it cheap anyway)
            tree = scan(self.root, self.to_sync, local_only=frozenset(self.purges.local_only))
            for p in new:
                self.held[p] = tree.files.get(p, "")
        path = _paths(self.root)["held"]
        if self.held or path.exists():
            state.write_json(path, dict(self.held))

    def done(self, status: str, message: str, **fields: object) -> SyncResult:
        data = self.result.model_dump()
        data.update(status=status, message=message, time=_now(), **fields)
        given = fields.get("commit")
        head = given if isinstance(given, str) else self.git.rev(LOCAL_REF)
        # The synced workspaces: the folders under workspaces/ of the head (one small ls-tree).
        synced = {mapping.local_key(self.map, k) for k in (self.git.subdirs(head, WORKSPACES_DIR) if head else [])}
        data["unmapped"] = [k for k in unmapped_workspaces(self.store) if k in synced]
        result = SyncResult.model_validate(data)
        state.write_json(_paths(self.root)["last"], result.model_dump(mode="json"))
        return result


def _has_secret(tree: LocalTree, path: str) -> bool:
    if path.endswith("/" + SCOPE_FILE) or path == purge.META_PATH:
        return False
    data = tree.read(path)
    return data is not None and has_secrets(data.decode("utf-8", "replace"))


def unmapped_workspaces(store: MemoryStore) -> list[str]:
    """Active workspaces whose folder is not on this machine (synced from elsewhere, or moved)."""
    return sorted(i.key for i in store.list_workspaces(counts=False) if i.cwd and not os.path.isdir(i.cwd))


def run_sync(
    store: MemoryStore,
    remote: str | None = None,
    *,
    branch: str | None = None,
    env: Mapping[str, str] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> SyncResult:
    """Sync ``store``'s root with ``remote`` (saved as this root's remote; None: the saved one).
    ``cancelled`` is polled between steps: CancelledError, with memory whole."""
    root = store.root
    if root is None:
        raise UsageError(msg.SYNC_NO_ROOT.format())
    if store.inspect.read_only:
        raise UsageError(msg.SYNC_READ_ONLY.format())
    cfg = save_config(root, remote, branch or "main") if remote else load_config(root)
    if not cfg.remote:
        raise SyncError(msg.SYNC_NO_REMOTE.format(), reason="no-remote")
    with sync_lock(root):
        try:
            return _Run(store, cfg, env, cancelled).run()
        except GitMissingError as exc:
            return _record_failure(root, cfg, "git-missing", exc.message)
        except SyncError as exc:
            status = exc.reason if exc.reason in ("remote", "push-rejected") else "failed"
            return _record_failure(root, cfg, status, exc.message)


def _record_failure(root: Path, cfg: SyncConfig, status: str, message: str) -> SyncResult:
    result = SyncResult.model_validate({"status": status, "message": message, "time": _now(), "remote": cfg.remote})
    state.write_json(_paths(root)["last"], result.model_dump(mode="json"))
    return result


def resolve(store: MemoryStore, item_id: str, res: Resolution) -> PendingReview:
    """Settle one sync review item: the chosen version is written here through the store (CAS on the
    version the review showed), and the choice is kept until the next sync commits the merge."""
    root = store.root
    if root is None:
        raise UsageError(msg.SYNC_NO_ROOT.format())
    review = pending_review(root)
    item = next((i for i in review.items if i.id == item_id), None) if review else None
    if review is None or item is None:
        raise UsageError(msg.SYNC_NO_ITEM.format(item=repr(item_id)))
    text = resolved_text(item, res)
    if text != item.mine:
        _write_choice(store, item, text)
    review.resolutions[item_id] = res
    state.write_json(_paths(root)["review"], review.model_dump(mode="json"))
    return review


def _write_choice(store: MemoryStore, item: ReviewItem, text: str | None) -> None:
    mine = item.mine.encode("utf-8") if item.mine is not None else None
    if item.scope == "global":
        if text is None:
            raise UsageError(msg.SYNC_GLOBAL_NO_DELETE.format())
        store.replace_global(text, content_hash(mine) if mine is not None else None)
        return
    snap = store.read_workspace(item.scope)
    entry = snap.get(item.name)
    if (entry.revision if entry else None) != (content_hash(mine) if mine is not None else None):
        raise ConflictError(
            msg.SYNC_ITEM_CHANGED.format(name=item.name),
            snap.revision,
            snap,
        )
    version = None if text is None else text.encode("utf-8")
    store.history.commit_versions(item.scope, [(item.name, version)], snap.revision)


def summary(root: Path) -> SyncSummary:
    """The badge's facts, read from this machine's small sync files (nothing is written)."""
    review = pending_review(root)
    return SyncSummary(
        remote=load_config(root).remote,
        last=last_result(root),
        open_items=len(review.open_items()) if review else 0,
    )
