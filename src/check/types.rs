//! A type checker for conditions, driven by the hook catalogue.
//!
//! The CEL crate has no checker: a misspelt field (`comand`) or a field the
//! hook never sends only shows up when an agent trips over it, and then it
//! fails closed. This pass infers what it can of each sub-expression from the
//! payload types of every hook a rule names and reports:
//! - variables and fields that do not exist (with "did you mean"),
//! - optional fields read without a `has()` guard (warning),
//! - string functions called on values known not to be strings,
//! - comparisons and arithmetic between values of types that never fit
//!   (`fuel_remaining == "5"` is always false; `command < 3` fails at run
//!   time, which a permission hook turns into a deny),
//! - conditions that cannot be boolean, and `fuel`/`fuel_delta` values that
//!   cannot be integers.
//!
//! Types it cannot know (inside a free-form map such as `arguments`, or
//! after an arithmetic operation) become `Dyn` and are never reported: the
//! checker only speaks when it is sure.

use crate::catalogue::{self, Field, HookPoint, Presence, Ty};
use crate::diagnostic::did_you_mean;
use cel::common::ast::{operators, Expr, IdedExpr, LiteralValue};

/// What the checker knows of a value.
#[derive(Debug, Clone, PartialEq)]
pub enum Known {
    Bool,
    Int,
    Double,
    Str,
    Null,
    List(Box<Known>),
    /// An object with known fields (a payload, a tool entry).
    Object(Vec<&'static Field>),
    /// A map whose keys are not known.
    Map,
    Dyn,
}

impl Known {
    fn from_ty(ty: &Ty) -> Known {
        match ty {
            Ty::Str => Known::Str,
            Ty::Int => Known::Int,
            Ty::Bool => Known::Bool,
            Ty::AnyMap => Known::Map,
            Ty::Any | Ty::Nullable(_) => Known::Dyn,
            Ty::List(inner) => Known::List(Box::new(Known::from_ty(inner))),
            Ty::Object(fields) => Known::Object(fields.iter().collect()),
        }
    }

    fn name(&self) -> String {
        match self {
            Known::Bool => "bool".into(),
            Known::Int => "int".into(),
            Known::Double => "double".into(),
            Known::Str => "string".into(),
            Known::Null => "null".into(),
            Known::List(inner) => format!("list({})", inner.name()),
            Known::Object(_) => "object".into(),
            Known::Map => "map".into(),
            Known::Dyn => "dyn".into(),
        }
    }

    /// The type name with its article, for messages: "an int", "a string".
    fn a_name(&self) -> String {
        let name = self.name();
        let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
            "an"
        } else {
            "a"
        };
        format!("{article} {name}")
    }

    /// The join of two branches: equal types stay, anything else is `Dyn`.
    fn join(self, other: Known) -> Known {
        if self == other {
            self
        } else {
            Known::Dyn
        }
    }
}

/// A problem found in an expression, at the node it concerns.
#[derive(Debug, Clone, PartialEq)]
pub struct TypeProblem {
    pub node_id: u64,
    pub code: &'static str,
    pub message: String,
    pub help: Option<String>,
    pub warning: bool,
}

/// The variables a rule's conditions see, merged over its hooks: a name
/// exists only if every hook sends it (a rule on two hooks must work on both).
pub struct Scope {
    hooks: Vec<&'static HookPoint>,
    /// Fields known to be present, e.g. `url` when the rule has a `url:`
    /// matcher (a matcher never matches an absent subject).
    present: Vec<&'static str>,
}

impl Scope {
    pub fn new(hooks: Vec<&'static HookPoint>) -> Scope {
        Scope {
            hooks,
            present: Vec::new(),
        }
    }

    pub fn with_present(mut self, fields: Vec<&'static str>) -> Scope {
        self.present = fields;
        self
    }

