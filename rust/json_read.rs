//! A small JSON reader into plain values (or value by value, with nothing built for what it
//! skips), shared by the fast paths: the trace reader's, `evalmark score`'s JSONL and the
//! inspect_ai log scan.
//!
//! It reads only what it is sure to read exactly as the Python path (msgspec) does and gives
//! up (`None`) on anything else: integers outside `i64`, numbers that are not finite, lone
//! surrogates, duplicate object keys, nesting deeper than [`MAX_DEPTH`]. Giving up is never an
//! error here: the caller hands the input to the Python path, which reads it or says what is
//! wrong with it, with its file and line.

use std::borrow::Cow;

/// A JSON value. Objects keep their keys in order (no key twice).
#[derive(Clone, Debug, PartialEq)]
pub enum V {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<V>),
    Obj(Vec<(String, V)>),
}

impl V {
    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            V::Str(s) => Some(s),
            _ => None,
        }
    }
}

/// Deepest nesting read; deeper input goes to the Python path.
pub const MAX_DEPTH: usize = 64;

const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Where the run of plain string bytes from `i` ends: the first quote, backslash or control
/// character at or after `i` (`b.len()` when none). Sixteen bytes at a time (SSE2, part of
/// every x86-64), then [`run_end_words`].
#[cfg(target_arch = "x86_64")]
fn run_end(b: &[u8], mut i: usize) -> usize {
    use std::arch::x86_64::{
        _mm_cmpeq_epi8, _mm_loadu_si128, _mm_max_epu8, _mm_movemask_epi8, _mm_or_si128,
        _mm_set1_epi8,
    };
    while let Some(chunk) = b.get(i..i + 16) {
        // SAFETY: SSE2 is in every x86-64 target; the unaligned load reads `chunk`'s 16 bytes.
        let found = unsafe {
            let x = _mm_loadu_si128(chunk.as_ptr().cast());
            let quote = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'"' as i8));
            let backslash = _mm_cmpeq_epi8(x, _mm_set1_epi8(b'\\' as i8));
            let low = _mm_set1_epi8(0x1f);
            let control = _mm_cmpeq_epi8(_mm_max_epu8(x, low), low); // a byte below 0x20
            _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(quote, backslash), control))
        };
        if found != 0 {
            return i + found.trailing_zeros() as usize;
        }
        i += 16;
    }
    run_end_words(b, i)
}

#[cfg(not(target_arch = "x86_64"))]
fn run_end(b: &[u8], i: usize) -> usize {
    run_end_words(b, i)
}

