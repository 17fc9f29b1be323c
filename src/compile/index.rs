//! Literal discriminators: the part of a condition that names one payload
//! value exactly (`tool_name == "shell_exec"`, `context_name in ["a", "b"]`).
//!
//! A rule whose condition is a conjunction containing such a test can only
//! match payloads with that value, so the decision tree files it under the
//! value and never evaluates it for other payloads. The full condition is
//! still evaluated for candidates: the index only ever removes rules that
//! could not match, so it cannot change a decision.
//!
//! The second kind is a required substring (`command.contains("curl ")`,
//! `path.startsWith("/etc/")`): all such literals of a hook go into one
//! Aho-Corasick automaton, so one pass over the field finds every rule that
//! can still match, however many there are.

use cel::common::ast::{operators, Expr, IdedExpr, LiteralValue};

/// `field` must equal one of `values` for the condition to hold.
#[derive(Debug, Clone, PartialEq)]
pub struct Discriminator {
    pub field: String,
    pub values: Vec<String>,
}

/// `field` must contain `literal` for the condition to hold.
#[derive(Debug, Clone, PartialEq)]
pub struct SubstringTest {
    pub field: String,
    pub literal: String,
}

/// Whether a payload field can carry a discriminator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldUse {
    /// A string every hook of the rule always sends.
    Always,
    /// A string that may be absent: usable only next to `has(payload.x)`,
    /// which makes the conjunction false (not an error) when it is absent.
    Optional,
    /// Anything else.
    No,
}

/// Finds the first discriminator in a condition's top-level conjunction.
/// `payload.x` counts as `x`; names bound by comprehensions never reach the
/// top level, so any identifier here is a payload variable or a builtin.
pub fn discriminator(
    expr: &IdedExpr,
    is_payload_field: &dyn Fn(&str) -> bool,
) -> Option<Discriminator> {
    let mut conjuncts = Vec::new();
    flatten_and(expr, &mut conjuncts);
    conjuncts
        .into_iter()
        .find_map(|c| literal_test(c, is_payload_field))
}

/// Finds a required substring in a condition's top-level conjunction: the
/// longest literal of `F.contains(L)`, `F.startsWith(L)`, `F.endsWith(L)`
/// (the longest is the rarest, so the most selective).
pub fn substring_test(
    expr: &IdedExpr,
    field_use: &dyn Fn(&str) -> FieldUse,
) -> Option<SubstringTest> {
    let mut conjuncts = Vec::new();
    flatten_and(expr, &mut conjuncts);
    let guarded: Vec<&str> = conjuncts
        .iter()
        .filter_map(|c| match &c.expr {
            Expr::Select(s) if s.test => match &s.operand.expr {
                Expr::Ident(root) if root == "payload" => Some(s.field.as_str()),
                _ => None,
            },
            _ => None,
        })
        .collect();
    conjuncts
        .iter()
        .filter_map(|c| {
            let Expr::Call(call) = &c.expr else {
                return None;
            };
            if !matches!(
                call.func_name.as_str(),
                "contains" | "startsWith" | "endsWith"
            ) {
                return None;
            }
            let field = field_name(call.target.as_deref()?)?;
            let [arg] = call.args.as_slice() else {
                return None;
            };
            let literal = string_literal(arg)?;
            let usable = match field_use(&field) {
                FieldUse::Always => true,
                FieldUse::Optional => guarded.contains(&field.as_str()),
                FieldUse::No => false,
            };
            (usable && !literal.is_empty()).then_some(SubstringTest { field, literal })
        })
        .max_by_key(|t| t.literal.len())
}

/// Something a condition cannot be true without.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Need {
    /// The string field `field` contains `literal`.
    Substring { field: String, literal: String },
    /// `field.shellCommands()` lists a command running `program`, with
    /// the arguments `args` says.
    Program {
        field: String,
        program: String,
        args: ArgNeed,
    },
    /// `field.shellCommands()` lists a command, whatever its program, with
    /// `word` among its arguments (`npx cdk destroy` as well as `cdk
    /// destroy`, for a test of `'destroy' in c.args` alone).
    Word { field: String, word: String },
}

/// What a needed command must have among its arguments (`c.args`).
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum ArgNeed {
    /// Nothing.
    Any,
    /// An argument not starting with `-` (a file or a word, not only
    /// flags: see [`false_without_operand`]).
    Operand,
    /// This argument (`'reset' in c.args`).
    Word(String),
}

