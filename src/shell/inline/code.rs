//! What a piece of interpreter code runs and deletes.
//!
//! The code is read as a stream of expressions, not executed: names are
//! resolved through the imports and simple assignments the code makes
//! (`import os as o`, `from shutil import rmtree as r`, `const {execSync} =
//! require('child_process')`, `s = os.system`), string expressions are
//! folded when every piece is a literal (`'rm ' + '-rf /'`), and every call
//! is compared with a table of sinks: functions that run shell code or a
//! command (`os.system`, `subprocess.run`, `child_process.execSync`, Perl's
//! `system`, backticks), that delete or move files (`shutil.rmtree`,
//! `fs.rmSync`, `FileUtils.rm_rf`, `unlink`), or that run more code of the
//! same language (`exec`, `eval`).
//!
//! Whatever cannot be read this way is reported, never guessed: a sink
//! given a computed string, a module or attribute chosen at run time
//! (`__import__(x)`, `getattr(os, name)`), reflection (`__builtins__`,
//! `globals()`, `constructor`), a sink passed around as a value, or nesting
//! beyond the limits. The analysis errs on the side of reporting.

use super::lexer::{tokenize, Lang, Tok};
use super::sinks::{declarator, is_false, reflective, sensitive_method, sink, Sink};
use crate::shell::words::Word;
use std::collections::HashMap;

/// Deepest code-in-code (`exec('exec(...)')`) followed.
const MAX_CODE_DEPTH: usize = 8;
/// Deepest bracket nesting followed in one piece of code.
const MAX_NESTING: usize = 48;
/// Most effects and opaque reasons kept for one command's code; past
/// these the code is reported as too much to follow.
const MAX_EFFECTS: usize = 1_000;
const MAX_REASONS: usize = 32;

/// Something the code does that a policy must see.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Shell code the program hands to `/bin/sh`.
    Shell {
        source: String,
        literal: bool,
        call: String,
    },
    /// A program run with these words (program first).
    Argv { words: Vec<Word>, call: String },
    /// A library call that does what this command does (`rm -r -f -- x`).
    Library { words: Vec<Word>, call: String },
}

/// Everything found in one piece of code.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    pub effects: Vec<Effect>,
    /// Why (part of) the code cannot be known statically.
    pub opaque: Vec<String>,
}

pub fn analyze(lang: Lang, code: &str) -> Findings {
    let mut findings = Findings::default();
    analyze_into(lang, code, 0, &mut findings);
    findings
}

fn analyze_into(lang: Lang, code: &str, depth: usize, findings: &mut Findings) {
    if depth > MAX_CODE_DEPTH {
        findings
            .opaque
            .push(format!("code nested deeper than {MAX_CODE_DEPTH} levels"));
        return;
    }
    let toks = tokenize(lang, code);
    let mut reader = Reader {
        lang,
        toks: &toks,
        at: 0,
        bindings: HashMap::new(),
        wildcard_modules: Vec::new(),
        findings,
        depth,
        nesting: 0,
    };
    reader.run();
}

/// What an expression is known to be.
#[derive(Debug, Clone, PartialEq)]
enum Val {
    /// A string; `false` when (part of) it is only known at run time.
    Str(String, bool),
    List(Vec<Val>),
    /// A module, function or attribute by its qualified name (`os.system`).
    Ref(String),
    /// A path object (`pathlib.Path('x')`, `Pathname.new('x')`).
    PathObj(Box<Val>),
    /// A method of a path object.
    PathMethod(Box<Val>, String),
    /// A method of something not known statically.
    Method(String),
    /// File names matching a glob pattern (`glob('~/*')`); `false` when
    /// the pattern is only known at run time.
    Pattern(String, bool),
    Unknown,
}

/// One argument of a call.
struct Arg {
    name: Option<String>,
    val: Val,
    /// Token range, to look for options such as `shell=True`.
    range: std::ops::Range<usize>,
}

