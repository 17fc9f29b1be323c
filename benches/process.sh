#!/usr/bin/env bash
# Whole-process timing of one chibi hook call, as chibi makes it: a fresh
# process, env vars, the payload on stdin. Compares the installed hook-policy
# plugin with the process floor (/bin/true) and with the same guard written
# as a bash+jq script and as a Python script.
#
#   bash benches/process.sh            # prints a table; JSON in target/bench-process.json
#
# Needs hyperfine and jq (Debian: apt-get install hyperfine jq).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v hyperfine >/dev/null || { echo "needs hyperfine (apt-get install hyperfine)"; exit 1; }
command -v jq >/dev/null || { echo "needs jq (apt-get install jq)"; exit 1; }

cargo build --release --locked --quiet
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

./target/release/policy install chibi --home "$work/home" --policy policies/ >/dev/null
plugin="$work/home/plugins/hook-policy/hook-policy"

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
hyperfine --warmup 20 --runs "${RUNS:-300}" --export-json target/bench-process.json \
  -n 'floor: /bin/true' "/bin/true < $work/payload.json" \
  -n 'hook-policy plugin (shipped policies)' "$plugin < $work/payload.json" \
  -n 'bash+jq hook' "$work/bash-jq-hook < $work/payload.json" \
  -n 'python hook' "$work/python-hook < $work/payload.json"

jq -r '.results[] | "\(.command)\tmedian \(.median * 1000 | . * 100 | round / 100) ms\tmean \(.mean * 1000 | . * 100 | round / 100) ms"' target/bench-process.json

if [ -x /usr/bin/time ]; then
  /usr/bin/time -f 'hook-policy plugin peak RSS: %M KiB' "$plugin" < "$work/payload.json" > /dev/null
fi
