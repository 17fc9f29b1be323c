//! PowerShell code (`pwsh -c`, `powershell -Command`, `-EncodedCommand`).
//!
//! PowerShell is a shell: a statement is a command and its arguments, and
//! the command is a cmdlet, an alias or a native program. Native programs
//! are handed back as commands, so `pwsh -c "git reset --hard"` meets the
//! git rules; the cmdlets that delete, write, start programs or run more
//! code are handed back as the command that does the same (`Remove-Item
//! -Recurse -Force ~`, and its aliases `rm -r -fo ~`, `ri`, `del`, as `rm
//! -r -f -- ~`). `-EncodedCommand` (base64 of UTF-16LE text) is decoded and
//! read; what cannot be decoded is reported as unreadable, as code only
//! known at run time is.

use super::super::launchers::{Launch, Nested};
use super::super::words::Word;
use super::super::OpaqueKind;
use super::urls;

mod dotnet;

/// Deepest `{...}`, `(...)`, `$(...)` and `Invoke-Expression` nesting followed.
const MAX_DEPTH: usize = 16;

/// Where `pwsh`/`powershell` take their code.
pub enum Source {
    Code(Vec<Word>),
    Stdin,
    Elsewhere,
    /// Code given in a form that cannot be read (why).
    Unreadable(String),
}

/// Parameters of the PowerShell executables that take a value.
const VALUED: &[&str] = &[
    "executionpolicy",
    "ex",
    "ep",
    "configurationname",
    "config",
    "custompipename",
    "inputformat",
    "inp",
    "if",
    "outputformat",
    "o",
    "of",
    "windowstyle",
    "w",
    "workingdirectory",
    "wd",
    "settingsfile",
    "psconsolefile",
    "encodedarguments",
    "ea",
    "configurationfile",
];

/// The code `pwsh`/`powershell` run: `-Command` (`-c`) takes every word
/// after it; `-EncodedCommand` (`-e`, `-ec`, `-enc`) base64 text;
/// `-File` a script. A first word that is not a parameter is a script for
/// pwsh and a command for Windows PowerShell. Parameters are written with
/// `-` or `/`, in any case.
pub fn options(program: &str, args: &[Word]) -> (Source, &'static str) {
    let mut i = 0;
    while let Some(word) = args.get(i) {
        if !word.literal {
            return (Source::Code(args[i..].to_vec()), "-Command");
        }
        let Some(name) = word
            .text
            .strip_prefix('-')
            .or_else(|| word.text.strip_prefix('/'))
            .filter(|n| !n.is_empty())
        else {
            break;
        };
        let name = name.to_ascii_lowercase();
        let name = name.split(':').next().unwrap_or(&name).to_string();
        if matches!(
            name.as_str(),
            "c" | "command" | "com" | "comm" | "comma" | "comman" | "commandwithargs" | "cwa"
        ) {
            return match args.get(i + 1) {
                Some(first) if args.len() == i + 2 && first.text == "-" => (Source::Stdin, ""),
                Some(_) => (Source::Code(args[i + 1..].to_vec()), "-Command"),
                None => (Source::Elsewhere, ""),
            };
        }
        if "encodedcommand".starts_with(&name) || name == "ec" {
            let Some(encoded) = args.get(i + 1) else {
                return (Source::Elsewhere, "");
            };
            if !encoded.literal {
                return (
                    Source::Unreadable(format!(
                        "`{program} -EncodedCommand` runs code only known at run time"
                    )),
                    "",
                );
            }
            return match decode_utf16le_base64(&encoded.text) {
                Some(code) => (Source::Code(vec![Word::literal(code)]), "-EncodedCommand"),
                None => (
                    Source::Unreadable(format!(
                        "`{program} -EncodedCommand`: the code is not base64 of UTF-16LE text"
                    )),
                    "",
                ),
            };
        }
        if matches!(name.as_str(), "f" | "file") {
            return match args.get(i + 1) {
                Some(file) if file.text == "-" => (Source::Stdin, ""),
                _ => (Source::Elsewhere, ""),
            };
        }
        if matches!(name.as_str(), "?" | "h" | "help")
            || (program != "powershell" && matches!(name.as_str(), "v" | "version"))
        {
            return (Source::Elsewhere, "");
        }
        // Parameters may be shortened to any unambiguous prefix
        // (`-Exec Bypass`); three letters and more are read as the valued
        // parameter they start.
        let valued = VALUED.contains(&name.as_str())
            || (name.len() >= 3 && VALUED.iter().any(|full| full.starts_with(name.as_str())));
        i += if valued || (program == "powershell" && matches!(name.as_str(), "v" | "version")) {
            2
        } else {
            1
        };
    }
    match args.get(i) {
        None => (Source::Stdin, ""),
        Some(_) if program == "powershell" => (Source::Code(args[i..].to_vec()), "-Command"),
        Some(_) => (Source::Elsewhere, ""),
    }
}

