//! `csv_text_columns`: the fast path of `evalmark score`'s CSV reader. One call reads the next
//! chunk of records from a block of the file and copies the two text fields of each (and its
//! id) into two column buffers (UTF-8 bytes plus offsets, the form of a `TextColumn`).
//!
//! It reads only the plainest RFC 4180: `,` between fields, records ended by `\n` or `\r\n`,
//! fields either bare (no quote, carriage return or NUL inside) or quoted (`""` for a quote;
//! line feeds allowed), every record as wide as the header, valid UTF-8. On anything else it
//! gives up (`None`) and the caller reads the rest of the file with Python's `csv` module,
//! which reads it the same way or says what is wrong, with its line.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use crate::errors::EvalError;

/// One field: its bytes in the block, and whether they hold doubled quotes to undo.
#[derive(Clone, Copy)]
struct Field {
    start: usize,
    end: usize,
    quotes: bool,
}

/// What reading one record found.
enum Record {
    /// Its fields, where the next record starts, and the line feeds it spans.
    Read(usize, usize),
    /// The record runs past the end of the block (more of the file may finish it).
    Cut,
    /// Something the fast path leaves to Python's `csv` module.
    Other,
}

/// Read the record at `at` into `fields`.
fn record(b: &[u8], mut at: usize, fields: &mut Vec<Field>) -> Record {
    fields.clear();
    let mut feeds = 0;
    loop {
        if b.get(at) == Some(&b'"') {
            let start = at + 1;
            let mut i = start;
            let mut quotes = false;
            loop {
                match b.get(i) {
                    None => return Record::Cut,
                    Some(b'"') if b.get(i + 1) == Some(&b'"') => {
                        quotes = true;
                        i += 2;
                    }
                    Some(b'"') => break,
                    Some(b'\n') => {
                        feeds += 1;
                        i += 1;
                    }
                    Some(b'\r') if b.get(i + 1) != Some(&b'\n') => return Record::Other,
                    Some(0) => return Record::Other,
                    Some(_) => i += 1,
                }
            }
            fields.push(Field {
                start,
                end: i,
                quotes,
            });
            at = i + 1;
        } else {
            let start = at;
            while let Some(&c) = b.get(at) {
                if matches!(c, b',' | b'\n' | b'\r' | b'"' | 0) {
                    break;
                }
                at += 1;
            }
            fields.push(Field {
                start,
                end: at,
                quotes: false,
            });
        }
        match b.get(at) {
            Some(b',') => at += 1,
            Some(b'\n') => return Record::Read(at + 1, feeds + 1),
            Some(b'\r') if b.get(at + 1) == Some(&b'\n') => return Record::Read(at + 2, feeds + 1),
            None => return Record::Read(at, feeds + 1),
            _ => return Record::Other,
        }
    }
}

/// The columns read from a chunk.
#[derive(Default)]
struct Columns {
    expected: (Vec<u8>, Vec<i64>),
    actual: (Vec<u8>, Vec<i64>),
    ids: Vec<(usize, usize, bool)>,
    numbers: Vec<i64>,
}

fn push(b: &[u8], f: Field, column: &mut (Vec<u8>, Vec<i64>)) {
    let text = &b[f.start..f.end];
    if f.quotes {
        let mut i = 0;
        while i < text.len() {
            column.0.push(text[i]);
            i += if text[i] == b'"' { 2 } else { 1 };
        }
    } else {
        column.0.extend_from_slice(text);
    }
    column.1.push(column.0.len() as i64);
}

/// Where the chunk stopped: (end, next line, records passed, ran past the block).
type Stop = (usize, i64, usize, bool);

/// Which fields to read: (width, expected, actual, id).
type Wanted = (usize, usize, usize, Option<usize>);

fn read_chunk(
    b: &[u8],
    start: usize,
    max_records: usize,
    max_bytes: usize,
    mut line: i64,
    wanted: Wanted,
) -> Option<(Stop, Columns)> {
    let (width, e, a, id) = wanted;
    let mut c = Columns::default();
    c.expected.1.push(0);
    c.actual.1.push(0);
    let mut fields = Vec::with_capacity(width);
    let (mut at, mut records) = (start, 0);
    while at < b.len() && records < max_records.max(1) && at - start < max_bytes.max(1) {
        let blank = match b[at] {
            b'\n' => Some(1),
            b'\r' if b.get(at + 1) == Some(&b'\n') => Some(2),
            _ => None,
        };
        if let Some(n) = blank {
            at += n;
            line += 1;
            records += 1;
            continue;
        }
        match record(b, at, &mut fields) {
            Record::Read(next, feeds) => {
                if fields.len() != width || std::str::from_utf8(&b[at..next]).is_err() {
                    return None;
                }
                push(b, fields[e], &mut c.expected);
                push(b, fields[a], &mut c.actual);
                if let Some(i) = id {
                    let f = fields[i];
                    c.ids.push((f.start, f.end, f.quotes));
                }
                c.numbers.push(line);
                line += feeds as i64;
                records += 1;
                at = next;
            }
            Record::Cut => return Some(((at, line, records, true), c)),
            Record::Other => return None,
        }
    }
    Some(((at, line, records, false), c))
}

