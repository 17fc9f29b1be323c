//! Which binary an installed hook runs.
//!
//! A hook call is a fresh process, and at a hundred rules most of its time
//! is the process starting: loading and relocating the binary. The package
//! therefore builds two binaries: `policy`, the whole command line, and
//! `policy-hook`, which only answers hook calls (a chibi plugin call and
//! `hook AGENT`): no `policy check`, no command-line parser, no CEL
//! reference parser linked in, so it has far fewer relocations to apply
//! and pages to touch at every start (BENCHMARKS.md, "A plain `cargo
//! install`"). `cargo install` puts both in the same directory, and even
//! a plain build links `policy-hook` static-pie where glibc's static
//! archives allow (build.rs), so a hook call starts without `ld.so`.
//!
//! `policy install` copies `policy-hook` when it sits beside the running
//! `policy` and reports the same build (`--version` names the build
//! identity, `crate::BUILD_ID`): a `policy-hook` left from another version
//! could decide differently from the policy check install just ran. Else
//! it copies the running binary, which answers hook calls the same way.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

/// The lean binary's file name.
pub const LEAN: &str = "policy-hook";

/// What `policy-hook --version` prints: its version and build identity.
pub fn version_line() -> String {
    format!(
        "{LEAN} {} (build {})",
        env!("CARGO_PKG_VERSION"),
        crate::BUILD_ID
    )
}

/// The binary to copy into place for a hook.
pub struct Source {
    pub path: PathBuf,
    /// Whether it is `policy-hook` (else the running binary).
    pub lean: bool,
}

impl Source {
    /// The binary for hooks installed by this process.
    pub fn find() -> Result<Source, String> {
        let exe = std::env::current_exe()
            .and_then(std::fs::canonicalize)
            .map_err(|e| format!("cannot locate the policy binary: {e}"))?;
        Ok(match lean_beside(&exe) {
            Some(path) => Source { path, lean: true },
            None => Source {
                path: exe,
                lean: false,
            },
        })
    }

    /// How install messages name what was copied.
    pub fn describe(&self) -> &'static str {
        if self.lean {
            "a copy of policy-hook, the hook-only binary built with this one"
        } else {
            "a copy of this binary"
        }
    }
}

/// `policy-hook` beside `exe`, if it is from the same build.
fn lean_beside(exe: &Path) -> Option<PathBuf> {
    let lean = exe.with_file_name(LEAN);
    if lean == exe || !lean.is_file() {
        return None;
    }
    let out = Command::new(&lean)
        .arg("--version")
        .stdin(Stdio::null())
        .stderr(Stdio::null())
        .output()
        .ok()?;
    let said = String::from_utf8(out.stdout).ok()?;
    (out.status.success() && said.trim_end() == version_line()).then_some(lean)
}
