"""The Settings tab's model picker: DSH's configured models, its default, and a custom endpoint."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from PySide6.QtCore import QAbstractListModel, QCoreApplication, QModelIndex, QPersistentModelIndex, Qt

from core.model_catalog import CUSTOM_ID, ModelCatalog, ModelChoice
from gui.qtmodels.roles import ITEM_ROLE, KEY_ROLE

Index = QModelIndex | QPersistentModelIndex
_NO_INDEX = QModelIndex()

DEFAULT_KEY = ""
"""Row key of "DSH's default model" (saved as ``selected_model: null``)."""


@dataclass(frozen=True)
class ModelRow:
    """One entry of the picker. ``key`` is what ``selected_model`` saves ('' = DSH default)."""

    kind: Literal["default", "model", "custom"]
    choice: ModelChoice | None = None

    @property
    def key(self) -> str:
        if self.kind == "default":
            return DEFAULT_KEY
        if self.kind == "custom":
            return CUSTOM_ID
        assert self.choice is not None
        return self.choice.id

    @property
    def label(self) -> str:
        translate = QCoreApplication.translate
        if self.kind == "custom":
            return translate("ModelChoicesModel", "Custom OpenAI-compatible endpoint…")
        assert self.choice is not None
        key = (
            translate("ModelChoicesModel", "  —  key from {name}").format(name=self.choice.api_key_env)
            if self.choice.api_key_env
            else translate("ModelChoicesModel", "  —  no API key")
        )
        if self.kind == "default":
            return translate("ModelChoicesModel", "DSH's default model ({label})").format(label=self.choice.label)
        return self.choice.label + key


def rows_for(catalog: ModelCatalog) -> list[ModelRow]:
    rows: list[ModelRow] = []
    if catalog.default is not None:
        rows.append(ModelRow("default", catalog.default))
    rows += [ModelRow("model", c) for c in catalog.choices]
    rows.append(ModelRow("custom"))
    return rows


class ModelChoicesModel(QAbstractListModel):
    """List model for the consolidation-model combo box. Shows environment variable NAMES only."""

    def __init__(self, parent: Any = None) -> None:
        super().__init__(parent)
        self._rows: list[ModelRow] = [ModelRow("custom")]

    def set_catalog(self, catalog: ModelCatalog) -> None:
        self.beginResetModel()
        self._rows = rows_for(catalog)
        self.endResetModel()

    def row(self, index: int) -> ModelRow:
        return self._rows[index]

    def row_of(self, key: str) -> int:
        return next((i for i, r in enumerate(self._rows) if r.key == key), -1)

    def rowCount(self, parent: Index = _NO_INDEX) -> int:
        return 0 if parent.isValid() else len(self._rows)

    def flags(self, index: Index) -> Qt.ItemFlag:
        if not index.isValid():
            return Qt.ItemFlag.NoItemFlags
        return Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable | Qt.ItemFlag.ItemNeverHasChildren

    def data(self, index: Index, role: int = Qt.ItemDataRole.DisplayRole) -> Any:
        if not index.isValid() or index.column() != 0 or not (0 <= index.row() < len(self._rows)):
            return None
        row = self._rows[index.row()]
        if role == Qt.ItemDataRole.DisplayRole:
            return row.label
        if role == Qt.ItemDataRole.ToolTipRole:
            if row.choice is None:
                return self.tr("Any OpenAI-compatible chat-completions endpoint: base URL, model and key variable name")
            c = row.choice
            key = (
                self.tr("API key read from the environment variable {name}").format(name=c.api_key_env)
                if c.api_key_env
                else self.tr("no API key")
            )
            return self.tr("{model} at {url}").format(model=c.model, url=c.base_url) + "\n" + key
        if role == KEY_ROLE:
            return row.key
        if role == ITEM_ROLE:
            return row
        return None
