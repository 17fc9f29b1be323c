//! The strings extension's `lowerAscii`, `join`, `split` and `substring`,
//! each registered alone, without the rest of it.
//!
//! The shipped packs call these on many shell lines (paths and programs
//! compared case-blind, argument lists joined, `user@host` and `~/` split
//! off), and the `cel` crate registers the extension only as a whole
//! (0.07 M instructions, 20 overloads, of a cold call that needs one or
//! two). Same names, receivers, parameter types, ids and order as
//! `cel::extensions::strings`, same results and errors; the differential
//! tests hold them to the extension's. An environment has either these or
//! the whole extension, never both; a condition gets only the ones it calls.

use super::overload::member_overload;
use crate::expr::functions::Registrar;
use cel::common::types::{CelInt, CelList, CelString, LIST_TYPE, STRING_TYPE};
use cel::common::value::{CowVal, Val};
use cel::ExecutionError;

/// The functions registered here, each alone with all its overloads.
pub const FUNCTIONS: &[(&str, Registrar)] = &[
    ("join", |env| {
        env.add_member_overload("join", "list.join()", LIST_TYPE, vec![], join)?;
        env.add_member_overload(
            "join",
            "list.join(string)",
            LIST_TYPE,
            vec![STRING_TYPE],
            join_with_separator,
        )
    }),
    (
        "lowerAscii",
        |env| member_overload!(env, "lowerAscii", "string.lowerAscii()", fn lower_ascii: (CelString) -> CelString),
    ),
    ("split", |env| {
        member_overload!(env, "split", "string.split(string)", fn split: (CelString, CelString) -> CelList)?;
        member_overload!(env, "split", "string.split(string,int)", fn split_at_most: (CelString, CelString, CelInt) -> CelList)
    }),
    ("substring", |env| {
        member_overload!(env, "substring", "string.substring(int)", fn substring_from: (CelString, CelInt) -> Result<CelString>)?;
        member_overload!(env, "substring", "string.substring(int,int)", fn substring: (CelString, CelInt, CelInt) -> Result<CelString>)
    }),
];

fn lower_ascii(this: &CelString<'_>) -> CelString<'static> {
    this.inner().to_ascii_lowercase().into()
}

fn split(this: &CelString<'_>, separator: &CelString<'_>) -> CelList<'static> {
    strings(pieces(this.inner(), separator.inner(), None))
}

/// `split` into at most `limit` pieces, the last one the rest of the text
/// unsplit; no pieces at all for a limit of 0, no limit when it is negative.
fn split_at_most(
    this: &CelString<'_>,
    separator: &CelString<'_>,
    limit: &CelInt,
) -> CelList<'static> {
    match usize::try_from(*limit.inner()) {
        Ok(0) => strings(Vec::new()),
        Ok(limit) => strings(pieces(this.inner(), separator.inner(), Some(limit))),
        Err(_) => split(this, separator),
    }
}

/// The pieces of `text` between `separator`s (between characters when the
/// separator is empty), at most `limit` of them.
fn pieces<'t>(text: &'t str, separator: &str, limit: Option<usize>) -> Vec<&'t str> {
    let limit = limit.unwrap_or(usize::MAX);
    if !separator.is_empty() {
        return text.splitn(limit, separator).collect();
    }
    let mut pieces = Vec::new();
    let mut rest = text;
    while let Some(first) = rest.chars().next() {
        if pieces.len() + 1 == limit {
            break;
        }
        let (piece, tail) = rest.split_at(first.len_utf8());
        pieces.push(piece);
        rest = tail;
    }
    if !rest.is_empty() {
        pieces.push(rest);
    }
    pieces
}

fn strings(pieces: Vec<&str>) -> CelList<'static> {
    pieces
        .into_iter()
        .map(|piece| Box::new(CelString::from(piece.to_owned())) as Box<dyn Val>)
        .collect::<Vec<_>>()
        .into()
}

/// The characters from `start` (counted in characters) to the end.
fn substring_from(
    this: &CelString<'_>,
    start: &CelInt,
) -> Result<CelString<'static>, ExecutionError> {
    let length = this.inner().chars().count() as i64;
    let start = *start.inner();
    if !(0..=length).contains(&start) {
        return Err(out_of_range(start));
    }
    substring(this, &CelInt::from(start), &CelInt::from(length))
}

/// The characters from `start` up to (not including) `end`.
fn substring(
    this: &CelString<'_>,
    start: &CelInt,
    end: &CelInt,
) -> Result<CelString<'static>, ExecutionError> {
    let (start, end) = (*start.inner(), *end.inner());
    let length = this.inner().chars().count() as i64;
    if start > end {
        return Err(ExecutionError::function_error(
            "substring",
            format!("invalid substring range. start: {start}, end: {end}"),
        ));
    }
    if !(0..=length).contains(&start) {
        return Err(out_of_range(start));
    }
    if end > length {
        return Err(out_of_range(end));
    }
    let text: String = this
        .inner()
        .chars()
        .skip(start as usize)
        .take((end - start) as usize)
        .collect();
    Ok(text.into())
}

fn out_of_range(index: i64) -> ExecutionError {
    ExecutionError::function_error("substring", format!("index out of range: {index}"))
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
