//! Whether a `find` acts on files its tests do not pick.
//!
//! `find /tmp -name 'app-*' -delete` deletes what its test names, but
//! `find /tmp -delete`, `find /tmp -delete -name x` (the action runs before
//! the test) and `find . -name '*.keep' -o -delete` (the action runs where
//! the test fails) delete everything under their starting point, the
//! starting point itself included, as `rm -rf` of it would. A count of the
//! tests on the line cannot tell these apart; evaluating the expression
//! can: this module follows find's operators (`!`, `-a`, `-o`, `,`,
//! parentheses, in find's precedence) for a file that matches none of the
//! tests, and says whether an action that deletes (`-delete`, or
//! `-exec`, `-execdir`, `-ok`, `-okdir` running `rm` and its kin) is
//! reached for it.
//!
//! find reads its whole expression before it acts, so one it refuses (a
//! missing argument, an `-exec` without `;` or `{} +`, an unbalanced
//! parenthesis, a stray word) deletes nothing. What cannot be read here
//! (a primary this module does not know, a word only known at run time)
//! counts as reaching the action: the answer only adds a target to what
//! the guard looks at.

use super::words::Word;
use super::wrappers::program_name;

/// Tests that take one argument (`-newerXY` is handled by its prefix).
const TESTS_WITH_VALUE: &[&str] = &[
    "-name",
    "-iname",
    "-path",
    "-ipath",
    "-wholename",
    "-iwholename",
    "-regex",
    "-iregex",
    "-lname",
    "-ilname",
    "-type",
    "-xtype",
    "-user",
    "-group",
    "-uid",
    "-gid",
    "-perm",
    "-size",
    "-mtime",
    "-mmin",
    "-atime",
    "-amin",
    "-ctime",
    "-cmin",
    "-used",
    "-anewer",
    "-cnewer",
    "-samefile",
    "-inum",
    "-links",
    "-fstype",
    "-context",
];

/// Tests that take no argument.
const TESTS: &[&str] = &[
    "-empty",
    "-executable",
    "-readable",
    "-writable",
    "-nouser",
    "-nogroup",
    "-false",
];

/// Options, and actions that change nothing: always true, so they pick
/// no file (`-prune` stops descending, which narrows nothing it reaches).
const ALWAYS_TRUE: &[&str] = &[
    "-true",
    "-depth",
    "-d",
    "-xdev",
    "-mount",
    "-noleaf",
    "-ignore_readdir_race",
    "-noignore_readdir_race",
    "-daystart",
    "-follow",
    "-warn",
    "-nowarn",
    "-print",
    "-print0",
    "-ls",
    "-prune",
    "-quit",
];

/// The same with one argument.
const ALWAYS_TRUE_WITH_VALUE: &[&str] = &[
    "-maxdepth",
    "-mindepth",
    "-regextype",
    "-printf",
    "-fprint",
    "-fprint0",
    "-fls",
    "-files0-from",
];

/// What evaluating part of an expression for an untested file gives.
#[derive(Debug, Clone, Copy, Default)]
struct Outcome {
    may_be_true: bool,
    may_be_false: bool,
    /// A deleting action ran.
    acted: bool,
}

impl Outcome {
    fn value(may_be_true: bool, may_be_false: bool) -> Outcome {
        Outcome {
            may_be_true,
            may_be_false,
            acted: false,
        }
    }
}

/// Programs whose run by `-exec` deletes what find hands them.
const DELETERS: &[&str] = &["rm", "unlink", "rmdir", "shred", "srm", "wipe"];

/// True when one of find's deleting actions in `expr` (the words after
/// the starting points) runs for a file no test picks.
pub fn deletes_beyond_its_tests(expr: &[Word]) -> bool {
    if expr.is_empty() {
        return false;
    }
    let mut reader = Reader { words: expr, at: 0 };
    match reader.list() {
        Ok(outcome) if reader.at == expr.len() => outcome.acted,
        Ok(_) | Err(Stop::Refused) => false,
        Err(Stop::Unknown) => true,
    }
}

/// Why an expression was not read to its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stop {
    /// find refuses it and runs nothing.
    Refused,
    /// A word this module cannot read.
    Unknown,
}

struct Reader<'a> {
    words: &'a [Word],
    at: usize,
}

