//! What a destructive command acts on, and where that is.
//!
//! `rm -rf node_modules` and `rm -rf ~` differ only in their operand, so a
//! guard that allows routine cleanup and refuses disasters must know which
//! operands are the paths a command deletes, moves, overwrites or changes
//! the mode of, and where each of them lies. The first part depends only on
//! the line and is done during the analysis ([`operands`]); the second
//! depends on the project root and home of the hook call and is done when a
//! rule asks ([`resolve`]), with the same lexical normalisation as the path
//! matchers (`src/paths/`): `~`, `..`, `//` and relative paths resolve
//! without touching the filesystem (symlinks are not followed).
//!
//! Commands with operands read here: `rm`, `rmdir`, `unlink`, `shred`,
//! `srm`, `wipe`, `mv`, `chmod`, `chown`, `chgrp`, `truncate`, `rsync` (its
//! destination), `dd` (`of=`) and `find` (its starting points, whose
//! contents `-delete` and `-exec` act on); library calls found in
//! interpreter code are reported as one of these (see `src/shell/inline/`).

use super::cwd::{Place, Places};
use super::find_expr;
use super::glob_cover::covers_every_entry;
use super::launchers::{XARGS_LONG, XARGS_SHORT_VALUES};
use super::long_options::Takes;
use super::words::Word;
use crate::paths;
use serde::Serialize;

/// A path operand of a destructive command, as written.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Target {
    /// Unquoted text; expansions kept as written.
    pub text: String,
    /// No expansion in it (it may still be a glob).
    pub literal: bool,
    /// A glob or brace pattern: the command acts on what it matches.
    pub pattern: bool,
    /// The command acts on what lies inside this directory (find's starting
    /// points, and what `find -exec ... {}` is handed).
    pub contents: bool,
    /// The directories the command may run in (see `cwd`): the project
    /// root unless the line changed directory before it (`cd`, `pushd`, a
    /// wrapper that changes directory). A relative path, or `$PWD`, is
    /// located from each; from an unknown one it is unknown.
    #[serde(skip)]
    pub cwd: Places,
    /// The line sets `HOME`, `PWD` or `TMPDIR` itself, or the command runs
    /// on another machine (through `ssh`): `~` and variables, or every path
    /// for a remote command, name an unknown place.
    #[serde(skip)]
    pub place_unknown: bool,
}

impl Target {
    fn of(word: &Word) -> Target {
        Target {
            text: word.text.clone(),
            literal: word.literal,
            pattern: word.pattern,
            contents: false,
            cwd: Places::start(),
            place_unknown: false,
        }
    }

    /// A target filled in at run time (input given to `xargs`).
    pub fn unknown(text: &str) -> Target {
        Target {
            text: text.to_string(),
            literal: false,
            pattern: false,
            contents: false,
            cwd: Places::start(),
            place_unknown: false,
        }
    }

    /// A path written as `word` (a redirection's file, `cp`'s destination).
    pub fn written(word: &Word) -> Target {
        Target::of(word)
    }

    /// A file a redirection reads (`< f`), known only as its unquoted text.
    pub fn read_from(text: &str) -> Target {
        Target::of(&Word {
            text: text.to_string(),
            literal: !text.contains(['$', '`']),
            pattern: text.contains(['*', '?', '[']),
        })
    }

    /// Marks the target as acted on from any of `places`.
    pub fn run_in(&mut self, places: &Places) {
        self.cwd = places.clone();
    }
}

/// True for the programs whose operands [`operands`] reads.
pub fn has_targets(program: &str) -> bool {
    matches!(
        program,
        "rm" | "rmdir"
            | "unlink"
            | "shred"
            | "srm"
            | "wipe"
            | "mv"
            | "chmod"
            | "chown"
            | "chgrp"
            | "truncate"
            | "rsync"
            | "dd"
            | "find"
    )
}

/// The path operands of `program args...`; empty for other programs.
pub fn operands(program: &str, args: &[Word]) -> Vec<Target> {
    match program {
        "rm" | "rmdir" | "unlink" | "srm" | "wipe" => plain(args, "", &[]).0,
        "shred" => plain(args, "ns", &["iterations", "size", "random-source"]).0,
        "truncate" => plain(args, "sr", &["size", "reference"]).0,
        "mv" => {
            let (mut found, values) = plain(args, "tS", &["target-directory", "suffix"]);
            found.extend(
                values
                    .iter()
                    .filter(|(o, _)| o == "t" || o == "target-directory")
                    .map(|(_, w)| Target::of(w)),
            );
            found
        }
        "chmod" | "chown" | "chgrp" => {
            let (found, values) = plain(args, "", &["reference", "from"]);
            let by_reference = values.iter().any(|(o, _)| o == "reference")
                || args.iter().any(|w| w.text.starts_with("--reference="));
            // chmod's mode can look like an option (`-w`): read here as an
            // operand it would only add a target, never hide one.
            let skip = usize::from(!by_reference);
            found.into_iter().skip(skip).collect()
        }
        "rsync" => {
            let (found, _) = plain(
                args,
                "efBMT",
                &[
                    "rsh",
                    "filter",
                    "exclude",
                    "include",
                    "exclude-from",
                    "include-from",
                    "files-from",
                    "temp-dir",
                    "partial-dir",
                    "backup-dir",
                    "suffix",
                    "chmod",
                    "chown",
                    "compare-dest",
                    "copy-dest",
                    "link-dest",
                    "rsync-path",
                    "log-file",
                    "password-file",
                    "out-format",
                    "timeout",
                    "bwlimit",
                    "max-size",
                    "min-size",
                    "port",
                    "sockopts",
                ],
            );
            if found.len() >= 2 {
                found.into_iter().last().into_iter().collect()
            } else {
                Vec::new()
            }
        }
        "dd" => args
            .iter()
            .filter_map(|w| {
                w.text.strip_prefix("of=").map(|path| Target {
                    text: path.to_string(),
                    ..Target::of(w)
                })
            })
            .collect(),
        "find" => find_starting_points(args),
        _ => Vec::new(),
    }
}

