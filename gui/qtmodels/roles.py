"""Custom item roles shared by the models."""

from PySide6.QtCore import Qt

KEY_ROLE = int(Qt.ItemDataRole.UserRole) + 1  # stable identity of a row (workspace key, record name)
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 2  # value to sort by (numbers as numbers)
ITEM_ROLE = int(Qt.ItemDataRole.UserRole) + 3  # the underlying value object
