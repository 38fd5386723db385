//! JSON documents compared by meaning: an RFC 8259 parser into a canonical tree (object keys
//! sorted, duplicate keys resolved last-wins, numbers normalized per mode) and its serializer.
//!
//! Strings are generalized UTF-8, so lone surrogates (from `\ud800` escapes or from Python
//! strings) are kept and compared like any other code point.
//!
//! `lex` reads the tokens both sides share; `parse` builds the expected side's tree; `number`
//! holds exact decimal values and their arithmetic; `canonical` writes a tree out; `compare`
//! reads the actual side against a tree without building one.

mod canonical;
mod compare;
mod lex;
mod number;
mod parse;

use std::borrow::Cow;

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

/// Parse `src` into its canonical form.
pub fn parse(src: &[u8], numbers: Numbers) -> Result<Document<'_>, ParseError> {
    let mut doc = Document::default();
    doc.reparse(src, numbers)?;
    Ok(doc)
}

/// Shared by the tests of the submodules.
#[cfg(test)]
mod testing {
    use super::{parse, Numbers};

    pub fn canon(s: &str, n: Numbers) -> String {
        parse(s.as_bytes(), n).unwrap().canonical()
    }

    pub fn eq(a: &str, b: &str, n: Numbers) -> bool {
        parse(a.as_bytes(), n).unwrap().matches(b.as_bytes())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::json::testing::*;

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