/// Base64 (standard alphabet, padding optional) of UTF-16LE text.
fn decode_utf16le_base64(text: &str) -> Option<String> {
    let mut bits = 0u32;
    let mut count = 0;
    let mut bytes = Vec::new();
    for c in text.trim().bytes() {
        let value = match c {
            b'A'..=b'Z' => c - b'A',
            b'a'..=b'z' => c - b'a' + 26,
            b'0'..=b'9' => c - b'0' + 52,
            b'+' => 62,
            b'/' => 63,
            b'=' => break,
            _ => return None,
        };
        bits = (bits << 6) | u32::from(value);
        count += 6;
        if count >= 8 {
            count -= 8;
            bytes.push((bits >> count) as u8);
            bits &= (1 << count) - 1;
        }
    }
    if bytes.len() % 2 != 0 {
        return None;
    }
    let units: Vec<u16> = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]))
        .collect();
    String::from_utf16(&units).ok()
}

/// Reads PowerShell `code`; what it runs, deletes and fetches goes to `launch`.
pub fn read(code: &str, literal: bool, label: &str, launch: &mut Launch) {
    Reader {
        literal,
        label,
        launch,
        source: code,
        variables: Vec::new(),
    }
    .code(code, 0);
}

struct Reader<'a> {
    literal: bool,
    label: &'a str,
    launch: &'a mut Launch,
    /// The whole code, to tell whether a variable is set only once.
    source: &'a str,
    /// Variables set once to a value known before run time (`$p =
    /// "$HOME\.ssh"`), lower case name first: a later `Remove-Item $p` or
    /// `Get-Content $f` acts on that value.
    variables: Vec<(String, String)>,
}

/// What reading a statement finds besides its words: code in `{...}`,
/// `(...)` and `$(...)` to read on its own, and .NET static calls.
#[derive(Default)]
struct Found {
    code: Vec<String>,
    calls: Vec<dotnet::StaticCall>,
}

/// One word of a statement: its text, whether it is known before run time.
#[derive(Debug, Clone)]
struct PsWord {
    text: String,
    known: bool,
    /// Written in quotes: never a parameter name.
    quoted: bool,
    /// The parts between commas outside quotes (`"-rf","~"` is a list of two).
    items: Vec<String>,
}

