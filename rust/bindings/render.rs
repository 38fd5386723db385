//! `fill_rows`: the long tables of a report written in one call. Each row takes one of a few
//! row forms (a `%`-style template chosen by the row's key) whose slots read the row's value
//! from one column each, escaping texts on the way (a Markdown table cell or HTML text), so a
//! table of 100,000 rows is one pass in Rust rather than an escaping pass and a formatting
//! pass over Python strings. The escaping rules are those of `evalmark.report._render.common`
//! (`cell`, `html_text`), character for character.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyString};

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
                    .filter(|p| *p <= 20)
                    .ok_or_else(|| format!("bad precision in row form {form:?}"))?;
                match chars.next() {
                    Some('f') => Piece::Number(places),
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

/// `cell(text, 300)`: one line (each run of whitespace one space, the ends trimmed), controls
/// shown as U+FFFD, cut to 300 characters with an ellipsis, `& < > |` escaped.
fn push_cell(out: &mut String, text: &str) {
    let mut line = String::with_capacity(text.len());
    let mut space = false;
    for c in text.chars() {
        if is_py_space(c) {
            space = true;
            continue;
        }
        if space && !line.is_empty() {
            line.push(' ');
        }
        space = false;
        line.push(if is_control(c) { '\u{fffd}' } else { c });
    }
    let mut shown = line.as_str();
    if line.len() > CELL_LIMIT && line.chars().count() > CELL_LIMIT {
        let end = line
            .char_indices()
            .nth(CELL_LIMIT - 1)
            .map_or(line.len(), |(at, _)| at);
        shown = &line[..end];
    }
    for c in shown.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '|' => out.push_str("\\|"),
            _ => out.push(c),
        }
    }
    if shown.len() < line.len() {
        out.push('…');
    }
}

/// `html_text(text)`: controls shown as U+FFFD, then `html.escape(text, quote=True)`.
fn push_html(out: &mut String, text: &str) {
    let bytes = text.as_bytes();
    let mut start = 0;
    for (at, c) in text.char_indices() {
        let swap = match c {
            '&' => "&amp;",
            '<' => "&lt;",
            '>' => "&gt;",
            '"' => "&quot;",
            '\'' => "&#x27;",
            c if is_control(c) => "\u{fffd}",
            _ => continue,
        };
        out.push_str(&text[start..at]);
        out.push_str(swap);
        start = at + c.len_utf8();
    }
    out.push_str(&text[start..bytes.len()]);
}

/// `"%.{places}f" % value` as Python writes it.
fn push_number(out: &mut String, value: f64, places: usize) {
    use std::fmt::Write;
    if value.is_nan() {
        out.push_str("nan");
    } else {
        // exact decimal expansion, ties to even: Python's rounding of the same binary value
        let _ = write!(out, "{value:.places$}");
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
        Ok(text) => text.to_str().map(Cow::Borrowed).map_err(|_| Stop::Surrogate),
        Err(_) => {
            let text = value.str()?;
            let owned = text.to_str().map_err(|_| Stop::Surrogate)?.to_owned();
            Ok(Cow::Owned(owned))
        }
    }
}

/// `fill_rows(forms, keys, columns, before="", after="")`: row `r` written by the form
/// `forms[keys[r]]`, whose k-th slot reads `columns[k][r]`; rows joined by line feeds, the
/// whole between `before` and `after`. Slots: `%s` a text as it is, `%C` a text as a
/// Markdown table cell (`cell`), `%H` a text escaped for HTML (`html_text`), `%.Nf` a number
/// with N decimals, `%.0s` nothing (the value is not read); `%%` is a percent sign. Returns
/// None when a text read holds a lone surrogate (the caller writes those rows itself), so a
/// text returned holds none.
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
    let mut parsed = Vec::with_capacity(forms.len());
    for form in &forms {
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
    let mut out = String::with_capacity(before.len() + after.len() + 64 * keys.len());
    out.push_str(before);
    match write_rows(&mut out, &parsed, &keys, &columns) {
        Ok(()) => {}
        Err(Stop::Surrogate) => return Ok(None),
        Err(Stop::Error(error)) => return Err(error),
    }
    out.push_str(after);
    Ok(Some(PyString::new(py, &out)))
}

fn write_rows(
    out: &mut String,
    forms: &[Vec<Piece>],
    keys: &[usize],
    columns: &[Bound<'_, PyList>],
) -> Result<(), Stop> {
    for (row, key) in keys.iter().enumerate() {
        if row > 0 {
            out.push('\n');
        }
        let mut slot = 0;
        for piece in &forms[*key] {
            if let Piece::Fixed(text) = piece {
                out.push_str(text);
                continue;
            }
            let column = slot;
            slot += 1;
            if *piece == Piece::Skip {
                continue;
            }
            let value = columns[column].get_item(row)?;
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
                    push_number(out, number, *places);
                }
                Piece::Text => out.push_str(&text_of(&value)?),
                Piece::Cell => push_cell(out, &text_of(&value)?),
                Piece::Html => push_html(out, &text_of(&value)?),
                Piece::Fixed(_) | Piece::Skip => {}
            }
        }
    }
    Ok(())
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(fill_rows, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cell(text: &str) -> String {
        let mut out = String::new();
        push_cell(&mut out, text);
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
    fn numbers_round_as_python_does() {
        let mut out = String::new();
        for (value, places) in [(0.125, 2), (0.0625, 3), (2.5, 0), (1.0, 3), (-0.0, 2)] {
            push_number(&mut out, value, places);
            out.push(' ');
        }
        push_number(&mut out, f64::NAN, 2);
        assert_eq!(out, "0.12 0.062 2 1.000 -0.00 nan");
    }
}
