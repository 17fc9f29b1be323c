//! Hook payloads seen by CEL without converting them first.
//!
//! A `pre_api_request` payload is 20-40 KB of messages; a condition usually
//! reads one or two fields of it. Converting the whole payload into CEL values
//! for every decision would cost more than the decision itself. Instead:
//! - strings, numbers, booleans and null become CEL scalars on access (a
//!   string borrows the payload's bytes);
//! - an object becomes a [`JsonMap`], a map view that converts a field only
//!   when it is read;
//! - an array becomes a native CEL list of such values, built shallowly when
//!   the array is reached, so every list macro and function works unchanged.

use cel::common::traits::{self, Container, Indexer, Iterable, Sizer, Zeroer};
use cel::common::types::{
    self, CelBool, CelDouble, CelInt, CelList, CelNull, CelString, CelUInt, Type,
};
use cel::common::value::{CowVal, Val};
use cel::ExecutionError;
use serde_json::{Map, Value as Json};
use std::sync::Arc;
use std::sync::OnceLock;

/// Converts one JSON value into a CEL value that borrows from it.
pub fn to_val<'v>(json: &'v Json) -> Box<dyn Val + 'v> {
    match json {
        Json::Null => Box::new(CelNull),
        Json::Bool(b) => Box::new(CelBool::from(*b)),
        Json::Number(n) => {
            if let Some(i) = n.as_i64() {
                Box::new(CelInt::from(i))
            } else if let Some(u) = n.as_u64() {
                Box::new(CelUInt::from(u))
            } else {
                Box::new(CelDouble::from(n.as_f64().unwrap_or(f64::NAN)))
            }
        }
        Json::String(s) => Box::new(CelString::from(s.as_str())),
        Json::Array(items) => Box::new(CelList::from(items.iter().map(to_val).collect::<Vec<_>>())),
        Json::Object(map) => Box::new(JsonMap::new(map)),
    }
}

/// A JSON object seen as a CEL `map(string, dyn)`, converting on access.
#[derive(Debug)]
pub struct JsonMap<'v> {
    map: &'v Map<String, Json>,
    /// Keys as CEL strings, built the first time the map is iterated.
    keys: OnceLock<Vec<Box<dyn Val + 'v>>>,
}

impl<'v> JsonMap<'v> {
    pub fn new(map: &'v Map<String, Json>) -> Self {
        JsonMap {
            map,
            keys: OnceLock::new(),
        }
    }

    pub fn json(&self) -> &'v Map<String, Json> {
        self.map
    }

    fn key_str(key: &dyn Val) -> Result<&str, ExecutionError> {
        key.downcast_ref::<CelString>()
            .map(|s| s.inner())
            .ok_or_else(|| ExecutionError::UnexpectedType {
                got: key.get_type().name().to_owned(),
                want: "string map key".to_owned(),
            })
    }
}

impl<'v> Val for JsonMap<'v> {
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
        // Compare as JSON: works against another payload object, a map
        // literal, or a map built by an expression alike.
        match val_to_json(other) {
            Ok(Json::Object(o)) => *self.map == o,
            _ => false,
        }
    }

    fn clone_as_boxed<'w>(&self) -> Box<dyn Val + 'w>
    where
        Self: 'w,
    {
        Box::new(JsonMap::new(self.map))
    }
}

impl Container for JsonMap<'_> {
    fn contains(&self, key: &dyn Val) -> Result<bool, ExecutionError> {
        Ok(self.map.contains_key(Self::key_str(key)?))
    }
}

impl<'v> Indexer for JsonMap<'v> {
    fn get<'b, 'w>(&'b self, key: &dyn Val) -> Result<CowVal<'b, 'w>, ExecutionError>
    where
        Self: 'w,
    {
        let name = Self::key_str(key)?;
        match self.map.get(name) {
            Some(v) => Ok(CowVal::Owned(to_val(v))),
            None => Err(ExecutionError::NoSuchKey(Arc::new(name.to_owned()))),
        }
    }

    fn steal<'w>(self: Box<Self>, key: &dyn Val) -> Result<Box<dyn Val + 'w>, ExecutionError>
    where
        Self: 'w,
    {
        let name = Self::key_str(key)?;
        match self.map.get(name) {
            Some(v) => Ok(to_val(v)),
            None => Err(ExecutionError::NoSuchKey(Arc::new(name.to_owned()))),
        }
    }
}

struct KeyIter<'b, 'v>(std::slice::Iter<'b, Box<dyn Val + 'v>>);

impl<'b, 'v: 'w, 'w> traits::Iterator<'b, 'w> for KeyIter<'b, 'v> {
    fn next(&mut self) -> Option<&'b (dyn Val + 'w)> {
        self.0.next().map(|b| b.as_ref())
    }
}

impl<'v> Iterable for JsonMap<'v> {
    fn iter<'b, 'w>(&'b self) -> Box<dyn traits::Iterator<'b, 'w> + 'b>
    where
        Self: 'w,
    {
        let keys = self.keys.get_or_init(|| {
            self.map
                .keys()
                .map(|k| Box::new(CelString::from(k.as_str())) as Box<dyn Val + 'v>)
                .collect()
        });
        Box::new(KeyIter(keys.iter()))
    }
}

impl Sizer for JsonMap<'_> {
    fn size(&self) -> CelInt {
        (self.map.len() as i64).into()
    }
}

impl Zeroer for JsonMap<'_> {
    fn is_zero_value(&self) -> bool {
        self.map.is_empty()
    }
}

/// Converts a CEL result back into JSON (request values, argument rewrites).
pub fn val_to_json(val: &dyn Val) -> Result<Json, String> {
    if let Some(s) = val.downcast_ref::<CelString>() {
        return Ok(Json::String(s.inner().to_owned()));
    }
    if let Some(i) = val.downcast_ref::<CelInt>() {
        return Ok(Json::from(*i.inner()));
    }
    if let Some(u) = val.downcast_ref::<CelUInt>() {
        return Ok(Json::from(*u.inner()));
    }
    if let Some(d) = val.downcast_ref::<CelDouble>() {
        return serde_json::Number::from_f64(*d.inner())
            .map(Json::Number)
            .ok_or_else(|| format!("{} has no JSON form", d.inner()));
    }
    if let Some(b) = val.downcast_ref::<CelBool>() {
        return Ok(Json::Bool(*b.inner()));
    }
    if val.downcast_ref::<CelNull>().is_some() {
        return Ok(Json::Null);
    }
    // Maps and lists of any implementation (native, payload views, extensions)
    // are read through their traits, so no downcast to a concrete type is needed.
    if val.get_type().name() == "map" {
        let (Some(iterable), Some(indexer)) = (val.as_iterable(), val.as_indexer()) else {
            return Err("a map that cannot be read".into());
        };
        let mut out = Map::new();
        let mut keys = iterable.iter();
        while let Some(k) = keys.next() {
            let key = match val_to_json(k)? {
                Json::String(s) => s,
                other => other.to_string(),
            };
            let v = indexer.get(k).map_err(|e| e.to_string())?;
            out.insert(key, val_to_json(v.as_ref())?);
        }
        return Ok(Json::Object(out));
    }
    if let Some(iterable) = val.as_iterable() {
        let mut out = Vec::new();
        let mut items = iterable.iter();
        while let Some(v) = items.next() {
            out.push(val_to_json(v)?);
        }
        return Ok(Json::Array(out));
    }
    Err(format!(
        "a value of type {} has no JSON form",
        val.get_type().name()
    ))
}
