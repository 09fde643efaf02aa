"""The git engine of sync: a thin mapping onto the ``git`` command line (see docs/sync.md for why the
CLI and not dulwich). Plumbing only, a handful of processes per sync whatever the root's size:
``ls-tree`` to list a commit, ``cat-file --batch`` to read blobs, ``fast-import`` to write a commit
with its blobs and trees in one pack, ``ls-remote``/``fetch``/``push --porcelain`` for the remote.
Decisions are made from exit codes and porcelain fields, never from message text."""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Literal

from core import messages as msg
from core.errors import DshMemoryError

TIMEOUT_S = 300.0  # a remote on a slow link: generous, never forever


class GitMissingError(DshMemoryError):
    """The ``git`` program is not installed (or not on PATH)."""

    code = "git_missing"
    exit_code = 21


SyncReason = Literal["remote", "push-rejected", "secret", "busy", "git", "no-remote"]


class SyncError(DshMemoryError):
    """A sync step failed. ``reason`` says which, for code that decides from it (never the message):
    "remote" (unreachable or not a repository), "push-rejected", "secret", "busy", "git", "no-remote"."""

    code = "sync_failed"
    exit_code = 20

    def __init__(self, message: str, *, reason: SyncReason, items: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.reason: SyncReason = reason
        self.items = tuple(items)

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "reason": self.reason, "items": list(self.items)}


def find_git() -> str:
    exe = shutil.which("git")
    if exe is None:
        raise GitMissingError(msg.GIT_MISSING.format())
    return exe


def _said(proc: subprocess.CompletedProcess[bytes], limit: int = 300) -> str:
    """What git printed on stderr (its own words, in its own language), cut to ``limit``."""
    return proc.stderr.decode("utf-8", "replace").strip()[:limit] or "?"


_ESCAPES = {b"n": b"\n", b"t": b"\t", b"\"": b"\"", b"\\": b"\\", b"a": b"\a", b"b": b"\b", b"f": b"\f",
            b"r": b"\r", b"v": b"\v"}


def _unquote(path: bytes) -> bytes:
    """A path as git prints it, C-quoted when it holds a quote, a backslash, a control character or
    a space ("a b/c.md", "\\303\\251"), back to its bytes."""
    if not (path.startswith(b'"') and path.endswith(b'"')):
        return path
    out, body, i = bytearray(), path[1:-1], 0
    while i < len(body):
        c = body[i : i + 1]
        if c != b"\\":
            out += c
            i += 1
        elif body[i + 1 : i + 2].isdigit():
            out.append(int(body[i + 1 : i + 4], 8))
            i += 4
        else:
            out += _ESCAPES.get(body[i + 1 : i + 2], body[i + 1 : i + 2])
            i += 2
    return bytes(out)


