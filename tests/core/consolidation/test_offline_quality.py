"""The offline extractor measured on its labeled corpus (42 conversations, English and Chinese).

Each conversation is written as a real DSH session file and consolidated through the same service
the window uses. The bars are the product's: precision ≥ 0.9, recall ≥ 0.8, no duplicates when a
conversation is consolidated again, and records that read as if a person wrote them.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from offline_corpus import Score, candidates, fresh_reviews, load_corpus, run_growing

from core.store.fs import FileStore

CORPUS = load_corpus()


def test_corpus_is_balanced_and_has_distractors() -> None:
    languages = [c.language for c in CORPUS]
    assert len(CORPUS) >= 40
    assert languages.count("en") >= 20 and languages.count("zh") >= 20
    assert sum(1 for c in CORPUS if not c.expect) >= 12
    assert sum(1 for c in CORPUS for e in c.expect if e.scope == "global") >= 6


@pytest.fixture(scope="module")
def reviewed(tmp_path_factory: pytest.TempPathFactory) -> list[tuple[object, object]]:
    return list(fresh_reviews(tmp_path_factory.mktemp("corpus"), CORPUS))


def test_precision_and_recall_meet_the_bar(reviewed: list) -> None:  # type: ignore[type-arg]
    score = Score()
    for conversation, review in reviewed:
        score.add(conversation, candidates(review))
    assert score.precision >= 0.9, score.false_alarms
    assert score.recall >= 0.8, score.misses


def test_distractors_become_no_change(reviewed: list) -> None:  # type: ignore[type-arg]
    noisy = [c.id for c, r in reviewed if not c.expect and r.actionable]
    assert noisy == []


def test_records_read_like_a_person_wrote_them(reviewed: list) -> None:  # type: ignore[type-arg]
    for _conversation, review in reviewed:
        for change in review.actionable:
            if change.record is None:
                continue
            record = change.record
            assert not re.match(r"(?i)(remember|decision|correction|preference)\s*:", record.description)
            assert not record.description.startswith(("记住：", "决定：", "纠正：", "偏好："))
            assert "explicitly asked to remember" not in record.body and "明确要求记住" not in record.body
            assert "**How to apply:**" not in record.body  # no boilerplate; the user said nothing about it
            assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", record.name)
            assert not record.name.startswith("note-"), record.name  # Chinese facts get pinyin names


def test_one_fact_per_record_and_cross_project_statements_go_to_global(reviewed: list) -> None:  # type: ignore[type-arg]
    by_id = {c.id: r for c, r in reviewed}
    compound = by_id["en-compound-global-and-workspace"]
    [put] = [c for c in compound.actionable if c.kind == "put"]
    assert put.record is not None and "pnpm" in put.record.body and "Chinese" not in put.record.body
    [glob] = [c for c in compound.actionable if c.kind == "replace_global"]
    assert glob.needs_confirmation and "- In every project I prefer answers in Chinese." in (glob.after or "")
    assert "pnpm" not in (glob.after or "")
    concise = by_id["zh-global-concise"]
    assert [c.kind for c in concise.actionable] == ["replace_global"]  # never a workspace record
    assert "我在所有项目里都喜欢简洁的回答" in (concise.actionable[0].after or "")


def test_reason_given_by_the_user_is_the_why(reviewed: list) -> None:  # type: ignore[type-arg]
    by_id = {c.id: r for c, r in reviewed}
    [postgres] = by_id["en-decision-postgres"].actionable
    assert postgres.record is not None and "**Why:** We need transactions." in postgres.record.body
    [sqlite] = by_id["zh-decision-sqlite"].actionable
    assert sqlite.record is not None and "**Why:** 部署简单。" in sqlite.record.body


def test_consolidating_again_into_the_growing_workspace_adds_no_duplicates(tmp_path: Path) -> None:
    store = FileStore(tmp_path / "memory")
    run = run_growing(store, tmp_path, CORPUS)
    assert run.committed >= 30
    assert run.duplicates == 0, run.duplicate_ids
    # What was committed is on disk: Global got the cross-project statements, the workspace the rest.
    text = store.read_global().text
    assert "我在所有项目里都喜欢简洁的回答" in text and "answers in Chinese" in text
