//! `map` over a list of strings, run natively, with the `filter`s and
//! `map`s it follows.
//!
//! The secrets pack follows its filter of a command's file arguments with
//! `.map(a, a.startsWith('if=') ? a.substring(3) : a).map(p, p.normalizedPath(project_root))`.
//! Per argument the interpreter binds the variable, looks up and calls
//! three or four functions by name and appends to a fresh list: on
//! `grep -rn TODO src | head -20` these maps were a sixth of the decision.
//!
//! A `map(v, F)` qualifies when its range is a name or its fields, or a
//! loop made native here or in [`super`] over one (`c.args.filter(...)`,
//! an earlier `map`), and `F` is built from
//! - `v`, the loop variable;
//! - `E.lowerAscii()` and `E.normalizedPath(project_root)`;
//! - `P ? E : E'`, where `P` is a predicate [`super`] runs (tests of `v`
//!   against literals);
//! - `v.substring(N)`, only as `v.startsWith(S) ? v.substring(N) : E'` with
//!   `N` an integer from 0 to `S`'s length in characters, where it cannot
//!   fail.
//!
//! It becomes `@strings_only_with(R, root) ? @map_strings(R, stages, root) : LOOP`:
//! `R` is the name the chain starts from, `stages` every `filter` and `map`
//! from it in order, `root` is `project_root` when a stage reads it (the
//! empty string otherwise) and `LOOP` the `map` as written. On a list of
//! strings and a string root each of those steps is a string, never an
//! error, so the native walk gives the chain's value. Anything else runs
//! the `map` as written. `project_root` is always defined where a
//! condition runs (the resolver's context value, or a loop variable of
//! that name), so the guard reading it cannot fail where the loop would
//! not; when it is not a string, the loop runs.

use super::{compile, is_stable, strings, Run, FILTER_STRINGS, MAX_DEPTH, STRINGS_ONLY};
use crate::expr::native_loops::{call, fresh_id, is_accu, ACCU};
use cel::common::ast::{operators, ComprehensionExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelBytes, CelList, CelString};
use cel::common::value::{CowVal, Val};
use cel::ExecutionError;
use std::borrow::Cow;

/// Whether a range is a list of strings and the root a string.
pub const STRINGS_ONLY_WITH: &str = "@strings_only_with";
/// The chain of `filter`s and `map`s over a list of strings, natively.
pub const MAP_STRINGS: &str = "@map_strings";

mod quantifier;
pub(super) use quantifier::{all_mapped, exists_mapped, rewrite as rewrite_quantifier};
pub use quantifier::{ALL_MAPPED, EXISTS_MAPPED};

/// The only variable a function may read besides the loop's.
const ROOT: &str = "project_root";

// ---- the rewrite -----------------------------------------------------------

/// The guarded native form of the `map` `c` (node `id`), when it qualifies.
/// The project root a rewritten call passes its native code: the `ROOT`
/// variable when the code reads it, an empty string otherwise.
pub(super) fn root_argument(id: u64, reads_root: bool) -> IdedExpr {
    IdedExpr {
        id: fresh_id(id, 1),
        expr: if reads_root {
            Expr::Ident(ROOT.to_string())
        } else {
            Expr::Literal(LiteralValue::String(String::new().into()))
        },
    }
}

pub(super) fn rewrite(c: &ComprehensionExpr, id: u64) -> Option<Expr> {
    let function = map_function(c)?;
    let (base, mut stages, mut reads_root) = chain_start(&c.iter_range)?;
    stages.push(MAP_STAGE);
    reads_root |= compile_function(function, &c.iter_var, &mut stages, 0)?;
    // The root and the base appear twice; ids only tie nodes to source
    // positions, which rewritten trees are never asked for.
    let root = || root_argument(id, reads_root);
    let guard = IdedExpr {
        id: fresh_id(id, 1),
        expr: call(STRINGS_ONLY_WITH, vec![base.clone(), root()]),
    };
    let stages = IdedExpr {
        id: fresh_id(id, 3),
        expr: Expr::Literal(LiteralValue::Bytes(CelBytes::from(stages))),
    };
    let native = IdedExpr {
        id: fresh_id(id, 2),
        expr: call(MAP_STRINGS, vec![base.clone(), stages, root()]),
    };
    let written = IdedExpr {
        id: fresh_id(id, 0),
        expr: Expr::Comprehension(Box::new(c.clone())),
    };
    Some(call(operators::CONDITIONAL, vec![guard, native, written]))
}

