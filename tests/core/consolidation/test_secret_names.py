"""Issue 25, finding 5: a credential stated in words never lands in memory, a name or recall.

Before issue 25, "the staging DB password is Tr0ub4dor&3xyz" consolidated offline with ``--apply``
made ``staging-db-password-tr0ub4dor-3xyz.md`` holding the password; this test failed then."""

from __future__ import annotations

import io
import os
from pathlib import Path

import pytest
from consolidation_support import CWD, write_dsh_session

from core.cli.main import main
from core.consolidation.offline import slug_name
from core.keys import workspace_key

PASSWORD = "Tr0ub4dor&3xyz"
NEEDLES = (PASSWORD.lower().encode(), b"tr0ub4dor")


def run(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


@pytest.mark.parametrize(
    "fact",
    [
        f"Remember: the staging DB password is {PASSWORD}",
        f"the pw is {PASSWORD}",
        f'our passphrase "{PASSWORD}" unlocks the backups',
        f"connect with sshpass -p {PASSWORD} ssh deploy@staging",
        f"flush the cache with redis-cli -a {PASSWORD} flushall",
    ],
)
def test_a_name_derived_from_text_never_carries_the_credential(fact: str) -> None:
    name = slug_name(fact)
    assert "tr0ub4dor" not in name and "3xyz" not in name, name


def test_offline_apply_commits_no_password_anywhere(tmp_path: Path, dsh_home: Path) -> None:
    sessions = tmp_path / "sessions"
    write_dsh_session(
        sessions,
        "sess-pw",
        CWD,
        [
            (f"Remember: the staging DB password is {PASSWORD}", "Noted."),
            ("Please remember that releases happen on Tuesdays.", "Noted."),
        ],
    )
    root = tmp_path / "memory"
    base = ("--root", str(root), "consolidate", "sess-pw", "--consolidator", "offline", "--sessions-root")
    code, out, _ = run(*base, str(sessions), "--apply")
    assert code == 0 and "REFUSED" in out
    assert (root / "workspaces" / workspace_key(CWD) / "releases-happen-tuesdays.md").is_file()  # the rest lands
    for folder, _dirs, files in os.walk(root):
        for name in files:
            path = Path(folder) / name
            assert not any(n in name.lower().encode() for n in NEEDLES), path
            data = path.read_bytes().lower()
            assert not any(n in data for n in NEEDLES), path
    code, out, _ = run("--root", str(root), "recall", "--cwd", CWD, "staging password")
    assert PASSWORD not in out


def test_recall_redacts_a_password_stated_in_words(tmp_path: Path) -> None:
    from core.models import PutOp, Record
    from core.store.fs import FileStore

    root = tmp_path / "memory"
    store = FileStore(root)
    snap = store.create_workspace(CWD)
    body = f"\nThe staging DB password is {PASSWORD}; the pw for the cache is Hunter2Xq!\n"
    record = Record(name="staging-db", description="Staging database access", type="project", body=body)
    store.commit(snap.key, [PutOp(record=record)], snap.revision, allow_secrets=True)  # saved by hand, allowed
    code, out, _ = run("--root", str(root), "recall", "--cwd", CWD, "staging database")
    assert code == 0 and "Staging database access" in out
    assert PASSWORD not in out and "Hunter2Xq!" not in out
    assert out.count("[REDACTED:password]") == 2
