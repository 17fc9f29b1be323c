#!/usr/bin/env bash
# Whole-process throughput of `policy serve picoclaw`: N before_tool requests
# (exec commands, read_file paths, web_fetch URLs; benches/serve_bench.py
# makes the mix) from STREAMS concurrent sessions, piped into one server as
# fast as possible; wall time / N per run, median of RUNS runs, and the
# server's CPU per request. Against generated 100- and 10,000-rule policies
# and the shipped policies/ (the recommended packs).
#
#   bash benches/serve.sh              # N=20000 RUNS=5 STREAMS=8 by default
#   bash benches/serve.sh BINARY       # that binary instead of a release build
#   CALLGRIND=2000 bash benches/serve.sh BINARY
#                                      # instructions per request over 2,000
#                                      # requests (valgrind), not times
#
# Honours CARGO_TARGET_DIR. Needs python3 (and valgrind for CALLGRIND).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "needs python3"; exit 1; }

N=${N:-20000}
RUNS=${RUNS:-5}
STREAMS=${STREAMS:-8}
target=${CARGO_TARGET_DIR:-target}

if [ $# -ge 1 ]; then
  binary=$1
else
  cargo build --release --locked --quiet
  binary=$target/release/policy
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
rustc --edition 2021 -O examples/gen_policy.rs -o "$work/gen_policy" 2>/dev/null
for n in 100 10000; do
  "$work/gen_policy" "$n" > "$work/gen$n.yaml"
done

if [ -n "${CALLGRIND:-}" ]; then
  mode=(--callgrind "$CALLGRIND")
else
  mode=(--n "$N" --runs "$RUNS")
fi
echo "machine: $(nproc) cores; $(rustc --version); $binary"
for n in 100 10000; do
  python3 benches/serve_bench.py --binary "$binary" --policy "$work/gen$n.yaml" \
    --streams "$STREAMS" "${mode[@]}" --label "$n generated rules"
done
python3 benches/serve_bench.py --binary "$binary" --policy policies/ \
  --streams "$STREAMS" "${mode[@]}" --label "shipped policies/ (recommended packs)"