struct Reader<'a> {
    lang: Lang,
    toks: &'a [Tok],
    at: usize,
    bindings: HashMap<String, Val>,
    /// Python `from os import *`.
    wildcard_modules: Vec<String>,
    findings: &'a mut Findings,
    depth: usize,
    nesting: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.at)
    }

    fn peek_at(&self, ahead: usize) -> Option<&Tok> {
        self.toks.get(self.at + ahead)
    }

    fn is_op(&self, op: &str) -> bool {
        matches!(self.peek(), Some(Tok::Op(o)) if *o == op)
    }

    fn opaque(&mut self, why: String) {
        let opaque = &mut self.findings.opaque;
        if opaque.len() < MAX_REASONS && !opaque.contains(&why) {
            opaque.push(why);
        }
    }

    /// Room for one more effect; notes when there is none.
    fn room(&mut self) -> bool {
        if self.findings.effects.len() < MAX_EFFECTS {
            return true;
        }
        self.opaque(format!("more than {MAX_EFFECTS} commands and calls"));
        false
    }

    fn run(&mut self) {
        while self.at < self.toks.len() {
            let before = self.at;
            match self.peek() {
                Some(Tok::Ident(k))
                    if self.lang == Lang::Python && (k == "import" || k == "from") =>
                {
                    self.python_import();
                }
                Some(Tok::Ident(k))
                    if self.lang == Lang::JavaScript
                        && k == "import"
                        && !matches!(self.peek_at(1), Some(Tok::Op("("))) =>
                {
                    self.js_import();
                }
                _ => {
                    self.statement();
                }
            }
            if self.at == before {
                self.at += 1;
            }
        }
    }

    /// An assignment or an expression; returns the expression's value.
    fn statement(&mut self) -> Val {
        while matches!(self.peek(), Some(Tok::Ident(k)) if declarator(self.lang, k)) {
            self.at += 1;
        }
        // `{a, b: c} = require('x')` (JavaScript destructuring).
        if self.lang == Lang::JavaScript && self.is_op("{") {
            if let Some(names) = self.destructuring() {
                let value = self.expr();
                for (key, local) in names {
                    let bound = self.attr(value.clone(), &key);
                    self.bindings.insert(local, bound);
                }
                return Val::Unknown;
            }
        }
        // R assigns with `<-` too.
        let r_arrow = self.lang == Lang::R
            && matches!(
                (self.peek_at(1), self.peek_at(2)),
                (Some(Tok::Op("<")), Some(Tok::Op("-")))
            );
        if r_arrow {
            if let Some(Tok::Ident(name)) = self.peek() {
                let name = name.clone();
                self.at += 3;
                let value = self.expr();
                match value {
                    Val::Unknown | Val::Method(_) => self.bindings.remove(&name),
                    value => self.bindings.insert(name, value),
                };
                return Val::Unknown;
            }
        }
        if let (Some(Tok::Ident(name)), Some(Tok::Op("="))) = (self.peek(), self.peek_at(1)) {
            let name = name.clone();
            self.at += 2;
            let value = self.expr();
            match value {
                Val::Unknown | Val::Method(_) => {
                    self.bindings.remove(&name);
                }
                value => {
                    self.bindings.insert(name, value);
                }
            }
            return Val::Unknown;
        }
        self.expr()
    }

    /// `{a, b: c}` followed by `=`: the (key, local name) pairs.
    fn destructuring(&mut self) -> Option<Vec<(String, String)>> {
        let start = self.at;
        let mut i = self.at + 1;
        let mut names = Vec::new();
        loop {
            match (self.toks.get(i), self.toks.get(i + 1), self.toks.get(i + 2)) {
                (Some(Tok::Ident(k)), Some(Tok::Op(":")), Some(Tok::Ident(l))) => {
                    names.push((k.clone(), l.clone()));
                    i += 3;
                }
                (Some(Tok::Ident(k)), _, _) => {
                    names.push((k.clone(), k.clone()));
                    i += 1;
                }
                _ => return None,
            }
            match self.toks.get(i) {
                Some(Tok::Op(",")) => i += 1,
                Some(Tok::Op("}")) if matches!(self.toks.get(i + 1), Some(Tok::Op("="))) => {
                    self.at = i + 2;
                    return Some(names);
                }
                _ => {
                    self.at = start;
                    return None;
                }
            }
        }
    }

    fn python_import(&mut self) {
        let from = matches!(self.peek(), Some(Tok::Ident(k)) if k == "from");
        self.at += 1;
        let dotted = |reader: &mut Reader<'_>| -> Option<String> {
            let mut parts = Vec::new();
            while let Some(Tok::Ident(part)) = reader.peek() {
                parts.push(part.clone());
                reader.at += 1;
                if reader.is_op(".") {
                    reader.at += 1;
                } else {
                    break;
                }
            }
            (!parts.is_empty()).then(|| parts.join("."))
        };
        if from {
            let Some(module) = dotted(self) else { return };
            if !matches!(self.peek(), Some(Tok::Ident(k)) if k == "import") {
                return;
            }
            self.at += 1;
            if self.is_op("(") {
                self.at += 1;
            }
            loop {
                match self.peek() {
                    Some(Tok::Op("*")) => {
                        self.at += 1;
                        self.wildcard_modules.push(module.clone());
                    }
                    Some(Tok::Ident(name)) => {
                        let name = name.clone();
                        self.at += 1;
                        let local = self.alias().unwrap_or_else(|| name.clone());
                        let full = format!("{module}.{name}");
                        self.note_reflective(&module);
                        self.bindings.insert(local, Val::Ref(full));
                    }
                    _ => break,
                }
                if self.is_op(",") {
                    self.at += 1;
                } else {
                    break;
                }
            }
        } else {
            loop {
                let Some(module) = dotted(self) else { return };
                self.note_reflective(&module);
                match self.alias() {
                    Some(local) => {
                        self.bindings.insert(local, Val::Ref(module));
                    }
                    None => {
                        let top = module.split('.').next().unwrap_or(&module).to_string();
                        self.bindings.insert(top.clone(), Val::Ref(top));
                    }
                }
                if self.is_op(",") {
                    self.at += 1;
                } else {
                    break;
                }
            }
        }
    }

    /// `as NAME` after an import.
    fn alias(&mut self) -> Option<String> {
        if let (Some(Tok::Ident(k)), Some(Tok::Ident(local))) = (self.peek(), self.peek_at(1)) {
            if k == "as" {
                let local = local.clone();
                self.at += 2;
                return Some(local);
            }
        }
        None
    }

    fn js_import(&mut self) {
        self.at += 1;
        let mut locals: Vec<(Option<String>, String)> = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Op("*")) => {
                    self.at += 1;
                    if let Some(local) = self.alias() {
                        locals.push((None, local));
                    }
                }
                Some(Tok::Op("{")) => {
                    self.at += 1;
                    while let Some(Tok::Ident(name)) = self.peek() {
                        let name = name.clone();
                        self.at += 1;
                        let local = self.alias().unwrap_or_else(|| name.clone());
                        locals.push((Some(name), local));
                        if self.is_op(",") {
                            self.at += 1;
                        }
                    }
                    if self.is_op("}") {
                        self.at += 1;
                    }
                }
                Some(Tok::Ident(name)) if name != "from" => {
                    locals.push((None, name.clone()));
                    self.at += 1;
                }
                _ => break,
            }
            if self.is_op(",") {
                self.at += 1;
            }
        }
        if matches!(self.peek(), Some(Tok::Ident(k)) if k == "from") {
            self.at += 1;
        }
        let Some(Tok::Str { text, .. }) = self.peek() else {
            return;
        };
        let module = js_module(text);
        self.at += 1;
        for (name, local) in locals {
            let value = match name {
                Some(name) => Val::Ref(format!("{module}.{name}")),
                None => Val::Ref(module.clone()),
            };
            self.bindings.insert(local, value);
        }
    }

    fn note_reflective(&mut self, name: &str) {
        let top = name.split('.').next().unwrap_or(name);
        if reflective(self.lang, name) || reflective(self.lang, top) {
            self.opaque(format!(
                "uses `{name}`, which reaches code by computed names"
            ));
        }
    }

    /// Operators that join strings.
    fn concat_op(&self) -> bool {
        matches!(
            (self.lang, self.peek()),
            (Lang::Perl | Lang::Php, Some(Tok::Op(".")))
                | (
                    Lang::Python | Lang::JavaScript | Lang::Ruby,
                    Some(Tok::Op("+"))
                )
                | (Lang::Lua, Some(Tok::Op("..")))
                | (Lang::Julia, Some(Tok::Op("*")))
        )
    }

    /// An expression: terms joined by string concatenation are folded;
    /// anything else makes the value unknown (its calls are still seen).
    fn expr(&mut self) -> Val {
        let mut value = self.term();
        loop {
            if self.concat_op() {
                self.at += 1;
                let next = self.term();
                value = concat(value, next);
                continue;
            }
            // pathlib's `Path.home() / '.bashrc'`.
            if self.lang == Lang::Python && matches!(value, Val::PathObj(_)) && self.is_op("/") {
                self.at += 1;
                let next = self.term();
                value = match value {
                    Val::PathObj(base) => Val::PathObj(Box::new(join_path(*base, next))),
                    other => other,
                };
                continue;
            }
            // Adjacent strings join (Python, Ruby, awk); in awk any two values do.
            let adjacent = match self.peek() {
                Some(Tok::Str { .. }) => matches!(value, Val::Str(..)) || self.lang == Lang::Awk,
                Some(Tok::Ident(_)) | Some(Tok::Op("$" | "(")) => {
                    self.lang == Lang::Awk && matches!(value, Val::Str(..))
                }
                _ => false,
            };
            if adjacent && matches!(self.lang, Lang::Python | Lang::Ruby | Lang::Awk) {
                let next = self.term();
                value = concat(value, next);
                continue;
            }
            // awk pipes: `"cmd" | getline` runs the value before the bar,
            // `print ... | "cmd"` the one after it.
            if self.lang == Lang::Awk && matches!(self.peek(), Some(Tok::Op("|" | "|&"))) {
                self.at += 1;
                if matches!(self.peek(), Some(Tok::Ident(g)) if g == "getline") {
                    self.at += 1;
                    self.run_shell(&value, "| getline");
                } else {
                    let command = self.term();
                    self.run_shell(&command, "print |");
                }
                value = Val::Unknown;
                continue;
            }
            break;
        }
        self.note_urls(&value);
        value
    }

    /// A string that names a network destination is reported as the
    /// `curl -- URL` that fetches it, so the rules that judge curl's URLs
    /// (cloud metadata, internal addresses) judge it too: every URL
    /// (`scheme://...`) in the text, and a bare host that is a metadata or
    /// link-local address (`socket.create_connection(('169.254.169.254', 80))`).
    /// A URL only mentioned, not fetched, is reported all the same.
    fn note_urls(&mut self, value: &Val) {
        let Val::Str(text, literal) = value else {
            return;
        };
        for url in super::urls::destinations(text) {
            let words = vec![
                Word::literal("curl"),
                Word::literal("--"),
                Word {
                    text: url,
                    literal: *literal,
                    pattern: false,
                },
            ];
            let effect = Effect::Library {
                words,
                call: "URL in the code".into(),
            };
            if !self.findings.effects.contains(&effect) && self.room() {
                self.findings.effects.push(effect);
            }
        }
    }

    fn term(&mut self) -> Val {
        while matches!(self.peek(), Some(Tok::Ident(k)) if declarator(self.lang, k)) {
            self.at += 1;
        }
        let mut value = self.primary();
        let mut called = false;
        loop {
            match self.peek() {
                Some(Tok::Op(sep @ ("." | "::" | "->")))
                    if !(*sep == "." && matches!(self.lang, Lang::Perl | Lang::Php)) =>
                {
                    match self.peek_at(1) {
                        Some(Tok::Ident(name)) => {
                            let name = name.clone();
                            self.at += 2;
                            value = self.attr(value, &name);
                            called = false;
                        }
                        // `$code->(...)`: a code reference called.
                        Some(Tok::Op("(")) if *sep == "->" => {
                            self.at += 1;
                            self.opaque("calls a code reference".into());
                            value = Val::Unknown;
                        }
                        _ => break,
                    }
                }
                Some(Tok::Op("(")) => {
                    self.at += 1;
                    let args = self.args(")");
                    value = self.call(value, args);
                    called = true;
                }
                // Perl's `$ENV{HOME}`.
                Some(Tok::Op("{"))
                    if self.lang == Lang::Perl
                        && value == Val::Ref("$ENV".into())
                        && matches!(self.peek_at(1), Some(Tok::Ident(k) | Tok::Str { text: k, .. }) if k == "HOME")
                        && matches!(self.peek_at(2), Some(Tok::Op("}"))) =>
                {
                    self.at += 3;
                    value = home();
                }
                Some(Tok::Op("[")) => {
                    self.at += 1;
                    let keys = self.args("]");
                    value = match (&value, keys.as_slice()) {
                        // `os.environ['HOME']`, `ENV['HOME']`: the home directory.
                        (
                            Val::Ref(name),
                            [Arg {
                                val: Val::Str(key, true),
                                ..
                            }],
                        ) if is_environment(name) && key == "HOME" => home(),
                        // `require('child_process')['execSync']` is `.execSync`.
                        (
                            Val::Ref(name),
                            [Arg {
                                val: Val::Str(key, true),
                                ..
                            }],
                        ) if self.is_sink_module(name) => {
                            let key = key.clone();
                            self.attr(value.clone(), &key)
                        }
                        (Val::Ref(name), _)
                            if self.is_sink_module(name) || self.is_module_namespace(name) =>
                        {
                            self.opaque(format!("looks `{name}` up by a computed key"));
                            Val::Unknown
                        }
                        _ => Val::Unknown,
                    };
                    called = false;
                }
                // A tagged template (`` Bun.$`rm -rf /` ``); Lua's call
                // with one string (`os.execute"rm -rf ~"`, `os.execute[[...]]`).
                Some(Tok::Str { .. })
                    if matches!(self.lang, Lang::JavaScript | Lang::Lua)
                        && matches!(value, Val::Ref(_)) =>
                {
                    let arg_start = self.at;
                    let arg = self.primary();
                    let args = vec![Arg {
                        name: None,
                        val: arg,
                        range: arg_start..self.at,
                    }];
                    value = self.call(value, args);
                    called = true;
                }
                _ => break,
            }
        }
        // Perl and Ruby call functions without parentheses: `system "ls"`.
        if !called && matches!(self.lang, Lang::Perl | Lang::Ruby) {
            if let Val::Ref(name) = &value {
                let function = sink(self.lang, name).is_some() || self.is_glob(name);
                if function && self.value_follows() {
                    let args = self.bare_args();
                    return self.call(value, args);
                }
                // `unlink;` works on `$_`.
                if self.lang == Lang::Perl && sink(self.lang, name).is_some() {
                    return self.call(value, Vec::new());
                }
            }
        }
        if !called {
            self.check_uncalled(&value);
        }
        value
    }

    /// Calls that name the home directory or a path in it, or join paths:
    /// `os.path.expanduser('~/.bashrc')` is `~/.bashrc`, `os.homedir()`
    /// is `~`, `os.path.join(home, '.ssh')` is `~/.ssh`; so deleting what
    /// they name is judged as `rm ~/.bashrc` is.
    fn home_path(&self, name: &str, args: &[Arg]) -> Option<Val> {
        let positional: Vec<&Val> = args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| &a.val)
            .collect();
        let first_is_home = || matches!(positional.first(), Some(Val::Str(k, true)) if k == "HOME");
        match (self.lang, name) {
            (Lang::Python, "os.path.expanduser" | "posixpath.expanduser")
            | (Lang::R, "path.expand" | "normalizePath")
            | (Lang::Julia, "expanduser")
            | (Lang::Ruby, "File.expand_path") => match positional.first() {
                Some(Val::Str(path, literal)) if path.starts_with('~') || path.starts_with('/') => {
                    Some(Val::Str(path.clone(), *literal))
                }
                _ => None,
            },
            // A directory the call has just created, empty and nobody
            // else's: deleting it is what `rm -rf /tmp/tmp.XXXX` is,
            // wherever a `dir=` or prefix put it.
            (Lang::Python, "tempfile.mkdtemp")
            | (Lang::JavaScript, "fs.mkdtempSync")
            | (Lang::Ruby, "Dir.mktmpdir")
            | (Lang::Julia, "mktempdir") => Some(Val::Str("/tmp/tmp.XXXXXXXX".into(), true)),
            (Lang::Python, "tempfile.gettempdir") | (Lang::JavaScript, "os.tmpdir") => {
                Some(Val::Str("/tmp".into(), true))
            }
            (Lang::Python, "pathlib.Path.home" | "Path.home" | "pathlib.PosixPath.home") => {
                Some(Val::PathObj(Box::new(home())))
            }
            (Lang::JavaScript, "os.homedir")
            | (Lang::Ruby, "Dir.home")
            | (Lang::Julia, "homedir")
            | (Lang::Php, "getenv")
            | (Lang::Python, "os.getenv" | "os.environ.get")
            | (Lang::Ruby, "ENV.fetch")
            | (Lang::R, "Sys.getenv")
                if matches!(name, "os.homedir" | "Dir.home" | "homedir") || first_is_home() =>
            {
                Some(home())
            }
            (Lang::Python, "os.path.join" | "posixpath.join")
            | (Lang::JavaScript, "path.join" | "path.resolve")
            | (Lang::Ruby, "File.join")
            | (Lang::R, "file.path")
            | (Lang::Julia, "joinpath") => {
                let mut joined = String::new();
                let mut literal = true;
                for piece in &positional {
                    let Val::Str(piece, known) = piece else {
                        return None;
                    };
                    literal &= known;
                    if piece.starts_with('/') || joined.is_empty() {
                        joined = piece.clone();
                    } else {
                        joined = format!("{}/{piece}", joined.trim_end_matches('/'));
                    }
                }
                (!joined.is_empty()).then_some(Val::Str(joined, literal))
            }
            _ => None,
        }
    }

    /// Functions that return the file names a glob pattern matches.
    fn is_glob(&self, name: &str) -> bool {
        match self.lang {
            Lang::Perl => matches!(
                name,
                "glob" | "CORE.glob" | "bsd_glob" | "File.Glob.bsd_glob"
            ),
            Lang::Python => matches!(name, "glob.glob" | "glob.iglob"),
            Lang::Ruby => matches!(name, "Dir.glob" | "Dir.[]"),
            Lang::Php => name == "glob",
            Lang::R => name == "Sys.glob",
            Lang::JavaScript => matches!(
                name,
                "fs.globSync"
                    | "fs.glob"
                    | "glob.sync"
                    | "glob.globSync"
                    | "globSync"
                    | "fast-glob.sync"
            ),
            _ => false,
        }
    }

    fn is_module_namespace(&self, name: &str) -> bool {
        matches!(name, "sys.modules" | "process.mainModule" | "require.cache")
    }

    /// A module some sink belongs to (`os`, `child_process`, `FileUtils`).
    fn is_sink_module(&self, name: &str) -> bool {
        let modules: &[&str] = match self.lang {
            Lang::Python => &[
                "os",
                "subprocess",
                "shutil",
                "pty",
                "commands",
                "asyncio",
                "platform",
                "builtins",
                "pathlib",
            ],
            Lang::JavaScript => &[
                "child_process",
                "fs",
                "fs.promises",
                "fs-extra",
                "graceful-fs",
                "shelljs",
                "Bun",
                "vm",
                "rimraf",
            ],
            Lang::Ruby => &[
                "Kernel",
                "FileUtils",
                "IO",
                "Open3",
                "Process",
                "File",
                "Dir",
            ],
            Lang::Lua => &["os", "io"],
            Lang::R => &["base"],
            Lang::Julia => &["Base", "Base.Filesystem"],
            Lang::Perl | Lang::Php | Lang::Awk => &[],
        };
        modules.contains(&name)
    }

    /// A sink named but not called here can be called later under another name.
    fn check_uncalled(&mut self, value: &Val) {
        if let Val::Ref(name) = value {
            if let Some(s) = sink(self.lang, name) {
                if !matches!(
                    s,
                    Sink::Delete { .. } | Sink::RmDir | Sink::Move | Sink::Read { .. }
                ) {
                    self.opaque(format!("refers to `{name}` without calling it"));
                }
            }
        }
    }

    fn value_follows(&self) -> bool {
        // Perl's `exec { "rm" } @args` names the program in a block.
        let block = self.lang == Lang::Perl && self.is_op("{");
        (block
            || matches!(
                self.peek(),
                Some(Tok::Str { .. } | Tok::Cmd { .. } | Tok::Ident(_) | Tok::Op("[" | "("))
            ))
            && !matches!(self.peek(), Some(Tok::Ident(k)) if matches!(k.as_str(), "or" | "and" | "if" | "unless" | "do" | "then"))
    }

    /// Arguments of a call written without parentheses: up to the end of
    /// the statement.
    fn bare_args(&mut self) -> Vec<Arg> {
        let mut args = Vec::new();
        // `system system system ...` nests without brackets.
        if self.nesting >= MAX_NESTING {
            self.opaque(format!("calls nested deeper than {MAX_NESTING} levels"));
            self.at = self.toks.len();
            return args;
        }
        self.nesting += 1;
        loop {
            let start = self.at;
            let val = self.expr();
            let end = self.skip_rest_of_arg(&[",", ";", "}", ")"]);
            args.push(Arg {
                name: None,
                val,
                range: start..end,
            });
            if self.is_op(",") || matches!(self.peek(), Some(Tok::Op("=>"))) {
                self.at += 1;
                continue;
            }
            break;
        }
        self.nesting -= 1;
        args
    }

    /// Tokens after an argument's expression up to a separator: their
    /// calls are read, their value is lost.
    fn skip_rest_of_arg(&mut self, stops: &[&str]) -> usize {
        loop {
            match self.peek() {
                None | Some(Tok::Newline) if stops.contains(&";") => return self.at,
                None => return self.at,
                Some(Tok::Op(op)) if stops.contains(op) => return self.at,
                Some(Tok::Ident(k))
                    if stops.contains(&";")
                        && matches!(k.as_str(), "or" | "and" | "if" | "unless") =>
                {
                    return self.at
                }
                _ => {
                    let before = self.at;
                    self.expr();
                    if self.at == before {
                        self.at += 1;
                    }
                }
            }
        }
    }

    /// Arguments up to `close` (already past the opening bracket).
    fn args(&mut self, close: &'static str) -> Vec<Arg> {
        let mut args = Vec::new();
        if self.nesting >= MAX_NESTING {
            self.opaque(format!("brackets nested deeper than {MAX_NESTING} levels"));
            self.skip_group(close);
            return args;
        }
        self.nesting += 1;
        loop {
            while matches!(self.peek(), Some(Tok::Newline)) {
                self.at += 1;
            }
            match self.peek() {
                None => break,
                Some(Tok::Op(op)) if *op == close => {
                    self.at += 1;
                    break;
                }
                _ => {}
            }
            let start = self.at;
            // `name=value` (Python), `name: value` (Ruby, JS objects), `key => value`.
            let name = match (self.peek(), self.peek_at(1)) {
                (Some(Tok::Ident(n)), Some(Tok::Op("=" | ":" | "=>"))) => {
                    let n = n.clone();
                    self.at += 2;
                    Some(n)
                }
                _ => None,
            };
            if matches!(self.peek(), Some(Tok::Op("*" | "**"))) {
                self.at += 1;
            }
            let val = self.expr();
            // Julia's `;` starts the keyword arguments: `rm(p; recursive=true)`.
            let separator = |op: &str| op == "," || (op == ";" && self.lang == Lang::Julia);
            let complete = matches!(self.peek(), Some(Tok::Op(op)) if separator(op) || *op == close)
                || self.peek().is_none();
            let stops: &[&str] = if self.lang == Lang::Julia {
                &[",", ";", close]
            } else {
                &[",", close]
            };
            let end = self.skip_rest_of_arg(stops);
            args.push(Arg {
                name,
                val: if complete { val } else { Val::Unknown },
                range: start..end,
            });
            if self.is_op(",") || (self.lang == Lang::Julia && self.is_op(";")) {
                self.at += 1;
            }
        }
        self.nesting -= 1;
        args
    }

    /// Statements up to the closing `}` (already past the `{`): a function
    /// body or block binds names as the top level does. Object literals
    /// (`{recursive: true}`) read as harmless statements.
    fn block(&mut self) {
        if self.nesting >= MAX_NESTING {
            self.opaque(format!("brackets nested deeper than {MAX_NESTING} levels"));
            self.skip_group("}");
            return;
        }
        self.nesting += 1;
        loop {
            match self.peek() {
                None => break,
                Some(Tok::Op("}")) => {
                    self.at += 1;
                    break;
                }
                Some(Tok::Newline | Tok::Op(";" | ",")) => self.at += 1,
                _ => {
                    let before = self.at;
                    self.statement();
                    if self.at == before {
                        self.at += 1;
                    }
                }
            }
        }
        self.nesting -= 1;
    }

    /// Skip to the bracket closing the current group without reading it.
    fn skip_group(&mut self, close: &str) {
        let mut depth = 0usize;
        while let Some(tok) = self.toks.get(self.at) {
            self.at += 1;
            match tok {
                Tok::Op("(" | "[" | "{") => depth += 1,
                Tok::Op(op) if *op == close && depth == 0 => return,
                Tok::Op(")" | "]" | "}") => depth = depth.saturating_sub(1),
                _ => {}
            }
        }
    }

    fn primary(&mut self) -> Val {
        let Some(tok) = self.peek().cloned() else {
            return Val::Unknown;
        };
        self.at += 1;
        match tok {
            // Perl's `"$ENV{HOME}/.bashrc"` names a file in the home directory.
            Tok::Str {
                text,
                literal: false,
            } if self.lang == Lang::Perl => match text.strip_prefix("$ENV{HOME}") {
                Some(rest) if !rest.contains(['$', '@']) => Val::Str(format!("~{rest}"), true),
                _ => Val::Str(text, false),
            },
            Tok::Str { text, literal } => Val::Str(text, literal),
            Tok::Cmd { text, literal } => {
                let call = match self.lang {
                    Lang::Perl => "qx",
                    Lang::Ruby => "%x",
                    _ => "backticks",
                };
                self.run_shell(&Val::Str(text, literal), call);
                Val::Unknown
            }
            Tok::Subst { replacement, flags } => {
                if flags.contains('e') {
                    if flags.matches('e').count() > 1 {
                        self.opaque("`s///ee` evaluates the result of code as code".into());
                    }
                    analyze_into(self.lang, &replacement, self.depth + 1, self.findings);
                }
                Val::Unknown
            }
            Tok::Ident(name) => {
                self.note_reflective(&name);
                if self.lang == Lang::Php && name.starts_with('$') && self.is_op("(") {
                    return match self.bindings.get(&name) {
                        Some(Val::Str(f, true)) => Val::Ref(f.clone()),
                        _ => {
                            self.opaque(format!("calls the function named by `{name}`"));
                            Val::Unknown
                        }
                    };
                }
                if let Some(bound) = self.bindings.get(&name) {
                    return bound.clone();
                }
                if self.lang == Lang::Python {
                    for module in &self.wildcard_modules {
                        let full = format!("{module}.{name}");
                        if sink(self.lang, &full).is_some() {
                            return Val::Ref(full);
                        }
                    }
                }
                Val::Ref(name)
            }
            Tok::Op("(") => {
                let mut items = self.args(")");
                if items.len() == 1 && items[0].name.is_none() {
                    items.remove(0).val
                } else {
                    Val::List(items.into_iter().map(|a| a.val).collect())
                }
            }
            Tok::Op("[") => Val::List(self.args("]").into_iter().map(|a| a.val).collect()),
            Tok::Op("{") => {
                self.block();
                Val::Unknown
            }
            _ => Val::Unknown,
        }
    }

    fn attr(&mut self, value: Val, name: &str) -> Val {
        self.note_reflective(name);
        match value {
            Val::Ref(base) => {
                let full = format!("{base}.{name}");
                self.note_reflective(&full);
                if full == "process.env.HOME" {
                    return home();
                }
                Val::Ref(full)
            }
            Val::PathObj(path) => Val::PathMethod(path, name.to_string()),
            _ => Val::Method(name.to_string()),
        }
    }

    fn call(&mut self, callee: Val, args: Vec<Arg>) -> Val {
        match callee {
            Val::Ref(name) => self.call_named(&name, args),
            Val::PathMethod(path, method) => {
                let recursive = method == "rmtree";
                match method.as_str() {
                    "joinpath" => {
                        let mut path = *path;
                        for arg in args {
                            path = join_path(path, arg.val);
                        }
                        return Val::PathObj(Box::new(path));
                    }
                    "expanduser" | "resolve" | "absolute" => return Val::PathObj(path),
                    "unlink" | "delete" | "rmtree" => {
                        self.delete(&name_of_path(&method), vec![*path], recursive)
                    }
                    "rmdir" => self.library("rmdir", &[], vec![*path], &format!("Path.{method}")),
                    "write_text" | "write_bytes" => {
                        self.library("tee", &[], vec![*path], &format!("Path.{method}"))
                    }
                    "open" => {
                        let writes = match args.first().map(|a| &a.val) {
                            Some(Val::Str(mode, true)) => mode.contains(['w', 'a', 'x', '+']),
                            Some(_) => true,
                            None => false,
                        };
                        if writes {
                            self.library("tee", &[], vec![*path], "Path.open");
                        }
                    }
                    "symlink_to" | "hardlink_to" => {
                        let mut paths: Vec<Val> = args.into_iter().take(1).map(|a| a.val).collect();
                        paths.push(*path);
                        self.library("ln", &["-s"], paths, &format!("Path.{method}"));
                    }
                    "rename" | "replace" => {
                        let mut paths = vec![*path];
                        paths.extend(args.into_iter().take(1).map(|a| a.val));
                        self.library("mv", &[], paths, &format!("Path.{method}"));
                    }
                    _ => {}
                }
                Val::Unknown
            }
            // PHP calls a function named by a string: `('sys' . 'tem')('id')`.
            Val::Str(name, true) if self.lang == Lang::Php => self.call_named(&name, args),
            Val::Str(_, false) if self.lang == Lang::Php => {
                self.opaque("calls a function whose name is computed".into());
                Val::Unknown
            }
            Val::Method(name) => {
                if self.lang == Lang::JavaScript && name == "require" {
                    return self.module(&args, "require");
                }
                if self.lang == Lang::Python && matches!(name.as_str(), "unlink" | "rmtree") {
                    self.delete(&name, vec![Val::Unknown], name == "rmtree");
                } else if sensitive_method(self.lang, &name) {
                    self.opaque(format!(
                        "calls `{name}` on something only known at run time"
                    ));
                }
                Val::Unknown
            }
            _ => Val::Unknown,
        }
    }

    fn module(&mut self, args: &[Arg], how: &str) -> Val {
        match args.first().map(|a| &a.val) {
            Some(Val::Str(name, true)) => {
                let name = if self.lang == Lang::JavaScript {
                    js_module(name)
                } else {
                    name.clone()
                };
                self.note_reflective(&name);
                Val::Ref(name)
            }
            _ => {
                self.opaque(format!("`{how}` loads a module named at run time"));
                Val::Unknown
            }
        }
    }

    fn call_named(&mut self, name: &str, mut args: Vec<Arg>) -> Val {
        // R's namespaces: `base::system` is `system`.
        let name = match self.lang {
            Lang::R => name.strip_prefix("base.").unwrap_or(name),
            _ => name,
        };
        match (self.lang, name) {
            // R's vectors and lists hold the words of a command.
            (Lang::R, "c" | "list") => {
                return Val::List(
                    args.into_iter()
                        .filter(|a| a.name.is_none())
                        .map(|a| a.val)
                        .collect(),
                );
            }
            // String building: R's `paste0(...)`, `paste(..., sep=" ")`,
            // Julia's `string(...)`.
            (Lang::R, "paste0" | "paste") | (Lang::Julia, "string") => {
                let separator = if name == "paste" {
                    match args.iter().find(|a| a.name.as_deref() == Some("sep")) {
                        Some(Arg {
                            val: Val::Str(sep, true),
                            ..
                        }) => sep.clone(),
                        Some(_) => return Val::Unknown,
                        None => " ".to_string(),
                    }
                } else {
                    String::new()
                };
                let mut joined = Val::Str(String::new(), true);
                let pieces: Vec<Val> = args
                    .into_iter()
                    .filter(|a| a.name.is_none())
                    .map(|a| a.val)
                    .collect();
                for (i, piece) in pieces.into_iter().enumerate() {
                    if i > 0 {
                        joined = concat(joined, Val::Str(separator.clone(), true));
                    }
                    joined = concat(joined, piece);
                }
                return joined;
            }
            // `do.call("system", list("rm -rf ~"))`.
            (Lang::R, "do.call") if !args.is_empty() => {
                let first = args.remove(0);
                let spread = match args.into_iter().next() {
                    Some(Arg {
                        val: Val::List(items),
                        range,
                        ..
                    }) => items
                        .into_iter()
                        .map(|val| Arg {
                            name: None,
                            val,
                            range: range.clone(),
                        })
                        .collect(),
                    Some(_) => {
                        self.opaque("`do.call` with arguments only known at run time".into());
                        return Val::Unknown;
                    }
                    None => Vec::new(),
                };
                return match first.val {
                    Val::Str(function, true) | Val::Ref(function) => {
                        self.call_named(&function, spread)
                    }
                    _ => {
                        self.opaque("`do.call` calls a function named at run time".into());
                        Val::Unknown
                    }
                };
            }
            _ => {}
        }
        if let Some(value) = self.home_path(name, &args) {
            return value;
        }
        if self.is_glob(name) {
            return match args.first().map(|a| &a.val) {
                // Perl's glob takes several patterns separated by blanks.
                Some(Val::Str(text, literal)) if self.lang == Lang::Perl => Val::List(
                    text.split_whitespace()
                        .map(|p| Val::Pattern(p.to_string(), *literal))
                        .collect(),
                ),
                Some(Val::Str(text, literal)) => Val::Pattern(text.clone(), *literal),
                _ => Val::Unknown,
            };
        }
        match (self.lang, name) {
            (Lang::Python, "__import__" | "importlib.import_module")
            | (Lang::JavaScript, "require" | "import") => return self.module(&args, name),
            // `process.mainModule.require('child_process')`, `module.require(...)`.
            (Lang::JavaScript, n) if n.ends_with(".require") => return self.module(&args, name),
            (Lang::Python, "getattr") => {
                let attr = args.get(1).map(|a| a.val.clone());
                let base = args.first().map(|a| a.val.clone()).unwrap_or(Val::Unknown);
                return match attr {
                    Some(Val::Str(attr, true)) => {
                        let value = self.attr(base, &attr);
                        if self.is_op("(") {
                            value
                        } else {
                            self.check_uncalled(&value);
                            value
                        }
                    }
                    _ => {
                        self.opaque("`getattr` with an attribute named at run time".into());
                        Val::Unknown
                    }
                };
            }
            (Lang::Python, "pathlib.Path" | "Path" | "pathlib.PosixPath" | "PosixPath") => {
                return Val::PathObj(Box::new(
                    args.into_iter().next().map_or(Val::Unknown, |a| a.val),
                ));
            }
            (Lang::Ruby, "Pathname.new" | "Pathname") => {
                return Val::PathObj(Box::new(
                    args.into_iter().next().map_or(Val::Unknown, |a| a.val),
                ));
            }
            // `send(:system, ...)`, `call_user_func('system', ...)`: the first
            // argument names the function.
            (Lang::Ruby, n)
                if matches!(
                    n.rsplit('.').next(),
                    Some("send" | "public_send" | "__send__" | "method")
                ) =>
            {
                let receiver = n.rsplit_once('.').map(|(r, _)| r.to_string());
                if args.is_empty() {
                    return Val::Unknown;
                }
                let first = args.remove(0);
                return match first.val {
                    Val::Str(method, true) => {
                        let full = match receiver {
                            Some(r) if r != "Kernel" && r != "Object" => format!("{r}.{method}"),
                            _ => method,
                        };
                        if n.ends_with("method") {
                            Val::Ref(full)
                        } else {
                            self.call_named(&full, args)
                        }
                    }
                    _ => {
                        self.opaque(format!("`{n}` calls a method named at run time"));
                        Val::Unknown
                    }
                };
            }
            (Lang::Php, "call_user_func" | "call_user_func_array") => {
                if args.is_empty() {
                    return Val::Unknown;
                }
                let first = args.remove(0);
                return match first.val {
                    Val::Str(function, true) => {
                        if name == "call_user_func_array" {
                            if let Some(Arg {
                                val: Val::List(items),
                                range,
                                ..
                            }) = args.into_iter().next()
                            {
                                let spread = items
                                    .into_iter()
                                    .map(|val| Arg {
                                        name: None,
                                        val,
                                        range: range.clone(),
                                    })
                                    .collect();
                                return self.call_named(&function, spread);
                            }
                            self.opaque(format!("`{name}` with arguments only known at run time"));
                            return Val::Unknown;
                        }
                        self.call_named(&function, args)
                    }
                    _ => {
                        self.opaque(format!("`{name}` calls a function named at run time"));
                        Val::Unknown
                    }
                };
            }
            _ => {}
        }
        let Some(kind) = sink(self.lang, name) else {
            return Val::Unknown;
        };
        let positional: Vec<Val> = args
            .iter()
            .filter(|a| a.name.is_none())
            .map(|a| a.val.clone())
            .collect();
        let first = positional.first().cloned().unwrap_or(Val::Unknown);
        match kind {
            Sink::Shell => {
                // Ruby's `open("|cmd")` and IO.popen with a list.
                if self.lang == Lang::Ruby && name == "open" {
                    if let Val::Str(text, literal) = &first {
                        if let Some(cmd) = text.strip_prefix('|') {
                            self.run_shell(&Val::Str(cmd.to_string(), *literal), name);
                        }
                    } else if !matches!(first, Val::Str(..)) {
                        // `open(path)` of a computed path is ordinary file work.
                    }
                    return Val::Unknown;
                }
                self.run_shell(&first, name);
            }
            Sink::ShellOrArgv => {
                let shell = self.option(&args, "shell");
                match (&first, shell) {
                    // With `shell` the first item is shell code; the option's
                    // value may be computed, so the words are read too.
                    (Val::List(items), true) => {
                        let code = items.first().cloned().unwrap_or(Val::Unknown);
                        self.run_shell(&code, name);
                        self.run_argv(items, name);
                    }
                    (Val::List(items), false) => self.run_argv(items, name),
                    _ => self.run_shell(&first, name),
                }
            }
            Sink::ArgvSpread => {
                let mut items = Vec::new();
                for val in positional {
                    match val {
                        Val::List(inner) => items.extend(inner),
                        other => items.push(other),
                    }
                }
                if name.ends_with("shelljs.rm") {
                    items.insert(0, Val::Str("rm".into(), true));
                }
                self.run_argv(&items, name);
            }
            Sink::SystemList => {
                let mut items: Vec<Val> = Vec::new();
                for val in positional {
                    match val {
                        Val::List(inner) if self.lang != Lang::Perl => items.extend(inner),
                        other => items.push(other),
                    }
                }
                // Ruby: an environment hash may come first.
                match items.len() {
                    0 => {}
                    1 => self.run_shell(&items[0], name),
                    _ => self.run_argv(&items, name),
                }
            }
            Sink::ExecFile => {
                let shell = self.option(&args, "shell");
                let mut items = vec![first.clone()];
                match positional.get(1) {
                    Some(Val::List(rest)) => items.extend(rest.iter().cloned()),
                    Some(Val::Unknown)
                        if matches!(args.get(1).map(|a| a.name.is_none()), Some(true)) =>
                    {
                        items.push(Val::Unknown)
                    }
                    _ => {}
                }
                if shell {
                    let joined = join_words(&items);
                    self.run_shell(&joined, name);
                } else {
                    self.run_argv(&items, name);
                }
            }
            Sink::ExecV => {
                // The program is the first string; its argv follows as a
                // list (`execv`) or as more arguments (`execl`, `spawnl`).
                let strings: Vec<&Val> = positional
                    .iter()
                    .filter(|v| !matches!(v, Val::Ref(_)))
                    .collect();
                let Some(program) = strings.first() else {
                    self.opaque(format!("`{name}` runs a program only known at run time"));
                    return Val::Unknown;
                };
                let mut items = vec![(*program).clone()];
                match strings.get(1) {
                    Some(Val::List(argv)) => items.extend(argv.iter().skip(1).cloned()),
                    _ => items.extend(strings.iter().skip(2).map(|v| (*v).clone())),
                }
                self.run_argv(&items, name);
            }
            Sink::PerlOpen => self.perl_open(&positional),
            // R's `parse(text = "...")` names its code; `parse(file = f)` has none.
            Sink::Code if self.lang == Lang::R => {
                let text = args
                    .iter()
                    .find(|a| a.name.as_deref() == Some("text"))
                    .map(|a| a.val.clone())
                    .or_else(|| args.iter().any(|a| a.name.is_none()).then(|| first.clone()));
                match text {
                    Some(Val::Str(code, true)) => {
                        analyze_into(self.lang, &code, self.depth + 1, self.findings)
                    }
                    Some(_) => self.opaque(format!("`{name}` runs code only known at run time")),
                    None => {}
                }
            }
            Sink::Code => match &first {
                Val::Str(code, true) => {
                    let code = code.clone();
                    analyze_into(self.lang, &code, self.depth + 1, self.findings);
                }
                // Perl's `eval { ... }` block is ordinary code, already read.
                Val::Unknown if self.lang == Lang::Perl && args.is_empty() => {}
                _ => self.opaque(format!("`{name}` runs code only known at run time")),
            },
            Sink::Delete { recursive } => {
                let recursive = recursive || self.option(&args, "recursive");
                let paths = self.paths(&positional);
                self.delete(name, paths, recursive);
            }
            Sink::RmDir => {
                let paths = self.paths(&positional);
                if self.option(&args, "recursive") {
                    self.delete(name, paths, true);
                } else {
                    self.library("rmdir", &[], paths, name);
                }
            }
            Sink::Move => {
                let paths: Vec<Val> = positional
                    .into_iter()
                    .filter(|v| !matches!(v, Val::Ref(_)))
                    .take(2)
                    .collect();
                self.library("mv", &[], paths, name);
            }
            Sink::Write { path, mode } => {
                let writes = match mode {
                    None => true,
                    Some(at) => {
                        let named = args
                            .iter()
                            .find(|a| matches!(a.name.as_deref(), Some("mode" | "flags" | "flag")))
                            .map(|a| &a.val);
                        match named.or(positional.get(at)) {
                            Some(Val::Str(text, true)) => text.contains(['w', 'a', 'x', '+']),
                            // A mode only known at run time may write.
                            Some(_) => true,
                            None => false,
                        }
                    }
                };
                if let Some(target) = positional.get(path) {
                    // An open that does not write reads the file.
                    let program = if writes { "tee" } else { "cat" };
                    if writes || mode.is_some() {
                        self.library(program, &[], vec![target.clone()], name);
                    }
                }
            }
            Sink::Read { path } => {
                if let Some(target) = positional.get(path) {
                    self.library("cat", &[], vec![target.clone()], name);
                }
            }
            Sink::Copy => {
                let paths: Vec<Val> = positional.into_iter().take(2).collect();
                self.library("cp", &[], paths, name);
            }
            Sink::Link => {
                let paths: Vec<Val> = positional.into_iter().take(2).collect();
                self.library("ln", &["-s"], paths, name);
            }
            Sink::Opaque => self.opaque(format!("calls `{name}`, whose effect is not followed")),
        }
        Val::Unknown
    }

    /// The path arguments of a delete: all of them in Perl (`unlink LIST`),
    /// the first elsewhere; a list gives each of its items.
    fn paths(&self, positional: &[Val]) -> Vec<Val> {
        let take = if self.lang == Lang::Perl {
            positional.len()
        } else {
            1
        };
        let mut out = Vec::new();
        for val in positional.iter().take(take) {
            match val {
                Val::List(items) => out.extend(items.iter().cloned()),
                other => out.push(other.clone()),
            }
        }
        out
    }

    /// True when an option `key` is given and not plainly off
    /// (`shell=True`, `{recursive: true}`, `shell: x`).
    fn option(&self, args: &[Arg], key: &str) -> bool {
        args.iter().any(|arg| {
            if arg.name.as_deref() == Some(key) {
                let tok = self.toks.get(arg.range.start + 2);
                return !is_false(tok);
            }
            self.toks[arg.range.clone()].windows(3).any(|w| {
                matches!(&w[0], Tok::Ident(k) if k == key)
                    && matches!(w[1], Tok::Op(":" | "=" | "=>"))
                    && !is_false(Some(&w[2]))
            })
        })
    }

    fn perl_open(&mut self, args: &[Val]) {
        match args {
            [_, Val::Str(spec, literal)] if spec.trim_start().starts_with(['>', '+']) => {
                let path = spec.trim_start().trim_start_matches(['>', '+', '&']).trim();
                self.library(
                    "tee",
                    &[],
                    vec![Val::Str(path.to_string(), *literal)],
                    "open",
                );
            }
            [_, Val::Str(spec, literal)] => {
                let spec = spec.trim();
                if let Some(cmd) = spec.strip_prefix('|').or_else(|| spec.strip_suffix('|')) {
                    let cmd = cmd.trim();
                    if cmd != "-" {
                        self.run_shell(&Val::Str(cmd.to_string(), *literal), "open");
                    }
                }
            }
            [_, Val::Str(mode, true), target, ..] if mode.contains(['>', '+']) => {
                self.library("tee", &[], vec![target.clone()], "open");
            }
            [_, Val::Str(mode, true), rest @ ..] if mode.contains('|') => match rest {
                [] => {}
                [one] => self.run_shell(one, "open"),
                many => self.run_argv(many, "open"),
            },
            [_, Val::Str(..), ..] | [_] | [] => {}
            _ => self.opaque("`open` with a mode only known at run time".into()),
        }
    }

    fn run_shell(&mut self, code: &Val, call: &str) {
        if !self.room() {
            return;
        }
        match code {
            Val::Str(source, literal) => self.findings.effects.push(Effect::Shell {
                source: source.clone(),
                literal: *literal,
                call: call.to_string(),
            }),
            Val::List(items) => self.run_argv(items, call),
            _ => self.opaque(format!("`{call}` runs a command only known at run time")),
        }
    }

    fn run_argv(&mut self, items: &[Val], call: &str) {
        if items.is_empty() || !self.room() {
            return;
        }
        if !matches!(items.first(), Some(Val::Str(_, true))) {
            self.opaque(format!("`{call}` runs a program only known at run time"));
            return;
        }
        let words = items.iter().map(word_of).collect();
        self.findings.effects.push(Effect::Argv {
            words,
            call: call.to_string(),
        });
    }

    fn delete(&mut self, call: &str, paths: Vec<Val>, recursive: bool) {
        let flags: &[&str] = if recursive { &["-r", "-f"] } else { &["-f"] };
        self.library("rm", flags, paths, call);
    }

    /// A synthetic command standing for a library call.
    fn library(&mut self, program: &str, flags: &[&str], paths: Vec<Val>, call: &str) {
        if !self.room() {
            return;
        }
        let mut words = vec![Word::literal(program)];
        words.extend(flags.iter().map(|f| Word::literal(*f)));
        words.push(Word::literal("--"));
        if paths.is_empty() {
            // Perl's `unlink` alone works on `$_`.
            words.push(word_of(&Val::Unknown));
        }
        words.extend(paths.iter().map(word_of));
        self.findings.effects.push(Effect::Library {
            words,
            call: call.to_string(),
        });
    }
}