/// Paths a command writes, creates or links other than its destructive
/// operands (see [`SimpleCommand::writes`](super::SimpleCommand)): what
/// `cp`, `install`, `ln`, `scp` write (the destination, as a directory whose
/// contents change, and each source's name inside it), `ln`'s sources (a
/// link is a way to write through), `tee`'s files, `sed -i`/`perl -i`
/// files, `curl -o`/`wget -O` outputs, files handed to editors, and where
/// `tar -x`/`unzip` extract.
pub fn written_operands(program: &str, args: &[Word]) -> Vec<Target> {
    match program {
        "cp" | "install" | "ln" | "scp" | "rsync" => copy_destinations(program, args),
        "tee" | "sponge" => plain(args, "", &["output-error"]).0,
        "ed" | "red" | "ex" | "vi" | "vim" | "nvim" | "nano" | "emacs" | "patch" => {
            plain(
                args,
                "cdefiloOprsStTuUW",
                &["cmd", "directory", "output", "input"],
            )
            .0
        }
        "sed" | "gsed" | "perl" => in_place_files(program, args),
        "curl" | "wget" => download_outputs(args),
        "tar" | "bsdtar" | "gtar" | "unzip" | "7z" | "7za" => extract_destination(program, args),
        "git" => git_paths(args),
        // `-fprint FILE`, `-fprint0`, `-fprintf FILE FORMAT`, `-fls FILE`
        // create or truncate FILE.
        "find" => args
            .windows(2)
            .filter(|pair| {
                matches!(
                    pair[0].text.as_str(),
                    "-fprint" | "-fprint0" | "-fprintf" | "-fls"
                )
            })
            .map(|pair| Target::of(&pair[1]))
            .collect(),
        _ => Vec::new(),
    }
}

fn copy_destinations(program: &str, args: &[Word]) -> Vec<Target> {
    let (short, long): (&str, &[&str]) = match program {
        "install" => (
            "gmoSt",
            &["group", "mode", "owner", "suffix", "target-directory"],
        ),
        "scp" => ("cFiJlOoPSX", &[]),
        "rsync" => (
            "efBMT",
            &[
                "rsh",
                "filter",
                "exclude",
                "include",
                "temp-dir",
                "partial-dir",
                "backup-dir",
                "suffix",
                "chmod",
                "chown",
                "rsync-path",
                "log-file",
                "password-file",
            ],
        ),
        _ => ("St", &["suffix", "target-directory"]),
    };
    let (operands, values) = plain(args, short, long);
    let mut directory: Option<Word> = values
        .iter()
        .find(|(o, _)| o == "t" && program != "scp" || o == "target-directory")
        .map(|(_, w)| w.clone());
    if directory.is_none() {
        directory = args.iter().find_map(|w| {
            w.text.strip_prefix("--target-directory=").map(|d| Word {
                text: d.to_string(),
                ..w.clone()
            })
        });
    }
    let sources: Vec<&Target> = match &directory {
        Some(_) => operands.iter().collect(),
        None if operands.len() >= 2 => operands[..operands.len() - 1].iter().collect(),
        None => Vec::new(),
    };
    let destination = match directory {
        Some(d) => Some(Target::of(&d)),
        None if operands.len() >= 2 => operands.last().cloned(),
        None => None,
    };
    let mut out = Vec::new();
    if let Some(destination) = destination {
        // Each source lands as its own name inside a directory destination.
        for source in &sources {
            if let Some(name) = source.text.trim_end_matches('/').rsplit('/').next() {
                if !name.is_empty() && name != "." && name != ".." {
                    out.push(Target {
                        text: format!("{}/{name}", destination.text.trim_end_matches('/')),
                        literal: destination.literal && source.literal,
                        pattern: destination.pattern || source.pattern,
                        ..Target::of(&Word::literal(""))
                    });
                }
            }
        }
        out.push(Target {
            contents: true,
            ..destination
        });
    }
    // A link to a guarded file, or to a directory holding one, is a second
    // name to write it through: `ln`, and `cp -s`/`-l` (symbolic and hard
    // links instead of copies).
    let links = program == "ln"
        || program == "cp"
            && args.iter().any(|w| {
                matches!(w.text.as_str(), "--symbolic-link" | "--link")
                    || w.text.starts_with('-')
                        && !w.text.starts_with("--")
                        && w.text.contains(['s', 'l'])
            });
    if links {
        out.extend(sources.into_iter().cloned());
    }
    out
}

/// `git rm` and `git mv` delete and move their paths like `rm` and `mv`
/// (global options with a value, `-C dir` and `-c key=value`, skipped).
fn git_paths(args: &[Word]) -> Vec<Target> {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        match word.text.as_str() {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" => i += 2,
            t if t.starts_with('-') => i += 1,
            _ => break,
        }
    }
    match args.get(i).map(|w| w.text.as_str()) {
        Some("rm") => plain(&args[i + 1..], "", &["pathspec-from-file"]).0,
        Some("mv") => plain(&args[i + 1..], "", &[]).0,
        _ => Vec::new(),
    }
}

fn in_place_files(program: &str, args: &[Word]) -> Vec<Target> {
    let mut in_place = false;
    let mut code_given = false;
    let mut files = Vec::new();
    let mut i = 0;
    let mut options_done = false;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if !options_done && text == "--" {
            options_done = true;
            continue;
        }
        if !options_done && text.starts_with("--") {
            in_place |= text.starts_with("--in-place");
            if matches!(text, "--expression" | "--file") {
                code_given = true;
                i += 1;
            } else if text.starts_with("--expression=") || text.starts_with("--file=") {
                code_given = true;
            }
            continue;
        }
        if !options_done && text.len() > 1 && text.starts_with('-') {
            let code_letters = if program == "perl" { "eE" } else { "ef" };
            for (at, letter) in text[1..].char_indices() {
                let last = text.len() == 2 + at;
                if letter == 'i' {
                    // The rest of the cluster is the backup suffix.
                    in_place = true;
                    break;
                }
                if code_letters.contains(letter) {
                    code_given = true;
                    i += usize::from(last);
                    break;
                }
                if program != "perl" && letter == 'l' {
                    i += usize::from(last);
                    break;
                }
                if program == "perl" && "MmIlx0CdD".contains(letter) {
                    break;
                }
            }
            continue;
        }
        files.push(Target::of(word));
    }
    if !in_place {
        return Vec::new();
    }
    if !code_given && !files.is_empty() {
        files.remove(0);
    }
    files
}

fn download_outputs(args: &[Word]) -> Vec<Target> {
    let mut out = option_values(
        args,
        "oOaP",
        &[
            "output",
            "output-document",
            "output-file",
            "append-output",
            "directory-prefix",
        ],
    );
    // `curl -O` names the file after the URL; that only writes where the
    // command runs, never onto a given path.
    out.retain(|t| !t.text.is_empty() && !t.text.contains("://"));
    out
}

