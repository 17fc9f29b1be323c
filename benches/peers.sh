#!/usr/bin/env bash
# Whole-process time of one Claude Code PreToolUse hook call, ours beside the
# two guards people install: destructive_command_guard (`dcg`, crates.io) and
# cc-safety-net (npm). Each gets the same Claude Code events on stdin, a safe
# command and a dangerous one, as Claude Code runs a `type: command` hook: a
# fresh process per call. Rounds alternate the tools, so a busy machine slows
# them alike; the median of the rounds' medians is reported.
#
#   bash benches/peers.sh
#   DCG=/path/to/dcg CCSN=/path/to/cc-safety-net ROUNDS=3 RUNS=30 bash benches/peers.sh
#
# A peer that is not installed (not on PATH and not named by DCG/CCSN) is
# skipped. How each was installed for BENCHMARKS.md is written there. Ours:
# the plugin build (`cargo plugin-build`) when it exists, and the plain
# release build. Needs hyperfine and jq.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)"; exit 1; }

ROUNDS=${ROUNDS:-3}
RUNS=${RUNS:-30}
target=${CARGO_TARGET_DIR:-target}
DCG=${DCG:-$(command -v dcg || true)}
CCSN=${CCSN:-$(command -v cc-safety-net || true)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Peers keep settings, logs and caches under HOME: give them a scratch one.
export HOME="$work/home"
mkdir -p "$HOME"

# The events, as Claude Code sends them (fields of a captured PreToolUse).
event() {
  jq -cn --arg c "$1" '{session_id: "bench", transcript_path: "/tmp/bench.jsonl",
    cwd: "/tmp", permission_mode: "default", hook_event_name: "PreToolUse",
    tool_name: "Bash", tool_input: {command: $c, description: "run"},
    tool_use_id: "toolu_bench"}'
}
event 'git status' > "$work/safe.json"
event 'rm -rf ~' > "$work/dangerous.json"

declare -a names cmds
add() { names+=("$1"); cmds+=("$2"); }
if [ -x "$target/x86_64-unknown-linux-gnu/release/policy" ]; then
  add "hook-policy (plugin build)" \
    "$target/x86_64-unknown-linux-gnu/release/policy hook claude-code --policy $PWD/policies"
fi
if [ -x "$target/release/policy" ]; then
  add "hook-policy (release build)" "$target/release/policy hook claude-code --policy $PWD/policies"
fi
if [ -n "$DCG" ] && [ -x "$DCG" ]; then
  add "dcg $("$DCG" --version 2>/dev/null | head -1 | grep -o '[0-9][0-9.]*' | head -1)" "$DCG"
else
  echo "dcg: not installed (set DCG=PATH), skipped"
fi
if [ -n "$CCSN" ] && [ -x "$CCSN" ]; then
  add "cc-safety-net $("$CCSN" --version 2>/dev/null | grep -o '[0-9][0-9.]*' | head -1)" "$CCSN hook --claude-code"
else
  echo "cc-safety-net: not installed (set CCSN=PATH), skipped"
fi
[ ${#names[@]} -gt 0 ] || { echo "nothing to measure"; exit 1; }

# What each answers: the dangerous event must be refused (a deny decision
# on stdout, or exit status 2), the safe one not. Also warms caches.
verdict() {
  local out status
  out=$($1 < "$2" 2>/dev/null) && status=0 || status=$?
  if [ "$status" = 2 ] || printf '%s' "$out" | grep -q '"permissionDecision" *: *"deny"\|"decision" *: *"block"'; then
    echo deny
  else
    echo "no objection (exit $status)"
  fi
}
echo "machine: $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!names[@]}"; do
  printf '%-32s git status: %-24s rm -rf ~: %s\n' "${names[$i]}" \
    "$(verdict "${cmds[$i]}" "$work/safe.json")" "$(verdict "${cmds[$i]}" "$work/dangerous.json")"
done
/bin/true
for ev in safe dangerous; do
  for r in $(seq "$ROUNDS"); do
    for i in "${!names[@]}"; do
      hyperfine -N --warmup 3 --runs "$RUNS" --input "$work/$ev.json" \
        --export-json "$work/$ev-$r-$i.json" "${cmds[$i]}" >/dev/null 2>&1 || true
    done
    hyperfine -N --warmup 3 --runs "$RUNS" --export-json "$work/$ev-$r-floor.json" /bin/true >/dev/null 2>&1
  done
done
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2 ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2)}'; }
ms() { for r in $(seq "$ROUNDS"); do jq '.results[0].median * 1000' "$work/$1-$r-$2.json"; done | median; }
echo
printf '%-32s %16s %16s\n' "per call, median of $ROUNDS rounds" "git status (ms)" "rm -rf ~ (ms)"
for i in "${!names[@]}"; do
  printf '%-32s %16.2f %16.2f\n' "${names[$i]}" "$(ms safe "$i")" "$(ms dangerous "$i")"
done
printf '%-32s %16.2f %16.2f\n' "/bin/true (process floor)" "$(ms safe floor)" "$(ms dangerous floor)"
