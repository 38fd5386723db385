//! `jsonl_text_columns`: the fast path of `evalmark score`'s JSONL reader. One call takes a
//! block of whole lines, cuts the next chunk of lines from it, and reads each line's two text
//! fields (and its id) straight into two column buffers (UTF-8 bytes plus offsets, the form of
//! a `TextColumn`), so the kernels read them without a Python string per row.
//!
//! It reads with the strict reader of `json_read.rs`, which gives up on anything it might
//! read differently from msgspec (escaped or repeated keys, lone surrogates, integers outside
//! `i64`, deep nesting). A chunk with any line it gives up on, or any line that is not an
//! object with the wanted fields of the wanted types, comes back without columns: the caller
//! reads those lines with msgspec, which reads them or says what is wrong, with file and line.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use crate::errors::EvalError;
use crate::json_read::{Parser, V};

/// Bytes Python's `bytes.isspace` counts as white space: a line of only these is blank.
fn blank(line: &[u8]) -> bool {
    line.iter()
        .all(|c| matches!(c, b' ' | b'\t' | b'\n' | b'\r' | 0x0b | 0x0c))
}

/// The cut of one chunk: the end of its last line, the lines passed, and each non-blank
/// line's span and 1-based number.
struct Cut {
    end: usize,
    lines: usize,
    spans: Vec<(usize, usize)>,
    numbers: Vec<i64>,
}

/// Lines from `start` until `max_lines` lines (blank ones included) or `max_bytes` bytes (at
/// least one line) are passed, as `evalmark._files.json_read.jsonl_batches` cuts them.
fn cut(block: &[u8], start: usize, max_lines: usize, max_bytes: usize, first_line: i64) -> Cut {
    let mut at = start;
    let mut out = Cut {
        end: start,
        lines: 0,
        spans: Vec::new(),
        numbers: Vec::new(),
    };
    while at < block.len() && out.lines < max_lines.max(1) {
        let end = block[at..]
            .iter()
            .position(|&c| c == b'\n')
            .map_or(block.len(), |i| at + i + 1);
        if !blank(&block[at..end]) {
            out.spans.push((at, end));
            out.numbers.push(first_line + out.lines as i64);
        }
        out.lines += 1;
        at = end;
        if at - start >= max_bytes {
            break;
        }
    }
    out.end = at;
    out
}

/// One row's id as read.
enum Id<'a> {
    Int(i64),
    Text(&'a str),
    Owned(String),
}

/// The two text columns and the ids of a chunk.
#[derive(Default)]
struct Columns<'a> {
    expected: (Vec<u8>, Vec<i64>),
    actual: (Vec<u8>, Vec<i64>),
    ids: Vec<Id<'a>>,
}

/// The names of the fields read.
struct Keys<'k> {
    expected: &'k str,
    actual: &'k str,
    id: Option<&'k str>,
}

/// Append the string value at the parser's place to `column`; None for another value.
fn push_text(p: &mut Parser<'_>, column: &mut (Vec<u8>, Vec<i64>)) -> Option<()> {
    if let Some(text) = p.plain_text() {
        column.0.extend_from_slice(text.as_bytes());
    } else {
        column.0.extend_from_slice(p.text()?.as_bytes());
    }
    column.1.push(column.0.len() as i64);
    Some(())
}

/// Read one line into `columns`; None (columns then unusable) when the line is not an object
/// holding both texts (and an id that is a string or an `i64`) read exactly as msgspec would.
fn read_line<'a>(line: &'a [u8], keys: &Keys<'_>, columns: &mut Columns<'a>) -> Option<()> {
    let mut p = Parser::new(line)?;
    let (mut seen_e, mut seen_a, mut seen_id) = (false, false, false);
    p.object(|p, key| {
        if key == keys.expected {
            seen_e = true;
            push_text(p, &mut columns.expected)
        } else if key == keys.actual {
            seen_a = true;
            push_text(p, &mut columns.actual)
        } else if Some(key) == keys.id {
            seen_id = true;
            if let Some(text) = p.plain_text() {
                columns.ids.push(Id::Text(text));
                return Some(());
            }
            match p.any()? {
                V::Int(i) => columns.ids.push(Id::Int(i)),
                V::Str(s) => columns.ids.push(Id::Owned(s)),
                _ => return None,
            }
            Some(())
        } else {
            p.any().map(|_| ())
        }
    })?;
    (p.at_end() && seen_e && seen_a && (seen_id || keys.id.is_none())).then_some(())
}

fn read_all<'a>(block: &'a [u8], spans: &[(usize, usize)], keys: &Keys<'_>) -> Option<Columns<'a>> {
    let mut columns = Columns::default();
    columns.expected.1.push(0);
    columns.actual.1.push(0);
    for &(start, end) in spans {
        read_line(&block[start..end], keys, &mut columns)?;
    }
    Some(columns)
}

