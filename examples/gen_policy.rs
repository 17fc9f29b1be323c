//! Writes a generated policy of N rules to stdout, for benchmarks:
//! `cargo run --release --example gen_policy -- 10000 > big.yaml`.
//!
//! The mix imitates a large real policy: most rules discriminate on a
//! literal (`tool_name`, `context_name`) and so are indexed; some scan the
//! command, the path or the URL and are evaluated for every payload of their
//! hook.

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
            0..=3 => format!(
                "  - id: tool-{i}\n    hook: pre_tool\n    when: tool_name == 'tool_{i}' && has(arguments.force) && arguments.force == true\n    block: \"tool_{i} may not be forced\"\n"
            ),
            4 | 5 => format!(
                "  - id: ctx-{i}\n    hook: pre_api_tools\n    when: context_name == 'ctx_{i}'\n    tools: {{ exclude: [\"tool_{i}\", \"type:shell\"] }}\n"
            ),
            6 => format!(
                "  - id: shell-{i}\n    hook: pre_shell_exec\n    when: command.contains('danger_{i} ')\n    deny: \"danger_{i} is not allowed\"\n"
            ),
            7 => format!(
                "  - id: path-{i}\n    hook: pre_file_read\n    when: path.startsWith('/secret/{i}/')\n    deny: \"secret {i}\"\n"
            ),
            8 => format!(
                "  - id: url-{i}\n    hook: pre_fetch_url\n    when: has(payload.url) && url.contains('internal-{i}.')\n    deny: \"internal host {i}\"\n"
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