/// The values given to the options named by `short` letters (`-o f`,
/// `-of`, last in a cluster `-so f`) and `long` names (`--output f`,
/// `--output=f`), wherever they stand.
fn option_values(args: &[Word], short: &str, long: &[&str]) -> Vec<Target> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if let Some(name) = text.strip_prefix("--") {
            match name.split_once('=') {
                Some((name, value)) if long.contains(&name) => out.push(Target {
                    text: value.to_string(),
                    ..Target::of(word)
                }),
                None if long.contains(&name) => {
                    if let Some(value) = args.get(i) {
                        out.push(Target::of(value));
                        i += 1;
                    }
                }
                _ => {}
            }
            continue;
        }
        if !text.starts_with('-') {
            continue;
        }
        for (at, letter) in text[1..].char_indices() {
            if short.contains(letter) {
                let rest = &text[1 + at + letter.len_utf8()..];
                if rest.is_empty() {
                    if let Some(value) = args.get(i) {
                        out.push(Target::of(value));
                        i += 1;
                    }
                } else {
                    out.push(Target {
                        text: rest.to_string(),
                        ..Target::of(word)
                    });
                }
                break;
            }
        }
    }
    out
}

/// Files a program reads because an option or argument names them, other
/// than its operands: `curl -K`/`--config` (options, one per line), `wget
/// -i`/`--input-file` (URLs) and `--config`, `ssh`/`scp`/`sftp -F` (a
/// configuration), sqlite3's `-init` file, `.read`/`.import` dot-commands
/// and `readfile('...')`. Each quotes a line it cannot use in its error
/// message, so a credential file handed to one is printed. `xargs -a`
/// (`--arg-file`) hands the file's words to its command as arguments:
/// `xargs -a .env echo` prints them.
pub fn read_operands(program: &str, args: &[Word]) -> Vec<Target> {
    let mut found = match program {
        "curl" => {
            let mut found = option_values(args, "K", &["config"]);
            found.extend(file_urls(args));
            found
        }
        "xargs" => xargs_arg_files(args),
        "wget" => {
            let mut found = option_values(args, "i", &["input-file", "config"]);
            found.extend(file_urls(args));
            found
        }
        "ssh" | "scp" | "sftp" | "autossh" => option_values(args, "F", &[]),
        "sqlite3" => sqlite_reads(args),
        _ => return Vec::new(),
    };
    // `-` is standard input, which a redirection names where it matters.
    found.retain(|t| !t.text.is_empty() && t.text != "-");
    found
}

/// The local files `file://` URLs name (`curl file:///home/u/.ssh/id_rsa`
/// prints the key): the path after the scheme and an optional host
/// (`localhost`), with `%XX` escapes decoded as curl decodes them.
fn file_urls(args: &[Word]) -> Vec<Target> {
    args.iter()
        .filter_map(|word| {
            let text = word.text.as_str();
            let scheme = text.get(..5)?;
            if !scheme.eq_ignore_ascii_case("file:") {
                return None;
            }
            let rest = &text[5..];
            let path = match rest.strip_prefix("//") {
                // `file://host/path`: the path starts at the next `/`.
                Some(after) => &after[after.find('/')?..],
                None => rest,
            };
            Some(Target {
                text: percent_decoded(path),
                ..Target::of(word)
            })
        })
        .collect()
}

/// `text` with `%XX` escapes decoded; an escape that is not two hex digits
/// or decodes to invalid UTF-8 leaves the text as written.
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        match (
            bytes[i],
            bytes.get(i + 1).and_then(|b| hex(*b)),
            bytes.get(i + 2).and_then(|b| hex(*b)),
        ) {
            (b'%', Some(high), Some(low)) => {
                out.push((high * 16 + low) as u8);
                i += 3;
            }
            (byte, _, _) => {
                out.push(byte);
                i += 1;
            }
        }
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_string())
}

/// The files `xargs -a FILE` / `-aFILE` / `--arg-file[=]FILE` (or any
/// prefix of it, `--arg=FILE`, as getopt_long reads it) names, among
/// xargs' own options: the command it runs has options of its own
/// (`xargs grep -a x`), which are not xargs'.
fn xargs_arg_files(args: &[Word]) -> Vec<Target> {
    let mut out = Vec::new();
    let is_arg_file = |name: &str| !name.is_empty() && "arg-file".starts_with(name);
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if text == "--" || !text.starts_with('-') || text == "-" {
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            match long.split_once('=') {
                Some((name, value)) if is_arg_file(name) => out.push(Target {
                    text: value.to_string(),
                    ..Target::of(word)
                }),
                Some(_) => {}
                None if is_arg_file(long) => {
                    out.extend(args.get(i).map(Target::of));
                    i += 1;
                }
                None => {
                    if XARGS_LONG.takes(long) == Takes::Value {
                        i += 1;
                    }
                }
            }
            continue;
        }
        let cluster = &text[1..];
        for (at, letter) in cluster.char_indices() {
            // `-e[EOF]`, `-i[R]`, `-l[N]` take the rest of the word, if any.
            if matches!(letter, 'e' | 'i' | 'l') {
                break;
            }
            if !XARGS_SHORT_VALUES.contains(letter) {
                continue;
            }
            let rest = &cluster[at + letter.len_utf8()..];
            let value = if rest.is_empty() {
                i += 1;
                args.get(i - 1).map(Target::of)
            } else {
                Some(Target {
                    text: rest.to_string(),
                    ..Target::of(word)
                })
            };
            if letter == 'a' {
                out.extend(value);
            }
            break;
        }
    }
    out
}

/// The files sqlite3 is told to read: `-init FILE`, and in any argument
/// (SQL or a dot-command, also `-cmd`'s), `.read FILE`, `.import [--opts]
/// FILE TABLE` and the CLI's `readfile('FILE')` function.
fn sqlite_reads(args: &[Word]) -> Vec<Target> {
    let mut out = Vec::new();
    let at = |word: &Word, text: &str| Target {
        text: text.to_string(),
        ..Target::of(word)
    };
    for (i, word) in args.iter().enumerate() {
        let text = word.text.trim_start();
        if matches!(text, "-init" | "--init") {
            out.extend(args.get(i + 1).map(Target::of));
        }
        let mut rest = text;
        while let Some(start) = rest.find("readfile(") {
            rest = &rest[start + "readfile(".len()..];
            let inner = rest.trim_start();
            if let Some(quote @ ('\'' | '"')) = inner.chars().next() {
                if let Some(end) = inner[1..].find(quote) {
                    out.push(at(word, &inner[1..1 + end]));
                }
            }
        }
        for line in text.lines() {
            let mut tokens = line.split_whitespace();
            let file = match tokens.next() {
                Some(".read") => tokens.next(),
                Some(".import") => tokens.find(|t| !t.starts_with('-')),
                _ => None,
            };
            if let Some(file) = file {
                out.push(at(word, file.trim_matches(['\'', '"'])));
            }
        }
    }
    out
}

