//! The strings extension's `lowerAscii` and `join`, registered without the
//! rest of it.
//!
//! The shipped packs call these two on most shell lines (paths and programs
//! compared case-blind, argument lists joined), and the `cel` crate
//! registers the extension only as a whole (0.07 M instructions, a quarter
//! of the full environment). Same names, receivers, parameter types, ids and
//! order as `cel::extensions::strings`, same results and errors; the
//! differential tests hold them to the extension's. An environment has
//! either these or the whole extension, never both.

use cel::common::types::{CelString, LIST_TYPE, STRING_TYPE};
use cel::common::value::{CowVal, Val};
use cel::{DeclarationError, Env, ExecutionError};

/// The functions registered here.
pub const FUNCTIONS: &[&str] = &["join", "lowerAscii"];

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    env.add_member_overload("join", "list.join()", LIST_TYPE, vec![], join)?;
    env.add_member_overload(
        "join",
        "list.join(string)",
        LIST_TYPE,
        vec![STRING_TYPE],
        join_with_separator,
    )?;
    cel::add_member_overload!(env, fn lower_ascii: (CelString) -> CelString)?;
    Ok(())
}

fn lower_ascii(this: &CelString<'_>) -> CelString<'static> {
    this.inner().to_ascii_lowercase().into()
}

fn join<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    match args.as_slice() {
        [list] => joined(list.as_ref(), ""),
        _ => Err(ExecutionError::invalid_argument_count(1, args.len())),
    }
}

fn join_with_separator<'b, 'v>(
    args: Vec<CowVal<'b, 'v>>,
) -> Result<CowVal<'b, 'v>, ExecutionError> {
    match args.as_slice() {
        [list, separator] => joined(list.as_ref(), string(separator.as_ref())?.inner()),
        _ => Err(ExecutionError::invalid_argument_count(2, args.len())),
    }
}

/// The strings of a list, `separator` between each; the first element that
/// is not a string is the error, as in the extension.
fn joined<'b, 'v>(list: &dyn Val, separator: &str) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let iterable = list
        .as_iterable()
        .ok_or_else(|| unexpected(list, "iterable"))?;
    let mut items = iterable.iter();
    let mut parts = Vec::new();
    while let Some(item) = items.next() {
        parts.push(string(item)?.inner());
    }
    Ok(CowVal::owned(CelString::from(parts.join(separator))))
}

fn string<'a>(value: &'a dyn Val) -> Result<&'a CelString<'a>, ExecutionError> {
    value
        .downcast_ref::<CelString>()
        .ok_or_else(|| unexpected(value, STRING_TYPE.name()))
}

fn unexpected(value: &dyn Val, wanted: &str) -> ExecutionError {
    ExecutionError::UnexpectedType {
        got: value.get_type().name().to_owned(),
        want: wanted.to_owned(),
    }
}
