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
/// - `policy-hook` alone linked static-pie ([`static_hook_link`]): no
///   `ld.so` at its start, no libc to load and no symbols to bind.
///
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
    let relr = works(&[relr]).then(|| {
        println!("cargo:rustc-link-arg-bins={relr}");
        relr
    });
    let Some(gcc_eh) = libgcc_eh_shim(&linker, out) else {
        return;
    };
    let gcc_eh = format!("-L{}", gcc_eh.display());
    if !works(&[&gcc_eh, "-lgcc_s"]) {
        return;
    }
    println!("cargo:rustc-link-arg-bins={gcc_eh}");
    static_hook_link(out, &gcc_eh, relr);
}

/// `policy-hook` linked static-pie, as `cargo plugin-build` links both
/// binaries: a plain build's hook call otherwise spends about 100 k
/// instructions in `ld.so` loading libc and binding its symbols, which put
/// it above 1.5x the process floor (BENCHMARKS.md, "A plain `cargo
/// install`: policy-hook linked static-pie").
///
/// std is precompiled, the same with or without `crt-static`; what that
/// target feature changes is only the link line: std and the libc crate
/// then name glibc's archives, and rustc passes `-static-pie`. Without it
/// they name `-Bdynamic -lc -lm -lrt -lpthread -ldl -lutil`, so, as for
/// `-lgcc_s`, a directory searched first holds linker scripts of those
/// names that point at the static archives (`libc.so` as a group with
/// libgcc and the unwinder, as `crt-static` links them), and `-static-pie`
/// is added. Only when the archives exist and a Rust probe linked the same
/// way (threads, an unwinding panic) runs; else the binary stays dynamic.
/// `policy` keeps the dynamic link: it is what users run by hand, and any
/// library it may ever load through NSS stays the system's.
fn static_hook_link(out: &Path, gcc_eh: &str, relr: Option<&str>) {
    let Some(dir) = static_libc_shim(out) else {
        return;
    };
    let libc_dir = format!("-L{}", dir.display());
    let mut args = vec![gcc_eh, &libc_dir, "-static-pie"];
    args.extend(relr);
    if rust_probe_runs(out, &args) {
        for arg in [libc_dir.as_str(), "-static-pie"] {
            println!("cargo:rustc-link-arg-bin=policy-hook={arg}");
        }
        // For tests/hook_binary.rs: this build's policy-hook is static.
        println!("cargo:rustc-env=HOOK_POLICY_HOOK_LINK=static-pie");
    }
}

/// A directory of linker scripts named as the libraries std and the libc
/// crate link (`libc.so`, `libm.so`, ...), each naming glibc's archive.
fn static_libc_shim(out: &Path) -> Option<PathBuf> {
    let linker = std::env::var("RUSTC_LINKER").unwrap_or_else(|_| "cc".into());
    let archive = |name: &str| -> Option<String> {
        let printed = Command::new(&linker)
            .arg(format!("-print-file-name={name}"))
            .output()
            .ok()?;
        let path = String::from_utf8(printed.stdout).ok()?.trim().to_string();
        let usable = Path::new(&path).is_absolute() && Path::new(&path).is_file();
        (usable && !path.contains('"')).then_some(path)
    };
    let dir = out.join("static-libc");
    std::fs::create_dir_all(&dir).ok()?;
    let (gcc, gcc_eh) = (archive("libgcc.a")?, archive("libgcc_eh.a")?);
    let libc = archive("libc.a")?;
    let script = format!("GROUP(\"{libc}\" \"{gcc}\" \"{gcc_eh}\")\n");
    std::fs::write(dir.join("libc.so"), script).ok()?;
    for name in ["m", "rt", "pthread", "dl", "util"] {
        let script = format!("INPUT(\"{}\")\n", archive(&format!("lib{name}.a"))?);
        std::fs::write(dir.join(format!("lib{name}.so")), script).ok()?;
    }
    Some(dir)
}

/// Whether a Rust program linked with `link_args` by this build's rustc
/// and linker runs: it starts a thread and catches an unwinding panic,
/// what a static link without its unwinder or thread support would break.
fn rust_probe_runs(out: &Path, link_args: &[&str]) -> bool {
    let dir = out.join("link-probe");
    let (source, exe) = (dir.join("probe.rs"), dir.join("rust-probe"));
    let program = "fn main() {\n    std::panic::set_hook(Box::new(|_| {}));\n    let caught = std::panic::catch_unwind(|| panic!(\"unwinds\")).is_err();\n    let joined = std::thread::spawn(|| 7).join().ok() == Some(7);\n    std::process::exit(if caught && joined { 0 } else { 1 });\n}\n";
    if std::fs::write(&source, program).is_err() {
        return false;
    }
    let _ = std::fs::remove_file(&exe);
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let mut command = Command::new(rustc);
    command.args(["--edition", "2021", "--crate-name", "link_probe", "-o"]);
    command.arg(&exe).arg(&source);
    command.args(["--target", &std::env::var("TARGET").unwrap_or_default()]);
    if let Ok(linker) = std::env::var("RUSTC_LINKER") {
        command.arg(format!("-Clinker={linker}"));
    }
    for arg in link_args {
        command.arg(format!("-Clink-arg={arg}"));
    }
    let linked = command.output().is_ok_and(|o| o.status.success());
    linked && Command::new(&exe).status().is_ok_and(|s| s.success())
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