/// Needs at least one of which holds whenever the condition is true, for
/// conditions with no single required literal: disjunctions
/// (`command.contains('/dev/tcp/') || command.contains('/dev/udp/')`) and
/// tests over the analysed commands
/// (`command.shellCommands().exists(c, c.program in ['nc', 'ncat'] && ...)`).
///
/// The promise is stronger than "not true": when the fields the needs name
/// are strings and none of the needs holds, the condition is `false`, not
/// an error, so leaving the rule out changes no decision. It rests on CEL's
/// logic: `false && x` and `x && false` are `false` whatever `x` is, even an
/// error, and `false || false` is `false`; `exists` over elements whose
/// step is `false` is `false`. `shell_field` says which field, if any, the
/// hook's shell analysis reads (only that field's `shellCommands()` gives
/// the programs the index sees); `field_use` which fields every payload of
/// the rule carries as strings (the index keeps every rule of a field that
/// is absent or not a string as a candidate).
pub fn needs(
    expr: &IdedExpr,
    field_use: &dyn Fn(&str) -> FieldUse,
    shell_field: Option<&str>,
) -> Option<Vec<Need>> {
    let mut found = need_of(expr, field_use, shell_field)?;
    found.sort();
    found.dedup();
    Some(found)
}

fn need_of(
    expr: &IdedExpr,
    field_use: &dyn Fn(&str) -> FieldUse,
    shell_field: Option<&str>,
) -> Option<Vec<Need>> {
    let Expr::Call(call) = &expr.expr else {
        return match &expr.expr {
            Expr::Comprehension(c) => programs_needed(c, shell_field),
            _ => None,
        };
    };
    match (
        call.func_name.as_str(),
        call.target.as_deref(),
        call.args.as_slice(),
    ) {
        (operators::LOGICAL_AND, None, [a, b]) => {
            let (a, b) = (
                need_of(a, field_use, shell_field),
                need_of(b, field_use, shell_field),
            );
            // Either side's needs will do; the fewer, the fewer candidates.
            match (a, b) {
                (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
                (a, b) => a.or(b),
            }
        }
        (operators::LOGICAL_OR, None, [a, b]) => {
            let mut a = need_of(a, field_use, shell_field)?;
            a.extend(need_of(b, field_use, shell_field)?);
            Some(a)
        }
        ("contains" | "startsWith" | "endsWith", Some(target), [arg]) => {
            let field = field_name(target)?;
            let literal = string_literal(arg)?;
            (field_use(&field) == FieldUse::Always && !literal.is_empty())
                .then_some(vec![Need::Substring { field, literal }])
        }
        _ => None,
    }
}

/// `F.shellCommands().exists(c, ...)` whose step needs `c.program` to be
/// one of some names.
fn programs_needed(
    c: &cel::common::ast::ComprehensionExpr,
    shell_field: Option<&str>,
) -> Option<Vec<Need>> {
    let field = shell_field?;
    // The range: `F.shellCommands()` or `F.shellCommands(project_root)`.
    let Expr::Call(range) = &c.iter_range.expr else {
        return None;
    };
    let plain_args = match range.args.as_slice() {
        [] => true,
        [arg] => matches!(&arg.expr, Expr::Ident(name) if name == "project_root"),
        _ => false,
    };
    let target = range.target.as_deref()?;
    if range.func_name != "shellCommands" || !plain_args || field_name(target)? != field {
        return None;
    }
    let body = exists_body(c)?;
    let var = &c.iter_var;
    // Each disjunct of the step on its own: `(c.program == 'pulumi' && ...)
    // || ('destroy' in c.args && ...)` needs pulumi, or a `destroy`
    // argument to any program. A disjunct that is `false` (not an error)
    // without its needs makes the `||` of them `false` without all of them.
    let mut alternatives = Vec::new();
    flatten_or(body, &mut alternatives);
    let mut found = Vec::new();
    for alternative in alternatives {
        let words = required_words(alternative, var);
        let Some(names) = program_names(alternative, var) else {
            // No program: the words alone, or nothing to file it under.
            found.extend(words?.into_iter().map(|word| Need::Word {
                field: field.to_string(),
                word,
            }));
            continue;
        };
        let args = match words {
            Some(words) => words.into_iter().map(ArgNeed::Word).collect(),
            None if false_without_operand(alternative, var) => vec![ArgNeed::Operand],
            None => vec![ArgNeed::Any],
        };
        for program in names {
            found.extend(args.iter().map(|args| Need::Program {
                field: field.to_string(),
                program: program.clone(),
                args: args.clone(),
            }));
        }
    }
    Some(found)
}

/// The parts of `expr`'s top-level `||` chain, one of which must hold.
fn flatten_or<'a>(expr: &'a IdedExpr, out: &mut Vec<&'a IdedExpr>) {
    match &expr.expr {
        Expr::Call(call) if call.func_name == operators::LOGICAL_OR && call.target.is_none() => {
            for arg in &call.args {
                flatten_or(arg, out);
            }
        }
        _ => out.push(expr),
    }
}

