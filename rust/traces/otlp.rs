//! One OTLP JSON request (`ExportTraceServiceRequest`, one line of a file) read into spans, on
//! the fast path: hex ids, integer times, attribute values as plain [`V`] values, exactly as
//! the Python decoder gives them. Anything it does not read the same way for sure (base64 ids,
//! enum names, events, bytes values, nulls where a value is due, duplicate keys...) makes it
//! give up on the whole request (`None`), which then goes to the Python decoder.

use std::cmp::Ordering;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

use rustc_hash::FxHashSet;

use crate::json_read::{self as json, Parser, V};

/// An attribute key: shared by every attribute of that key in a request (a batching exporter
/// repeats a handful of keys thousands of times a line; each is allocated once).
pub type Key = Arc<str>;

/// Attributes in order, no key twice.
pub type Attrs = Vec<(Key, V)>;

/// A trace or span id: ASCII, at most 32 bytes, held inline (no allocation per id).
#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Id {
    len: u8,
    bytes: [u8; 32],
}

impl Id {
    /// The id of `text`, or None when it is longer than 32 bytes or not ASCII.
    fn new(text: &str) -> Option<Id> {
        let len = text.len();
        if len > 32 || !text.is_ascii() {
            return None;
        }
        let mut bytes = [0u8; 32];
        bytes[..len].copy_from_slice(text.as_bytes());
        Some(Id {
            len: len as u8,
            bytes,
        })
    }

    /// The id's text.
    pub fn as_str(&self) -> &str {
        // SAFETY: `new` copies ASCII text only, and `len` bytes of it.
        unsafe { std::str::from_utf8_unchecked(&self.bytes[..usize::from(self.len)]) }
    }
}

impl Deref for Id {
    type Target = str;

    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl Ord for Id {
    fn cmp(&self, other: &Self) -> Ordering {
        self.as_str().cmp(other.as_str())
    }
}

impl PartialOrd for Id {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl PartialEq<str> for Id {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

/// The attribute keys of one request, each made once: two keys of a request are equal
/// exactly when they are the same `Key` (`Arc::ptr_eq`).
#[derive(Default)]
struct Keys {
    made: FxHashSet<Key>,
}

impl Keys {
    /// A key read from the text (a string, escapes allowed).
    fn read(&mut self, p: &mut Parser<'_>) -> Option<Key> {
        match p.plain_text() {
            Some(text) => Some(self.key(text)),
            None => Some(self.key(&p.text()?)),
        }
    }

    fn key(&mut self, text: &str) -> Key {
        if let Some(key) = self.made.get(text) {
            return Arc::clone(key);
        }
        let key = Key::from(text);
        self.made.insert(Arc::clone(&key));
        key
    }
}

/// One span, as `evalmark.traces._span.Span` holds it (without events: a request with events
/// goes to the Python path).
#[derive(Debug)]
pub struct SpanData {
    pub trace_id: Id,
    pub span_id: Id,
    pub parent_id: Id,
    pub name: String,
    pub kind: i64,
    pub start: i64,
    pub end: i64,
    pub attrs: Attrs,
    pub status_code: i64,
    pub status_message: String,
    pub resource: Arc<Attrs>,
}

impl SpanData {
    /// The value of attribute `key`.
    pub fn attr(&self, key: &str) -> Option<&V> {
        self.attrs.iter().find(|(k, _)| &**k == key).map(|(_, v)| v)
    }

