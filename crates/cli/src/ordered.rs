//! JSON whose objects keep their keys in the order written, so that a catalog file edited by
//! `fitcard catalog refresh` and written back differs from the original only where a value
//! changed (`serde_json::Value` sorts keys; its `preserve_order` feature would change the
//! order of every map in the estimator too, the page's included).
//!
//! Written as the catalog files are: one-space indentation (`serde_json`'s pretty printer with
//! a one-byte indent), a final newline where the file had one. `tests::catalog_files_round_trip`
//! holds every family file to it byte for byte.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};

/// A JSON value; objects as `(key, value)` pairs in file order.
#[derive(Clone, Debug, PartialEq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` / `false`.
    Bool(bool),
    /// A number as `serde_json` reads it.
    Num(serde_json::Number),
    /// A string.
    Str(String),
    /// An array.
    Arr(Vec<Json>),
    /// An object, keys in order.
    Obj(Vec<(String, Json)>),
}

impl Json {
    /// The value under `key` of an object.
    pub fn get(&self, key: &str) -> Option<&Json> {
        match self {
            Json::Obj(kv) => kv.iter().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// The value under `key` of an object, to change.
    pub fn get_mut(&mut self, key: &str) -> Option<&mut Json> {
        match self {
            Json::Obj(kv) => kv.iter_mut().find(|(k, _)| k == key).map(|(_, v)| v),
            _ => None,
        }
    }

    /// Set `key` of an object to `v` (in place when it is there, else last).
    pub fn set(&mut self, key: &str, v: Json) {
        if let Json::Obj(kv) = self {
            match kv.iter_mut().find(|(k, _)| k == key) {
                Some(slot) => slot.1 = v,
                None => kv.push((key.to_string(), v)),
            }
        }
    }

    /// The string, if it is one.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::Str(s) => Some(s),
            _ => None,
        }
    }

    /// The array's items, to change (none for another value).
    pub fn items_mut(&mut self) -> &mut [Json] {
        match self {
            Json::Arr(a) => a,
            _ => &mut [],
        }
    }

    /// The text as the catalog files are written.
    pub fn to_pretty(&self) -> String {
        let mut out = Vec::new();
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b" ");
        let mut ser = serde_json::Serializer::with_formatter(&mut out, fmt);
        // Writing to a Vec cannot fail, and every value here is valid JSON.
        let _ = self.serialize(&mut ser);
        String::from_utf8(out).unwrap_or_default()
    }
}

impl Serialize for Json {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Json::Null => s.serialize_unit(),
            Json::Bool(b) => s.serialize_bool(*b),
            Json::Num(n) => n.serialize(s),
            Json::Str(t) => s.serialize_str(t),
            Json::Arr(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Json::Obj(kv) => {
                let mut map = s.serialize_map(Some(kv.len()))?;
                for (k, v) in kv {
                    map.serialize_entry(k, v)?;
                }
                map.end()
            }
        }
    }
}

struct JsonVisitor;

impl<'de> Visitor<'de> for JsonVisitor {
    type Value = Json;

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("JSON")
    }
    fn visit_unit<E>(self) -> Result<Json, E> {
        Ok(Json::Null)
    }
    fn visit_bool<E>(self, b: bool) -> Result<Json, E> {
        Ok(Json::Bool(b))
    }
    fn visit_u64<E>(self, n: u64) -> Result<Json, E> {
        Ok(Json::Num(n.into()))
    }
    fn visit_i64<E>(self, n: i64) -> Result<Json, E> {
        Ok(Json::Num(n.into()))
    }
    fn visit_f64<E: serde::de::Error>(self, x: f64) -> Result<Json, E> {
        serde_json::Number::from_f64(x)
            .map(Json::Num)
            .ok_or_else(|| E::custom("not a finite number"))
    }
    fn visit_str<E>(self, s: &str) -> Result<Json, E> {
        Ok(Json::Str(s.to_string()))
    }
    fn visit_string<E>(self, s: String) -> Result<Json, E> {
        Ok(Json::Str(s))
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
        let mut out = Vec::new();
        while let Some(v) = a.next_element()? {
            out.push(v);
        }
        Ok(Json::Arr(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Json, A::Error> {
        let mut out: Vec<(String, Json)> = Vec::new();
        while let Some((k, v)) = a.next_entry::<String, Json>()? {
            out.push((k, v));
        }
        Ok(Json::Obj(out))
    }
}

impl<'de> Deserialize<'de> for Json {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Json, D::Error> {
        d.deserialize_any(JsonVisitor)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every family file of the catalog reads and writes back byte for byte, so a refresh
    /// changes only the values it sets.
    #[test]
    fn catalog_files_round_trip() {
        let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../estimator/data/families");
        let mut n = 0;
        for e in std::fs::read_dir(dir).unwrap() {
            let p = e.unwrap().path();
            let text = std::fs::read_to_string(&p).unwrap();
            let j: Json = serde_json::from_str(&text).unwrap();
            let back = j.to_pretty() + if text.ends_with('\n') { "\n" } else { "" };
            assert_eq!(back, text, "{}", p.display());
            n += 1;
        }
        assert!(n > 30, "{n} family files");
    }

    #[test]
    fn set_keeps_the_order_and_appends_new_keys() {
        let mut j: Json = serde_json::from_str(r#"{"b":1,"a":[true,null,"x",2.5]}"#).unwrap();
        j.set("b", Json::Str("two".into()));
        j.set("c", Json::Num(3.into()));
        assert_eq!(
            serde_json::to_string(&j).unwrap(),
            r#"{"b":"two","a":[true,null,"x",2.5],"c":3}"#
        );
    }
}
