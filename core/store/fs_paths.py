"""Where the file store may write: real folders inside the root, and the modes new files and folders get."""

from __future__ import annotations

import os
from pathlib import Path
from stat import S_ISDIR, S_ISLNK

from core.atomic import PRIVATE_DIR_MODE, PRIVATE_FILE_MODE, existing_mode
from core.errors import StorageError
from core.layout import GLOBAL_FILE, INDEX_FILE, SCOPE_FILE, WORKSPACES_DIR


def real_dir_or_absent(root: Path, rel: str) -> bool:
    """True if ``root/rel`` is a real folder (no symlink on the way), False if absent.

    Anything else (a symlink, a file) raises: the store never writes through it, ``check`` lists it.
    """
    p = root
    for part in rel.split("/"):
        p = p / part
        try:
            st = os.lstat(p)
        except FileNotFoundError:
            return False
        except OSError as exc:
            raise StorageError(f"Could not inspect {p}: {exc.strerror or exc}.") from exc
        if not S_ISDIR(st.st_mode):
            kind = "a symbolic link" if S_ISLNK(st.st_mode) else "not a folder"
            raise StorageError(
                f"{p.relative_to(root)} is {kind}; the store never writes through it. "
                "Nothing was written. Run `dsh-memory check` and move it out of the memory root.",
                reason="not-a-folder",
            )
    return True


def confined(root: Path, rel: str) -> Path:
    """``rel`` under the root with no symlinked folder on the way (``.manager`` included): private
    state must never be written, read or removed through a link out of the root."""
    path = root
    for part in Path(rel).parts[:-1]:
        path = path / part
        if path.is_symlink():
            raise StorageError(
                f"{path} is a symbolic link; pending reviews are only kept inside the memory root. "
                "Replace it with a real folder (or remove it) and try again.",
                reason="not-a-folder",
            )
    return path / Path(rel).name


def new_file_mode(d: Path) -> int:
    """New files are no wider than their folder's existing files (private when there are none)."""
    for probe in (SCOPE_FILE, INDEX_FILE, GLOBAL_FILE):
        mode = existing_mode(d / probe, default=-1)
        if mode >= 0:
            return mode & 0o666
    return PRIVATE_FILE_MODE


def new_dir_mode(root: Path) -> int:
    """New scope folders get the mode of ``workspaces/`` (private when there is none)."""
    try:
        st = os.lstat(root / WORKSPACES_DIR)
        if S_ISDIR(st.st_mode):
            return st.st_mode & 0o777
    except OSError:
        pass
    return PRIVATE_DIR_MODE
