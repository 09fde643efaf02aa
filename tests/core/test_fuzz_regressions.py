"""Replays every input under ``tests/data/fuzz/<target>/`` through its ``benchmarks/fuzz.py`` harness.

A fuzzer crash (an exception a reader let escape) is saved there by ``benchmarks/fuzz.py``; once
fixed it stays as a regression input. The ``issue25-*`` inputs are the shapes of issue 25's findings
(deep JSON in a session line, a memory.json, the workspace registry and a zip manifest, a zstd bomb,
an empty zip member name, a bad CRC); each raised out of its reader before issue 25.
"""

from __future__ import annotations

import importlib.util
import warnings
from pathlib import Path
from types import ModuleType

import pytest

REPO = Path(__file__).resolve().parents[2]
DATA = REPO / "tests" / "data" / "fuzz"


def _harness() -> ModuleType:
    spec = importlib.util.spec_from_file_location("dsh_fuzz_harness", REPO / "benchmarks" / "fuzz.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


INPUTS = sorted(p for p in DATA.glob("*/*") if p.is_file() and not p.name.startswith("."))


def test_there_are_regression_inputs_for_every_target() -> None:
    assert {p.parent.name for p in INPUTS} == set(_harness().TARGETS)


@pytest.mark.parametrize("path", INPUTS, ids=[f"{p.parent.name}/{p.name}" for p in INPUTS])
def test_a_saved_input_no_longer_escapes_its_reader(path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from core import foreign

    harness = _harness()
    monkeypatch.setattr(foreign, "MAX_INFLATED_BYTES", 4 << 20)  # what the fuzzer runs with
    monkeypatch.setattr(foreign, "MAX_LOG_BYTES", 4 << 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        harness.TARGETS[path.parent.name](path.read_bytes())


@pytest.mark.parametrize("target", ["record", "session", "foreign", "query", "zip", "journal"])
def test_every_seed_runs_clean(target: str) -> None:
    harness = _harness()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for seed in harness.seeds(target):
            harness.TARGETS[target](seed)