/// Words one of which `expr` needs among `var.args` (`'reset' in c.args`,
/// `c.args.exists(a, a in ['drop', 'reset'])`): without any, it is `false`
/// (a list of strings holds the literal or not, and `false && x` is
/// `false`). For `&&` the fewer of either side's,
/// for `||` both sides' (each side must need some).
fn required_words(expr: &IdedExpr, var: &str) -> Option<Vec<String>> {
    let call = match &expr.expr {
        Expr::Call(call) => call,
        Expr::Comprehension(c) => return args_membership_words(c, var),
        _ => return None,
    };
    match (
        call.func_name.as_str(),
        call.target.is_none(),
        call.args.as_slice(),
    ) {
        (operators::LOGICAL_AND, true, [a, b]) => {
            match (required_words(a, var), required_words(b, var)) {
                (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
                (a, b) => a.or(b),
            }
        }
        (operators::LOGICAL_OR, true, [a, b]) => {
            let mut a = required_words(a, var)?;
            a.extend(required_words(b, var)?);
            Some(a)
        }
        (operators::IN, true, [word, list]) if is_args_of(list, var) => string_literal(word)
            .filter(|w| !w.is_empty())
            .map(|w| vec![w]),
        // `var.args.exists(a, a in ['x', 'y'])` as evaluation runs it.
        (crate::expr::native_loops::EXISTS_IN, true, [list, set]) if is_args_of(list, var) => {
            let Expr::Literal(LiteralValue::Bytes(set)) = &set.expr else {
                return None;
            };
            words_of(crate::expr::const_sets::set_strings(set.inner())?)
        }
        _ => None,
    }
}

/// The words of `var.args.exists(a, a == 'x' || a in ['y', 'z'])` as
/// written: the loop is `false` (not an error) over a list of strings
/// holding none of them.
fn args_membership_words(
    c: &cel::common::ast::ComprehensionExpr,
    var: &str,
) -> Option<Vec<String>> {
    if !is_args_of(&c.iter_range, var) {
        return None;
    }
    let mut strings = Vec::new();
    crate::expr::native_loops::member_strings(exists_body(c)?, &c.iter_var, &mut strings)?;
    words_of(strings)
}

/// Words to file a rule under: none empty (an empty argument is no key).
fn words_of(strings: Vec<&str>) -> Option<Vec<String>> {
    (!strings.is_empty() && strings.iter().all(|w| !w.is_empty()))
        .then(|| strings.into_iter().map(str::to_string).collect())
}

/// Whether `expr`, over the command `var` of `shellCommands()`, is `false`
/// (not an error) when every argument of the command starts with `-`:
/// `tail -20` has flags and no file, so a rule over the files a command
/// reads cannot match it. The shapes recognised:
/// - `var.args.exists(a, !a.startsWith('-') && ...)`;
/// - `L.exists(p, ...)` and `L.join(S).matches(R)`, where `L` is
///   `var.args.filter(a, !a.startsWith('-') && ...)`, possibly mapped or
///   filtered further (an empty list stays empty), `S` a string literal and
///   `R` a pattern that answers `false` on the empty text without an error
///   ([`crate::expr::regex_match::shortest_match`]);
/// - `&&` with one such side, `||` with two.
///
/// CEL's `false && x` is `false` whatever `x` is, so the test on `-` makes
/// a filter keep nothing and an `exists` find nothing; `exists` over an
/// empty list and `join` of one are `false` and `""`.
fn false_without_operand(expr: &IdedExpr, var: &str) -> bool {
    let expr = crate::expr::native_loops::written_loop(expr).unwrap_or(expr);
    match &expr.expr {
        Expr::Call(call) => match (
            call.func_name.as_str(),
            call.target.as_deref(),
            call.args.as_slice(),
        ) {
            (operators::LOGICAL_AND, None, [a, b]) => {
                false_without_operand(a, var) || false_without_operand(b, var)
            }
            (operators::LOGICAL_OR, None, [a, b]) => {
                false_without_operand(a, var) && false_without_operand(b, var)
            }
            // `L.exists(v, v in SET)` as evaluation runs it: `false` over
            // an empty list.
            (crate::expr::native_loops::EXISTS_IN, None, [list, _]) => {
                empty_without_operand(list, var)
            }
            ("matches", Some(text), [pattern]) => {
                let Expr::Call(join) = &text.expr else {
                    return false;
                };
                let sep_ok = match join.args.as_slice() {
                    [] => true,
                    [sep] => string_literal(sep).is_some(),
                    _ => false,
                };
                join.func_name == "join"
                    && sep_ok
                    && join
                        .target
                        .as_deref()
                        .is_some_and(|list| empty_without_operand(list, var))
                    && string_literal(pattern).is_some_and(|p| {
                        crate::expr::regex_match::shortest_match(&p).is_some_and(|min| min > 0)
                    })
            }
            _ => false,
        },
        Expr::Comprehension(c) => {
            let Some(body) = exists_body(c) else {
                return false;
            };
            empty_without_operand(&c.iter_range, var)
                || (is_args_of(&c.iter_range, var) && false_for_flag(body, &c.iter_var))
        }
        _ => false,
    }
}

/// Whether the list `expr` is empty when every argument of `var` starts
/// with `-`: `var.args.filter(a, !a.startsWith('-') && ...)`, and `map`s
/// and `filter`s of such a list.
fn empty_without_operand(expr: &IdedExpr, var: &str) -> bool {
    let expr = crate::expr::native_loops::written_loop(expr).unwrap_or(expr);
    let Expr::Comprehension(c) = &expr.expr else {
        return false;
    };
    // `map` and `filter` as the parser expands them: an empty list to
    // start, the accumulator as the result.
    let builds_list = c.iter_var2.is_none()
        && matches!(&c.accu_init.expr, Expr::List(l) if l.elements.is_empty())
        && matches!(&c.result.expr, Expr::Ident(name) if *name == c.accu_var);
    if !builds_list {
        return false;
    }
    if empty_without_operand(&c.iter_range, var) {
        return true;
    }
    // A filter of the arguments: `keep ? @result + [a] : @result`.
    let Expr::Call(step) = &c.loop_step.expr else {
        return false;
    };
    match step.args.as_slice() {
        [keep, _, otherwise]
            if step.func_name == operators::CONDITIONAL && step.target.is_none() =>
        {
            is_args_of(&c.iter_range, var)
                && matches!(&otherwise.expr, Expr::Ident(name) if *name == c.accu_var)
                && false_for_flag(keep, &c.iter_var)
        }
        _ => false,
    }
}

/// The step of `exists` as the parser expands it (`@result || step`,
/// `false` to start, the accumulator as the result).
fn exists_body(c: &cel::common::ast::ComprehensionExpr) -> Option<&IdedExpr> {
    let exists = c.iter_var2.is_none()
        && matches!(&c.accu_init.expr, Expr::Literal(LiteralValue::Boolean(b)) if !*b.inner())
        && matches!(&c.result.expr, Expr::Ident(name) if *name == c.accu_var);
    let Expr::Call(step) = &c.loop_step.expr else {
        return None;
    };
    match step.args.as_slice() {
        [accu, body]
            if exists
                && step.func_name == operators::LOGICAL_OR
                && step.target.is_none()
                && matches!(&accu.expr, Expr::Ident(name) if *name == c.accu_var) =>
        {
            Some(body)
        }
        _ => None,
    }
}

/// `var.args`.
fn is_args_of(expr: &IdedExpr, var: &str) -> bool {
    crate::expr::native_loops::variable_field(expr) == Some((var, "args"))
}

/// Whether the conjunction `expr` has `!item.startsWith('-')` as a part:
/// then it is `false` for an `item` starting with `-`.
fn false_for_flag(expr: &IdedExpr, item: &str) -> bool {
    conjuncts(expr).into_iter().any(|c| {
        let Some(inner) = negated(c) else {
            return false;
        };
        let Expr::Call(test) = &inner.expr else {
            return false;
        };
        test.func_name == "startsWith"
            && matches!(test.target.as_deref().map(|t| &t.expr), Some(Expr::Ident(name)) if name == item)
            && matches!(test.args.as_slice(), [dash] if string_literal(dash).as_deref() == Some("-"))
    })
}

/// `x` of `!x`, or of `x ? false : true`, the form evaluation rewrites a
/// negated boolean test into (`crate::expr::native_loops`): both are
/// `false` exactly when `x` is `true`.
fn negated(expr: &IdedExpr) -> Option<&IdedExpr> {
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    let is_bool = |e: &IdedExpr, want: bool| matches!(&e.expr, Expr::Literal(LiteralValue::Boolean(b)) if *b.inner() == want);
    match (
        call.func_name.as_str(),
        call.target.is_none(),
        call.args.as_slice(),
    ) {
        (operators::LOGICAL_NOT, true, [inner]) => Some(inner),
        (operators::CONDITIONAL, true, [inner, then, otherwise])
            if is_bool(then, false) && is_bool(otherwise, true) =>
        {
            Some(inner)
        }
        _ => None,
    }
}

/// Names one of which `VAR.program` must be for `expr` to be true (false,
/// not an error, otherwise).
fn program_names(expr: &IdedExpr, var: &str) -> Option<Vec<String>> {
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    let is_program =
        |e: &IdedExpr| crate::expr::native_loops::variable_field(e) == Some((var, "program"));
    match (
        call.func_name.as_str(),
        call.target.is_none(),
        call.args.as_slice(),
    ) {
        (operators::LOGICAL_AND, true, [a, b]) => {
            match (program_names(a, var), program_names(b, var)) {
                (Some(a), Some(b)) => Some(if b.len() < a.len() { b } else { a }),
                (a, b) => a.or(b),
            }
        }
        (operators::LOGICAL_OR, true, [a, b]) => {
            let mut a = program_names(a, var)?;
            a.extend(program_names(b, var)?);
            Some(a)
        }
        (operators::EQUALS, true, [a, b]) if is_program(a) => Some(vec![string_literal(b)?]),
        (operators::EQUALS, true, [a, b]) if is_program(b) => Some(vec![string_literal(a)?]),
        _ => match crate::expr::const_sets::string_membership(expr) {
            Some((a, names)) if is_program(a) => {
                Some(names.into_iter().map(str::to_string).collect())
            }
            _ => None,
        },
    }
}

/// Two literal tests in one conjunction that no value can pass together
/// (`x == 'a' && x == 'b'`, `x == 'a' && x in ['b', 'c']`): the field and
/// the values each test allows.
pub fn contradiction(expr: &IdedExpr) -> Option<(String, Vec<String>, Vec<String>)> {
    let mut conjuncts = Vec::new();
    flatten_and(expr, &mut conjuncts);
    let tests: Vec<Discriminator> = conjuncts
        .into_iter()
        .filter_map(|c| literal_test(c, &|_| true))
        .collect();
    for (i, a) in tests.iter().enumerate() {
        for b in &tests[i + 1..] {
            if a.field == b.field && !a.values.iter().any(|v| b.values.contains(v)) {
                return Some((a.field.clone(), a.values.clone(), b.values.clone()));
            }
        }
    }
    None
}

/// The parts of a condition's top-level `&&` chain, each of which must hold.
pub fn conjuncts(expr: &IdedExpr) -> Vec<&IdedExpr> {
    let mut out = Vec::new();
    flatten_and(expr, &mut out);
    out
}

/// `x == 'a'` or `x in ['a', 'b']` on any field, as the values it allows.
pub fn literal_test_of(expr: &IdedExpr) -> Option<Discriminator> {
    literal_test(expr, &|_| true)
}

/// The payload field an expression reads directly (`x` or `payload.x`).
pub fn field_of(expr: &IdedExpr) -> Option<String> {
    field_name(expr)
}

fn flatten_and<'a>(expr: &'a IdedExpr, out: &mut Vec<&'a IdedExpr>) {
    match &expr.expr {
        Expr::Call(call) if call.func_name == operators::LOGICAL_AND && call.target.is_none() => {
            for arg in &call.args {
                flatten_and(arg, out);
            }
        }
        _ => out.push(expr),
    }
}