impl Reader<'_> {
    fn peek(&self) -> Option<&str> {
        self.words.get(self.at).map(|w| w.text.as_str())
    }

    /// `a , b`: both run; the value is the last one's.
    fn list(&mut self) -> Result<Outcome, Stop> {
        let mut outcome = self.or()?;
        while self.peek() == Some(",") {
            self.at += 1;
            let next = self.or()?;
            outcome = Outcome {
                acted: outcome.acted || next.acted,
                ..next
            };
        }
        Ok(outcome)
    }

    /// `a -o b`: b runs where a may be false.
    fn or(&mut self) -> Result<Outcome, Stop> {
        let mut outcome = self.and()?;
        while matches!(self.peek(), Some("-o" | "-or")) {
            self.at += 1;
            let next = self.and()?;
            outcome = if outcome.may_be_false {
                Outcome {
                    may_be_true: outcome.may_be_true || next.may_be_true,
                    may_be_false: next.may_be_false,
                    acted: outcome.acted || next.acted,
                }
            } else {
                outcome
            };
        }
        Ok(outcome)
    }

    /// `a -a b`, or `a b`: b runs where a may be true.
    fn and(&mut self) -> Result<Outcome, Stop> {
        let mut outcome = self.not()?;
        loop {
            match self.peek() {
                None | Some(")" | "-o" | "-or" | ",") => return Ok(outcome),
                Some("-a" | "-and") => self.at += 1,
                Some(_) => {}
            }
            let next = self.not()?;
            outcome = if outcome.may_be_true {
                Outcome {
                    may_be_true: next.may_be_true,
                    may_be_false: outcome.may_be_false || next.may_be_false,
                    acted: outcome.acted || next.acted,
                }
            } else {
                outcome
            };
        }
    }

    fn not(&mut self) -> Result<Outcome, Stop> {
        if matches!(self.peek(), Some("!" | "-not")) {
            self.at += 1;
            let inner = self.not()?;
            return Ok(Outcome {
                may_be_true: inner.may_be_false,
                may_be_false: inner.may_be_true,
                acted: inner.acted,
            });
        }
        self.primary()
    }

    fn primary(&mut self) -> Result<Outcome, Stop> {
        let word = self.words.get(self.at).ok_or(Stop::Refused)?;
        if !word.literal {
            return Err(Stop::Unknown);
        }
        self.at += 1;
        let name = word.text.as_str();
        let given =
            |outcome: Outcome, present: bool| present.then_some(outcome).ok_or(Stop::Refused);
        match name {
            "(" => {
                let inner = self.list()?;
                given(inner, self.peek() == Some(")"))?;
                self.at += 1;
                Ok(inner)
            }
            "-delete" => Ok(Outcome {
                acted: true,
                ..Outcome::value(true, true)
            }),
            "-exec" | "-execdir" | "-ok" | "-okdir" => {
                let start = self.at;
                let words = self.words;
                // Any word naming a deleter counts, so wrappers (`env`,
                // `sudo`, `busybox`) need no reading of their own.
                let mut deletes = false;
                while let Some(word) = words.get(self.at) {
                    self.at += 1;
                    let text = word.text.as_str();
                    if text == ";" {
                        return Ok(Outcome {
                            acted: deletes,
                            ..Outcome::value(true, true)
                        });
                    }
                    if text == "+" && self.at - 1 > start && words[self.at - 2].text == "{}" {
                        return Ok(Outcome {
                            acted: deletes,
                            ..Outcome::value(true, false)
                        });
                    }
                    deletes |= DELETERS.contains(&program_name(text).as_str());
                }
                Err(Stop::Refused)
            }
            "-fprintf" => given(Outcome::value(true, false), self.skip(2)),
            _ if ALWAYS_TRUE.contains(&name) => Ok(Outcome::value(true, false)),
            _ if ALWAYS_TRUE_WITH_VALUE.contains(&name) => {
                given(Outcome::value(true, false), self.skip(1))
            }
            _ if TESTS.contains(&name) => Ok(Outcome::value(false, true)),
            _ if TESTS_WITH_VALUE.contains(&name) || name.starts_with("-newer") => {
                given(Outcome::value(false, true), self.skip(1))
            }
            // find takes any other word there for a path out of place.
            _ if !name.starts_with('-') || name == "-" => Err(Stop::Refused),
            _ => Err(Stop::Unknown),
        }
    }

    /// Steps over `count` arguments; false when they are missing.
    fn skip(&mut self, count: usize) -> bool {
        self.at += count;
        self.at <= self.words.len()
    }
}

#[cfg(test)]
mod tests {
    use super::deletes_beyond_its_tests;
    use crate::shell::words::Word;

    fn expr(text: &str) -> Vec<Word> {
        text.split_whitespace().map(Word::literal).collect()
    }

    #[test]
    fn an_action_no_test_guards_acts_on_everything() {
        for text in [
            "-delete",
            "-mindepth 1 -delete",
            "-depth -print -delete",
            "-exec rm -rf {} +",
            "-delete -name x",
            "-name x -o -delete",
            "-not -path ./.git/* -delete",
            "-path ./node_modules -prune -o -exec rm -rf {} +",
            "-name a -delete , -delete",
            "( -name a -o -true ) -delete",
            "-exec true ; -delete",
            "-exec env /bin/rm -f {} ;",
            "-execdir busybox rm -rf {} +",
            "-newermt 2024-01-01 -o -delete",
            "-unknown-test x -delete",
            "-name x -o -unknown -delete",
        ] {
            assert!(deletes_beyond_its_tests(&expr(text)), "{text}");
        }
    }

    #[test]
    fn tests_before_the_action_pick_the_files() {
        for text in [
            "-name *.pyc -delete",
            "-type f -mtime +7 -delete",
            "-maxdepth 1 -name app-* -exec rm -rf {} +",
            "( -name *.pyc -o -name *.pyo ) -delete",
            "-name a -delete -o -name b -delete",
            "-type d -name __pycache__ -prune -exec rm -rf {} +",
            "-newermt 2024-01-01 -delete",
            "-empty -delete",
            "-name x",
            "-print",
            "-exec grep -l x {} +",
            // find refuses these and runs nothing.
            "-name",
            "( -name x -delete",
            "-delete )",
            "-exec echo -delete + -print",
            "-delete stray",
            "-exec chmod 644 {} ;",
            "",
        ] {
            assert!(!deletes_beyond_its_tests(&expr(text)), "{text}");
        }
    }
}