fn id_list<'py>(py: Python<'py>, ids: &[Id<'_>]) -> PyResult<Bound<'py, PyList>> {
    let items = ids
        .iter()
        .map(|id| {
            Ok(match id {
                Id::Int(i) => i.into_pyobject(py)?.into_any(),
                Id::Text(s) => PyString::new(py, s).into_any(),
                Id::Owned(s) => PyString::new(py, s).into_any(),
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    PyList::new(py, items)
}

/// `jsonl_text_columns(block, start, max_lines, max_bytes, first_line, expected, actual,
/// id=None)`: the next chunk of the JSONL text `block` (whole lines) from byte `start`, cut as
/// `jsonl_batches` cuts it: `(end, lines, starts, ends, numbers, columns)`, where `end` is
/// where the chunk's last line ends, `lines` how many lines it passed, `starts`/`ends`/
/// `numbers` the spans and 1-based line numbers of its non-blank lines, and `columns` either
/// `(expected_data, expected_offsets, actual_data, actual_offsets, ids)` (ids None without
/// `id`) or None when some line must be read by msgspec instead.
#[pyfunction]
#[pyo3(
    signature = (block, start, max_lines, max_bytes, first_line, expected, actual, id = None),
    text_signature = "(block, start, max_lines, max_bytes, first_line, expected, actual, id=None)"
)]
#[allow(clippy::too_many_arguments)]
pub fn jsonl_text_columns<'py>(
    py: Python<'py>,
    block: Bound<'py, PyBytes>,
    start: usize,
    max_lines: usize,
    max_bytes: usize,
    first_line: i64,
    expected: &str,
    actual: &str,
    id: Option<&str>,
) -> PyResult<Bound<'py, PyTuple>> {
    let bytes = block.as_bytes();
    if start > bytes.len() {
        return Err(EvalError::input(format!(
            "start {start} lies past the end of the {}-byte block",
            bytes.len()
        ))
        .into());
    }
    let keys = Keys {
        expected,
        actual,
        id,
    };
    let (found, columns) = py.detach(|| {
        let found = cut(bytes, start, max_lines, max_bytes, first_line);
        let columns = read_all(bytes, &found.spans, &keys);
        (found, columns)
    });
    let starts: Vec<i64> = found.spans.iter().map(|s| s.0 as i64).collect();
    let ends: Vec<i64> = found.spans.iter().map(|s| s.1 as i64).collect();
    let columns = match columns {
        None => py.None().into_bound(py),
        Some(c) => {
            let ids = match id {
                Some(_) => id_list(py, &c.ids)?.into_any(),
                None => py.None().into_bound(py),
            };
            PyTuple::new(
                py,
                [
                    PyArray1::from_vec(py, c.expected.0).into_any(),
                    PyArray1::from_vec(py, c.expected.1).into_any(),
                    PyArray1::from_vec(py, c.actual.0).into_any(),
                    PyArray1::from_vec(py, c.actual.1).into_any(),
                    ids,
                ],
            )?
            .into_any()
        }
    };
    PyTuple::new(
        py,
        [
            found.end.into_pyobject(py)?.into_any(),
            found.lines.into_pyobject(py)?.into_any(),
            PyArray1::from_vec(py, starts).into_any(),
            PyArray1::from_vec(py, ends).into_any(),
            PyArray1::from_vec(py, found.numbers).into_any(),
            columns,
        ],
    )
}

/// Register the function.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(jsonl_text_columns, m)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    const KEYS: Keys<'static> = Keys {
        expected: "expected",
        actual: "actual",
        id: Some("id"),
    };

    #[test]
    fn cuts_like_jsonl_batches() {
        let block = b"{\"a\":1}\n \t\n\x0b\n{\"b\":2}\n{\"c\":3}";
        let c = cut(block, 0, 4, 1 << 20, 10);
        assert_eq!(c.spans, vec![(0, 8), (13, 21)]);
        assert_eq!(c.numbers, vec![10, 13]);
        assert_eq!((c.end, c.lines), (21, 4));
        let rest = cut(block, c.end, 4, 1 << 20, 14);
        assert_eq!((rest.spans, rest.end, rest.lines), (vec![(21, 28)], 28, 1));
        let small = cut(block, 0, 100, 1, 1);
        assert_eq!((small.end, small.lines), (8, 1));
    }

    #[test]
    fn reads_the_texts_and_ids() {
        let block =
            "{\"id\": 7, \"expected\": \"a\\nb\", \"x\": [1, {\"y\": null}], \"actual\": \"é\"}\n\
                     {\"actual\": \"\", \"expected\": \"q\", \"id\": \"k\"}\r\n";
        let c = cut(block.as_bytes(), 0, 10, 1 << 20, 1);
        let cols = read_all(block.as_bytes(), &c.spans, &KEYS).unwrap();
        assert_eq!(cols.expected, (b"a\nbq".to_vec(), vec![0, 3, 4]));
        assert_eq!(cols.actual, ("é".as_bytes().to_vec(), vec![0, 2, 2]));
        assert!(matches!(cols.ids[..], [Id::Int(7), Id::Text("k")]));
    }

    #[test]
    fn declines_what_msgspec_must_read() {
        for line in [
            &b"{\"expected\": \"a\", \"actual\": 1, \"id\": 1}"[..],
            b"{\"expected\": \"a\", \"id\": 1}",
            b"{\"expected\": \"a\", \"actual\": \"b\"}",
            b"{\"expected\": \"a\", \"actual\": \"b\", \"id\": 1.5}",
            b"{\"expected\": \"a\", \"actual\": \"b\", \"id\": true}",
            b"{\"expected\": \"a\", \"actual\": \"b\", \"id\": 1, \"id\": 2}",
            b"{\"expected\": \"\\ud800\", \"actual\": \"b\", \"id\": 1}",
            b"{\"expected\": \"a\", \"actual\": \"b\", \"id\": 1} x",
            b"{\"expected\": \"a\", \"actual\": \"b\", \"id\": 1,}",
            b"[1]",
            b"{\"expected\": \"\xff\", \"actual\": \"b\", \"id\": 1}",
        ] {
            let c = cut(line, 0, 10, 1 << 20, 1);
            assert!(
                read_all(line, &c.spans, &KEYS).is_none(),
                "{}",
                String::from_utf8_lossy(line)
            );
        }
    }
}
