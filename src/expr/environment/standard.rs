//! The standard library's `contains`, `startsWith`, `endsWith` and `size`,
//! registered without the rest of it.
//!
//! Shipped conditions call these far more than any other standard function,
//! and the `cel` crate registers its standard library only as a whole (about
//! half of what building the full environment costs). These are the same
//! overloads: the same names, member or global, parameter types, ids and
//! order as `Env::with_stdlib` declares them, computing the same results.
//! A differential test holds them to the standard library's, argument
//! types and errors included. An environment has either these or the
//! standard library, never both.

use cel::common::traits::Sizer;
use cel::common::types::{CelBool, CelBytes, CelInt, CelString, LIST_TYPE, MAP_TYPE};
use cel::common::value::CowVal;
use cel::{DeclarationError, Env, ExecutionError};

/// The functions registered here.
pub const FUNCTIONS: &[&str] = &["contains", "endsWith", "size", "startsWith"];

pub fn register(env: &mut Env) -> Result<(), DeclarationError> {
    // `size`'s overloads in the standard library's order: bytes, list, map,
    // then string.
    cel::add_overload!(env, fn bytes_size: (CelBytes) -> CelInt, name = "size", id = "size_bytes")?;
    cel::add_member_overload!(env, fn bytes_size: (CelBytes) -> CelInt, name = "size", id = "bytes_size")?;
    env.add_overload("size", "size_list", vec![LIST_TYPE], sizer_size)?;
    env.add_member_overload("size", "list_size", LIST_TYPE, vec![], sizer_size)?;
    env.add_overload("size", "size_map", vec![MAP_TYPE], sizer_size)?;
    env.add_member_overload("size", "map_size", MAP_TYPE, vec![], sizer_size)?;
    cel::add_member_overload!(env, fn contains: (CelString, CelString) -> CelBool)?;
    cel::add_member_overload!(env, fn ends_with: (CelString, CelString) -> CelBool)?;
    cel::add_overload!(env, fn string_size: (CelString) -> CelInt, name = "size", id = "size_string")?;
    cel::add_member_overload!(env, fn string_size: (CelString) -> CelInt, name = "size", id = "string_size")?;
    cel::add_member_overload!(env, fn starts_with: (CelString, CelString) -> CelBool)?;
    Ok(())
}

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
