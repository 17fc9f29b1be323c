#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ with seeds from the repository: the shipped
# policies, chibi's captured payloads, and the labelled shell, URL and path
# corpora. Run from anywhere; needs jq for the payloads.
set -euo pipefail
cd "$(dirname "$0")"
repo=..
mkdir -p corpus/policy_load corpus/decide_payload corpus/shell_analyze corpus/url_path

cp "$repo"/policies/*.yaml "$repo"/packs/*.yaml corpus/policy_load/

fixtures="$repo/../shared/fixtures/chibi"
if [ -d "$fixtures" ] && command -v jq >/dev/null; then
  for f in "$fixtures"/*.json; do
    jq -c .payload "$f" > "corpus/decide_payload/$(basename "$f")"
  done
fi

# One seed per corpus line: the spelling is the last column; comments and
# blank lines skipped.
seed_column() { # file target
  [ -f "$1" ] || { echo "skipping $1 (not found)"; return 0; }
  local n=0
  grep -v '^#' "$1" | grep -v '^[[:space:]]*$' | awk -F'\t' '{print $NF}' | while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" > "corpus/$2/$(basename "$1" .tsv)-$n"
  done
}
seed_column "$repo/tests/corpora/shell.tsv" shell_analyze
seed_column "$repo/tests/corpora/urls.tsv" url_path
seed_column "$repo/tests/corpora/paths.tsv" url_path
# Commands, URLs and paths from the shipped policies' test cases.
seed_field() { # key target
  local n=0
  grep -h -o "$1: .*" "$repo"/policies/*.test.yaml "$repo"/packs/*.test.yaml | sed -e "s/^$1: //" -e 's/^"\(.*\)"$/\1/' -e "s/^'\(.*\)'$/\1/" | while IFS= read -r line; do
    n=$((n + 1))
    printf '%s' "$line" > "corpus/$2/tests-$1-$n"
  done
}
seed_field command shell_analyze
seed_field url url_path
seed_field path url_path
for t in corpus/*; do echo "$t: $(ls "$t" | wc -l) seeds"; done
