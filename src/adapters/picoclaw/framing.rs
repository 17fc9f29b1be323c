//! Lines in, lines out, within the limits each side can hold.
//!
//! The limits are not symmetric. PicoClaw writes a message of any size as
//! one line (`before_llm` carries the whole conversation on every call), but
//! reads ours with a `bufio.Scanner` whose buffer stops at 1 MiB
//! (`processHookReadBufferSize` in pkg/agent/hook_process.go). A reply line
//! that does not fit ends PicoClaw's read loop for good: every later call
//! then times out, and a timed-out `before_tool` is skipped, so tools run
//! unguarded. So:
//! - we read lines up to the payload limit every adapter has
//!   ([`engine::MAX_PAYLOAD_BYTES`]); a longer line is consumed without
//!   being kept, and only its head is looked at for the `id` and `method`
//!   (Go marshals `jsonrpc`, `id`, `method`, `params` in that order, so both
//!   are within the first bytes) to answer with the hook's failure reply;
//! - every reply is made to fit in [`PICOCLAW_READ_LIMIT`] (see [`fit`]).

use crate::engine;
use serde_json::value::RawValue;
use serde_json::{Map, Value as Json};
use std::io::BufRead;

/// The longest line we read: the payload limit of every adapter.
pub const READ_LIMIT: usize = engine::MAX_PAYLOAD_BYTES;

/// PicoClaw's read buffer: a reply line and its newline must fit in it.
pub const PICOCLAW_READ_LIMIT: usize = 1024 * 1024;

/// How much of an oversize line is kept to find its id and method.
const HEAD: usize = 4096;

/// One line read from PicoClaw.
#[derive(Debug, PartialEq)]
pub enum Line {
    /// The whole line (in the caller's buffer), without its newline.
    Whole,
    /// A line over [`READ_LIMIT`]: its length and its first bytes.
    TooLong { len: usize, head: Vec<u8> },
}

/// Reads one line of at most `limit` bytes into `buf`; `Ok(None)` at the end
/// of input. A longer line is consumed to its end and reported as
/// [`Line::TooLong`], so the next line is read normally.
pub fn read_line(
    input: &mut dyn BufRead,
    buf: &mut Vec<u8>,
    limit: usize,
) -> std::io::Result<Option<Line>> {
    buf.clear();
    let mut too_long: Option<(usize, Vec<u8>)> = None;
    loop {
        let chunk = input.fill_buf()?;
        if chunk.is_empty() {
            return Ok(match too_long {
                Some((len, head)) => Some(Line::TooLong { len, head }),
                None if buf.is_empty() => None,
                None => Some(Line::Whole),
            });
        }
        let (part, used, done) = match memchr::memchr(b'\n', chunk) {
            Some(i) => (&chunk[..i], i + 1, true),
            None => (chunk, chunk.len(), false),
        };
        match &mut too_long {
            None if buf.len() + part.len() <= limit => buf.extend_from_slice(part),
            None => {
                // Over the limit: keep the head to read the id from, and
                // only count the rest.
                let mut head = buf[..buf.len().min(HEAD)].to_vec();
                let room = HEAD - head.len();
                head.extend_from_slice(&part[..part.len().min(room)]);
                too_long = Some((buf.len() + part.len(), head));
                buf.clear();
            }
            Some((len, _)) => *len += part.len(),
        }
        input.consume(used);
        if done {
            return Ok(Some(match too_long {
                Some((len, head)) => Line::TooLong { len, head },
                None => Line::Whole,
            }));
        }
    }
}

/// What the head of a request says, as far as it could be read.
#[derive(Debug, Default, PartialEq)]
pub struct Head {
    pub id: Option<Json>,
    pub method: Option<String>,
}

/// Reads the top-level `id` and `method` of a JSON object from its first
/// bytes, stopping at the first value that is neither a string, a number,
/// `null` nor a boolean (Go writes `params` last) or at the end of the head.
pub fn scan_head(head: &[u8]) -> Head {
    let mut out = Head::default();
    let mut s = Scanner { b: head, i: 0 };
    if !s.eat(b'{') {
        return out;
    }
    loop {
        let Some(key) = s.string() else { return out };
        if !s.eat(b':') {
            return out;
        }
        let Some(value) = s.scalar() else { return out };
        match key.as_str() {
            "id" => out.id = Some(value),
            "method" => out.method = value.as_str().map(str::to_string),
            _ => {}
        }
        if !s.eat(b',') {
            return out;
        }
    }
}

struct Scanner<'a> {
    b: &'a [u8],
    i: usize,
}