impl Reader<'_> {
    fn opaque(&mut self, why: String) {
        self.launch
            .opaque
            .push((OpaqueKind::DynamicEval, format!("`{}`: {why}", self.label)));
    }

    fn code(&mut self, code: &str, depth: usize) {
        if depth > MAX_DEPTH {
            self.launch.opaque.push((
                OpaqueKind::TooComplex,
                format!(
                    "`{}`: code nested deeper than {MAX_DEPTH} levels",
                    self.label
                ),
            ));
            return;
        }
        let chars: Vec<char> = code.chars().collect();
        let mut at = 0;
        // The statement before a `|`: what the next one reads as input.
        let mut piped: Option<Vec<PsWord>> = None;
        while at < chars.len() {
            let mut found = Found::default();
            let (words, next, ends) = statement(&chars, at, &mut found);
            at = next.max(at + 1);
            for code in found.code {
                self.code(&code, depth + 1);
            }
            for call in &found.calls {
                self.static_call(call);
            }
            let input = piped.take();
            if ends == End::Pipe {
                piped = Some(words.clone());
            }
            self.statement(words, input.as_deref(), depth);
        }
    }

    /// One statement; `input` is the statement piped into it, if any.
    fn statement(&mut self, mut words: Vec<PsWord>, input: Option<&[PsWord]>, depth: usize) {
        for word in &words {
            if word.known || word.text.contains("://") {
                for url in urls::destinations(&word.text) {
                    self.push(
                        vec![
                            Word::literal("curl"),
                            Word::literal("--"),
                            self.word(word, &url),
                        ],
                        Some("URL in the code"),
                    );
                }
            }
        }
        self.note_assignment(&words);
        // `$x = command ...`: the command after the assignment.
        if words.len() > 2 && words[0].text.starts_with('$') && words[1].text.ends_with('=') {
            words.drain(..2);
        }
        let Some(first) = words.first() else {
            return;
        };
        let call = !first.quoted && matches!(first.text.as_str(), "&" | ".");
        if call {
            let dot = first.text == ".";
            words.remove(0);
            let Some(program) = words.first() else {
                return;
            };
            if !program.known {
                self.opaque(format!(
                    "runs a command named at run time (`{}`)",
                    program.text
                ));
                return;
            }
            if dot {
                // `. ./script.ps1` runs a file, like `pwsh script.ps1`.
                return;
            }
        } else {
            // Values, variables and keywords are not commands.
            let text = &first.text;
            if first.quoted
                || !first.known
                || text.starts_with([
                    '$', '(', '@', '[', '{', '-', '+', '0', '1', '2', '3', '4', '5', '6', '7', '8',
                    '9', '!',
                ])
                || KEYWORDS.contains(&text.to_ascii_lowercase().as_str())
            {
                return;
            }
        }
        let name = words[0].text.to_ascii_lowercase();
        let args = &words[1..];
        match cmdlet(&name) {
            Some(Cmdlet::Remove) => self.remove(args),
            Some(Cmdlet::Write) => {
                if let Some(path) = path_argument(args, &["value", "encoding", "inputobject"]) {
                    let path = self.word(&path, &path.text);
                    self.push(
                        vec![Word::literal("tee"), Word::literal("--"), path],
                        Some(words[0].text.as_str()),
                    );
                }
            }
            Some(Cmdlet::Read) => {
                let (paths, _) = item_paths(args);
                self.push_paths("cat", Vec::new(), &paths, words[0].text.as_str());
            }
            Some(Cmdlet::Copy(program)) => {
                let (mut paths, destination) = item_paths(args);
                // Without -Destination the last positional path is it.
                let destination =
                    destination.or_else(|| (paths.len() > 1).then(|| paths.pop()).flatten());
                paths.extend(destination);
                self.push_paths(program, Vec::new(), &paths, words[0].text.as_str());
            }
            Some(Cmdlet::Eval) => {
                // The code is the argument, or else what is piped in: a
                // string written out is read (`'git reset --hard' | iex`);
                // anything else (a command's output, a variable) is not known.
                let piped_string = match input {
                    Some([string]) if string.quoted && string.items.len() <= 1 => Some(string),
                    _ => None,
                };
                match args.iter().find(|w| !is_parameter(w)).or(piped_string) {
                    Some(code) if code.known && self.literal => {
                        let code = code.text.clone();
                        self.code(&code, depth + 1);
                    }
                    Some(_) => {
                        self.opaque("`Invoke-Expression` runs code only known at run time".into())
                    }
                    None if input.is_some() => self.opaque(
                        "`Invoke-Expression` runs what is piped into it, only known at run time"
                            .into(),
                    ),
                    None => {}
                }
            }
            Some(Cmdlet::Start) => {
                let mut file = None;
                let mut arguments = Vec::new();
                let mut i = 0;
                while let Some(word) = args.get(i) {
                    i += 1;
                    let parameter = parameter_name(word);
                    match parameter.as_deref() {
                        Some("filepath" | "file" | "f" | "path") => {
                            file = args.get(i).cloned();
                            i += 1;
                        }
                        Some("argumentlist" | "args" | "a" | "arguments") => {
                            if let Some(list) = args.get(i) {
                                arguments.extend(split_list(list));
                            }
                            i += 1;
                        }
                        Some(
                            "workingdirectory"
                            | "verb"
                            | "windowstyle"
                            | "credential"
                            | "redirectstandardoutput"
                            | "redirectstandarderror"
                            | "redirectstandardinput",
                        ) => i += 1,
                        Some(_) => {}
                        None if file.is_none() => file = Some(word.clone()),
                        None => arguments.extend(split_list(word)),
                    }
                }
                if let Some(file) = file {
                    let mut command = vec![self.word(&file, &file.text)];
                    command.extend(arguments.iter().map(|w| self.word(w, &w.text)));
                    self.push(command, None);
                }
            }
            None => {
                let command = words.iter().map(|w| self.word(w, &w.text)).collect();
                self.push(command, None);
            }
        }
    }

    /// Learn `$name = VALUE` (or `$name=VALUE`, one word) when VALUE is a
    /// string with no command in it and the code sets `$name` nowhere else.
    fn note_assignment(&mut self, words: &[PsWord]) {
        let (name, value) = match words {
            // A bare word after `=` is a command whose output is assigned.
            [target, equals, value]
                if !target.quoted && equals.text == "=" && !equals.quoted && value.quoted =>
            {
                (target.text.as_str(), value.text.as_str())
            }
            [single] if single.quoted && single.text.starts_with('$') => {
                match single.text.split_once('=') {
                    Some((name, value)) if !value.starts_with('=') => (name, value),
                    _ => return,
                }
            }
            _ => return,
        };
        let Some(name) = name.strip_prefix('$') else {
            return;
        };
        let plain = |c: char| c.is_ascii_alphanumeric() || c == '_';
        if name.is_empty()
            || !name.chars().all(plain)
            || value.is_empty()
            || value.contains(['(', '`', '@'])
        {
            return;
        }
        let name = name.to_ascii_lowercase();
        let lower = self.source.to_ascii_lowercase();
        let sets_elsewhere =
            lower.contains("variable") || lower.contains("foreach") || lower.contains("[ref]");
        let assignments = lower
            .match_indices(&format!("${name}"))
            .filter(|(at, _)| {
                let after = &lower[at + 1 + name.len()..];
                if after.starts_with(plain) {
                    return false;
                }
                let after = after.trim_start();
                (after.starts_with('=') && !after.starts_with("=="))
                    || ["+=", "-=", "*=", "/=", "%=", "++", "--", "??="]
                        .iter()
                        .any(|o| after.starts_with(o))
            })
            .count();
        if assignments == 1 && !sets_elsewhere {
            self.variables.push((name, value.to_string()));
        }
    }

    /// `text` with the variables learnt so far in place of `$name`.
    fn substitute(&self, text: &str) -> String {
        let mut out = text.to_string();
        for (name, value) in &self.variables {
            let mut from = 0;
            while let Some(found) = out[from..].to_ascii_lowercase().find(&format!("${name}")) {
                let at = from + found;
                let end = at + 1 + name.len();
                if out[end..]
                    .starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_' || c == ':')
                {
                    from = end;
                    continue;
                }
                out.replace_range(at..end, value);
                from = at + value.len();
            }
        }
        out
    }

    /// A .NET static call that touches files, starts a program or reveals
    /// the environment, as the command that does the same.
    fn static_call(&mut self, call: &dotnet::StaticCall) {
        let name = call.written.as_str();
        match dotnet::action(call) {
            Some(dotnet::Action::Library {
                program,
                flags,
                operands,
            }) => {
                let flags = flags.iter().map(|f| Word::literal(*f)).collect();
                self.push_paths(program, flags, &operands, name);
            }
            Some(dotnet::Action::Run(words)) => {
                let command = words.iter().map(|w| self.word(w, &w.text)).collect();
                self.push(command, None);
            }
            Some(dotnet::Action::Environment(words)) => {
                let command = words.iter().map(|w| self.word(w, &w.text)).collect();
                self.push(command, Some(name));
            }
            None => {}
        }
    }

    /// `program [options] -- PATH...` for a cmdlet that acts on `paths`.
    fn push_paths(&mut self, program: &str, options: Vec<Word>, paths: &[PsWord], call: &str) {
        if paths.is_empty() {
            return;
        }
        let mut command = vec![Word::literal(program)];
        command.extend(options);
        command.push(Word::literal("--"));
        command.extend(paths.iter().map(|p| self.word(p, &p.text)));
        self.push(command, Some(call));
    }

    /// `Remove-Item [-Recurse] [-Force] [-Path] PATH[,PATH...]`, as `rm`.
    fn remove(&mut self, args: &[PsWord]) {
        let mut recursive = false;
        let mut paths = Vec::new();
        let mut i = 0;
        while let Some(word) = args.get(i) {
            i += 1;
            match parameter_name(word).as_deref() {
                // `-WhatIf` only says what would go.
                Some(p) if "whatif".starts_with(p) && p.len() >= 2 || p == "wi" => return,
                Some(p) if p.starts_with('r') && "recurse".starts_with(p) => recursive = true,
                Some("path" | "literalpath" | "lp" | "pspath" | "p") => {
                    if let Some(value) = args.get(i) {
                        paths.extend(split_list(value));
                    }
                    i += 1;
                }
                Some(
                    "filter" | "include" | "exclude" | "credential" | "stream" | "cred" | "fi",
                ) => i += 1,
                Some(_) => {}
                None => paths.extend(split_list(word)),
            }
        }
        if paths.is_empty() {
            return;
        }
        let mut command = vec![Word::literal("rm")];
        if recursive {
            command.push(Word::literal("-r"));
        }
        command.push(Word::literal("-f"));
        command.push(Word::literal("--"));
        command.extend(paths.iter().map(|p| {
            let mut word = self.word(p, &p.text);
            word.pattern = word.literal && p.text.contains(['*', '?', '[']);
            word
        }));
        self.push(command, Some("Remove-Item"));
    }

    /// The shell word for a PowerShell word: the home directory's names
    /// (`$HOME`, `$env:USERPROFILE`, `$env:HOME`) become `~`, and `\` a `/`.
    fn word(&self, word: &PsWord, text: &str) -> Word {
        // A value put in place of a variable stays unknown to what needs
        // certainty (the assignment may sit in a branch that does not run),
        // as in `assigned.rs`: it only adds what rules can see.
        let substituted = (!word.known && !self.variables.is_empty())
            .then(|| self.substitute(text))
            .filter(|s| s != text);
        let known = word.known && substituted.is_none();
        let text = substituted.as_deref().unwrap_or(text);
        let lower = text.to_ascii_lowercase();
        for home in [
            "$home",
            "$env:userprofile",
            "$env:home",
            "${env:userprofile}",
            "${env:home}",
        ] {
            if let Some(rest) = lower.strip_prefix(home) {
                if rest.is_empty() || rest.starts_with(['/', '\\']) {
                    let rest = &text[home.len()..];
                    let known_rest = !rest.contains(['$', '(']) && substituted.is_none();
                    return Word {
                        text: format!("~{}", rest.replace('\\', "/")),
                        literal: self.literal && known_rest,
                        pattern: false,
                    };
                }
            }
        }
        Word {
            text: text.to_string(),
            literal: self.literal && known,
            pattern: false,
        }
    }

    fn push(&mut self, words: Vec<Word>, call: Option<&str>) {
        self.launch.nested.push(Nested::Argv {
            words,
            via: self.label.to_string(),
            call: call.map(str::to_string),
            appended: false,
            fill: Vec::new(),
        });
    }
}

