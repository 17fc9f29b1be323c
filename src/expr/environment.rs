//! The CEL environment an evaluation needs, and no more.
//!
//! Every chibi hook call is a process of its own. Building the whole
//! environment (CEL's standard library, its strings and lists extensions, our
//! functions) was a fifth of a typical shell call: about 0.28 M instructions,
//! most of them spent formatting overload ids and filling the function map.
//! A condition calls a handful of functions, and the interpreter looks up
//! nothing but what it calls:
//!
//! - operators (`_==_`, `_[_]`, `@in`, `!_`, ...) it runs natively, without
//!   the environment, when they have their usual number of operands;
//! - a call `f(..)` or `x.f(..)` it looks up by the name `f`, and first by
//!   `a.b.f` when the target spells a name `a.b` whose root is a namespace of
//!   the environment (`optional`, `strings`, `lists`);
//! - an identifier no variable answers is looked up as a type;
//! - a struct literal looks up its type.
//!
//! So an environment that declares, for every name an expression can look
//! up, exactly the overloads the full one declares, in the same order, and
//! the same types, evaluates that expression exactly as the full one does:
//! the same values, the same errors (a call to an undeclared function
//! included, which decides a hook's fail-open or fail-closed outcome).
//! [`needs`] reads which [`Library`]s an expression names; a name it does not
//! know, or a struct literal, needs [`Needs::Everything`]: the full
//! environment of [`super::env`].
//!
//! A process keeps one environment of the libraries its evaluations needed so
//! far, and adds to it the libraries the next expression needs (in place when
//! no evaluation holds it). A library is added in place only when no library
//! already in it declares one of its names later in the full environment's
//! order, so every function keeps its overloads in the full environment's
//! order; otherwise the environment is built again, in order.

pub(crate) mod overload;
mod standard;
mod strings;

use super::functions::{self, Registrar};
use super::{const_sets, native_loops};
use cel::common::ast::{operators, Expr, IdedExpr};
use cel::{DeclarationError, Env};
use std::sync::{Arc, Mutex, PoisonError};

/// A set of functions registered together, as the full environment does.
pub struct Library {
    /// The functions it declares, by the names calls use.
    pub functions: &'static [&'static str],
    pub register: Register,
}

/// How a library registers.
#[derive(Clone, Copy)]
pub enum Register {
    /// CEL's standard library: its functions and types, registered together
    /// by `Env::with_stdlib` (the crate registers no part of it alone).
    Stdlib,
    With(fn(&mut Env) -> Result<(), DeclarationError>),
}

/// The functions of CEL's standard library as this build of the `cel` crate
/// has it (no `chrono` or `regex` feature): conversions, `type`, `dyn` and
/// the `optional` library, and those [`standard`] registers alone
/// (`contains`, `startsWith`, `endsWith`, `size`), listed there.
const STDLIB_FUNCTIONS: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "dyn",
    "hasValue",
    "int",
    "optional.none",
    "optional.of",
    "optional.ofNonZeroValue",
    "or",
    "orValue",
    "string",
    "type",
    "uint",
    "value",
];

/// The types the standard library registers: an identifier of one of these
/// names that no variable answers is the type.
pub const STDLIB_TYPES: &[&str] = &[
    "bool",
    "bytes",
    "double",
    "int",
    "list",
    "map",
    "null_type",
    "optional_type",
    "string",
    "type",
    "uint",
];

/// The strings extension's functions, but for those [`strings`] registers
/// alone (`lowerAscii`, `join`, `split`, `substring`), listed there.
const STRINGS_FUNCTIONS: &[&str] = &[
    "charAt",
    "format",
    "indexOf",
    "lastIndexOf",
    "replace",
    "reverse",
    "strings.quote",
    "trim",
    "upperAscii",
];

const LISTS_FUNCTIONS: &[&str] = &[
    "@sortByAssociatedKeys",
    "distinct",
    "flatten",
    "lists.range",
    "reverse",
    "slice",
    "sort",
];

/// One library per function of `registrars`.
fn each_alone(registrars: &'static [(&'static str, Registrar)]) -> impl Iterator<Item = Library> {
    registrars.iter().map(|(name, register)| Library {
        functions: std::slice::from_ref(name),
        register: Register::With(*register),
    })
}

