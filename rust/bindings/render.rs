//! `fill_rows`: the long tables of a report written in one call. Each row takes one of a few
//! row forms (a `%`-style template chosen by the row's key) whose slots read the row's value
//! from one column each, escaping texts on the way (a Markdown table cell or HTML text), so a
//! table of 100,000 rows is one pass in Rust rather than an escaping pass and a formatting
//! pass over Python strings. The escaping rules are those of `evalmark.report._render.common`
//! (`cell`, `html_text`), character for character.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

use rustc_hash::FxHashMap;

use crate::errors::EvalError;
use crate::inputs::type_name;

/// The longest Markdown cell, in characters; a longer one is cut to this with an ellipsis.
const CELL_LIMIT: usize = 300;

/// One piece of a row form.
#[derive(Debug, Clone, PartialEq)]
enum Piece {
    /// Text written as it is.
    Fixed(String),
    /// `%s`: the slot's text as it is.
    Text,
    /// `%.0s`: the slot's value is not written (and not read).
    Skip,
    /// `%.Nf`: the slot's number with N decimals.
    Number(usize),
    /// `%C`: the slot's text as a Markdown table cell.
    Cell,
    /// `%H`: the slot's text escaped for HTML.
    Html,
    /// `%.NR`: `repr` of the slot's text cut to N characters with an ellipsis.
    Repr(usize),
}

/// The pieces of a row form and its slot count.
fn parse_form(form: &str) -> Result<(Vec<Piece>, usize), String> {
    let mut pieces = Vec::new();
    let mut fixed = String::new();
    let mut slots = 0;
    let mut chars = form.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '%' {
            fixed.push(c);
            continue;
        }
        let piece = match chars.next() {
            Some('%') => {
                fixed.push('%');
                continue;
            }
            Some('s') => Piece::Text,
            Some('C') => Piece::Cell,
            Some('H') => Piece::Html,
            Some('.') => {
                let mut digits = String::new();
                while let Some(d) = chars.peek().copied().filter(char::is_ascii_digit) {
                    digits.push(d);
                    chars.next();
                }
                let places: usize = digits
                    .parse()
                    .ok()
                    .filter(|p| *p <= 100_000)
                    .ok_or_else(|| format!("bad precision in row form {form:?}"))?;
                match chars.next() {
                    Some('f') => Piece::Number(places),
                    Some('R') if places > 0 => Piece::Repr(places),
                    Some('s') if places == 0 => Piece::Skip,
                    _ => return Err(format!("unknown slot in row form {form:?}")),
                }
            }
            _ => return Err(format!("unknown slot in row form {form:?}")),
        };
        if !fixed.is_empty() {
            pieces.push(Piece::Fixed(std::mem::take(&mut fixed)));
        }
        pieces.push(piece);
        slots += 1;
    }
    if !fixed.is_empty() {
        pieces.push(Piece::Fixed(fixed));
    }
    Ok((pieces, slots))
}

/// Python's `str.isspace()` (and `\s` of a `str` pattern).
fn is_py_space(c: char) -> bool {
    matches!(
        c,
        '\t' | '\n'
            | '\u{b}'
            | '\u{c}'
            | '\r'
            | '\u{1c}'..='\u{1f}'
            | ' '
            | '\u{85}'
            | '\u{a0}'
            | '\u{1680}'
            | '\u{2000}'..='\u{200a}'
            | '\u{2028}'
            | '\u{2029}'
            | '\u{202f}'
            | '\u{205f}'
            | '\u{3000}'
    )
}

/// The control characters `visible` shows as U+FFFD: C0 but tab, line feed and carriage
/// return, DEL and C1.
fn is_control(c: char) -> bool {
    matches!(c, '\0'..='\u{8}' | '\u{b}' | '\u{c}' | '\u{e}'..='\u{1f}' | '\u{7f}'..='\u{9f}')
}

