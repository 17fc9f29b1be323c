#!/usr/bin/env bash
# Rule-count sweep of one chibi hook call as a whole process (issue 18):
# generated policies of 100, 300, 1,000, 3,000 and 10,000 rules (1/5 of them
# on `pre_shell_exec`), the captured `rm -rf` payload, and for each size
#   cold:  a call with the policy cache warm (the common case);
#   edit:  the first call after an edit (cache entry removed, files older
#          than two seconds, so the call parses the YAML and writes the entry);
# each as a loop of CALLS calls, against the same loop of /bin/true (the
# process floor), in alternating rounds so machine drift cancels out.
# With BASE=path/to/other/policy the same is timed for that binary too
# (a build of main, to compare against).
#
#   bash benches/sweep.sh [POLICY_BINARY]     # default: `cargo plugin-build`
#   BASE=/tmp/main-policy CALLS=200 ROUNDS=5 bash benches/sweep.sh
#
# Prints per-call medians in ms and the ratios. Needs only bash and coreutils.
# `SETUP_ONLY=1` installs and prints the loop commands, for another timer.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
  build=$1
else
  cargo plugin-build --quiet
  build=./target/x86_64-unknown-linux-gnu/release/policy
fi
calls=${CALLS:-100}
rounds=${ROUNDS:-5}
sizes=${SIZES:-"100 300 1000 3000 10000"}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"

rustc --edition 2021 -O examples/gen_policy.rs -o "$work/gen_policy" 2>/dev/null
printf '%s' '{"command":"rm -rf /home/user/demo/victim && touch /home/user/demo/EXECUTED","tool_name":"shell_exec"}' > "$work/payload.json"
export CHIBI_HOOK=pre_shell_exec CHIBI_PROJECT_ROOT=/tmp

binaries=("new:$build")
[ -n "${BASE:-}" ] && binaries+=("base:$BASE")
for n in $sizes; do
  "$work/gen_policy" "$n" > "$work/gen$n.yaml"
  for b in "${binaries[@]}"; do
    rm -rf "$work/${b%%:*}$n"
    "${b#*:}" install chibi --home "$work/${b%%:*}$n" --policy "$work/gen$n.yaml" > /dev/null
  done
done
# The plugin caches only files older than two seconds.
touch -d '1 minute ago' "$work"/gen*.yaml
sleep 2.1

# One loop script per case: `loop PLUGIN MODE` runs CALLS calls.
cat > "$work/loop" <<LOOP
#!/bin/sh
# usage: loop PLUGIN cold|edit
i=0
while [ \$i -lt $calls ]; do
  [ "\$2" = edit ] && rm -rf "\$(dirname "\$1")/cache"
  "\$1" < "$work/payload.json" > /dev/null
  i=\$((i + 1))
done
LOOP
chmod +x "$work/loop"
plugin() { echo "$work/$1$2/plugins/hook-policy/hook-policy"; }
for b in "${binaries[@]}"; do
  for n in $sizes; do
    p=$(plugin "${b%%:*}" "$n")
    "$p" < "$work/payload.json" | grep -q '^{' || { echo "$p gave no reply"; exit 1; }
  done
done
if [ -n "${SETUP_ONLY:-}" ]; then
  echo "floor: $work/loop /bin/true cold"
  for b in "${binaries[@]}"; do for n in $sizes; do
    echo "${b%%:*} $n: $work/loop $(plugin "${b%%:*}" "$n") cold|edit"
  done; done
  exit 0
fi

ms() { # wall ms per call of: loop ARGS
  local t0 t1
  t0=$(date +%s%N); "$work/loop" "$@"; t1=$(date +%s%N)
  echo "scale=3; ($t1 - $t0) / 1000000 / $calls" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'size\tmode\tbinary\tms/call\tx floor\n'
for n in $sizes; do
  for mode in cold edit; do
    declare -A got=()
    for r in $(seq "$rounds"); do
      got[floor]+="$(ms /bin/true cold) "
      for b in "${binaries[@]}"; do
        got[${b%%:*}]+="$(ms "$(plugin "${b%%:*}" "$n")" "$mode") "
      done
    done
    floor=$(tr ' ' '\n' <<< "${got[floor]}" | grep . | median)
    for b in "${binaries[@]}"; do
      m=$(tr ' ' '\n' <<< "${got[${b%%:*}]}" | grep . | median)
      printf '%s\t%s\t%s\t%.3f\t%.2f\n' "$n" "$mode" "${b%%:*}" "$m" "$(echo "scale=4; $m / $floor" | bc)"
    done
    unset got
  done
done
