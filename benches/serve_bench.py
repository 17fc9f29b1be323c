#!/usr/bin/env python3
"""Whole-process throughput of `policy serve picoclaw`.

Generates N `hook.before_tool` requests (a fixed-seed mix of exec commands,
read_file paths and web_fetch URLs, in two contexts) from S concurrent
sessions, as PicoClaw sends them when several agents work at once: each
session is its own writer thread, putting its requests on the server's stdin
in bursts of whole lines, interleaved with the others'. Everything is sent as
fast as possible into one server process and every reply is read. Each run's wall time
(process start to exit, stdin closed after the last request) divided by N is
one sample; the median of the runs is reported, with the server's CPU time
(user + system) per request, which a busy machine inflates less. Startup
alone (the same process with no requests) is timed too, so it can be told
apart.

    python3 benches/serve_bench.py --binary target/release/policy \
        --policy policies/ [--n 20000] [--runs 5] [--streams 8]

With `--callgrind N` it times nothing: it counts the instructions of one
server answering N requests (the sessions' lines one after another) and of
one answering none, under valgrind's callgrind, and prints the difference
per request. Unlike times, the count does not move with the machine's load.
(valgrind 3.19 cannot run a binary built with `-C target-cpu=native`.)
"""

import argparse
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import tempfile
import threading
import time

COMMANDS = [
    "ls -la",
    "git status",
    "git diff --stat HEAD~1",
    "cargo build --release",
    "cargo test --locked -- --nocapture",
    "grep -rn 'TODO' src | head -20",
    "cat README.md",
    "npm test",
    "python3 -m pytest -q tests/",
    "find . -name '*.rs' -newer Cargo.toml",
    "make -j2 all",
    "echo hello > out.txt",
    "rm -f build/output.o",
    "rm -rf /",
    "sudo rm -fr /",
    "bash -c 'rm -r -f ~'",
    "git push --force origin main",
    "chmod 777 deploy.sh",
    "sudo bash",
    "curl -s https://example.com/install.sh -o install.sh",
    "docker ps -a",
    "prog_15 --force target",
    "echo danger_24 now",
    "cd /tmp && tar xzf archive.tar.gz",
]

PATHS = [
    "src/main.rs",
    "Cargo.toml",
    "README.md",
    "docs/adapters.md",
    "tests/cli.rs",
    ".env",
    "config/.env.production",
    "~/.ssh/id_rsa",
    "/etc/passwd",
    "/secret/16/key.txt",
    "src/../.env",
    "deploy/server.pem",
]

URLS = [
    "https://docs.rs/serde/latest/serde/",
    "https://example.com/",
    "https://github.com/rust-lang/rust/issues/1",
    "https://en.wikipedia.org/wiki/JSON-RPC",
    "http://169.254.169.254/latest/meta-data/iam/",
    "http://127.0.0.1:8080/admin",
    "http://[::ffff:10.0.0.1]/",
    "http://0x7f000001/",
    "https://internal-17.example/status",
    "https://api.example.com/api/v18/users",
    "file:///etc/shadow",
    "https://crates.io/crates/regex",
]

CONTEXTS = ["main", "coding"]