/// Language keywords and their parts: what follows them is read through
/// their `(...)` and `{...}`.
const KEYWORDS: &[&str] = &[
    "if", "elseif", "else", "foreach", "for", "while", "do", "until", "switch", "try", "catch",
    "finally", "function", "filter", "param", "return", "throw", "trap", "break", "continue",
    "exit", "begin", "process", "end", "class", "enum", "using", "in",
];

enum Cmdlet {
    Remove,
    Write,
    Eval,
    Start,
    /// `Get-Content` prints files, as `cat`.
    Read,
    /// `Copy-Item` and `Move-Item`, as `cp` and `mv`.
    Copy(&'static str),
}

fn cmdlet(name: &str) -> Option<Cmdlet> {
    Some(match name {
        "remove-item" | "ri" | "rm" | "rmdir" | "rd" | "del" | "erase" => Cmdlet::Remove,
        "set-content" | "sc" | "add-content" | "ac" | "out-file" | "clear-content" | "clc" => {
            Cmdlet::Write
        }
        "invoke-expression" | "iex" => Cmdlet::Eval,
        "start-process" | "saps" | "start" => Cmdlet::Start,
        "get-content" | "gc" | "type" => Cmdlet::Read,
        "copy-item" | "copy" | "cpi" => Cmdlet::Copy("cp"),
        "move-item" | "move" | "mi" => Cmdlet::Copy("mv"),
        _ => return None,
    })
}

/// True for the cmdlets read here by their full name (`remove-item`), as
/// program names come: aliases (`rm`, `del`) are other programs in a shell.
/// `iex` is the exception: to bash it is Elixir's shell, whose options and
/// script files (`iex -S mix`) run nothing when read as Invoke-Expression,
/// while `iex 'git reset --hard'` in PowerShell runs the string.
pub fn is_cmdlet(program: &str) -> bool {
    program == "iex" || program.contains('-') && cmdlet(program).is_some()
}

/// True when `line` pipes into `iex` or `Invoke-Expression` (any case):
/// `'git reset --hard' | iex` runs the string in PowerShell.
pub fn pipes_into_eval(line: &str) -> bool {
    let lower = line.to_ascii_lowercase();
    let bytes = lower.as_bytes();
    lower.match_indices('|').any(|(at, _)| {
        let single = bytes.get(at + 1) != Some(&b'|') && (at == 0 || bytes[at - 1] != b'|');
        let next = lower[at + 1..].trim_start();
        let name_end = next
            .find(|c: char| c.is_whitespace() || matches!(c, ';' | '|' | ')' | '}'))
            .unwrap_or(next.len());
        single && matches!(&next[..name_end], "iex" | "invoke-expression")
    })
}

/// A shell word as one PowerShell word: in single quotes when it holds
/// characters PowerShell reads specially.
pub fn quote(text: &str) -> String {
    if !text.is_empty()
        && text
            .chars()
            .all(|c| c.is_alphanumeric() || "-_./:~*?,=+@%".contains(c))
    {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "''"))
}

