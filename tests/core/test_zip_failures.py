"""Issue 25, finding 7: a malformed zip is one typed ImportZipError per failure class, never a raw
IndexError / BadZipFile / zlib.error / NotImplementedError (each escaped on the code before it)."""

from __future__ import annotations

import json
import struct
import zipfile
from pathlib import Path

import pytest

from core.export import FORMAT
from core.import_zip import ImportZipError, read_export_zip

MANIFEST = json.dumps({"format": FORMAT, "workspaces": [], "files": {}}).encode()


def _one_member(path: Path, method: int = zipfile.ZIP_STORED, data: bytes = MANIFEST) -> bytes:
    with zipfile.ZipFile(path, "w", compression=method) as zf:
        zf.writestr("manifest.json", data)
    return path.read_bytes()


def _data_offset(raw: bytes) -> int:
    """Where the first member's data starts (after its local header)."""
    name_len, extra_len = struct.unpack_from("<HH", raw, 26)
    return 30 + name_len + extra_len


def test_an_empty_member_name_is_refused_not_an_index_error(tmp_path: Path) -> None:
    path = tmp_path / "empty-name.zip"
    with zipfile.ZipFile(path, "w") as zf:
        zf.writestr("manifest.json", MANIFEST)
        zf.writestr(zipfile.ZipInfo(""), b"x")
    contents = read_export_zip(path)
    assert [(r.path, r.kind) for r in contents.refused] == [("", "unsafe-path")]


def test_a_bad_crc_is_a_damaged_zip(tmp_path: Path) -> None:
    path = tmp_path / "crc.zip"
    raw = bytearray(_one_member(path))
    raw[_data_offset(raw) + 3] ^= 0x01  # one flipped bit in the stored manifest
    path.write_bytes(raw)
    with pytest.raises(ImportZipError) as caught:
        read_export_zip(path)
    assert caught.value.kind == "damaged" and caught.value.path == "manifest.json"


def test_a_corrupt_deflate_stream_is_corrupt_data(tmp_path: Path) -> None:
    path = tmp_path / "deflate.zip"
    raw = bytearray(_one_member(path, zipfile.ZIP_DEFLATED, MANIFEST * 20))
    start = _data_offset(raw)
    raw[start : start + 8] = b"\xff" * 8  # block type 3: reserved, invalid in every deflate stream
    path.write_bytes(raw)
    with pytest.raises(ImportZipError) as caught:
        read_export_zip(path)
    assert caught.value.kind == "corrupt-data"


def test_an_unknown_compression_method_is_unsupported(tmp_path: Path) -> None:
    path = tmp_path / "method.zip"
    raw = bytearray(_one_member(path))
    struct.pack_into("<H", raw, 8, 99)  # the local header's method
    central = raw.rfind(b"PK\x01\x02")
    struct.pack_into("<H", raw, central + 10, 99)  # and the central directory's
    path.write_bytes(raw)
    with pytest.raises(ImportZipError) as caught:
        read_export_zip(path)
    assert caught.value.kind == "unsupported-method"