fn extract_destination(program: &str, args: &[Word]) -> Vec<Target> {
    let mut directory: Option<Target> = None;
    let mut extracting = matches!(program, "unzip");
    for (i, word) in args.iter().enumerate() {
        let text = word.text.as_str();
        if let Some(d) = text.strip_prefix("--directory=") {
            directory = Some(Target {
                text: d.to_string(),
                ..Target::of(word)
            });
        }
        if matches!(text, "-C" | "--directory" | "-d") {
            directory = args.get(i + 1).map(Target::of);
        }
        if program.starts_with("7z") && text.starts_with("-o") {
            directory = Some(Target {
                text: text[2..].to_string(),
                ..Target::of(word)
            });
        }
        let first = i == 0 && !text.starts_with('-');
        if text == "--extract"
            || text == "--get"
            || text == "x" && program.starts_with("7z")
            || (text.starts_with('-') && !text.starts_with("--") || first) && text.contains('x')
        {
            extracting = true;
        }
    }
    if !extracting {
        return Vec::new();
    }
    vec![Target {
        contents: true,
        ..directory.unwrap_or_else(|| Target::of(&Word::literal(".")))
    }]
}

/// Operands of a getopt-style command, and the values of options that
/// take one (`short_value` letters, `long_value` names) as (option, word).
fn plain(
    args: &[Word],
    short_value: &str,
    long_value: &[&str],
) -> (Vec<Target>, Vec<(String, Word)>) {
    let mut found = Vec::new();
    let mut values = Vec::new();
    let mut options_done = false;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        let text = word.text.as_str();
        if !options_done && !word.literal && text.starts_with('-') {
            // `-rf${IFS}/`: an expansion inside an option word may split
            // into more words at run time, operands among them.
            found.push(Target::unknown(text));
        }
        if options_done
            || !word.literal && !text.starts_with('-')
            || !text.starts_with('-')
            || text == "-"
        {
            found.push(Target::of(word));
            continue;
        }
        if text == "--" && word.literal {
            options_done = true;
            continue;
        }
        if let Some(long) = text.strip_prefix("--") {
            if !long.contains('=') && long_value.contains(&long) {
                if let Some(value) = args.get(i) {
                    values.push((long.to_string(), value.clone()));
                }
                i += 1;
            }
            continue;
        }
        for (at, letter) in text[1..].char_indices() {
            if short_value.contains(letter) {
                let rest = &text[1 + at + letter.len_utf8()..];
                if rest.is_empty() {
                    if let Some(value) = args.get(i) {
                        values.push((letter.to_string(), value.clone()));
                    }
                    i += 1;
                } else {
                    values.push((
                        letter.to_string(),
                        Word {
                            text: rest.to_string(),
                            ..word.clone()
                        },
                    ));
                }
                break;
            }
        }
    }
    (found, values)
}

/// find's starting points: the words before the expression (after the
/// `-H`, `-L`, `-P`, `-D opts`, `-O level` options); `.` when none. What
/// lies in them is acted on; so is each of them itself when a deleting
/// action runs for files no test picks (`find /tmp -delete` is `rm -rf
/// /tmp`, see `find_expr`).
fn find_starting_points(args: &[Word]) -> Vec<Target> {
    let mut i = 0;
    while let Some(text) = args.get(i).map(|w| w.text.as_str()) {
        match text {
            "-H" | "-L" | "-P" => i += 1,
            "-D" => i += 2,
            _ if text.starts_with("-O") => i += 1,
            _ => break,
        }
    }
    let rest = &args[i.min(args.len())..];
    let count = rest
        .iter()
        .take_while(|w| !(w.text.starts_with('-') || matches!(w.text.as_str(), "(" | "!" | ",")))
        .count();
    let dot = [Word::literal(".")];
    let points = if count == 0 { &dot[..] } else { &rest[..count] };
    let itself = find_expr::deletes_beyond_its_tests(&rest[count..]);
    points
        .iter()
        .flat_map(|w| {
            let inside = Target {
                contents: true,
                ..Target::of(w)
            };
            let whole = itself.then(|| Target::of(w));
            std::iter::once(inside).chain(whole)
        })
        .collect()
}

/// Where a target lies, from the most to the least dangerous.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum TargetClass {
    /// `/` or everything in it (`/*`).
    Root,
    /// The home directory, its contents as a whole (`~/*`), or a directory holding it (`/home`).
    Home,
    /// System directories (`/etc`, `/usr`, `/var`, `/dev`, ...) and what is in them.
    System,
    /// The project root itself, a directory holding it (`..`), or every
    /// entry at its top (`*`, `./*`, `*/`).
    ProjectRoot,
    /// The project's `.git` directory or anything in a `.git` inside the project.
    GitDir,
    /// Inside the project (not its root, not `.git`).
    InsideProject,
    /// Inside a temporary directory (`/tmp/x`, `/var/tmp/x`, `/dev/shm/x`, macOS `/private/var/folders/...`).
    Temp,
    /// Anywhere else (another project, a file in the home directory).
    Outside,
    /// Not known before the command runs: a variable, a substitution,
    /// input given to `xargs`, another user's home.
    Unknown,
}

impl TargetClass {
    pub fn as_str(self) -> &'static str {
        match self {
            TargetClass::Root => "root",
            TargetClass::Home => "home",
            TargetClass::System => "system",
            TargetClass::ProjectRoot => "project_root",
            TargetClass::GitDir => "git_dir",
            TargetClass::InsideProject => "inside_project",
            TargetClass::Temp => "temp",
            TargetClass::Outside => "outside",
            TargetClass::Unknown => "unknown",
        }
    }
}

/// A target resolved against a project root and home.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ResolvedTarget {
    /// As written.
    pub raw: String,
    /// Absolute and normalised; for a pattern, the directory it matches in;
    /// empty when unknown.
    pub path: String,
    pub class: TargetClass,
    /// For a pattern, what follows `path` (`.c*/settings.json`); else empty.
    #[serde(skip)]
    pub rest: String,
    /// The command acts on what lies inside `path` (see [`Target::contents`]).
    #[serde(skip)]
    pub contents: bool,
}

