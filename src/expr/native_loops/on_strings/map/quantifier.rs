//! `exists` and `all` over a chain of native `filter`s and `map`s, or over
//! a name, whose test compares computed strings, run natively.
//!
//! The secrets pack asks, per command, whether a file argument names the
//! user's `.npmrc`:
//! `c.args.filter(...).map(a, a.startsWith('if=') ? a.substring(3) : a).exists(p, p.normalizedPath(project_root).lowerAscii() == '~/.npmrc'.normalizedPath('/').lowerAscii())`.
//! Its range was already one native call, but the interpreter ran the
//! `exists` itself: per argument a binding, two `normalizedPath` calls
//! (each reading `$HOME`) and two `lowerAscii`, though the right side is
//! the same string for every argument.
//!
//! An `R.exists(v, T)` or `R.all(v, T)` qualifies when `R` is what a
//! native `map` may start from (a name or its fields, or a native `filter`
//! or `map` of one) and `T` is
//! - a predicate [`super::super`] runs (tests of `v` against literals), or
//! - `F == G` or `F != G`, where `F` and `G` are functions a native `map`
//!   may apply, here also string literals and `normalizedPath` with a
//!   literal root (`'~/.npmrc'.normalizedPath('/')`).
//!
//! It becomes `@strings_only_with(R0, root) ? @exists_mapped(R0, stages, test, root) : LOOP`,
//! with `R0`, `stages` and `root` as for a native `map`. On a list of
//! strings and a string root every stage and both sides of the test are
//! strings, never errors, so the loop's value is whether some (every)
//! element the stages keep passes the test. A side that does not mention
//! `v` is computed once per call: it is the same string for every element.

use super::{chain_start, compile_function, through, Apply};
use crate::expr::native_loops::on_strings::{answer, compile, Run};
use crate::expr::native_loops::{call, fresh_id, Quantifier};
use cel::common::ast::{operators, ComprehensionExpr, Expr, IdedExpr, LiteralValue};
use cel::common::types::{CelBytes, CelString};
use cel::common::value::CowVal;
use cel::ExecutionError;

/// `R.exists(v, T)` over a chain, natively. Names no CEL source can spell.
pub const EXISTS_MAPPED: &str = "@exists_mapped";
/// `R.all(v, T)` over a chain, natively.
pub const ALL_MAPPED: &str = "@all_mapped";

// ---- the rewrite -----------------------------------------------------------

/// The guarded native form of the quantifier `c` (node `id`) with test
/// `test`, when it qualifies.
pub(in crate::expr::native_loops) fn rewrite(
    c: &ComprehensionExpr,
    id: u64,
    q: Quantifier,
    test: &IdedExpr,
) -> Option<Expr> {
    let (base, stages, mut reads_root) = chain_start(&c.iter_range)?;
    let mut program = Vec::new();
    reads_root |= compile_test(test, &c.iter_var, &mut program)?;
    let root = || super::root_argument(id, reads_root);
    let bytes = |n: u64, b: Vec<u8>| IdedExpr {
        id: fresh_id(id, n),
        expr: Expr::Literal(LiteralValue::Bytes(CelBytes::from(b))),
    };
    let guard = IdedExpr {
        id: fresh_id(id, 1),
        expr: call(super::STRINGS_ONLY_WITH, vec![base.clone(), root()]),
    };
    let function = match q {
        Quantifier::Exists => EXISTS_MAPPED,
        Quantifier::All => ALL_MAPPED,
    };
    let native = IdedExpr {
        id: fresh_id(id, 2),
        expr: call(
            function,
            vec![base, bytes(3, stages), bytes(3, program), root()],
        ),
    };
    let written = IdedExpr {
        id: fresh_id(id, 0),
        expr: Expr::Comprehension(Box::new(c.clone())),
    };
    Some(call(operators::CONDITIONAL, vec![guard, native, written]))
}

// A test is PREDICATE p (a predicate node of `super::super`) or EQUAL k f g
// / NOT_EQUAL k f g, with `f` and `g` function nodes and `k` a byte whose
// bit 0 (1) says `f` (`g`) does not read the element.

const PREDICATE: u8 = 48;
const EQUAL: u8 = 49;
const NOT_EQUAL: u8 = 50;

