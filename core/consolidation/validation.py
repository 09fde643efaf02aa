"""Host validation of a proposal: turn each proposed change into a reviewed row with its diff.

What the host refuses (``problems``: the change cannot be accepted):

- **Names**: a put must be a valid record (``core.records.validate_record``: kebab-case name, not
  ``memory``, one-line description, type feedback/project/reference); a delete must name a record
  that exists in the workspace. Two changes to the same record in one proposal are refused.
- **Scope**: only the source session's workspace. A change that names another workspace (its
  ``workspace`` field is not the source cwd or key) is refused, and so is any name with a path in it.
- **Secrets**: credential-shaped text in a record or in Global (``core.secrets``) is refused.
- **Global promotion**: a workspace fact never becomes Global on its own. A ``replace_global`` is
  only reviewable when (1) it cites evidence and *every* cited seq is a human prompt of this
  session (the user said it about themselves; assistant text and tools don't count), and (2) the
  new text does not mention this workspace (its cwd, folder name or key). Even then it carries a
  warning and ``needs_confirmation``: the user must confirm it explicitly at commit time.

Evidence seqs that do not occur in the session are refused too: a change must be traceable.

**Duplicates** (``core.consolidation.similarity``): a new record that says exactly what an existing
one says becomes a no-change row; one that is merely similar (≥ 80 %) is flagged with the existing
record's name so the user can merge it into that record instead.
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from pydantic import ValidationError

from core import messages as M
from core import textdiff
from core.consolidation.base import ConsolidationInput
from core.consolidation.proposals import (
    DeleteRecord,
    NoChange,
    Proposal,
    ProposedChange,
    ProposedRecord,
    PutRecord,
    ReplaceGlobal,
    ReviewChange,
)
from core.consolidation.similarity import is_exact_duplicate, most_similar
from core.consolidation.supersede import Supersession, find_superseded
from core.consolidation.support import support_warning, user_quotes
from core.keys import normalize_cwd, workspace_key
from core.models import RECORD_TYPES, Record

GLOBAL_FILE = "GLOBAL.md"
DESCRIPTION_SOFT_LIMIT = 150
"""Above this a description is flagged (not refused): the prompt asks for about 100 characters."""


def normalize_body(body: str) -> str:
    """Record bodies start with one blank line and end with exactly one newline (the canonical layout)."""
    text = body.replace("\r\n", "\n").strip("\n")
    return "\n" + text + "\n" if text else "\n"


def unified_diff(before: str | None, after: str | None, target: str) -> str:
    """The diff of one target; a side that does not exist (``None``) is ``/dev/null``."""
    return textdiff.unified_diff(
        before or "",
        after or "",
        f"a/{target}" if before is not None else "/dev/null",
        f"b/{target}" if after is not None else "/dev/null",
    )


def secret_problems(text: str, what: str) -> list[str]:
    from core.secrets import describe, find_secrets

    findings = find_secrets(text)
    if not findings:
        return []
    return [M.SECRET_REFUSED.format(what=what, kinds="; ".join(describe(findings)))]


def _scope_problem(workspace: str | None, request: ConsolidationInput) -> list[str]:
    if workspace is None or not workspace.strip():
        return []
    claimed = workspace.strip()
    if claimed == request.workspace_key:
        return []
    if os.path.isabs(claimed) and normalize_cwd(claimed) == normalize_cwd(request.cwd):
        return []
    if os.path.isabs(claimed) and workspace_key(claimed) == request.workspace_key:
        return []
    return [M.OTHER_WORKSPACE.format(claimed=repr(claimed), cwd=request.cwd)]


def _evidence_problems(evidence: Sequence[int], request: ConsolidationInput) -> list[str]:
    known = request.evidence.all_seqs()
    unknown = sorted({s for s in evidence if s not in known})
    if unknown:
        return [M.UNKNOWN_SEQS.format(seqs=", ".join(map(str, unknown[:10])))]
    return []


def _mentions_workspace(text: str, request: ConsolidationInput) -> str | None:
    lowered = text.lower()
    cwd = normalize_cwd(request.cwd)
    base = os.path.basename(cwd)
    for needle in (cwd, request.workspace_key, base if len(base) >= 3 else ""):
        if needle and needle.lower() in lowered:
            return needle
    return None


def _user_seqs(request: ConsolidationInput) -> set[int]:
    return {m.seq for t in request.evidence.turns for m in t.messages if m.role == "user"}


def _to_record(proposed: ProposedRecord, existing: Record | None) -> tuple[Record | None, list[str]]:
    rtype = proposed.type.strip()
    if rtype not in RECORD_TYPES:
        template = M.TYPE_USER if rtype == "user" else M.TYPE_UNKNOWN
        return None, [template.format(type=repr(rtype))]
    try:
        record = Record(
            name=proposed.name.strip(),
            description=proposed.description.strip(),
            type=proposed.type.strip(),  # type: ignore[arg-type]  # checked by pydantic just below
            body=normalize_body(proposed.body),
            # Keys the user added by hand survive an automatic rewrite of the record.
            extra_frontmatter=existing.extra_frontmatter if existing is not None else "",
        )
    except ValidationError as exc:
        return None, [f"{'.'.join(str(p) for p in e['loc'])}: {e['msg']}" for e in exc.errors()]
    from core.records import validate_record

    return record, validate_record(record, f"{record.name}.md")


def render_record_text(record: Record) -> str:
    from core.records import render_record

    return render_record(record).decode("utf-8")


def review_put(
    change_id: str,
    change: PutRecord,
    request: ConsolidationInput,
    existing: dict[str, Record],
    deleting: frozenset[str] = frozenset(),
) -> ReviewChange:
    name = change.record.name.strip()
    problems: list[str] = []
    if "/" in name or "\\" in name or name.startswith("."):
        problems.append(M.NAME_IS_PATH.format(name=repr(name)))
    problems += _scope_problem(change.workspace, request)
    old = existing.get(name)
    record, reasons = _to_record(change.record, old)
    problems += reasons
    problems += _evidence_problems(change.evidence, request)
    before = render_record_text(old) if old is not None else None
    after: str | None = None
    if record is not None:
        problems += secret_problems(f"{record.description}\n{record.body}", M.RECORD_NAMED.format(name=repr(name)))
        if not reasons:
            after = render_record_text(record)
    warnings: list[str] = []
    if old is not None and record is not None and old != record:
        warnings.append(M.REPLACES_RECORD.format(name=repr(name)))
    similar = None
    if old is None and record is not None and not problems:
        duplicate = is_exact_duplicate(record, existing.values())
        if duplicate is not None:  # says exactly what an existing record says: nothing to review
            return ReviewChange(
                id=change_id,
                kind="no_change",
                target="",
                change=NoChange(reason=M.ALREADY_IN_MEMORY.format(name=duplicate.name), evidence=change.evidence),
            )
        # A near-copy (≥ 80 %) is a restatement to merge; below that, a keyed value that changed
        # (codeword, URL, version) or a negation is a new value of the old fact.
        # Records the same proposal deletes are being replaced already: no Replace/Merge to offer.
        others = [r for r in existing.values() if r.name not in deleting]
        related = find_superseded(record, others)
        similar = most_similar(record, others)
        if related is not None and (related.key != "wording" or similar is None):
            warnings.append(supersession_warning(related))
            similar = None
        elif similar is not None:
            related = None
            warnings.append(M.SIMILAR_TO.format(name=similar.name, score=similar.score))
    else:
        related = None
    if record is not None and len(record.description) > DESCRIPTION_SOFT_LIMIT:
        warnings.append(M.DESCRIPTION_LONG.format(n=len(record.description)))
    unsupported = None
    if record is not None:
        unsupported = support_warning(record, request, change.evidence)
        if unsupported is not None:
            warnings.append(unsupported)
    return ReviewChange(
        id=change_id,
        kind="put",
        target=f"{name}.md",
        change=change,
        record=record,
        before=before,
        after=after if after is not None else before,
        diff=unified_diff(before, after, f"{name}.md") if after is not None else "",
        problems=tuple(problems),
        warnings=tuple(warnings),
        similar_to=similar.name if similar is not None else None,
        similarity=similar.score if similar is not None else 0,
        related_to=related.name if related is not None else None,
        relation=related.relation if related is not None else "",
        quotes=user_quotes(request, change.evidence),
        unsupported=unsupported is not None,
    )


def supersession_warning(related: Supersession) -> str:
    """ "supersedes [[codeword]] (MARMALADE → SAFFRON): …" / "contradicts [[tag-on-main]] (which says main): …" """
    if related.relation == "contradicts":
        return M.CONTRADICTS.format(name=related.name, word=related.old)
    detail = (
        M.UPDATES_VALUE.format(old=related.old, new=related.new) if related.old and related.new
        else M.CHANGED_WORDING.format()
    )
    return M.SUPERSEDES.format(name=related.name, detail=detail)


def review_delete(
    change_id: str, change: DeleteRecord, request: ConsolidationInput, existing: dict[str, Record]
) -> ReviewChange:
    name = change.name.strip()
    problems = _scope_problem(change.workspace, request) + _evidence_problems(change.evidence, request)
    old = existing.get(name)
    if old is None:
        problems.append(M.NO_RECORD_TO_DELETE.format(name=repr(name)))
    before = render_record_text(old) if old is not None else None
    return ReviewChange(
        id=change_id,
        kind="delete",
        target=f"{name}.md",
        change=change,
        before=before,
        after=None,
        diff=unified_diff(before, None, f"{name}.md") if before is not None else "",
        problems=tuple(problems),
        warnings=(M.DELETES_RECORD.format(name=repr(name)),) if old else (),
        quotes=user_quotes(request, change.evidence),
    )


def review_global(change_id: str, change: ReplaceGlobal, request: ConsolidationInput) -> ReviewChange:
    problems = _evidence_problems(change.evidence, request)
    if not change.evidence:
        problems.append(M.GLOBAL_NO_EVIDENCE.format())
    else:
        not_user = sorted(set(change.evidence) - _user_seqs(request))
        if not_user:
            problems.append(M.GLOBAL_NOT_USER.format(seqs=", ".join(map(str, not_user[:10]))))
    problems += workspace_mention_problems(change.text, request)
    text = global_text_of(change)
    problems += secret_problems(text, "GLOBAL.md")
    warnings = [GLOBAL_WARNING]
    old_lines = [ln for ln in request.global_text.splitlines() if ln.strip()]
    new_lines = {ln for ln in text.splitlines() if ln.strip()}
    removed = [ln for ln in old_lines if ln not in new_lines]
    if old_lines and len(removed) * 2 > len(old_lines):
        warnings.append(M.GLOBAL_REMOVES.format(removed=len(removed), total=len(old_lines)))
    return global_row(change_id, change, request, problems, warnings)


GLOBAL_WARNING = M.GLOBAL_WARNING.format()


def global_text_of(change: ReplaceGlobal) -> str:
    """The proposed GLOBAL.md, ending with a newline."""
    return change.text if change.text.endswith("\n") or not change.text else change.text + "\n"


def workspace_mention_problems(text: str, request: ConsolidationInput) -> list[str]:
    mention = _mentions_workspace(text, request)
    if mention is None:
        return []
    return [M.GLOBAL_MENTIONS_WORKSPACE.format(mention=repr(mention))]


def global_row(
    change_id: str, change: ReplaceGlobal, request: ConsolidationInput, problems: list[str], warnings: list[str]
) -> ReviewChange:
    """The review row of a Global replacement (always needs the user's explicit confirmation)."""
    text = global_text_of(change)
    return ReviewChange(
        id=change_id,
        kind="replace_global",
        target=GLOBAL_FILE,
        change=change,
        before=request.global_text,
        after=text,
        diff=unified_diff(request.global_text, text, GLOBAL_FILE),
        problems=tuple(problems),
        warnings=tuple(warnings),
        needs_confirmation=True,
        quotes=user_quotes(request, change.evidence),
    )


def review_change(
    change_id: str,
    change: ProposedChange,
    request: ConsolidationInput,
    existing: dict[str, Record],
    deleting: frozenset[str] = frozenset(),
) -> ReviewChange:
    if isinstance(change, PutRecord):
        return review_put(change_id, change, request, existing, deleting)
    if isinstance(change, DeleteRecord):
        return review_delete(change_id, change, request, existing)
    if isinstance(change, ReplaceGlobal):
        return review_global(change_id, change, request)
    assert isinstance(change, NoChange)
    return ReviewChange(id=change_id, kind="no_change", target="", change=change)


def review_proposal(proposal: Proposal, request: ConsolidationInput) -> tuple[ReviewChange, ...]:
    """Every change of ``proposal`` checked against ``request`` (ids ``c1``, ``c2``... in order)."""
    existing = {r.name: r for r in request.records}
    rows: list[ReviewChange] = []
    seen_targets: dict[str, str] = {}
    deleting = frozenset(c.name.strip() for c in proposal.changes if isinstance(c, DeleteRecord))
    for i, change in enumerate(proposal.changes, start=1):
        row = review_change(f"c{i}", change, request, existing, deleting)
        if row.target:
            first = seen_targets.get(row.target)
            if first is not None:
                row = row.model_copy(
                    update={"problems": (*row.problems, M.TARGET_TWICE.format(target=row.target, first=first))}
                )
            else:
                seen_targets[row.target] = row.id
        rows.append(row)
    return tuple(rows)
