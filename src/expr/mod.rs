//! CEL as hook-policy uses it: the environment expressions run in (the
//! full one, or only the libraries an expression names: see
//! [`environment`]), `${{ expr }}` templates in effect values, and the
//! payload resolver.

pub mod ast;
mod boolean_frame;
mod commands;
pub mod const_sets;
pub mod environment;
pub mod functions;
pub mod native_loops;
pub mod natives;
mod plain_pattern;
pub(crate) mod regex_match;
#[cfg(test)]
pub(crate) mod shipped_conditions;
pub mod stored_tree;
#[cfg(feature = "reference-parser")]
mod syntax_words;
pub mod template;

use crate::eval::json_val::{to_val, val_to_json, JsonMap};
use cel::common::ast::IdedExpr;
use cel::common::types::CelString;
use cel::common::value::CowVal;
use cel::context::VariableResolver;
use cel::{Context, Env, Program};
use serde_json::Value as Json;
use std::sync::{Arc, OnceLock};

static ENV: OnceLock<Arc<Env>> = OnceLock::new();

/// The full CEL environment: the standard library and its macros, the
/// strings and lists extensions, our functions. Built at most once per
/// process; building it registers a few hundred overloads, a fifth of a cold
/// hook call, so evaluations ask [`environment`] for only what they need.
pub fn env() -> &'static Arc<Env> {
    ENV.get_or_init(|| {
        let mut env = Env::stdlib();
        // These cannot fail on a fresh stdlib environment: no names overlap.
        env.add_extension(cel::extensions::strings)
            .expect("strings extension registers");
        env.add_extension(cel::extensions::lists)
            .expect("lists extension registers");
        env.add_extension(functions::register)
            .expect("hook-policy functions register");
        env.add_extension(const_sets::register)
            .expect("the folded `in` registers");
        env.add_extension(native_loops::register)
            .expect("the native membership loops register");
        Arc::new(env)
    })
}

/// The full environment, if this process built it already.
fn full_env_if_built() -> Option<&'static Arc<Env>> {
    ENV.get()
}

/// The environment evaluating `expr` needs: the full one's libraries that
/// the expression names, or the full one.
pub fn env_for(expr: &IdedExpr) -> Arc<Env> {
    match full_env_if_built() {
        Some(full) => full.clone(),
        None => environment::for_needs(environment::needs(expr)),
    }
}

/// [`env_for`] with what `expr` needs kept in `needs`, found on the first
/// call: a long-running process reads each condition's tree once.
pub fn env_for_kept(expr: &IdedExpr, needs: &OnceLock<environment::Needs>) -> Arc<Env> {
    match full_env_if_built() {
        Some(full) => full.clone(),
        None => environment::for_needs(*needs.get_or_init(|| environment::needs(expr))),
    }
}

/// Rewrites a compiled condition into the form it is evaluated (and stored)
/// in: constant string lists folded into sets ([`const_sets`]), then the
/// common comprehension shapes made native ([`native_loops`]). Each rewrite
/// gives the value or the error of the tree as written; apply it once the
/// checks that read the tree as written (types, positions) have run. The
/// functions the rewritten trees call are registered in [`env`] by each
/// module's `register`.
pub fn rewrite_for_evaluation(expr: &mut IdedExpr) {
    const_sets::fold_constant_lists(expr);
    native_loops::rewrite_loops(expr);
    native_loops::rewrite_fields(expr);
}

/// A CEL syntax error, positioned inside the expression text.
#[derive(Debug, Clone, PartialEq)]
pub struct SyntaxError {
    pub message: String,
    /// Character offset into the expression where the error is.
    pub char_offset: usize,
}

/// The most expressions may contain, in bytes; longer ones are refused before
/// parsing so a hostile policy cannot make the parser work without bound.
pub const MAX_EXPRESSION_BYTES: usize = 16 * 1024;
/// Maximum nesting of parentheses, brackets and braces; the parser recurses on them.
pub const MAX_EXPRESSION_NESTING: usize = 64;

