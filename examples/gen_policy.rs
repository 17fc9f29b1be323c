//! Writes a generated policy of N rules to stdout, for benchmarks:
//! `cargo run --release --example gen_policy -- 10000 > big.yaml`.
//!
//! The mix imitates a large real policy: CEL conditions on the tool name
//! and the context, substring tests on the command and the URL, and shell
//! (program + flags), path (glob) and URL (domain) matchers. None of the
//! generated rules matches the captured chibi payloads, so a decision
//! visits every rule the index cannot rule out: the worst case for a set
//! of that size.

fn main() {
    let n: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(100);
    print!("{}", generate(n));
}

pub fn generate(n: usize) -> String {
    let mut out = String::from("version: 1\nrules:\n");
    for i in 0..n {
        let rule = match i % 10 {
            0..=2 => format!(
                "  - id: tool-{i}\n    hook: pre_tool\n    when: tool_name == 'tool_{i}' && has(arguments.force) && arguments.force == true\n    block: \"tool_{i} may not be forced\"\n"
            ),
            3 => format!(
                "  - id: ctx-{i}\n    hook: pre_api_tools\n    when: context_name == 'ctx_{i}'\n    tools: {{ exclude: [\"tool_{i}\", \"type:shell\"] }}\n"
            ),
            4 => format!(
                "  - id: shell-{i}\n    hook: pre_shell_exec\n    when: command.contains('danger_{i} ')\n    deny: \"danger_{i} is not allowed\"\n"
            ),
            5 => format!(
                "  - id: prog-{i}\n    hook: pre_shell_exec\n    shell: {{ program: prog_{i}, flags: [\"-f|--force\"] }}\n    deny: \"prog_{i} --force is not allowed\"\n"
            ),
            6 => format!(
                "  - id: path-{i}\n    hook: pre_file_read\n    path: {{ glob: \"/secret/{i}/**\" }}\n    deny: \"secret {i}\"\n"
            ),
            7 => format!(
                "  - id: host-{i}\n    hook: pre_fetch_url\n    url: {{ domain: internal-{i}.example }}\n    deny: \"internal host {i}\"\n"
            ),
            8 => format!(
                "  - id: url-{i}\n    hook: pre_fetch_url\n    when: has(payload.url) && url.contains('/api/v{i}/')\n    deny: \"api {i}\"\n"
            ),
            _ => format!(
                "  - id: temp-{i}\n    hook: pre_api_request\n    when: context_name == 'ctx_{i}'\n    request: {{ temperature: 0.{} }}\n",
                i % 10
            ),
        };
        out.push_str(&rule);
    }
    out
}
