//! Build steps that need no list kept by hand:
//! - the guardrail packs: every `packs/NAME.yaml` (and its `NAME.test.yaml`,
//!   shown by `policy packs show`) becomes part of the binary, so a pack
//!   file added to the directory ships without a list to keep in step
//!   (`src/packs/mod.rs` includes the generated table);
//! - the build identity (`HOOK_POLICY_BUILD_ID`): `policy install` copies
//!   the lean `policy-hook` binary only when it comes from the same sources
//!   and build settings as the running `policy` (src/adapters/hook_binary.rs);
//! - link arguments for a plain `cargo build --release` / `cargo install`
//!   on x86-64 Linux, which never reads `.cargo/config.toml`: see
//!   [`start_up_link_args`] and BENCHMARKS.md ("A plain `cargo install`").

use std::fmt::Write as _;
use std::hash::Hasher as _;
use std::path::{Path, PathBuf};
use std::process::Command;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let out = PathBuf::from(std::env::var("OUT_DIR").expect("cargo sets OUT_DIR"));
    embed_packs(&root.join("packs"), &out);
    build_id(root);
    start_up_link_args(&out);
}

fn embed_packs(dir: &Path, out: &Path) {
    // A directory: cargo reruns this script when any file in it changes.
    println!("cargo:rerun-if-changed={}", dir.display());
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok())
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| {
                    n.ends_with(".yaml") && !n.ends_with(".test.yaml") && !n.starts_with('.')
                })
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    let mut table = String::from("&[\n");
    for name in &names {
        let stem = name.trim_end_matches(".yaml");
        let tests = dir.join(format!("{stem}.test.yaml"));
        let tests = if tests.is_file() {
            format!("Some(include_str!({:?}))", tests.display().to_string())
        } else {
            "None".to_string()
        };
        let _ = writeln!(
            table,
            "    EmbeddedPack {{ file: {:?}, text: include_str!({:?}), tests: {tests} }},",
            format!("packs/{name}"),
            dir.join(name).display().to_string(),
        );
    }
    table.push_str("]\n");
    std::fs::write(out.join("packs.rs"), table).expect("write the pack table");
}

/// A hash of everything the binaries are built from: the sources, the
/// manifest and lock file, the packs, and the build's settings (profile,
/// target, features, flags). Two binaries with the same identity decide
/// alike. Not a security boundary: whoever can replace a file beside the
/// installed `policy` can replace `policy` itself.
fn build_id(root: &Path) {
    let mut files = Vec::new();
    for input in ["src", "packs", "Cargo.toml", "Cargo.lock", "build.rs"] {
        let path = root.join(input);
        // Only existing paths: cargo reruns the script for a missing one.
        if path.exists() {
            println!("cargo:rerun-if-changed={}", path.display());
            collect_files(&path, &mut files);
        }
    }
    files.sort();
    // Fixed keys: the same inputs give the same identity.
    let mut h = std::hash::DefaultHasher::new();
    for file in &files {
        h.write(
            file.strip_prefix(root)
                .unwrap_or(file)
                .as_os_str()
                .as_encoded_bytes(),
        );
        h.write(&std::fs::read(file).unwrap_or_default());
    }
    let settings = [
        "PROFILE",
        "TARGET",
        "OPT_LEVEL",
        "CARGO_ENCODED_RUSTFLAGS",
        "RUSTC",
    ];
    for var in settings {
        h.write(std::env::var(var).unwrap_or_default().as_bytes());
    }
    let mut features: Vec<(String, String)> = std::env::vars()
        .filter(|(k, _)| {
            k.starts_with("CARGO_FEATURE_") || k.starts_with("CARGO_CFG_TARGET_FEATURE")
        })
        .collect();
    features.sort();
    for (k, v) in features {
        h.write(k.as_bytes());
        h.write(v.as_bytes());
    }
    println!("cargo:rustc-env=HOOK_POLICY_BUILD_ID={:016x}", h.finish());
}

