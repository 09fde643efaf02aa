"""Custom item roles shared by the models."""

from PySide6.QtCore import Qt

KEY_ROLE = int(Qt.ItemDataRole.UserRole) + 1  # stable identity of a row (workspace key, record name)
SORT_ROLE = int(Qt.ItemDataRole.UserRole) + 2  # value to sort by (numbers as numbers)
ITEM_ROLE = int(Qt.ItemDataRole.UserRole) + 3  # the underlying value object

# Qt's item roles as plain ints, for models whose data() runs for every painted cell (comparing an
# int with an int is cheaper than with an enum member).
DISPLAY = int(Qt.ItemDataRole.DisplayRole)
TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
ALIGN = int(Qt.ItemDataRole.TextAlignmentRole)
RIGHT = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