    /// The span's duration in milliseconds, as `Span.duration_ms` computes it.
    pub fn duration_ms(&self) -> f64 {
        let d = (self.end as i128 - self.start as i128).max(0);
        d as f64 / 1e6
    }
}

/// An integer written as a JSON integer or as a string of digits (msgspec's `strict=False`).
fn integer(p: &mut Parser<'_>) -> Option<i64> {
    if let Some(s) = p.plain_text() {
        return digits(s); // the common form, read without a copy
    }
    match p.any()? {
        V::Int(i) => Some(i),
        V::Str(s) => digits(&s),
        _ => None,
    }
}

/// A string of decimal digits (a sign allowed, no leading zero) as an `i64`.
fn digits(s: &str) -> Option<i64> {
    let (negative, digits) = match s.strip_prefix('-') {
        Some(rest) => (true, rest.as_bytes()),
        None => (false, s.as_bytes()),
    };
    if digits.is_empty() || (digits.len() > 1 && digits[0] == b'0') {
        return None;
    }
    // Accumulated as a negative number: i64::MIN has no positive counterpart.
    let mut n: i64 = 0;
    for &c in digits {
        if !c.is_ascii_digit() {
            return None;
        }
        n = n.checked_mul(10)?.checked_sub(i64::from(c - b'0'))?;
    }
    if negative {
        Some(n)
    } else {
        n.checked_neg()
    }
}

/// An `AnyValue`: exactly one of its fields (or none: a null value).
fn any_value<'a>(p: &mut Parser<'a>, keys: &mut Keys, depth: usize) -> Option<V> {
    if depth > json::MAX_DEPTH {
        return None;
    }
    let mut out: Option<V> = None;
    p.object(|p, key| {
        if out.is_some() {
            return None;
        }
        out = Some(match key {
            "stringValue" => V::Str(p.text()?),
            "intValue" => V::Int(integer(p)?),
            "boolValue" => match p.any()? {
                V::Bool(b) => V::Bool(b),
                _ => return None,
            },
            "doubleValue" => match p.any()? {
                V::Int(i) => V::Float(i as f64),
                V::Float(x) => V::Float(x),
                _ => return None,
            },
            "arrayValue" => {
                let mut items = Vec::new();
                values(p, |p| {
                    items.push(any_value(p, keys, depth + 1)?);
                    Some(())
                })?;
                V::Arr(items)
            }
            "kvlistValue" => {
                let mut items = Attrs::new();
                values(p, |p| key_value(p, keys, &mut items, depth + 1))?;
                V::Obj(items.into_iter().map(|(k, v)| (k.to_string(), v)).collect())
            }
            _ => return None,
        });
        Some(())
    })?;
    Some(out.unwrap_or(V::Null))
}

/// The `values` list of an `ArrayValue` / `KeyValueList`, each read by `f`.
fn values<'a>(p: &mut Parser<'a>, mut f: impl FnMut(&mut Parser<'a>) -> Option<()>) -> Option<()> {
    p.object(|p, key| {
        if key == "values" {
            p.array(&mut f)
        } else {
            p.any().map(drop)
        }
    })
}

/// One `KeyValue` added to `out` (a key twice: give up).
fn key_value<'a>(p: &mut Parser<'a>, keys: &mut Keys, out: &mut Attrs, depth: usize) -> Option<()> {
    let mut key: Option<Key> = None;
    let mut value = V::Null;
    p.object(|p, name| {
        match name {
            "key" => key = Some(keys.read(p)?),
            "value" if !p.null() => value = any_value(p, keys, depth)?,
            "value" => {}
            _ => drop(p.any()?),
        }
        Some(())
    })?;
    let key = key.unwrap_or_else(|| keys.key(""));
    if out.iter().any(|(k, _)| Arc::ptr_eq(k, &key)) {
        return None;
    }
    out.push((key, value));
    Some(())
}

fn attributes<'a>(p: &mut Parser<'a>, keys: &mut Keys) -> Option<Attrs> {
    let mut out = Attrs::with_capacity(8);
    p.array(|p| key_value(p, keys, &mut out, 1))?;
    Some(out)
}

/// A trace or span id (a string; None for anything that cannot be one).
fn id(p: &mut Parser<'_>) -> Option<Id> {
    match p.plain_text() {
        Some(text) => Id::new(text),
        None => Id::new(&p.text()?),
    }
}

fn is_id(id: &Id, len: usize) -> bool {
    id.len() == len
}

fn span<'a>(p: &mut Parser<'a>, keys: &mut Keys, resource: &Arc<Attrs>) -> Option<SpanData> {
    let mut s = SpanData {
        trace_id: Id::default(),
        span_id: Id::default(),
        parent_id: Id::default(),
        name: String::new(),
        kind: 0,
        start: 0,
        end: 0,
        attrs: Vec::new(),
        status_code: 0,
        status_message: String::new(),
        resource: Arc::clone(resource),
    };
    p.object(|p, key| {
        match key {
            "traceId" => s.trace_id = id(p)?,
            "spanId" => s.span_id = id(p)?,
            "parentSpanId" => s.parent_id = id(p)?,
            "name" => s.name = p.text()?,
            "kind" => match p.any()? {
                V::Int(k) => s.kind = k,
                _ => return None,
            },
            "startTimeUnixNano" => s.start = integer(p)?,
            "endTimeUnixNano" => s.end = integer(p)?,
            "attributes" => s.attrs = attributes(p, keys)?,
            "events" => p.array(|_| None)?, // events: the Python path
            "status" if !p.null() => p.object(|p, name| {
                match name {
                    "code" => match p.any()? {
                        V::Int(c) => s.status_code = c,
                        _ => return None,
                    },
                    "message" => s.status_message = p.text()?,
                    _ => drop(p.any()?),
                }
                Some(())
            })?,
            "status" => {} // null
            _ => drop(p.any()?),
        }
        Some(())
    })?;
    let parent_ok = s.parent_id.is_empty() || is_id(&s.parent_id, 16);
    (is_id(&s.trace_id, 32) && is_id(&s.span_id, 16) && parent_ok).then_some(s)
}