/// Compiles one expression with the shared environment, with CEL's
/// reference parser (`policy check`, `policy explain`). Paths a hook call
/// can take go through [`parse_fast`] and [`parse_with_positions`] instead,
/// which use that parser only once the binary asked for it.
pub fn compile(source: &str) -> Result<Program, SyntaxError> {
    within_limits(source)?;
    reference_parse(source)
}

/// The bounds every expression is held to before any parser sees it.
fn within_limits(source: &str) -> Result<(), SyntaxError> {
    if source.len() > MAX_EXPRESSION_BYTES {
        return Err(SyntaxError {
            message: format!(
                "expression is {} bytes long; the limit is {MAX_EXPRESSION_BYTES}",
                source.len()
            ),
            char_offset: 0,
        });
    }
    if let Some(offset) = nesting_overflow(source) {
        return Err(SyntaxError {
            message: format!("expression nests deeper than {MAX_EXPRESSION_NESTING} levels"),
            char_offset: offset,
        });
    }
    if source.trim().is_empty() {
        return Err(SyntaxError {
            message: "empty expression".into(),
            char_offset: 0,
        });
    }
    Ok(())
}

type ReferenceParser = fn(&str) -> Result<Program, SyntaxError>;

/// The reference parser, once [`use_reference_parser`] was called. Reached
/// only through this pointer from the hook paths, so a binary that never
/// sets it (`policy-hook`) has none of the ANTLR parser linked in: its
/// tables and vtables were a quarter of a hook process's start-up
/// relocations (BENCHMARKS.md).
#[cfg(feature = "reference-parser")]
static REFERENCE: OnceLock<ReferenceParser> = OnceLock::new();

/// Makes whole-policy checks (`policy install`, chibi's `--schema`) and
/// syntax-error messages use CEL's reference parser: exact positions and
/// better wording. `policy` calls it at start; without it (or in a build
/// without the `reference-parser` feature) the fast parser answers, as in
/// the plugin build, and the same policies load or are refused.
pub fn use_reference_parser() {
    #[cfg(feature = "reference-parser")]
    let _ = REFERENCE.set(reference_parse);
}

/// Whether this process reads expressions with the reference parser.
pub fn has_reference_parser() -> bool {
    reference().is_some()
}

fn reference() -> Option<ReferenceParser> {
    // The library's own tests check positions and wording as `policy` has them.
    #[cfg(all(test, feature = "reference-parser"))]
    return Some(reference_parse);
    #[cfg(all(not(test), feature = "reference-parser"))]
    return REFERENCE.get().copied();
    #[cfg(not(feature = "reference-parser"))]
    None
}

/// Without the reference parser (the plugin build), nothing can produce a
/// [`Program`]: the callers that need one (linting) are not compiled in.
#[cfg(not(feature = "reference-parser"))]
fn reference_parse(_source: &str) -> Result<Program, SyntaxError> {
    Err(SyntaxError {
        message: "this build has no reference CEL parser (it is the plugin build)".into(),
        char_offset: 0,
    })
}

#[cfg(feature = "reference-parser")]
fn reference_parse(source: &str) -> Result<Program, SyntaxError> {
    // The parser can panic on some malformed input; a policy must never take
    // the process down, so a panic becomes a syntax error.
    let parsed = std::panic::catch_unwind(|| env().compile(source));
    match parsed {
        Ok(Ok(program)) => Ok(program),
        Ok(Err(errors)) => {
            let first = errors.errors.first();
            let (line, col) = first.map_or((1, 1), |e| {
                (e.pos.0.max(1) as usize, e.pos.1.max(0) as usize)
            });
            Err(SyntaxError {
                message: first.map_or_else(
                    || "invalid expression".into(),
                    |e| syntax_words::in_words(&e.msg),
                ),
                char_offset: char_offset_of(source, line, col),
            })
        }
        Err(_) => Err(SyntaxError {
            message: "the CEL parser could not read this expression".into(),
            char_offset: 0,
        }),
    }
}