fn literal_test(expr: &IdedExpr, is_payload_field: &dyn Fn(&str) -> bool) -> Option<Discriminator> {
    let Expr::Call(call) = &expr.expr else {
        return None;
    };
    if call.target.is_some() || call.args.len() != 2 {
        return None;
    }
    let (a, b) = (&call.args[0], &call.args[1]);
    match call.func_name.as_str() {
        operators::EQUALS => {
            let (field, value) = match (field_name(a), string_literal(b)) {
                (Some(f), Some(v)) => (f, v),
                _ => (field_name(b)?, string_literal(a)?),
            };
            is_payload_field(&field).then(|| Discriminator {
                field,
                values: vec![value],
            })
        }
        _ => {
            // `x in ['a', 'b']`, as written or folded.
            let (a, values) = crate::expr::const_sets::string_membership(expr)?;
            let field = field_name(a)?;
            let values: Vec<String> = values.into_iter().map(str::to_string).collect();
            (!values.is_empty() && is_payload_field(&field))
                .then_some(Discriminator { field, values })
        }
    }
}

fn field_name(expr: &IdedExpr) -> Option<String> {
    match &expr.expr {
        Expr::Ident(name) => Some(name.clone()),
        Expr::Select(select) if !select.test => match &select.operand.expr {
            Expr::Ident(root) if root == "payload" => Some(select.field.clone()),
            _ => None,
        },
        _ => None,
    }
}

