"""What a sync reports and keeps: its configuration, its last result and a pending sync review."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from core.sync.review import Resolution, ReviewItem

SyncStatus = Literal[
    "up-to-date",  # nothing to send or receive
    "pushed",  # this machine's changes went to the remote
    "merged",  # the remote's changes came in (and the merge went out)
    "review",  # records changed on both machines wait for the user's choice; nothing pushed
    "secret",  # a record holding a credential-shaped value would have been pushed: stopped
    "push-rejected",  # the remote moved on meanwhile: sync again
    "changed-here",  # memory was edited here while merging: nothing sent, sync again
    "remote",  # the remote could not be reached
    "git-missing",  # git is not installed
    "failed",  # another failure (see message)
]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class SyncConfig(_Model):
    format: Literal["dsh-sync-config/1"] = "dsh-sync-config/1"
    remote: str = ""
    branch: str = "main"


class SyncResult(_Model):
    status: SyncStatus
    message: str
    time: str  # ISO-8601 UTC
    remote: str = ""
    commit: str | None = None  # this machine's sync commit after the run
    received: list[str] = Field(default_factory=list)  # synced paths written here from the remote
    sent: list[str] = Field(default_factory=list)  # synced paths this machine changed and pushed
    conflicts: list[str] = Field(default_factory=list)  # waiting in the sync review
    held: dict[str, str] = Field(default_factory=dict)  # not written here, with why
    frozen: dict[str, str] = Field(default_factory=dict)  # invalid local files, never synced
    secrets: list[str] = Field(default_factory=list)  # records refused for credential-shaped values
    unmapped: list[str] = Field(default_factory=list)  # synced workspaces whose folder is not here
    purged: list[str] = Field(default_factory=list)  # archived here: deleted forever on another machine
    rewritten: bool = False  # this run replaced the remote's history (after a purge here)

    @property
    def ok(self) -> bool:
        return self.status in ("up-to-date", "pushed", "merged")


class PendingReview(_Model):
    """A merge waiting for the user: the remote commit it merges and the items changed on both sides."""

    format: Literal["dsh-sync-review/1"] = "dsh-sync-review/1"
    remote_commit: str
    items: list[ReviewItem]
    resolutions: dict[str, Resolution] = Field(default_factory=dict)

    def open_items(self) -> list[ReviewItem]:
        return [i for i in self.items if i.id not in self.resolutions]


class SyncSummary(_Model):
    """What a status-bar badge shows: set up or not, the last result, how many items wait."""

    remote: str = ""
    last: SyncResult | None = None
    open_items: int = 0