/// Parses with the Pratt parser: about twenty times cheaper than the
/// reference (ANTLR) parser on a cold process, which matters when chibi starts
/// one process per hook call. It gives no source positions, so `policy check`
/// uses [`compile`]; a test asserts both parsers build the same tree for
/// every shipped expression. On a syntax error the reference parser, when
/// the binary uses it, is asked for its (better) message.
pub fn parse_fast(source: &str) -> Result<IdedExpr, SyntaxError> {
    within_limits(source)?;
    let parsed = std::panic::catch_unwind(|| {
        cel::parser::PrattParser::new()
            .max_recursion_depth(MAX_EXPRESSION_NESTING as u16 + 32)
            .parse(source)
    });
    if let Ok(Ok(expr)) = parsed {
        return Ok(expr);
    }
    if let Some(reference) = reference() {
        return reference(source).map(|p| p.expression().clone());
    }
    Err(SyntaxError {
        message: match parsed {
            Ok(Err(errors)) => errors
                .errors
                .first()
                .map_or_else(|| "invalid expression".into(), |e| e.msg.trim().to_string()),
            _ => "the CEL parser could not read this expression".into(),
        },
        char_offset: 0,
    })
}

/// The tree of an expression and, with the reference parser, the program
/// whose source positions place problems exactly (whole-policy checks).
pub fn parse_with_positions(source: &str) -> Result<(IdedExpr, Option<Program>), SyntaxError> {
    match reference() {
        Some(reference) => {
            within_limits(source)?;
            reference(source).map(|program| (program.expression().clone(), Some(program)))
        }
        None => parse_fast(source).map(|expr| (expr, None)),
    }
}

/// Character offset of a 1-based line and 0-based column, clamped to the text.
#[cfg(feature = "reference-parser")]
fn char_offset_of(source: &str, line: usize, col: usize) -> usize {
    let mut offset = 0;
    for (i, text) in source.split('\n').enumerate() {
        if i + 1 == line {
            return offset + col.min(text.chars().count());
        }
        offset += text.chars().count() + 1;
    }
    source.chars().count()
}

fn nesting_overflow(source: &str) -> Option<usize> {
    let mut depth = 0usize;
    for (i, c) in source.chars().enumerate() {
        match c {
            '(' | '[' | '{' => {
                depth += 1;
                if depth > MAX_EXPRESSION_NESTING {
                    return Some(i);
                }
            }
            ')' | ']' | '}' => depth = depth.saturating_sub(1),
            _ => {}
        }
    }
    None
}

/// What an expression sees: the payload's top-level fields as variables,
/// the payload itself as `payload`, and the decision's context.
pub struct PayloadResolver<'a> {
    pub payload: &'a Json,
    pub hook: &'a str,
    pub harness: &'a str,
    pub project_root: &'a str,
}

impl VariableResolver for PayloadResolver<'_> {
    fn resolve<'b>(&'b self, variable: &str) -> Option<CowVal<'b, 'b>> {
        match variable {
            "payload" => match self.payload {
                Json::Object(map) => Some(CowVal::owned(JsonMap::new(map))),
                other => Some(CowVal::Owned(to_val(other))),
            },
            "hook" => Some(CowVal::owned(CelString::from(self.hook))),
            "harness" => Some(CowVal::owned(CelString::from(self.harness))),
            "project_root" => Some(CowVal::owned(CelString::from(self.project_root))),
            name => self.payload.get(name).map(|v| CowVal::Owned(to_val(v))),
        }
    }
}

impl PayloadResolver<'_> {
    /// The string `expr` gives, when it is a bare name of a string (`${{
    /// url }}` in a reason): what evaluating it gives, read without an
    /// interpreter. `None` for anything else, to evaluate.
    pub fn plain_string(&self, expr: &IdedExpr) -> Option<&str> {
        let cel::common::ast::Expr::Ident(name) = &expr.expr else {
            return None;
        };
        match name.as_str() {
            "payload" => None,
            "hook" => Some(self.hook),
            "harness" => Some(self.harness),
            "project_root" => Some(self.project_root),
            name => self.payload.get(name)?.as_str(),
        }
    }
}

