//! The functions the rewrites call (`@in_set`, `@exists_strings`, ...), as
//! data: each module lists its own, the environment registers them from
//! these lists, and [`super::boolean_frame`] calls them directly.
//!
//! Their names start with `@`, which no CEL source can spell, so only the
//! rewritten trees call them, and each name has one overload. cel finds a
//! call's function by name in a hashed table, then checks the arguments'
//! types against each overload, per call; a decision makes a few dozen such
//! calls. The frame looks the name up here instead, checks the same
//! parameter kinds, and calls the same function.

use cel::common::types::{CelBytes, Type, BYTES_TYPE, DYN_TYPE};
use cel::common::value::CowVal;
use cel::{DeclarationError, Env, ExecutionError};

/// The shape of the native functions.
pub type NativeFunction =
    for<'b, 'v> fn(Vec<CowVal<'b, 'v>>) -> Result<CowVal<'b, 'v>, ExecutionError>;

/// What a parameter accepts.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Param {
    /// Any value (cel's `dyn`).
    Any,
    /// Bytes: the encoded sets and programs the rewrites write as literals.
    Bytes,
}

impl Param {
    fn cel_type(self) -> Type {
        match self {
            Param::Any => DYN_TYPE,
            Param::Bytes => BYTES_TYPE,
        }
    }

    /// Whether `value` is accepted. For `Bytes`, only cel's own bytes: a
    /// value of another Rust type declaring itself bytes is left to cel.
    pub fn accepts(self, value: &CowVal<'_, '_>) -> bool {
        match self {
            Param::Any => true,
            Param::Bytes => value.downcast_ref::<CelBytes>().is_some(),
        }
    }
}

/// One native function.
pub struct Native {
    pub name: &'static str,
    /// The overload's id in the environment.
    pub overload: &'static str,
    pub params: &'static [Param],
    pub function: NativeFunction,
}

/// Registers `natives` in `env`.
pub fn register(env: &mut Env, natives: &[Native]) -> Result<(), DeclarationError> {
    for native in natives {
        env.add_overload(
            native.name,
            native.overload,
            native.params.iter().map(|p| p.cel_type()).collect(),
            native.function,
        )?;
    }
    Ok(())
}

/// Every native function, by name.
pub fn find(name: &str) -> Option<&'static Native> {
    if !name.starts_with('@') {
        return None;
    }
    [
        super::const_sets::NATIVES,
        super::native_loops::NATIVES,
        super::native_loops::STRING_NATIVES,
    ]
    .into_iter()
    .flatten()
    .find(|native| native.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::expr::{const_sets, native_loops};

    /// The environment's libraries name the functions an expression needs
    /// by these lists; the frame finds them in the tables: both must hold
    /// the same functions.
    #[test]
    fn the_tables_hold_the_functions_the_libraries_declare() {
        let mut declared: Vec<&str> = native_loops::FUNCTIONS.to_vec();
        declared.push(const_sets::IN_SET);
        let mut tabled: Vec<&str> = [
            const_sets::NATIVES,
            native_loops::NATIVES,
            native_loops::STRING_NATIVES,
        ]
        .into_iter()
        .flatten()
        .map(|n| n.name)
        .collect();
        declared.sort();
        tabled.sort();
        assert_eq!(declared, tabled);
        for name in declared {
            assert!(name.starts_with('@'), "{name} could be written in a source");
            assert_eq!(find(name).map(|n| n.name), Some(name));
        }
        assert!(find("size").is_none() && find("@result").is_none());
    }
}