def requests(n, streams, seed=1):
    """One list of request lines per session; ids are unique across them."""
    rng = random.Random(seed)
    lines = [[] for _ in range(max(streams, 1))]
    for i in range(n):
        kind = rng.random()
        if kind < 0.5:
            tool, args = "exec", {"command": rng.choice(COMMANDS), "working_dir": "/home/user/project"}
        elif kind < 0.75:
            tool, args = "read_file", {"path": rng.choice(PATHS)}
        else:
            tool, args = "web_fetch", {"url": rng.choice(URLS), "maxChars": 20000}
        params = {
            "tool": tool,
            "arguments": args,
            "meta": {"AgentID": rng.choice(CONTEXTS), "SessionKey": f"s{i % len(lines)}", "TurnID": i // 4},
        }
        msg = {"jsonrpc": "2.0", "id": i + 1, "method": "hook.before_tool", "params": params}
        lines[i % len(lines)].append(json.dumps(msg, separators=(",", ":")))
    return [("\n".join(ls) + "\n").encode() if ls else b"" for ls in lines]


BURST = 32  # lines one session writes at once


def run(binary, policy, streams):
    """Wall and CPU (user + system) seconds for one process to answer every
    line of every stream, the streams written concurrently; the replies."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        [binary, "serve", "picoclaw", "--policy", policy],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    out = []
    reader = threading.Thread(target=lambda: out.append(proc.stdout.read()))
    reader.start()
    lock = threading.Lock()

    def write(data):
        lines = data.splitlines(keepends=True)
        for i in range(0, len(lines), BURST):
            chunk = b"".join(lines[i : i + BURST])
            with lock:  # whole lines, as PicoClaw's writer does
                proc.stdin.write(chunk)
                proc.stdin.flush()

    writers = [threading.Thread(target=write, args=(d,)) for d in streams]
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    proc.stdin.close()
    reader.join()
    proc.wait()
    out = out[0] if out else b""
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if proc.returncode != 0:
        sys.exit(f"policy serve picoclaw exited {proc.returncode}")
    return elapsed, cpu, out


def instructions(binary, policy, data):
    """Instructions one server process executes answering `data`. Under
    valgrind a request waits long in the queue: the deadline is lifted, as
    a request answered at its deadline is never decided and costs less."""
    env = dict(os.environ, HOOK_POLICY_DEADLINE_MS="3600000")
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "valgrind.log")
        out = subprocess.run(
            ["valgrind", "--tool=callgrind", f"--log-file={log}",
             f"--callgrind-out-file={os.path.join(tmp, 'out')}",
             binary, "serve", "picoclaw", "--policy", policy],
            input=data, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, check=True,
        ).stdout
        text = open(log).read()
    if b"could not decide" in out:
        sys.exit("a request got its failure answer: the count would not be a decision's")
    found = re.search(r"Collected : (\d+)", text)
    if not found:
        sys.exit(f"no instruction count from valgrind:\n{text}")
    return int(found.group(1))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--binary", required=True)
    ap.add_argument("--policy", required=True)
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--streams", type=int, default=8)
    ap.add_argument("--label", default=None)
    ap.add_argument("--callgrind", type=int, default=0, metavar="N",
                    help="count instructions over N requests instead of timing")
    a = ap.parse_args()

    if a.callgrind:
        data = b"".join(requests(a.callgrind, a.streams))
        busy = instructions(a.binary, a.policy, data)
        idle = instructions(a.binary, a.policy, b"")
        print(f"{a.label or a.policy}: callgrind, N={a.callgrind}")
        print(f"  instructions: {busy:,} answering N, {idle:,} answering none")
        print(f"  per request, start-up subtracted: {(busy - idle) / a.callgrind:,.0f}")
        return

    data = requests(a.n, a.streams)
    # Check the replies once: one per request (matched by id, as PicoClaw
    # does: requests are decided side by side, so replies may come in any
    # order), none of them a failure answer (a deadline passed), and a real mix.
    _, _, out = run(a.binary, a.policy, data)
    replies = sorted((json.loads(l) for l in out.splitlines()), key=lambda r: r.get("id") or 0)
    if len(replies) != a.n:
        sys.exit(f"expected {a.n} replies, got {len(replies)}")
    actions = {}
    for i, r in enumerate(replies):
        if r.get("id") != i + 1 or "result" not in r:
            sys.exit(f"bad reply {i + 1}: {r}")
        if "could not decide" in r["result"].get("reason", ""):
            sys.exit(f"reply {i + 1} is a failure answer: {r}")
        act = r["result"]["action"]
        actions[act] = actions.get(act, 0) + 1

    idle = [run(a.binary, a.policy, [b""])[:2] for _ in range(a.runs)]
    startup = statistics.median(w for w, _ in idle)
    startup_cpu = statistics.median(c for _, c in idle)
    runs = [run(a.binary, a.policy, data)[:2] for _ in range(a.runs)]
    samples = [wall / a.n * 1e6 for wall, _ in runs]
    cpu = statistics.median(c / a.n * 1e6 for _, c in runs)
    med = statistics.median(samples)
    net = med - startup / a.n * 1e6
    label = a.label or a.policy
    mix = ", ".join(f"{k} {v}" for k, v in sorted(actions.items()))
    print(f"{label}: N={a.n} runs={a.runs} sessions={a.streams}")
    print(f"  replies: {mix}")
    print(f"  per request (wall / N): median {med:.2f} us  [runs: {', '.join(f'{s:.2f}' for s in samples)}]")
    print(f"  process startup alone (no requests): median {startup * 1e3:.2f} ms")
    print(f"  per request, startup subtracted: {net:.2f} us")
    print(f"  server CPU (user + sys) per request: median {cpu:.2f} us")
    print(f"  server CPU per request, startup CPU ({startup_cpu * 1e3:.0f} ms) subtracted: {cpu - startup_cpu / a.n * 1e6:.2f} us")
    print(f"  load average: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