/// Why an evaluation failed at run time.
#[derive(Debug, Clone, PartialEq)]
pub struct EvalError(pub String);

impl std::fmt::Display for EvalError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Runs a program against a payload and returns its result as JSON.
pub fn evaluate(expr: &IdedExpr, resolver: &PayloadResolver<'_>) -> Result<Json, EvalError> {
    evaluate_in(env_for(expr), expr, resolver)
}

/// [`evaluate`] in a given environment.
pub fn evaluate_in(
    env: Arc<Env>,
    expr: &IdedExpr,
    resolver: &PayloadResolver<'_>,
) -> Result<Json, EvalError> {
    let mut ctx = Context::with_env(env);
    ctx.set_variable_resolver(resolver);
    let value =
        cel::Value::resolve_val(expr, &ctx).map_err(|e| EvalError(describe_execution_error(&e)))?;
    val_to_json(value.as_ref()).map_err(EvalError)
}

/// Runs a condition; anything but a boolean result is an error.
pub fn evaluate_bool(expr: &IdedExpr, resolver: &PayloadResolver<'_>) -> Result<bool, EvalError> {
    evaluate_bool_in(env_for(expr), expr, resolver)
}

/// [`evaluate_bool`] in a given environment.
pub fn evaluate_bool_in(
    env: Arc<Env>,
    expr: &IdedExpr,
    resolver: &PayloadResolver<'_>,
) -> Result<bool, EvalError> {
    let mut ctx = Context::with_env(env);
    ctx.set_variable_resolver(resolver);
    // The frame of `&&`, `||` and boolean loops here, cel for the rest;
    // anything unusual is evaluated by cel as written, errors included.
    if let Ok(value) = boolean_frame::truth(expr, &ctx) {
        return Ok(value);
    }
    cel_bool(expr, &ctx)
}

/// [`evaluate_bool`] by cel's interpreter alone, what the frame evaluated
/// here must agree with.
#[cfg(test)]
pub(crate) fn evaluate_bool_by_cel(
    expr: &IdedExpr,
    resolver: &PayloadResolver<'_>,
) -> Result<bool, EvalError> {
    let mut ctx = Context::with_env(env_for(expr));
    ctx.set_variable_resolver(resolver);
    cel_bool(expr, &ctx)
}

fn cel_bool(expr: &IdedExpr, ctx: &Context<'_, '_>) -> Result<bool, EvalError> {
    let value =
        cel::Value::resolve_val(expr, ctx).map_err(|e| EvalError(describe_execution_error(&e)))?;
    match value.downcast_ref::<cel::common::types::CelBool>() {
        Some(b) => Ok(*b.inner()),
        None => Err(EvalError(format!(
            "the condition gave a {} where true or false was expected",
            value.get_type().name()
        ))),
    }
}

fn describe_execution_error(e: &cel::ExecutionError) -> String {
    match e {
        cel::ExecutionError::UndeclaredReference(name) => {
            format!(
                "`{name}` is not in the payload (guard optional fields with has(payload.{name}))"
            )
        }
        cel::ExecutionError::NoSuchKey(key) => {
            format!("no field `{key}` (guard optional fields with has(...))")
        }
        other => other.to_string(),
    }
}

/// The tree's debug form without node ids, which differ between parsers.
pub fn strip_ids(expr: &IdedExpr) -> String {
    let text = format!("{expr:?}");
    let mut out = String::with_capacity(text.len());
    let mut rest = text.as_str();
    while let Some(i) = rest.find("id: ") {
        out.push_str(&rest[..i + 4]);
        rest = rest[i + 4..].trim_start_matches(|c: char| c.is_ascii_digit());
    }
    out.push_str(rest);
    out
}