const TEMP_DIRS: &[&str] = &[
    "/tmp",
    "/var/tmp",
    "/dev/shm",
    "/private/tmp",
    "/private/var/tmp",
    "/private/var/folders",
    "/var/folders",
];

const SYSTEM_TOP: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "opt",
    "proc",
    "root",
    "run",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "snap",
    "nix",
    "System",
    "Library",
    "Applications",
    "private",
    "cores",
    "mnt",
    "media",
    "lost+found",
    "tmp",
    "home",
    "Users",
    "Volumes",
];

/// How bad a class is, to pick the one resolution that stands for all.
fn severity(class: TargetClass) -> u8 {
    match class {
        TargetClass::Root => 0,
        TargetClass::Home => 1,
        TargetClass::System => 2,
        TargetClass::ProjectRoot => 3,
        TargetClass::GitDir => 4,
        TargetClass::Unknown => 5,
        TargetClass::Outside => 6,
        TargetClass::Temp => 7,
        TargetClass::InsideProject => 8,
    }
}

/// Resolve `target` against the project `root` and `home`: of the places
/// it may name (one per directory the command may run in), the worst.
pub fn resolve(target: &Target, root: &str, home: Option<&str>) -> ResolvedTarget {
    let mut all = resolve_all(target, root, home);
    let at = all
        .iter()
        .enumerate()
        .min_by_key(|(_, r)| severity(r.class))
        .map_or(0, |(i, _)| i);
    all.swap_remove(at)
}

/// Every place `target` may name: one per directory its command may run
/// in (never empty).
pub fn resolve_all(target: &Target, root: &str, home: Option<&str>) -> Vec<ResolvedTarget> {
    let places: &[Place] = if target.cwd.0.is_empty() {
        &[Place::Start]
    } else {
        &target.cwd.0
    };
    places
        .iter()
        .map(|place| resolve_in(target, place, root, home))
        .collect()
}

fn resolve_in(target: &Target, place: &Place, root: &str, home: Option<&str>) -> ResolvedTarget {
    let unknown = || ResolvedTarget {
        raw: target.text.clone(),
        path: String::new(),
        class: TargetClass::Unknown,
        rest: String::new(),
        contents: target.contents,
    };
    if target.place_unknown && (!target.literal || target.text.starts_with('~')) {
        return unknown();
    }
    let Some(text) = expand_known_variables(target, root, place) else {
        return unknown();
    };
    let mut pattern = target.pattern;
    let text = if text.starts_with('/') || text == "~" || text.starts_with("~/") {
        text
    } else {
        match place {
            Place::Start => text,
            // Relative to a directory the line changed to; a glob there
            // (`cd ~/.cl*`) makes the whole path a pattern.
            Place::Dir(dir) => {
                pattern |= dir.contains(['*', '?', '[']);
                format!("{}/{text}", dir.trim_end_matches('/'))
            }
            Place::Unknown => return unknown(),
        }
    };
    if target.place_unknown && text.starts_with('~') {
        return unknown();
    }
    if text.starts_with('~') && !(text == "~" || text.starts_with("~/")) {
        // `~name`: another user's home, not known lexically.
        return unknown();
    }
    if text.starts_with('~') && home.is_none() {
        return unknown();
    }
    if is_windows_user_temp(&text) {
        return ResolvedTarget {
            raw: target.text.clone(),
            path: text,
            class: TargetClass::Temp,
            rest: String::new(),
            contents: target.contents,
        };
    }
    if is_remote(&text) {
        return ResolvedTarget {
            raw: target.text.clone(),
            path: text,
            class: TargetClass::Outside,
            rest: String::new(),
            contents: target.contents,
        };
    }
    let root = paths::normalize(root, "/", None);
    let home = home.map(|h| paths::normalize(h, "/", None));
    let home = home.as_deref();
    if pattern {
        let (dir, first_glob) = split_pattern(&text);
        let rest = pattern_rest(&text, dir);
        let dir = paths::normalize(dir, &root, home);
        let mut class = contents_class(&dir, &root, home);
        if class == TargetClass::InsideProject && dir == root {
            // `rm -rf *` at the root leaves the project empty but for its
            // dot files: the root itself, as far as the project goes (what
            // lies inside each entry, `find * -name x`, is not).
            if !target.contents && covers_every_entry(&rest) {
                class = TargetClass::ProjectRoot;
            } else if may_match_git(first_glob) {
                class = TargetClass::GitDir;
            }
        }
        return ResolvedTarget {
            raw: target.text.clone(),
            path: dir,
            class,
            rest,
            contents: true,
        };
    }
    let path = paths::normalize(&text, &root, home);
    let class = if target.contents {
        contents_class(&path, &root, home)
    } else {
        path_class(&path, &root, home)
    };
    ResolvedTarget {
        raw: target.text.clone(),
        path,
        class,
        rest: String::new(),
        contents: target.contents,
    }
}

/// The part of a pattern after the directory `split_pattern` found.
fn pattern_rest(text: &str, dir: &str) -> String {
    if dir == "." && !text.starts_with("./") {
        return text.to_string();
    }
    text.get(dir.len()..)
        .unwrap_or("")
        .trim_start_matches('/')
        .to_string()
}

/// The text with `$HOME`, `$PWD` (or `$(pwd)`, the same directory) and
/// `$TMPDIR` at its start spelled out (`~`, the root, `/tmp`); `None` when
/// other expansions remain. A line that could make `pwd` print something
/// else marks the target `place_unknown` (see `analyzer`).
fn expand_known_variables(target: &Target, root: &str, place: &Place) -> Option<String> {
    if target.literal {
        return Some(target.text.clone());
    }
    let text = target.text.as_str();
    // `$PWD` is where the command runs: the root, or `.` of the directory
    // the line changed to.
    let pwd = match place {
        Place::Start => root,
        _ => ".",
    };
    // `${TMPDIR:-/tmp}`: the temp directory either way.
    for default in ["${TMPDIR:-/tmp}", "${TMPDIR-/tmp}", "${TMPDIR:-/var/tmp}"] {
        if let Some(rest) = text.strip_prefix(default) {
            let clean = !rest.contains(['$', '`']) && (rest.is_empty() || rest.starts_with('/'));
            return clean.then(|| format!("/tmp{rest}"));
        }
    }
    for (names, value) in [
        (["$HOME", "${HOME}"], "~"),
        (["$PWD", "${PWD}"], pwd),
        (["$(pwd)", "`pwd`"], pwd),
        (["$TMPDIR", "${TMPDIR}"], "/tmp"),
    ] {
        for name in names {
            if let Some(rest) = text.strip_prefix(name) {
                let clean =
                    !rest.contains(['$', '`']) && (rest.is_empty() || rest.starts_with('/'));
                return clean.then(|| format!("{value}{rest}"));
            }
        }
    }
    None
}

