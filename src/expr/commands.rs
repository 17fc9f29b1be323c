//! `shellCommands()` as CEL values built once per command line.
//!
//! With the recommended packs, most shell rules are a comprehension over
//! `command.shellCommands()`, so one decision asks for the same list many
//! times. Built afresh each time, the list was maps of strings hashed,
//! copied and freed per rule; and CEL copies every element a comprehension
//! visits. Here each command is a map view over fields built once and shared
//! ([`CommandView`]): a copy is a reference count, and the last line's list
//! is kept per thread, next to the shell analysis it comes from.

use crate::eval::json_val::val_to_json;
use cel::common::traits::{self, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{self, CelInt, CelList, CelString, Type};
use cel::common::value::{CowVal, Val};
use cel::ExecutionError;
use std::sync::Arc;

/// The fields of one command, in a fixed order.
#[derive(Debug)]
struct Fields {
    names: Vec<Box<dyn Val>>,
    values: Vec<Box<dyn Val>>,
}

impl Fields {
    fn position(&self, key: &dyn Val) -> Result<Option<usize>, ExecutionError> {
        let name = key
            .downcast_ref::<CelString>()
            .ok_or_else(|| ExecutionError::UnexpectedType {
                got: key.get_type().name().to_owned(),
                want: "string map key".to_owned(),
            })?
            .inner();
        Ok(self.names.iter().position(|n| {
            n.downcast_ref::<CelString>()
                .is_some_and(|n| n.inner() == name)
        }))
    }
}

/// One command of `shellCommands()`: a CEL `map(string, dyn)`.
#[derive(Debug, Clone)]
pub struct CommandView(Arc<Fields>);

impl CommandView {
    /// A map of `fields` (name, value), in that order.
    pub fn new(fields: Vec<(&'static str, Box<dyn Val>)>) -> CommandView {
        let (names, values) = fields
            .into_iter()
            .map(|(k, v)| (Box::new(CelString::from(k)) as Box<dyn Val>, v))
            .unzip();
        CommandView(Arc::new(Fields { names, values }))
    }

    fn missing(key: &dyn Val) -> ExecutionError {
        let name = key
            .downcast_ref::<CelString>()
            .map_or_else(|| format!("{key:?}"), |s| s.inner().to_owned());
        ExecutionError::NoSuchKey(Arc::new(name))
    }
}

/// The commands of one line as a CEL list (each element shares its fields).
pub fn list(commands: &[CommandView]) -> CelList<'static> {
    CelList::from(
        commands
            .iter()
            .map(|c| Box::new(c.clone()) as Box<dyn Val>)
            .collect::<Vec<_>>(),
    )
}

impl Val for CommandView {
    fn get_type(&self) -> &Type {
        &types::MAP_TYPE
    }

    fn cel_type() -> &'static Type {
        &types::MAP_TYPE
    }

    fn as_container(&self) -> Option<&dyn Container> {
        Some(self)
    }

    fn as_indexer<'b, 'w>(&'b self) -> Option<&'b (dyn Indexer + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn into_indexer<'w>(self: Box<Self>) -> Option<Box<dyn Indexer + 'w>>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_iterable<'b, 'w>(&'b self) -> Option<&'b (dyn Iterable + 'w)>
    where
        Self: 'w,
    {
        Some(self)
    }

    fn as_sizer(&self) -> Option<&dyn Sizer> {
        Some(self)
    }

    fn as_zeroer(&self) -> Option<&dyn Zeroer> {
        Some(self)
    }

    fn equals(&self, other: &dyn Val) -> bool {
        // As JSON, like the payload's maps: equal to any map of the same
        // entries, whatever its implementation.
        match (val_to_json(self), val_to_json(other)) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(self.clone())
    }
}

impl Container for CommandView {
    fn contains(&self, key: &dyn Val) -> Result<bool, ExecutionError> {
        Ok(self.0.position(key)?.is_some())
    }
}

impl Indexer for CommandView {
    fn get<'b, 'w>(&'b self, key: &dyn Val) -> Result<CowVal<'b, 'w>, ExecutionError>
    where
        Self: 'w,
    {
        match self.0.position(key)? {
            Some(i) => Ok(CowVal::Borrowed(self.0.values[i].as_ref())),
            None => Err(Self::missing(key)),
        }
    }

    fn steal<'w>(self: Box<Self>, key: &dyn Val) -> Result<Box<dyn Val + 'w>, ExecutionError>
    where
        Self: 'w,
    {
        match self.0.position(key)? {
            Some(i) => Ok(self.0.values[i].clone_as_boxed()),
            None => Err(Self::missing(key)),
        }
    }
}

struct Names<'b>(std::slice::Iter<'b, Box<dyn Val>>);

impl<'b, 'w> traits::Iterator<'b, 'w> for Names<'b> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'w)> {
        self.0.next().map(|b| b.as_ref() as &(dyn Val + 'w))
    }
}

impl Iterable for CommandView {
    fn iter<'b, 'w>(&'b self) -> Box<dyn traits::Iterator<'b, 'w> + 'b>
    where
        Self: 'w,
    {
        Box::new(Names(self.0.names.iter()))
    }
}

impl Sizer for CommandView {
    fn size(&self) -> CelInt {
        (self.0.names.len() as i64).into()
    }
}

impl Zeroer for CommandView {
    fn is_zero_value(&self) -> bool {
        self.0.names.is_empty()
    }
}
