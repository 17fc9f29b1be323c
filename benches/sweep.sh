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
# cancels out. Per call it prints the median wall time and its ratio to the
# floor (the median of each round's ratio: paired runs), the median CPU
# time (user + system of the loop and its children, which other load
# inflates much less than wall time) and its ratio, and the peak resident
# memory of one call.
# The size `shipped` is the shipped `policies/` (the recommended packs),
# called with four payloads: a typical and a dangerous shell line,
# a file read and a tool call.
#
#   bash benches/sweep.sh                          # builds both, 5 rounds
#   bash benches/sweep.sh POLICY_BINARY            # that binary only
#   PLUGIN=path PLAIN=path bash benches/sweep.sh   # time given binaries
#   BASE=/tmp/main-policy bash benches/sweep.sh    # and one more (e.g. main)
#   BASE="main-plugin:/tmp/a main-plain:/tmp/b" bash benches/sweep.sh
#   CALLS=50 ROUNDS=7 SIZES="shipped 10000" MODES=cold bash benches/sweep.sh
#
# Needs bash, coreutils, bc and GNU time (/usr/bin/time, for peak memory).
# `SETUP_ONLY=1` installs and prints the loop commands, for another timer.
# `CALLGRIND=1` prints instead the instructions of one call of each case
# and mode (valgrind): stable where wall times are not. valgrind 3.19
# cannot run the `cargo plugin-build` binary (`target-cpu=native` emits
# AVX-512): give it one built without that flag.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x /usr/bin/time ] || { echo "needs GNU time (apt-get install time)"; exit 1; }
binaries=()
if [ $# -ge 1 ]; then
  binaries+=("new:$1")
else
  if [ -z "${PLUGIN:-}" ] && [ "$(uname -sm)" = "Linux x86_64" ]; then
    cargo plugin-build --quiet
    PLUGIN=./target/x86_64-unknown-linux-gnu/release/policy
  fi
  if [ -z "${PLAIN:-}" ]; then
    cargo build --release --locked --quiet
    PLAIN=./target/release/policy
  fi
  [ -n "${PLUGIN:-}" ] && binaries+=("plugin:$PLUGIN")
  binaries+=("plain:$PLAIN")
fi
# BASE: one more binary (named "base"), or several as "NAME:PATH NAME:PATH".
for b in ${BASE:-}; do
  case $b in *:*) binaries+=("$b") ;; *) binaries+=("base:$b") ;; esac
done
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
# One untimed call, so that a cold case finds the hook's cache entry (the
# edit cases remove the whole cache directory of their install).
warm() { CHIBI_HOOK=$2 "$1" < "$work/$3.json" > /dev/null 2>&1 || true; }
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
  printf 'size\tcase\tmode\tbinary\tinstructions\n'
  for n in $sizes; do for c in $(cases "$n"); do
    IFS=: read -r name hook payload <<< "$c"
    for mode in $modes; do for b in "${binaries[@]}"; do
      p=$(plugin "${b%%:*}" "$n")
      [ "$mode" = edit ] && rm -rf "$(dirname "$p")/cache"
      # An edit case of another hook removed this hook's entry: write it first.
      [ "$mode" = cold ] && warm "$p" "$hook" "$payload"
      ir=$(CHIBI_HOOK=$hook valgrind --tool=callgrind --callgrind-out-file=/dev/null \
        "$p" < "$work/$payload.json" 2>&1 >/dev/null |
        sed -n 's/.*Collected : //p')
      printf '%s\t%s\t%s\t%s\t%s\n' "$n" "$name" "$mode" "${b%%:*}" "$ir"
    done; done
  done; done
  [ -z "${WORK:-}" ] && rm -rf "$work"
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
# Peak RSS in MiB of one call: peak PLUGIN MODE HOOK PAYLOAD.
peak() {
  [ "$2" = edit ] && rm -rf "$(dirname "$1")/cache"
  CHIBI_HOOK=$3 /usr/bin/time -f '%M' -o "$work/m" "$1" < "$work/$4.json" > /dev/null 2>&1
  echo "scale=1; $(tail -1 "$work/m") / 1024" | bc
}
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }
col() { tr ' ' '\n' <<< "$1" | grep . | median; }
printf 'size\tcase\tmode\tbuild\twall ms\tx floor\tCPU ms\tx floor\tpeak MiB\n'
for n in $sizes; do
  for c in $(cases "$n"); do
    IFS=: read -r name hook payload <<< "$c"
    for mode in $modes; do
      declare -A wall=() cpu=() wratio=() cratio=()
      if [ "$mode" = cold ]; then
        for b in "${binaries[@]}"; do warm "$(plugin "${b%%:*}" "$n")" "$hook" "$payload"; done
      fi
      for r in $(seq "$rounds"); do
        read -r fw fc <<< "$(timed /bin/true cold "$hook" "$payload")"
        wall[floor]+="$fw "; cpu[floor]+="$fc "
        for b in "${binaries[@]}"; do
          read -r w c <<< "$(timed "$(plugin "${b%%:*}" "$n")" "$mode" "$hook" "$payload")"
          k=${b%%:*}
          wall[$k]+="$w "; cpu[$k]+="$c "
          wratio[$k]+="$(echo "scale=4; $w / $fw" | bc) "
          # CPU times are whole milliseconds per loop: a zero floor has no ratio.
          [ "$(echo "$fc > 0" | bc)" = 1 ] && cratio[$k]+="$(echo "scale=4; $c / $fc" | bc) "
        done
      done
      for b in "${binaries[@]}"; do
        k=${b%%:*}
        m=$(peak "$(plugin "$k" "$n")" "$mode" "$hook" "$payload")
        printf '%s\t%s\t%s\t%s\t%.2f\t%.2f\t%.2f\t%.2f\t%s\n' "$n" "$name" "$mode" "$k" \
          "$(col "${wall[$k]}")" "$(col "${wratio[$k]}")" "$(col "${cpu[$k]}")" "$(col "${cratio[$k]:-0}")" "$m"
      done
      printf '%s\t%s\t%s\tfloor\t%.2f\t\t%.2f\n' "$n" "$name" "$mode" "$(col "${wall[floor]}")" "$(col "${cpu[floor]}")"
      unset wall cpu wratio cratio
    done
  done
done
[ -z "${WORK:-}" ] && rm -rf "$work"
exit 0