/// The top-level parts of a condition (`a && b && c` or `a || b`) with their
/// source text and value, for explanations. A condition that is neither a
/// conjunction nor a disjunction is one part.
pub fn explain_parts(source: &str, resolver: &PayloadResolver<'_>) -> Vec<(String, String)> {
    use cel::common::ast::{operators, Expr};
    let Ok(program) = compile(source) else {
        return Vec::new();
    };
    let root = program.expression();
    let op = match &root.expr {
        Expr::Call(c)
            if c.target.is_none()
                && (c.func_name == operators::LOGICAL_AND
                    || c.func_name == operators::LOGICAL_OR) =>
        {
            c.func_name.clone()
        }
        _ => return Vec::new(),
    };
    let mut parts = Vec::new();
    flatten(root, &op, &mut parts);
    let info = program.source_info();
    parts
        .into_iter()
        .map(|part| {
            let text = span_text(source, part, info).unwrap_or_else(|| "…".into());
            let value = match evaluate(part, resolver) {
                Ok(v) => v.to_string(),
                Err(e) => format!("error: {e}"),
            };
            (text, value)
        })
        .collect()
}

fn flatten<'a>(e: &'a IdedExpr, op: &str, out: &mut Vec<&'a IdedExpr>) {
    match &e.expr {
        cel::common::ast::Expr::Call(c) if c.target.is_none() && c.func_name == op => {
            for a in &c.args {
                flatten(a, op, out);
            }
        }
        _ => out.push(e),
    }
}

