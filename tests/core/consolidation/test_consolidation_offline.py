"""The offline extractor on English and Chinese conversations, built directly and read from DSH logs."""

from __future__ import annotations

from pathlib import Path

import pytest
from consolidation_support import CWD, make_evidence, write_dsh_session
from hypothesis import given, settings
from hypothesis import strategies as st

from core.consolidation import (
    ConsolidationInput,
    ConsolidationService,
    NoChange,
    OfflineConsolidator,
    PutRecord,
    ReplaceGlobal,
)
from core.keys import workspace_key
from core.model_catalog import ModelCatalog
from core.models import PutOp, Record
from core.records import validate_record
from core.sessions import SessionCatalog
from core.settings import AppSettings
from core.store.files import RECEIPTS
from core.store.memory import InMemoryStore

ENGLISH = [
    (1, "user", "Please remember that the staging database is db.staging.internal. Thanks!"),
    (2, "assistant", "Noted. I prefer to use yarn, and we decided to use MySQL because it is fast."),
    (3, "user", "I prefer pnpm over npm for this repo."),
    (4, "assistant", "Running npm install."),
    (5, "user", "No, use ruff instead of flake8."),
    (6, "user", "We decided to use Postgres for the event store because we need transactions."),
    (7, "user", "Can you always use tabs?"),
    (8, "user", "let's go with FastAPI because the team knows it"),
    (9, "user", "Actually, the API lives in services/api, not in app/."),
    (10, "user", "Remember the dashboard is https://grafana.example.com/d/shop"),
    (11, "user", "Please fix the failing test in cart.py."),
]

CHINESE = [
    (1, "user", "请记住，部署前必须先跑集成测试。"),
    (2, "assistant", "好的，我记住了。我们决定用 MongoDB，因为它灵活。"),
    (3, "user", "不对，日志应该写到 stderr 而不是文件。"),
    (4, "user", "我们决定用 SQLite 做缓存，因为部署简单。"),
    (5, "user", "以后都用中文回复我。"),
    (6, "user", "不是用 yarn，而是用 pnpm"),
    (7, "user", "这个函数能不能再快一点吗？"),
    (8, "user", "帮我看看这个报错。"),
]


def _request(messages: list[tuple[int, str, str]], records: tuple[Record, ...] = ()) -> ConsolidationInput:
    evidence, text = make_evidence(messages)
    return ConsolidationInput(
        evidence=evidence,
        evidence_text=text,
        global_text="",
        records=records,
        cwd=CWD,
        workspace_key=workspace_key(CWD),
    )


def _puts(messages: list[tuple[int, str, str]], records: tuple[Record, ...] = ()) -> dict[int, PutRecord]:
    proposal = OfflineConsolidator().propose(_request(messages, records))
    out: dict[int, PutRecord] = {}
    for change in proposal.changes:
        assert isinstance(change, PutRecord)
        out[change.evidence[0]] = change
    return out


def test_english_conversation() -> None:
    puts = _puts(ENGLISH)
    # Assistant text (seq 2, 4), questions (7) and plain requests (11) give nothing.
    assert sorted(puts) == [1, 3, 5, 6, 8, 9, 10]
    remember = puts[1].record
    assert remember.name == "staging-database-db-staging-internal"
    assert remember.type == "project"
    # The fact as the user said it; no boilerplate Why/How when the user gave no reason.
    assert remember.body == "\nThe staging database is db.staging.internal.\n"
    assert remember.description == "The staging database is db.staging.internal"
    assert (puts[3].record.type, puts[3].record.name) == ("feedback", "pnpm-over-npm-repo")
    assert puts[3].record.description == "I prefer pnpm over npm for this repo"
    assert (puts[5].record.type, puts[5].record.name) == ("feedback", "ruff-instead-flake8")
    assert puts[5].record.body.startswith("\nUse ruff instead of flake8.\n")
    decision = puts[6].record
    assert (decision.type, decision.name) == ("project", "postgres-event-store")
    assert "**Why:** We need transactions." in decision.body
    assert puts[8].record.description == "Use FastAPI"
    assert "**Why:** The team knows it." in puts[8].record.body
    assert puts[9].record.type == "feedback"
    reference = puts[10].record
    assert reference.type == "reference"
    assert "https://grafana.example.com/d/shop\n" in reference.body  # no full stop glued to the URL