fn ids<'py>(
    py: Python<'py>,
    b: &[u8],
    spans: &[(usize, usize, bool)],
) -> PyResult<Bound<'py, PyList>> {
    let mut one = (Vec::new(), vec![0i64]);
    let items = spans.iter().map(|&(start, end, quotes)| {
        one.0.clear();
        one.1.truncate(1);
        push(b, Field { start, end, quotes }, &mut one);
        // The record was checked to be UTF-8, and a field starts and ends at ASCII bytes.
        PyString::new(py, std::str::from_utf8(&one.0).unwrap_or_default())
    });
    PyList::new(py, items.collect::<Vec<_>>())
}

/// `csv_text_columns(block, start, max_records, max_bytes, first_line, width, expected,
/// actual, id=None)`: the next chunk of CSV records of `block` from byte `start` (the line
/// there is `first_line`): up to `max_records` records (blank lines counted), fewer once
/// `max_bytes` are passed. Returns None when a record must be read by Python's `csv` module,
/// else `(end, next_line, records, cut, numbers, columns)`: where the chunk ends, the line
/// there, the records passed, whether a record ran past the end of the block (read more and
/// ask again), the first line of each non-blank record, and `(expected_data,
/// expected_offsets, actual_data, actual_offsets, ids)` of fields `expected`, `actual`, `id`.
#[pyfunction]
#[pyo3(
    signature = (block, start, max_records, max_bytes, first_line, width, expected, actual, id = None),
    text_signature = "(block, start, max_records, max_bytes, first_line, width, expected, actual, id=None)"
)]
#[allow(clippy::too_many_arguments)]
pub fn csv_text_columns<'py>(
    py: Python<'py>,
    block: Bound<'py, PyBytes>,
    start: usize,
    max_records: usize,
    max_bytes: usize,
    first_line: i64,
    width: usize,
    expected: usize,
    actual: usize,
    id: Option<usize>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let b = block.as_bytes();
    if start > b.len()
        || [Some(expected), Some(actual), id]
            .iter()
            .flatten()
            .any(|&i| i >= width)
    {
        return Err(EvalError::input(format!(
            "start {start} past the {}-byte block, or a field index not below the width {width}",
            b.len()
        ))
        .into());
    }
    let wanted = (width, expected, actual, id);
    let found = py.detach(|| read_chunk(b, start, max_records, max_bytes, first_line, wanted));
    let Some(((end, line, records, cut), c)) = found else {
        return Ok(None);
    };
    let ids = match id {
        Some(_) => ids(py, b, &c.ids)?.into_any(),
        None => py.None().into_bound(py),
    };
    let columns = PyTuple::new(
        py,
        [
            PyArray1::from_vec(py, c.expected.0).into_any(),
            PyArray1::from_vec(py, c.expected.1).into_any(),
            PyArray1::from_vec(py, c.actual.0).into_any(),
            PyArray1::from_vec(py, c.actual.1).into_any(),
            ids,
        ],
    )?;
    Ok(Some(PyTuple::new(
        py,
        [
            end.into_pyobject(py)?.into_any(),
            line.into_pyobject(py)?.into_any(),
            records.into_pyobject(py)?.into_any(),
            pyo3::types::PyBool::new(py, cut).to_owned().into_any(),
            PyArray1::from_vec(py, c.numbers).into_any(),
            columns.into_any(),
        ],
    )?))
}

/// Register the function.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(csv_text_columns, m)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(column: &(Vec<u8>, Vec<i64>)) -> Vec<String> {
        column
            .1
            .windows(2)
            .map(|w| String::from_utf8(column.0[w[0] as usize..w[1] as usize].to_vec()).unwrap())
            .collect()
    }

    #[test]
    fn reads_quoted_and_bare_fields() {
        let b = b"a,\"x \"\"y\"\"\nz\",k\r\n\n\"\",b,\"7\"\nlast,\xc3\xa9,q";
        let ((end, line, records, cut), c) =
            read_chunk(b, 0, 10, 1 << 20, 2, (3, 1, 0, Some(2))).unwrap();
        assert_eq!((end, line, records, cut), (b.len(), 7, 4, false));
        assert_eq!(text(&c.expected), ["x \"y\"\nz", "b", "é"]);
        assert_eq!(text(&c.actual), ["a", "", "last"]);
        assert_eq!(c.numbers, [2, 5, 6]);
        assert_eq!(c.ids.len(), 3);
    }

    #[test]
    fn stops_at_the_limits_and_at_a_cut_record() {
        let b = b"a,b\nc,d\ne,\"f\n";
        let ((end, line, records, cut), _) =
            read_chunk(b, 0, 1, 1 << 20, 2, (2, 0, 1, None)).unwrap();
        assert_eq!((end, line, records, cut), (4, 3, 1, false));
        let ((end, line, records, cut), c) =
            read_chunk(b, 0, 9, 1 << 20, 2, (2, 0, 1, None)).unwrap();
        assert_eq!(
            (end, line, records, cut, c.numbers),
            (8, 4, 2, true, vec![2, 3])
        );
    }

    #[test]
    fn declines_what_the_csv_module_must_read() {
        for b in [
            &b"a,b,c\n"[..],
            b"a\n",
            b"a\"b,c\n",
            b"\"a\"b,c\n",
            b"a\rb,c\n",
            b"\"a\rb\",c\n",
            b"a\0,c\n",
            b"\xff,c\n",
        ] {
            assert!(
                read_chunk(b, 0, 9, 1 << 20, 2, (2, 0, 1, None)).is_none(),
                "{b:?}"
            );
        }
    }
}
