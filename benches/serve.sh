#!/usr/bin/env bash
# Whole-process throughput of `policy serve picoclaw`: N before_tool requests
# (exec commands, read_file paths, web_fetch URLs; benches/serve_bench.py
# makes the mix) from STREAMS concurrent sessions, piped into one server as
# fast as possible; wall time / N per run, median of RUNS runs. Against
# generated 100- and 10,000-rule policies and the shipped policies/ (the
# recommended packs).
#
#   bash benches/serve.sh              # N=20000 RUNS=5 STREAMS=8 by default
#
# Honours CARGO_TARGET_DIR. Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "needs python3"; exit 1; }

N=${N:-20000}
RUNS=${RUNS:-5}
STREAMS=${STREAMS:-8}
target=${CARGO_TARGET_DIR:-target}

cargo build --release --locked --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for n in 100 10000; do
  cargo run --release --locked --quiet --example gen_policy -- "$n" > "$work/gen$n.yaml"
done

echo "machine: $(nproc) cores; $(rustc --version)"
for n in 100 10000; do
  python3 benches/serve_bench.py --binary "$target/release/policy" --policy "$work/gen$n.yaml" \
    --n "$N" --runs "$RUNS" --streams "$STREAMS" --label "$n generated rules"
done
python3 benches/serve_bench.py --binary "$target/release/policy" --policy policies/ \
  --n "$N" --runs "$RUNS" --streams "$STREAMS" --label "shipped policies/ (recommended packs)"
