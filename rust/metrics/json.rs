//! JSON documents compared by meaning: an RFC 8259 parser into a canonical tree (object keys
//! sorted, duplicate keys resolved last-wins, numbers normalized per mode) and its serializer.
//!
//! Strings are generalized UTF-8, so lone surrogates (from `\ud800` escapes or from Python
//! strings) are kept and compared like any other code point.

use std::borrow::Cow;

use super::text::push_utf8;

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

/// A power of ten: small ones as `i64`, any other as sign and decimal digits (canonical: `Big`
/// only when the value does not fit in an `i64`).
#[derive(Debug, Clone, PartialEq, Eq)]
enum Exp {
    Small(i64),
    Big { neg: bool, digits: Box<[u8]> },
}

impl Exp {
    /// Exponent from its literal digits (no sign) and sign, plus a small adjustment.
    fn from_literal(neg: bool, digits: &[u8], delta: i64) -> Exp {
        if digits.len() <= 18 {
            let v = digits
                .iter()
                .fold(0i64, |acc, &d| acc * 10 + (d - b'0') as i64);
            let v = if neg { -v } else { v };
            if let Some(e) = v.checked_add(delta) {
                return Exp::Small(e);
            }
        }
        let digits: Vec<u8> = digits.iter().copied().skip_while(|&d| d == b'0').collect();
        let mut mag: Vec<u8> = digits;
        let mut neg = neg && !mag.is_empty();
        // value = (neg ? -mag : mag) + delta, computed on digit strings.
        let (dneg, dmag) = (delta < 0, delta.unsigned_abs().to_string().into_bytes());
        if mag.is_empty() {
            mag = dmag;
            neg = dneg;
        } else if neg == dneg {
            mag = add_digits(&mag, &dmag);
        } else if cmp_digits(&mag, &dmag) != std::cmp::Ordering::Less {
            mag = sub_digits(&mag, &dmag);
        } else {
            mag = sub_digits(&dmag, &mag);
            neg = dneg;
        }
        let mag: Vec<u8> = mag.into_iter().skip_while(|&d| d == b'0').collect();
        if mag.is_empty() {
            return Exp::Small(0);
        }
        // Small exactly when the value fits in an i64, so that each exponent has one form.
        if mag.len() <= 19 {
            let v: i128 = mag.iter().fold(0, |acc, &d| acc * 10 + (d - b'0') as i128);
            if let Ok(e) = i64::try_from(if neg { -v } else { v }) {
                return Exp::Small(e);
            }
        }
        Exp::Big {
            neg,
            digits: mag.into_boxed_slice(),
        }
    }

    /// This exponent plus `delta`, as text.
    fn text_plus(&self, delta: i64) -> (bool, String) {
        let e = match self {
            Exp::Small(v) => {
                let s = v.unsigned_abs().to_string();
                Exp::from_literal(*v < 0, s.as_bytes(), delta)
            }
            Exp::Big { neg, digits } => Exp::from_literal(*neg, digits, delta),
        };
        match e {
            Exp::Small(v) => (v < 0, v.unsigned_abs().to_string()),
            Exp::Big { neg, digits } => (neg, String::from_utf8_lossy(&digits).into_owned()),
        }
    }
}

fn cmp_digits(a: &[u8], b: &[u8]) -> std::cmp::Ordering {
    a.len().cmp(&b.len()).then_with(|| a.cmp(b))
}

fn add_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len().max(b.len()) + 1);
    let (mut i, mut j, mut carry) = (a.len(), b.len(), 0u8);
    while i > 0 || j > 0 || carry > 0 {
        let x = if i > 0 { a[i - 1] - b'0' } else { 0 };
        let y = if j > 0 { b[j - 1] - b'0' } else { 0 };
        let s = x + y + carry;
        out.push(b'0' + s % 10);
        carry = s / 10;
        i = i.saturating_sub(1);
        j = j.saturating_sub(1);
    }
    out.reverse();
    out
}