def test_chinese_conversation() -> None:
    puts = _puts(CHINESE)
    assert sorted(puts) == [1, 3, 4, 5, 6]  # not the assistant (2), the question (7) or the request (8)
    for change in puts.values():
        assert "**How to apply:**" not in change.record.body
        assert not change.record.description.startswith(("记住", "决定：", "偏好", "纠正"))
    # Chinese words are spelled in pinyin, ASCII words kept, in the order the user said them.
    assert puts[1].record.name == "bushu-xianpao-jicheng-ceshi"
    assert puts[5].record.name == "zhongwen-huifu"
    assert (puts[3].record.name, puts[4].record.name, puts[6].record.name) == (
        "rizhi-xie-stderr-wenjian",
        "sqlite-huancun",
        "yarn-pnpm",
    )
    assert puts[1].record.body == "\n部署前必须先跑集成测试。\n"
    assert puts[1].record.description == "部署前必须先跑集成测试"
    assert puts[3].record.type == "feedback"
    assert puts[3].record.body.startswith("\n日志应该写到 stderr 而不是文件。\n")
    assert puts[4].record.type == "project"
    assert puts[4].record.description == "决定用 SQLite 做缓存"
    assert "**Why:** 部署简单。" in puts[4].record.body
    assert puts[5].record.type == "feedback"
    assert puts[6].record.type == "feedback"


def test_every_proposed_record_is_valid_and_names_are_stable() -> None:
    first = OfflineConsolidator().propose(_request([*ENGLISH, (20, "user", "记住：周五不发布。")]))
    second = OfflineConsolidator().propose(_request([*ENGLISH, (20, "user", "记住：周五不发布。")]))
    assert first == second and first.digest() == second.digest()
    for change in first.changes:
        assert isinstance(change, PutRecord)
        record = Record(**change.record.model_dump())  # type: ignore[arg-type]
        assert validate_record(record, f"{record.name}.md") == []
    assert not any(isinstance(c, ReplaceGlobal) for c in first.changes)  # never Global on its own


def test_dedupes_against_existing_records_and_avoids_taken_names() -> None:
    existing = (
        Record(
            name="pnpm-over-npm-repo",
            description="Package manager",
            type="feedback",
            body="\nI prefer pnpm over npm for this repo.\n",
        ),
        Record(name="ruff-instead-flake8", description="Linters", type="feedback", body="\nSomething else.\n"),
    )
    puts = _puts(
        [
            (3, "user", "I prefer pnpm over npm for this repo."),
            (5, "user", "No, use ruff instead of flake8."),
        ],
        existing,
    )
    assert sorted(puts) == [5]  # the known preference is skipped
    assert puts[5].record.name == "ruff-instead-flake8-2"


def test_repeated_statement_is_one_change_citing_every_seq() -> None:
    puts = _puts([(1, "user", "Always use pnpm."), (4, "user", "always use pnpm")])
    assert len(puts) == 1
    assert puts[1].evidence == (1, 4)


def test_nothing_found_is_no_change() -> None:
    proposal = OfflineConsolidator().propose(_request([(1, "user", "Fix the bug in cart.py please.")]))
    assert len(proposal.changes) == 1 and isinstance(proposal.changes[0], NoChange)
    assert proposal.is_no_change


def test_offline_review_of_a_real_log_through_the_reader(tmp_path: Path) -> None:
    sessions_root = tmp_path / "sessions"
    write_dsh_session(
        sessions_root,
        "sess-reader",
        CWD,
        [
            ("Please remember that releases happen on Tuesdays.", "Got it."),
            ("我们决定用 SQLite 做缓存，因为部署简单。", "好的。"),
            ("What does this function do?", "It adds numbers. Remember that numbers are fun."),
        ],
        title="Release rules",
    )
    catalog = SessionCatalog(sessions_root=sessions_root, dsh_home=tmp_path / "dsh")
    [summary] = catalog.list(cwd=CWD)
    store = InMemoryStore()
    service = ConsolidationService(store, ModelCatalog(()), AppSettings(), sessions=catalog)
    prepared = service.prepare(summary)
    assert prepared.evidence.session_id == "sess-reader"
    review = service.propose(prepared, consolidator="offline")
    assert [c.kind for c in review.changes] == ["put", "put"]
    assert all(c.is_actionable for c in review.changes)
    receipt = service.commit(review, [c.id for c in review.changes])
    assert receipt.status == "committed"
    snap = store.find_workspace(CWD)
    assert snap is not None
    names = sorted(r.name for r in snap.records())
    assert "releases-happen-tuesdays" in names and len(names) == 2
    assert "releases-happen-tuesdays" in snap.index_text