fn collect_files(path: &Path, files: &mut Vec<PathBuf>) {
    match std::fs::read_dir(path) {
        Ok(entries) => {
            for entry in entries.flatten() {
                collect_files(&entry.path(), files);
            }
        }
        Err(_) if path.is_file() => files.push(path.to_path_buf()),
        Err(_) => {}
    }
}

/// What a plain build on x86-64 Linux (glibc) can have of the plugin
/// build's start-up savings without `.cargo/config.toml`, each only when a
/// probe link with the same linker works and the probe runs:
/// - packed relative relocations (`-z pack-relative-relocs`, DT_RELR:
///   binutils 2.38 and glibc 2.36): the 25 k relative relocations are read
///   from 5 KiB instead of 600 KiB at every start;
/// - the unwinder linked in (`libgcc_eh.a`, as `gcc -static-libgcc` does)
///   instead of loading `libgcc_s.so.1`: one shared object less to map and
///   relocate, and no run of its constructor, which asks the CPU for its
///   features with 14 `cpuid` instructions, each a VM exit (tens of µs) on
///   virtual machines. Rust's std names `-lgcc_s` itself; a linker script
///   of that name in a directory searched first points it at the archive.
///
/// A static(-pie) link is not among them: it needs `-C
/// target-feature=+crt-static`, which only rustflags can set (std and the
/// libc crate pick their libraries by it), so `cargo plugin-build` keeps it.
/// `HOOK_POLICY_PLAIN_LINK=1` turns these off.
fn start_up_link_args(out: &Path) {
    println!("cargo:rerun-if-env-changed=HOOK_POLICY_PLAIN_LINK");
    let env = |k: &str| std::env::var(k).unwrap_or_default();
    let static_crt = env("CARGO_CFG_TARGET_FEATURE")
        .split(',')
        .any(|f| f == "crt-static");
    if env("TARGET") != "x86_64-unknown-linux-gnu"
        || env("HOST") != env("TARGET")
        || static_crt
        || env("HOOK_POLICY_PLAIN_LINK") == "1"
    {
        return;
    }
    // The linker rustc runs (a configured one, else `cc`).
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".into());
    let probe = out.join("link-probe");
    let _ = std::fs::create_dir_all(&probe);
    let source = probe.join("probe.c");
    // A pointer in initialised data: a relative relocation in a PIE.
    let program =
        "static const char *word = \"ok\";\nint main(void) { return word[0] == 'o' ? 0 : 1; }\n";
    if std::fs::write(&source, program).is_err() {
        return;
    }
    let works = |args: &[&str]| {
        let exe = probe.join("probe");
        let _ = std::fs::remove_file(&exe);
        let linked = Command::new(&linker)
            .args(["-fPIE", "-pie", "-o"])
            .arg(&exe)
            .arg(&source)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success());
        linked && Command::new(&exe).status().is_ok_and(|s| s.success())
    };
    let relr = "-Wl,-z,pack-relative-relocs";
    if works(&[relr]) {
        println!("cargo:rustc-link-arg-bins={relr}");
    }
    if let Some(shim) = libgcc_eh_shim(&linker, out) {
        let dir = format!("-L{}", shim.display());
        if works(&[&dir, "-lgcc_s"]) {
            println!("cargo:rustc-link-arg-bins={dir}");
        }
    }
}

/// A directory holding `libgcc_s.so`, a linker script naming the static
/// unwinder `libgcc_eh.a` of the linker's compiler, if it has one.
fn libgcc_eh_shim(linker: &str, out: &Path) -> Option<PathBuf> {
    let printed = Command::new(linker)
        .arg("-print-file-name=libgcc_eh.a")
        .output()
        .ok()?;
    let archive = PathBuf::from(String::from_utf8(printed.stdout).ok()?.trim());
    // Without the archive the compiler prints the bare name back.
    if !archive.is_absolute() || !archive.is_file() || archive.to_string_lossy().contains('"') {
        return None;
    }
    let dir = out.join("libgcc-eh");
    std::fs::create_dir_all(&dir).ok()?;
    let script = format!("INPUT(\"{}\")\n", archive.display());
    std::fs::write(dir.join("libgcc_s.so"), script).ok()?;
    Some(dir)
}