/// a − b for a ≥ b.
fn sub_digits(a: &[u8], b: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(a.len());
    let (mut i, mut j, mut borrow) = (a.len(), b.len(), 0i8);
    while i > 0 {
        let x = (a[i - 1] - b'0') as i8;
        let y = if j > 0 { (b[j - 1] - b'0') as i8 } else { 0 };
        let mut d = x - y - borrow;
        borrow = 0;
        if d < 0 {
            d += 10;
            borrow = 1;
        }
        out.push(b'0' + d as u8);
        i -= 1;
        j = j.saturating_sub(1);
    }
    out.reverse();
    out
}

/// A digit string without leading or trailing zeros, and a power of ten.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Digits {
    Small(u128),
    Big(Box<[u8]>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Number {
    /// Exact decimal: (-1)^neg × digits × 10^exp; zero is `Small(0)`, exp 0, not negative.
    Decimal { neg: bool, digits: Digits, exp: Exp },
    /// An integer literal read exactly (strict mode); zero is never negative.
    Int { neg: bool, digits: Digits },
    /// A non-integer literal read as binary64 (strict mode), compared by bits.
    Float(u64),
}

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

/// The lexer both sides share: whitespace, strings, numbers and literals.
struct Parser<'a> {
    src: &'a [u8],
    pos: usize,
}

type PResult<T> = Result<T, (usize, &'static str)>;

/// Parse `src` into its canonical form.
pub fn parse(src: &[u8], numbers: Numbers) -> Result<Document<'_>, ParseError> {
    let mut doc = Document::default();
    doc.reparse(src, numbers)?;
    Ok(doc)
}

impl<'a> Document<'a> {
    /// Parse `src` into this document, replacing what it held and reusing its buffers.
    pub fn reparse(&mut self, src: &'a [u8], numbers: Numbers) -> Result<(), ParseError> {
        self.numbers = numbers;
        self.items.clear();
        self.members.clear();
        self.open_items.clear();
        self.open_members.clear();
        let mut b = Builder {
            p: Parser { src, pos: 0 },
            doc: self,
        };
        match b.document() {
            Ok(root) => {
                self.root = root;
                Ok(())
            }
            Err((pos, message)) => {
                self.root = Node::Null;
                Err(locate(src, pos, message))
            }
        }
    }
}

