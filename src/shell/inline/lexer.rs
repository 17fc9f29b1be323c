//! Tokens of interpreter code, for finding the calls it makes.
//!
//! One small lexer serves Python, JavaScript, Perl, Ruby, PHP and awk: what
//! matters for the analysis is where strings, comments and command literals
//! (backticks, `qx{}`, `%x()`) begin and end, so that `os.system` inside a
//! comment or a string is never taken for a call, and what a string literal
//! holds once its escapes are decoded. A string with interpolation
//! (`f"{x}"`, `"$x"`, `"#{x}"`, `` `${x}` ``) is not literal.
//!
//! The lexer never fails: text it does not understand becomes punctuation,
//! and an unterminated string runs to the end of the code.

/// The languages whose code is analysed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    Python,
    JavaScript,
    Perl,
    Ruby,
    Php,
    Awk,
    Lua,
    R,
    Julia,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    /// A name, with its sigil for Perl and PHP variables (`$cmd`, `@args`).
    Ident(String),
    /// A string literal after escapes; `literal` is false when it interpolates.
    Str {
        text: String,
        literal: bool,
    },
    /// A command literal: backticks, `qx{}`, `%x()`; runs `text` in a shell.
    Cmd {
        text: String,
        literal: bool,
    },
    /// Perl's `s/pattern/replacement/flags`; `e` in the flags runs the replacement as code.
    Subst {
        replacement: String,
        flags: String,
    },
    /// Operators and punctuation: `::`, `->`, `=>`, `==`, `|&` or one character.
    Op(&'static str),
    /// A single character of punctuation not listed in [`OPS`].
    Punct(char),
    Num,
    /// A line break outside brackets ends a statement in Python, Ruby and awk.
    Newline,
}

/// Multi-character operators, longest first; single characters follow.
const OPS: &[&str] = &[
    "::", "->", "=>", "==", "!=", "<=", ">=", "+=", "|&", "||", "&&", "**", "(", ")", "[", "]",
    "{", "}", ",", ";", ".", "=", "+", ":", "|", "<", ">", "-", "*", "/", "%", "!", "?", "&", "@",
    "~", "^", "$", "#", "\\",
];

pub fn tokenize(lang: Lang, code: &str) -> Vec<Tok> {
    Lexer {
        lang,
        chars: code.chars().collect(),
        at: 0,
        out: Vec::new(),
    }
    .run()
}

struct Lexer {
    lang: Lang,
    chars: Vec<char>,
    at: usize,
    out: Vec<Tok>,
}