/// The source text a node came from: the smallest and largest offsets of
/// the node and everything below it.
fn span_text(source: &str, node: &IdedExpr, info: &cel::common::ast::SourceInfo) -> Option<String> {
    let mut lo = usize::MAX;
    let mut hi = 0usize;
    ast::visit(node, &mut |n| {
        if let Some((a, b)) = info.offset_for(n.id) {
            lo = lo.min(a as usize);
            hi = hi.max(b as usize);
        }
    });
    if lo == usize::MAX {
        return None;
    }
    let chars: Vec<char> = source.chars().collect();
    let mut start = lo.min(chars.len());
    let mut end = (hi + 1).min(chars.len());
    // A call's recorded offsets stop at its last argument: take in its closing
    // brackets and quotes, and a leading `!` or `(` that belongs to it.
    let mut depth: i32 = chars[start..end]
        .iter()
        .map(|c| match c {
            '(' | '[' | '{' => 1,
            ')' | ']' | '}' => -1,
            _ => 0,
        })
        .sum();
    while end < chars.len() && (depth > 0 || matches!(chars[end], '\'' | '"')) {
        match chars[end] {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            _ => {}
        }
        end += 1;
    }
    while start > 0 && chars[start - 1] == '!' {
        start -= 1;
    }
    let text = chars[start..end]
        .iter()
        .collect::<String>()
        .trim()
        .to_string();
    // `has(x.y)` is a macro: its node's offsets begin at the parenthesis.
    let is_has = matches!(&node.expr, cel::common::ast::Expr::Select(s) if s.test);
    Some(if is_has && !text.starts_with("has") {
        let inner = text.trim_start_matches('(').trim_end_matches(')');
        format!("has({inner})")
    } else {
        text
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_plain_string_is_what_evaluating_the_name_gives() {
        let payloads = [
            json!({"url": "http://127.0.0.1/", "n": 1, "b": true, "l": ["a"], "e": "", "hook": "x", "int": "i"}),
            json!(["url"]),
            json!("url"),
        ];
        let names = [
            "url",
            "n",
            "b",
            "l",
            "e",
            "missing",
            "hook",
            "harness",
            "project_root",
            "payload",
            "int",
            "url.size()",
            "'url'",
        ];
        let mut read = 0;
        for payload in &payloads {
            let r = PayloadResolver {
                payload,
                hook: "pre_fetch_url",
                harness: "chibi",
                project_root: "/p",
            };
            for name in names {
                let expr = parse_fast(name).unwrap();
                if let Some(s) = r.plain_string(&expr) {
                    assert_eq!(
                        evaluate(&expr, &r),
                        Ok(Json::String(s.into())),
                        "{name} on {payload}"
                    );
                    read += 1;
                }
            }
        }
        assert!(read >= 10, "{read}");
    }

    fn run(expr: &str, payload: &Json) -> Result<Json, EvalError> {
        let program = compile(expr).unwrap();
        let r = PayloadResolver {
            payload,
            hook: "pre_tool",
            harness: "chibi",
            project_root: "/p",
        };
        // Both parsers must agree, in the tree they build and in its result.
        let fast = parse_fast(expr).unwrap();
        assert_eq!(strip_ids(&fast), strip_ids(program.expression()), "{expr}");
        let by_reference = evaluate(program.expression(), &r);
        assert_eq!(evaluate(&fast, &r), by_reference, "{expr}");
        by_reference
    }

    #[test]
    fn payload_fields_are_variables() {
        let p = json!({"tool_name": "shell_exec", "arguments": {"command": "ls -la", "n": 3},
                       "tools": [{"name": "a", "type": "fs"}, {"name": "b", "type": "shell"}]});
        assert_eq!(run("tool_name == 'shell_exec'", &p), Ok(json!(true)));
        assert_eq!(
            run("arguments.command.startsWith('ls')", &p),
            Ok(json!(true))
        );
        assert_eq!(run("arguments.n + 1", &p), Ok(json!(4)));
        assert_eq!(run("'command' in arguments", &p), Ok(json!(true)));
        assert_eq!(run("has(arguments.missing)", &p), Ok(json!(false)));
        assert_eq!(run("has(payload.tool_name)", &p), Ok(json!(true)));
        assert_eq!(
            run("tools.exists(t, t.type == 'shell')", &p),
            Ok(json!(true))
        );
        assert_eq!(run("tools.map(t, t.name)", &p), Ok(json!(["a", "b"])));
        assert_eq!(run("size(arguments)", &p), Ok(json!(2)));
        assert_eq!(
            run("arguments == {'command': 'ls -la', 'n': 3}", &p),
            Ok(json!(true))
        );
        assert_eq!(run("payload.arguments", &p), Ok(p["arguments"].clone()));
        assert_eq!(
            run("hook + ':' + harness + ':' + project_root", &p),
            Ok(json!("pre_tool:chibi:/p"))
        );
        assert!(run("fuel_remaining > 3", &p)
            .unwrap_err()
            .0
            .contains("fuel_remaining"));
    }

    #[test]
    fn matches_keeps_its_patterns_and_still_answers_each_text() {
        let p = json!({"command": "kubectl delete ns prod"});
        // The same pattern on several texts, member and global forms: a kept
        // pattern answers for the text at hand, not the first one it saw.
        let e = "['ns', 'pods', 'namespace/x'].filter(a, a.matches(r'^(ns|namespaces?)(/.+)?$'))";
        for _ in 0..3 {
            assert_eq!(run(e, &p), Ok(json!(["ns", "namespace/x"])));
            assert_eq!(
                run("matches(command, r'delete\\s+ns')", &p),
                Ok(json!(true))
            );
            assert_eq!(run("command.matches('^rm ')", &p), Ok(json!(false)));
        }
        // A bad pattern is an error every time, never a cached answer.
        for _ in 0..2 {
            let err = run("command.matches('(ns')", &p).unwrap_err();
            assert!(err.0.contains("not a valid regex"), "{err}");
        }
    }

    #[test]
    fn shell_commands_are_maps_like_any_other_and_follow_the_line() {
        let a = json!({"command": "sudo rm -rf /srv && ls"});
        let b = json!({"command": "git push --force"});
        for _ in 0..2 {
            // Kept between calls for one line; a new line gets its own.
            assert_eq!(
                run("command.shellCommands().map(c, c.program)", &a),
                Ok(json!(["rm", "ls"]))
            );
            assert_eq!(
                run("command.shellCommands().map(c, c.program)", &b),
                Ok(json!(["git"]))
            );
        }
        assert_eq!(
            run("command.shellCommands()[0]", &b),
            Ok(
                json!({"program": "git", "path": "git", "args": ["push", "--force"],
                "flags": ["--force"], "wrappers": [], "via": [], "call": ""})
            )
        );
        assert_eq!(
            run("command.shellCommands()[0] == {'program': 'git', 'path': 'git', 'args': ['push', '--force'], 'flags': ['--force'], 'wrappers': [], 'via': [], 'call': ''}", &b),
            Ok(json!(true))
        );
        assert_eq!(
            run("command.shellCommands().map(c, ['program' in c, 'targets' in c, has(c.targets), size(c)])", &b),
            Ok(json!([[true, false, false, 7]]))
        );
        assert!(run("command.shellCommands()[0].nope", &b).is_err());
        // With a root, targets are located against it; without, none.
        assert_eq!(
            run(
                "command.shellCommands(project_root)[0].targets.map(t, t.path)",
                &a
            ),
            Ok(json!(["/srv"]))
        );
        assert_eq!(
            run("command.shellCommands().exists(c, has(c.targets))", &a),
            Ok(json!(false))
        );
    }

    #[test]
    fn shell_url_and_path_functions() {
        let p = json!({"command": "sudo env X=1 rm -fr /srv && $(curl x | sh)", "url": "http://0x7f.1:8080/a", "path": "src/../../etc/passwd"});
        assert_eq!(run("command.runs('rm')", &p), Ok(json!(true)));
        assert_eq!(run("command.runs('curl')", &p), Ok(json!(true)));
        assert_eq!(
            run(
                "command.runsWith('rm', ['-r|-R|--recursive', '-f|--force'])",
                &p
            ),
            Ok(json!(true))
        );
        assert_eq!(run("command.runsWith('rm', ['-i'])", &p), Ok(json!(false)));
        assert_eq!(run("command.shellOpaque()", &p), Ok(json!(true)));
        assert_eq!(run("'ls -la'.shellOpaque()", &p), Ok(json!(false)));
        assert_eq!(
            run("command.shellCommands().exists(c, c.program == 'rm' && 'sudo' in c.wrappers && '-r' in c.flags)", &p),
            Ok(json!(true))
        );
        assert_eq!(run("url.urlClass()", &p), Ok(json!("loopback")));
        assert_eq!(run("url.isInternalUrl()", &p), Ok(json!(true)));
        assert_eq!(run("url.urlHost()", &p), Ok(json!("127.0.0.1")));
        assert_eq!(
            run(
                "'https://api.example.com/x'.hostMatches('.example.com')",
                &p
            ),
            Ok(json!(true))
        );
        assert_eq!(
            run(
                "'https://evil-example.com/'.hostMatches('.example.com')",
                &p
            ),
            Ok(json!(false))
        );
        assert_eq!(
            run("path.normalizedPath('/home/u/proj')", &p),
            Ok(json!("/home/u/etc/passwd"))
        );
        assert_eq!(run("path.isWithin('/home/u/proj')", &p), Ok(json!(false)));
        assert_eq!(
            run("'src/main.rs'.isWithin('/home/u/proj')", &p),
            Ok(json!(true))
        );
        assert_eq!(
            run("'/proj-evil/x'.isWithin('/proj')", &p),
            Ok(json!(false))
        );
        assert_eq!(
            run("'a/b/../.env'.pathMatches('**/.env', '/p')", &p),
            Ok(json!(true))
        );
        assert_eq!(
            run("'a/.envrc'.pathMatches('**/.env', '/p')", &p),
            Ok(json!(false))
        );
    }

    #[test]
    fn syntax_errors_point_into_the_expression() {
        let e = compile("command.contains(\"rm -rf\"").unwrap_err();
        assert!(e.char_offset > 10, "{e:?}");
        let e = compile("a == \n  b +").unwrap_err();
        assert!(e.char_offset >= 6, "{e:?}");
        let e = compile("x ==== 1").unwrap_err();
        eprintln!("{e:?}");
        assert!((2..=5).contains(&e.char_offset), "{e:?}");
    }
}