/// `-Name` (or `-Name:value`) in lower case, for a word not in quotes.
fn parameter_name(word: &PsWord) -> Option<String> {
    if word.quoted || !word.known {
        return None;
    }
    let name = word.text.strip_prefix('-')?;
    let name = name.split(':').next().unwrap_or(name);
    (!name.is_empty() && name.chars().all(|c| c.is_ascii_alphabetic()))
        .then(|| name.to_ascii_lowercase())
}

fn is_parameter(word: &PsWord) -> bool {
    parameter_name(word).is_some()
}

/// The path a writing cmdlet writes: `-Path`/`-LiteralPath`/`-FilePath`,
/// else its first positional argument.
fn path_argument(args: &[PsWord], valued: &[&str]) -> Option<PsWord> {
    let mut i = 0;
    let mut first = None;
    while let Some(word) = args.get(i) {
        i += 1;
        match parameter_name(word).as_deref() {
            Some("path" | "literalpath" | "filepath" | "lp" | "pspath") => {
                return args.get(i).cloned()
            }
            Some(p) if valued.contains(&p) => i += 1,
            Some(_) => {}
            None if first.is_none() => first = Some(word.clone()),
            None => {}
        }
    }
    first
}

/// The paths an item cmdlet (`Get-Content`, `Copy-Item`, `Move-Item`)
/// is given: `-Path`/`-LiteralPath` values and positional words, each a
/// list (`a,b`); and its `-Destination`, if named.
fn item_paths(args: &[PsWord]) -> (Vec<PsWord>, Option<PsWord>) {
    let mut paths = Vec::new();
    let mut destination = None;
    let mut i = 0;
    while let Some(word) = args.get(i) {
        i += 1;
        match parameter_name(word).as_deref() {
            Some("path" | "literalpath" | "lp" | "pspath" | "p") => {
                paths.extend(args.get(i).map(split_list).unwrap_or_default());
                i += 1;
            }
            Some("destination" | "dest" | "d") => {
                destination = args.get(i).cloned();
                i += 1;
            }
            Some(
                "totalcount" | "head" | "first" | "tail" | "last" | "readcount" | "encoding"
                | "delimiter" | "filter" | "include" | "exclude" | "stream" | "credential" | "cred"
                | "fi",
            ) => i += 1,
            Some(_) => {}
            None => paths.extend(split_list(word)),
        }
    }
    (paths, destination)
}

/// `a,b,c` is a list of three arguments.
fn split_list(word: &PsWord) -> Vec<PsWord> {
    word.items
        .iter()
        .filter(|p| !p.is_empty())
        .map(|p| PsWord {
            text: p.clone(),
            items: vec![p.clone()],
            ..word.clone()
        })
        .collect()
}