/// `base/next` for two known paths; a path only known at run time otherwise.
fn join_path(base: Val, next: Val) -> Val {
    match (base, next) {
        (_, Val::Str(next, literal)) if next.starts_with('/') => Val::Str(next, literal),
        (Val::Str(base, a), Val::Str(next, b)) => {
            Val::Str(format!("{}/{next}", base.trim_end_matches('/')), a && b)
        }
        _ => Val::Unknown,
    }
}

/// The home directory, as a shell word names it.
fn home() -> Val {
    Val::Str("~".into(), true)
}

/// The process environment as a mapping (`os.environ`, `ENV`).
fn is_environment(name: &str) -> bool {
    matches!(name, "os.environ" | "ENV" | "process.env")
}

fn name_of_path(method: &str) -> String {
    format!("Path.{method}")
}

/// `node:fs` is `fs`; `fs/promises` is `fs.promises`.
fn js_module(name: &str) -> String {
    name.strip_prefix("node:").unwrap_or(name).replace('/', ".")
}

fn concat(left: Val, right: Val) -> Val {
    match (left, right) {
        (Val::Str(a, la), Val::Str(b, lb)) => Val::Str(a + &b, la && lb),
        (Val::Str(a, _), _) => Val::Str(a + "?", false),
        (_, Val::Str(b, _)) => Val::Str(format!("?{b}"), false),
        _ => Val::Unknown,
    }
}

fn join_words(items: &[Val]) -> Val {
    let mut text = String::new();
    let mut literal = true;
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            text.push(' ');
        }
        match item {
            Val::Str(s, l) => {
                text.push_str(s);
                literal &= l;
            }
            _ => {
                text.push('?');
                literal = false;
            }
        }
    }
    Val::Str(text, literal)
}

/// A word for a value: known strings as they are, anything else as a
/// word only known at run time.
fn word_of(val: &Val) -> Word {
    match val {
        Val::Str(text, true) => Word::literal(text.clone()),
        Val::Str(text, false) => Word {
            text: text.clone(),
            literal: false,
            pattern: false,
        },
        Val::Ref(name) => Word {
            text: format!("${{{name}}}"),
            literal: false,
            pattern: false,
        },
        Val::Pattern(text, literal) => Word {
            text: text.clone(),
            literal: *literal,
            pattern: true,
        },
        _ => Word {
            text: "${?}".into(),
            literal: false,
            pattern: false,
        },
    }
}