impl Lexer {
    fn peek(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.at + ahead).copied()
    }

    fn run(mut self) -> Vec<Tok> {
        while let Some(c) = self.peek(0) {
            match c {
                '\n' => {
                    self.at += 1;
                    self.out.push(Tok::Newline);
                }
                c if c.is_whitespace() => self.at += 1,
                '\\' if self.peek(1) == Some('\n') => self.at += 2,
                '#' if self.lang == Lang::Julia && self.peek(1) == Some('=') => {
                    self.julia_block_comment()
                }
                '#' if !matches!(self.lang, Lang::JavaScript | Lang::Lua) => self.line_comment(),
                '-' if self.lang == Lang::Lua && self.peek(1) == Some('-') => {
                    self.at += 2;
                    if self.lua_long_bracket().is_none() {
                        self.line_comment();
                    }
                }
                '[' if self.lang == Lang::Lua && matches!(self.peek(1), Some('[' | '=')) => {
                    match self.lua_long_bracket() {
                        Some(text) => self.out.push(Tok::Str {
                            text,
                            literal: true,
                        }),
                        None => self.operator(),
                    }
                }
                '.' if self.lang == Lang::Lua && self.peek(1) == Some('.') => {
                    self.at += 2;
                    if self.peek(0) == Some('.') {
                        self.at += 1;
                        self.out.push(Tok::Punct('…'));
                    } else {
                        self.out.push(Tok::Op(".."));
                    }
                }
                // Julia's `'` is a character or, after a value, the adjoint.
                '\'' if self.lang == Lang::Julia && !self.value_may_start() => self.operator(),
                '/' if self.peek(1) == Some('/') && self.c_comments() => self.line_comment(),
                '/' if self.peek(1) == Some('*') && self.c_comments() => self.block_comment(),
                '/' if self.regex_may_start() => self.regex(),
                '\'' | '"' => {
                    self.at += 1;
                    self.quoted(c, "");
                }
                '`' => {
                    self.at += 1;
                    self.backtick();
                }
                ':' if self.lang == Lang::Ruby && self.peek(1).is_some_and(is_ident_start) => {
                    // A symbol (`:system`) names a method as a string would.
                    self.at += 1;
                    let name = self.ident_text();
                    self.out.push(Tok::Str {
                        text: name,
                        literal: true,
                    });
                }
                '%' if self.lang == Lang::Ruby && self.ruby_percent() => {}
                '$' | '@' | '%' if self.sigil_variable() => {}
                c if is_ident_start(c) || (c == '$' && self.lang == Lang::JavaScript) => {
                    let start = self.at;
                    let name = self.ident_text();
                    if !self.prefixed_string(&name, start) {
                        self.out.push(Tok::Ident(name));
                    }
                }
                c if c.is_ascii_digit() => {
                    while self
                        .peek(0)
                        .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
                    {
                        self.at += 1;
                    }
                    self.out.push(Tok::Num);
                }
                _ => self.operator(),
            }
        }
        self.out
    }

    /// Lua's long brackets `[[...]]`, `[==[...]==]` at the cursor: the
    /// text inside (no escapes), or `None` (cursor unchanged) when there
    /// is none.
    fn lua_long_bracket(&mut self) -> Option<String> {
        if self.peek(0) != Some('[') {
            return None;
        }
        let mut level = 0;
        while self.peek(1 + level) == Some('=') {
            level += 1;
        }
        if self.peek(1 + level) != Some('[') {
            return None;
        }
        self.at += level + 2;
        let close: Vec<char> = std::iter::once(']')
            .chain(std::iter::repeat_n('=', level))
            .chain(std::iter::once(']'))
            .collect();
        let mut text = String::new();
        while self.at < self.chars.len() {
            if self.chars[self.at..].starts_with(&close) {
                self.at += close.len();
                return Some(text.strip_prefix('\n').map(str::to_string).unwrap_or(text));
            }
            text.push(self.chars[self.at]);
            self.at += 1;
        }
        Some(text)
    }

    /// Julia's `#= ... =#`, which nests.
    fn julia_block_comment(&mut self) {
        self.at += 2;
        let mut depth = 1;
        while let Some(c) = self.peek(0) {
            if c == '#' && self.peek(1) == Some('=') {
                depth += 1;
                self.at += 2;
            } else if c == '=' && self.peek(1) == Some('#') {
                depth -= 1;
                self.at += 2;
                if depth == 0 {
                    return;
                }
            } else {
                self.at += 1;
            }
        }
    }

    fn c_comments(&self) -> bool {
        matches!(self.lang, Lang::JavaScript | Lang::Php)
    }

    fn line_comment(&mut self) {
        while self.peek(0).is_some_and(|c| c != '\n') {
            self.at += 1;
        }
    }

    fn block_comment(&mut self) {
        self.at += 2;
        while let Some(c) = self.peek(0) {
            if c == '*' && self.peek(1) == Some('/') {
                self.at += 2;
                return;
            }
            self.at += 1;
        }
    }

    fn operator(&mut self) {
        for op in OPS {
            let matches = op.chars().enumerate().all(|(i, c)| self.peek(i) == Some(c));
            if matches {
                self.at += op.chars().count();
                self.out.push(Tok::Op(op));
                return;
            }
        }
        let c = self.peek(0).unwrap_or(' ');
        self.at += 1;
        self.out.push(Tok::Punct(c));
    }

    fn ident_text(&mut self) -> String {
        let start = self.at;
        let dollar = self.lang == Lang::JavaScript;
        while self
            .peek(0)
            .is_some_and(|c| is_ident_char(c) || (dollar && c == '$'))
        {
            self.at += 1;
        }
        // Ruby and Perl method names may end in `?` or `!`.
        if matches!(self.lang, Lang::Ruby)
            && matches!(self.peek(0), Some('!' | '?'))
            && self.peek(1) != Some('=')
        {
            self.at += 1;
        }
        // Julia's mutating functions end in `!` (`rm!` is not `rm`).
        if self.lang == Lang::Julia && self.peek(0) == Some('!') && self.peek(1) != Some('=') {
            self.at += 1;
        }
        self.chars[start..self.at].iter().collect()
    }

    /// `$name`, `@name`, `%name` (Perl) and `$name` (PHP) are one name;
    /// `$_` and Perl's punctuation variables too.
    fn sigil_variable(&mut self) -> bool {
        let sigil = self.peek(0).unwrap_or(' ');
        let wanted = match self.lang {
            Lang::Perl => {
                matches!(sigil, '$' | '@')
                    || (sigil == '%' && self.peek(1).is_some_and(is_ident_start))
            }
            Lang::Php => sigil == '$',
            _ => false,
        };
        if !wanted {
            return false;
        }
        let Some(next) = self.peek(1) else {
            return false;
        };
        if is_ident_start(next) {
            self.at += 1;
            let mut name = String::from(sigil);
            name.push_str(&self.ident_text());
            // Perl package names: `$File::Path::x`.
            while self.lang == Lang::Perl
                && self.peek(0) == Some(':')
                && self.peek(1) == Some(':')
                && self.peek(2).is_some_and(is_ident_start)
            {
                self.at += 2;
                name.push_str("::");
                name.push_str(&self.ident_text());
            }
            self.out.push(Tok::Ident(name));
            return true;
        }
        if self.lang == Lang::Perl && sigil == '$' && !next.is_whitespace() && next != '{' {
            self.at += 2;
            self.out.push(Tok::Ident(format!("${next}")));
            return true;
        }
        false
    }

    /// Python string prefixes (`r'...'`, `f"..."`, `rb'...'`) and Perl's
    /// quote-like operators (`q{}`, `qq{}`, `qw()`, `qx{}`, `m//`, `s///`,
    /// `tr///`, `y///`), read right after the name.
    fn prefixed_string(&mut self, name: &str, start: usize) -> bool {
        let next = self.peek(0);
        match self.lang {
            Lang::Python => {
                let lower = name.to_ascii_lowercase();
                let is_prefix = matches!(
                    lower.as_str(),
                    "r" | "u" | "b" | "f" | "rb" | "br" | "fr" | "rf"
                );
                if is_prefix && matches!(next, Some('\'' | '"')) {
                    let quote = next.unwrap_or('"');
                    self.at += 1;
                    self.quoted(quote, &lower);
                    return true;
                }
                false
            }
            // R's raw strings: `r"(...)"`, `R"-[...]-"`.
            Lang::R if matches!(name, "r" | "R") && matches!(next, Some('\'' | '"')) => {
                let quote = next.unwrap_or('"');
                let mut dashes = 0;
                while self.peek(1 + dashes) == Some('-') {
                    dashes += 1;
                }
                let Some(close) = self.peek(1 + dashes).and_then(closing) else {
                    return false;
                };
                self.at += dashes + 2;
                let end: Vec<char> = std::iter::once(close)
                    .chain(std::iter::repeat_n('-', dashes))
                    .chain(std::iter::once(quote))
                    .collect();
                let mut text = String::new();
                while self.at < self.chars.len() && !self.chars[self.at..].starts_with(&end) {
                    text.push(self.chars[self.at]);
                    self.at += 1;
                }
                self.at = (self.at + end.len()).min(self.chars.len());
                self.out.push(Tok::Str {
                    text,
                    literal: true,
                });
                true
            }
            // Julia's string macros: `raw"..."` keeps backslashes; others
            // (`r"..."`, `b"..."`) are read as plain strings.
            Lang::Julia if next == Some('"') => {
                self.at += 1;
                if name == "raw" {
                    self.quoted('"', "r");
                } else {
                    self.quoted('"', "");
                }
                true
            }
            Lang::Perl => {
                let previous_is_arrow = matches!(self.out.last(), Some(Tok::Op("->")));
                let Some(open) = next.filter(|c| perl_delimiter(*c)) else {
                    // `qw (a b)` and `q {x}` with a blank are rare; not followed.
                    return false;
                };
                if previous_is_arrow || (open == '=' && self.peek(1) == Some('>')) {
                    return false;
                }
                match name {
                    "q" | "qq" | "qw" | "qx" | "m" | "qr" => {
                        self.at += 1;
                        let text = self.delimited(open);
                        let tok = match name {
                            "q" => Tok::Str {
                                text,
                                literal: true,
                            },
                            "qq" => Tok::Str {
                                literal: !perl_interpolates(&text),
                                text,
                            },
                            "qw" => {
                                for word in text.split_whitespace() {
                                    self.out.push(Tok::Str {
                                        text: word.to_string(),
                                        literal: true,
                                    });
                                    self.out.push(Tok::Op(","));
                                }
                                self.out.pop();
                                return true;
                            }
                            "qx" => Tok::Cmd {
                                literal: open == '\'' || !perl_interpolates(&text),
                                text,
                            },
                            _ => {
                                self.skip_flags();
                                Tok::Num
                            }
                        };
                        self.out.push(tok);
                        true
                    }
                    "s" | "tr" | "y" => {
                        self.at += 1;
                        let _pattern = self.delimited(open);
                        let replacement = match closing(open) {
                            // `s{a}{b}`: a second bracketed part, maybe after blanks.
                            Some(_) => {
                                while self.peek(0).is_some_and(char::is_whitespace) {
                                    self.at += 1;
                                }
                                match self.peek(0) {
                                    Some(second) if perl_delimiter(second) => {
                                        self.at += 1;
                                        self.delimited(second)
                                    }
                                    _ => String::new(),
                                }
                            }
                            None => self.delimited(open),
                        };
                        let flags_start = self.at;
                        self.skip_flags();
                        let flags: String = self.chars[flags_start..self.at].iter().collect();
                        self.out.push(Tok::Subst { replacement, flags });
                        true
                    }
                    _ => {
                        self.at = start + name.chars().count();
                        false
                    }
                }
            }
            _ => false,
        }
    }

    fn skip_flags(&mut self) {
        while self.peek(0).is_some_and(|c| c.is_ascii_alphabetic()) {
            self.at += 1;
        }
    }

    /// Text up to the delimiter closing `open` (nesting for brackets);
    /// backslashes kept except before the delimiter.
    fn delimited(&mut self, open: char) -> String {
        let close = closing(open).unwrap_or(open);
        let mut depth = 0usize;
        let mut text = String::new();
        while let Some(c) = self.peek(0) {
            self.at += 1;
            if c == '\\' {
                if let Some(n) = self.peek(0) {
                    self.at += 1;
                    if n != close && n != open {
                        text.push('\\');
                    }
                    text.push(n);
                }
                continue;
            }
            if c == close && depth == 0 {
                return text;
            }
            if close != open {
                if c == open {
                    depth += 1;
                } else if c == close {
                    depth -= 1;
                }
            }
            text.push(c);
        }
        text
    }

    /// Ruby's `%q()`, `%Q()`, `%()`, `%w()`, `%i()` and `%x()`.
    fn ruby_percent(&mut self) -> bool {
        let kind = self.peek(1);
        let (kind, open_at) = match kind {
            Some(k @ ('q' | 'Q' | 'w' | 'W' | 'i' | 'I' | 'x')) => (k, 2),
            Some('(' | '[' | '{' | '<' | '|' | '!') => ('Q', 1),
            _ => return false,
        };
        let Some(open) = self.peek(open_at).filter(|c| perl_delimiter(*c)) else {
            return false;
        };
        // `x % (y)` is arithmetic: only take `%(` where a value may start.
        if open_at == 1 && !self.value_may_start() {
            return false;
        }
        self.at += open_at + 1;
        let text = self.delimited(open);
        let interpolates = matches!(kind, 'Q' | 'W' | 'I' | 'x') && text.contains("#{");
        match kind {
            'x' => self.out.push(Tok::Cmd {
                text,
                literal: !interpolates,
            }),
            'w' | 'W' | 'i' | 'I' => {
                for word in text.split_whitespace() {
                    self.out.push(Tok::Str {
                        text: word.to_string(),
                        literal: !interpolates,
                    });
                    self.out.push(Tok::Op(","));
                }
                if matches!(self.out.last(), Some(Tok::Op(","))) {
                    self.out.pop();
                }
            }
            _ => self.out.push(Tok::Str {
                text,
                literal: !interpolates,
            }),
        }
        true
    }

    /// True when the previous token cannot end a value, so `/` starts a
    /// regex rather than a division (and Ruby's `%(` a string).
    fn value_may_start(&self) -> bool {
        match self.out.last() {
            None | Some(Tok::Newline) => true,
            Some(Tok::Op(op)) => !matches!(*op, ")" | "]" | "}"),
            Some(Tok::Punct(_)) => true,
            Some(Tok::Ident(name)) => matches!(
                name.as_str(),
                "return"
                    | "and"
                    | "or"
                    | "not"
                    | "if"
                    | "unless"
                    | "when"
                    | "split"
                    | "grep"
                    | "typeof"
                    | "in"
                    | "of"
                    | "print"
                    | "printf"
            ),
            Some(_) => false,
        }
    }

    fn regex_may_start(&self) -> bool {
        matches!(
            self.lang,
            Lang::JavaScript | Lang::Perl | Lang::Ruby | Lang::Awk
        ) && self.value_may_start()
    }

    fn regex(&mut self) {
        self.at += 1;
        let mut in_class = false;
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                '\\' => self.at += 1,
                '[' => in_class = true,
                ']' => in_class = false,
                '/' if !in_class => break,
                '\n' => break,
                _ => {}
            }
        }
        self.skip_flags();
        self.out.push(Tok::Num);
    }

    fn backtick(&mut self) {
        let mut text = String::new();
        let mut literal = true;
        while let Some(c) = self.peek(0) {
            self.at += 1;
            match c {
                '`' => break,
                '\\' => {
                    if let Some(n) = self.peek(0) {
                        self.at += 1;
                        text.push(n);
                    }
                }
                '$' if self.lang == Lang::JavaScript && self.peek(0) == Some('{') => {
                    literal = false;
                    text.push(c);
                }
                '$' | '@' if matches!(self.lang, Lang::Perl | Lang::Php) => {
                    if self.peek(0).is_some_and(|n| is_ident_start(n) || n == '{') {
                        literal = false;
                    }
                    text.push(c);
                }
                '$' if self.lang == Lang::Julia
                    && self.peek(0).is_some_and(|n| is_ident_start(n) || n == '(') =>
                {
                    literal = false;
                    text.push(c);
                }
                '#' if self.lang == Lang::Ruby && self.peek(0) == Some('{') => {
                    literal = false;
                    text.push(c);
                }
                _ => text.push(c),
            }
        }
        let tok = if self.lang == Lang::JavaScript {
            Tok::Str { text, literal }
        } else {
            Tok::Cmd { text, literal }
        };
        self.out.push(tok);
    }

    /// A quoted string opened by `quote` (already consumed), with Python
    /// `prefix` (lower case) when there was one.
    fn quoted(&mut self, quote: char, prefix: &str) {
        let triple = (self.lang == Lang::Python || (self.lang == Lang::Julia && quote == '"'))
            && self.peek(0) == Some(quote)
            && self.peek(1) == Some(quote);
        if triple {
            self.at += 2;
        }
        let raw = prefix.contains('r')
            || (quote == '\'' && matches!(self.lang, Lang::Perl | Lang::Ruby | Lang::Php));
        let mut text = String::new();
        let mut literal = true;
        let interpolating = match self.lang {
            Lang::Python => prefix.contains('f'),
            Lang::JavaScript | Lang::Awk | Lang::Lua | Lang::R => false,
            Lang::Perl | Lang::Ruby | Lang::Php => quote == '"',
            Lang::Julia => !prefix.contains('r'),
        };
        while let Some(c) = self.peek(0) {
            if c == quote {
                if !triple {
                    self.at += 1;
                    break;
                }
                if self.peek(1) == Some(quote) && self.peek(2) == Some(quote) {
                    self.at += 3;
                    break;
                }
            }
            self.at += 1;
            if c == '\\' {
                let Some(n) = self.peek(0) else { break };
                self.at += 1;
                if raw {
                    // In single-quoted Perl/Ruby/PHP text only `\\` and `\'` are escapes.
                    let single = quote == '\'' && !prefix.contains('r');
                    if !(single && (n == '\\' || n == quote)) {
                        text.push('\\');
                    }
                    text.push(n);
                } else {
                    self.escape(n, &mut text);
                }
                continue;
            }
            if interpolating {
                let next = self.peek(0);
                let starts = match self.lang {
                    Lang::Python => c == '{' && next != Some('{'),
                    Lang::Ruby => c == '#' && matches!(next, Some('{' | '@' | '$')),
                    Lang::Julia => c == '$' && next.is_some_and(|n| is_ident_start(n) || n == '('),
                    _ => {
                        matches!(c, '$' | '@')
                            && next.is_some_and(|n| {
                                is_ident_start(n) || n == '{' || (c == '$' && n == '$')
                            })
                    }
                };
                if starts {
                    literal = false;
                } else if self.lang == Lang::Python
                    && ((c == '{' && next == Some('{')) || (c == '}' && next == Some('}')))
                {
                    // `{{` and `}}` are literal braces.
                    self.at += 1;
                }
            }
            text.push(c);
        }
        self.out.push(Tok::Str { text, literal });
    }

    fn escape(&mut self, n: char, text: &mut String) {
        let hex = |lexer: &mut Lexer, digits: usize| -> Option<char> {
            let s: String = lexer
                .chars
                .get(lexer.at..lexer.at + digits)?
                .iter()
                .collect();
            let code = u32::from_str_radix(&s, 16).ok()?;
            lexer.at += digits;
            char::from_u32(code)
        };
        let decoded = match n {
            'n' => Some('\n'),
            't' => Some('\t'),
            'r' => Some('\r'),
            // Lua's `\ddd` is decimal: `\114\109` is `rm`.
            '0'..='9' if self.lang == Lang::Lua => {
                let mut value = n.to_digit(10).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek(0).and_then(|c| c.to_digit(10)) {
                        Some(d) => {
                            value = value * 10 + d;
                            self.at += 1;
                        }
                        None => break,
                    }
                }
                char::from_u32(value)
            }
            // Lua's `\z` skips the line break and blanks after it.
            'z' if self.lang == Lang::Lua => {
                while self.peek(0).is_some_and(char::is_whitespace) {
                    self.at += 1;
                }
                return;
            }
            '0'..='7' => {
                let mut value = n.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match self.peek(0).and_then(|c| c.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            self.at += 1;
                        }
                        None => break,
                    }
                }
                char::from_u32(value)
            }
            'x' if self.peek(0) == Some('{') => {
                let end = self.chars[self.at..].iter().position(|c| *c == '}');
                end.and_then(|end| {
                    let s: String = self.chars[self.at + 1..self.at + end].iter().collect();
                    self.at += end + 1;
                    u32::from_str_radix(&s, 16).ok().and_then(char::from_u32)
                })
            }
            'x' => hex(self, 2),
            'u' if self.peek(0) == Some('{') => {
                let end = self.chars[self.at..].iter().position(|c| *c == '}');
                end.and_then(|end| {
                    let s: String = self.chars[self.at + 1..self.at + end].iter().collect();
                    self.at += end + 1;
                    u32::from_str_radix(&s, 16).ok().and_then(char::from_u32)
                })
            }
            'u' => hex(self, 4),
            'U' => hex(self, 8),
            '\n' => return,
            other => Some(other),
        };
        match decoded {
            Some(c) => text.push(c),
            None => {
                text.push('\\');
                text.push(n);
            }
        }
    }
}

