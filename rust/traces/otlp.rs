//! One OTLP JSON request (`ExportTraceServiceRequest`, one line of a file) read into spans, on
//! the fast path: hex ids, integer times, attribute values as plain [`V`] values, exactly as
//! the Python decoder gives them. Anything it does not read the same way for sure (base64 ids,
//! enum names, events, bytes values, nulls where a value is due, duplicate keys...) makes it
//! give up on the whole request (`None`), which then goes to the Python decoder.

use std::sync::Arc;

use super::json::{self, Parser, V};

/// Attributes in order, no key twice.
pub type Attrs = Vec<(String, V)>;

/// One span, as `evalmark.traces._span.Span` holds it (without events: a request with events
/// goes to the Python path).
#[derive(Debug)]
pub struct SpanData {
    pub trace_id: String,
    pub span_id: String,
    pub parent_id: String,
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
        self.attrs.iter().find(|(k, _)| k == key).map(|(_, v)| v)
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
    let digits = s.strip_prefix('-').unwrap_or(s);
    let plain = !digits.is_empty()
        && digits.bytes().all(|c| c.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'));
    if plain {
        s.parse().ok()
    } else {
        None
    }
}

/// An `AnyValue`: exactly one of its fields (or none: a null value).
fn any_value(p: &mut Parser<'_>, depth: usize) -> Option<V> {
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
                    items.push(any_value(p, depth + 1)?);
                    Some(())
                })?;
                V::Arr(items)
            }
            "kvlistValue" => {
                let mut items = Vec::new();
                values(p, |p| key_value(p, &mut items, depth + 1))?;
                V::Obj(items)
            }
            _ => return None,
        });
        Some(())
    })?;
    Some(out.unwrap_or(V::Null))
}

/// The `values` list of an `ArrayValue` / `KeyValueList`, each read by `f`.
fn values(p: &mut Parser<'_>, mut f: impl FnMut(&mut Parser<'_>) -> Option<()>) -> Option<()> {
    p.object(|p, key| {
        if key == "values" {
            p.array(&mut f)
        } else {
            p.any().map(drop)
        }
    })
}

/// One `KeyValue` added to `out` (a key twice: give up).
fn key_value(p: &mut Parser<'_>, out: &mut Attrs, depth: usize) -> Option<()> {
    let mut key = String::new();
    let mut value = V::Null;
    p.object(|p, name| {
        match name {
            "key" => key = p.text()?,
            "value" if !p.null() => value = any_value(p, depth)?,
            "value" => {}
            _ => drop(p.any()?),
        }
        Some(())
    })?;
    if out.iter().any(|(k, _)| *k == key) {
        return None;
    }
    out.push((key, value));
    Some(())
}

fn attributes(p: &mut Parser<'_>) -> Option<Attrs> {
    let mut out = Attrs::new();
    p.array(|p| key_value(p, &mut out, 1))?;
    Some(out)
}

fn is_id(id: &str, len: usize) -> bool {
    id.len() == len && id.is_ascii()
}

fn span(p: &mut Parser<'_>, resource: &Arc<Attrs>) -> Option<SpanData> {
    let mut s = SpanData {
        trace_id: String::new(),
        span_id: String::new(),
        parent_id: String::new(),
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
            "traceId" => s.trace_id = p.text()?,
            "spanId" => s.span_id = p.text()?,
            "parentSpanId" => s.parent_id = p.text()?,
            "name" => s.name = p.text()?,
            "kind" => match p.any()? {
                V::Int(k) => s.kind = k,
                _ => return None,
            },
            "startTimeUnixNano" => s.start = integer(p)?,
            "endTimeUnixNano" => s.end = integer(p)?,
            "attributes" => s.attrs = attributes(p)?,
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

fn resource_spans(p: &mut Parser<'_>, out: &mut Vec<SpanData>) -> Option<()> {
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
                        resource = Arc::new(attributes(p)?);
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
                                out.push(span(p, &resource)?);
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

/// The spans of one request, in file order, or None to hand it to the Python decoder.
pub fn request_spans(text: &[u8]) -> Option<Vec<SpanData>> {
    let mut p = Parser::new(text)?;
    let mut out = Vec::new();
    p.object(|p, key| {
        if key == "resourceSpans" {
            p.array(|p| resource_spans(p, &mut out))
        } else {
            p.any().map(drop)
        }
    })?;
    p.at_end().then_some(out)
}
