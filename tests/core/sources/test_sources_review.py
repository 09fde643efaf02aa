"""An import reviewed like a consolidation (the GUI's path): accept, reject, edit, CAS conflict, refresh."""

from __future__ import annotations

from typing import Any, cast

from sources_support import World

from core.models import PutOp, Record
from core.sources.discovery import SourcePaths, discover
from core.sources.importer import ImportService, consolidator_name, plan_import


def _prepared(world: World) -> tuple[ImportService, Any]:
    store = world.store()
    found = discover(SourcePaths.from_env(memory_root=world.root), store)
    plan = plan_import("workspace-memory", found.sources, cwd=world.alpha)
    service = ImportService(store)
    target = next(t for t in plan.targets if t.cwd == world.alpha)
    return service, service.prepare(target)


def test_accept_reject_and_edit_then_commit(world: World) -> None:
    service, prepared = _prepared(world)
    consolidation, review = service.open_review(prepared)
    rows = {ch.target: ch for ch in review.changes}
    assert review.receipt.status == "proposed" and review.consolidator == "import:workspace-memory"
    assert any("conflicts with" in w for w in rows["tabs.md"].warnings)
    edited = Record(name="use-pnpm", description="Package manager", type="project", body="\nUse pnpm 9.\n")
    receipt = consolidation.commit(
        review,
        [rows["use-pnpm.md"].id, rows["spaces.md"].id],
        edited_records={rows["use-pnpm.md"].id: edited},
    )
    assert receipt.status == "partially-committed"
    decisions = {c.target: c.decision for c in receipt.changes}
    assert decisions["use-pnpm.md"] == "edited" and decisions["spaces.md"] == "accepted"
    assert decisions["tabs.md"] == "rejected" and decisions["ci-token.md"] == "refused"
    snap = world.store().find_workspace(world.alpha)
    assert snap is not None
    assert {r.name for r in snap.records()} == {"use-pnpm", "spaces"}
    assert next(r for r in snap.records() if r.name == "use-pnpm").body == "\nUse pnpm 9.\n"


def test_memory_changed_meanwhile_is_a_conflict_that_writes_nothing(world: World) -> None:
    service, prepared = _prepared(world)
    consolidation = service.consolidation([prepared])
    review = consolidation.propose(prepared.prepared, consolidator=cast(Any, consolidator_name("workspace-memory")))
    store = world.store()
    snap = store.create_workspace(world.alpha)
    mine = Record(name="mine", description="Mine", type="project", body="\nWritten meanwhile.\n")
    after = store.commit(snap.key, [PutOp(record=mine)], snap.revision)
    ids = [ch.id for ch in review.actionable]
    receipt = consolidation.commit(review, ids)
    assert receipt.status == "conflict"
    now = world.store().find_workspace(world.alpha)
    assert now is not None and now.revision == after.revision
    refreshed = consolidation.refresh(review)
    receipt = consolidation.commit(refreshed, [ch.id for ch in refreshed.actionable])
    assert receipt.status == "committed"
    final = world.store().find_workspace(world.alpha)
    assert final is not None and "mine" in {r.name for r in final.records()} and len(final.records()) > 1