/// Eight bytes at a time: a word read from a text, tested for bytes that need a look (each
/// test is nonzero when some byte of the word matches; never zero when one does).
const ONES: u64 = 0x0101_0101_0101_0101;
const HIGHS: u64 = 0x8080_8080_8080_8080;

/// Nonzero when a byte of `word` is zero.
#[inline(always)]
fn zero_byte(word: u64) -> u64 {
    word.wrapping_sub(ONES) & !word & HIGHS
}

/// Nonzero when a byte of `word` is `byte`.
#[inline(always)]
fn has_byte(word: u64, byte: u8) -> u64 {
    zero_byte(word ^ (ONES * u64::from(byte)))
}

/// Nonzero when a byte of `word` is below `limit` (at most 0x80).
#[inline(always)]
fn has_below(word: u64, limit: u8) -> u64 {
    word.wrapping_sub(ONES * u64::from(limit)) & !word & HIGHS
}

/// The first position from `at` of a word of eight bytes in which `busy` finds a byte to look
/// at (or of the last bytes, fewer than eight): the bytes before it are passed over eight at a
/// time. A caller that reads characters there needs `busy` to flag every word holding a
/// non-ASCII byte (the position then stays on a character boundary).
#[inline(always)]
fn skip_quiet(bytes: &[u8], mut at: usize, busy: impl Fn(u64) -> u64) -> usize {
    while let Some(Ok(word)) = bytes.get(at..at + 8).map(<[u8; 8]>::try_from) {
        if busy(u64::from_le_bytes(word)) != 0 {
            break;
        }
        at += 8;
    }
    at
}

/// A word that may hold a byte a Markdown cell escapes (`& < > |`).
#[inline(always)]
fn cell_busy(word: u64) -> u64 {
    has_byte(word, b'&') | has_byte(word, b'<') | has_byte(word, b'>') | has_byte(word, b'|')
}

/// A word that may hold a byte HTML text escapes or replaces (a control, DEL, `& < > " '`,
/// 0xC2: the first byte of a C1 control).
#[inline(always)]
fn html_busy(word: u64) -> u64 {
    has_byte(word, 0xc2)
        | has_below(word, 0x20)
        | has_byte(word, 0x7f)
        | has_byte(word, b'&')
        | has_byte(word, b'<')
        | has_byte(word, b'>')
        | has_byte(word, b'"')
        | has_byte(word, b'\'')
}

/// A word that may hold a byte `repr` writes otherwise (a control, DEL, a backslash, the
/// quote) or a non-ASCII byte.
#[inline(always)]
fn repr_busy(word: u64, quote: u8) -> u64 {
    (word & HIGHS)
        | has_below(word, 0x20)
        | has_byte(word, 0x7f)
        | has_byte(word, b'\\')
        | has_byte(word, quote)
}

/// The bytes a Markdown cell escapes: `& < > |`.
const CELL_STOP: [bool; 256] = {
    let mut table = [false; 256];
    table[b'&' as usize] = true;
    table[b'<' as usize] = true;
    table[b'>' as usize] = true;
    table[b'|' as usize] = true;
    table
};

/// Whether `text` is one line a cell keeps as it is but for escaping: no whitespace other
/// than single spaces inside, no control, at most 300 characters (tested without a branch per
/// byte where the text is ASCII: spaces fall at random places in a text).
fn is_simple_line(text: &str) -> bool {
    let bytes = text.as_bytes();
    if bytes.first() == Some(&b' ') || bytes.last() == Some(&b' ') {
        return false;
    }
    let (odd, high) = bytes.iter().fold((0u8, 0u8), |(odd, high), b| {
        (odd | u8::from(*b < 0x20 || *b == 0x7f), high | (b & 0x80))
    });
    let doubled = bytes.windows(2).fold(0u8, |acc, w| {
        acc | (u8::from(w[0] == b' ') & u8::from(w[1] == b' '))
    });
    if odd | doubled != 0 {
        return false;
    }
    if high == 0 {
        return bytes.len() <= CELL_LIMIT;
    }
    let mut count = 0;
    for c in text.chars() {
        if !c.is_ascii() && (is_py_space(c) || is_control(c)) {
            return false;
        }
        count += 1;
    }
    count <= CELL_LIMIT
}

