"""The Settings tab: a view (``view.py``) over its fields (``fields.py``) and core.settings_form."""

from gui.tabs.settings.view import SettingsTab

__all__ = ["SettingsTab"]