fn locate(src: &[u8], pos: usize, message: &'static str) -> ParseError {
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

impl<'a> Parser<'a> {
    #[inline]
    fn skip_ws(&mut self) {
        while let Some(&b) = self.src.get(self.pos) {
            if matches!(b, b' ' | b'\t' | b'\n' | b'\r') {
                self.pos += 1;
            } else {
                break;
            }
        }
    }

    #[inline]
    fn peek(&self) -> Option<u8> {
        self.src.get(self.pos).copied()
    }

    /// Read `true`, `false` or `null`.
    fn literal(&mut self) -> PResult<Node<'a>> {
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
    fn open(&mut self, close: u8, depth: usize) -> PResult<bool> {
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
    fn key(&mut self) -> PResult<Cow<'a, [u8]>> {
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
    fn next_element(&mut self, close: u8) -> PResult<bool> {
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

    fn string(&mut self) -> PResult<Cow<'a, [u8]>> {
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
    fn number(&mut self) -> PResult<&'a [u8]> {
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

/// Builds the canonical tree of the expected side.
struct Builder<'a, 'd> {
    p: Parser<'a>,
    doc: &'d mut Document<'a>,
}

impl<'a> Builder<'a, '_> {
    fn document(&mut self) -> PResult<Node<'a>> {
        self.p.skip_ws();
        let node = self.value(0)?;
        self.p.skip_ws();
        if self.p.pos != self.p.src.len() {
            return Err((self.p.pos, "unexpected data after the JSON document"));
        }
        Ok(node)
    }

    fn value(&mut self, depth: usize) -> PResult<Node<'a>> {
        match self.p.peek() {
            None => Err((
                self.p.pos,
                "expected a JSON value, found the end of the text",
            )),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Node::Str(self.p.string()?)),
            Some(b'-' | b'0'..=b'9') => Ok(Node::Num(self.p.number()?)),
            Some(_) => self.p.literal(),
        }
    }

    fn array(&mut self, depth: usize) -> PResult<Node<'a>> {
        let base = self.doc.open_items.len();
        if !self.p.open(b']', depth)? {
            loop {
                self.p.skip_ws();
                let item = self.value(depth)?;
                self.doc.open_items.push(item);
                if self.p.next_element(b']')? {
                    break;
                }
            }
        }
        let doc = &mut *self.doc;
        let start = doc.items.len();
        doc.items.extend(doc.open_items.drain(base..));
        Ok(Node::Arr(Span {
            start,
            len: doc.items.len() - start,
        }))
    }

    fn object(&mut self, depth: usize) -> PResult<Node<'a>> {
        let base = self.doc.open_members.len();
        if !self.p.open(b'}', depth)? {
            loop {
                let key = self.p.key()?;
                let value = self.value(depth)?;
                self.doc.open_members.push((key, value));
                if self.p.next_element(b'}')? {
                    break;
                }
            }
        }
        // Stable sort keeps duplicates in document order, so keeping the last of each run
        // resolves duplicate keys the way Python's json module does.
        let doc = &mut *self.doc;
        doc.open_members[base..].sort_by(|a, b| a.0.cmp(&b.0));
        let start = doc.members.len();
        let mut open = doc.open_members.drain(base..).peekable();
        while let Some(member) = open.next() {
            if !open.peek().is_some_and(|next| next.0 == member.0) {
                doc.members.push(member);
            }
        }
        Ok(Node::Obj(Span {
            start,
            len: doc.members.len() - start,
        }))
    }
}

/// The value of a number literal that [`Parser::number`] accepted, in the form `numbers`
/// compares.
fn number_value(literal: &[u8], numbers: Numbers) -> Number {
    let neg = literal[0] == b'-';
    let body = &literal[neg as usize..];
    let int_len = body.iter().take_while(|d| d.is_ascii_digit()).count();
    let int_part = &body[..int_len];
    let mut rest = &body[int_len..];
    let mut frac: &[u8] = &[];
    if rest.first() == Some(&b'.') {
        let n = rest[1..].iter().take_while(|d| d.is_ascii_digit()).count();
        frac = &rest[1..1 + n];
        rest = &rest[1 + n..];
    }
    let has_exp = !rest.is_empty();
    let (exp_neg, exp_digits) = match rest.get(1) {
        Some(b'-') => (true, &rest[2..]),
        Some(b'+') => (false, &rest[2..]),
        _ => (false, rest.get(1..).unwrap_or(&[])),
    };
    match numbers {
        Numbers::Strict if frac.is_empty() && !has_exp => Number::Int {
            neg: neg && int_part.iter().any(|&d| d != b'0'),
            digits: make_digits(int_part.iter().copied()),
        },
        Numbers::Strict => {
            // Rust's parse rounds correctly, like Python's float(); a literal is ASCII.
            let f: f64 = std::str::from_utf8(literal)
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(f64::NAN);
            Number::Float(f.to_bits())
        }
        Numbers::Value => decimal(neg, int_part, frac, exp_neg, exp_digits),
    }
}

fn make_digits(it: impl Iterator<Item = u8> + Clone) -> Digits {
    let mut it = it.skip_while(|&d| d == b'0');
    let mut v = 0u128;
    let mut count = 0usize;
    for d in it.by_ref() {
        v = v * 10 + (d - b'0') as u128;
        count += 1;
        if count == 38 {
            break;
        }
    }
    match it.next() {
        None => Digits::Small(v),
        Some(next) => {
            // More than 38 digits: keep them all as text.
            let mut digits = v.to_string().into_bytes();
            digits.push(next);
            digits.extend(it);
            Digits::Big(digits.into_boxed_slice())
        }
    }
}