fn string_literal(expr: &IdedExpr) -> Option<String> {
    match &expr.expr {
        Expr::Literal(LiteralValue::String(s)) => Some(s.inner().to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn disc(src: &str) -> Option<Discriminator> {
        let program = crate::expr::compile(src).unwrap();
        discriminator(program.expression(), &|f| f != "hook")
    }

    #[test]
    fn finds_equalities_and_in_lists_in_conjunctions() {
        assert_eq!(
            disc("tool_name == 'shell_exec'"),
            Some(Discriminator {
                field: "tool_name".into(),
                values: vec!["shell_exec".into()]
            })
        );
        assert_eq!(
            disc("size(x) > 1 && 'safe' == payload.context_name"),
            Some(Discriminator {
                field: "context_name".into(),
                values: vec!["safe".into()]
            })
        );
        assert_eq!(
            disc("context_name in ['a', 'b'] && true"),
            Some(Discriminator {
                field: "context_name".into(),
                values: vec!["a".into(), "b".into()]
            })
        );
    }

    fn substring(src: &str) -> Option<SubstringTest> {
        let program = crate::expr::compile(src).unwrap();
        substring_test(program.expression(), &|f| match f {
            "command" => FieldUse::Always,
            "url" => FieldUse::Optional,
            _ => FieldUse::No,
        })
    }

    #[test]
    fn finds_required_substrings() {
        let t = |field: &str, literal: &str| {
            Some(SubstringTest {
                field: field.into(),
                literal: literal.into(),
            })
        };
        assert_eq!(
            substring("command.contains('curl ')"),
            t("command", "curl ")
        );
        assert_eq!(
            substring("command.startsWith('git') && payload.command.endsWith(' --force')"),
            t("command", " --force")
        );
        assert_eq!(
            substring("has(payload.url) && url.contains('/admin')"),
            t("url", "/admin")
        );
        // Unguarded optional fields, empty literals, disjunctions, negations: no.
        assert_eq!(substring("url.contains('/admin')"), None);
        assert_eq!(substring("command.contains('')"), None);
        assert_eq!(
            substring("command.contains('a') || command.contains('b')"),
            None
        );
        assert_eq!(substring("!command.contains('a')"), None);
        assert_eq!(substring("other.contains('a')"), None);
    }

    /// The needs of `src` as written and as rewritten for evaluation (the
    /// tree rules are indexed from), which must be the same.
    fn needs_of(src: &str) -> Option<Vec<String>> {
        let program = crate::expr::compile(src).unwrap();
        let use_of = |f: &str| match f {
            "command" => FieldUse::Always,
            _ => FieldUse::No,
        };
        let mut rewritten = program.expression().clone();
        crate::expr::rewrite_for_evaluation(&mut rewritten);
        let as_written = needs(program.expression(), &use_of, Some("command"));
        assert_eq!(
            needs(&rewritten, &use_of, Some("command")),
            as_written,
            "{src}: the rewritten tree is indexed differently"
        );
        as_written.map(|n| {
            n.into_iter()
                .map(|n| match n {
                    Need::Substring { field, literal } => format!("{field} has {literal}"),
                    Need::Program {
                        field,
                        program,
                        args,
                    } => match args {
                        ArgNeed::Any => format!("{field} runs {program}"),
                        ArgNeed::Operand => format!("{field} runs {program} with an operand"),
                        ArgNeed::Word(w) => format!("{field} runs {program} {w}"),
                    },
                    Need::Word { field, word } => format!("{field} runs anything {word}"),
                })
                .collect()
        })
    }

    #[test]
    fn needs_of_disjunctions_and_command_tests() {
        let s = |v: &[&str]| Some(v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(
            needs_of("command.contains('/dev/tcp/') || payload.command.endsWith('x')"),
            s(&["command has /dev/tcp/", "command has x"])
        );
        assert_eq!(
            needs_of("command.shellCommands().exists(c, c.program in ['sh', 'bash'] && c.wrappers.exists(w, w == 'sudo'))"),
            s(&["command runs bash", "command runs sh"])
        );
        assert_eq!(
            needs_of("(command.contains('/dev/') && command.matches('x')) || command.shellCommands(project_root).exists(c, 'nc' == c.program || c.program == 'socat' && size(c.args) > 1)"),
            s(&["command has /dev/", "command runs nc", "command runs socat"])
        );
        // Anything that could hold (or fail) without one of the needs: none.
        for src in [
            "command.contains('a') || size(command) > 3",
            "!command.shellCommands().exists(c, c.program == 'rm')",
            "command.shellCommands().all(c, c.program == 'rm')",
            "command.shellCommands().exists_one(c, c.program == 'rm')",
            "command.shellCommands().exists(c, c.program == 'rm' || c.args[0] == 'x')",
            "command.shellCommands().exists(c, c.program != 'rm')",
            "command.shellCommands(payload.other).exists(c, c.program == 'rm')",
            "other.shellCommands().exists(c, c.program == 'rm')",
            "[{'program': 'x'}].exists(c, c.program == 'rm')",
            "other.contains('a') || command.contains('b')",
            "command.contains('') || command.contains('b')",
        ] {
            assert_eq!(needs_of(src), None, "{src}");
        }
    }

    #[test]
    fn needs_of_commands_over_their_files_want_an_operand() {
        let s = |v: &[&str]| Some(v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        // The shapes of the secrets pack: a filter of the arguments that
        // drops flags, mapped, joined and matched, or searched with exists.
        assert_eq!(
            needs_of(
                r#"command.shellCommands().exists(c, c.program in ['cat', 'tail'] && (c.args.filter(a, !a.startsWith('-') && size(a) > 1).map(p, p.lowerAscii()).join('\n').matches(r'(?i)\.env$') || c.args.filter(a, !a.startsWith('-')).exists(p, p == 'x')))"#
            ),
            s(&[
                "command runs cat with an operand",
                "command runs tail with an operand"
            ])
        );
        assert_eq!(
            needs_of("command.shellCommands().exists(c, c.program == 'cd' && c.args.exists(a, !a.startsWith('-') && a.contains('.ssh')))"),
            s(&["command runs cd with an operand"])
        );
        // Anything that may hold (or fail) with flags alone: no operand.
        for src in [
            // A pattern that matches the empty text, or does not parse.
            "command.shellCommands().exists(c, c.program == 'cat' && c.args.filter(a, !a.startsWith('-')).join(',').matches('x*'))",
            "command.shellCommands().exists(c, c.program == 'cat' && c.args.filter(a, !a.startsWith('-')).join(',').matches('(x'))",
            // The test on `-` only on one side of an `||`, or negated, or another prefix.
            "command.shellCommands().exists(c, c.program == 'cat' && (c.args.exists(a, !a.startsWith('-')) || size(c.args) > 0))",
            "command.shellCommands().exists(c, c.program == 'cat' && c.args.exists(a, a.startsWith('-')))",
            "command.shellCommands().exists(c, c.program == 'cat' && c.args.exists(a, !a.startsWith('--')))",
            "command.shellCommands().exists(c, c.program == 'cat' && c.args.exists(a, !a.startsWith('-') || true))",
            // Lists that are not empty without an operand.
            "command.shellCommands().exists(c, c.program == 'cat' && c.flags.filter(a, !a.startsWith('-')).exists(p, true))",
            "command.shellCommands().exists(c, c.program == 'cat' && c.args.map(a, a.substring(1)).filter(a, !a.startsWith('-')).exists(p, true))",
            "command.shellCommands().exists(c, c.program == 'cat' && c.args.filter(a, !a.startsWith('-')).join(c.path).matches('x'))",
            "command.shellCommands().exists(c, c.program == 'cat' && c.args.all(a, !a.startsWith('-')))",
        ] {
            let got = needs_of(src).unwrap_or_default();
            assert!(got.iter().all(|n| !n.contains("operand")), "{src}: {got:?}");
        }
    }

    #[test]
    fn needs_of_commands_with_a_word_name_it() {
        let s = |v: &[&str]| Some(v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        assert_eq!(
            needs_of("command.shellCommands().exists(c, c.program == 'git' && 'reset' in c.args && c.flags.exists(f, f == '--hard'))"),
            s(&["command runs git reset"])
        );
        assert_eq!(
            needs_of("command.shellCommands().exists(c, c.program in ['git', 'hg'] && 'push' in c.args && ('--force' in c.args || 'x' in c.args))"),
            s(&["command runs git push", "command runs hg push"])
        );
        assert_eq!(
            needs_of("command.shellCommands().exists(c, c.program == 'git' && (('reflog' in c.args && ('expire' in c.args || 'delete' in c.args)) || ('gc' in c.args && size(c.args) > 1)))"),
            s(&["command runs git gc", "command runs git reflog"])
        );
        // Words that are not required: in a disjunction, negated, in another list.
        for src in [
            "command.shellCommands().exists(c, c.program == 'git' && ('reset' in c.args || c.flags.exists(f, f == '--hard')))",
            "command.shellCommands().exists(c, c.program == 'git' && !('reset' in c.args))",
            "command.shellCommands().exists(c, c.program == 'git' && 'reset' in c.flags)",
            "command.shellCommands().exists(c, c.program == 'git' && c.args.exists(a, 'reset' in c.args))",
        ] {
            let got = needs_of(src).unwrap_or_default();
            assert_eq!(got, vec!["command runs git".to_string()], "{src}");
        }
    }

    #[test]
    fn needs_of_each_disjunct_on_its_own_and_words_to_any_program() {
        let s = |v: &[&str]| Some(v.iter().map(|x| x.to_string()).collect::<Vec<_>>());
        // A disjunct naming no program files the rule under its words, for
        // every program: `npx cdk destroy` runs npx.
        assert_eq!(
            needs_of("command.shellCommands().exists(c, (c.program == 'pulumi' && c.args.exists(a, a in ['destroy', 'down'])) || ((c.program in ['cdk', 'cdktf'] || c.args.exists(a, a in ['cdk', 'cdktf'])) && 'destroy' in c.args) || (c.program == 'atmos' && size(c.args) > 2))"),
            s(&[
                "command runs atmos",
                "command runs pulumi destroy",
                "command runs pulumi down",
                "command runs anything destroy",
            ])
        );
        // Each disjunct keeps its own words: git with `credential`, npm
        // with `config`, not every pairing.
        assert_eq!(
            needs_of("command.shellCommands().exists(c, (c.program == 'git' && c.args.exists(a, a == 'credential')) || (c.program == 'npm' && c.args.exists(a, a == 'config' || 'x' == a)))"),
            s(&[
                "command runs git credential",
                "command runs npm config",
                "command runs npm x",
            ])
        );
        // Without a program and without words, no disjunct can be filed.
        for src in [
            "command.shellCommands().exists(c, c.program == 'git' || c.args.exists(a, a.startsWith('x')))",
            "command.shellCommands().exists(c, c.program == 'git' || c.args.exists(a, a == 'x' || a.startsWith('y')))",
            "command.shellCommands().exists(c, c.program == 'git' || c.flags.exists(a, a == 'x'))",
            "command.shellCommands().exists(c, c.program == 'git' || c.args.exists(a, a == ''))",
            "command.shellCommands().exists(c, c.program == 'git' || c.args.exists(a, c.program == 'x'))",
            "command.shellCommands().exists(c, c.program == 'git' || !c.args.exists(a, a == 'x'))",
            "command.shellCommands().exists(c, c.program == 'git' || c.args.all(a, a == 'x'))",
        ] {
            assert_eq!(needs_of(src), None, "{src}");
        }
    }

    #[test]
    fn disjunctions_and_negations_are_not_discriminators() {
        assert_eq!(disc("tool_name == 'a' || tool_name == 'b'"), None);
        assert_eq!(disc("!(tool_name == 'a')"), None);
        assert_eq!(disc("tool_name != 'a'"), None);
        assert_eq!(disc("hook == 'pre_tool'"), None);
    }
}
