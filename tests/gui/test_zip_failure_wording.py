"""Issue 25, finding 7: the zip failure kinds are translated in the window, not shown raw."""

from __future__ import annotations

from typing import get_args

from core.import_zip import ImportZipError, ZipProblemKind
from gui.tabs.maintenance.wording import _zip_errors, zip_error


def test_every_kind_has_a_translated_sentence() -> None:
    for kind in ("damaged", "corrupt-data", "unsupported-method", "truncated"):
        assert kind in get_args(ZipProblemKind)
        assert kind in _zip_errors()
    said = zip_error(ImportZipError("damaged", "raw English", path="manifest.json"))
    assert "manifest.json" in said and "raw English" not in said
