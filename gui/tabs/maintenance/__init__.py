"""The Maintenance tab (issue 14 §3): review queue for stale memory, load meter, export / import."""

from gui.tabs.maintenance.view import MaintenanceTab

__all__ = ["MaintenanceTab"]
