#!/usr/bin/env bash
# Whole-process timing of one chibi hook call, as chibi makes it: a fresh
# process, env vars, the payload on stdin. Compares the installed hook-policy
# plugin (shipped policies; generated 100- and 10,000-rule policies, with
# and without its cache) with the process floor (/bin/true) and with the
# same guard written as a bash+jq script and as a Python script; then times
# `policy check` on the generated policies.
#
#   bash benches/process.sh            # prints tables; JSON in target/bench-*.json
#
# Needs hyperfine and jq (Debian: apt-get install hyperfine jq, or
# cargo install hyperfine).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)"; exit 1; }

cargo build --release --locked --quiet
release=./target/release/policy
# The binary the README installs: `cargo plugin-build` (static, see
# .cargo/config.toml) where it exists, the plain release build elsewhere.
if [ "$(uname -sm)" = "Linux x86_64" ]; then
  cargo plugin-build --quiet
  build=./target/x86_64-unknown-linux-gnu/release/policy
else
  build=$release
fi
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

$build install chibi --home "$work/home" --policy policies/ >/dev/null
plugin="$work/home/plugins/hook-policy/hook-policy"
for n in 100 10000; do
  cargo run --release --quiet --example gen_policy -- "$n" > "$work/gen$n.yaml"
  $build install chibi --home "$work/home$n" --policy "$work/gen$n.yaml" >/dev/null
done
# The same 100 rules installed from a plain `cargo build --release`.
$release install chibi --home "$work/home100-release" --policy "$work/gen100.yaml" >/dev/null
# The plugin caches only files older than two seconds.
sleep 2.1

# The captured rm -rf payload, compact and without a trailing newline, as chibi sends it.
printf '%s' '{"command":"rm -rf /home/user/demo/victim && touch /home/user/demo/EXECUTED","tool_name":"shell_exec"}' > "$work/payload.json"

# The same guard, the way people write it today.
cat > "$work/bash-jq-hook" <<'HOOK'
#!/usr/bin/env bash
data=$(cat)
if [[ "$CHIBI_HOOK" == "pre_shell_exec" ]]; then
  command=$(printf '%s' "$data" | jq -r '.command // ""')
  if [[ "$command" == *"rm -rf"* ]]; then
    echo '{"denied": true, "reason": "recursive delete is not allowed"}'
    exit 0
  fi
fi
echo '{}'
HOOK
cat > "$work/python-hook" <<'HOOK'
#!/usr/bin/env python3
import json, os, sys
data = json.load(sys.stdin)
if os.environ.get("CHIBI_HOOK") == "pre_shell_exec" and "rm -rf" in data.get("command", ""):
    print(json.dumps({"denied": True, "reason": "recursive delete is not allowed"}))
else:
    print("{}")
HOOK
chmod +x "$work/bash-jq-hook" "$work/python-hook"

export CHIBI_HOOK=pre_shell_exec CHIBI_PROJECT_ROOT=/tmp
# Each candidate must really deny before it is timed.
for hook in "$plugin" "$work/bash-jq-hook" "$work/python-hook"; do
  "$hook" < "$work/payload.json" | grep -q '"denied"' || { echo "$hook did not deny"; exit 1; }
done

mkdir -p target
# Fill the caches before timing (one call each).
for p in "$plugin" "$work/home100/plugins/hook-policy/hook-policy" "$work/home10000/plugins/hook-policy/hook-policy" "$work/home100-release/plugins/hook-policy/hook-policy"; do
  "$p" < "$work/payload.json" > /dev/null
done
runs=${RUNS:-300}
hyperfine -N --warmup 20 --runs "$runs" --input "$work/payload.json" --export-json target/bench-process.json \
  -n 'floor: /bin/true' /bin/true \
  -n 'hook-policy, shipped policies (20 rules)' "$plugin" \
  -n 'hook-policy, 100 generated rules' "$work/home100/plugins/hook-policy/hook-policy" \
  -n 'hook-policy, 100 generated rules, plain release build' "$work/home100-release/plugins/hook-policy/hook-policy" \
  -n 'policy --version (plugin build)' "$build --version" \
  -n 'bash+jq hook' "$work/bash-jq-hook" \
  -n 'python hook' "$work/python-hook"
hyperfine -N --warmup 3 --runs "$((runs / 10))" --input "$work/payload.json" --export-json target/bench-process-10k.json \
  -n 'hook-policy, 10,000 generated rules' "$work/home10000/plugins/hook-policy/hook-policy"
# The same calls without the cache: the YAML is parsed every time.
HOOK_POLICY_CACHE=off hyperfine -N --warmup 5 --runs "$((runs / 3))" --input "$work/payload.json" --export-json target/bench-process-nocache.json \
  -n 'no cache: shipped policies' "$plugin" \
  -n 'no cache: 100 generated rules' "$work/home100/plugins/hook-policy/hook-policy" \
  -n 'no cache: 10,000 generated rules' "$work/home10000/plugins/hook-policy/hook-policy"
hyperfine -N --warmup 2 --runs 10 --export-json target/bench-check.json \
  -n 'policy check, 100 rules' "$release check $work/gen100.yaml" \
  -n 'policy check, 10,000 rules' "$release check $work/gen10000.yaml"

for f in target/bench-process.json target/bench-process-10k.json target/bench-process-nocache.json target/bench-check.json; do
  jq -r '.results[] | "\(.command)\tmedian \(.median * 1000 | . * 100 | round / 100) ms\tmean \(.mean * 1000 | . * 100 | round / 100) ms"' "$f"
done

if [ -x /usr/bin/time ]; then
  for p in "$plugin" "$work/home100/plugins/hook-policy/hook-policy" "$work/home10000/plugins/hook-policy/hook-policy"; do
    /usr/bin/time -f "peak RSS: %M KiB  ($p)" "$p" < "$work/payload.json" > /dev/null
  done
fi

# The floor ratio, measured in alternating rounds: the machine's process
# cost drifts by 10-20% over minutes, which a single long run per command
# would fold into the ratio.
rounds=${ROUNDS:-7}
ratios=()
for r in $(seq "$rounds"); do
  hyperfine -N --warmup 20 --runs 300 --input "$work/payload.json" --export-json "$work/round.json" \
    -n floor /bin/true -n plugin100 "$work/home100/plugins/hook-policy/hook-policy" \
    -n release100 "$work/home100-release/plugins/hook-policy/hook-policy" > /dev/null
  ratios+=("$(jq -r '[.results[] | .median] | "\(.[1] / .[0]) \(.[2] / .[0]) \(.[0] * 1000) \(.[1] * 1000)"' "$work/round.json")")
done
printf '%s\n' "${ratios[@]}" | awk '{ printf "round %d: floor %.3f ms, plugin (100 rules) %.3f ms: %.2fx; plain release build %.2fx\n", NR, $3, $4, $1, $2 }'
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
echo "median ratio to /bin/true over $rounds rounds: plugin build $(printf '%s\n' "${ratios[@]}" | cut -d' ' -f1 | median | cut -c1-4)x, plain release build $(printf '%s\n' "${ratios[@]}" | cut -d' ' -f2 | median | cut -c1-4)x"