impl Scanner<'_> {
    fn skip_ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }

    fn eat(&mut self, c: u8) -> bool {
        self.skip_ws();
        if self.b.get(self.i) == Some(&c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    /// A JSON string token, decoded.
    fn string(&mut self) -> Option<String> {
        self.skip_ws();
        if self.b.get(self.i) != Some(&b'"') {
            return None;
        }
        let start = self.i;
        let mut j = self.i + 1;
        while j < self.b.len() {
            match self.b[j] {
                b'\\' => j += 2,
                b'"' => {
                    self.i = j + 1;
                    return serde_json::from_slice(&self.b[start..=j]).ok();
                }
                _ => j += 1,
            }
        }
        None
    }

    /// A string, number, `null`, `true` or `false`.
    fn scalar(&mut self) -> Option<Json> {
        self.skip_ws();
        match self.b.get(self.i)? {
            b'"' => self.string().map(Json::String),
            _ => {
                let start = self.i;
                while self.i < self.b.len()
                    && !matches!(self.b[self.i], b',' | b'}' | b']')
                    && !self.b[self.i].is_ascii_whitespace()
                {
                    self.i += 1;
                }
                // A number cut off by the end of the head is not a number.
                if self.i == self.b.len() {
                    return None;
                }
                let v: Json = serde_json::from_slice(&self.b[start..self.i]).ok()?;
                (v.is_number() || v.is_null() || v.is_boolean()).then_some(v)
            }
        }
    }
}

/// Makes a reply fit in what PicoClaw reads. A long `reason` (one quoting a
/// huge command, say) is cut; if the reply is still too long (a `modify`
/// that echoes a huge request or call), `fallback` gives the hook's failure
/// reply, with a reason saying why. Returns the line, newline included.
pub fn fit(reply: &Json, mut fallback: impl FnMut(&str) -> Json) -> Vec<u8> {
    let line = |v: &Json| {
        let mut text = v.to_string().into_bytes();
        text.push(b'\n');
        text
    };
    let text = line(reply);
    if text.len() <= PICOCLAW_READ_LIMIT {
        return text;
    }
    let too_big = text.len();
    let mut cut = reply.clone();
    if let Some(reason) = cut
        .get_mut("result")
        .and_then(|r| r.get_mut("reason"))
        .filter(|r| r.is_string())
    {
        *reason = Json::String(shorten(reason.as_str().unwrap_or(""), 4096));
        let text = line(&cut);
        if text.len() <= PICOCLAW_READ_LIMIT {
            return text;
        }
    }
    let why = format!(
        "the reply would be {too_big} bytes, more than the {PICOCLAW_READ_LIMIT} PicoClaw reads"
    );
    let mut out = reply.as_object().cloned().unwrap_or_else(Map::new);
    out.insert("result".into(), fallback(&why));
    line(&Json::Object(out))
}

/// The reply line to a request, `{"jsonrpc":"2.0","id":ID,"result":RESULT}`
/// and its newline, made to fit as [`fit`] does: a long `reason` cut, else
/// `fallback`'s failure reply. The id is written as it came (its JSON text,
/// a number or a string) and the result straight into the line, without
/// building the reply as a tree first: this is every decision's reply.
pub fn fit_result(id: &RawValue, result: &Json, mut fallback: impl FnMut(&str) -> Json) -> Vec<u8> {
    let line = |r: &Json| {
        let mut text = Vec::with_capacity(128 + id.get().len());
        text.extend_from_slice(b"{\"jsonrpc\":\"2.0\",\"id\":");
        text.extend_from_slice(id.get().as_bytes());
        text.extend_from_slice(b",\"result\":");
        // Writing a `Value` into a `Vec` cannot fail (its keys are strings,
        // and a `Vec` takes every byte).
        let _ = serde_json::to_writer(&mut text, r);
        text.extend_from_slice(b"}\n");
        text
    };
    let text = line(result);
    if text.len() <= PICOCLAW_READ_LIMIT {
        return text;
    }
    let too_big = text.len();
    if let Some(Json::String(reason)) = result.get("reason") {
        let mut cut = result.clone();
        cut["reason"] = Json::String(shorten(reason, 4096));
        let text = line(&cut);
        if text.len() <= PICOCLAW_READ_LIMIT {
            return text;
        }
    }
    let why = format!(
        "the reply would be {too_big} bytes, more than the {PICOCLAW_READ_LIMIT} PicoClaw reads"
    );
    line(&fallback(&why))
}

/// The first `max` bytes of `text` (on a character boundary), marked as cut.
fn shorten(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.to_string();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… [{} bytes cut]", &text[..end], text.len() - end)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn long_lines_are_consumed_and_the_next_line_is_read() {
        let mut data =
            b"{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"hook.before_tool\",\"params\":{\"x\":\""
                .to_vec();
        data.extend(std::iter::repeat_n(b'x', 100));
        data.extend_from_slice(b"\"}}\n{\"a\":1}\n");
        let first = data.iter().position(|&b| b == b'\n').unwrap();
        let mut input = std::io::Cursor::new(data.clone());
        let mut buf = Vec::new();
        match read_line(&mut input, &mut buf, 50).unwrap() {
            Some(Line::TooLong { len, head }) => {
                assert_eq!(len, first);
                let h = scan_head(&head);
                assert_eq!(h.id, Some(json!(7)));
                assert_eq!(h.method.as_deref(), Some("hook.before_tool"));
            }
            other => panic!("{other:?}"),
        }
        assert_eq!(
            read_line(&mut input, &mut buf, 50).unwrap(),
            Some(Line::Whole)
        );
        assert_eq!(buf, b"{\"a\":1}");
        assert_eq!(read_line(&mut input, &mut buf, 50).unwrap(), None);
    }

    #[test]
    fn every_line_is_read_whatever_the_buffer_size() {
        let lines: Vec<String> = (0..500)
            .map(|i| format!("{{\"id\":{i},\"x\":\"{}\"}}", "a".repeat(i * 7 % 300)))
            .collect();
        let data = lines.join("\n") + "\n";
        for cap in [1, 2, 3, 7, 64, 100, 8192] {
            let mut input = std::io::BufReader::with_capacity(cap, data.as_bytes());
            let mut buf = Vec::new();
            let mut got = Vec::new();
            while let Some(l) = read_line(&mut input, &mut buf, 1000).unwrap() {
                assert_eq!(l, Line::Whole);
                got.push(String::from_utf8(buf.clone()).unwrap());
            }
            assert_eq!(got, lines, "capacity {cap}");
        }
    }

    #[test]
    fn the_head_gives_what_it_can() {
        assert_eq!(
            scan_head(br#" { "method" : "m\u0041", "id": "x-1", "params": {"#),
            Head {
                id: Some(json!("x-1")),
                method: Some("mA".into())
            }
        );
        // An id cut off by the end of the head is not guessed.
        assert_eq!(scan_head(br#"{"jsonrpc":"2.0","id":12"#).id, None);
        assert_eq!(scan_head(b"garbage").id, None);
    }

    #[test]
    fn replies_are_cut_to_fit() {
        let reason = "r".repeat(2 * PICOCLAW_READ_LIMIT);
        let reply =
            json!({"jsonrpc": "2.0", "id": 3, "result": {"action": "deny_tool", "reason": reason}});
        let text = fit(&reply, |_| json!({"action": "deny_tool"}));
        assert!(text.len() <= PICOCLAW_READ_LIMIT);
        let v: Json = serde_json::from_slice(&text).unwrap();
        assert_eq!(v["result"]["action"], "deny_tool");
        assert!(v["result"]["reason"]
            .as_str()
            .unwrap()
            .ends_with("bytes cut]"));

        // The same, written straight from the id's text.
        let id = RawValue::from_string("\"x-3\"".into()).unwrap();
        let result = json!({"action": "deny_tool", "reason": reason});
        let text = fit_result(&id, &result, |_| json!({"action": "deny_tool"}));
        assert!(text.len() <= PICOCLAW_READ_LIMIT);
        let v: Json = serde_json::from_slice(&text).unwrap();
        assert_eq!((&v["jsonrpc"], &v["id"]), (&json!("2.0"), &json!("x-3")));
        assert!(v["result"]["reason"]
            .as_str()
            .unwrap()
            .ends_with("bytes cut]"));
        let result = json!({"action": "modify", "request": {"m": reason}});
        let text = fit_result(
            &id,
            &result,
            |why| json!({"action": "continue", "why": why}),
        );
        let v: Json = serde_json::from_slice(&text).unwrap();
        assert_eq!(
            (&v["id"], &v["result"]["action"]),
            (&json!("x-3"), &json!("continue"))
        );
        let small = fit_result(&id, &json!({"approved": true}), |_| unreachable!());
        assert_eq!(
            small,
            b"{\"jsonrpc\":\"2.0\",\"id\":\"x-3\",\"result\":{\"approved\":true}}\n"
        );

        let big = json!({"jsonrpc": "2.0", "id": 4, "result": {"action": "modify", "request": {"m": reason}}});
        let text = fit(&big, |why| json!({"action": "continue", "why": why}));
        let v: Json = serde_json::from_slice(&text).unwrap();
        assert_eq!(v["id"], 4);
        assert_eq!(v["result"]["action"], "continue");
    }
}