/// Something inside a Windows user's temp folder, as Windows, Git Bash,
/// Cygwin or WSL spell it (`C:\\Users\\me\\AppData\\Local\\Temp\\x`,
/// `C:/Users/...`, `/c/Users/...`, `/cygdrive/c/...`, `/mnt/c/...`): the
/// counterpart of `/tmp/x`, where builds and tests leave scratch files.
/// Case is ignored, as on Windows. The folder itself does not count, nor a
/// path that climbs out with `..` or a pattern in the folders above it.
fn is_windows_user_temp(text: &str) -> bool {
    let lower = text.to_ascii_lowercase().replace('\\', "/");
    let after_drive = |rest: &str, sep: &[u8]| -> Option<usize> {
        let b = rest.as_bytes();
        (b.len() > sep.len() && b[0].is_ascii_alphabetic() && b[1..=sep.len()] == *sep)
            .then_some(sep.len() + 1)
    };
    let unix_drive = ["/mnt/", "/cygdrive/", "/"]
        .iter()
        .find_map(|prefix| lower.strip_prefix(prefix))
        .and_then(|rest| after_drive(rest, b"/").map(|at| &rest[at..]));
    let Some(inside) = unix_drive.or_else(|| after_drive(&lower, b":/").map(|at| &lower[at..]))
    else {
        return false;
    };
    let parts: Vec<&str> = inside
        .split('/')
        .filter(|p| !p.is_empty() && *p != ".")
        .collect();
    parts.len() > 5
        && parts[0] == "users"
        && parts[2..5] == ["appdata", "local", "temp"]
        && !parts.contains(&"..")
        && !parts[..5].iter().any(|p| p.contains(['*', '?', '[', '{']))
}

/// `host:path` or `user@host:path` (rsync and scp destinations).
fn is_remote(text: &str) -> bool {
    match text.split_once(':') {
        Some((host, _)) => {
            !host.is_empty()
                && !host.starts_with('~')
                && host
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '_' | '@'))
        }
        None => false,
    }
}

/// The directory before the first component holding a glob or brace
/// character, and that component.
fn split_pattern(text: &str) -> (&str, &str) {
    let glob_at = text.find(['*', '?', '[', '{']).unwrap_or(text.len());
    let dir_end = text[..glob_at].rfind('/');
    let (dir, rest) = match dir_end {
        Some(0) => ("/", &text[1..]),
        Some(end) => (&text[..end], &text[end + 1..]),
        None => (".", text),
    };
    let component = rest.split('/').next().unwrap_or(rest);
    (dir, component)
}

/// True when the glob component may match `.git`: bash's globs only
/// match a leading dot written out, so `*` does not but `.*` and `.g?t` do.
fn may_match_git(component: &str) -> bool {
    if component.contains('{') {
        // Brace alternatives: any alternative naming `.git` or starting with a dot.
        return component.contains(".");
    }
    component.starts_with('.') && glob_matches(component.as_bytes(), b".git")
}

/// A small glob matcher (`*`, `?`, `[...]`) for one component.
fn glob_matches(pattern: &[u8], name: &[u8]) -> bool {
    match (pattern.first(), name.first()) {
        (None, None) => true,
        (Some(b'*'), _) => {
            glob_matches(&pattern[1..], name)
                || (!name.is_empty() && glob_matches(pattern, &name[1..]))
        }
        (Some(b'?'), Some(_)) => glob_matches(&pattern[1..], &name[1..]),
        (Some(b'['), Some(&c)) => match pattern.iter().position(|&b| b == b']') {
            Some(end) if end > 1 => {
                let set = &pattern[1..end];
                let (negated, set) = match set.first() {
                    Some(b'!' | b'^') => (true, &set[1..]),
                    _ => (false, set),
                };
                (set.contains(&c) != negated) && glob_matches(&pattern[end + 1..], &name[1..])
            }
            _ => c == b'[' && glob_matches(&pattern[1..], &name[1..]),
        },
        (Some(&p), Some(&c)) => p == c && glob_matches(&pattern[1..], &name[1..]),
        _ => false,
    }
}

fn within(path: &str, dir: &str) -> bool {
    paths::is_within(path, dir)
}

/// Class of a path that is acted on itself.
fn path_class(path: &str, root: &str, home: Option<&str>) -> TargetClass {
    if path == root {
        return TargetClass::ProjectRoot;
    }
    // Home, `/` and the top system directories stay what they are even when
    // the project holds them (a project root of `/` or `/home`): being inside
    // the project must not make `rm -rf ~` routine.
    if path == "/" {
        return TargetClass::Root;
    }
    if let Some(home) = home {
        if path == home || within(home, path) {
            return TargetClass::Home;
        }
        // A home the project holds (an agent started in `/`, `/home` or a
        // directory above its home) keeps the user's files, not the
        // project's: `rm -rf ~/.ssh` is not cleanup there either.
        if home != root && within(home, root) && within(path, home) {
            return TargetClass::Outside;
        }
    }
    if root == "/" && is_system_path(path) {
        return TargetClass::System;
    }
    if within(path, root) {
        let inside = path[root.len()..].trim_start_matches('/');
        return if inside.split('/').any(|c| c == ".git") {
            TargetClass::GitDir
        } else {
            TargetClass::InsideProject
        };
    }
    if within(root, path) {
        return TargetClass::ProjectRoot;
    }
    if TEMP_DIRS.iter().any(|t| within(path, t) && path != *t) {
        return TargetClass::Temp;
    }
    // The user's own files, also where the home lies in a system directory
    // (root's `/root`, a service account's `/var/lib/jenkins`): `rm
    // ~/notes.txt` there is what it is under `/home/u`.
    if home.is_some_and(|home| home != "/" && within(path, home)) {
        return TargetClass::Outside;
    }
    if is_system_path(path) {
        TargetClass::System
    } else {
        TargetClass::Outside
    }
}

