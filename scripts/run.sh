#!/usr/bin/env bash
# Set up, then open DSH Memory Manager. With no memory root yet, the app offers a demo root.
# Extra arguments go to `dsh-memory` (e.g. `--root PATH`, or a CLI command such as `status`).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ -z "${QT_QPA_PLATFORM:-}" ]; then
  echo "run: no display found; starting with the offscreen platform (use the CLI: .venv/bin/dsh-memory --help)"
  export QT_QPA_PLATFORM=offscreen
fi
exec .venv/bin/dsh-memory "$@"
