//! The lexer both sides share: whitespace, strings, numbers, literals and the punctuation of
//! containers, and skipping a value without building it. Errors carry a byte position, turned
//! into a line and column only when reported.

use std::borrow::Cow;

use super::{Node, MAX_DEPTH};
use crate::metrics::text::push_utf8;

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

/// The lexer both sides share: whitespace, strings, numbers and literals.
pub(super) struct Parser<'a> {
    pub(super) src: &'a [u8],
    pub(super) pos: usize,
}

pub(super) type PResult<T> = Result<T, (usize, &'static str)>;

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

impl<'a> Parser<'a> {
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

    fn hex4(&mut self) -> PResult<u32> {
        let s = self
            .src
            .get(self.pos..self.pos + 4)
            .ok_or((self.pos, "invalid \\u escape: four hex digits needed"))?;
        let mut v = 0u32;
        for &b in s {
            let d = (b as char)
                .to_digit(16)
                .ok_or((self.pos, "invalid \\u escape: four hex digits needed"))?;
            v = v * 16 + d;
        }
        self.pos += 4;
        Ok(v)
    }

    pub(super) fn string(&mut self) -> PResult<Cow<'a, [u8]>> {
        let open = self.pos;
        self.pos += 1;
        let start = self.pos;
        // Fast path: no escapes, borrow the bytes. Plain bytes are skipped eight at a time.
        self.pos = skip_plain_string_bytes(self.src, self.pos);
        while let Some(&b) = self.src.get(self.pos) {
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(Cow::Borrowed(&self.src[start..self.pos - 1]));
                }
                b'\\' => break,
                0x00..=0x1F => return Err((self.pos, "unescaped control character in a string")),
                _ => self.pos += 1,
            }
        }
        let mut buf = self.src[start..self.pos].to_vec();
        loop {
            let Some(&b) = self.src.get(self.pos) else {
                return Err((open, "unterminated string"));
            };
            match b {
                b'"' => {
                    self.pos += 1;
                    return Ok(Cow::Owned(buf));
                }
                0x00..=0x1F => return Err((self.pos, "unescaped control character in a string")),
                b'\\' => {
                    let esc_pos = self.pos;
                    self.pos += 1;
                    let Some(&e) = self.src.get(self.pos) else {
                        return Err((open, "unterminated string"));
                    };
                    self.pos += 1;
                    let ch = match e {
                        b'"' => b'"',
                        b'\\' => b'\\',
                        b'/' => b'/',
                        b'b' => 0x08,
                        b'f' => 0x0C,
                        b'n' => b'\n',
                        b'r' => b'\r',
                        b't' => b'\t',
                        b'u' => {
                            let mut cp = self.hex4()?;
                            if (0xD800..=0xDBFF).contains(&cp)
                                && self.src[self.pos..].starts_with(b"\\u")
                            {
                                let save = self.pos;
                                self.pos += 2;
                                let low = self.hex4()?;
                                if (0xDC00..=0xDFFF).contains(&low) {
                                    cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
                                } else {
                                    self.pos = save;
                                }
                            }
                            push_utf8(cp, &mut buf);
                            continue;
                        }
                        _ => return Err((esc_pos, "invalid escape in a string")),
                    };
                    buf.push(ch);
                }
                _ => {
                    buf.push(b);
                    self.pos += 1;
                }
            }
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

/// The first position at or after `i` that may end a string's plain run (a quote, a backslash
/// or a control character), found eight bytes at a time; the last few bytes are left to the
/// caller's byte loop.
#[inline]
fn skip_plain_string_bytes(src: &[u8], mut i: usize) -> usize {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    while let Some(chunk) = src.get(i..i + 8) {
        let v = u64::from_le_bytes(chunk.try_into().unwrap());
        // A byte's high bit is set where it is zero after the xor (quote, backslash) or below
        // 0x20; the lowest flagged byte is always a true one.
        let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS;
        let quote = has_zero(v ^ (ONES * b'"' as u64));
        let backslash = has_zero(v ^ (ONES * b'\\' as u64));
        let control = v.wrapping_sub(ONES * 0x20) & !v & HIGHS;
        let found = quote | backslash | control;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    i
}

impl Parser<'_> {
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
    use crate::metrics::json::{parse, Numbers};

    #[test]
    fn strings_scan_every_offset() {
        // The eight-byte scan must stop at a quote, backslash or control byte wherever it falls.
        for len in 0..40 {
            for at in 0..=len {
                let plain = "é".repeat(len / 2) + &"x".repeat(len % 2);
                let (head, tail) = plain.split_at(
                    plain
                        .char_indices()
                        .nth(at / 2)
                        .map_or(plain.len(), |(i, _)| i),
                );
                let escaped = format!("\"{head}\\n{tail}\"");
                assert_eq!(
                    canon(&escaped, Numbers::Value),
                    format!("\"{head}\\n{tail}\""),
                    "{escaped:?}"
                );
                let raw_control = format!("\"{head}\u{1}{tail}\"");
                let e = parse(raw_control.as_bytes(), Numbers::Value).unwrap_err();
                assert_eq!(e.column, head.chars().count() + 2, "{raw_control:?}");
                let early_quote = format!("\"{head}\"{tail}\"");
                assert!(parse(early_quote.as_bytes(), Numbers::Value).is_err());
            }
        }
    }

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