def test_live_session_is_refused(tmp_path: Path) -> None:
    sessions_root = tmp_path / "sessions"
    write_dsh_session(sessions_root, "sess-live", CWD, [("Remember X is Y.", "ok")], old=False)
    catalog = SessionCatalog(sessions_root=sessions_root, dsh_home=tmp_path / "dsh")
    [summary] = catalog.list(cwd=CWD)
    service = ConsolidationService(
        InMemoryStore(), ModelCatalog(()), AppSettings(quiet_period_seconds=3600), sessions=catalog
    )
    from core.errors import UsageError

    with pytest.raises(UsageError) as caught:
        service.prepare(summary)
    assert caught.value.reason == "session-unstable"


def test_offline_result_dedupes_against_the_store() -> None:
    store = InMemoryStore()
    snap = store.create_workspace(CWD)
    store.commit(
        snap.key,
        [PutOp(record=Record(name="tabs", description="Indentation", type="feedback", body="\nAlways use tabs.\n"))],
        snap.revision,
    )
    service = ConsolidationService(store, ModelCatalog(()), AppSettings())
    evidence, text = make_evidence([(1, "user", "Always use tabs.")])
    review = service.propose(service.prepare_evidence(evidence, text), consolidator="offline")
    assert review.receipt.status == "no-change"
    assert [c.kind for c in review.changes] == ["no_change"]


def test_evidence_over_the_limit_is_a_clear_error(tmp_path: Path) -> None:
    from core.errors import EvidenceTooLargeError

    sessions_root = tmp_path / "sessions"
    write_dsh_session(sessions_root, "sess-big", CWD, [("Remember this. " * 200, "ok")])
    catalog = SessionCatalog(sessions_root=sessions_root, dsh_home=tmp_path / "dsh")
    [summary] = catalog.list(cwd=CWD)
    service = ConsolidationService(InMemoryStore(), ModelCatalog(()), AppSettings(evidence_limit_bytes=500))
    service.sessions = catalog
    with pytest.raises(EvidenceTooLargeError):
        service.prepare(summary)


def test_session_without_cwd_cannot_be_consolidated() -> None:
    from core.errors import UsageError

    service = ConsolidationService(InMemoryStore(), ModelCatalog(()), AppSettings())
    evidence, text = make_evidence([(1, "user", "Remember X.")], cwd=None)
    with pytest.raises(UsageError) as caught:
        service.prepare_evidence(evidence, text)
    assert caught.value.reason == "no-cwd"
    evidence, text = make_evidence([(1, "user", "Remember X.")], cwd="{{cwd}}")
    with pytest.raises(UsageError) as caught:
        service.prepare_evidence(evidence, text)
    assert caught.value.reason == "relative-cwd"


def test_offline_review_id_names_the_rules_version() -> None:
    service = ConsolidationService(InMemoryStore(), ModelCatalog(()), AppSettings())
    evidence, text = make_evidence([(1, "user", "Remember that X is Y.")])
    review = service.propose(service.prepare_evidence(evidence, text))
    assert review.consolidator == "offline" and review.model == "rules-4"
    assert review.receipt.model == "rules-4"


def test_remember_filler_is_dropped() -> None:
    puts = _puts([(1, "user", "Remember this fact for later: the project codeword is MARMALADE.")])
    assert puts[1].record.name == "project-codeword-marmalade"
    assert puts[1].record.body.startswith("\nThe project codeword is MARMALADE.\n")


@pytest.mark.parametrize(
    "text",
    ["Actually, fix the tests too.", "Actually, can you also update the docs", "Never mind.", "No worries!"],
)
def test_requests_and_chatter_are_not_memories(text: str) -> None:
    assert OfflineConsolidator().propose(_request([(1, "user", text)])).is_no_change