/// `F` of `map(v, F)` as the parser expands it: `@result + [F]`, an empty
/// list to start, no stop.
fn map_function(c: &ComprehensionExpr) -> Option<&IdedExpr> {
    let add = super::list_building_step(c)?;
    match (add.func_name.as_str(), &add.target, add.args.as_slice()) {
        (operators::ADD, None, [accu, list]) if is_accu(accu, ACCU) => match &list.expr {
            Expr::List(l) if l.optional_indices.is_empty() => match l.elements.as_slice() {
                [f] => Some(f),
                _ => None,
            },
            _ => None,
        },
        _ => None,
    }
}

/// The name a chain starts from, the stages so far, and whether they read
/// the root: a name or its fields (no stage yet), or a native `filter` or
/// `map` over one.
fn chain_start(range: &IdedExpr) -> Option<(IdedExpr, Vec<u8>, bool)> {
    if is_stable(range) {
        return Some((range.clone(), Vec::new(), false));
    }
    let Expr::Call(c) = &range.expr else {
        return None;
    };
    let [guard, native, _written] = c.args.as_slice() else {
        return None;
    };
    if c.func_name != operators::CONDITIONAL || c.target.is_some() {
        return None;
    }
    let (Expr::Call(guard), Expr::Call(native)) = (&guard.expr, &native.expr) else {
        return None;
    };
    let program = |e: &IdedExpr| match &e.expr {
        Expr::Literal(LiteralValue::Bytes(b)) => Some(b.inner().to_vec()),
        _ => None,
    };
    match (
        guard.func_name.as_str(),
        guard.args.as_slice(),
        native.func_name.as_str(),
        native.args.as_slice(),
    ) {
        (STRINGS_ONLY, [base], FILTER_STRINGS, [_, predicate]) if is_stable(base) => {
            let mut stages = vec![FILTER_STAGE];
            stages.extend(program(predicate)?);
            Some((base.clone(), stages, false))
        }
        (STRINGS_ONLY_WITH, [base, root], MAP_STRINGS, [_, stages, _]) if is_stable(base) => {
            let reads_root = matches!(&root.expr, Expr::Ident(name) if name == ROOT);
            Some((base.clone(), program(stages)?, reads_root))
        }
        _ => None,
    }
}

// ---- the program -----------------------------------------------------------
//
// Stages one after the other: FILTER_STAGE and a predicate node of
// [`super`], or MAP_STAGE and a function node. A function node is VAR |
// LITERAL s | LOWER f | NORMALIZED f | NORMALIZED_AT s f | SUBSTRING n f
// | CHOICE p f f', where `p` is a predicate node, `n` a little-endian u32
// and `s` a u32 length and that many bytes of UTF-8 (a string literal;
// for NORMALIZED_AT the root).

const FILTER_STAGE: u8 = 16;
const MAP_STAGE: u8 = 17;
const VAR: u8 = 32;
const LOWER: u8 = 33;
const NORMALIZED: u8 = 34;
const SUBSTRING: u8 = 35;
const CHOICE: u8 = 36;
const LITERAL: u8 = 37;
const NORMALIZED_AT: u8 = 38;

