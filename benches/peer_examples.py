#!/usr/bin/env python3
"""The peers' own examples through each guard: how many of the command lines
destructive_command_guard (dcg) and cc-safety-net assert as blocked each tool
denies, and how many they assert as allowed each tool lets through. Only the
command strings are taken from their tests (facts), never their code.

  python3 benches/peer_examples.py extract DCG_SRC CCSN_GIT_DIR > examples.jsonl
  python3 benches/peer_examples.py run examples.jsonl results.jsonl TOOL=COMMAND...
  python3 benches/peer_examples.py summary examples.jsonl results.jsonl

DCG_SRC is dcg's source tree (its tests/corpus TOML files and the pack tests
in src/packs), CCSN_GIT_DIR a git directory of cc-safety-net (its
assertBlocked/assertAllowed lines under tests/). Each TOOL=COMMAND is run as
a Claude Code PreToolUse hook, a fresh process per line, with the event on
stdin, e.g.
  ours="target/release/policy hook claude-code --policy policies"
  dcg=/path/to/dcg   ccsn="/path/to/cc-safety-net hook --claude-code"
HOME is a scratch directory per tool (PEER_HOME=DIR gives the parent, by
default ~/.cache/peer-examples; a dcg config that enables every pack goes in
its HOME/.config/dcg) and the project is PARENT/project. The parent must not
be a temp directory: the guards judge paths against the project and home,
and under /tmp `rm -rf ~/projects` or `cd .. && rm -rf build` would be
temp files. Results already
in the output are kept, so an interrupted run resumes. JOBS=N (default 2).
"""
import json, os, re, subprocess, sys, tomllib
from concurrent.futures import ThreadPoolExecutor


def extract(dcg_src, ccsn_repo):
    out = []
    def add(src, expect, cmd, f):
        if isinstance(cmd, str) and cmd.strip() and len(cmd) < 2000:
            out.append({"source": src, "expect": expect, "command": cmd, "file": f})

    # --- dcg: TOML corpora
    root = os.path.join(dcg_src, "tests/corpus")
    for d, _, files in os.walk(root):
        for fn in files:
            if fn.endswith(".toml"):
                p = os.path.join(d, fn)
                try:
                    data = tomllib.load(open(p, "rb"))
                except Exception as e:
                    print("skip", p, e, file=sys.stderr); continue
                for case in data.get("case", []):
                    exp = case.get("expected")
                    add("dcg", {"allow": "allow", "deny": "deny"}.get(exp, exp), case.get("command"), p[len(root)+1:])

    # --- dcg: Rust pack tests. Parse string literals after the helper's `&pack,`.
    def rust_strings(s):
        """Yield (literal value, end) for each Rust string literal in s."""
        i = 0
        while i < len(s):
            m = re.compile(r'r(#*)"|"').search(s, i)
            if not m: return
            if m.group(0).startswith("r"):
                hashes = m.group(1); end = s.find('"' + hashes, m.end())
                yield s[m.end():end], end + 1 + len(hashes); i = end + 1 + len(hashes)
            else:
                j = m.end(); buf = []
                while s[j] != '"':
                    if s[j] == '\\':
                        c = s[j+1]
                        if c == 'n': buf.append('\n'); j += 2
                        elif c == 't': buf.append('\t'); j += 2
                        elif c == '\n':
                            j += 2
                            while s[j] in ' \t\n': j += 1
                        elif c == 'u':
                            k = s.find('}', j); buf.append(chr(int(s[j+3:k], 16))); j = k + 1
                        elif c == 'x': buf.append(chr(int(s[j+2:j+4], 16))); j += 4
                        elif c == '0': buf.append('\0'); j += 2
                        else: buf.append(c); j += 2
                    else:
                        buf.append(s[j]); j += 1
                yield "".join(buf), j + 1; i = j + 1

    helpers = {"assert_allows": "allow", "assert_blocks": "deny", "assert_blocks_with_pattern": "deny",
               "assert_blocks_with_severity": "deny?", "assert_blocks_reachably": "deny",
               "test_batch_allows": "allow", "test_batch_blocks": "deny"}
    src = os.path.join(dcg_src, "src/packs")
    pat = re.compile(r'\b(' + "|".join(helpers) + r')\(\s*&?[a-z_]+\s*,\s*(&\[)?', re.S)
    for d, _, files in os.walk(src):
        for fn in files:
            if not fn.endswith(".rs"): continue
            p = os.path.join(d, fn); s = open(p).read()
            for m in pat.finditer(s):
                rest = s[m.end():]
                if m.group(2):  # batch: every literal up to `]`
                    close = rest.find("]")
                    for lit, _ in rust_strings(rest[:close]):
                        add("dcg", helpers[m.group(1)], lit, p[len(src)+1:])
                else:
                    if not (rest.lstrip().startswith('"') or rest.lstrip().startswith('r')): continue
                    try:
                        for lit, _ in rust_strings(rest[:20000]):
                            add("dcg", helpers[m.group(1)], lit, p[len(src)+1:]); break
                    except Exception as e:
                        print("skip literal in", p, e, file=sys.stderr)

    # --- cc-safety-net: TS tests assertBlocked('cmd', ...) / assertAllowed('cmd')
    repo = ccsn_repo
    files = subprocess.run(["git", "-C", repo, "ls-tree", "-r", "--name-only", "HEAD", "tests/"], capture_output=True, text=True).stdout.split()
    def ts_string(s, i):
        q = s[i]; j = i + 1; buf = []
        while s[j] != q:
            if s[j] == '\\':
                c = s[j+1]
                buf.append({'n': '\n', 't': '\t'}.get(c, c)); j += 2
            else:
                if q == '`' and s.startswith('${', j): return None, j
                buf.append(s[j]); j += 1
        return "".join(buf), j + 1
    for f in files:
        if not f.endswith(".ts"): continue
        s = subprocess.run(["git", "-C", repo, "show", "HEAD:" + f], capture_output=True, text=True).stdout
        for m in re.finditer(r'\b(assertBlocked|assertAllowed)\(\s*', s):
            i = m.end()
            if i < len(s) and s[i] in "'\"`":
                lit, _ = ts_string(s, i)
                if lit is not None:
                    add("safety-net", "deny" if m.group(1) == "assertBlocked" else "allow", lit, f)

    seen = set()
    for c in out:
        k = (c["source"], c["expect"], c["command"])
        if k not in seen:
            seen.add(k)
            print(json.dumps(c))


