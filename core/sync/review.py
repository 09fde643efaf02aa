"""One review item per record seen two ways (a move into an existing workspace, or a sync where both
machines changed it): the texts side by side and the user's choice. Nothing is written unseen: an
item without a resolution blocks the transaction it belongs to."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from core import messages as msg
from core.errors import UsageError
from core.textdiff import unified_diff

Choice = Literal["mine", "theirs", "edited"]


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class ReviewItem(_Frozen):
    """A record (or GLOBAL.md) with two competing versions; None means "deleted on that side".

    For a sync, ``mine`` is this machine's version and ``theirs`` the remote's, ``base`` the last
    version both had. For a move, ``mine`` is what the target folder's workspace holds and
    ``theirs`` the moved record (no base)."""

    id: str  # the synced path (``workspaces/<key>/<name>.md``, ``GLOBAL.md``) or the record name
    scope: str  # local workspace key, or "global"
    name: str  # record name, or "GLOBAL"
    label: str  # the workspace's display name, or "Global"
    base: str | None = None
    mine: str | None = None
    theirs: str | None = None

    def diff(self) -> str:
        """Mine → theirs as a unified diff (what accepting theirs would change here)."""
        return unified_diff(self.mine or "", self.theirs or "", f"mine/{self.name}", f"theirs/{self.name}")


class Resolution(_Frozen):
    choice: Choice
    text: str | None = None  # the edited text (``choice == "edited"``)


def resolved_text(item: ReviewItem, res: Resolution) -> str | None:
    """The text the user chose (None: the record is deleted)."""
    if res.choice == "mine":
        return item.mine
    if res.choice == "theirs":
        return item.theirs
    if res.text is None:
        raise UsageError(msg.SYNC_EDIT_NEEDS_TEXT.format(name=item.name))
    return res.text


def unresolved(items: Sequence[ReviewItem], resolutions: Mapping[str, Resolution]) -> list[str]:
    return [i.id for i in items if i.id not in resolutions]
