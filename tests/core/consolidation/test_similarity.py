"""Merge instead of duplicate: near-copies of existing records are flagged, exact ones dropped."""

from __future__ import annotations

from typing import Any

from consolidation_support import CWD, ChatServer, make_evidence, proposal_reply

from core.consolidation import ConsolidationService
from core.consolidation.similarity import merged_record, most_similar
from core.model_catalog import ModelCatalog
from core.models import PutOp, Record
from core.settings import AppSettings
from core.store.fs import FileStore

PNPM = Record(
    name="use-pnpm",
    description="Use pnpm for dependencies",
    type="feedback",
    body="\nAlways use pnpm in this repo, never npm.\n\n**Why:** The lockfile is pnpm's.\n",
)
DEPLOY = Record(
    name="deploy-fly", description="Deploys go to fly.io", type="project", body="\nWe deploy with fly.io.\n"
)


def _put(name: str, description: str, body: str) -> dict[str, Any]:
    return {
        "op": "put",
        "record": {"name": name, "description": description, "type": "feedback", "body": body},
        "reason": "the user said so",
        "evidence": [1],
    }


def _seeded(store: FileStore) -> None:
    snap = store.create_workspace(CWD)
    store.commit(snap.key, [PutOp(record=PNPM), PutOp(record=DEPLOY)], snap.revision)


def _review(store: FileStore, catalog: ModelCatalog, changes: list[dict[str, Any]], server: ChatServer) -> Any:
    server.replies.append(proposal_reply(changes))
    service = ConsolidationService(store, catalog, AppSettings(consolidator="model", request_timeout_seconds=10))
    evidence, text = make_evidence([(1, "user", "Always use pnpm in this repository, never npm.")])
    return service, service.propose(service.prepare_evidence(evidence, text))


def test_a_near_copy_from_the_model_is_flagged_and_merges_into_the_existing_record(
    tmp_path: Any, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    store = FileStore(tmp_path / "memory")
    _seeded(store)
    service, review = _review(
        store,
        catalog,
        [_put("pnpm-only", "Use pnpm for dependencies", "\nAlways use pnpm in this repository, never npm.\n")],
        chat_server,
    )
    [change] = review.changes
    assert change.similar_to == "use-pnpm" and change.similarity >= 80
    assert any("similar to [[use-pnpm]]" in w for w in change.warnings)
    merged = service.merge_change(review, change.id)
    assert merged.target == "use-pnpm.md" and merged.record is not None
    # The existing text (and its Why) stays; the new wording is appended, not duplicated.
    assert merged.record.body.startswith(
        "\nAlways use pnpm in this repo, never npm.\n\n**Why:** The lockfile is pnpm's.\n"
    )
    assert "Always use pnpm in this repository, never npm." in merged.record.body
    receipt = service.commit(review, [change.id], edited={change.id: merged})
    assert receipt.status == "committed"
    snap = store.find_workspace(CWD)
    assert snap is not None and sorted(r.name for r in snap.records()) == ["deploy-fly", "use-pnpm"]


def test_an_exact_restatement_under_a_new_name_is_no_change(
    tmp_path: Any, chat_server: ChatServer, catalog: ModelCatalog
) -> None:
    store = FileStore(tmp_path / "memory")
    _seeded(store)
    before = store.find_workspace(CWD)
    _service, review = _review(store, catalog, [_put("deploys", DEPLOY.description, DEPLOY.body)], chat_server)
    [change] = review.changes
    assert change.kind == "no_change" and "[[deploy-fly]]" in change.reason
    assert review.actionable == ()
    assert store.find_workspace(CWD) == before


def test_different_facts_about_the_same_tool_are_not_flagged() -> None:
    other = Record(
        name="pnpm-workspaces",
        description="Monorepo layout",
        type="project",
        body="\nPackages live in packages/* as pnpm workspaces.\n",
    )
    assert most_similar(other, [PNPM, DEPLOY]) is None
    chinese = Record(name="bushu", description="部署", type="project", body="\n我们用 fly.io 部署，每周二发布。\n")
    assert most_similar(chinese, [PNPM, DEPLOY]) is None
    same_zh = Record(name="fabu", description="部署", type="project", body="\n我们用 fly.io 部署，每周二发布一次。\n")
    assert most_similar(same_zh, [chinese]) is not None


def test_merging_text_already_held_changes_nothing() -> None:
    assert merged_record(PNPM, PNPM.model_copy(update={"name": "x"})) == PNPM
