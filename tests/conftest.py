"""Suite-wide isolation: offscreen Qt, a throwaway HOME, no DSH or API-key variables from the host.

Set at import time, before any test module imports Qt or resolves a default path.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ["QT_QPA_PLATFORM"] = "offscreen"
_FAKE_HOME = tempfile.mkdtemp(prefix="dsh-test-home-")
os.environ["HOME"] = _FAKE_HOME
os.environ["XDG_CONFIG_HOME"] = os.path.join(_FAKE_HOME, ".config")
os.environ["XDG_DATA_HOME"] = os.path.join(_FAKE_HOME, ".local", "share")
os.environ["XDG_CACHE_HOME"] = os.path.join(_FAKE_HOME, ".cache")
for _var in list(os.environ):
    # DSH_REAL_FIXTURES is our own opt-in switch for the test that reads ../shared/fixtures.
    if (_var.startswith("DSH_") and _var != "DSH_REAL_FIXTURES") or _var.endswith("_API_KEY"):
        del os.environ[_var]
# No proxy may route a loopback test server elsewhere.
os.environ["NO_PROXY"] = os.environ["no_proxy"] = "127.0.0.1,localhost"


@pytest.fixture
def memory_root(tmp_path: Path) -> Iterator[Path]:
    """An empty memory root in a temp dir (not created on disk until the store writes)."""
    yield tmp_path / "memory"


@pytest.fixture
def dsh_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A throwaway ``$DSH_HOME`` for tests that resolve default paths."""
    home = tmp_path / "dsh-home"
    home.mkdir()
    monkeypatch.setenv("DSH_HOME", str(home))
    return home
