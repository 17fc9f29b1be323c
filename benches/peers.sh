#!/usr/bin/env bash
# Whole-process time of one Claude Code PreToolUse hook call, ours beside the
# two guards people install: destructive_command_guard (`dcg`, crates.io) and
# cc-safety-net (npm). Each gets the same Claude Code events on stdin, a safe
# command and a dangerous one, as Claude Code runs a `type: command` hook: a
# fresh process per call. Calls alternate between the tools (one each per
# iteration), so a busy spell of the machine slows them alike; the median
# per tool and event is reported, beside the process floor (/bin/true).
#
#   bash benches/peers.sh
#   DCG=/path/to/dcg CCSN=/path/to/cc-safety-net RUNS=30 bash benches/peers.sh
#
# A peer that is not installed (not on PATH and not named by DCG/CCSN) is
# skipped. How each was installed for BENCHMARKS.md is written there. Ours:
# the plugin build (`cargo plugin-build`) when it exists, and the plain
# release build, each as `policy-hook` (what `policy install` installs) and
# `policy`; CARGO_TARGET_DIR picks the builds (a directory laid out like
# target/, e.g. links to a baseline's binaries). Needs jq and python3.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "needs python3"; exit 1; }
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)"; exit 1; }

RUNS=${RUNS:-30}
repo=$PWD
target=$(realpath -m "${CARGO_TARGET_DIR:-target}")
DCG=${DCG:-$(command -v dcg || true)}
CCSN=${CCSN:-$(command -v cc-safety-net || true)}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Peers keep settings, logs and caches under HOME: give them a scratch one,
# beside (not inside) the project the events come from, as in real use.
export HOME="$work/home"
mkdir -p "$HOME" "$work/project"

# The events, as Claude Code sends them (fields of a captured PreToolUse).
event() {
  jq -cn --arg c "$1" --arg cwd "$work/project" '{session_id: "bench",
    transcript_path: "/tmp/bench.jsonl", cwd: $cwd, permission_mode: "default", hook_event_name: "PreToolUse",
    tool_name: "Bash", tool_input: {command: $c, description: "run"},
    tool_use_id: "toolu_bench"}'
}
event 'git status' > "$work/safe.json"
event 'rm -rf ~' > "$work/dangerous.json"

declare -a names cmds
add() { names+=("$1"); cmds+=("$2"); }
# `policy install` installs policy-hook (the lean hook binary) where it
# sits beside policy; both are measured when present.
for build in "plugin build:x86_64-unknown-linux-gnu/release" "release build:release"; do
  label=${build%%:*} dir=$target/${build#*:}
  for bin in policy-hook policy; do
    if [ -x "$dir/$bin" ]; then
      add "$bin ($label)" "$dir/$bin hook claude-code --policy $repo/policies"
    fi
  done
done
if [ -n "$DCG" ] && [ -x "$DCG" ]; then
  add "dcg $("$DCG" --version 2>&1 | grep -o 'v[0-9][0-9.]*' | head -1)" "$DCG"
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
cd "$work/project"
echo "machine: $(nproc) cores; load: $(cut -d' ' -f1-3 /proc/loadavg)"
for i in "${!names[@]}"; do
  printf '%-36s git status: %-24s rm -rf ~: %s\n' "${names[$i]}" \
    "$(verdict "${cmds[$i]}" "$work/safe.json")" "$(verdict "${cmds[$i]}" "$work/dangerous.json")"
done
# Interleaved: each iteration runs every tool once in turn on one event, so
# a busy spell of the machine hits them alike; per-call medians.
python3 - "$work" "$RUNS" "${cmds[@]}" <<'PY'
import statistics, subprocess, sys, time
work, runs, cmds = sys.argv[1], int(sys.argv[2]), sys.argv[3:] + ["/bin/true"]
res = {}
for ev in ("safe", "dangerous"):
    data = open(f"{work}/{ev}.json", "rb").read()
    for i in range(runs + 2):
        for c in cmds:
            t = time.perf_counter()
            subprocess.run(c.split(), input=data, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            if i >= 2:  # two warm-up rounds
                res.setdefault((ev, c), []).append(time.perf_counter() - t)
with open(f"{work}/medians", "w") as f:
    for c in cmds:
        f.write(f"{statistics.median(res[('safe', c)]) * 1e3:.2f} {statistics.median(res[('dangerous', c)]) * 1e3:.2f}\n")
PY
echo
printf '%-36s %16s %16s\n' "per call (median of $RUNS)" "git status (ms)" "rm -rf ~ (ms)"
i=0
while read -r safe dangerous; do
  name=${names[$i]:-/bin/true (process floor)}
  printf '%-36s %16s %16s\n' "$name" "$safe" "$dangerous"
  i=$((i + 1))
done < "$work/medians"
