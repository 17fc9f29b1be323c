//! The typed policy structs read straight from the tree.
//!
//! The loader used to turn a file's tree into a `serde_json::Value` (an
//! ordered map per node, every string copied) and deserialise the model
//! from that: a tenth of the first hook call after an edit at 1,000 rules.
//! The tree itself is a serde `Deserializer` here, one that reads every node
//! exactly as `serde_json::Value`'s deserializer reads the node's JSON
//! (see [`Node::to_json`]): non-negative integers as `u64`, non-finite
//! floats as null, a string or a one-entry map as an enum, and errors of
//! `serde_json`'s type and wording. The test below holds the two readings
//! to the same results on every policy and pack of the repository.

use super::tree::{Entry, Node, Value};
use serde::de::value::{BorrowedStrDeserializer, MapAccessDeserializer};
use serde::de::{self, Deserializer, Error as _, IntoDeserializer, Unexpected, Visitor};
use serde_json::Error;

/// `T` from a tree, as `serde_json::from_value(node.to_json())` reads it.
pub fn from_node<'de, T: serde::Deserialize<'de>>(node: &'de Node) -> Result<T, Error> {
    T::deserialize(node)
}

impl<'de> Deserializer<'de> for &'de Node {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(*b),
            // JSON keeps non-negative integers as unsigned.
            Value::Int(i) => match u64::try_from(*i) {
                Ok(u) => visitor.visit_u64(u),
                Err(_) => visitor.visit_i64(*i),
            },
            Value::Float(f) if f.is_finite() => visitor.visit_f64(*f),
            Value::Float(_) => visitor.visit_unit(),
            Value::Str(s) => visitor.visit_borrowed_str(s),
            Value::Seq(items) => {
                let mut access = Items(items.iter());
                let value = visitor.visit_seq(&mut access)?;
                match access.0.len() {
                    0 => Ok(value),
                    _ => Err(Error::invalid_length(
                        items.len(),
                        &"fewer elements in array",
                    )),
                }
            }
            Value::Map(entries) => {
                let mut access = Entries {
                    entries: entries.iter(),
                    value: None,
                };
                let value = visitor.visit_map(&mut access)?;
                match access.entries.len() {
                    0 => Ok(value),
                    _ => Err(Error::invalid_length(
                        entries.len(),
                        &"fewer elements in map",
                    )),
                }
            }
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match &self.value {
            Value::Null => visitor.visit_none(),
            Value::Float(f) if !f.is_finite() => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match &self.value {
            Value::Str(s) => visitor.visit_enum(s.as_str().into_deserializer()),
            Value::Map(entries) if entries.len() == 1 => {
                visitor.visit_enum(MapAccessDeserializer::new(Entries {
                    entries: entries.iter(),
                    value: None,
                }))
            }
            Value::Map(_) => Err(Error::invalid_value(
                Unexpected::Map,
                &"map with a single key",
            )),
            _ => Err(Error::invalid_type(self.unexpected(), &"string or map")),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_unit()
    }

    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string
        bytes byte_buf unit unit_struct seq tuple tuple_struct map struct identifier
    }
}

impl Node {
    fn unexpected(&self) -> Unexpected<'_> {
        match &self.value {
            Value::Null => Unexpected::Unit,
            Value::Bool(b) => Unexpected::Bool(*b),
            Value::Int(i) => match u64::try_from(*i) {
                Ok(u) => Unexpected::Unsigned(u),
                Err(_) => Unexpected::Signed(*i),
            },
            Value::Float(f) if f.is_finite() => Unexpected::Float(*f),
            Value::Float(_) => Unexpected::Unit,
            Value::Str(s) => Unexpected::Str(s),
            Value::Seq(_) => Unexpected::Seq,
            Value::Map(_) => Unexpected::Map,
        }
    }
}

struct Items<'de>(std::slice::Iter<'de, Node>);

impl<'de> de::SeqAccess<'de> for Items<'de> {
    type Error = Error;

    fn next_element_seed<T: de::DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0.next().map(|node| seed.deserialize(node)).transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

struct Entries<'de> {
    entries: std::slice::Iter<'de, Entry>,
    value: Option<&'de Node>,
}

impl<'de> de::MapAccess<'de> for Entries<'de> {
    type Error = Error;

    fn next_key_seed<K: de::DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some(entry) = self.entries.next() else {
            return Ok(None);
        };
        self.value = Some(&entry.value);
        seed.deserialize(BorrowedStrDeserializer::new(&entry.key))
            .map(Some)
    }

    fn next_value_seed<V: de::DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(node) => seed.deserialize(node),
            None => Err(Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.entries.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::tree::{parse, ParseLimits};
    use crate::model::{PolicyFile, Rule};

    /// Both readings of one text: the results, or that both refused.
    fn both<T: serde::de::DeserializeOwned + std::fmt::Debug>(text: &str) -> (String, String) {
        let tree = parse(text, ParseLimits::default()).unwrap();
        let direct = from_node::<T>(&tree).map(|v| format!("{v:?}"));
        let json = serde_json::from_value::<T>(tree.to_json()).map(|v| format!("{v:?}"));
        let show = |r: Result<String, Error>| r.unwrap_or_else(|_| "refused".to_string());
        (show(direct), show(json))
    }

    #[test]
    fn reads_policies_and_packs_as_the_json_path_does() {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let mut read = 0;
        for dir in ["policies", "packs"] {
            for entry in std::fs::read_dir(root.join(dir)).unwrap() {
                let path = entry.unwrap().path();
                let name = path.to_string_lossy();
                if !name.ends_with(".yaml") || name.ends_with(".test.yaml") {
                    continue;
                }
                let text = std::fs::read_to_string(&path).unwrap();
                let (direct, json) = both::<PolicyFile>(&text);
                assert_eq!(direct, json, "{name}");
                assert_ne!(direct, "refused", "{name}");
                read += 1;
            }
        }
        assert!(read > 10);
    }

    #[test]
    fn refuses_what_the_json_path_refuses() {
        for text in [
            "version: 1\nrules: []\n",
            "version: 2\nrules: []\n",
            "version: 1.0\nrules: []\n",
            "version: -1\nrules: []\n",
            "version: 1\nrules: []\nextra: 1\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_tool\n    block: b\n    priority: 3\n",
            "version: 1\nrules:\n  - id: a\n    hook: [pre_tool, pre_shell_exec]\n    deny: b\n    priority: -3\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_tool\n    block: b\n    priority: 2.5\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_tool\n    fallback: call_user\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_tool\n    fallback: {call_user: null}\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_tool\n    fallback: {call_user: 1}\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_tool\n    fallback: [call_user]\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_tool\n    fallback: maybe\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_api_request\n    request: {temperature: 0.5, n: 2, x: 1e3, y: [1, -2, null, true]}\n",
            "version: 1\nrules:\n  - id: a\n    hook: pre_api_tools\n    tools: {exclude: x}\n",
            "version: 1\nrules:\n  - id: a\n    hook: 7\n    deny: x\n",
            "version: 1\nsettings: {on_error: fail_open, log: /tmp/x}\nrules: []\n",
            "version: 1\nsettings: {on_error: maybe}\nrules: []\n",
            "version: 1\npacks: {enable: [recommended], outcome: {core: log}}\nrules: []\n",
        ] {
            let (direct, json) = both::<PolicyFile>(text);
            assert_eq!(direct, json, "{text}");
        }
        let (direct, json) = both::<Rule>("id: a\nhook: pre_tool\nblock: b\nwhen: x\n");
        assert_eq!(direct, json);
    }
}
