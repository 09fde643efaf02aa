"""Two memory roots and a bare remote in temp dirs, real git, no network."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from core.errors import ConflictError
from core.keys import workspace_key
from core.models import DeleteOp, PutOp
from core.store.fs import FileStore
from core.sync import engine
from core.sync.models import SyncResult
from core.sync.move import apply_move, plan_move
from core.sync.review import Resolution
from tests.core.sync.helpers import git_env, put, rec, texts


class Machines:
    def __init__(self, tmp: Path) -> None:
        self.tmp = tmp
        self.env = git_env(tmp)
        self.remote = tmp / "remote.git"
        subprocess.run(["git", "init", "--bare", "-q", str(self.remote)], env=self.env, check=True)
        self.a = FileStore(tmp / "a" / "memory")
        self.b = FileStore(tmp / "b" / "memory")

    def sync(self, store: FileStore) -> SyncResult:
        return engine.run_sync(store, str(self.remote), env=self.env)

    def remote_head(self) -> str:
        out = subprocess.run(
            ["git", "--git-dir", str(self.remote), "rev-parse", "--verify", "-q", "refs/heads/main"],
            env=self.env, capture_output=True, check=False,
        )
        return out.stdout.decode().strip()


@pytest.fixture
def m(tmp_path: Path) -> Machines:
    return Machines(tmp_path)


PROJ = "/srv/projects/shop"  # the same path on both machines: the same workspace key


def test_edits_on_one_side_arrive_on_the_other(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha", "first"), rec("beta"))
    m.a.replace_global("# Global\n\nI like tea.\n", None)
    assert m.sync(m.a).status == "pushed"
    got = m.sync(m.b)
    assert got.status == "merged", got.message
    assert texts(m.b, key) == {"alpha": "\nfirst\n", "beta": "\nA durable fact.\n"}
    assert "I like tea" in m.b.read_global().text
    assert "[alpha](alpha.md)" in m.b.read_workspace(key).index_text  # MEMORY.md rebuilt
    # An edit on A arrives on B; B's previous version goes to its history.
    snap = m.a.read_workspace(key)
    m.a.commit(key, [PutOp(record=rec("alpha", "second"))], snap.revision)
    assert m.sync(m.a).status == "pushed"
    assert m.sync(m.b).status == "merged"
    assert texts(m.b, key)["alpha"] == "\nsecond\n"
    assert any(b"first" in m.b.history.read(h.id) for h in m.b.history.entries(key, "alpha"))
    assert m.sync(m.b).status == "up-to-date"
    assert m.sync(m.a).status == "up-to-date"
    # The commit says who and why.
    log = subprocess.run(
        ["git", "--git-dir", str(m.remote), "log", "--format=%an|%s", "main"],
        env=m.env, capture_output=True, check=True,
    ).stdout.decode()
    assert "dsh-memory on" in log and "Memory from" in log


def test_both_sides_changing_different_records_converge(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha"), rec("beta"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.commit(key, [PutOp(record=rec("alpha", "from a"))], None)
    m.b.commit(key, [PutOp(record=rec("beta", "from b")), PutOp(record=rec("gamma", "new on b"))], None)
    assert m.sync(m.a).status == "pushed"
    got = m.sync(m.b)
    assert got.status == "merged", got.message  # merged A's change, pushed the merge
    assert m.remote_head() == got.commit
    assert m.sync(m.a).status == "merged"
    want = {"alpha": "\nfrom a\n", "beta": "\nfrom b\n", "gamma": "\nnew on b\n"}
    assert texts(m.a, key) == want and texts(m.b, key) == want
    assert m.sync(m.b).status == "up-to-date"


@pytest.mark.parametrize("choice", ["theirs", "mine", "edited"])
def test_the_same_record_on_both_sides_becomes_a_sync_review(m: Machines, choice: str) -> None:
    key = put(m.a, PROJ, rec("alpha", "base"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.commit(key, [PutOp(record=rec("alpha", "a's text"))], None)
    m.b.commit(key, [PutOp(record=rec("alpha", "b's text"))], None)
    m.sync(m.a)
    before = m.remote_head()
    got = m.sync(m.b)
    assert got.status == "review" and got.conflicts == [f"workspaces/{key}/alpha.md"]
    assert m.remote_head() == before  # nothing pushed before the merge is committed
    assert texts(m.b, key)["alpha"] == "\nb's text\n"  # never a conflict marker in a file
    review = engine.pending_review(m.b.root)
    assert review is not None
    item = review.items[0]
    assert "base" in (item.base or "") and "b's text" in (item.mine or "") and "a's text" in (item.theirs or "")
    assert m.sync(m.b).status == "review"  # still waiting
    if choice == "edited":
        res = Resolution(choice="edited", text=(item.mine or "").replace("b's text", "both texts"))
        want = "\nboth texts\n"
    else:
        res = Resolution(choice="mine" if choice == "mine" else "theirs")
        want = "\nb's text\n" if choice == "mine" else "\na's text\n"
    engine.resolve(m.b, item.id, res)
    assert texts(m.b, key)["alpha"] == want
    assert m.sync(m.b).status in ("pushed", "merged")
    assert m.remote_head() != before
    assert m.sync(m.a).status == ("up-to-date" if choice == "theirs" else "merged")
    assert texts(m.a, key)["alpha"] == want
    assert m.sync(m.a).status == "up-to-date" and m.sync(m.b).status == "up-to-date"


def test_a_delete_against_an_edit_is_reviewed(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha", "base"), rec("beta"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.commit(key, [DeleteOp(name="alpha")], None)
    m.b.commit(key, [PutOp(record=rec("alpha", "edited on b"))], None)
    m.sync(m.a)
    got = m.sync(m.b)
    assert got.status == "review"
    item = engine.pending_review(m.b.root).items[0]  # type: ignore[union-attr]
    assert item.theirs is None and "edited on b" in (item.mine or "")
    engine.resolve(m.b, item.id, Resolution(choice="mine"))  # keep the edit
    assert m.sync(m.b).ok
    m.sync(m.a)
    assert texts(m.a, key)["alpha"] == "\nedited on b\n"
    # And the other way: a delete on one side only is applied (and kept in history).
    m.a.commit(key, [DeleteOp(name="beta")], None)
    m.sync(m.a)
    m.sync(m.b)
    assert "beta" not in texts(m.b, key)
    assert m.b.history.entries(key, "beta")


def test_a_workspace_mapped_to_different_folders_on_two_machines(m: Machines, tmp_path: Path) -> None:
    a_dir, b_dir = tmp_path / "laptop" / "code" / "shop", tmp_path / "desktop" / "src" / "shop"
    a_dir.mkdir(parents=True)
    b_dir.mkdir(parents=True)
    a_key = put(m.a, a_dir, rec("alpha", "on the laptop"))
    m.sync(m.a)
    a_dir.rmdir()  # both "machines" share this disk: the laptop's folder must not exist on the desktop
    got = m.sync(m.b)
    # B has it under A's key, browsable, but no agent on B loads it (no folder of B has that key).
    assert a_key in got.unmapped
    assert m.b.find_workspace(str(b_dir)) is None
    assert texts(m.b, a_key) == {"alpha": "\non the laptop\n"}
    # The user maps it (the Recycle Bin's "Moved? Pick the new folder…" does this).
    from core.sync.mapping import find_candidates

    cands = find_candidates(str(a_dir), [tmp_path / "desktop"])
    assert cands and cands[0].path == str(b_dir)
    apply_move(m.b, plan_move(m.b, a_key, cands[0].path), {})
    b_key = workspace_key(str(b_dir))
    assert m.b.find_workspace(str(b_dir)) is not None
    m.b.commit(b_key, [PutOp(record=rec("beta", "on the desktop"))], None)
    assert m.sync(m.b).ok
    assert m.sync(m.a).status == "merged"
    assert texts(m.a, a_key) == {"alpha": "\non the laptop\n", "beta": "\non the desktop\n"}
    # The synced tree keeps one workspace, under its first key.
    files = subprocess.run(
        ["git", "--git-dir", str(m.remote), "ls-tree", "-r", "--name-only", "main"],
        env=m.env, capture_output=True, check=True,
    ).stdout.decode().split()
    assert f"workspaces/{a_key}/beta.md" in files
    assert not any(b_key in f for f in files)
    m.a.commit(a_key, [PutOp(record=rec("alpha", "edited on the laptop"))], None)
    m.sync(m.a)
    assert m.sync(m.b).status == "merged"
    assert texts(m.b, b_key)["alpha"] == "\nedited on the laptop\n"


def test_a_record_holding_a_credential_is_never_pushed(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha"))
    m.sync(m.a)
    before = m.remote_head()
    secret = "\nThe deploy key is sk-proj-4Fq9ZxT2mL8vR3nB6wY1kP0sJ7hD5gC2aE9uQ4tV.\n"
    snap = m.a.read_workspace(key)
    m.a.commit(key, [PutOp(record=rec("leaky", secret))], snap.revision, allow_secrets=True)
    got = m.sync(m.a)
    assert got.status == "secret" and got.secrets == [f"workspaces/{key}/leaky.md"]
    assert m.remote_head() == before
    m.sync(m.b)
    assert "leaky" not in texts(m.b, key)


def test_an_invalid_local_file_is_never_fixed_by_a_merge(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha", "base"))
    m.sync(m.a)
    m.sync(m.b)
    bad = m.b.root / "workspaces" / key / "alpha.md"
    bad.write_bytes(b"not a record at all\n")
    m.a.commit(key, [PutOp(record=rec("alpha", "a's edit"))], None)
    m.sync(m.a)
    got = m.sync(m.b)
    assert got.ok and f"workspaces/{key}/alpha.md" in got.frozen
    assert bad.read_bytes() == b"not a record at all\n"
    m.sync(m.a)
    assert texts(m.a, key)["alpha"] == "\na's edit\n"  # and the invalid bytes never travelled


def test_git_missing_is_said_clearly(m: Machines, monkeypatch: pytest.MonkeyPatch) -> None:
    put(m.a, PROJ, rec("alpha"))
    monkeypatch.setenv("PATH", str(m.tmp / "empty-bin"))
    got = engine.run_sync(m.a, str(m.remote), env=m.env)
    assert got.status == "git-missing" and "install git" in got.message.lower()


def _git_checkout(folder: Path, url: str) -> None:
    (folder / ".git").mkdir(parents=True)
    (folder / ".git" / "config").write_text(f'[core]\n\tbare = false\n[remote "origin"]\n\turl = {url}\n')


def test_the_other_machine_finds_the_project_by_its_git_remote(m: Machines, tmp_path: Path) -> None:
    from core.sync.mapping import find_candidates, remembered_remote

    a_dir = tmp_path / "laptop" / "shop"
    _git_checkout(a_dir, "git@github.com:me/shop.git")
    a_key = put(m.a, a_dir, rec("alpha"))
    m.sync(m.a)
    shutil.rmtree(a_dir)
    # On the desktop the checkout has another name; only its remote says it is the same project.
    b_dir = tmp_path / "desktop" / "work" / "storefront"
    _git_checkout(b_dir, "https://github.com/me/shop")
    (tmp_path / "desktop" / "work" / "shop-notes").mkdir()
    m.sync(m.b)
    url = remembered_remote(m.b.root, a_key)
    assert url == "git@github.com:me/shop.git"
    cands = find_candidates(str(a_dir), [tmp_path / "desktop"], remote_url=url)
    got = [(Path(c.path).name, c.reason) for c in cands]
    assert got == [("storefront", "git-remote"), ("shop-notes", "similar-name")]


def test_archive_and_restore_travel(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.recycle.archive(key)
    assert m.sync(m.a).status == "pushed"
    got = m.sync(m.b)
    assert got.ok and f"archived/{key}/" in got.received
    assert [i.key for i in m.b.list_workspaces(archived=True)] == [key]
    m.b.recycle.restore(key)
    m.sync(m.b)
    m.sync(m.a)
    assert m.a.find_workspace(PROJ) is not None and texts(m.a, key) == {"alpha": "\nA durable fact.\n"}
    assert m.sync(m.a).status == "up-to-date" and m.sync(m.b).status == "up-to-date"


def test_an_edit_made_here_during_the_merge_is_never_overwritten(m: Machines, monkeypatch: pytest.MonkeyPatch) -> None:
    key = put(m.a, PROJ, rec("alpha", "base"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.commit(key, [PutOp(record=rec("alpha", "from a"))], None)
    m.sync(m.a)
    before = m.remote_head()
    real = engine._Steps.__call__

    def edit_while_merging(self: engine._Steps, name: str) -> None:
        real(self, name)
        if name == "fetched":  # an agent writes right after the fetch, before the merge applies
            m.b.commit(key, [PutOp(record=rec("alpha", "agent on b"))], None)

    monkeypatch.setattr(engine._Steps, "__call__", edit_while_merging)
    got = m.sync(m.b)
    monkeypatch.setattr(engine._Steps, "__call__", real)
    assert got.status == "changed-here"
    assert texts(m.b, key)["alpha"] == "\nagent on b\n" and m.remote_head() == before
    again = m.sync(m.b)
    assert again.status == "review" and again.conflicts == [f"workspaces/{key}/alpha.md"]


def test_a_remote_that_cannot_be_reached_changes_nothing(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha"))
    before = texts(m.a, key)
    got = engine.run_sync(m.a, str(m.tmp / "no-such-remote.git"), env=m.env)
    assert got.status == "remote" and not got.ok
    assert texts(m.a, key) == before
    assert m.sync(m.a).status == "pushed"  # the next sync with a good remote converges


def test_a_push_rejected_because_the_remote_moved_on_converges(m: Machines, monkeypatch: pytest.MonkeyPatch) -> None:
    key = put(m.a, PROJ, rec("alpha"), rec("beta"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.commit(key, [PutOp(record=rec("alpha", "a1"))], None)
    m.sync(m.a)
    m.b.commit(key, [PutOp(record=rec("beta", "b1"))], None)
    real = engine._Steps.__call__
    racing = {"done": False}

    def other_machine_pushes_first(self: engine._Steps, name: str) -> None:
        real(self, name)
        if name == "merge-commit" and not racing["done"]:
            racing["done"] = True
            monkeypatch.setattr(engine._Steps, "__call__", real)
            m.a.commit(key, [PutOp(record=rec("gamma", "a2"))], None)
            assert m.sync(m.a).status == "pushed"

    monkeypatch.setattr(engine._Steps, "__call__", other_machine_pushes_first)
    got = m.sync(m.b)
    assert got.status == "push-rejected", got.message
    assert m.sync(m.b).status == "merged"
    m.sync(m.a)
    want = {"alpha": "\na1\n", "beta": "\nb1\n", "gamma": "\na2\n"}
    assert texts(m.a, key) == want and texts(m.b, key) == want


def test_a_review_never_reverts_the_other_machines_change_to_a_frozen_file(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha", "base"), rec("beta", "base"))
    m.sync(m.a)
    m.sync(m.b)
    (m.b.root / "workspaces" / key / "beta.md").write_bytes(b"broken by hand\n")  # invalid here
    m.a.commit(key, [PutOp(record=rec("alpha", "a")), PutOp(record=rec("beta", "a's beta"))], None)
    m.b.commit(key, [PutOp(record=rec("alpha", "b"))], None)
    m.sync(m.a)
    got = m.sync(m.b)
    assert got.status == "review"
    engine.resolve(m.b, f"workspaces/{key}/alpha.md", Resolution(choice="mine"))
    assert m.sync(m.b).ok
    m.sync(m.a)
    assert texts(m.a, key) == {"alpha": "\nb\n", "beta": "\na's beta\n"}
    assert (m.b.root / "workspaces" / key / "beta.md").read_bytes() == b"broken by hand\n"


def test_a_record_edited_here_during_its_review_is_reviewed_afresh(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha", "base"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.commit(key, [PutOp(record=rec("alpha", "a"))], None)
    m.b.commit(key, [PutOp(record=rec("alpha", "b"))], None)
    m.sync(m.a)
    assert m.sync(m.b).status == "review"
    m.b.commit(key, [PutOp(record=rec("alpha", "b again"))], None)  # edited while the review waits
    with pytest.raises(ConflictError):
        engine.resolve(m.b, f"workspaces/{key}/alpha.md", Resolution(choice="theirs"))
    got = m.sync(m.b)
    assert got.status == "review"
    item = engine.pending_review(m.b.root).items[0]  # type: ignore[union-attr]
    assert "b again" in (item.mine or "")
    engine.resolve(m.b, item.id, Resolution(choice="theirs"))
    assert m.sync(m.b).ok and texts(m.b, key)["alpha"] == "\na\n"


def test_a_cancelled_sync_stops_between_steps_and_the_next_one_goes_on(m: Machines) -> None:
    from core.errors import CancelledError

    key = put(m.a, PROJ, rec("alpha"))
    m.sync(m.a)
    m.sync(m.b)
    m.a.commit(key, [PutOp(record=rec("alpha", "a"))], None)
    m.sync(m.a)
    m.b.commit(key, [PutOp(record=rec("beta", "b"))], None)
    calls = {"n": 0}

    def after_two_steps() -> bool:
        calls["n"] += 1
        return calls["n"] >= 2

    with pytest.raises(CancelledError):
        engine.run_sync(m.b, str(m.remote), env=m.env, cancelled=after_two_steps)
    assert texts(m.b, key) == {"alpha": "\nA durable fact.\n", "beta": "\nb\n"}  # nothing merged yet
    assert m.sync(m.b).status == "merged"
    assert texts(m.b, key) == {"alpha": "\na\n", "beta": "\nb\n"}


def test_a_hand_formatted_record_arrives_byte_for_byte_and_settles(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha"))
    m.sync(m.a)
    m.sync(m.b)
    hand = b'---\nname: beta\ndescription: "quoted, by hand"\nmetadata: {type: project}\n---\nbody\n'
    m.a.history.commit_versions(key, [("beta", hand)], m.a.read_workspace(key).revision)
    m.a.commit(key, [PutOp(record=rec("alpha", "edited on a"))], None)
    assert m.sync(m.a).status == "pushed"
    assert m.sync(m.b).status == "merged"
    assert m.b.inspect.record_file(key, "beta.md") == hand  # not re-rendered by the transaction
    assert m.sync(m.b).status == "up-to-date"
    assert m.sync(m.a).status == "up-to-date"


def test_the_same_record_formatted_differently_on_both_sides_is_no_review(m: Machines) -> None:
    key = put(m.a, PROJ, rec("alpha"))
    m.sync(m.a)
    m.sync(m.b)
    hand = b'---\nname: beta\ndescription: "same fact"\nmetadata: {type: project}\n---\n\nbody\n'
    m.a.history.commit_versions(key, [("beta", hand)], m.a.read_workspace(key).revision)
    m.b.commit(key, [PutOp(record=rec("beta", "body", "same fact"))], None)  # the store's formatting
    assert m.sync(m.a).status == "pushed"
    got = m.sync(m.b)
    assert got.status == "merged", got.message
    assert m.b.inspect.record_file(key, "beta.md") == hand