def test_offline_secret_is_refused_by_the_host() -> None:
    store = InMemoryStore()
    service = ConsolidationService(store, ModelCatalog(()), AppSettings())
    evidence, text = make_evidence(
        [
            (1, "user", "Remember that the CI token is ghp_1234567890abcdefghijklmnopqrstuvwxyzAB."),
            (2, "user", "Remember that CI runs on Fridays."),
        ]
    )
    review = service.propose(service.prepare_evidence(evidence, text))
    secret, fine = review.changes
    assert secret.problems and "credential" in secret.problems[0] and fine.is_actionable
    receipt = service.commit(review, [fine.id])
    assert receipt.status == "committed"  # the refused change is not counted as rejected
    assert {c.id: c.decision for c in receipt.changes} == {secret.id: "refused", fine.id: "accepted"}
    assert "ghp_" not in (store.files(RECEIPTS).read(review.review_id) or "")


_PHRASES = st.sampled_from(
    [
        "remember ",
        "记住：",
        "I prefer ",
        "always use ",
        "no, use ",
        "actually, it is ",
        "不对，",
        "不是A而是",
        "we decided to ",
        " because ",
        "因为",
        "决定",
        "以后都",
        "?",
        "。",
        ". ",
        "\n",
        "https://x.example/a ",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(st.one_of(_PHRASES, st.text(max_size=30)), max_size=12).map("".join))
def test_any_text_gives_valid_records_or_no_change(text: str) -> None:
    proposal = OfflineConsolidator().propose(_request([(1, "user", text)]))
    for change in proposal.changes:
        if isinstance(change, PutRecord):
            record = Record(**change.record.model_dump())  # type: ignore[arg-type]
            assert validate_record(record, f"{record.name}.md") == []
        else:
            assert isinstance(change, NoChange)


@pytest.mark.parametrize(
    "text",
    [
        "我不确定这个方案。",
        "我们还没决定用哪个库。",
        "I'd like to see the logs.",
        "I would like to run it again.",
    ],
)
def test_uncertainty_and_polite_requests_are_not_memories(text: str) -> None:
    assert OfflineConsolidator().propose(_request([(1, "user", text)])).is_no_change


def test_as_is_not_a_reason() -> None:
    puts = _puts([(1, "user", "We decided to use UTC as the default timezone.")])
    assert puts[1].record.body == "\nUse UTC as the default timezone.\n"  # no Why made up


# (prompt, record type, name, description, first body line, Why line or None when the user gave no reason)
REALISTIC = [
    (
        "remember that we deploy with fly.io",
        "project",
        "deploy-fly-io",
        "We deploy with fly.io",
        "We deploy with fly.io.",
        None,
    ),
    (
        "we deploy with fly.io, remember that",
        "project",
        "deploy-fly-io",
        "We deploy with fly.io",
        "We deploy with fly.io.",
        None,
    ),
    (
        "记住：打包用 electron-builder",
        "project",
        "dabao-electron-builder",
        "打包用 electron-builder",
        "打包用 electron-builder。",
        None,
    ),
    ("记得用 pnpm", "project", "pnpm", "用 pnpm", "用 pnpm。", None),
    ("no, use pnpm not npm", "feedback", "pnpm-npm", "Use pnpm not npm", "Use pnpm not npm.", None),
    ("No. Use pnpm.", "feedback", "pnpm", "Use pnpm", "Use pnpm.", None),
    ("nope — use pnpm", "feedback", "pnpm", "Use pnpm", "Use pnpm.", None),
    ("不对，应该用 pnpm", "feedback", "pnpm", "应该用 pnpm", "应该用 pnpm。", None),
    ("不对。应该用 pnpm。", "feedback", "pnpm", "应该用 pnpm", "应该用 pnpm。", None),
    (
        "we decided to use SQLite because it's embedded",
        "project",
        "sqlite",
        "Use SQLite",
        "Use SQLite.",
        "It's embedded.",
    ),
    (
        "We decided on SQLite because it's embedded.",
        "project",
        "sqlite",
        "Use SQLite",
        "Use SQLite.",
        "It's embedded.",
    ),
    (
        "We're going with SQLite because it's embedded.",
        "project",
        "sqlite",
        "Use SQLite",
        "Use SQLite.",
        "It's embedded.",
    ),
    (
        "我们决定用 SQLite，因为它是嵌入式的。",
        "project",
        "sqlite",
        "决定用 SQLite",
        "决定用 SQLite。",
        "它是嵌入式的。",
    ),
    ("I prefer tabs", "feedback", "tabs", "I prefer tabs", "I prefer tabs.", None),
    ("I'd prefer tabs.", "feedback", "tabs", "I'd prefer tabs", "I'd prefer tabs.", None),
    (
        "Use tabs, not spaces.",
        "feedback",
        "tabs-spaces",
        "Use tabs, not spaces",
        "Use tabs, not spaces.",
        None,
    ),
    (
        "Don't use npm, use pnpm.",
        "feedback",
        "npm-pnpm",
        "Don't use npm, use pnpm",
        "Don't use npm, use pnpm.",
        None,
    ),
    ("别用 npm，用 pnpm", "feedback", "npm-pnpm", "别用 npm，用 pnpm", "别用 npm，用 pnpm。", None),
]


@pytest.mark.parametrize(("prompt", "rtype", "name", "description", "first_line", "why"), REALISTIC)
def test_realistic_phrasings(
    prompt: str, rtype: str, name: str, description: str, first_line: str, why: str | None
) -> None:
    [change] = _puts([(1, "user", prompt)]).values()
    record = change.record
    assert (record.type, record.name, record.description) == (rtype, name, description)
    assert record.body == f"\n{first_line}\n" + (f"\n**Why:** {why}\n" if why is not None else "")
    assert change.evidence == (1,)


@pytest.mark.parametrize(
    "text",
    [
        "No.",
        "不对。",
        "Use the write tool (NOT bash) to create notes.txt in the current directory.",
        "We chose to ignore the flaky test for now?",
        "我记得昨天跑过这个测试。",
        "Do not use any tools.",
        "No, it's fine.",
        "No, it's ok, carry on",
        "No, the tests are still failing.",
        "不对，还是报错。",
        "No, thanks.",
    ],
)
def test_near_misses_are_not_memories(text: str) -> None:
    assert OfflineConsolidator().propose(_request([(1, "user", text)])).is_no_change


def test_forced_rerun_is_a_new_review_and_keeps_the_final_receipt() -> None:
    store = InMemoryStore()
    service = ConsolidationService(store, ModelCatalog(()), AppSettings())
    evidence, text = make_evidence([(1, "user", "Remember that releases happen on Tuesdays.")])
    prepared = service.prepare_evidence(evidence, text)
    first = service.propose(prepared)
    assert service.commit(first, ["c1"]).status == "committed"
    committed_text = store.files(RECEIPTS).read(first.review_id)

    forced = service.propose(service.prepare_evidence(evidence, text), force=True)
    assert forced.review_id == f"{first.review_id}-r2" and not forced.reused
    assert forced.receipt.status == "no-change"  # the fact is in memory now
    assert store.files(RECEIPTS).read(first.review_id) == committed_text  # never overwritten
    # Without force the newest finished run is shown; forcing again makes -r3.
    again = service.propose(service.prepare_evidence(evidence, text))
    assert again.reused and again.review_id == forced.review_id
    assert service.propose(service.prepare_evidence(evidence, text), force=True).review_id.endswith("-r3")
    assert sorted(r.review_id for r in service.receipts()) == [
        first.review_id,
        f"{first.review_id}-r2",
        f"{first.review_id}-r3",
    ]


def test_a_workspace_in_the_recycle_bin_is_not_revived() -> None:
    from core.errors import UsageError

    store = InMemoryStore()
    snap = store.create_workspace(CWD)
    store.recycle.archive(snap.key)
    service = ConsolidationService(store, ModelCatalog(()), AppSettings())
    evidence, text = make_evidence([(1, "user", "Remember that releases happen on Tuesdays.")])
    with pytest.raises(UsageError) as caught:
        service.prepare_evidence(evidence, text)
    assert caught.value.reason == "archived-workspace"
    assert store.find_workspace(CWD) is None
    store.recycle.restore(snap.key)
    assert service.prepare_evidence(evidence, text).workspace_snapshot is not None