def event(cmd, cwd):
    return json.dumps({"session_id": "peer-examples", "transcript_path": "/tmp/peer-examples.jsonl",
        "cwd": cwd, "permission_mode": "default", "hook_event_name": "PreToolUse", "tool_name": "Bash",
        "tool_input": {"command": cmd, "description": "run"}, "tool_use_id": "toolu_peer_examples"})


def verdict(argv, home, cwd, cmd):
    """deny (a deny/block decision, or exit status 2), ask, allow, or what went wrong."""
    env = dict(os.environ, HOME=home)
    env.pop("XDG_CONFIG_HOME", None)
    try:
        p = subprocess.run(argv, input=event(cmd, cwd).encode(), capture_output=True, cwd=cwd, env=env, timeout=60)
    except subprocess.TimeoutExpired:
        return "timeout"
    decision = None
    try:
        out = json.loads(p.stdout) if p.stdout.strip() else {}
        decision = out.get("hookSpecificOutput", {}).get("permissionDecision") or out.get("decision")
    except ValueError:
        pass
    if p.returncode == 2 or decision in ("deny", "block"):
        return "deny"
    if decision == "ask":
        return "ask"
    return "allow" if p.returncode == 0 else f"exit {p.returncode}"


def run(examples, results, tools):
    parent = os.path.abspath(os.environ.get("PEER_HOME") or os.path.expanduser("~/.cache/peer-examples"))
    if any(parent == t or parent.startswith(t + "/") for t in ("/tmp", "/var/tmp", "/dev/shm", "/private/tmp", "/var/folders", "/private/var/folders")):
        sys.exit(f"PEER_HOME {parent} is a temp directory; paths under it would count as temp files")
    cwd = os.path.join(parent, "project")
    os.makedirs(cwd, exist_ok=True)
    done = set()
    if os.path.exists(results):
        done = {(j["tool"], j["command"]) for j in map(json.loads, open(results))}
    cmds = list(dict.fromkeys(json.loads(l)["command"] for l in open(examples)))
    jobs = [(name, argv, c) for name, argv in tools for c in cmds if (name, c) not in done]
    homes = {name: os.path.join(parent, "home-" + name) for name, _ in tools}
    for h in homes.values():
        os.makedirs(h, exist_ok=True)
    with open(results, "a") as out, ThreadPoolExecutor(int(os.environ.get("JOBS", "2"))) as pool:
        answers = pool.map(lambda j: verdict(j[1], homes[j[0]], cwd, j[2]), jobs)
        for (name, _, c), v in zip(jobs, answers):
            out.write(json.dumps({"tool": name, "command": c, "verdict": v}) + "\n")
            out.flush()


def summary(examples, results):
    """A table: per peer and kind (dangerous: asserted blocked, safe: asserted
    allowed), the share each tool answers as the peer's test expects. A line
    a peer asserts both ways (under different settings) counts in neither."""
    kinds = {"deny": "dangerous", "deny?": "dangerous", "allow": "safe"}
    sets = {}
    for j in map(json.loads, open(examples)):
        if j["expect"] in kinds:
            sets.setdefault((j["source"], kinds[j["expect"]]), set()).add(j["command"])
    for src in {s for s, _ in sets}:
        both = sets.get((src, "dangerous"), set()) & sets.get((src, "safe"), set())
        for kind in ("dangerous", "safe"):
            sets.get((src, kind), set()).difference_update(both)
    answers = {}
    for j in map(json.loads, open(results)):
        answers.setdefault(j["tool"], {})[j["command"]] = j["verdict"]
    tools = list(answers)
    print("| examples | lines | " + " | ".join(tools) + " |")
    print("|---|---|" + "---|" * len(tools))
    for (src, kind), cmds in sorted(sets.items()):
        want = "deny" if kind == "dangerous" else "allow"
        cells = []
        for t in tools:
            n = sum(answers[t].get(c) == want for c in cmds)
            missing = sum(c not in answers[t] for c in cmds)
            cells.append(f"{n} ({100 * n / len(cmds):.1f}%)" + (f", {missing} not run" if missing else ""))
        print(f"| {src} {kind}: {'denied' if want == 'deny' else 'allowed'} | {len(cmds)} | " + " | ".join(cells) + " |")


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "extract":
        extract(*args)
    elif cmd == "run":
        tools = [(t.split("=", 1)[0], t.split("=", 1)[1].split()) for t in args[2:]]
        run(args[0], args[1], tools)
    elif cmd == "summary":
        summary(*args)
    else:
        sys.exit(__doc__)


main()