/// The one representation of zero, whatever its sign or exponent.
fn decimal_zero() -> Number {
    Number::Decimal {
        neg: false,
        digits: Digits::Small(0),
        exp: Exp::Small(0),
    }
}

/// `v` without its trailing decimal zeros, and how many there were.
fn strip_trailing_zeros(v: u128) -> (u128, i64) {
    // In u64 arithmetic when the value fits: u128 division is a library call.
    if let Ok(mut x) = u64::try_from(v) {
        let mut trail = 0;
        while x % 10 == 0 {
            x /= 10;
            trail += 1;
        }
        return (x as u128, trail);
    }
    let (mut x, mut trail) = (v, 0);
    while x % 10 == 0 {
        x /= 10;
        trail += 1;
    }
    (x, trail)
}

fn decimal(neg: bool, int_part: &[u8], frac: &[u8], exp_neg: bool, exp_digits: &[u8]) -> Number {
    if int_part.len() + frac.len() <= 38 {
        // Common case: every digit fits in a u128; strip the trailing zeros arithmetically.
        let v = int_part
            .iter()
            .chain(frac)
            .fold(0u128, |acc, &d| acc * 10 + (d - b'0') as u128);
        if v == 0 {
            return decimal_zero();
        }
        let (v, trail) = strip_trailing_zeros(v);
        return Number::Decimal {
            neg,
            digits: Digits::Small(v),
            exp: Exp::from_literal(exp_neg, exp_digits, trail - frac.len() as i64),
        };
    }
    let all = int_part.iter().chain(frac.iter()).copied();
    let lead = all.clone().take_while(|&d| d == b'0').count();
    let total = int_part.len() + frac.len();
    if lead == total {
        return decimal_zero();
    }
    let trail = all.clone().rev().take_while(|&d| d == b'0').count();
    let sig = all.skip(lead).take(total - lead - trail);
    Number::Decimal {
        neg,
        digits: make_digits(sig),
        exp: Exp::from_literal(exp_neg, exp_digits, trail as i64 - frac.len() as i64),
    }
}

/// Why a streaming comparison stopped early.
enum Stop {
    /// Valid so far, but different from the expected value.
    Differs,
    /// Not valid JSON.
    Invalid,
}

impl From<(usize, &'static str)> for Stop {
    fn from(_: (usize, &'static str)) -> Stop {
        Stop::Invalid
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    Unseen,
    Same,
    Different,
}

impl Document<'_> {
    /// Whether `actual` is a valid document equal to this one. An invalid `actual` simply
    /// does not match.
    ///
    /// `actual` is compared while it is read, against the already canonical tree, so no tree
    /// is built for it. A difference inside an object member cannot end the work at once,
    /// because a later duplicate of that key (the last occurrence wins) may replace it: the
    /// member is marked and its value skipped, and the object is decided at its closing brace.
    pub fn matches(&self, actual: &[u8]) -> bool {
        let mut c = Comparer {
            p: Parser {
                src: actual,
                pos: 0,
            },
            doc: self,
        };
        c.p.skip_ws();
        if c.eq_value(&self.root, 0).is_err() {
            return false;
        }
        c.p.skip_ws();
        c.p.pos == actual.len()
    }

    /// The canonical text: compact, keys sorted, numbers in the mode's canonical form. Two
    /// documents are equal exactly when their canonical texts are equal.
    pub fn canonical(&self) -> String {
        let mut out = Vec::new();
        self.write_node(&self.root, &mut out);
        // Every byte written is ASCII or copied from generalized UTF-8 with surrogates escaped.
        String::from_utf8(out)
            .unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned())
    }

    fn write_node(&self, node: &Node<'_>, out: &mut Vec<u8>) {
        match node {
            Node::Null => out.extend_from_slice(b"null"),
            Node::Bool(true) => out.extend_from_slice(b"true"),
            Node::Bool(false) => out.extend_from_slice(b"false"),
            Node::Num(literal) => write_number(&number_value(literal, self.numbers), out),
            Node::Str(s) => write_string(s, out),
            Node::Arr(span) => {
                out.push(b'[');
                for (i, item) in span.of(&self.items).iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    self.write_node(item, out);
                }
                out.push(b']');
            }
            Node::Obj(span) => {
                out.push(b'{');
                for (i, (k, v)) in span.of(&self.members).iter().enumerate() {
                    if i > 0 {
                        out.push(b',');
                    }
                    write_string(k, out);
                    out.push(b':');
                    self.write_node(v, out);
                }
                out.push(b'}');
            }
        }
    }
}