/// The libraries of the full environment, in the order it registers them,
/// each whole followed by its parts (see [`PARTS`]).
pub fn libraries() -> impl Iterator<Item = Library> {
    let stdlib = Library {
        functions: STDLIB_FUNCTIONS,
        register: Register::Stdlib,
    };
    let strings = Library {
        functions: STRINGS_FUNCTIONS,
        register: Register::With(cel::extensions::strings),
    };
    let lists = Library {
        functions: LISTS_FUNCTIONS,
        register: Register::With(cel::extensions::lists),
    };
    let in_set = Library {
        functions: &[const_sets::IN_SET],
        register: Register::With(const_sets::register),
    };
    let loops = Library {
        functions: &native_loops::FUNCTIONS,
        register: Register::With(native_loops::register),
    };
    // The parts are not in the full environment: its wholes register them.
    std::iter::once(stdlib)
        .chain(each_alone(standard::FUNCTIONS))
        .chain([strings])
        .chain(each_alone(strings::FUNCTIONS))
        .chain([lists])
        .chain(each_alone(functions::REGISTRARS))
        .chain([in_set, loops])
}

/// What evaluating an expression needs of the environment.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Needs {
    /// These libraries, as bits of their positions in [`libraries`].
    Libraries(u64),
    /// The full environment: the expression names something the libraries
    /// do not declare.
    Everything,
}

/// `count` bits from position `from`.
const fn bits(from: usize, count: usize) -> u64 {
    ((1 << count) - 1) << from
}

const STDLIB: u64 = 1;
const STANDARD_PARTS: u64 = bits(1, standard::FUNCTIONS.len());
const STRINGS: u64 = 1 << (1 + standard::FUNCTIONS.len());
const STRINGS_PARTS: u64 = bits(2 + standard::FUNCTIONS.len(), strings::FUNCTIONS.len());

/// The libraries that register parts of another alone, for an environment
/// without the rest: (the whole, its parts). The whole declares its parts'
/// functions too, so it stands in for them when both are wanted.
const PARTS: [(u64, u64); 2] = [(STDLIB, STANDARD_PARTS), (STRINGS, STRINGS_PARTS)];

/// `libraries`, with each whole standing in for its parts.
fn with_wholes_for_parts(mut libraries: u64) -> u64 {
    for (whole, parts) in PARTS {
        if libraries & whole != 0 {
            libraries &= !parts;
        }
    }
    libraries
}

/// The libraries `expr` names.
pub fn needs(expr: &IdedExpr) -> Needs {
    let mut bits = 0u64;
    let mut everything = false;
    // Conditions call the same few functions many times over.
    let mut seen: Vec<(&str, Option<u64>)> = Vec::new();
    super::ast::visit(expr, &mut |node| {
        if everything {
            return;
        }
        let found = match &node.expr {
            Expr::Call(call) if is_native(&call.func_name, call.args.len()) => Some(0),
            Expr::Call(call) => {
                let qualified = call.target.as_deref().and_then(|target| {
                    let root = qualified_root(target)?;
                    is_namespace(root).then(|| qualified_name(target, &call.func_name))
                });
                match qualified {
                    // `a.b.f(..)` under a namespace calls the function
                    // `a.b.f` when there is one, and nothing else; a name
                    // there the libraries do not declare needs the full
                    // environment to tell.
                    Some(name) => libraries_declaring(&name),
                    None => match seen.iter().find(|(name, _)| *name == call.func_name) {
                        Some((_, found)) => *found,
                        None => {
                            let found = libraries_declaring(&call.func_name);
                            seen.push((&call.func_name, found));
                            found
                        }
                    },
                }
            }
            Expr::Ident(name) if STDLIB_TYPES.contains(&name.as_str()) => Some(STDLIB),
            Expr::Struct(_) => None,
            _ => Some(0),
        };
        match found {
            Some(b) => bits |= b,
            None => everything = true,
        }
    });
    if everything {
        Needs::Everything
    } else {
        Needs::Libraries(with_wholes_for_parts(bits))
    }
}

/// Whether the interpreter runs a call of `name` with `operands` operands
/// itself, never asking the environment.
fn is_native(name: &str, operands: usize) -> bool {
    use operators::*;
    matches!(
        (operands, name),
        (1, LOGICAL_NOT | NEGATE | NOT_STRICTLY_FALSE)
            | (
                2,
                LOGICAL_OR
                    | LOGICAL_AND
                    | EQUALS
                    | NOT_EQUALS
                    | INDEX
                    | OPT_INDEX
                    | OPT_SELECT
                    | ADD
                    | SUBSTRACT
                    | DIVIDE
                    | MULTIPLY
                    | MODULO
                    | LESS
                    | LESS_EQUALS
                    | GREATER
                    | GREATER_EQUALS
                    | IN,
            )
            | (3, CONDITIONAL)
    )
}

