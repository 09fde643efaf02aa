#!/usr/bin/env bash
# Set up, then run the whole test suite (unit, contract, crash, GUI offscreen, lint and type checks).
# Extra arguments go to pytest (e.g. `-k search`, `-m "not slow"`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export QT_QPA_PLATFORM=offscreen
exec .venv/bin/python -m pytest "$@"