/// Appends the function node of `f` over `var`; whether it reads the
/// root. `None` when `f` is not of the shapes above.
fn compile_function(f: &IdedExpr, var: &str, out: &mut Vec<u8>, depth: usize) -> Option<bool> {
    if depth >= MAX_DEPTH {
        return None;
    }
    let is_var = |e: &IdedExpr| matches!(&e.expr, Expr::Ident(name) if name == var);
    match &f.expr {
        Expr::Ident(name) if name == var => {
            out.push(VAR);
            Some(false)
        }
        Expr::Literal(LiteralValue::String(s)) => {
            out.push(LITERAL);
            super::push_bytes(out, s.inner().as_bytes())?;
            Some(false)
        }
        Expr::Call(c) => match (c.func_name.as_str(), c.target.as_deref(), c.args.as_slice()) {
            ("lowerAscii", Some(target), []) => {
                out.push(LOWER);
                compile_function(target, var, out, depth + 1)
            }
            ("normalizedPath", Some(target), [root])
                if matches!(&root.expr, Expr::Ident(name) if name == ROOT) && var != ROOT =>
            {
                out.push(NORMALIZED);
                compile_function(target, var, out, depth + 1)?;
                Some(true)
            }
            ("normalizedPath", Some(target), [root]) => {
                let Expr::Literal(LiteralValue::String(root)) = &root.expr else {
                    return None;
                };
                out.push(NORMALIZED_AT);
                super::push_bytes(out, root.inner().as_bytes())?;
                compile_function(target, var, out, depth + 1)
            }
            (operators::CONDITIONAL, None, [test, then, otherwise]) => {
                out.push(CHOICE);
                compile(test, var, out, depth + 1)?;
                let reads_root = match safe_substring(test, then, &is_var) {
                    Some(n) => {
                        out.push(SUBSTRING);
                        out.extend(n.to_le_bytes());
                        out.push(VAR);
                        false
                    }
                    None => compile_function(then, var, out, depth + 1)?,
                };
                Some(compile_function(otherwise, var, out, depth + 1)? || reads_root)
            }
            _ => None,
        },
        _ => None,
    }
}

/// `N` of `then` = `v.substring(N)` when `test` is `v.startsWith(S)` and
/// `N` is at most `S`'s length in characters: a string that starts with
/// `S` has at least `N` characters, so the substring cannot fail.
fn safe_substring(
    test: &IdedExpr,
    then: &IdedExpr,
    is_var: &dyn Fn(&IdedExpr) -> bool,
) -> Option<u32> {
    let (Expr::Call(test), Expr::Call(then)) = (&test.expr, &then.expr) else {
        return None;
    };
    let prefix = match (
        test.func_name.as_str(),
        test.target.as_deref(),
        test.args.as_slice(),
    ) {
        ("startsWith", Some(v), [s]) if is_var(v) => match &s.expr {
            Expr::Literal(LiteralValue::String(s)) => s.inner().chars().count(),
            _ => return None,
        },
        _ => return None,
    };
    match (
        then.func_name.as_str(),
        then.target.as_deref(),
        then.args.as_slice(),
    ) {
        ("substring", Some(v), [n]) if is_var(v) => match &n.expr {
            Expr::Literal(LiteralValue::Int(n)) => {
                let n = *n.inner();
                (0..=prefix as i64)
                    .contains(&n)
                    .then(|| u32::try_from(n).ok())
                    .flatten()
            }
            _ => None,
        },
        _ => None,
    }
}

/// Applies function nodes to one string.
struct Apply<'a> {
    program: &'a [u8],
    at: usize,
    root: &'a str,
    /// `$HOME`, read by the first path normalised in a call: the
    /// interpreter reads it per `normalizedPath` (an environment lock, a
    /// scan and a copy), and nothing can change it within one call.
    home: &'a mut Option<Option<String>>,
    /// A buffer for predicates' lowercase copies.
    lower: &'a mut String,
}

impl<'a> Apply<'a> {
    fn byte(&mut self) -> Option<u8> {
        let b = *self.program.get(self.at)?;
        self.at += 1;
        Some(b)
    }