/// The bytes that end a run copied as it is into HTML text: controls but tab, line feed and
/// carriage return, DEL, `& < > " '`, and 0xC2 (the first byte of a C1 control).
const HTML_STOP: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        table[b] = (b < 0x20 && !matches!(b as u8, b'\t' | b'\n' | b'\r'))
            || b == 0x7f
            || b == 0xc2
            || matches!(b as u8, b'&' | b'<' | b'>' | b'"' | b'\'');
        b += 1;
    }
    table
};

/// `cell(text, 300)`: one line (each run of whitespace one space, the ends trimmed), controls
/// shown as U+FFFD, cut to 300 characters with an ellipsis, `& < > |` escaped. `line` is
/// scratch space.
fn push_cell(out: &mut String, line: &mut String, text: &str) {
    if is_simple_line(text) {
        escape_cell(out, text);
        return;
    }
    line.clear();
    let mut space = false;
    let mut start = 0;
    for (at, c) in text.char_indices() {
        let ordinary = !is_py_space(c) && !is_control(c);
        if ordinary && !space {
            continue;
        }
        if ordinary {
            // the first character after whitespace
            if !line.is_empty() {
                line.push(' ');
            }
            space = false;
            start = at;
            continue;
        }
        if !space {
            line.push_str(&text[start..at]);
        }
        if is_py_space(c) {
            space = true;
        } else {
            if space && !line.is_empty() {
                line.push(' ');
            }
            space = false;
            line.push('\u{fffd}');
        }
        start = at + c.len_utf8();
    }
    if !space {
        line.push_str(&text[start..]);
    }
    if line.len() > CELL_LIMIT && line.chars().count() > CELL_LIMIT {
        let end = line
            .char_indices()
            .nth(CELL_LIMIT - 1)
            .map_or(line.len(), |(at, _)| at);
        escape_cell(out, &line[..end]);
        out.push('…');
    } else {
        escape_cell(out, line);
    }
}

/// `text` (one line, no control) with `& < > |` escaped.
fn escape_cell(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        at = skip_quiet(bytes, at, cell_busy);
        let Some(&b) = bytes.get(at) else { break };
        at += 1;
        if !CELL_STOP[b as usize] {
            continue;
        }
        let swap = match b {
            b'&' => "&amp;",
            b'<' => "&lt;",
            b'>' => "&gt;",
            _ => "\\|",
        };
        out.push_str(&text[start..at - 1]);
        out.push_str(swap);
        start = at;
    }
    out.push_str(&text[start..]);
}

/// `html_text(text)`: controls shown as U+FFFD, then `html.escape(text, quote=True)`.
fn push_html(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut start = 0;
    let mut at = 0;
    while at < bytes.len() {
        at = skip_quiet(bytes, at, html_busy);
        let Some(&b) = bytes.get(at) else { break };
        if !HTML_STOP[b as usize] {
            at += 1;
            continue;
        }
        let (swap, width) = match b {
            b'&' => ("&amp;", 1),
            b'<' => ("&lt;", 1),
            b'>' => ("&gt;", 1),
            b'"' => ("&quot;", 1),
            b'\'' => ("&#x27;", 1),
            0xc2 if (0x80..0xa0).contains(&bytes[at + 1]) => ("\u{fffd}", 2),
            0xc2 => {
                at += 2;
                continue;
            }
            _ => ("\u{fffd}", 1),
        };
        out.push_str(&text[start..at]);
        out.push_str(swap);
        at += width;
        start = at;
    }
    out.push_str(&text[start..]);
}

