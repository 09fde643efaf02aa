"""The Session Consolidation tab: a view (``view.py``) over the sessions panel and the review panel."""

from gui.tabs.consolidation.view import ConsolidationTab

__all__ = ["ConsolidationTab"]
