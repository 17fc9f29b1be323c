//! Registering an overload under the name and id it is written with.
//!
//! The `cel` crate's `add_overload!` and `add_member_overload!` work out a
//! default name and id for every overload (a camel-case conversion, a
//! `format!`, a join) even when both are given: about 2,000 instructions an
//! overload, more than the environment spends storing it, and a cold hook
//! call registers a dozen or two. [`overload!`] and [`member_overload!`]
//! take the name and id as written and generate the same kind of wrapper:
//! the argument count checked, each argument downcast to the Rust type its
//! parameter declares, the result boxed (or its error passed on).
//!
//! ```ignore
//! member_overload!(env, "lowerAscii", "string.lowerAscii()", fn lower: (CelString) -> CelString)?;
//! overload!(env, "matches", "matches", fn matches: (CelString, CelString) -> Result<CelBool>)?;
//! ```
//!
//! The parameter types of the declaration are the CEL types of the Rust
//! types (`Val::cel_type`), as the crate's macros declare them.

/// A global overload: `name(args..)`.
macro_rules! overload {
    ($env:expr, $name:expr, $id:expr, fn $fn:path : ($($arg:ty),* $(,)?) -> $($ret:tt)+) => {
        $env.add_overload(
            $name,
            $id,
            ::std::vec![$(<$arg as ::cel::common::value::Val>::cel_type().to_owned()),*],
            $crate::expr::environment::overload::wrapper!($fn, ($($arg),*) -> $($ret)+),
        )
    };
}

/// A member overload: `receiver.name(args..)`.
macro_rules! member_overload {
    (
        $env:expr, $name:expr, $id:expr,
        fn $fn:path : ($this:ty $(, $arg:ty)* $(,)?) -> $($ret:tt)+
    ) => {
        $env.add_member_overload(
            $name,
            $id,
            <$this as ::cel::common::value::Val>::cel_type().to_owned(),
            ::std::vec![$(<$arg as ::cel::common::value::Val>::cel_type().to_owned()),*],
            $crate::expr::environment::overload::wrapper!($fn, ($this $(, $arg)*) -> $($ret)+),
        )
    };
}

/// The `cel::common::functions::Function` calling `$fn` with its arguments
/// downcast (the receiver first, for a member overload).
macro_rules! wrapper {
    ($fn:path, ($($arg:ty),*) -> Result<$ret:ty>) => {
        $crate::expr::environment::overload::wrapper!(@ $fn, ($($arg),*), |value: $ret| value?)
    };
    ($fn:path, ($($arg:ty),*) -> $ret:ty) => {
        $crate::expr::environment::overload::wrapper!(@ $fn, ($($arg),*), |value: $ret| value)
    };
    (@ $fn:path, ($($arg:ty),*), |$value:ident : $ret:ty| $unwrapped:expr) => {{
        fn wrapper<'b, 'v>(
            args: ::std::vec::Vec<::cel::common::value::CowVal<'b, 'v>>,
        ) -> ::std::result::Result<::cel::common::value::CowVal<'b, 'v>, ::cel::ExecutionError> {
            const ARITY: usize = [$(::std::stringify!($arg)),*].len();
            if args.len() != ARITY {
                return Err(::cel::ExecutionError::invalid_argument_count(ARITY, args.len()));
            }
            let mut args = args.iter();
            let $value = $fn($({
                let arg = args.next().expect("counted").as_ref();
                arg.downcast_ref::<$arg>()
                    .ok_or_else(|| $crate::expr::environment::overload::unexpected(
                        arg,
                        <$arg as ::cel::common::value::Val>::cel_type(),
                    ))?
            }),*);
            let value: $ret = $unwrapped;
            Ok(::cel::common::value::CowVal::owned(value))
        }
        wrapper
    }};
}

pub(crate) use {member_overload, overload, wrapper};

/// The error of an argument that is not of its parameter's type (the
/// overload's own check ran first, so no call should get here).
pub fn unexpected(
    value: &dyn cel::common::value::Val,
    wanted: &cel::common::types::Type,
) -> cel::ExecutionError {
    cel::ExecutionError::UnexpectedType {
        got: value.get_type().name().to_owned(),
        want: wanted.name().to_owned(),
    }
}
