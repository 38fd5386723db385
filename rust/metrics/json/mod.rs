//! JSON documents compared by meaning: an RFC 8259 parser into a canonical tree (object keys
//! sorted, duplicate keys resolved last-wins, numbers normalized per mode) and its serializer.
//!
//! Strings are generalized UTF-8, so lone surrogates (from `\ud800` escapes or from Python
//! strings) are kept and compared like any other code point.
//!
//! `lex` reads the tokens both sides share (`strings` their strings); `parse` builds the expected side's tree; `number`
//! holds exact decimal values and their arithmetic; `canonical` writes a tree out; `compare`
//! reads the actual side against a tree without building one.

mod canonical;
mod compare;
mod lex;
mod number;
mod parse;
mod strings;

use std::borrow::Cow;

use crate::metrics::halt::{Context, Run};

pub use canonical::python_float_repr;
pub use lex::ParseError;

/// How numbers are compared.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Numbers {
    /// By exact decimal value: 1 == 1.0 == 1e0; no float rounding.
    #[default]
    Value,
    /// As Python's `json` module reads them: integers exact, others as binary64 floats, and an
    /// integer never equals a float (1 != 1.0).
    Strict,
}

/// Deepest nesting accepted; deeper documents are rejected instead of exhausting the stack.
pub const MAX_DEPTH: usize = 512;

/// A parsed document in canonical form: keys sorted, duplicates resolved. Numbers keep their
/// literal text (a number is normalized only when it is written out, or compared with a
/// different literal).
///
/// The nodes live in two flat arenas, array items and object members, each container's
/// children side by side; [`Document::reparse`] reuses them, so a batch allocates once per
/// thread rather than once per container.
#[derive(Debug, Clone, Default)]
pub struct Document<'a> {
    root: Node<'a>,
    numbers: Numbers,
    items: Vec<Node<'a>>,
    members: Vec<(Cow<'a, [u8]>, Node<'a>)>,
    // The children of the containers still open while parsing.
    open_items: Vec<Node<'a>>,
    open_members: Vec<(Cow<'a, [u8]>, Node<'a>)>,
}

/// Where a container's children lie in their arena.
#[derive(Debug, Clone, Copy)]
struct Span {
    start: usize,
    len: usize,
}

impl Span {
    fn of<T>(self, arena: &[T]) -> &[T] {
        &arena[self.start..self.start + self.len]
    }
}

#[derive(Debug, Clone, Default)]
enum Node<'a> {
    #[default]
    Null,
    Bool(bool),
    Num(&'a [u8]),
    Str(Cow<'a, [u8]>),
    Arr(Span),
    Obj(Span),
}

/// Parse `src` into its canonical form (`Err` when `stop` was raised meanwhile).
pub fn parse<'a>(
    src: &'a [u8],
    numbers: Numbers,
    stop: &Context,
) -> Run<Result<Document<'a>, ParseError>> {
    let mut doc = Document::default();
    Ok(doc.reparse(src, numbers, stop)?.map(|()| doc))
}

/// Whether `src` is one valid JSON document, read without building anything (`Err` when
/// `stop` was raised meanwhile). Nesting deeper than [`MAX_DEPTH`] is invalid, as in [`parse`].
pub fn is_valid(src: &[u8], stop: &Context) -> Run<bool> {
    let mut p = lex::Parser::new(src, stop);
    p.skip_ws();
    match p.skip_value(0) {
        Ok(()) => {}
        Err(e) if lex::is_stopped(e) => return Err(crate::metrics::halt::Halt::Stopped),
        Err(_) => return Ok(false),
    }
    p.skip_ws();
    Ok(p.at_end())
}

/// Shared by the tests of the submodules.
#[cfg(test)]
mod testing {
    use super::{Document, Numbers, ParseError};
    use crate::metrics::halt::Context;

    /// [`super::parse`] with a stop flag never raised.
    pub fn parse(s: &[u8], n: Numbers) -> Result<Document<'_>, ParseError> {
        super::parse(s, n, &Context::new()).unwrap()
    }

    pub fn canon(s: &str, n: Numbers) -> String {
        parse(s.as_bytes(), n)
            .unwrap()
            .canonical(&Context::new())
            .unwrap()
    }

    pub fn eq(a: &str, b: &str, n: Numbers) -> bool {
        let doc = parse(a.as_bytes(), n).unwrap();
        doc.matches(b.as_bytes(), &Context::new()).unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::halt::{Halt, CHECK_EVERY};
    use crate::metrics::json::testing::{canon, eq};

    #[test]
    fn a_raised_stop_halts_reading_and_writing() {
        let array = format!("[{}1]", "1.0, ".repeat(CHECK_EVERY / 4));
        let plain = format!("\"{}\"", "x".repeat(3 * CHECK_EVERY));
        let escaped = format!("\"{}\"", "ab\\n".repeat(CHECK_EVERY));
        let (stop, go) = (Context::new(), Context::new());
        stop.raise();
        for doc in [&array, &plain, &escaped] {
            let src = doc.as_bytes();
            assert!(matches!(
                parse(src, Numbers::Value, &stop),
                Err(Halt::Stopped)
            ));
            let mut d = parse(src, Numbers::Value, &go).unwrap().unwrap();
            assert_eq!(d.matches(src, &stop), Err(Halt::Stopped));
            assert_eq!(d.canonical(&stop), Err(Halt::Stopped));
            // A stopped document reads the next one normally.
            assert_eq!(d.reparse(src, Numbers::Value, &stop), Err(Halt::Stopped));
            assert_eq!(d.reparse(src, Numbers::Value, &go), Ok(Ok(())));
            assert_eq!(d.matches(src, &go), Ok(true));
        }
        let small = parse(b"[1]", Numbers::Value, &go).unwrap().unwrap();
        assert_eq!(small.canonical(&go).as_deref(), Ok("[1]"));
    }

    #[test]
    fn validating_agrees_with_parsing() {
        let go = Context::new();
        let deep = |n: usize| "[".repeat(n) + &"]".repeat(n);
        let docs = [
            "1",
            " {\"a\": [1, 2.5e3, \"x\\n\"], \"b\": null} ",
            "",
            "[1,]",
            "{\"a\" 1}",
            "\"\t\"",
            "[1] x",
            "tru",
            "01",
            "{\"a\": {\"b\": [true, false]}}",
            "\"\\ud800\"",
        ];
        for doc in docs
            .iter()
            .map(|d| d.to_string())
            .chain([deep(512), deep(513)])
        {
            let want = parse(doc.as_bytes(), Numbers::Value, &go).unwrap().is_ok();
            assert_eq!(is_valid(doc.as_bytes(), &go), Ok(want), "{doc:?}");
        }
        let stop = Context::new();
        stop.raise();
        let long = format!("[{}1]", "1, ".repeat(CHECK_EVERY / 2));
        assert_eq!(is_valid(long.as_bytes(), &stop), Err(Halt::Stopped));
    }

    #[test]
    fn objects_sorted_and_last_key_wins() {
        let v = Numbers::Value;
        assert_eq!(
            canon(r#"{"b": 1, "a": [true, null], "b": 2}"#, v),
            r#"{"a":[true,null],"b":2}"#
        );
        assert!(eq(
            r#"{"x": {"q": 1, "p": 2}}"#,
            r#"{"x":{"p":2,"q":1}}"#,
            v
        ));
        assert!(!eq("[1, 2]", "[2, 1]", v));
    }
}