def blob_sha(data: bytes) -> str:
    """The id git gives ``data`` as a blob (so a file is compared with a tree without git)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data, usedforsecurity=False).hexdigest()


class Git:
    """One bare repository (``git_dir``) driven through the git CLI."""

    def __init__(self, git_dir: Path, env: Mapping[str, str] | None = None) -> None:
        self.git_dir = git_dir
        self.exe = find_git()
        base = dict(os.environ if env is None else env)
        # Never a password prompt from a window or a test; a credential helper or ssh agent still works.
        base.setdefault("GIT_TERMINAL_PROMPT", "0")
        base.pop("GIT_DIR", None)
        base.pop("GIT_WORK_TREE", None)
        self.env = base

    def run(self, *args: str, stdin: bytes | None = None, check: bool = True) -> subprocess.CompletedProcess[bytes]:
        proc = subprocess.run(
            [self.exe, f"--git-dir={self.git_dir}", *args],
            input=stdin,
            capture_output=True,
            env=self.env,
            timeout=TIMEOUT_S,
            check=False,
        )
        if check and proc.returncode != 0:
            raise SyncError(msg.GIT_FAILED.format(command=args[0], detail=_said(proc, 500)), reason="git")
        return proc

    def init(self) -> None:
        if (self.git_dir / "HEAD").is_file():
            return
        self.git_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
        subprocess.run(
            [self.exe, "init", "--bare", "--quiet", str(self.git_dir)], env=self.env, check=True, capture_output=True
        )
        # Objects are written once and read often; no background gc while a sync runs.
        self.run("config", "gc.auto", "0")

    def rev(self, ref: str) -> str | None:
        proc = self.run("rev-parse", "--verify", "--quiet", f"{ref}^{{commit}}", check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def update_ref(self, ref: str, sha: str) -> None:
        self.run("update-ref", ref, sha)

    def ls_tree(self, commit: str | None) -> dict[str, str]:
        """path -> blob id of every file in ``commit`` (empty for None)."""
        if commit is None:
            return {}
        out = self.run("ls-tree", "-r", "-z", "--full-tree", commit).stdout
        result: dict[str, str] = {}
        for item in out.split(b"\0"):
            if not item:
                continue
            meta, _, path = item.partition(b"\t")
            parts = meta.split()
            if len(parts) == 3 and parts[1] == b"blob":
                result[path.decode("utf-8", "surrogateescape")] = parts[2].decode()
        return result

    def subdirs(self, commit: str, folder: str) -> list[str]:
        """The names of the folders directly under ``folder`` in ``commit``."""
        out = self.run("ls-tree", "-d", "-z", "--name-only", commit, folder + "/", check=False).stdout
        return [p.decode("utf-8", "surrogateescape").rsplit("/", 1)[-1] for p in out.split(b"\0") if p]

    def read_blobs(self, shas: Iterable[str]) -> dict[str, bytes]:
        wanted = sorted(set(shas))
        if not wanted:
            return {}
        out = self.run("cat-file", "--batch", stdin=("\n".join(wanted) + "\n").encode()).stdout
        result: dict[str, bytes] = {}
        pos = 0
        for sha in wanted:
            nl = out.index(b"\n", pos)
            header = out[pos:nl].split()
            if len(header) != 3:
                raise SyncError(msg.GIT_OBJECT_MISSING.format(sha=sha), reason="git")
            size = int(header[2])
            result[sha] = out[nl + 1 : nl + 1 + size]
            pos = nl + 1 + size + 1
        return result

    def merge_base(self, a: str, b: str) -> str | None:
        proc = self.run("merge-base", a, b, check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def is_ancestor(self, a: str, b: str) -> bool:
        return self.run("merge-base", "--is-ancestor", a, b, check=False).returncode == 0

    def commit(
        self,
        ref: str,
        parents: Sequence[str],
        changes: Mapping[str, bytes | None],
        message: str,
        author: tuple[str, str],
        when: int,
    ) -> str:
        """A commit on top of ``parents[0]`` changing ``changes`` (None: delete), written by one
        ``git fast-import`` (blobs, trees and commit in one pack; the ref moves last)."""
        name, email = author
        body = message.encode("utf-8")
        chunks: list[bytes] = [
            f"commit {ref}\n".encode(),
            f"author {name} <{email}> {when} +0000\n".encode(),
            f"committer {name} <{email}> {when} +0000\n".encode(),
            b"data %d\n" % len(body),
            body,
            b"\n",
        ]
        if parents:
            chunks.append(f"from {parents[0]}\n".encode())
        for p in parents[1:]:
            chunks.append(f"merge {p}\n".encode())
        for path, data in sorted(changes.items()):
            if data is None:
                chunks.append(f"D {path}\n".encode())
            else:
                chunks.append(f"M 100644 inline {path}\n".encode())
                chunks.append(b"data %d\n" % len(data))
                chunks.append(data)
                chunks.append(b"\n")
        chunks.append(b"done\n")
        self.run("fast-import", "--quiet", "--done", "--date-format=raw", "--force", stdin=b"".join(chunks))
        sha = self.rev(ref)
        if sha is None:
            raise SyncError(msg.GIT_NO_COMMIT.format(), reason="git")
        return sha

    # --- the remote ---------------------------------------------------------------------------
    def remote_head(self, url: str, branch: str) -> str | None:
        """The remote branch's commit (None: the remote has no such branch yet)."""
        proc = self.run("ls-remote", "--heads", url, f"refs/heads/{branch}", check=False)
        if proc.returncode != 0:
            raise SyncError(msg.REMOTE_UNREACHABLE.format(url=url, detail=_said(proc)), reason="remote")
        for line in proc.stdout.decode().splitlines():
            sha, _, ref = line.partition("\t")
            if ref == f"refs/heads/{branch}":
                return sha
        return None

    def fetch(self, url: str, branch: str, tracking: str) -> None:
        proc = self.run("fetch", "--no-tags", "--quiet", url, f"+refs/heads/{branch}:{tracking}", check=False)
        if proc.returncode != 0:
            raise SyncError(msg.REMOTE_FETCH_FAILED.format(url=url, detail=_said(proc)), reason="remote")

    def push(self, url: str, commit: str, branch: str, *, lease: str | None = None) -> None:
        """Push ``commit`` as ``branch``; with ``lease`` (the remote commit this machine has merged)
        a forced push that the remote takes only while its branch is still exactly ``lease``."""
        ref = f"refs/heads/{branch}"
        force = [f"--force-with-lease={ref}:{lease}"] if lease else []
        proc = self.run("push", "--porcelain", "--quiet", *force, url, f"{commit}:{ref}", check=False)
        if proc.returncode == 0:
            return
        flags = [ln.split("\t", 1)[0] for ln in proc.stdout.decode("utf-8", "replace").splitlines() if "\t" in ln]
        if "!" in flags:
            raise SyncError(msg.PUSH_REJECTED.format(), reason="push-rejected")
        raise SyncError(msg.REMOTE_PUSH_FAILED.format(url=url, detail=_said(proc)), reason="remote")

    # --- history rewrite (a purge) -------------------------------------------------------------
    def rewrite_without(
        self, prefixes: Sequence[str], refs: Sequence[str], scrub: Sequence[str] = ()
    ) -> dict[str, str]:
        """Rebuild the history of ``refs`` with no file under ``prefixes`` and no commit-message line
        naming one of ``scrub`` (the messages list what changed); old -> new commit ids.

        ``fast-export --no-data`` streams every commit as its file changes (blobs by id, nothing
        read); the changes under ``prefixes`` are dropped; ``fast-import`` writes the new commits
        and moves the refs last. Deterministic: the same commit filtered by the same prefixes gives
        the same new commit on every machine (so rewritten histories still share their ancestors),
        and a commit that never touched the prefixes keeps its id."""
        raw = self.run(
            "-c", "core.quotePath=false", "fast-export", "--no-data", "--show-original-ids",
            "--signed-tags=strip", "--reencode=no", "--use-done-feature", *refs,
        ).stdout
        drop = tuple(p.encode("utf-8") for p in prefixes)
        out: list[bytes] = []
        marks: dict[str, str] = {}
        last_mark = ""
        pos, n = 0, len(raw)
        while pos < n:
            nl = raw.index(b"\n", pos)
            line = raw[pos : nl + 1]
            pos = nl + 1
            if line.startswith(b"data "):  # a commit message: its bytes are never parsed as commands
                size = int(line[5:-1])
                body = raw[pos : pos + size]
                pos += size
                if scrub:
                    kept = [ln for ln in body.split(b"\n") if not any(w.encode("utf-8") in ln for w in scrub)]
                    body = b"\n".join(kept)
                out += [b"data %d\n" % len(body), body]
                continue
            if line.startswith(b"mark :"):
                last_mark = line[5:-1].decode()
            elif line.startswith(b"original-oid "):
                marks[last_mark] = line[13:-1].decode()
            elif line.startswith((b"M ", b"D ")):
                path = line[:-1].split(b" ", 3)[-1] if line.startswith(b"M ") else line[2:-1]
                if _unquote(path).startswith(drop):
                    continue
            out.append(line)
        marks_file = self.git_dir / "rewrite-marks"
        try:
            self.run("fast-import", "--quiet", "--force", f"--export-marks={marks_file}", stdin=b"".join(out))
            new = dict(ln.split(" ", 1) for ln in marks_file.read_text().split("\n") if ln.startswith(":"))
        finally:
            marks_file.unlink(missing_ok=True)
        return {old: new[m].strip() for m, old in marks.items() if m in new}

    def blob_id(self, commit: str, path: str) -> str | None:
        """The blob id of ``path`` in ``commit`` (None: no such file)."""
        proc = self.run("rev-parse", "--verify", "--quiet", f"{commit}:{path}", check=False)
        return proc.stdout.decode().strip() or None if proc.returncode == 0 else None

    def touches(self, prefixes: Sequence[str], refs: Sequence[str]) -> bool:
        """Whether any commit of ``refs`` holds a file under ``prefixes``."""
        refs = [r for r in refs if self.rev(r)]
        if not refs or not prefixes:
            return False
        return bool(self.run("rev-list", "-1", *refs, "--", *prefixes).stdout.strip())

    def mentions(self, words: Sequence[str], refs: Sequence[str]) -> bool:
        """Whether a commit message of ``refs`` names one of ``words`` (fixed strings)."""
        refs = [r for r in refs if self.rev(r)]
        if not refs or not words:
            return False
        greps = [f"--grep={w}" for w in words]
        return bool(self.run("rev-list", "-1", "--fixed-strings", *greps, *refs).stdout.strip())

    def paths_in_history(self, ref: str) -> set[str]:
        """Every path any commit of ``ref`` added (empty when ``ref`` does not exist)."""
        if self.rev(ref) is None:
            return set()
        out = self.run("log", "--format=", "--name-only", "--diff-filter=A", "-z", ref).stdout
        return {p.decode("utf-8", "surrogateescape").strip("\n") for p in out.split(b"\0") if p.strip(b"\n")}

    def prune(self) -> None:
        """Delete every object no ref reaches (the rewritten-away history) now, not in two weeks."""
        self.run("reflog", "expire", "--expire=now", "--all")
        self.run("gc", "--prune=now", "--quiet")