    fn top_level(&self, name: &str) -> Result<(Known, bool), Vec<&'static str>> {
        if let Some(b) = catalogue::BUILTIN_VARIABLES.iter().find(|f| f.name == name) {
            if name == "payload" {
                return Ok((self.payload_object(), false));
            }
            return Ok((Known::from_ty(&b.ty), false));
        }
        let mut found: Option<(Known, bool)> = None;
        for hook in &self.hooks {
            match hook.field(name) {
                Some(f) => {
                    let k = Known::from_ty(&f.ty);
                    let optional = f.presence == Presence::Optional;
                    found = Some(match found {
                        None => (k, optional),
                        Some((prev, o)) => (prev.join(k), o || optional),
                    });
                }
                None => return Err(self.names()),
            }
        }
        found.ok_or_else(|| self.names())
    }

    /// Fields every hook sends, as one object.
    fn payload_object(&self) -> Known {
        match self.hooks.as_slice() {
            [one] => Known::Object(one.payload.iter().collect()),
            _ => {
                let first = self.hooks.first().map(|h| h.payload).unwrap_or(&[]);
                let common: Vec<&'static Field> = first
                    .iter()
                    .filter(|f| self.hooks.iter().all(|h| h.field(f.name).is_some()))
                    .collect();
                Known::Object(common)
            }
        }
    }

    fn names(&self) -> Vec<&'static str> {
        let mut names: Vec<&'static str> = catalogue::BUILTIN_VARIABLES
            .iter()
            .map(|f| f.name)
            .collect();
        if let Known::Object(fields) = self.payload_object() {
            names.extend(fields.iter().map(|f| f.name));
        }
        names
    }
}

/// What the whole expression must evaluate to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Want {
    /// A `when` condition.
    Bool,
    /// A `fuel` or `fuel_delta` value.
    Int,
    /// Reason texts and request values: anything goes.
    Any,
}

/// Checks one expression against the scope of its rule.
pub fn check(expr: &IdedExpr, scope: &Scope, want: Want) -> Vec<TypeProblem> {
    let mut guarded = guarded_fields(expr);
    guarded.extend(scope.present.iter().map(|f| f.to_string()));
    let mut checker = Checker {
        scope,
        locals: Vec::new(),
        problems: Vec::new(),
        guarded,
    };
    let ty = checker.infer(expr);
    if want == Want::Bool && !matches!(ty, Known::Bool | Known::Dyn) {
        checker.problems.push(TypeProblem {
            node_id: expr.id,
            code: "cel::not-boolean",
            message: format!("the condition is {}, not true or false", ty.a_name()),
            help: Some("compare it: e.g. `x == \"value\"`, `size(x) > 0`, `has(payload.x)`".into()),
            warning: false,
        });
    }
    if want == Want::Int && !matches!(ty, Known::Int | Known::Dyn) {
        checker.problems.push(TypeProblem {
            node_id: expr.id,
            code: "cel::not-integer",
            message: format!("the value is {}, not an integer", ty.a_name()),
            help: Some(match ty {
                Known::Double => "round it with int(...), e.g. `${{ int(x / 2.0) }}`".into(),
                Known::Str => "convert it with int(...) if it holds digits".into(),
                _ => "fuel values are whole numbers, e.g. `${{ -size(tool_calls) }}`".into(),
            }),
            warning: false,
        });
    }
    checker.problems
}

/// Fields tested with `has(payload.x)` or `has(x.y)` anywhere in the expression.
fn guarded_fields(expr: &IdedExpr) -> Vec<String> {
    let mut out = Vec::new();
    crate::expr::ast::visit(expr, &mut |node| {
        if let Expr::Select(s) = &node.expr {
            if s.test {
                out.push(s.field.clone());
            }
        }
    });
    out
}

struct Checker<'s> {
    scope: &'s Scope,
    /// Comprehension variables in scope, innermost last.
    locals: Vec<(String, Known)>,
    problems: Vec<TypeProblem>,
    guarded: Vec<String>,
}

