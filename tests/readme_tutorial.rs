//! README's tutorial, run exactly as written (issue 15, "Done means"): its
//! files are written from the YAML blocks that follow "`FILE`:", its shell
//! blocks run in bash in an empty directory with the built `policy` first
//! on PATH, and a `text` block right after a shell block is that block's
//! output (stdout and stderr as a terminal shows them). A change to the
//! binary's output or to the README that makes them disagree fails here.

mod common;

use common::*;

enum Block {
    Prose(String),
    Fence { lang: String, body: String },
}

fn tutorial() -> Vec<Block> {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let start = readme
        .find("\n## Tutorial\n")
        .expect("README has a Tutorial section");
    let rest = &readme[start + 1..];
    let end = rest[3..].find("\n## ").map_or(rest.len(), |i| i + 3);
    let mut blocks = Vec::new();
    let mut prose = String::new();
    let mut lines = rest[..end].lines();
    while let Some(line) = lines.next() {
        if let Some(lang) = line.strip_prefix("```") {
            let mut body = String::new();
            for inner in lines.by_ref() {
                if inner == "```" {
                    break;
                }
                body.push_str(inner);
                body.push('\n');
            }
            blocks.push(Block::Prose(std::mem::take(&mut prose)));
            blocks.push(Block::Fence {
                lang: lang.to_string(),
                body,
            });
        } else {
            prose.push_str(line);
            prose.push('\n');
        }
    }
    blocks
}

/// The file a YAML block is, when the prose before it ends with "`FILE`:".
fn target(prose: &str) -> Option<String> {
    let text = prose.trim_end().strip_suffix("`:")?;
    let start = text.rfind('`')?;
    Some(text[start + 1..].to_string())
}

#[test]
fn the_readme_tutorial_runs_as_written() {
    let dir = TempDir::new("tutorial");
    let home = dir.path().join("home");
    std::fs::create_dir_all(&home).unwrap();
    let bin_dir = bin().parent().unwrap().to_path_buf();
    let path = format!(
        "{}:{}",
        bin_dir.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let blocks = tutorial();
    let (mut files, mut commands, mut outputs) = (0, 0, 0);
    let mut last_prose = String::new();
    let mut i = 0;
    while i < blocks.len() {
        match &blocks[i] {
            Block::Prose(text) => last_prose = text.clone(),
            Block::Fence { lang, body } if lang == "yaml" => match target(&last_prose) {
                Some(file) => {
                    std::fs::write(dir.path().join(&file), body).unwrap();
                    files += 1;
                }
                None => {
                    // A fragment of rules: it must be a valid rule too.
                    assert!(body.starts_with("  - id:"), "unplaced YAML block:\n{body}");
                    let out = policy(
                        &["check", "-"],
                        format!("version: 1\nrules:\n{body}").as_bytes(),
                    );
                    assert_eq!(out.status.code(), Some(0), "{body}\n{}", stderr(&out));
                }
            },
            Block::Fence { lang, body } if lang == "sh" => {
                if body.contains("cargo ") || body.contains("target/") {
                    // Builds: not rerun here (CI builds the plugin itself).
                    i += 1;
                    continue;
                }
                let out = std::process::Command::new("bash")
                    .arg("-c")
                    .arg(format!("exec 2>&1\n{body}"))
                    .current_dir(dir.path())
                    .env("PATH", &path)
                    .env("HOME", &home)
                    .env("NO_COLOR", "1")
                    .env_remove("CHIBI_PROJECT_ROOT")
                    .env_remove("HOOK_POLICY_LOG")
                    .output()
                    .expect("bash runs");
                commands += 1;
                let shown = String::from_utf8_lossy(&out.stdout).into_owned();
                // A `text` block right after the commands is their output.
                let expected = match (blocks.get(i + 1), blocks.get(i + 2)) {
                    (Some(Block::Prose(p)), Some(Block::Fence { lang, body }))
                        if p.trim().is_empty() && lang == "text" =>
                    {
                        i += 2;
                        Some(body.clone())
                    }
                    _ => None,
                };
                match expected {
                    Some(expected) => {
                        outputs += 1;
                        assert_eq!(shown, expected, "README output differs for:\n{body}");
                    }
                    None => assert!(out.status.success(), "{body}\nfailed:\n{shown}"),
                }
            }
            Block::Fence { .. } => {}
        }
        i += 1;
    }
    assert!(
        files >= 2 && commands >= 5 && outputs >= 3,
        "{files} files, {commands} commands, {outputs} outputs"
    );
    // Every `$schema` line names a file the tutorial wrote: editors work offline.
    for entry in std::fs::read_dir(dir.path()).unwrap() {
        let file = entry.unwrap().path();
        let text = std::fs::read_to_string(&file).unwrap_or_default();
        if let Some(rest) = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("# yaml-language-server: $schema="))
        {
            assert!(
                !rest.contains("://"),
                "{}: {rest} needs the network",
                file.display()
            );
            assert!(
                dir.path().join(rest).is_file(),
                "{}: {rest} missing",
                file.display()
            );
        }
    }
    // Step 5 installed the plugin where chibi looks for it.
    assert!(home
        .join(".chibi/plugins/hook-policy/hook-policy")
        .is_file());
}

#[test]
fn the_readme_says_how_to_install() {
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let install = readme.find("\n## Install\n").expect("an Install section");
    let tutorial = readme.find("\n## Tutorial\n").unwrap();
    assert!(install < tutorial);
    assert!(readme[install..tutorial].contains("cargo install --locked --path ."));
    assert!(readme[install..tutorial].contains("cargo plugin-build"));
}