/// Appends the test node of `test` over `var`; whether it reads the root.
fn compile_test(test: &IdedExpr, var: &str, out: &mut Vec<u8>) -> Option<bool> {
    out.push(PREDICATE);
    if compile(test, var, out, 0).is_some() {
        return Some(false);
    }
    out.clear();
    let Expr::Call(c) = &test.expr else {
        return None;
    };
    let [f, g] = c.args.as_slice() else {
        return None;
    };
    out.push(match (c.func_name.as_str(), &c.target) {
        (operators::EQUALS, None) => EQUAL,
        (operators::NOT_EQUALS, None) => NOT_EQUAL,
        _ => return None,
    });
    out.push(u8::from(!mentions(f, var)) | u8::from(!mentions(g, var)) << 1);
    let f_reads_root = compile_function(f, var, out, 1)?;
    Some(compile_function(g, var, out, 1)? || f_reads_root)
}

/// Whether `var` appears anywhere in `expr`.
fn mentions(expr: &IdedExpr, var: &str) -> bool {
    let mut found = false;
    crate::expr::ast::visit(expr, &mut |node| {
        found |= matches!(&node.expr, Expr::Ident(name) if name == var);
    });
    found
}

// ---- the native functions ---------------------------------------------------

/// Answers the test node for the values the stages leave.
struct Tester<'a> {
    program: &'a [u8],
    root: &'a str,
    home: Option<Option<String>>,
    lower: String,
    /// The sides that do not read the element, once computed.
    constant: [Option<String>; 2],
}

impl Tester<'_> {
    /// The test's answer for `v`; `None` for a damaged program.
    fn passes(&mut self, v: &str) -> Option<bool> {
        let (&kind, rest) = self.program.split_first()?;
        match kind {
            PREDICATE => {
                let mut run = Run {
                    program: rest,
                    at: 0,
                    s: v,
                    lower: &mut self.lower,
                    lowered: false,
                };
                let answer = run.node(0)?;
                (run.at == rest.len()).then_some(answer)
            }
            EQUAL | NOT_EQUAL => {
                let (&constant, _) = rest.split_first()?;
                let mut at = 2;
                let f = self.side(0, constant & 1 != 0, v, &mut at)?;
                let g = self.side(1, constant & 2 != 0, v, &mut at)?;
                let equal = f == g;
                (at == self.program.len()).then_some(equal == (kind == EQUAL))
            }
            _ => None,
        }
    }

    /// The side `n` of a comparison, whose function node is at `*at`,
    /// applied to `v` (or taken from the first element's answer when it is
    /// `constant`); moves `at` past the node.
    fn side(&mut self, n: usize, constant: bool, v: &str, at: &mut usize) -> Option<String> {
        let known = constant && self.constant[n].is_some();
        let mut apply = Apply {
            program: self.program,
            at: *at,
            root: self.root,
            home: &mut self.home,
            lower: &mut self.lower,
        };
        let value = apply.value(v, !known, 0)?;
        *at = apply.at;
        if !constant {
            return Some(value);
        }
        Some(self.constant[n].get_or_insert(value).clone())
    }
}

/// Walks the strings the chain leaves, calling `go_on` with each one's
/// test answer until it says stop.
fn walk(
    function: &str,
    args: &[CowVal<'_, '_>],
    mut go_on: impl FnMut(bool) -> bool,
) -> Result<(), ExecutionError> {
    let damaged = || ExecutionError::function_error(function, "damaged string program");
    let [range, stages, test, root] = args else {
        return Err(damaged());
    };
    let stages = stages.downcast_ref::<CelBytes>().ok_or_else(damaged)?;
    let test = test.downcast_ref::<CelBytes>().ok_or_else(damaged)?;
    let (Some(strings), Some(root)) = (
        super::strings(range.as_ref()),
        root.downcast_ref::<CelString>(),
    ) else {
        return Err(ExecutionError::function_error(
            function,
            "the range is not a list of strings or the root not a string",
        ));
    };
    let mut tester = Tester {
        program: test.inner(),
        root: root.inner(),
        home: None,
        lower: String::new(),
        constant: [None, None],
    };
    let mut lower = String::new();
    for s in strings {
        let value = through(
            stages.inner(),
            s.inner(),
            root.inner(),
            &mut tester.home,
            &mut lower,
        )
        .map_err(|()| damaged())?;
        let Some(value) = value else { continue };
        if !go_on(tester.passes(&value).ok_or_else(damaged)?) {
            break;
        }
    }
    Ok(())
}

/// `@exists_mapped(range, stages, test, root)`.
pub(in crate::expr::native_loops) fn exists_mapped<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut any = false;
    walk(EXISTS_MAPPED, &args, |passes| {
        any = passes;
        !passes
    })?;
    Ok(answer(any))
}

/// `@all_mapped(range, stages, test, root)`.
pub(in crate::expr::native_loops) fn all_mapped<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let mut every = true;
    walk(ALL_MAPPED, &args, |passes| {
        every = passes;
        passes
    })?;
    Ok(answer(every))
}