impl Checker<'_> {
    fn problem(
        &mut self,
        node: &IdedExpr,
        code: &'static str,
        message: String,
        help: Option<String>,
        warning: bool,
    ) {
        self.problems.push(TypeProblem {
            node_id: node.id,
            code,
            message,
            help,
            warning,
        });
    }

    fn infer(&mut self, e: &IdedExpr) -> Known {
        match &e.expr {
            Expr::Literal(lit) => match lit {
                LiteralValue::Boolean(_) => Known::Bool,
                LiteralValue::Int(_) | LiteralValue::UInt(_) => Known::Int,
                LiteralValue::Double(_) => Known::Double,
                LiteralValue::String(_) => Known::Str,
                LiteralValue::Null => Known::Null,
                LiteralValue::Bytes(_) => Known::Dyn,
            },
            Expr::Ident(name) => self.ident(e, name),
            Expr::Select(select) => {
                let operand = self.infer(&select.operand);
                if select.test {
                    return Known::Bool;
                }
                self.field(e, operand, &select.field, root_name(&select.operand))
            }
            Expr::List(list) => {
                let mut elem: Option<Known> = None;
                for item in &list.elements {
                    let t = self.infer(item);
                    elem = Some(match elem {
                        None => t,
                        Some(prev) => prev.join(t),
                    });
                }
                Known::List(Box::new(elem.unwrap_or(Known::Dyn)))
            }
            Expr::Map(_) | Expr::Struct(_) => {
                crate::expr::ast::visit(e, &mut |_| {});
                Known::Map
            }
            Expr::Comprehension(c) => {
                let range = self.infer(&c.iter_range);
                let elem = match range {
                    Known::List(inner) => *inner,
                    Known::Map | Known::Object(_) => Known::Str,
                    _ => Known::Dyn,
                };
                let accu = self.infer(&c.accu_init);
                self.locals.push((c.iter_var.clone(), elem));
                if let Some(v2) = &c.iter_var2 {
                    self.locals.push((v2.clone(), Known::Dyn));
                }
                self.locals.push((c.accu_var.clone(), accu.clone()));
                self.infer(&c.loop_cond);
                self.infer(&c.loop_step);
                let result = self.infer(&c.result);
                self.locals
                    .truncate(self.locals.len() - if c.iter_var2.is_some() { 3 } else { 2 });
                match accu {
                    Known::Bool => Known::Bool,
                    _ => result,
                }
            }
            Expr::Call(call) => self.call(e, call),
            Expr::Unspecified => Known::Dyn,
        }
    }

    fn ident(&mut self, e: &IdedExpr, name: &str) -> Known {
        if let Some((_, t)) = self.locals.iter().rev().find(|(n, _)| n == name) {
            return t.clone();
        }
        // Names the macros introduce for their accumulators.
        if name.starts_with('@') || name == "__result__" {
            return Known::Dyn;
        }
        match self.scope.top_level(name) {
            Ok((t, optional)) => {
                if optional && !self.guarded.iter().any(|g| g == name) {
                    self.problem(
                        e,
                        "cel::unguarded-optional",
                        format!("`{name}` is not always sent; reading it when absent is an error"),
                        Some(format!("guard it: has(payload.{name}) && ...")),
                        true,
                    );
                }
                t
            }
            Err(_) if self.guarded.iter().any(|g| g == name) => {
                self.problem(
                    e,
                    "cel::uncatalogued-field",
                    format!("`{name}` is not a catalogued field of this payload; guarded by has(), it is read only when the harness sends it"),
                    Some("check the spelling; if the harness really sends it, this is fine".into()),
                    true,
                );
                Known::Dyn
            }
            Err(names) => {
                let hint = did_you_mean(name, names.iter().copied());
                let hooks: Vec<&str> = self.scope.hooks.iter().map(|h| h.name).collect();
                self.problem(
                    e,
                    "cel::unknown-variable",
                    format!(
                        "`{name}` is not a field of the {} payload",
                        hooks.join(" / ")
                    ),
                    Some(match hint {
                        Some(h) => format!("did you mean `{h}`?"),
                        None => format!("fields: {}", names.join(", ")),
                    }),
                    false,
                );
                Known::Dyn
            }
        }
    }

    fn field(&mut self, e: &IdedExpr, operand: Known, field: &str, root: Option<&str>) -> Known {
        match operand {
            Known::Object(fields) => {
                match fields.iter().find(|f| f.name == field) {
                    Some(f) => {
                        if f.presence == Presence::Optional
                            && !self.guarded.iter().any(|g| g == field)
                        {
                            self.problem(
                            e,
                            "cel::unguarded-optional",
                            format!("`{field}` is not always sent; reading it when absent is an error"),
                            Some(format!("guard it: has({}.{field}) && ...", root.unwrap_or("payload"))),
                            true,
                        );
                        }
                        Known::from_ty(&f.ty)
                    }
                    None if self.guarded.iter().any(|g| g == field) => {
                        // A field the catalogue does not know yet, read only
                        // where has() found it: a harness's newer field (Claude
                        // Code's `effort`) must not keep the policy out.
                        self.problem(
                            e,
                            "cel::uncatalogued-field",
                            format!("`{field}` is not a catalogued field here; guarded by has(), it is read only when the harness sends it"),
                            Some("check the spelling; if the harness really sends it, this is fine".into()),
                            true,
                        );
                        Known::Dyn
                    }
                    None => {
                        let names: Vec<&str> = fields.iter().map(|f| f.name).collect();
                        let hint = did_you_mean(field, names.iter().copied());
                        self.problem(
                            e,
                            "cel::unknown-field",
                            format!("no field `{field}` here (fields: {})", names.join(", ")),
                            hint.map(|h| format!("did you mean `{h}`?")),
                            false,
                        );
                        Known::Dyn
                    }
                }
            }
            Known::Map | Known::Dyn => Known::Dyn,
            other => {
                self.problem(
                    e,
                    "cel::no-fields",
                    format!("{} has no field `{field}`", other.a_name()),
                    None,
                    false,
                );
                Known::Dyn
            }
        }
    }

    fn call(&mut self, e: &IdedExpr, call: &cel::common::ast::CallExpr) -> Known {
        let target = call.target.as_ref().map(|t| self.infer(t));
        let args: Vec<Known> = call.args.iter().map(|a| self.infer(a)).collect();
        let name = call.func_name.as_str();
        match name {
            operators::LOGICAL_AND | operators::LOGICAL_OR | operators::LOGICAL_NOT => {
                for (arg, t) in call.args.iter().zip(&args) {
                    if !matches!(t, Known::Bool | Known::Dyn) {
                        self.problem(
                            arg,
                            "cel::wrong-type",
                            format!(
                                "`{}` needs true or false, not {}",
                                logical_symbol(name),
                                t.a_name()
                            ),
                            Some("compare it first, e.g. `size(x) > 0` or `x != \"\"`".into()),
                            false,
                        );
                    }
                }
                Known::Bool
            }
            operators::EQUALS | operators::NOT_EQUALS => {
                if let [a, b] = args.as_slice() {
                    if !comparable_for_equality(a, b) {
                        self.problem(
                            e,
                            "cel::wrong-type",
                            format!(
                                "{} is never equal to {}: this comparison is always {}",
                                a.a_name(),
                                b.a_name(),
                                if name == operators::EQUALS {
                                    "false"
                                } else {
                                    "true"
                                }
                            ),
                            Some(conversion_hint(a, b)),
                            false,
                        );
                    }
                }
                Known::Bool
            }
            operators::LESS
            | operators::LESS_EQUALS
            | operators::GREATER
            | operators::GREATER_EQUALS => {
                if let [a, b] = args.as_slice() {
                    if !orderable(a, b) {
                        self.problem(
                            e,
                            "cel::wrong-type",
                            format!(
                                "{} cannot be ordered against {}: this fails at run time",
                                a.a_name(),
                                b.a_name()
                            ),
                            Some(conversion_hint(a, b)),
                            false,
                        );
                    }
                }
                Known::Bool
            }
            operators::IN => {
                if let [elem, container] = args.as_slice() {
                    let fits = match container {
                        Known::List(inner) => comparable_for_equality(elem, inner),
                        Known::Map | Known::Object(_) => matches!(elem, Known::Str | Known::Dyn),
                        Known::Dyn => true,
                        _ => false,
                    };
                    if !fits {
                        self.problem(
                            e,
                            "cel::wrong-type",
                            format!("{} is never in {}", elem.a_name(), container.a_name()),
                            match container {
                                Known::Str => Some("for text, use `x.contains(y)`".into()),
                                _ => Some(conversion_hint(elem, container)),
                            },
                            false,
                        );
                    }
                }
                Known::Bool
            }
            operators::NOT_STRICTLY_FALSE => Known::Bool,
            operators::CONDITIONAL => {
                let mut it = args.into_iter().skip(1);
                match (it.next(), it.next()) {
                    (Some(a), Some(b)) => a.join(b),
                    _ => Known::Dyn,
                }
            }
            operators::ADD => match args.as_slice() {
                [Known::Str, Known::Str] => Known::Str,
                [Known::Int, Known::Int] => Known::Int,
                [Known::Double, Known::Double] => Known::Double,
                [Known::List(a), Known::List(_)] => Known::List(a.clone()),
                [a, b] if is_scalar(a) && is_scalar(b) => {
                    self.problem(
                        e,
                        "cel::wrong-type",
                        format!(
                            "cannot add {} and {}: this fails at run time",
                            a.a_name(),
                            b.a_name()
                        ),
                        Some(conversion_hint(a, b)),
                        false,
                    );
                    Known::Dyn
                }
                _ => Known::Dyn,
            },
            operators::SUBSTRACT
            | operators::MULTIPLY
            | operators::DIVIDE
            | operators::MODULO
            | operators::NEGATE => {
                for (arg, t) in call.args.iter().zip(&args) {
                    if !matches!(t, Known::Int | Known::Double | Known::Dyn) {
                        self.problem(
                            arg,
                            "cel::wrong-type",
                            format!("arithmetic needs numbers, not {}", t.a_name()),
                            Some("for a count, use size(x); for digits in text, int(x)".into()),
                            false,
                        );
                    }
                }
                match args.as_slice() {
                    [Known::Int] | [Known::Int, Known::Int] => Known::Int,
                    [Known::Double] | [Known::Double, Known::Double] => Known::Double,
                    [a, b] if is_number(a) && is_number(b) && a != b => {
                        // CEL has no implicit int/double arithmetic.
                        self.problem(
                            e,
                            "cel::wrong-type",
                            format!(
                                "CEL does not mix {} and {} in arithmetic: this fails at run time",
                                a.a_name(),
                                b.a_name()
                            ),
                            Some("convert one side: int(x) or double(x)".into()),
                            false,
                        );
                        Known::Dyn
                    }
                    _ => Known::Dyn,
                }
            }
            operators::INDEX => match args.first() {
                Some(Known::List(inner)) => (**inner).clone(),
                _ => Known::Dyn,
            },
            "size" => Known::Int,
            n if crate::expr::functions::NAMES.iter().any(|(f, _)| *f == n) => {
                if let Some(t) = &target {
                    if !matches!(t, Known::Str | Known::Dyn) {
                        let subject_node = call.target.as_deref().unwrap_or(e);
                        self.problem(
                            subject_node,
                            "cel::wrong-type",
                            format!("`{name}` works on strings, not on {}", t.a_name()),
                            None,
                            false,
                        );
                    }
                }
                match crate::expr::functions::NAMES
                    .iter()
                    .find(|(f, _)| *f == n)
                    .map(|(_, t)| *t)
                {
                    Some("bool") => Known::Bool,
                    Some("string") => Known::Str,
                    Some("list") => Known::List(Box::new(Known::Map)),
                    _ => Known::Dyn,
                }
            }
            "contains" | "startsWith" | "endsWith" | "matches" => {
                let subject = target.or_else(|| args.first().cloned());
                // Point at the value of the wrong type, not at the call.
                let subject_node = call.target.as_deref().or(call.args.first()).unwrap_or(e);
                if let Some(t) = subject {
                    if !matches!(t, Known::Str | Known::Dyn) {
                        self.problem(
                            subject_node,
                            "cel::wrong-type",
                            format!("`{name}` works on strings, not on {}", t.a_name()),
                            Some(match t {
                                Known::List(_) => format!("for a list, test its elements: list.exists(x, x.{name}(...)), or use `in`"),
                                _ => "convert it first, e.g. string(x)".into(),
                            }),
                            false,
                        );
                    }
                }
                Known::Bool
            }
            "lowerAscii" | "upperAscii" | "trim" | "replace" | "substring" | "string" => Known::Str,
            "split" => Known::List(Box::new(Known::Str)),
            "int" => Known::Int,
            "double" => Known::Double,
            "bool" => Known::Bool,
            _ => Known::Dyn,
        }
    }
}