    /// The string field here (a literal or a root).
    fn text(&mut self) -> Option<&'a str> {
        std::str::from_utf8(super::read_bytes(self.program, &mut self.at)?).ok()
    }

    /// `text.normalizedPath(root)`, with `$HOME` as the call first read it.
    fn normalized(&mut self, text: &str, root: &str) -> String {
        let home = self.home.get_or_insert_with(crate::paths::home_dir);
        crate::paths::normalize(text, root, home.as_deref())
    }

    /// Whether the predicate node here holds for `v`.
    fn test(&mut self, v: &str) -> Option<bool> {
        let mut run = Run {
            program: self.program,
            at: self.at,
            s: v,
            lower: self.lower,
            lowered: false,
        };
        let answer = run.node(0)?;
        self.at = run.at;
        Some(answer)
    }

    /// The function node here applied to `v`, or only walked over (an
    /// empty text) when `apply` is false; `None` for a damaged program.
    fn value(&mut self, v: &str, apply: bool, depth: usize) -> Option<String> {
        if depth >= MAX_DEPTH {
            return None;
        }
        Some(match self.byte()? {
            VAR if apply => v.to_string(),
            VAR => String::new(),
            LOWER => {
                let mut text = self.value(v, apply, depth + 1)?;
                text.make_ascii_lowercase();
                text
            }
            LITERAL => {
                let text = self.text()?;
                if apply {
                    text.to_string()
                } else {
                    String::new()
                }
            }
            NORMALIZED => {
                let text = self.value(v, apply, depth + 1)?;
                if apply {
                    self.normalized(&text, self.root)
                } else {
                    text
                }
            }
            NORMALIZED_AT => {
                let root = self.text()?;
                let text = self.value(v, apply, depth + 1)?;
                if apply {
                    self.normalized(&text, root)
                } else {
                    text
                }
            }
            SUBSTRING => {
                let n = self.program.get(self.at..self.at.checked_add(4)?)?;
                let n = u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize;
                self.at += 4;
                let text = self.value(v, apply, depth + 1)?;
                if apply {
                    // Past the end only in a damaged program (see
                    // `safe_substring`).
                    let start = match text.char_indices().nth(n) {
                        Some((i, _)) => i,
                        None if text.chars().count() == n => text.len(),
                        None => return None,
                    };
                    text[start..].to_string()
                } else {
                    text
                }
            }
            CHOICE => {
                let holds = self.test(v)?;
                let then = self.value(v, apply && holds, depth + 1)?;
                let otherwise = self.value(v, apply && !holds, depth + 1)?;
                if holds {
                    then
                } else {
                    otherwise
                }
            }
            _ => return None,
        })
    }
}

/// The chain's value for one string: what the last stage makes of it, or
/// `None` when a filter drops it. `Err(())` for a damaged program.
fn through(
    stages: &[u8],
    s: &str,
    root: &str,
    home: &mut Option<Option<String>>,
    lower: &mut String,
) -> Result<Option<String>, ()> {
    let mut current: Cow<'_, str> = Cow::Borrowed(s);
    let mut apply = Apply {
        program: stages,
        at: 0,
        root,
        home,
        lower,
    };
    while apply.at < stages.len() {
        match apply.byte().ok_or(())? {
            FILTER_STAGE => {
                if !apply.test(&current).ok_or(())? {
                    return Ok(None);
                }
            }
            MAP_STAGE => current = Cow::Owned(apply.value(&current, true, 0).ok_or(())?),
            _ => return Err(()),
        }
    }
    Ok(Some(current.into_owned()))
}

// ---- the native functions ---------------------------------------------------

/// `@strings_only_with(range, root)`.
pub(super) fn strings_only_with<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    match args.as_slice() {
        [range, root] => Ok(super::answer(
            root.downcast_ref::<CelString>().is_some() && strings(range.as_ref()).is_some(),
        )),
        _ => Err(ExecutionError::invalid_argument_count(2, args.len())),
    }
}

/// `@map_strings(range, stages, root)`: the chain's strings, in order. The
/// range and root must be what the guard let through.
pub(super) fn map_strings<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let damaged = || ExecutionError::function_error(MAP_STRINGS, "damaged string program");
    let [range, stages, root] = args.as_slice() else {
        return Err(damaged());
    };
    let stages = stages.downcast_ref::<CelBytes>().ok_or_else(damaged)?;
    let (Some(strings), Some(root)) = (strings(range.as_ref()), root.downcast_ref::<CelString>())
    else {
        return Err(ExecutionError::function_error(
            MAP_STRINGS,
            "the range is not a list of strings or the root not a string",
        ));
    };
    let (mut lower, mut home) = (String::new(), None);
    let mut out: Vec<Box<dyn Val + 'v>> = Vec::with_capacity(strings.len());
    for s in strings {
        match through(
            stages.inner(),
            s.inner(),
            root.inner(),
            &mut home,
            &mut lower,
        ) {
            Ok(Some(text)) => out.push(Box::new(CelString::from(text))),
            Ok(None) => {}
            Err(()) => return Err(damaged()),
        }
    }
    Ok(CowVal::owned(CelList::from(out)))
}