/// Reads the actual side against an expected [`Document`].
struct Comparer<'a, 'd> {
    p: Parser<'a>,
    doc: &'d Document<'d>,
}

impl Comparer<'_, '_> {
    fn eq_value(&mut self, exp: &Node<'_>, depth: usize) -> Result<(), Stop> {
        let p = &mut self.p;
        match (p.peek(), exp) {
            (Some(b'{'), Node::Obj(span)) => self.eq_object(*span, depth + 1),
            (Some(b'['), Node::Arr(span)) => self.eq_array(*span, depth + 1),
            (Some(b'"'), Node::Str(want)) => {
                let got = p.string()?;
                if got.as_ref() == want.as_ref() {
                    Ok(())
                } else {
                    Err(Stop::Differs)
                }
            }
            (Some(b'-' | b'0'..=b'9'), Node::Num(want)) => {
                // The same literal is the same number; otherwise compare values.
                let got = p.number()?;
                let numbers = self.doc.numbers;
                if got == *want || number_value(got, numbers) == number_value(want, numbers) {
                    Ok(())
                } else {
                    Err(Stop::Differs)
                }
            }
            (Some(b't' | b'f' | b'n'), Node::Bool(_) | Node::Null) => {
                let same = match (p.literal()?, exp) {
                    (Node::Null, Node::Null) => true,
                    (Node::Bool(got), Node::Bool(want)) => got == *want,
                    _ => false,
                };
                if same {
                    Ok(())
                } else {
                    Err(Stop::Differs)
                }
            }
            _ => Err(Stop::Differs),
        }
    }

    fn eq_array(&mut self, span: Span, depth: usize) -> Result<(), Stop> {
        let items = span.of(&self.doc.items);
        if self.p.open(b']', depth)? {
            return if items.is_empty() {
                Ok(())
            } else {
                Err(Stop::Differs)
            };
        }
        for (i, item) in items.iter().enumerate() {
            self.p.skip_ws();
            self.eq_value(item, depth)?;
            if self.p.next_element(b']')? {
                return if i + 1 == items.len() {
                    Ok(())
                } else {
                    Err(Stop::Differs)
                };
            }
        }
        Err(Stop::Differs) // more items than expected
    }

    fn eq_object(&mut self, span: Span, depth: usize) -> Result<(), Stop> {
        let members = span.of(&self.doc.members);
        if self.p.open(b'}', depth)? {
            return if members.is_empty() {
                Ok(())
            } else {
                Err(Stop::Differs)
            };
        }
        let mut inline = [Member::Unseen; 16];
        let mut heap = Vec::new();
        let state: &mut [Member] = if members.len() <= inline.len() {
            &mut inline[..members.len()]
        } else {
            heap.resize(members.len(), Member::Unseen);
            &mut heap
        };
        let mut extra_key = false;
        loop {
            let key = self.p.key()?;
            let start = self.p.pos;
            match members.binary_search_by(|(k, _)| k.as_ref().cmp(key.as_ref())) {
                Ok(j) => match self.eq_value(&members[j].1, depth) {
                    Ok(()) => state[j] = Member::Same,
                    Err(Stop::Differs) => {
                        self.p.pos = start;
                        self.p.skip_value(depth)?;
                        state[j] = Member::Different;
                    }
                    Err(Stop::Invalid) => return Err(Stop::Invalid),
                },
                Err(_) => {
                    self.p.skip_value(depth)?;
                    extra_key = true;
                }
            }
            if self.p.next_element(b'}')? {
                let all_same = state.iter().all(|&m| m == Member::Same);
                return if all_same && !extra_key {
                    Ok(())
                } else {
                    Err(Stop::Differs)
                };
            }
        }
    }
}

