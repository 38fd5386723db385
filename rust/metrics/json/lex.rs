//! The lexer both sides share: whitespace, strings, numbers, literals and the punctuation of
//! containers, and skipping a value without building it. Errors carry a byte position, turned
//! into a line and column only when reported.

use std::borrow::Cow;

use super::{Node, MAX_DEPTH};
use crate::metrics::halt::{Context, CHECK_EVERY};

/// Where and why a document failed to parse.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    pub line: usize,
    pub column: usize,
    pub message: &'static str,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )
    }
}

/// The lexer both sides share: whitespace, strings, numbers and literals. `stop` is polled
/// every [`CHECK_EVERY`] bytes read, at the next container element or inside a long string.
pub(super) struct Parser<'a, 's> {
    pub(super) src: &'a [u8],
    pub(super) pos: usize,
    pub(super) stop: &'s Context,
    next_check: usize,
}

/// A syntax error (where, and what is wrong), or [`STOPPED`].
pub(super) type PResult<T> = Result<T, (usize, &'static str)>;

/// The error of a read that stopped because the stop flag of its [`Context`] was raised: no
/// byte lies at its position.
pub(super) const STOPPED: (usize, &str) = (usize::MAX, "stopped");

/// Whether `error` is [`STOPPED`] rather than a syntax error.
pub(super) fn is_stopped(error: (usize, &'static str)) -> bool {
    error.0 == STOPPED.0
}

pub(super) fn locate(src: &[u8], pos: usize, message: &'static str) -> ParseError {
    let pos = pos.min(src.len());
    let before = &src[..pos];
    let line = before.iter().filter(|&&b| b == b'\n').count() + 1;
    let line_start = before
        .iter()
        .rposition(|&b| b == b'\n')
        .map_or(0, |i| i + 1);
    let column = before[line_start..]
        .iter()
        .filter(|&&b| (b & 0xC0) != 0x80)
        .count()
        + 1;
    ParseError {
        line,
        column,
        message,
    }
}

/// Whether two byte strings are equal: short ones (keys, most strings and numbers) compared
/// in line, since a library call per comparison costs more than the comparison.
#[inline]
pub(super) fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len()
        && if a.len() <= 16 {
            a.iter().zip(b).fold(0u8, |diff, (x, y)| diff | (x ^ y)) == 0
        } else {
            a == b
        }
}

impl<'a, 's> Parser<'a, 's> {
    /// A parser at the start of `src`.
    pub(super) fn new(src: &'a [u8], stop: &'s Context) -> Self {
        Parser {
            src,
            pos: 0,
            stop,
            next_check: 0,
        }
    }

    /// Whether the whole text has been read.
    pub(super) fn at_end(&self) -> bool {
        self.pos == self.src.len()
    }

    /// [`STOPPED`] once the stop flag is raised, looked at every [`CHECK_EVERY`] bytes.
    #[inline]
    pub(super) fn poll(&mut self) -> PResult<()> {
        if self.pos >= self.next_check {
            self.next_check = self.pos.saturating_add(CHECK_EVERY);
            if self.stop.is_raised() {
                return Err(STOPPED);
            }
        }
        Ok(())
    }

    #[inline]
    pub(super) fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    pub(super) fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// Read `true`, `false` or `null`.
    pub(super) fn literal(&mut self) -> PResult<Node<'a>> {
        let rest = &self.src[self.pos..];
        let (node, len) = if rest.starts_with(b"true") {
            (Node::Bool(true), 4)
        } else if rest.starts_with(b"false") {
            (Node::Bool(false), 5)
        } else if rest.starts_with(b"null") {
            (Node::Null, 4)
        } else {
            return Err((self.pos, "expected a JSON value"));
        };
        self.pos += len;
        Ok(node)
    }

    /// Step into the container that opens here (`close` is its closing bracket); true when it
    /// is empty, and then already closed.
    pub(super) fn open(&mut self, close: u8, depth: usize) -> PResult<bool> {
        if depth > MAX_DEPTH {
            return Err((self.pos, "nesting deeper than 512 levels is not supported"));
        }
        self.pos += 1;
        self.skip_ws();
        if self.peek() == Some(close) {
            self.pos += 1;
            return Ok(true);
        }
        Ok(false)
    }

    /// Read an object key and its colon, and the whitespace around them.
    pub(super) fn key(&mut self) -> PResult<Cow<'a, [u8]>> {
        self.skip_ws();
        if self.peek() != Some(b'"') {
            return Err((self.pos, "expected a double-quoted object key"));
        }
        let key = self.string()?;
        self.skip_ws();
        if self.peek() != Some(b':') {
            return Err((self.pos, "expected ':' after an object key"));
        }
        self.pos += 1;
        self.skip_ws();
        Ok(key)
    }

    /// After a container's element: true at its closing bracket `close` (consumed), false at a
    /// comma (consumed).
    pub(super) fn next_element(&mut self, close: u8) -> PResult<bool> {
        self.poll()?;
        self.skip_ws();
        match self.peek() {
            Some(b',') => {
                self.pos += 1;
                Ok(false)
            }
            Some(c) if c == close => {
                self.pos += 1;
                Ok(true)
            }
            _ if close == b']' => Err((self.pos, "expected ',' or ']' in an array")),
            _ => Err((self.pos, "expected ',' or '}' in an object")),
        }
    }

    fn digits_run(&mut self) -> &'a [u8] {
        let start = self.pos;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.pos += 1;
        }
        &self.src[start..self.pos]
    }

    /// Check the syntax of the number that starts here and return its literal text.
    pub(super) fn number(&mut self) -> PResult<&'a [u8]> {
        let start = self.pos;
        if self.peek() == Some(b'-') {
            self.pos += 1;
        }
        let int_part = self.digits_run();
        if int_part.is_empty() {
            return Err((self.pos, "invalid number: a digit must follow '-'"));
        }
        if int_part.len() > 1 && int_part[0] == b'0' {
            return Err((start, "invalid number: leading zeros are not allowed"));
        }
        if self.peek() == Some(b'.') {
            self.pos += 1;
            if self.digits_run().is_empty() {
                return Err((self.pos, "invalid number: a digit must follow '.'"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.pos += 1;
            if let Some(b'+' | b'-') = self.peek() {
                self.pos += 1;
            }
            if self.digits_run().is_empty() {
                return Err((self.pos, "invalid number: a digit must follow the exponent"));
            }
        }
        Ok(&self.src[start..self.pos])
    }
}

impl Parser<'_, '_> {
    /// Read past one value, checking it is valid JSON, without building anything.
    pub(super) fn skip_value(&mut self, depth: usize) -> PResult<()> {
        match self.peek() {
            None => Err((self.pos, "expected a JSON value, found the end of the text")),
            Some(open @ (b'{' | b'[')) => {
                let close = if open == b'{' { b'}' } else { b']' };
                if self.open(close, depth + 1)? {
                    return Ok(());
                }
                loop {
                    if open == b'{' {
                        self.key()?;
                    }
                    self.skip_ws();
                    self.skip_value(depth + 1)?;
                    if self.next_element(close)? {
                        return Ok(());
                    }
                }
            }
            Some(b'"') => self.string().map(drop),
            Some(b'-' | b'0'..=b'9') => self.number().map(drop),
            Some(_) => self.literal().map(drop),
        }
    }
}
#[cfg(test)]
mod tests {
    use crate::metrics::json::testing::*;
    use crate::metrics::json::Numbers;

    #[test]
    fn errors_have_positions() {
        let e = parse(b"{\n  \"a\": 01}", Numbers::Value).unwrap_err();
        assert_eq!((e.line, e.column), (2, 8));
        for bad in [
            "",
            "NaN",
            "[1,]",
            "{\"a\" 1}",
            "\"\t\"",
            "[1] x",
            "tru",
            "1.",
            "-",
            "\"\\x\"",
        ] {
            assert!(parse(bad.as_bytes(), Numbers::Value).is_err(), "{bad:?}");
        }
        let deep = "[".repeat(600) + &"]".repeat(600);
        assert!(parse(deep.as_bytes(), Numbers::Value).is_err());
        let ok = "[".repeat(500) + &"]".repeat(500);
        assert!(parse(ok.as_bytes(), Numbers::Value).is_ok());
    }
}
