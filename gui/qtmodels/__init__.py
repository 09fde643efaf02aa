"""Qt item models over core snapshots (workspaces, records, search hits) and their filter proxies."""

from core.changeset import RecordRow
from gui.qtmodels.records import RecordFilterProxy, RecordTableModel
from gui.qtmodels.search_results import SearchHit, SearchResultsModel
from gui.qtmodels.workspaces import WorkspaceFilterProxy, WorkspaceTableModel

__all__ = [
    "RecordFilterProxy",
    "RecordRow",
    "RecordTableModel",
    "SearchHit",
    "SearchResultsModel",
    "WorkspaceFilterProxy",
    "WorkspaceTableModel",
]