/// One statement from `at`: its words, and where the next starts. Code in
/// `{...}`, `(...)`, `$(...)` is added to `found` to be read on its own.
/// How a statement ends: the next one reads its output (`|`), or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum End {
    Pipe,
    Other,
}

fn statement(chars: &[char], mut at: usize, found: &mut Found) -> (Vec<PsWord>, usize, End) {
    let mut words = Vec::new();
    loop {
        while at < chars.len() && matches!(chars[at], ' ' | '\t' | '\r') {
            at += 1;
        }
        // A backtick at the end of a line continues it.
        if chars.get(at) == Some(&'`') && chars.get(at + 1) == Some(&'\n') {
            at += 2;
            continue;
        }
        match chars.get(at) {
            None => return (words, at, End::Other),
            // `||` and `&&` chain pipelines; they hand on no output.
            Some('|') if chars.get(at + 1) == Some(&'|') => return (words, at + 2, End::Other),
            Some('|') => return (words, at + 1, End::Pipe),
            Some('\n' | ';') => return (words, at + 1, End::Other),
            Some('&') if chars.get(at + 1) == Some(&'&') => return (words, at + 2, End::Other),
            Some('#') => {
                while at < chars.len() && chars[at] != '\n' {
                    at += 1;
                }
                continue;
            }
            Some('<') if chars.get(at + 1) == Some(&'#') => {
                while at + 1 < chars.len() && !(chars[at] == '#' && chars[at + 1] == '>') {
                    at += 1;
                }
                at += 2;
                continue;
            }
            Some(')' | '}') => {
                at += 1;
                continue;
            }
            _ => {}
        }
        let (word, next) = word(chars, at, found);
        words.push(word);
        at = next.max(at + 1);
    }
}

/// The text up to the bracket closing the one at `at`, and the index after it.
fn group(chars: &[char], at: usize) -> (String, usize) {
    let mut depth = 0usize;
    let mut i = at;
    let mut quote: Option<char> = None;
    while i < chars.len() {
        let c = chars[i];
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) if c == '`' => i += 1,
            Some(_) => {}
            None => match c {
                '\'' | '"' => quote = Some(c),
                '`' => i += 1,
                '(' | '{' => depth += 1,
                ')' | '}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return (chars[at + 1..i].iter().collect(), i + 1);
                    }
                }
                _ => {}
            },
        }
        i += 1;
    }
    (
        chars[(at + 1).min(chars.len())..].iter().collect(),
        chars.len(),
    )
}