impl Parser<'_> {
    /// Read past one value, checking it is valid JSON, without building anything.
    fn skip_value(&mut self, depth: usize) -> PResult<()> {
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

fn write_string(s: &[u8], out: &mut Vec<u8>) {
    out.push(b'"');
    let mut i = 0;
    while i < s.len() {
        let b = s[i];
        match b {
            b'"' => out.extend_from_slice(b"\\\""),
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            b'\t' => out.extend_from_slice(b"\\t"),
            0x08 => out.extend_from_slice(b"\\b"),
            0x0C => out.extend_from_slice(b"\\f"),
            0x00..=0x1F => out.extend_from_slice(format!("\\u{:04x}", b).as_bytes()),
            // A lone surrogate (ED A0..BF xx) cannot stand in UTF-8 text: escape it.
            0xED if s.get(i + 1).is_some_and(|&n| n >= 0xA0) && i + 2 < s.len() => {
                let cp = ((b as u32 & 0x0F) << 12)
                    | ((s[i + 1] as u32 & 0x3F) << 6)
                    | (s[i + 2] as u32 & 0x3F);
                out.extend_from_slice(format!("\\u{:04x}", cp).as_bytes());
                i += 3;
                continue;
            }
            _ => out.push(b),
        }
        i += 1;
    }
    out.push(b'"');
}

fn digits_string(d: &Digits) -> String {
    match d {
        Digits::Small(v) => v.to_string(),
        Digits::Big(b) => String::from_utf8_lossy(b).into_owned(),
    }
}

fn write_number(n: &Number, out: &mut Vec<u8>) {
    match n {
        Number::Int { neg, digits } => {
            if *neg {
                out.push(b'-');
            }
            out.extend_from_slice(digits_string(digits).as_bytes());
        }
        Number::Float(bits) => {
            out.extend_from_slice(python_float_repr(f64::from_bits(*bits)).as_bytes())
        }
        Number::Decimal { neg, digits, exp } => {
            if *neg {
                out.push(b'-');
            }
            let d = digits_string(digits);
            out.extend_from_slice(decimal_text(&d, exp).as_bytes());
        }
    }
}

/// Text of digits × 10^exp (digits without leading or trailing zeros, or "0").
fn decimal_text(d: &str, exp: &Exp) -> String {
    if d == "0" {
        return "0".to_string();
    }
    let n = d.len() as i64;
    if let Exp::Small(exp) = *exp {
        // Where the decimal point falls; i128, as an exponent may be any i64.
        let point = n as i128 + exp as i128;
        if exp >= 0 && point <= 21 {
            return format!("{d}{}", "0".repeat(exp as usize));
        }
        if exp < 0 && point > -6 && point <= 21 {
            return if point > 0 {
                format!("{}.{}", &d[..point as usize], &d[point as usize..])
            } else {
                format!("0.{}{d}", "0".repeat((-point) as usize))
            };
        }
    }
    let mantissa = if n > 1 {
        format!("{}.{}", &d[..1], &d[1..])
    } else {
        d.to_string()
    };
    let (neg, e) = exp.text_plus(n - 1);
    format!("{mantissa}e{}{e}", if neg { '-' } else { '+' })
}

/// Python's `repr(float)` as `json.dumps` writes it (`Infinity` for infinities).
pub fn python_float_repr(x: f64) -> String {
    if x.is_infinite() {
        return if x > 0.0 { "Infinity" } else { "-Infinity" }.to_string();
    }
    if x.is_nan() {
        return "NaN".to_string();
    }
    // `{:e}` gives the shortest digits that round-trip; when two such digit strings are equally
    // close, Python keeps the even last digit, which the correctly rounded `{:.N$e}` gives.
    let shortest = format!("{:e}", x.abs());
    let n_digits = shortest
        .split('e')
        .next()
        .map_or(1, |m| m.chars().filter(char::is_ascii_digit).count());
    let exact = format!("{:.*e}", n_digits.saturating_sub(1), x.abs());
    let sci = if exact.parse::<f64>() == Ok(x.abs()) {
        exact
    } else {
        shortest
    };
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let exp: i64 = exp.parse().unwrap_or(0);
    let digits: String = mant.chars().filter(|c| *c != '.').collect();
    let n = digits.len() as i64;
    let point = exp + 1;
    let sign = if x.is_sign_negative() { "-" } else { "" };
    let body = if !(-4 < point && point <= 16) {
        let m = if n > 1 {
            format!("{}.{}", &digits[..1], &digits[1..])
        } else {
            digits.clone()
        };
        let e = point - 1;
        format!("{m}e{}{:02}", if e < 0 { '-' } else { '+' }, e.abs())
    } else if point <= 0 {
        format!("0.{}{digits}", "0".repeat((-point) as usize))
    } else if point >= n {
        format!("{digits}{}.0", "0".repeat((point - n) as usize))
    } else {
        format!(
            "{}.{}",
            &digits[..point as usize],
            &digits[point as usize..]
        )
    };
    format!("{sign}{body}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn canon(s: &str, n: Numbers) -> String {
        parse(s.as_bytes(), n).unwrap().canonical()
    }

    fn eq(a: &str, b: &str, n: Numbers) -> bool {
        parse(a.as_bytes(), n).unwrap().matches(b.as_bytes())
    }

    #[test]
    fn value_mode_numbers() {
        let v = Numbers::Value;
        assert!(eq("1", "1.0", v));
        assert!(eq("1", "1e0", v));
        assert!(eq("1", "0.1e1", v));
        assert!(eq("100", "1E2", v));
        assert!(eq("-0", "0.0", v));
        assert!(eq("0", "0e99999999999999999999", v));
        assert!(eq(
            "1e9999999999999999999999999",
            "10e9999999999999999999999998",
            v
        ));
        assert!(!eq(
            "1e9999999999999999999999999",
            "1e9999999999999999999999998",
            v
        ));
        assert!(eq(
            "1e-99999999999999999999",
            "0.1e-99999999999999999998",
            v
        ));
        assert_eq!(
            canon("12e99999999999999999999", v),
            "1.2e+100000000000000000000"
        );
        assert!(!eq("9007199254740993", "9007199254740992", v));
        assert!(!eq("true", "1", v));
        assert_eq!(
            canon("[1.50, 0.001, 1e30, -2.5e-9, 0]", v),
            "[1.5,0.001,1e+30,-2.5e-9,0]"
        );
        let big = "123456789012345678901234567890123456789012345";
        assert_eq!(
            canon(big, v),
            "1.23456789012345678901234567890123456789012345e+44"
        );
    }

    #[test]
    fn exponents_near_the_i64_limits_have_one_form() {
        let v = Numbers::Value;
        assert!(eq("10e999999999999999999", "1e1000000000000000000", v));
        assert!(eq("-10e999999999999999999", "-1e1000000000000000000", v));
        assert!(eq("1e-1000000000000000000", "0.1e-999999999999999999", v));
        assert!(eq("1e9223372036854775807", "10e9223372036854775806", v));
        assert!(eq("1e9223372036854775808", "10e9223372036854775807", v));
        assert!(eq("1e-9223372036854775808", "0.1e-9223372036854775807", v));
        assert!(eq("1e-9223372036854775809", "0.1e-9223372036854775808", v));
        assert!(!eq("1e9223372036854775808", "1e9223372036854775807", v));
        for (e, want) in [
            ("9223372036854775807", Exp::Small(i64::MAX)),
            ("0009223372036854775807", Exp::Small(i64::MAX)),
        ] {
            assert_eq!(Exp::from_literal(false, e.as_bytes(), 0), want);
        }
        assert_eq!(
            Exp::from_literal(true, b"9223372036854775808", 0),
            Exp::Small(i64::MIN)
        );
        assert!(matches!(
            Exp::from_literal(false, b"9223372036854775808", 0),
            Exp::Big { .. }
        ));
        for (text, want) in [
            ("1e9223372036854775807", "1e+9223372036854775807"),
            ("-1e9223372036854775807", "-1e+9223372036854775807"),
            ("12e9223372036854775807", "1.2e+9223372036854775808"),
            ("1e-9223372036854775808", "1e-9223372036854775808"),
            ("123e-9223372036854775808", "1.23e-9223372036854775806"),
            ("[10e999999999999999999]", "[1e+1000000000000000000]"),
        ] {
            assert_eq!(canon(text, v), want, "{text}");
        }
    }

    #[test]
    fn float_repr_breaks_ties_to_even() {
        assert_eq!(python_float_repr(1e15 + 0.25), "1000000000000000.2");
        assert_eq!(python_float_repr(0.1), "0.1");
        assert_eq!(python_float_repr(5e-324), "5e-324");
    }

    #[test]
    fn strict_mode_follows_python_json() {
        let s = Numbers::Strict;
        assert!(!eq("1", "1.0", s));
        assert!(eq("1.0", "1e0", s));
        assert_eq!(
            canon("[1.0, 1e16, 1e15, 0.0001, 0.00001, -0.0, 1e400, -0]", s),
            "[1.0,1e+16,1000000000000000.0,0.0001,1e-05,-0.0,Infinity,0]"
        );
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

    #[test]
    fn strings_unescape_and_escape() {
        let v = Numbers::Value;
        assert!(eq(r#""caf\u00e9""#, "\"café\"", v));
        assert!(eq(r#""\ud83d\ude00""#, "\"😀\"", v));
        assert_eq!(
            canon(r#""a\"\\\n\u0001\ud800/""#, v),
            r#""a\"\\\n\u0001\ud800/""#
        );
    }

    #[test]
    fn streaming_compare_agrees_with_full_parse() {
        let docs = [
            r#"{"a": 1, "b": [1, 2, {"c": null}]}"#,
            r#"{"b": [1, 2, {"c": null}], "a": 1.0}"#,
            r#"{"a": 1, "a": 2, "b": [1, 2, {"c": null}]}"#,
            r#"{"a": 2, "b": [1, 2, {"c": null}], "a": 1}"#,
            r#"{"a": 1, "b": [1, 2, {"c": null}], "x": 0}"#,
            r#"{"a": 1, "b": [1, 2]}"#,
            r#"{"a": 1, "b": [1, 2, {"c": null}]} x"#,
            r#"{"a": 1, "b": [1, 2, {"c": false}]}"#,
            r#"[]"#,
            r#"{}"#,
            r#""a""#,
        ];
        for n in [Numbers::Value, Numbers::Strict] {
            for e in docs {
                let Ok(exp) = parse(e.as_bytes(), n) else {
                    continue;
                };
                for a in docs {
                    let full =
                        parse(a.as_bytes(), n).is_ok_and(|d| d.canonical() == exp.canonical());
                    assert_eq!(exp.matches(a.as_bytes()), full, "{e} vs {a}");
                }
            }
        }
    }

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