/// The libraries declaring `function`, or `None` when none does.
fn libraries_declaring(function: &str) -> Option<u64> {
    let bits = libraries()
        .enumerate()
        .filter(|(_, library)| library.functions.contains(&function))
        .fold(0u64, |bits, (i, _)| bits | 1 << i);
    (bits != 0).then_some(bits)
}

/// The first segments of the full environment's qualified functions
/// (`optional.of`, `strings.quote`, `lists.range`); a test holds this to the
/// libraries' names.
const NAMESPACES: &[&str] = &["lists", "optional", "strings"];

/// Whether `segment` starts the name of a function of the full environment.
fn is_namespace(segment: &str) -> bool {
    NAMESPACES.contains(&segment)
}

/// The identifier a name `a.b.c` spelled by selections starts with.
fn qualified_root(mut expr: &IdedExpr) -> Option<&str> {
    loop {
        match &expr.expr {
            Expr::Ident(name) => return Some(name),
            Expr::Select(select) if !select.test => expr = &select.operand,
            _ => return None,
        }
    }
}

/// `a.b.f` for a call `a.b.f(..)`, whose target spells the name `a.b`.
fn qualified_name(target: &IdedExpr, function: &str) -> String {
    let mut segments = vec![function];
    let mut expr = target;
    loop {
        match &expr.expr {
            Expr::Select(select) if !select.test => {
                segments.push(&select.field);
                expr = &select.operand;
            }
            Expr::Ident(name) => {
                segments.push(name);
                break;
            }
            _ => break,
        }
    }
    segments.reverse();
    segments.join(".")
}

/// The environment this process evaluates with, and its libraries.
struct Grown {
    libraries: u64,
    env: Arc<Env>,
}

static GROWN: Mutex<Option<Grown>> = Mutex::new(None);

/// An environment that has what `needs` asks for.
pub fn for_needs(needs: Needs) -> Arc<Env> {
    let Needs::Libraries(wanted) = needs else {
        return super::env().clone();
    };
    // A process that built the full environment (to check policies with
    // the reference parser, or for an expression that needed it) uses it.
    if let Some(full) = super::full_env_if_built() {
        return full.clone();
    }
    grown(wanted)
}

/// The process's environment, grown to the `wanted` libraries if it lacks
/// any.
fn grown(wanted: u64) -> Arc<Env> {
    let mut slot = GROWN.lock().unwrap_or_else(PoisonError::into_inner);
    let have = slot.as_ref().map_or(0, |g| g.libraries);
    if let Some(grown) = slot.as_ref().filter(|_| have & wanted == wanted) {
        return grown.env.clone();
    }
    // Taken out while it grows: a panic leaves no half-grown environment.
    let taken = slot.take();
    let all = with_wholes_for_parts(have | wanted);
    // Growing keeps what is there: a whole replacing its part needs a new
    // environment.
    let keeps = all & have == have;
    let env = match taken {
        Some(Grown { env, .. }) if keeps && adds_in_order(have, all) => {
            match Arc::try_unwrap(env) {
                Ok(mut env) => {
                    register(&mut env, all & !have);
                    env
                }
                Err(_) => fresh(all),
            }
        }
        _ => fresh(all),
    };
    let env = Arc::new(env);
    *slot = Some(Grown {
        libraries: all,
        env: env.clone(),
    });
    env
}

/// An environment of the `libraries`, registered in order.
pub fn fresh(libraries: u64) -> Env {
    let mut env = Env::default();
    register(&mut env, libraries);
    env
}

/// Registers `libraries` on `env`, in the full environment's order.
fn register(env: &mut Env, libraries: u64) {
    for (i, library) in self::libraries().enumerate() {
        if libraries & 1 << i == 0 {
            continue;
        }
        match library.register {
            Register::Stdlib => *env = std::mem::take(env).with_stdlib(),
            // The full environment registers every library without error.
            Register::With(register) => register(env).expect("a CEL library registers"),
        }
    }
}

/// Whether adding libraries to an environment of `have` to make `all` keeps
/// every function's overloads in the full environment's order: no library
/// added declares a name that a library already in, later in that order,
/// declares too.
fn adds_in_order(have: u64, all: u64) -> bool {
    let listed: Vec<Library> = libraries().collect();
    let added = all & !have;
    (0..listed.len()).filter(|i| added & 1 << i != 0).all(|i| {
        (i + 1..listed.len())
            .filter(|j| have & 1 << j != 0)
            .all(|j| {
                !listed[i]
                    .functions
                    .iter()
                    .any(|f| listed[j].functions.contains(f))
            })
    })
}

#[cfg(test)]
mod tests;
