//! URL classification and path normalisation: what a `pre_fetch_url` or
//! `pre_file_read`/`pre_file_write` decision pays for its subject before
//! any rule looks at it.
//!
//! Run: `cargo bench --bench url_path -- --warm-up-time 1 --measurement-time 3`.

use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion};
use hook_policy::paths::{self, PathGlobSet};
use hook_policy::url_class;
use std::hint::black_box;

const URLS: &[(&str, &str)] = &[
    (
        "public_https",
        "https://api.github.com/repos/rust-lang/rust/issues?state=open",
    ),
    ("loopback_dotted", "http://127.0.0.1:8080/admin"),
    ("loopback_decimal", "http://2130706433/"),
    ("mapped_ipv6", "http://[::ffff:7f00:1]/"),
    (
        "metadata_name",
        "http://metadata.google.internal/computeMetadata/v1/",
    ),
    ("userinfo_backslash", "http://evil.com\\@127.0.0.1/"),
    ("fullwidth_idn", "http://１２７.０.０.１/"),
    ("idn_public", "https://münchen.de/stadt"),
    ("invalid", "http://[::1/"),
    ("no_scheme", "localhost:3000/api"),
];

const ROOT: &str = "/home/user/demo";
const HOME: Option<&str> = Some("/home/user");

fn long_path() -> String {
    let mut p = String::new();
    for i in 0..100 {
        p.push_str(&format!("dir{i}/"));
        if i % 10 == 9 {
            p.push_str("../");
        }
    }
    p.push_str("file.rs");
    p
}

fn paths_cases() -> Vec<(&'static str, String)> {
    vec![
        ("relative", "src/main.rs".to_string()),
        ("absolute_inside", "/home/user/demo/src/lib.rs".to_string()),
        ("dotdot_escape", "src/../../../etc/passwd".to_string()),
        ("tilde_ssh", "~/.ssh/id_rsa".to_string()),
        (
            "file_url",
            "file:///home/user/demo/%2e%2e/secret.txt".to_string(),
        ),
        ("long_100_components", long_path()),
    ]
}

fn urls(c: &mut Criterion) {
    let mut group = c.benchmark_group("classify");
    for (name, url) in URLS {
        group.bench_with_input(BenchmarkId::from_parameter(name), url, |b, url| {
            b.iter(|| url_class::classify(black_box(url)))
        });
    }
    group.finish();
}

fn paths_bench(c: &mut Criterion) {
    let mut group = c.benchmark_group("normalize");
    for (name, raw) in paths_cases() {
        group.bench_with_input(BenchmarkId::from_parameter(name), &raw, |b, raw| {
            b.iter(|| paths::normalize(black_box(raw), ROOT, HOME))
        });
    }
    group.finish();

    let mut group = c.benchmark_group("inspect");
    for (name, raw) in paths_cases() {
        group.bench_with_input(BenchmarkId::from_parameter(name), &raw, |b, raw| {
            b.iter(|| paths::inspect(black_box(raw), ROOT, HOME))
        });
    }
    group.finish();

    // The shipped files policy's globs, compiled once, against normalised paths.
    let globs = [
        "**/.env",
        "**/.env.*",
        "~/.ssh/**",
        "**/*.pem",
        "**/id_rsa*",
        "**/id_ed25519*",
    ];
    let set = PathGlobSet::new(&globs, ROOT, HOME).expect("globs compile");
    let mut group = c.benchmark_group("glob_match");
    for (name, raw) in [
        ("miss", "src/main.rs"),
        ("env_hit", "config/.env.local"),
        ("ssh_hit", "~/.ssh/config"),
    ] {
        let normalized = paths::normalize(raw, ROOT, HOME);
        group.bench_with_input(BenchmarkId::from_parameter(name), &normalized, |b, p| {
            b.iter(|| set.matches(black_box(p)))
        });
    }
    group.finish();
}

criterion_group!(benches, urls, paths_bench);
criterion_main!(benches);
