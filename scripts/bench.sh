#!/usr/bin/env bash
# Set up, then run every benchmark and print its figures (nothing here asserts; see README "Benchmarks").
# Usage: bash scripts/bench.sh [store|search|sessions|gui|secrets ...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
SETUP_BENCH=1 bash scripts/setup.sh  # also installs ripgrep, which the search benchmark compares against
export QT_QPA_PLATFORM=offscreen
which=("$@")
[ ${#which[@]} -eq 0 ] && which=(store search sessions gui secrets)
for name in "${which[@]}"; do
  case "$name" in
    secrets) script=benchmarks/bench_secrets.py ;;
    *) script="benchmarks/${name}_bench.py" ;;
  esac
  echo "=== $name ($script) ==="
  .venv/bin/python "$script"
done