fn is_ident_start(c: char) -> bool {
    c.is_alphabetic() || c == '_'
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

fn perl_delimiter(c: char) -> bool {
    !c.is_alphanumeric() && !c.is_whitespace() && c != '_' && c != ',' && c != ';' && c != ')'
}

fn closing(open: char) -> Option<char> {
    match open {
        '(' => Some(')'),
        '[' => Some(']'),
        '{' => Some('}'),
        '<' => Some('>'),
        _ => None,
    }
}

/// Perl interpolates `$name`, `${...}`, `@name` in double-quoted text.
fn perl_interpolates(text: &str) -> bool {
    let chars: Vec<char> = text.chars().collect();
    chars.windows(2).enumerate().any(|(i, w)| {
        let escaped = i > 0 && chars[i - 1] == '\\';
        !escaped && matches!(w[0], '$' | '@') && (is_ident_start(w[1]) || w[1] == '{')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn strs(lang: Lang, code: &str) -> Vec<(String, bool)> {
        tokenize(lang, code)
            .into_iter()
            .filter_map(|t| match t {
                Tok::Str { text, literal } => Some((text, literal)),
                _ => None,
            })
            .collect()
    }

    #[test]
    fn python_strings_decode_and_f_strings_are_not_literal() {
        assert_eq!(
            strs(
                Lang::Python,
                r#"x = 'r\x6d -rf /' + "a\"b" # os.system('no')"#
            ),
            [("rm -rf /".to_string(), true), ("a\"b".to_string(), true)]
        );
        assert!(!strs(Lang::Python, "f'{x}'")[0].1);
        assert_eq!(strs(Lang::Python, "f'{{x}}'")[0], ("{x}".to_string(), true));
        assert_eq!(strs(Lang::Python, r"r'\n'")[0].0, "\\n");
        assert_eq!(strs(Lang::Python, "'''a'b'''")[0].0, "a'b");
    }

    #[test]
    fn perl_quote_operators_and_interpolation() {
        let toks = tokenize(
            Lang::Perl,
            r#"system qq{rm $x}; qx(ls); s/a/b/e; print 'a\'b'"#,
        );
        assert!(toks.contains(&Tok::Str {
            text: "rm $x".into(),
            literal: false
        }));
        assert!(toks.contains(&Tok::Cmd {
            text: "ls".into(),
            literal: true
        }));
        assert!(toks.contains(&Tok::Subst {
            replacement: "b".into(),
            flags: "e".into()
        }));
        assert!(toks.contains(&Tok::Str {
            text: "a'b".into(),
            literal: true
        }));
    }

    #[test]
    fn javascript_templates_and_regexes() {
        assert!(!strs(Lang::JavaScript, "`a${b}`")[0].1);
        let toks = tokenize(Lang::JavaScript, "x = /'/; y = 'z' // 'c'");
        assert_eq!(
            strs(Lang::JavaScript, "x = /'/; y = 'z' // 'c'"),
            [("z".to_string(), true)]
        );
        assert!(toks.contains(&Tok::Num));
    }

    #[test]
    fn ruby_percent_literals_and_symbols() {
        let toks = tokenize(Lang::Ruby, "%x(rm -rf /); send(:system, %q(ls))");
        assert!(toks.contains(&Tok::Cmd {
            text: "rm -rf /".into(),
            literal: true
        }));
        assert!(toks.contains(&Tok::Str {
            text: "system".into(),
            literal: true
        }));
    }
}