fn word(chars: &[char], at: usize, found: &mut Found) -> (PsWord, usize) {
    let mut text = String::new();
    // Where unquoted commas cut `text` into list items.
    let mut cuts: Vec<usize> = Vec::new();
    let mut known = true;
    let mut quoted = false;
    let mut i = at;
    while i < chars.len() {
        let c = chars[i];
        match c {
            ' ' | '\t' | '\r' | '\n' | ';' | '|' => break,
            ')' | '}' if i > at => break,
            '&' if chars.get(i + 1) == Some(&'&') => break,
            '\'' => {
                quoted = true;
                i += 1;
                while i < chars.len() {
                    if chars[i] == '\'' {
                        if chars.get(i + 1) == Some(&'\'') {
                            text.push('\'');
                            i += 2;
                            continue;
                        }
                        break;
                    }
                    text.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '"' => {
                quoted = true;
                i += 1;
                while i < chars.len() && chars[i] != '"' {
                    match chars[i] {
                        '`' => {
                            if let Some(&n) = chars.get(i + 1) {
                                text.push(escape(n));
                            }
                            i += 2;
                            continue;
                        }
                        '$' if chars.get(i + 1) == Some(&'(') => {
                            let (code, next) = group(chars, i + 1);
                            found.code.push(code);
                            known = false;
                            text.push_str("$(...)");
                            i = next;
                            continue;
                        }
                        '$' if chars.get(i + 1).is_some_and(|n| {
                            n.is_alphanumeric() || matches!(n, '_' | '{' | ':')
                        }) =>
                        {
                            known = false;
                        }
                        _ => {}
                    }
                    text.push(chars[i]);
                    i += 1;
                }
                i += 1;
            }
            '`' => {
                if let Some(&n) = chars.get(i + 1) {
                    text.push(escape(n));
                }
                i += 2;
            }
            '{' | '(' => {
                let (code, next) = group(chars, i);
                if c == '(' {
                    if let Some((written, type_name, method)) = dotnet::callee(&text) {
                        found.calls.push(dotnet::StaticCall {
                            written: written.to_string(),
                            type_name,
                            method,
                            args: code.clone(),
                        });
                    }
                }
                // `@{...}` is a table of values, not code.
                if !text.ends_with('@') || c == '(' {
                    found.code.push(code);
                }
                known = false;
                text.push(c);
                i = next;
            }
            '$' => {
                known = false;
                text.push(c);
                i += 1;
            }
            ',' => {
                cuts.push(text.len());
                text.push(c);
                i += 1;
            }
            _ => {
                text.push(c);
                i += 1;
            }
        }
    }
    let mut items = Vec::new();
    let mut from = 0;
    for cut in cuts {
        items.push(text[from..cut].to_string());
        from = cut + 1;
    }
    items.push(text[from..].to_string());
    (
        PsWord {
            text,
            known,
            quoted,
            items,
        },
        i,
    )
}

fn escape(c: char) -> char {
    match c {
        'n' => '\n',
        't' => '\t',
        'r' => '\r',
        '0' => '\0',
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::decode_utf16le_base64;
    use crate::shell::analyze;

    use super::super::line_commands as commands;

    /// What `pwsh -EncodedCommand` takes: base64 of the UTF-16LE text.
    fn encode(text: &str) -> String {
        const ALPHABET: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
        let bytes: Vec<u8> = text.encode_utf16().flat_map(u16::to_le_bytes).collect();
        let mut out = String::new();
        for chunk in bytes.chunks(3) {
            let n = chunk
                .iter()
                .enumerate()
                .fold(0u32, |acc, (i, b)| acc | (u32::from(*b) << (16 - 8 * i)));
            for i in 0..=chunk.len() {
                out.push(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            }
        }
        while !out.len().is_multiple_of(4) {
            out.push('=');
        }
        out
    }

    #[test]
    fn remove_item_and_its_aliases_are_rm() {
        for line in [
            r#"pwsh -c "Remove-Item -Recurse -Force ~""#,
            r#"pwsh -NoProfile -Command "rm -r -fo ~""#,
            r#"powershell -Command "Remove-Item -Path $HOME -Recurse""#,
            r#"powershell.exe "ri ~ -rec -force""#,
            r#"pwsh -c 'Get-ChildItem; Remove-Item -LiteralPath ~ -Recurse -Force'"#,
        ] {
            assert!(
                commands(line).contains(&"rm -r -f -- ~".to_string()),
                "{line}: {:?}",
                commands(line)
            );
        }
        assert!(commands("pwsh -c 'Remove-Item -Recurse ~ -WhatIf'")
            .iter()
            .all(|c| !c.starts_with("rm")));
    }

    #[test]
    fn native_programs_encoded_code_and_invoke_expression_are_read() {
        assert!(commands(r#"pwsh -c "git reset --hard""#).contains(&"git reset --hard".to_string()));
        // A shortened valued parameter keeps its value.
        assert!(commands(r#"pwsh -Exec Bypass -c "rm -r -fo ~""#)
            .contains(&"rm -r -f -- ~".to_string()));
        let encoded = encode("Remove-Item -Recurse -Force ~");
        assert_eq!(
            decode_utf16le_base64(&encoded).as_deref(),
            Some("Remove-Item -Recurse -Force ~")
        );
        let line = format!("powershell -NoP -enc {encoded}");
        assert!(
            commands(&line).contains(&"rm -r -f -- ~".to_string()),
            "{line}"
        );
        assert!(analyze("pwsh -EncodedCommand '%%%'").is_opaque());
        assert!(commands(r#"pwsh -c "iex 'rm -r -fo ~'""#).contains(&"rm -r -f -- ~".to_string()));
        assert!(analyze(r#"pwsh -c "iex $code""#).is_opaque());
        assert!(
            commands(r#"pwsh -c "Invoke-WebRequest http://169.254.169.254/latest/""#)
                .contains(&"curl -- http://169.254.169.254/latest/".to_string())
        );
    }

    /// `iex` and `Invoke-Expression` run a string given to them or piped
    /// in; a line that starts with `iex` or pipes into it is PowerShell's.
    #[test]
    fn invoke_expression_runs_its_string_or_what_is_piped_in() {
        for line in [
            "iex 'git reset --hard'",
            "IEX 'git reset --hard'",
            "'git reset --hard' | iex",
            "\"git reset --hard\" | Invoke-Expression",
            "git status; 'git reset --hard' | iex",
            "git status && iex 'git reset --hard'",
            r#"pwsh -c "'git reset --hard' | iex""#,
        ] {
            assert!(
                commands(line).contains(&"git reset --hard".to_string()),
                "{line}: {:?}",
                commands(line)
            );
        }
        // Input that is not a string written out is not known.
        for line in [
            "echo 'git reset --hard' | iex",
            "$c | iex",
            "Get-Content cmds.txt | Invoke-Expression",
            "'a','b' | iex",
            "\"rm -rf $HOME\" | iex",
        ] {
            assert!(analyze(line).is_opaque(), "{line}");
        }
        // A chain (`||`) hands on no output; Elixir's iex with options and
        // a project runs nothing PowerShell would.
        for line in ["cat x || iex", "iex -S mix", "iex -S mix phx.server", "iex"] {
            assert!(!analyze(line).is_opaque(), "{line}: {:?}", analyze(line));
        }
    }

    #[test]
    fn ordinary_powershell_is_not_opaque() {
        for line in [
            "pwsh -c Get-ChildItem",
            r#"pwsh -NoProfile -c "Get-Content package.json | ConvertFrom-Json""#,
            r#"pwsh -c 'if ($PSVersionTable.PSVersion.Major -ge 7) { Write-Host ok }'"#,
            r#"pwsh -c '$x = Get-Date; Write-Output $x'"#,
            "pwsh -File build.ps1",
            "pwsh ./build.ps1 -Configuration Release",
            "pwsh -Version",
        ] {
            assert!(!analyze(line).is_opaque(), "{line}: {:?}", analyze(line));
        }
    }

    #[test]
    fn reading_copying_and_moving_cmdlets_are_their_commands() {
        for (line, want) in [
            ("pwsh -c 'Get-Content .env'", "cat -- .env"),
            ("pwsh -c 'gc -Tail 5 -Path .env,a.txt'", "cat -- .env a.txt"),
            (r"pwsh -c 'type $HOME\.ssh\id_rsa'", "cat -- ~/.ssh/id_rsa"),
            ("pwsh -c 'Copy-Item .env /tmp/x'", "cp -- .env /tmp/x"),
            (
                "pwsh -c 'Copy-Item -Destination /tmp/x -Path .env'",
                "cp -- .env /tmp/x",
            ),
            ("pwsh -c 'Move-Item ~/.ssh C:/x'", "mv -- ~/.ssh C:/x"),
        ] {
            let found = commands(line);
            assert!(found.iter().any(|c| c == want), "{line}: {found:?}");
        }
    }

    #[test]
    fn dotnet_file_and_process_methods_are_their_commands() {
        for (line, want) in [
            ("pwsh -c \"[IO.File]::ReadAllText('.env')\"", "cat -- .env"),
            (
                "pwsh -c \"[System.IO.File]::ReadAllBytes('~/.ssh/id_rsa')\"",
                "cat -- ~/.ssh/id_rsa",
            ),
            (
                r#"pwsh -c '[IO.File]::ReadAllText([IO.Path]::Combine($HOME, ".ssh", "id_rsa"))'"#,
                "cat -- ~/.ssh/id_rsa",
            ),
            (
                r#"pwsh -c 'Write-Output ([io.file]::readalltext("$HOME\.aws\credentials"))'"#,
                "cat -- ~/.aws/credentials",
            ),
            (
                "pwsh -c \"[IO.File]::Delete('.git/config')\"",
                "rm -f -- .git/config",
            ),
            (
                r#"pwsh -c '[IO.File]::AppendAllText("~/.bashrc", "x")'"#,
                "tee -- ~/.bashrc",
            ),
            (r#"pwsh -c '[IO.File]::Move("a", "b")'"#, "mv -- a b"),
            (
                r#"pwsh -c '[IO.StreamReader]::new(".env").ReadToEnd()'"#,
                "cat -- .env",
            ),
            (
                r#"pwsh -c '[IO.Directory]::Delete("~", $true)'"#,
                "rm -r -f -- ~",
            ),
            (
                r#"pwsh -c '[IO.Directory]::Delete("empty")'"#,
                "rmdir -- empty",
            ),
            (
                r#"pwsh -c '[IO.Directory]::Delete("empty", $false)'"#,
                "rmdir -- empty",
            ),
            (
                r#"pwsh -c '[Diagnostics.Process]::Start("git", "push --force")'"#,
                "git push --force",
            ),
            (
                r#"pwsh -c '[Environment]::GetEnvironmentVariables()'"#,
                "env ",
            ),
        ] {
            let found = commands(line);
            assert!(found.iter().any(|c| c == want), "{line}: {found:?}");
        }
        // Methods that neither touch files nor run anything add nothing.
        let found = commands(r#"pwsh -c '[IO.Path]::GetFileName("a/b.txt"); [Math]::Max(1, 2)'"#);
        assert!(found.iter().all(|c| c.starts_with("pwsh ")), "{found:?}");
    }

    #[test]
    fn a_variable_set_once_to_a_string_is_seen_where_it_is_used() {
        for (line, want) in [
            (r#"pwsh -c '$f=".env"; gc $f'"#, "cat -- .env"),
            (
                r#"pwsh -c '$F = "~/.aws/credentials"; Get-Content $f'"#,
                "cat -- ~/.aws/credentials",
            ),
            (
                r#"pwsh -c '$p="$HOME\.ssh"; Remove-Item -Recurse $p'"#,
                "rm -r -f -- ~/.ssh",
            ),
        ] {
            let found = commands(line);
            assert!(found.iter().any(|c| c == want), "{line}: {found:?}");
        }
        // Set twice, set by a command, or named only like it: left as written.
        for (line, want) in [
            (r#"pwsh -c '$f = ".env"; $f = "a"; gc $f'"#, "cat -- $f"),
            (r#"pwsh -c '$f = ".env"; $f += "x"; gc $f'"#, "cat -- $f"),
            (r#"pwsh -c '$f = hostname; gc $f'"#, "cat -- $f"),
            (r#"pwsh -c '$f = ".env"; gc $fx'"#, "cat -- $fx"),
        ] {
            let found = commands(line);
            assert!(found.iter().any(|c| c == want), "{line}: {found:?}");
        }
        // The value is not certain for what needs certainty.
        let a = analyze(r#"pwsh -c '$f=".env"; gc $f'"#);
        let cat = a.commands.iter().find(|c| c.program == "cat").unwrap();
        assert!(cat.args.iter().any(|a| a == ".env"));
    }
}
