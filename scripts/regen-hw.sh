#!/usr/bin/env bash
# Regenerate the committed RTL under hw/ for every built-in preset.
# `cargo test` fails (tests/hw_current.rs) when hw/ is stale and names this script.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --quiet --release
for preset in $(./target/release/warpsmith presets | awk '{print $1}'); do
  rm -rf "hw/$preset"
  ./target/release/warpsmith generate --block all --preset "$preset" --out "hw/$preset" >/dev/null
  echo "hw/$preset"
done