fn resource_spans<'a>(p: &mut Parser<'a>, keys: &mut Keys, out: &mut Vec<SpanData>) -> Option<()> {
    let mut resource = Arc::new(Attrs::new());
    let mut seen_spans = false;
    p.object(|p, key| {
        match key {
            "resource" if !p.null() => {
                if seen_spans {
                    return None; // the resource after its spans: the Python path
                }
                p.object(|p, name| {
                    if name == "attributes" {
                        resource = Arc::new(attributes(p, keys)?);
                    } else {
                        drop(p.any()?);
                    }
                    Some(())
                })?
            }
            "resource" => {} // null
            "scopeSpans" => {
                seen_spans = true;
                p.array(|p| {
                    p.object(|p, name| {
                        if name == "spans" {
                            p.array(|p| {
                                out.push(span(p, keys, &resource)?);
                                Some(())
                            })
                        } else {
                            p.any().map(drop)
                        }
                    })
                })?
            }
            _ => drop(p.any()?),
        }
        Some(())
    })
}

/// Bytes of OTLP JSON a span takes at the least (to size the list of a request's spans).
const SPAN_BYTES: usize = 256;

/// The spans of one request, in file order, or None to hand it to the Python decoder.
pub fn request_spans(text: &[u8]) -> Option<Vec<SpanData>> {
    let mut p = Parser::new(text)?;
    let mut keys = Keys::default();
    let mut out = Vec::with_capacity((text.len() / SPAN_BYTES).min(4096));
    p.object(|p, key| {
        if key == "resourceSpans" {
            p.array(|p| resource_spans(p, &mut keys, &mut out))
        } else {
            p.any().map(drop)
        }
    })?;
    p.at_end().then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_held_inline_and_ordered_as_their_text() {
        let a = Id::new("00000000000000ff").unwrap();
        assert_eq!(a.as_str(), "00000000000000ff");
        let (short, long) = (Id::new("b").unwrap(), Id::new("ab").unwrap());
        assert!(long < short, "ordered as text, not by length first");
        assert_eq!(Id::new("").unwrap().as_str(), "");
        assert!(Id::new(&"a".repeat(33)).is_none());
        assert!(Id::new("caf\u{e9}").is_none(), "ASCII only");
    }

    #[test]
    fn integers_read_as_str_parse_reads_them() {
        for text in [
            "0",
            "-0",
            "42",
            "-42",
            "9223372036854775807",
            "-9223372036854775808",
        ] {
            assert_eq!(digits(text), text.parse().ok(), "{text}");
        }
        for text in [
            "",
            "-",
            "01",
            "-01",
            "+1",
            "1.0",
            "9223372036854775808",
            "1 ",
        ] {
            assert_eq!(digits(text), None, "{text}");
        }
    }

    #[test]
    fn a_key_is_made_once_a_request_escaped_or_not() {
        let text = br#"{"resourceSpans": [{"scopeSpans": [{"spans": [
            {"traceId": "0000000000000000000000000000000a", "spanId": "000000000000000b",
             "attributes": [{"key": "k", "value": {"intValue": "1"}},
                            {"key": "j", "value": {"boolValue": true}}]},
            {"traceId": "0000000000000000000000000000000a", "spanId": "000000000000000c",
             "attributes": [{"key": "\u006b", "value": {"stringValue": "x"}}]}
        ]}]}]}"#;
        let spans = request_spans(text).unwrap();
        let (first, second) = (&spans[0].attrs[0].0, &spans[1].attrs[0].0);
        assert_eq!((&**first, &**second), ("k", "k"));
        assert!(Arc::ptr_eq(first, second));
        assert_eq!(
            spans[0].trace_id.as_str(),
            "0000000000000000000000000000000a"
        );
    }

    #[test]
    fn a_key_twice_in_a_span_or_a_bad_id_goes_to_the_python_path() {
        let twice = br#"{"resourceSpans": [{"scopeSpans": [{"spans": [
            {"traceId": "0000000000000000000000000000000a", "spanId": "000000000000000b",
             "attributes": [{"key": "k", "value": {"intValue": "1"}},
                            {"key": "\u006b", "value": {"intValue": "2"}}]}]}]}]}"#;
        assert!(request_spans(twice).is_none());
        let long = br#"{"resourceSpans": [{"scopeSpans": [{"spans": [
            {"traceId": "0000000000000000000000000000000a0", "spanId": "000000000000000b"}]}]}]}"#;
        assert!(request_spans(long).is_none());
    }
}