/// The numbers written lately, by bits and places: a score column repeats few values.
struct Numbers {
    slots: Vec<(u64, usize, String)>,
}

impl Numbers {
    const SIZE: usize = 1024;

    fn new() -> Self {
        Numbers {
            slots: vec![(u64::MAX, usize::MAX, String::new()); Self::SIZE],
        }
    }

    /// `"%.{places}f" % value` as Python writes it.
    fn push(&mut self, out: &mut String, value: f64, places: usize) {
        use std::fmt::Write;
        let bits = value.to_bits();
        let hash = bits.wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ places as u64;
        let slot = &mut self.slots[(hash >> 54) as usize % Self::SIZE];
        if slot.0 != bits || slot.1 != places {
            slot.2.clear();
            if value.is_nan() {
                slot.2.push_str("nan");
            } else {
                // exact decimal expansion, ties to even: Python's rounding of the same value
                let _ = write!(slot.2, "{value:.places$}");
            }
            slot.0 = bits;
            slot.1 = places;
        }
        out.push_str(&slot.2);
    }
}

/// `repr(excerpt)` of texts: Python's quoting of a `str`, a non-ASCII character's
/// printability asked of Python once per character per call.
struct Quoter<'py> {
    py: Python<'py>,
    printable: FxHashMap<char, bool>,
}

impl<'py> Quoter<'py> {
    /// `repr(text if len(text) <= limit else text[:limit - 1] + "…")`.
    fn push(&mut self, out: &mut String, text: &str, limit: usize) -> PyResult<()> {
        let cut = if text.len() > limit && limit > 0 {
            text.char_indices().nth(limit).map(|_| {
                let end = text
                    .char_indices()
                    .nth(limit - 1)
                    .map_or(text.len(), |(at, _)| at);
                &text[..end]
            })
        } else {
            None
        };
        let body = cut.unwrap_or(text);
        let quote = if body.contains('\'') && !body.contains('"') {
            '"'
        } else {
            '\''
        };
        out.push(quote);
        self.push_body(out, body, quote)?;
        if cut.is_some() {
            out.push('…');
        }
        out.push(quote);
        Ok(())
    }

    fn push_body(&mut self, out: &mut String, text: &str, quote: char) -> PyResult<()> {
        use std::fmt::Write;
        let bytes = text.as_bytes();
        let quote_byte = if quote == '"' { b'"' } else { b'\'' };
        let mut start = 0;
        let mut at = 0;
        while at < bytes.len() {
            at = skip_quiet(bytes, at, |word| repr_busy(word, quote_byte));
            let Some(c) = text.get(at..).and_then(|rest| rest.chars().next()) else {
                break;
            };
            let here = at;
            at += c.len_utf8();
            let plain = if c.is_ascii() {
                (' '..='~').contains(&c) && c != '\\' && c != quote
            } else {
                self.is_printable(c)?
            };
            if plain {
                continue;
            }
            out.push_str(&text[start..here]);
            start = at;
            let _ = match c {
                '\\' => write!(out, "\\\\"),
                '\t' => write!(out, "\\t"),
                '\n' => write!(out, "\\n"),
                '\r' => write!(out, "\\r"),
                c if c == quote => write!(out, "\\{c}"),
                c if (c as u32) < 0x100 => write!(out, "\\x{:02x}", c as u32),
                c if (c as u32) < 0x10000 => write!(out, "\\u{:04x}", c as u32),
                c => write!(out, "\\U{:08x}", c as u32),
            };
        }
        out.push_str(&text[start..]);
        Ok(())
    }

    fn is_printable(&mut self, c: char) -> PyResult<bool> {
        if let Some(found) = self.printable.get(&c) {
            return Ok(*found);
        }
        let mut buffer = [0u8; 4];
        let text = PyString::new(self.py, c.encode_utf8(&mut buffer));
        let found: bool = text.call_method0("isprintable")?.extract()?;
        self.printable.insert(c, found);
        Ok(found)
    }
}