fn is_number(t: &Known) -> bool {
    matches!(t, Known::Int | Known::Double)
}

fn is_scalar(t: &Known) -> bool {
    matches!(t, Known::Int | Known::Double | Known::Str | Known::Bool)
}

/// CEL equality across types is defined (ints and doubles compare by value)
/// but a string never equals a number: flag only pairs that are known and
/// can never be equal.
fn comparable_for_equality(a: &Known, b: &Known) -> bool {
    match (a, b) {
        (Known::Dyn, _) | (_, Known::Dyn) | (Known::Null, _) | (_, Known::Null) => true,
        (x, y) if is_number(x) && is_number(y) => true,
        (Known::List(x), Known::List(y)) => comparable_for_equality(x, y),
        (Known::Map | Known::Object(_), Known::Map | Known::Object(_)) => true,
        (x, y) => std::mem::discriminant(x) == std::mem::discriminant(y),
    }
}

/// Ordering is defined between numbers, between strings and between bools.
fn orderable(a: &Known, b: &Known) -> bool {
    match (a, b) {
        (Known::Dyn, Known::Dyn) => true,
        (Known::Dyn, x) | (x, Known::Dyn) => is_scalar(x),
        (x, y) if is_number(x) && is_number(y) => true,
        (Known::Str, Known::Str) | (Known::Bool, Known::Bool) => true,
        _ => false,
    }
}