/// A system directory or what it holds (`/usr/lib`, `/etc/hosts`), or the
/// folder of all homes or mounts itself (`/home`, `/Users`, `/mnt`).
fn is_system_path(path: &str) -> bool {
    let mut parts = path.split('/').filter(|p| !p.is_empty());
    let top = parts.next().unwrap_or("");
    match top {
        "home" | "Users" | "Volumes" | "mnt" | "media" => parts.next().is_none(),
        _ => SYSTEM_TOP.contains(&top),
    }
}

/// Class of what lies inside directory `dir` (a glob's matches, find's
/// files): the project root's contents are inside the project, a temp
/// directory's contents are temporary, the rest is as the directory.
fn contents_class(dir: &str, root: &str, home: Option<&str>) -> TargetClass {
    // A project rooted at home does not make `rm -rf ~/*` routine.
    if Some(dir) == home {
        return TargetClass::Home;
    }
    if dir == root {
        return TargetClass::InsideProject;
    }
    if TEMP_DIRS.contains(&dir) {
        return TargetClass::Temp;
    }
    path_class(dir, root, home)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(text: &str) -> TargetClass {
        let analysis = crate::shell::analyze(&format!("rm -rf {text}"));
        let target = &analysis.commands[0].targets[0];
        resolve(target, "/home/u/proj", Some("/home/u")).class
    }

    /// `$(pwd)` names the directory `rm` runs in, followed through `cd`,
    /// unless the line can make `pwd` print something else.
    #[test]
    fn pwd_substitution_is_where_the_command_runs() {
        use TargetClass::*;
        for (line, want) in [
            ("rm -rf \"$(pwd)/build\"", InsideProject),
            ("cd /tmp && rm -rf $(pwd)/x", Temp),
            ("cd / && rm -rf `pwd`/usr", System),
            ("pwd() { echo /; }; rm -rf $(pwd)/usr", Unknown),
            ("enable -n pwd; rm -rf $(pwd)/build", Unknown),
            ("PWD=/ rm -rf $(pwd)/build", Unknown),
        ] {
            let analysis = crate::shell::analyze(line);
            let rm = analysis
                .commands
                .iter()
                .find(|c| c.program == "rm")
                .unwrap();
            let got = resolve(&rm.targets[0], "/home/u/proj", Some("/home/u")).class;
            assert_eq!(got, want, "{line}");
        }
    }

    /// Home, `/` and system directories keep their class when the project
    /// root holds them (an agent started in `/`, `/home` or the home itself).
    #[test]
    fn a_project_holding_home_or_the_system_does_not_make_them_routine() {
        use TargetClass::*;
        let class_in = |text: &str, root: &str| {
            let analysis = crate::shell::analyze(&format!("rm -rf {text}"));
            let target = &analysis.commands[0].targets[0];
            resolve(target, root, Some("/home/u")).class
        };
        for (text, root, want) in [
            ("~", "/home", Home),
            ("~", "/", Home),
            ("/home/u", "/home", Home),
            ("/home", "/", Home),
            ("/usr", "/", System),
            ("/etc/hosts", "/", System),
            ("/", "/", ProjectRoot),
            ("~/*", "/home/u", Home),
            ("*", "/home/u", Home),
            // What the home holds is the user's, not the project's.
            ("~/proj/build", "/home", Outside),
            ("~/.ssh", "/home", Outside),
            ("/home/u/.aws", "/", Outside),
            ("~/proj/build", "/home/u/proj", InsideProject),
            ("/home/other/build", "/home", InsideProject),
            ("/work/app/build", "/", InsideProject),
            ("/home/u/proj/build", "/home/u/proj", InsideProject),
        ] {
            assert_eq!(class_in(text, root), want, "rm -rf {text} in {root}");
        }
    }

    #[test]
    fn classes_of_rm_operands() {
        use TargetClass::*;
        for (text, want) in [
            ("node_modules", InsideProject),
            ("./target", InsideProject),
            ("src/../dist", InsideProject),
            ("/home/u/proj/build", InsideProject),
            (".", ProjectRoot),
            ("./", ProjectRoot),
            ("/home/u/proj", ProjectRoot),
            ("..", Home),
            ("../..", Home),
            (".git", GitDir),
            ("./.git/", GitDir),
            ("sub/.git/objects", GitDir),
            ("/", Root),
            ("/*", Root),
            ("~", Home),
            ("~/", Home),
            ("$HOME", Home),
            ("${HOME}", Home),
            ("~/*", Home),
            ("/home", Home),
            ("/home/u/other", Outside),
            ("~/Documents", Outside),
            ("/etc", System),
            ("/usr/local/lib", System),
            ("/tmp", System),
            ("/tmp/x", Temp),
            ("/tmp/*", Temp),
            ("$TMPDIR/build", Temp),
            ("\"${TMPDIR:-/tmp}/myapp-test\"", Temp),
            ("${TMPDIR-/tmp}/x", Temp),
            ("${TMPDIR:-/home/u}/x", Unknown),
            ("/var/tmp/cache", Temp),
            ("/srv/data", System),
            ("/opt2", Outside),
            ("*", ProjectRoot),
            ("./*", ProjectRoot),
            ("\"$PWD\"/*", ProjectRoot),
            ("*/", ProjectRoot),
            ("{*,.git}", ProjectRoot),
            ("../proj/*", ProjectRoot),
            ("*.pyc", InsideProject),
            ("src/*", InsideProject),
            ("*/node_modules", InsideProject),
            ("build/*.o", InsideProject),
            (".*", GitDir),
            ("{a,.git}", GitDir),
            ("$DIR", Unknown),
            ("\"$(pwd)\"", ProjectRoot),
            ("$(pwd)/build", InsideProject),
            ("`pwd`/../other", Outside),
            ("$(pwd -P)/build", Unknown),
            ("$(pwd)$X", Unknown),
            ("~root/x", Unknown),
            ("$HOME/$X", Unknown),
            ("host:/backup", Outside),
        ] {
            assert_eq!(class(text), want, "{text}");
        }
    }

    /// A home inside a system directory holds the user's files, not the
    /// system's; the home itself and the system around it stay what they are.
    #[test]
    fn a_home_in_a_system_directory_holds_the_users_files() {
        use TargetClass::*;
        for (home, text, want) in [
            ("/root", "~/notes.txt", Outside),
            ("/root", "~/.cache/pip", Outside),
            ("/root", "/root/project-b/x", Outside),
            ("/root", "~", Home),
            ("/root", "/root", Home),
            ("/root", "/etc/hosts", System),
            ("/var/lib/jenkins", "~/workspace/old", Outside),
            ("/var/lib/jenkins", "/var/lib/dpkg", System),
            ("/var/lib/jenkins", "/var/lib", Home),
            ("/root", "/srv/app/build", InsideProject),
        ] {
            let analysis = crate::shell::analyze(&format!("rm -rf {text}"));
            let target = &analysis.commands[0].targets[0];
            assert_eq!(
                resolve(target, "/srv/app", Some(home)).class,
                want,
                "{home}: {text}"
            );
        }
    }

    /// A Windows user's temp folder is what `/tmp` is on Unix, in every
    /// spelling a shell on Windows sees; the folder itself, a climb out of
    /// it and its neighbours are not.
    #[test]
    fn windows_user_temp_folders_are_temp() {
        use TargetClass::*;
        for (text, want) in [
            ("/c/Users/u/AppData/Local/Temp/some/subdir/file", Temp),
            ("/C/users/U/appdata/local/temp/x", Temp),
            ("'C:\\Users\\u\\AppData\\Local\\Temp\\x'", Temp),
            ("'C:\\Users\\u\\AppData\\Local\\TEMP\\build'", Temp),
            ("C:/Users/u/AppData/Local/Temp/scratch", Temp),
            ("/mnt/c/Users/u/AppData/Local/Temp/x", Temp),
            ("/cygdrive/c/Users/u/AppData/Local/Temp/x", Temp),
            ("C:/Users/u/AppData/Local/Temp/*", Temp),
            ("C:/Users/u/AppData/Local/Temp", Outside),
            ("/c/Users/u/AppData/Local/Temp/", Outside),
            ("/c/Users/u/AppData/Local/Temp/..", Outside),
            ("/c/Users/u/AppData/Local/Temp/x/../../../Roaming", Outside),
            ("/c/Users/*/AppData/Local/Temp/x", Outside),
            ("/c/Users/u/AppData/Local/Tempest/x", Outside),
            ("/c/Users/u/AppData/Roaming/x", Outside),
            ("/c/Users/u/Documents/Temp/x", Outside),
            ("C:/Windows/Temp/x", Outside),
            ("/cc/Users/u/AppData/Local/Temp/x", Outside),
            ("/home/u/Users/u/AppData/Local/Temp/x", Outside),
        ] {
            assert_eq!(class(text), want, "{text}");
        }
    }

    #[test]
    fn the_file_xargs_takes_its_arguments_from_is_read() {
        let reads = |line: &str| -> Vec<String> {
            let a = crate::shell::analyze(line);
            a.commands[0].reads.iter().map(|t| t.text.clone()).collect()
        };
        for line in [
            "xargs -a .env echo",
            "xargs -a.env echo",
            "xargs -0a .env echo",
            "xargs -n1 -a .env echo",
            "xargs --arg-file=.env cat",
            "xargs --arg-file .env cat",
            "xargs --arg=.env cat",
            "xargs --max-procs 4 --a .env cat",
        ] {
            assert_eq!(reads(line), [".env"], "{line}");
        }
        // The command's own options, and values of xargs' others, are not.
        for line in [
            "xargs grep -a x",
            "xargs -I a cat a",
            "xargs -E a echo",
            "xargs -ia cat a",
            "xargs -- cat -a .env",
        ] {
            assert!(reads(line).is_empty(), "{line}");
        }
    }

    #[test]
    fn operands_skip_options_and_their_values() {
        let targets = |line: &str| -> Vec<(String, bool)> {
            let a = crate::shell::analyze(line);
            a.commands[0]
                .targets
                .iter()
                .map(|t| (t.text.clone(), t.contents))
                .collect()
        };
        let t = |s: &str, c: bool| (s.to_string(), c);
        assert_eq!(targets("rm -rf -- -x y"), [t("-x", false), t("y", false)]);
        assert_eq!(
            targets("chmod -R 777 /etc a"),
            [t("/etc", false), t("a", false)]
        );
        assert_eq!(targets("chown --reference=x -R /srv"), [t("/srv", false)]);
        assert_eq!(
            targets("mv -t /etc a b"),
            [t("a", false), t("b", false), t("/etc", false)]
        );
        assert_eq!(
            targets("rsync -av --delete --exclude .git src/ /backup/"),
            [t("/backup/", false)]
        );
        assert_eq!(
            targets("dd if=/dev/zero of=/dev/sda bs=1M"),
            [t("/dev/sda", false)]
        );
        assert_eq!(targets("truncate -s 0 log.txt"), [t("log.txt", false)]);
        assert_eq!(targets("shred -n 3 -u secret"), [t("secret", false)]);
        assert_eq!(targets("find -L / -name x -delete"), [t("/", true)]);
        assert_eq!(targets("find -name '*.pyc' -delete"), [t(".", true)]);
        assert!(targets("ls -la /").is_empty());
    }

    #[test]
    fn find_contents_at_the_project_root_are_inside_it() {
        let a = crate::shell::analyze("find . -name '*.pyc' -exec rm -f {} +");
        for command in &a.commands {
            for target in &command.targets {
                let r = resolve(target, "/p", Some("/h"));
                assert_eq!(r.class, TargetClass::InsideProject, "{command:?}");
            }
        }
        assert_eq!(a.commands[1].targets.len(), 1);
        let a = crate::shell::analyze("find ~ -type f -exec rm {} \\;");
        let r = resolve(&a.commands[1].targets[0], "/p", Some("/h"));
        assert_eq!(r.class, TargetClass::Home);
    }

    /// A find whose deleting action no test guards deletes its starting
    /// point itself too: at a temp directory's top that is `rm -rf /tmp`.
    #[test]
    fn a_find_deleting_beyond_its_tests_acts_on_its_starting_point() {
        let classes = |line: &str| -> Vec<TargetClass> {
            let a = crate::shell::analyze(line);
            (a.commands[0].targets.iter())
                .map(|t| resolve(t, "/p", Some("/h")).class)
                .collect()
        };
        use TargetClass::*;
        for (line, want) in [
            ("find /tmp -delete", vec![Temp, System]),
            ("find /tmp -delete -name x", vec![Temp, System]),
            (
                "find . -name x -o -exec rm -rf {} +",
                vec![InsideProject, ProjectRoot],
            ),
            ("find /tmp/build -delete", vec![Temp, Temp]),
            ("find /tmp -name 'app-*' -delete", vec![Temp]),
            ("find . -exec grep -l x {} +", vec![InsideProject]),
            ("find * -name '*.pyc' -delete", vec![InsideProject]),
        ] {
            assert_eq!(classes(line), want, "{line}");
        }
    }
}