/// Why a row cannot be written: a typed error, or a text holding a lone surrogate.
enum Stop {
    Error(PyErr),
    Surrogate,
}

impl From<PyErr> for Stop {
    fn from(error: PyErr) -> Self {
        Stop::Error(error)
    }
}

/// A slot's text: the `str` itself, or `str(value)` for another value (as `%s` writes it).
fn text_of<'a>(value: &'a Bound<'_, PyAny>) -> Result<Cow<'a, str>, Stop> {
    match value.cast::<PyString>() {
        Ok(text) => text
            .to_str()
            .map(Cow::Borrowed)
            .map_err(|_| Stop::Surrogate),
        Err(_) => {
            let text = value.str()?;
            let owned = text.to_str().map_err(|_| Stop::Surrogate)?.to_owned();
            Ok(Cow::Owned(owned))
        }
    }
}

/// The row forms of a call, checked against its columns and keys.
fn checked_forms(
    forms: &[String],
    keys: &[usize],
    columns: &[Bound<'_, PyList>],
) -> PyResult<Vec<Vec<Piece>>> {
    let mut parsed = Vec::with_capacity(forms.len());
    for form in forms {
        let (pieces, slots) = parse_form(form).map_err(EvalError::Input)?;
        if slots > columns.len() {
            return Err(EvalError::Input(format!(
                "row form {form:?} has {slots} slots but {} columns were given",
                columns.len()
            ))
            .into());
        }
        parsed.push(pieces);
    }
    for (k, column) in columns.iter().enumerate() {
        if column.len() < keys.len() {
            return Err(EvalError::Input(format!(
                "column {k} has {} rows, fewer than the {} keys",
                column.len(),
                keys.len()
            ))
            .into());
        }
    }
    if let Some(bad) = keys.iter().find(|k| **k >= parsed.len()) {
        return Err(EvalError::Input(format!(
            "row key {bad} out of range for {} row forms",
            parsed.len()
        ))
        .into());
    }
    Ok(parsed)
}

/// `fill_rows(forms, keys, columns, before="", after="")`: row `r` written by the form
/// `forms[keys[r]]`, whose k-th slot reads `columns[k][r]`; rows joined by line feeds, the
/// whole between `before` and `after`. Slots: `%s` a text as it is (another value as `str`
/// writes it), `%C` a text as a Markdown table cell (`cell`), `%H` a text escaped for HTML
/// (`html_text`), `%.NR` `repr` of a text cut to N characters with an ellipsis, `%.Nf` a
/// number with N decimals, `%.0s` nothing (the value is not read); `%%` is a percent sign.
/// Returns None when a text read holds a lone surrogate (the caller writes those rows
/// itself), so a text returned holds none.
#[pyfunction]
#[pyo3(
    signature = (forms, keys, columns, before = "", after = ""),
    text_signature = "(forms, keys, columns, before='', after='')"
)]
pub fn fill_rows<'py>(
    py: Python<'py>,
    forms: Vec<String>,
    keys: Vec<usize>,
    columns: Vec<Bound<'py, PyList>>,
    before: &str,
    after: &str,
) -> PyResult<Option<Bound<'py, PyString>>> {
    let forms = checked_forms(&forms, &keys, &columns)?;
    let size = before.len() + after.len() + estimate(&forms, &keys, &columns);
    let mut writer = Writer::new(py, &forms, &columns);
    let mut out = String::with_capacity(size);
    out.push_str(before);
    for (row, key) in keys.iter().enumerate() {
        if row > 0 {
            out.push('\n');
        }
        match writer.row(&mut out, row, *key) {
            Ok(()) => {}
            Err(Stop::Surrogate) => return Ok(None),
            Err(Stop::Error(error)) => return Err(error),
        }
    }
    out.push_str(after);
    Ok(Some(PyString::new(py, &out)))
}