fn conversion_hint(a: &Known, b: &Known) -> String {
    let pair = |x: &Known, y: &Known| matches!((x, y), (Known::Str, k) if is_number(k));
    if pair(a, b) || pair(b, a) {
        "compare like with like: write the number without quotes, or convert with int(x) / string(x)".into()
    } else if matches!(a, Known::List(_)) || matches!(b, Known::List(_)) {
        "for a list, test its elements: list.exists(x, x == ...), or use size(list)".into()
    } else {
        "compare values of the same type".into()
    }
}

fn logical_symbol(name: &str) -> &'static str {
    match name {
        operators::LOGICAL_AND => "&&",
        operators::LOGICAL_OR => "||",
        _ => "!",
    }
}

fn root_name(expr: &IdedExpr) -> Option<&str> {
    match &expr.expr {
        Expr::Ident(n) => Some(n),
        Expr::Select(s) => root_name(&s.operand),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(src: &str, hooks: &[&str]) -> Vec<(&'static str, String)> {
        let program = crate::expr::compile(src).unwrap();
        let scope = Scope::new(hooks.iter().map(|h| catalogue::hook(h).unwrap()).collect());
        check(program.expression(), &scope, Want::Bool)
            .into_iter()
            .map(|p| (p.code, p.message))
            .collect()
    }

    #[test]
    fn clean_conditions_have_no_problems() {
        for (src, hook) in [
            ("command.contains('rm')", "pre_shell_exec"),
            (
                "tools.exists(t, t.type == 'shell' && t.name.startsWith('x'))",
                "pre_api_tools",
            ),
            (
                "has(payload.fuel_remaining) && fuel_remaining < 5",
                "pre_agentic_loop",
            ),
            (
                "tool_calls.exists(c, c.name in ['a'] && c.arguments.command.contains('x'))",
                "post_tool_batch",
            ),
            ("size(request_body.messages) > 10", "pre_api_request"),
            (
                "hook == 'pre_file_read' && path.endsWith('.env')",
                "pre_file_read",
            ),
        ] {
            assert_eq!(problems(src, &[hook]), vec![], "{src}");
        }
    }

    #[test]
    fn misspelt_and_missing_names_are_reported() {
        let p = problems("comand.contains('rm')", &["pre_shell_exec"]);
        assert_eq!(p[0].0, "cel::unknown-variable");
        // `content` exists for writes but not reads: a rule on both cannot use it.
        let p = problems(
            "content.contains('x')",
            &["pre_file_read", "pre_file_write"],
        );
        assert_eq!(p[0].0, "cel::unknown-variable");
        let p = problems("tools.exists(t, t.nmae == 'x')", &["pre_api_tools"]);
        assert_eq!(p[0].0, "cel::unknown-field");
    }

    #[test]
    fn optional_fields_need_a_guard() {
        let p = problems("fuel_remaining < 5", &["pre_agentic_loop"]);
        assert_eq!(p[0].0, "cel::unguarded-optional");
    }

    #[test]
    fn wrong_types_and_non_boolean_conditions() {
        assert_eq!(
            problems("tools.contains('x')", &["pre_api_tools"])[0].0,
            "cel::wrong-type"
        );
        assert_eq!(
            problems("command", &["pre_shell_exec"])[0].0,
            "cel::not-boolean"
        );
        assert_eq!(
            problems("size(command)", &["pre_shell_exec"])[0].0,
            "cel::not-boolean"
        );
    }

    #[test]
    fn comparisons_must_fit_the_field_types() {
        for (src, hook) in [
            (
                "has(payload.fuel_remaining) && fuel_remaining == '5'",
                "pre_agentic_loop",
            ),
            (
                "has(payload.fuel_remaining) && fuel_remaining < 'low'",
                "pre_agentic_loop",
            ),
            ("command > 3", "pre_shell_exec"),
            ("command in 3", "pre_shell_exec"),
            ("3 in tool_calls", "post_tool_batch"),
            ("command + 1 == 'x'", "pre_shell_exec"),
            ("size(command) - 'a' > 0", "pre_shell_exec"),
            ("command && true", "pre_shell_exec"),
            ("size(command) * 1.5 > 2.0", "pre_shell_exec"),
        ] {
            let p = problems(src, &[hook]);
            assert!(
                p.iter().any(|(c, _)| *c == "cel::wrong-type"),
                "{src}: {p:?}"
            );
        }
        // Mixed int/double comparisons are fine in CEL; so is anything unknown.
        for (src, hook) in [
            (
                "has(payload.fuel_remaining) && fuel_remaining < 2.5",
                "pre_agentic_loop",
            ),
            ("arguments.count > 3", "pre_tool"),
            ("'x' in arguments", "pre_tool"),
            ("tool_name in ['a', 'b']", "pre_tool"),
            ("size(command) * 2 > 10", "pre_shell_exec"),
        ] {
            assert_eq!(problems(src, &[hook]), vec![], "{src}");
        }
    }

    #[test]
    fn fuel_values_must_be_integers() {
        let check_int = |src: &str, hook: &str| {
            let program = crate::expr::compile(src).unwrap();
            let scope = Scope::new(vec![catalogue::hook(hook).unwrap()]);
            check(program.expression(), &scope, Want::Int)
                .into_iter()
                .map(|p| p.code)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            check_int("-size(tool_calls)", "post_tool_batch"),
            Vec::<&str>::new()
        );
        assert_eq!(
            check_int("'five'", "post_tool_batch"),
            vec!["cel::not-integer"]
        );
        assert_eq!(
            check_int("double(size(tool_calls)) / 2.0", "post_tool_batch"),
            vec!["cel::not-integer"]
        );
    }
}