/// [`run_end`] eight bytes at a time: in each word the lowest byte flagged is exact (a borrow
/// only flags bytes above a flagged one).
fn run_end_words(b: &[u8], mut i: usize) -> usize {
    while let Some(chunk) = b.get(i..i + 8) {
        let mut word = [0u8; 8];
        word.copy_from_slice(chunk);
        let x = u64::from_le_bytes(word);
        let zero = |v: u64| v.wrapping_sub(ONES) & !v & HIGHS;
        let control = x.wrapping_sub(ONES * 0x20) & !x & HIGHS; // a byte below 0x20
        let found =
            zero(x ^ (ONES * u64::from(b'"'))) | zero(x ^ (ONES * u64::from(b'\\'))) | control;
        if found != 0 {
            return i + (found.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    while let Some(&c) = b.get(i) {
        if c == b'"' || c == b'\\' || c < 0x20 {
            break;
        }
        i += 1;
    }
    i
}

/// Where the string whose text starts at `i` ends (its closing quote, or `b.len()`), escapes
/// skipped: an upper bound of its decoded length is then `end - i`.
fn string_end(b: &[u8], mut i: usize) -> usize {
    loop {
        i = run_end(b, i);
        match b.get(i) {
            Some(b'\\') => i += 2,
            Some(b'"') | None => return i.min(b.len()),
            Some(_) => i += 1, // a control character: reported by the reader
        }
    }
}

/// Read `text` as one JSON document (whitespace around it allowed), or None.
#[cfg(test)]
pub fn parse(text: &[u8]) -> Option<V> {
    parse_str(std::str::from_utf8(text).ok()?)
}

/// [`parse`] of text known to be UTF-8 (a string value read before: not checked again).
pub fn parse_str(text: &str) -> Option<V> {
    let text = text.as_bytes();
    let mut p = Parser { b: text, i: 0 };
    let v = p.value(0)?;
    p.ws();
    (p.i == p.b.len()).then_some(v)
}

/// Mark bit `bit` of `seen` (a key's place in the caller's list of the keys an object may
/// hold, below 32); false when it was marked already (the key read twice in one object).
pub fn first(seen: &mut u32, bit: usize) -> bool {
    let fresh = *seen & (1 << bit) == 0;
    *seen |= 1 << bit;
    fresh
}

/// A reader over one JSON text, used value by value by the OTLP reader (`otlp.rs`), which
/// knows the shape to expect and builds no tree for it.
pub struct Parser<'a> {
    b: &'a [u8],
    i: usize,
}

impl<'a> Parser<'a> {
    /// A reader of text known to be UTF-8 (a string value read before: not checked again).
    pub fn of_str(text: &'a str) -> Self {
        Parser {
            b: text.as_bytes(),
            i: 0,
        }
    }

    /// A reader of `text`, or None when it is not UTF-8.
    pub fn new(text: &'a [u8]) -> Option<Self> {
        std::str::from_utf8(text).ok()?;
        Some(Parser { b: text, i: 0 })
    }

    /// Whether only whitespace is left.
    pub fn at_end(&mut self) -> bool {
        self.ws();
        self.i == self.b.len()
    }

    /// Whether the next value is `null` (then read).
    pub fn null(&mut self) -> bool {
        if self.peek() == Some(b'n') && self.b[self.i..].starts_with(b"null") {
            self.i += 4;
            true
        } else {
            false
        }
    }

    /// Read an object, calling `f` with each key (keys without escapes only; a key twice or
    /// more than 32 keys: None), `f` reading the value.
    pub fn object(&mut self, mut f: impl FnMut(&mut Self, &'a str) -> Option<()>) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(());
        }
        // Where each key read so far lies in the text (zeros: one memset, not 32 fat pointers).
        let mut seen = [(0usize, 0usize); 32];
        let mut n = 0;
        loop {
            if self.peek()? != b'"' {
                return None;
            }
            let start = self.i + 1;
            let end = run_end(self.b, start);
            if self.b.get(end) != Some(&b'"') || n == seen.len() {
                return None;
            }
            // SAFETY: as in `string`: UTF-8 text cut at ASCII quotes.
            let key = unsafe { std::str::from_utf8_unchecked(&self.b[start..end]) };
            let text = &self.b[start..end];
            if seen[..n].iter().any(|&(s, e)| &self.b[s..e] == text) {
                return None;
            }
            seen[n] = (start, end);
            n += 1;
            self.i = end + 1;
            if !self.eat(b':') {
                return None;
            }
            f(self, key)?;
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}').then_some(());
        }
    }

    /// Read an array, calling `f` to read each item.
    pub fn array(&mut self, mut f: impl FnMut(&mut Self) -> Option<()>) -> Option<()> {
        if !self.eat(b'[') {
            return None;
        }
        if self.eat(b']') {
            return Some(());
        }
        loop {
            f(self)?;
            if self.eat(b',') {
                continue;
            }
            return self.eat(b']').then_some(());
        }
    }

    /// Read any value.
    pub fn any(&mut self) -> Option<V> {
        self.value(1)
    }

    /// Read any value nested `depth` levels deep in the document (deeper than [`MAX_DEPTH`]
    /// in all: None, as [`parse_str`] of the whole document gives).
    pub fn any_at(&mut self, depth: usize) -> Option<V> {
        self.value(depth)
    }

    /// Whether the next value starts with `c` (nothing read but whitespace).
    pub fn next_is(&mut self, c: u8) -> bool {
        self.peek() == Some(c)
    }

    /// A string without escapes, borrowed from the text (then read); None (nothing read) for
    /// anything else.
    pub fn plain_text(&mut self) -> Option<&'a str> {
        if self.peek()? != b'"' {
            return None;
        }
        let end = run_end(self.b, self.i + 1);
        if self.b.get(end) != Some(&b'"') {
            return None;
        }
        // SAFETY: as in `string`: UTF-8 text cut at ASCII quotes.
        let text = unsafe { std::str::from_utf8_unchecked(&self.b[self.i + 1..end]) };
        self.i = end + 1;
        Some(text)
    }

    /// Read a string.
    pub fn text(&mut self) -> Option<String> {
        if self.peek()? != b'"' {
            return None;
        }
        self.string()
    }

    /// Read an object whose keys may hold escapes, calling `f` with each key (decoded, and
    /// borrowed from the text when it holds no escape), `f` reading the value. Keys are not
    /// compared here: the caller refuses the repeated ones it reads ([`Parser::object`] does
    /// it for keys without escapes).
    pub fn members(
        &mut self,
        mut f: impl FnMut(&mut Self, Cow<'a, str>) -> Option<()>,
    ) -> Option<()> {
        if !self.eat(b'{') {
            return None;
        }
        if self.eat(b'}') {
            return Some(());
        }
        loop {
            let key = self.str_cow()?;
            if !self.eat(b':') {
                return None;
            }
            f(self, key)?;
            if self.eat(b',') {
                continue;
            }
            return self.eat(b'}').then_some(());
        }
    }

    /// Read an object whose string member `name` is wanted: `Some(None)` when it has none;
    /// its other members are skipped as [`Parser::skip`] skips a value `depth` levels deep
    /// (exactly with `exact`). None when it is not an object, or holds `name` twice or not as
    /// a string.
    pub fn text_member(
        &mut self,
        name: &str,
        depth: usize,
        exact: bool,
    ) -> Option<Option<Cow<'a, str>>> {
        let mut found = None;
        self.members(|p, key| {
            if key != name {
                return p.skip(depth, exact);
            }
            if found.is_some() {
                return None;
            }
            found = Some(p.str_cow()?);
            Some(())
        })?;
        Some(found)
    }

    /// A string (then read), borrowed from the text when it holds no escape; None for
    /// anything else, or a string with a lone surrogate.
    pub fn str_cow(&mut self) -> Option<Cow<'a, str>> {
        if let Some(text) = self.plain_text() {
            return Some(Cow::Borrowed(text));
        }
        self.text().map(Cow::Owned)
    }

    /// An integer without fraction or exponent that fits `i64` (then read); None for anything
    /// else.
    pub fn int(&mut self) -> Option<i64> {
        match self.peek()? {
            b'-' | b'0'..=b'9' => match self.number()? {
                V::Int(n) => Some(n),
                _ => None,
            },
            _ => None,
        }
    }

    /// A number read as [`Parser::any`] reads it (then read); None for anything else.
    pub fn number_exact(&mut self) -> Option<()> {
        self.ws();
        self.number().map(drop)
    }

    /// Skip one value nested `depth` levels deep in the document, building nothing, and check
    /// it as msgspec checks a value it skips: JSON's grammar, escapes (no lone surrogate), no
    /// control character in a string (the text is UTF-8 already). Deeper than [`MAX_DEPTH`]:
    /// None. With `exact`, numbers are also read as [`Parser::any`] reads them (an integer
    /// outside `i64` or a number that is not finite: None), as msgspec must decode them to
    /// plain values without an error.
    pub fn skip(&mut self, depth: usize, exact: bool) -> Option<()> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'{' => {
                self.i += 1;
                if self.eat(b'}') {
                    return Some(());
                }
                loop {
                    if self.peek()? != b'"' {
                        return None;
                    }
                    self.skip_string()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    self.skip(depth + 1, exact)?;
                    if self.eat(b',') {
                        continue;
                    }
                    return self.eat(b'}').then_some(());
                }
            }
            b'[' => {
                self.i += 1;
                if self.eat(b']') {
                    return Some(());
                }
                loop {
                    self.skip(depth + 1, exact)?;
                    if self.eat(b',') {
                        continue;
                    }
                    return self.eat(b']').then_some(());
                }
            }
            b'"' => self.skip_string(),
            b't' => self.literal(b"true", V::Null).map(drop),
            b'f' => self.literal(b"false", V::Null).map(drop),
            b'n' => self.literal(b"null", V::Null).map(drop),
            _ if exact => self.number().map(drop),
            _ => self.number_text().map(drop),
        }
    }

    /// The text of one value nested `depth` levels deep, skipped as [`Parser::skip`] does.
    pub fn raw(&mut self, depth: usize, exact: bool) -> Option<&'a str> {
        self.ws();
        let start = self.i;
        self.skip(depth, exact)?;
        // SAFETY: UTF-8 text cut before the value's first byte and after its last, both ASCII.
        Some(unsafe { std::str::from_utf8_unchecked(&self.b[start..self.i]) })
    }

    /// Skip the string at `self.i` (a quote), its escapes checked as [`Parser::string`] reads
    /// them.
    fn skip_string(&mut self) -> Option<()> {
        self.i += 1;
        loop {
            self.i = run_end(self.b, self.i);
            match *self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(());
                }
                b'\\' => {
                    let e = *self.b.get(self.i + 1)?;
                    self.i += 2;
                    match e {
                        b'"' | b'\\' | b'/' | b'b' | b'f' | b'n' | b'r' | b't' => {}
                        b'u' => {
                            self.unicode_escape()?;
                        }
                        _ => return None,
                    }
                }
                _ => return None, // a control character
            }
        }
    }

    fn ws(&mut self) {
        while let Some(&c) = self.b.get(self.i) {
            if matches!(c, b' ' | b'\t' | b'\n' | b'\r') {
                self.i += 1;
            } else {
                break;
            }
        }
    }

    fn peek(&mut self) -> Option<u8> {
        self.ws();
        self.b.get(self.i).copied()
    }

    fn eat(&mut self, c: u8) -> bool {
        if self.peek() == Some(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn literal(&mut self, word: &[u8], v: V) -> Option<V> {
        if self.b[self.i..].starts_with(word) {
            self.i += word.len();
            Some(v)
        } else {
            None
        }
    }

    fn value(&mut self, depth: usize) -> Option<V> {
        if depth > MAX_DEPTH {
            return None;
        }
        match self.peek()? {
            b'{' => {
                self.i += 1;
                let mut fields: Vec<(String, V)> = Vec::new();
                if self.eat(b'}') {
                    return Some(V::Obj(fields));
                }
                loop {
                    if self.peek()? != b'"' {
                        return None;
                    }
                    let key = self.string()?;
                    if !self.eat(b':') {
                        return None;
                    }
                    let v = self.value(depth + 1)?;
                    if fields.iter().any(|(k, _)| *k == key) {
                        return None;
                    }
                    fields.push((key, v));
                    if self.eat(b',') {
                        continue;
                    }
                    return self.eat(b'}').then_some(V::Obj(fields));
                }
            }
            b'[' => {
                self.i += 1;
                let mut items = Vec::new();
                if self.eat(b']') {
                    return Some(V::Arr(items));
                }
                loop {
                    items.push(self.value(depth + 1)?);
                    if self.eat(b',') {
                        continue;
                    }
                    return self.eat(b']').then_some(V::Arr(items));
                }
            }
            b'"' => self.string().map(V::Str),
            b't' => self.literal(b"true", V::Bool(true)),
            b'f' => self.literal(b"false", V::Bool(false)),
            b'n' => self.literal(b"null", V::Null),
            _ => self.number(),
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.i;
        while self.b.get(self.i).is_some_and(u8::is_ascii_digit) {
            self.i += 1;
        }
        self.i - start
    }

    /// Where the number at `self.i` starts, and whether it has a fraction or an exponent (then
    /// read, checked against JSON's grammar only).
    fn number_text(&mut self) -> Option<(usize, bool)> {
        let start = self.i;
        if self.b.get(self.i) == Some(&b'-') {
            self.i += 1;
        }
        let first = *self.b.get(self.i)?;
        let n = self.digits();
        if n == 0 || (first == b'0' && n > 1) {
            return None;
        }
        let mut float = false;
        if self.b.get(self.i) == Some(&b'.') {
            self.i += 1;
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        if matches!(self.b.get(self.i), Some(b'e' | b'E')) {
            self.i += 1;
            if matches!(self.b.get(self.i), Some(b'+' | b'-')) {
                self.i += 1;
            }
            if self.digits() == 0 {
                return None;
            }
            float = true;
        }
        Some((start, float))
    }

    fn number(&mut self) -> Option<V> {
        let (start, float) = self.number_text()?;
        let text = std::str::from_utf8(&self.b[start..self.i]).ok()?;
        if float {
            let x: f64 = text.parse().ok()?;
            x.is_finite().then_some(V::Float(x))
        } else {
            text.parse().ok().map(V::Int)
        }
    }

    /// Four hex digits (of a `\u` escape), or None.
    fn hex4(&mut self) -> Option<u32> {
        let digits = self.b.get(self.i..self.i + 4)?;
        let mut code = 0;
        for &c in digits {
            code = code << 4 | char::from(c).to_digit(16)?;
        }
        self.i += 4;
        Some(code)
    }

    /// The character of a `\u` escape whose `u` was read: a surrogate pair is one, a lone
    /// surrogate is None (as msgspec refuses it, reading or skipping).
    fn unicode_escape(&mut self) -> Option<char> {
        let high = self.hex4()?;
        let code = if (0xD800..0xDC00).contains(&high) {
            if self.b.get(self.i..self.i + 2) != Some(b"\\u") {
                return None;
            }
            self.i += 2;
            let low = self.hex4()?;
            if !(0xDC00..0xE000).contains(&low) {
                return None;
            }
            0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00)
        } else {
            high
        };
        char::from_u32(code)
    }

    /// A string at `self.i` (which is a quote). The input is valid UTF-8 (checked once).
    fn string(&mut self) -> Option<String> {
        self.i += 1;
        let first = run_end(self.b, self.i);
        if self.b.get(first) == Some(&b'"') {
            // No escape: one allocation of the exact size.
            // SAFETY: as below.
            let text = unsafe { std::str::from_utf8_unchecked(&self.b[self.i..first]) };
            self.i = first + 1;
            return Some(text.to_owned());
        }
        // Escapes only shorten the text: its raw length is room enough.
        let mut out = String::with_capacity(string_end(self.b, self.i) - self.i);
        loop {
            let start = self.i;
            self.i = run_end(self.b, self.i);
            // SAFETY: the text is UTF-8 (checked once by `parse` / `Parser::new`) and the run
            // starts and ends at ASCII bytes (quote, backslash, control), so on char boundaries.
            out.push_str(unsafe { std::str::from_utf8_unchecked(&self.b[start..self.i]) });
            match *self.b.get(self.i)? {
                b'"' => {
                    self.i += 1;
                    return Some(out);
                }
                b'\\' => {
                    self.i += 1;
                    let e = *self.b.get(self.i)?;
                    self.i += 1;
                    let c = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => self.unicode_escape()?,
                        _ => return None,
                    };
                    out.push(c);
                }
                _ => return None, // a control character
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_values() {
        let v = parse(br#" {"a": [1, -2.5e1, "x\u00e9\ud83d\ude00", true, null]} "#).unwrap();
        let items = V::Arr(vec![
            V::Int(1),
            V::Float(-25.0),
            V::Str("x\u{e9}\u{1f600}".into()),
            V::Bool(true),
            V::Null,
        ]);
        assert_eq!(v, V::Obj(vec![("a".into(), items)]));
    }

    #[test]
    fn finds_the_end_of_a_run_in_any_position() {
        for len in 0..40 {
            for stop in [b'"', b'\\', b'\n', 0x1f] {
                let mut text: Vec<u8> = "a\u{e9}\u{7f}xyz~ ".bytes().cycle().take(len).collect();
                assert_eq!(run_end(&text, 0), len);
                text.push(stop);
                text.extend_from_slice(b"\"\\tail");
                assert_eq!(run_end(&text, 0), len, "{len} {stop}");
                assert_eq!(run_end_words(&text, 0), len, "{len} {stop}");
            }
        }
        let text = br#""ab\"c\\"d"#;
        assert_eq!(string_end(text, 1), 8);
        assert_eq!(string_end(b"ab\\", 0), 3);
    }

    #[test]
    fn gives_up_on_the_unusual() {
        for text in [
            &b"{\"a\": 1, \"a\": 2}"[..],
            b"99999999999999999999",
            b"1e999",
            b"\"\\ud800\"",
            b"[1,]",
            b"01",
            b"\"a\x01\"",
            b"[1] x",
            b"\xff",
        ] {
            assert_eq!(parse(text), None, "{:?}", String::from_utf8_lossy(text));
        }
    }

    fn skipped(text: &[u8], exact: bool) -> bool {
        let mut p = Parser::new(text).unwrap();
        p.skip(0, exact).is_some() && p.at_end()
    }

    #[test]
    fn skips_what_it_reads_and_no_more() {
        let texts: [&[u8]; 22] = [
            br#" {"a": [1, -2.5e1, "x\u00e9\ud83d\ude00", true, null], "b": {}} "#,
            b"[]",
            b"\"\\\"\\\\\\/\\b\\f\\n\\r\\t\"",
            b"-0",
            b"99999999999999999999",
            b"1e999",
            b"[1,]",
            b"{\"a\":1,}",
            b"{\"a\" 1}",
            b"{1: 2}",
            b"01",
            b"1.",
            b"-",
            b"1e+",
            b"\"\\ud800\"",
            b"\"\\udc00\"",
            b"\"\\ud800\\u0041\"",
            b"\"\\u+041\"",
            b"\"\\x\"",
            b"\"a\x01\"",
            b"tru",
            b"[1] x",
        ];
        for text in texts {
            let read = parse(text).is_some();
            let what = String::from_utf8_lossy(text);
            assert_eq!(skipped(text, true), read, "{what}");
            let big = matches!(text, b"99999999999999999999" | b"1e999");
            assert_eq!(skipped(text, false), read || big, "{what}");
        }
        for levels in [65, 66] {
            let deep = format!("{}{}", "[".repeat(levels), "]".repeat(levels));
            let read = parse(deep.as_bytes()).is_some();
            assert_eq!(read, levels == 65);
            assert_eq!(skipped(deep.as_bytes(), false), read);
        }
        let mut p = Parser::new(b" [1, {\"k\": \"v\"}] ,").unwrap();
        assert_eq!(p.raw(0, false), Some("[1, {\"k\": \"v\"}]"));
    }

    #[test]
    fn reads_members_ints_and_texts() {
        let mut p = Parser::new(br#"{"a": 1, "\u0062": -0, "a": "x\ty"}"#).unwrap();
        let mut seen = Vec::new();
        let read = p.members(|p, key| {
            let value = if p.next_is(b'"') {
                p.str_cow().map(|s| s.into_owned())
            } else {
                p.int().map(|n| n.to_string())
            };
            seen.push((key.into_owned(), value?));
            Some(())
        });
        assert_eq!(read, Some(()));
        let pairs = [("a", "1"), ("b", "0"), ("a", "x\ty")];
        assert_eq!(seen, pairs.map(|(k, v)| (k.to_string(), v.to_string())));
        for text in ["1.0", "1e2", "true", "\"1\"", "9223372036854775808"] {
            assert_eq!(Parser::new(text.as_bytes()).unwrap().int(), None, "{text}");
        }
        let mut p = Parser::new(b"-9223372036854775808").unwrap();
        assert_eq!(p.int(), Some(i64::MIN));
    }
}