/// About the bytes the rows take: each form's fixed text, and each text slot's length in
/// characters (a number: 8), so that the text is rarely moved as it grows.
fn estimate(forms: &[Vec<Piece>], keys: &[usize], columns: &[Bound<'_, PyList>]) -> usize {
    let fixed: Vec<usize> = forms
        .iter()
        .map(|pieces| {
            pieces
                .iter()
                .map(|piece| match piece {
                    Piece::Fixed(text) => text.len(),
                    Piece::Number(_) => 8,
                    _ => 0,
                })
                .sum::<usize>()
                + 1
        })
        .collect();
    let mut total: usize = keys.iter().map(|key| fixed[*key]).sum();
    for (row, key) in keys.iter().enumerate() {
        let mut slot = 0;
        for piece in &forms[*key] {
            match piece {
                Piece::Fixed(_) => continue,
                Piece::Text | Piece::Cell | Piece::Html | Piece::Repr(_) => {
                    if let Ok(value) = columns[slot].get_item(row) {
                        total += value.len().unwrap_or(8);
                    }
                }
                Piece::Number(_) | Piece::Skip => {}
            }
            slot += 1;
        }
    }
    total + total / 16
}

/// `fill_each(forms, keys, columns)`: the rows of `fill_rows` as a list of texts, one per
/// row; None when a text read holds a lone surrogate.
#[pyfunction]
#[pyo3(text_signature = "(forms, keys, columns)")]
pub fn fill_each<'py>(
    py: Python<'py>,
    forms: Vec<String>,
    keys: Vec<usize>,
    columns: Vec<Bound<'py, PyList>>,
) -> PyResult<Option<Bound<'py, PyList>>> {
    let forms = checked_forms(&forms, &keys, &columns)?;
    let mut writer = Writer::new(py, &forms, &columns);
    let mut out = String::new();
    let mut rows = Vec::with_capacity(keys.len());
    for (row, key) in keys.iter().enumerate() {
        out.clear();
        match writer.row(&mut out, row, *key) {
            Ok(()) => rows.push(PyString::new(py, &out)),
            Err(Stop::Surrogate) => return Ok(None),
            Err(Stop::Error(error)) => return Err(error),
        }
    }
    Ok(Some(PyList::new(py, rows)?))
}

/// Writes rows: the forms, the columns and the scratch space of one call.
struct Writer<'a, 'py> {
    forms: &'a [Vec<Piece>],
    columns: &'a [Bound<'py, PyList>],
    line: String,
    numbers: Numbers,
    quoter: Quoter<'py>,
}

