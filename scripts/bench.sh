#!/usr/bin/env bash
# Set up, then run every benchmark and print its figures (nothing here asserts; see README "Benchmarks").
# Usage: bash scripts/bench.sh [store|search|sessions|gui|secrets ...]   (default: all)
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
# The search benchmark compares against ripgrep over the same files.
if ! command -v rg >/dev/null 2>&1 && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq ripgrep >/dev/null
fi
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
