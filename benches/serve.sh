#!/usr/bin/env bash
# Whole-process throughput of `policy serve picoclaw`: N before_tool requests
# (exec commands, read_file paths, web_fetch URLs; benches/serve_bench.py
# makes the mix) piped into one server as fast as possible; wall time / N per
# run, median of RUNS runs. Against a generated 100-rule policy and the
# shipped policies/.
#
#   bash benches/serve.sh              # N=20000 RUNS=5 by default
#
# Honours CARGO_TARGET_DIR. Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "needs python3"; exit 1; }

N=${N:-20000}
RUNS=${RUNS:-5}
target=${CARGO_TARGET_DIR:-target}

cargo build --release --locked --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cargo run --release --locked --quiet --example gen_policy -- 100 > "$work/gen100.yaml"

echo "machine: $(nproc) cores; $(rustc --version)"
python3 benches/serve_bench.py --binary "$target/release/policy" --policy "$work/gen100.yaml" \
  --n "$N" --runs "$RUNS" --label "100 generated rules"
python3 benches/serve_bench.py --binary "$target/release/policy" --policy policies/ \
  --n "$N" --runs "$RUNS" --label "shipped policies/"