impl<'a, 'py> Writer<'a, 'py> {
    fn new(py: Python<'py>, forms: &'a [Vec<Piece>], columns: &'a [Bound<'py, PyList>]) -> Self {
        Writer {
            forms,
            columns,
            line: String::new(),
            numbers: Numbers::new(),
            quoter: Quoter {
                py,
                printable: FxHashMap::default(),
            },
        }
    }

    /// Row `row` by the form `key`.
    fn row(&mut self, out: &mut String, row: usize, key: usize) -> Result<(), Stop> {
        let mut slot = 0;
        for piece in &self.forms[key] {
            if let Piece::Fixed(text) = piece {
                out.push_str(text);
                continue;
            }
            let column = slot;
            slot += 1;
            if *piece == Piece::Skip {
                continue;
            }
            let value = self.columns[column].get_item(row)?;
            match piece {
                Piece::Number(places) => {
                    let number: f64 = value.extract().map_err(|_| {
                        Stop::Error(
                            EvalError::Type(format!(
                                "row {row} of column {column}: expected a number, got {}",
                                type_name(&value)
                            ))
                            .into(),
                        )
                    })?;
                    self.numbers.push(out, number, *places);
                }
                Piece::Text => out.push_str(&text_of(&value)?),
                Piece::Cell => push_cell(out, &mut self.line, &text_of(&value)?),
                Piece::Html => push_html(out, &text_of(&value)?),
                Piece::Repr(limit) => self.quoter.push(out, &text_of(&value)?, *limit)?,
                Piece::Fixed(_) | Piece::Skip => {}
            }
        }
        Ok(())
    }
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fill_rows, m)?)?;
    m.add_function(wrap_pyfunction!(fill_each, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(text: &str) -> String {
        let mut out = String::new();
        push_cell(&mut out, &mut String::new(), text);
        out
    }

    #[test]
    fn forms_parse_into_slots() {
        let (pieces, slots) = parse_form("| %C | %.3f |%.0s 100%%").unwrap();
        assert_eq!(slots, 3);
        assert_eq!(pieces[0], Piece::Fixed("| ".into()));
        assert_eq!(pieces[1], Piece::Cell);
        assert_eq!(pieces[3], Piece::Number(3));
        assert_eq!(pieces[5], Piece::Skip);
        assert_eq!(pieces[6], Piece::Fixed(" 100%".into()));
        assert!(parse_form("%d").is_err());
        assert!(parse_form("%.1s").is_err());
        assert!(parse_form("%.0R").is_err());
        assert_eq!(parse_form("%.80R").unwrap().0, vec![Piece::Repr(80)]);
        assert!(parse_form("%").is_err());
    }

    #[test]
    fn cells_are_one_escaped_line() {
        assert_eq!(cell("  a \t\n b|<c>&  "), "a b\\|&lt;c&gt;&amp;");
        assert_eq!(cell("\u{1}x\u{85}y"), "\u{fffd}x y");
        let long = "é".repeat(301);
        assert_eq!(cell(&long), format!("{}…", "é".repeat(299)));
        assert_eq!(cell(&"é".repeat(300)), "é".repeat(300));
    }

    #[test]
    fn words_flag_every_byte_that_needs_a_look() {
        // each byte value at each place of a word of plain letters
        for byte in 0..=255u8 {
            for place in 0..8 {
                let mut word = [b'a'; 8];
                word[place] = byte;
                let value = u64::from_le_bytes(word);
                let plain = byte.is_ascii() && byte >= 0x20 && byte != 0x7f;
                assert_eq!(cell_busy(value) == 0, !CELL_STOP[byte as usize]);
                assert!(html_busy(value) != 0 || !HTML_STOP[byte as usize]);
                assert_eq!(
                    repr_busy(value, b'\'') == 0,
                    plain && byte != b'\\' && byte != b'\''
                );
            }
        }
        // a word of quiet bytes is passed over, a busy one is not
        assert_eq!(skip_quiet(b"abcdefgh<jklmnopqr", 0, html_busy), 8);
        assert_eq!(skip_quiet(b"abcdefghijklmnopqr", 0, html_busy), 16);
    }

    #[test]
    fn escaping_reads_across_words() {
        let mut out = String::new();
        push_html(&mut out, "0123456789<abc>&\"'é\u{85}\u{1}xyz01234567");
        assert_eq!(
            out,
            "0123456789&lt;abc&gt;&amp;&quot;&#x27;é\u{fffd}\u{fffd}xyz01234567"
        );
        out.clear();
        escape_cell(&mut out, "abcdefgh|ijklmnop<q>&rstuvwxyz|");
        assert_eq!(out, "abcdefgh\\|ijklmnop&lt;q&gt;&amp;rstuvwxyz\\|");
    }

    #[test]
    fn numbers_round_as_python_does() {
        let mut out = String::new();
        let mut numbers = Numbers::new();
        for (value, places) in [(0.125, 2), (0.0625, 3), (2.5, 0), (1.0, 3), (-0.0, 2)] {
            numbers.push(&mut out, value, places);
            out.push(' ');
        }
        numbers.push(&mut out, f64::NAN, 2);
        assert_eq!(out, "0.12 0.062 2 1.000 -0.00 nan");
    }
}
