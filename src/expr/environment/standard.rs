//! The standard library's `contains`, `startsWith`, `endsWith` and `size`,
//! each registered alone, without the rest of it.
//!
//! Shipped conditions call these far more than any other standard function,
//! and the `cel` crate registers its standard library only as a whole (about
//! half of what building the full environment costs). These are the same
//! overloads: the same names, member or global, parameter types, ids and
//! order as `Env::with_stdlib` declares them, computing the same results.
//! A differential test holds them to the standard library's, argument
//! types and errors included. An environment has either these or the
//! standard library, never both; a condition gets only the ones it calls.

use super::overload::{member_overload, overload};
use crate::expr::functions::Registrar;
use cel::common::traits::Sizer;
use cel::common::types::{CelBool, CelBytes, CelInt, CelString, LIST_TYPE, MAP_TYPE};
use cel::common::value::CowVal;
use cel::ExecutionError;

/// The functions registered here, each alone with all its overloads.
pub const FUNCTIONS: &[(&str, Registrar)] = &[
    (
        "contains",
        |env| member_overload!(env, "contains", "string.contains(string)", fn contains: (CelString, CelString) -> CelBool),
    ),
    (
        "endsWith",
        |env| member_overload!(env, "endsWith", "string.endsWith(string)", fn ends_with: (CelString, CelString) -> CelBool),
    ),
    // `size`'s overloads in the standard library's order: bytes, list, map,
    // then string.
    ("size", |env| {
        overload!(env, "size", "size_bytes", fn bytes_size: (CelBytes) -> CelInt)?;
        member_overload!(env, "size", "bytes_size", fn bytes_size: (CelBytes) -> CelInt)?;
        env.add_overload("size", "size_list", vec![LIST_TYPE], sizer_size)?;
        env.add_member_overload("size", "list_size", LIST_TYPE, vec![], sizer_size)?;
        env.add_overload("size", "size_map", vec![MAP_TYPE], sizer_size)?;
        env.add_member_overload("size", "map_size", MAP_TYPE, vec![], sizer_size)?;
        overload!(env, "size", "size_string", fn string_size: (CelString) -> CelInt)?;
        member_overload!(env, "size", "string_size", fn string_size: (CelString) -> CelInt)
    }),
    (
        "startsWith",
        |env| member_overload!(env, "startsWith", "string.startsWith(string)", fn starts_with: (CelString, CelString) -> CelBool),
    ),
];

fn contains(this: &CelString<'_>, needle: &CelString<'_>) -> CelBool {
    CelBool::from(this.inner().contains(needle.inner()))
}

fn ends_with(this: &CelString<'_>, suffix: &CelString<'_>) -> CelBool {
    CelBool::from(this.inner().ends_with(suffix.inner()))
}

fn starts_with(this: &CelString<'_>, prefix: &CelString<'_>) -> CelBool {
    CelBool::from(this.inner().starts_with(prefix.inner()))
}

fn string_size(this: &CelString<'_>) -> CelInt {
    Sizer::size(this)
}

fn bytes_size(this: &CelBytes<'_>) -> CelInt {
    Sizer::size(this)
}

/// `size` of any list or map: the standard library's overload asks the value
/// for its size the same way, and fails the same way when it has none.
fn sizer_size<'b, 'v>(args: Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError> {
    let target = &args[0];
    match target.as_sizer() {
        Some(sizer) => Ok(CowVal::owned(sizer.size())),
        None => Err(ExecutionError::UnexpectedType {
            got: target.get_type().name().to_owned(),
            want: "missing trait Sizer".to_owned(),
        }),
    }
}
