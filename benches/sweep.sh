#!/usr/bin/env bash
# Rule-count sweep of one chibi hook call as a whole process (issue 18):
# generated policies of 100, 300, 1,000, 3,000 and 10,000 rules (1/5 of them
# on `pre_shell_exec`), the captured `rm -rf` payload, and for each size
#   cold:  a call with the policy cache warm (the common case);
#   edit:  the first call after an edit (cache entry removed, files older
#          than two seconds, so the call parses the YAML and writes the entry);
# each as a loop of CALLS calls, against the same loop of /bin/true (the
# process floor), in alternating rounds so machine drift cancels out.
# The size `shipped` is the shipped `policies/` (the recommended packs),
# called with four payloads: a typical and a dangerous shell line,
# a file read and a tool call.
# With BASE=path/to/other/policy the same is timed for that binary too
# (a build of main, to compare against).
#
#   bash benches/sweep.sh [POLICY_BINARY]     # default: `cargo plugin-build`
#   BASE=/tmp/main-policy CALLS=200 ROUNDS=5 bash benches/sweep.sh
#   SIZES="shipped 10000" MODES=cold ROUNDS=10 bash benches/sweep.sh
#
# Prints per-call medians in ms and the ratios. Needs only bash and coreutils.
# `SETUP_ONLY=1` installs and prints the loop commands, for another timer.
# `CALLGRIND=1` prints instead the instructions of one cold call of each
# case (valgrind): stable where wall times are not. valgrind 3.19 cannot
# run the `cargo plugin-build` binary (`target-cpu=native` emits AVX-512):
# give it one built without that flag.
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
modes=${MODES:-"cold edit"}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"

rustc --edition 2021 -O examples/gen_policy.rs -o "$work/gen_policy" 2>/dev/null
printf '%s' '{"command":"rm -rf /home/user/demo/victim && touch /home/user/demo/EXECUTED","tool_name":"shell_exec"}' > "$work/payload.json"
printf '%s' '{"command":"cargo test --all 2>&1 | tail -20","tool_name":"shell_exec"}' > "$work/shell-typical.json"
printf '%s' '{"command":"sudo rm -rf /","tool_name":"shell_exec"}' > "$work/shell-dangerous.json"
printf '%s' '{"path":"/tmp/README.md","tool_name":"file_read"}' > "$work/file-read.json"
printf '%s' '{"arguments":{"command":"cargo test --all 2>&1 | tail -20"},"tool_name":"shell_exec"}' > "$work/tool.json"
export CHIBI_PROJECT_ROOT=/tmp

# The cases of a size: name:hook:payload.
cases() {
  if [ "$1" = shipped ]; then
    echo "shell-typical:pre_shell_exec:shell-typical shell-dangerous:pre_shell_exec:shell-dangerous file-read:pre_file_read:file-read tool:pre_tool:tool"
  else
    echo "rm-rf:pre_shell_exec:payload"
  fi
}

binaries=("new:$build")
[ -n "${BASE:-}" ] && binaries+=("base:$BASE")
for n in $sizes; do
  if [ "$n" = shipped ]; then
    policy=policies/
    touch -d '1 minute ago' policies/*.yaml
  else
    "$work/gen_policy" "$n" > "$work/gen$n.yaml"
    touch -d '1 minute ago' "$work/gen$n.yaml"
    policy=$work/gen$n.yaml
  fi
  for b in "${binaries[@]}"; do
    rm -rf "$work/${b%%:*}$n"
    "${b#*:}" install chibi --home "$work/${b%%:*}$n" --policy "$policy" > /dev/null
  done
done
# The plugin caches only files older than two seconds.
sleep 2.1

# One loop script per case: `loop PLUGIN cold|edit HOOK PAYLOAD` runs CALLS calls.
cat > "$work/loop" <<LOOP
#!/bin/sh
i=0
export CHIBI_HOOK=\$3
while [ \$i -lt $calls ]; do
  [ "\$2" = edit ] && rm -rf "\$(dirname "\$1")/cache"
  "\$1" < "$work/\$4.json" > /dev/null 2>&1
  i=\$((i + 1))
done
LOOP
chmod +x "$work/loop"
plugin() { echo "$work/$1$2/plugins/hook-policy/hook-policy"; }
for b in "${binaries[@]}"; do
  for n in $sizes; do
    p=$(plugin "${b%%:*}" "$n")
    for c in $(cases "$n"); do
      IFS=: read -r _ hook payload <<< "$c"
      CHIBI_HOOK=$hook "$p" < "$work/$payload.json" 2>/dev/null | grep -q '^{' || { echo "$p gave no reply"; exit 1; }
    done
  done
done
if [ -n "${SETUP_ONLY:-}" ]; then
  echo "floor: $work/loop /bin/true cold pre_shell_exec payload"
  for b in "${binaries[@]}"; do for n in $sizes; do for c in $(cases "$n"); do
    IFS=: read -r name hook payload <<< "$c"
    echo "${b%%:*} $n $name: $work/loop $(plugin "${b%%:*}" "$n") cold|edit $hook $payload"
  done; done; done
  exit 0
fi
if [ -n "${CALLGRIND:-}" ]; then
  printf 'size\tcase\tbinary\tinstructions\n'
  for n in $sizes; do for c in $(cases "$n"); do
    IFS=: read -r name hook payload <<< "$c"
    for b in "${binaries[@]}"; do
      ir=$(CHIBI_HOOK=$hook valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$(plugin "${b%%:*}" "$n")" < "$work/$payload.json" 2>&1 >/dev/null |
        sed -n 's/.*Collected : //p')
      printf '%s\t%s\t%s\t%s\n' "$n" "$name" "${b%%:*}" "$ir"
    done
  done; done
  exit 0
fi

ms() { # wall ms per call of: loop ARGS
  local t0 t1
  t0=$(date +%s%N); "$work/loop" "$@"; t1=$(date +%s%N)
  echo "scale=3; ($t1 - $t0) / 1000000 / $calls" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
printf 'size\tcase\tmode\tbinary\tms/call\tx floor (median of paired rounds)\n'
for n in $sizes; do
  for c in $(cases "$n"); do
    IFS=: read -r name hook payload <<< "$c"
    for mode in $modes; do
      declare -A got=() ratio=()
      for r in $(seq "$rounds"); do
        f=$(ms /bin/true cold "$hook" "$payload")
        got[floor]+="$f "
        for b in "${binaries[@]}"; do
          t=$(ms "$(plugin "${b%%:*}" "$n")" "$mode" "$hook" "$payload")
          got[${b%%:*}]+="$t "
          ratio[${b%%:*}]+="$(echo "scale=4; $t / $f" | bc) "
        done
      done
      # The ratio is the median of each round's ratio (paired runs).
      for b in "${binaries[@]}"; do
        m=$(tr ' ' '\n' <<< "${got[${b%%:*}]}" | grep . | median)
        x=$(tr ' ' '\n' <<< "${ratio[${b%%:*}]}" | grep . | median)
        printf '%s\t%s\t%s\t%s\t%.3f\t%.2f\n' "$n" "$name" "$mode" "${b%%:*}" "$m" "$x"
      done
      printf '%s\t%s\t%s\tfloor\t%.3f\n' "$n" "$name" "$mode" "$(tr ' ' '\n' <<< "${got[floor]}" | grep . | median)"
      unset got ratio
    done
  done
done
