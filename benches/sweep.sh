#!/usr/bin/env bash
# Rule-count sweep of one chibi hook call as a whole process (issue 18):
# generated policies of 100, 300, 1,000, 3,000 and 10,000 rules (1/5 of them
# on `pre_shell_exec`), the captured `rm -rf` payload, and for each size
#   cold:  a call with the policy cache warm (the common case);
#   edit:  the first call after an edit (cache entry removed, files older
#          than two seconds, so the call parses the YAML, checks and
#          compiles the hook's rules, writes the entry, and decides);
# for each build a user may run:
#   plugin: `cargo plugin-build` (static-pie, no reference CEL parser,
#           native CPU; x86-64 Linux only, see .cargo/config.toml);
#   plain:  `cargo build --release`, what a plain `cargo install` builds.
# Each case is a loop of CALLS calls, timed against the same loop of
# /bin/true (the process floor), in alternating rounds so machine drift
# cancels out. Per call it prints the median wall time, the median CPU time
# (user + system of the loop and its children, which other load inflates
# much less than wall time), both as ratios to the floor's, and the peak
# resident memory of one call.
#
#   bash benches/sweep.sh                          # builds both, 5 rounds
#   PLUGIN=path PLAIN=path bash benches/sweep.sh   # time given binaries
#   BASE=/tmp/main-policy bash benches/sweep.sh    # and one more (e.g. main)
#   BASE="main-plugin:/tmp/a main-plain:/tmp/b" bash benches/sweep.sh
#   CALLS=50 ROUNDS=7 SIZES="100 10000" MODES=edit bash benches/sweep.sh
#
# `SETUP_ONLY=1` installs and prints the loop commands, for another timer.
# Needs bash, coreutils, bc and GNU time (/usr/bin/time, for peak memory).
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)"; exit 1; }
if [ -z "${PLUGIN:-}" ] && [ "$(uname -sm)" = "Linux x86_64" ]; then
  cargo plugin-build --quiet
  PLUGIN=./target/x86_64-unknown-linux-gnu/release/policy
fi
if [ -z "${PLAIN:-}" ]; then
  cargo build --release --locked --quiet
  PLAIN=./target/release/policy
fi
calls=${CALLS:-100}
rounds=${ROUNDS:-5}
sizes=${SIZES:-"100 300 1000 3000 10000"}
modes=${MODES:-"cold edit"}
work=${WORK:-$(mktemp -d)}
mkdir -p "$work"

binaries=()
[ -n "${PLUGIN:-}" ] && binaries+=("plugin:$PLUGIN")
binaries+=("plain:$PLAIN")
# BASE: one more binary (named "base"), or several as "NAME:PATH NAME:PATH".
for b in ${BASE:-}; do
  case $b in *:*) binaries+=("$b") ;; *) binaries+=("base:$b") ;; esac
done

rustc --edition 2021 -O examples/gen_policy.rs -o "$work/gen_policy" 2>/dev/null
printf '%s' '{"command":"rm -rf /home/user/demo/victim && touch /home/user/demo/EXECUTED","tool_name":"shell_exec"}' > "$work/payload.json"
export CHIBI_HOOK=pre_shell_exec CHIBI_PROJECT_ROOT=/tmp

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

# "wall cpu" in ms per call of: loop ARGS (CPU from bash's `times`: the
# user and system time of the loop and the processes it waited for).
timed() {
  local t0 t1 cpu
  t0=$(date +%s%N)
  cpu=$( ("$work/loop" "$@"; times) | tail -1 | sed 's/[ms]/ /g' | awk '{ print ($1 * 60 + $2 + $3 * 60 + $4) * 1000 }')
  t1=$(date +%s%N)
  echo "$(echo "scale=4; ($t1 - $t0) / 1000000 / $calls" | bc) $(echo "scale=4; $cpu / $calls" | bc)"
}
# Peak RSS in MiB of one call of PLUGIN in MODE.
peak() {
  [ "$2" = edit ] && rm -rf "$(dirname "$1")/cache"
  /usr/bin/time -f '%M' -o "$work/m" "$1" < "$work/payload.json" > /dev/null
  echo "scale=1; $(cat "$work/m") / 1024" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { tr ' ' '\n' <<< "$1" | grep . | median; }
printf 'rules\tcall\tbuild\twall ms\tx floor\tCPU ms\tx floor\tpeak MiB\n'
for n in $sizes; do
  for mode in $modes; do
    declare -A wall=() cpu=()
    for r in $(seq "$rounds"); do
      read -r w c <<< "$(timed /bin/true cold)"
      wall[floor]+="$w "; cpu[floor]+="$c "
      for b in "${binaries[@]}"; do
        read -r w c <<< "$(timed "$(plugin "${b%%:*}" "$n")" "$mode")"
        wall[${b%%:*}]+="$w "; cpu[${b%%:*}]+="$c "
      done
    done
    fw=$(col "${wall[floor]}"); fc=$(col "${cpu[floor]}")
    for b in "${binaries[@]}"; do
      w=$(col "${wall[${b%%:*}]}"); c=$(col "${cpu[${b%%:*}]}")
      m=$(peak "$(plugin "${b%%:*}" "$n")" "$mode")
      printf '%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%s\n' "$n" "$mode" "${b%%:*}" \
        "$w" "$(echo "scale=4; $w / $fw" | bc)" "$c" "$(echo "scale=4; $c / $fc" | bc)" "$m"
    done
    unset wall cpu
  done
done
printf 'floor (/bin/true through the loop), last case: %.2f ms wall, %.2f ms CPU per call\n' "$fw" "$fc"
[ -z "${WORK:-}" ] && rm -rf "$work"
exit 0
