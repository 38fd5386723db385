//! Retrieval measures over many queries at once (the kernel is `metrics/retrieval.rs`), read
//! straight from the queries' dicts: no Python list or array is built in between.

use std::ptr::null_mut;

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::ffi;
use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyString};

use crate::batch::{fill_rows, result_array, run_watched, Workers};
use crate::errors::EvalError;
use crate::inputs::{same_length, str_bytes, type_name};
use crate::metrics::retrieval::{evaluate, Measure, Query, Scratch};

fn parse_measures(kinds: &[String], cutoffs: &[i64]) -> Result<Vec<Measure>, EvalError> {
    if kinds.len() != cutoffs.len() {
        return Err(EvalError::input(
            "kinds and cutoffs must have the same length",
        ));
    }
    kinds
        .iter()
        .zip(cutoffs)
        .map(|(kind, &k)| {
            Measure::parse(kind, k).ok_or_else(|| {
                EvalError::input(format!(
                    "unknown retrieval measure {kind:?} with cutoff {k}"
                ))
            })
        })
        .collect()
}

fn span(offsets: &[i64], i: usize) -> std::ops::Range<usize> {
    offsets[i] as usize..offsets[i + 1] as usize
}

/// A worker's buffers: the kernel's, and query i's ids as slices of each side's bytes.
#[derive(Default)]
struct Views<'a> {
    kernel: Scratch,
    run_ids: Vec<&'a [u8]>,
    qrel_ids: Vec<&'a [u8]>,
}

/// The (queries, measures) matrix of the queries read into `runs` and `qrels`, on the pool
/// with the GIL released.
fn matrix<'py>(
    py: Python<'py>,
    runs: &Side<f64>,
    qrels: &Side<i64>,
    measures: &[Measure],
    relevance_level: i64,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let n = runs.offsets.len().saturating_sub(1);
    let width = measures.len();
    let size = runs
        .ends
        .len()
        .saturating_add(qrels.ends.len())
        .saturating_mul(8);
    let out = run_watched(py, workers, size, |stop, w| {
        let mut out = result_array(n.saturating_mul(width), "the result matrix")?;
        fill_rows(&mut out, width, w, stop, |s: &mut Views<'_>, i, row| {
            let (r, q) = (span(&runs.offsets, i), span(&qrels.offsets, i));
            runs.ids_into(r.clone(), &mut s.run_ids);
            qrels.ids_into(q.clone(), &mut s.qrel_ids);
            let query = Query {
                run_docs: &s.run_ids,
                run_scores: &runs.values[r],
                qrel_docs: &s.qrel_ids,
                qrel_rels: &qrels.values[q],
            };
            evaluate(&query, measures, relevance_level, &mut s.kernel, row);
            Ok(())
        })?;
        Ok(out)
    })?;
    PyArray1::from_vec(py, out).reshape([n, width])
}

/// One side (runs or qrels) of every query, read under the GIL into owned buffers: each
/// document id's bytes one after another (so the kernel reads them from one contiguous block,
/// not from Python objects scattered over the heap), each id's end, each value, and where each
/// query's ids start.
struct Side<T> {
    bytes: Vec<u8>,
    ends: Vec<usize>,
    values: Vec<T>,
    offsets: Vec<i64>,
}

impl<T> Side<T> {
    fn new() -> Self {
        Side {
            bytes: Vec::new(),
            ends: Vec::new(),
            values: Vec::new(),
            offsets: vec![0],
        }
    }

    /// The ids `ids` (indices into `ends`) as slices of `bytes`, into `out`.
    fn ids_into<'a>(&'a self, ids: std::ops::Range<usize>, out: &mut Vec<&'a [u8]>) {
        out.clear();
        let mut start = ids.start.checked_sub(1).map_or(0, |j| self.ends[j]);
        out.extend(self.ends[ids].iter().map(|&end| {
            let id = &self.bytes[start..end];
            start = end;
            id
        }));
    }
}

/// How one side reads a value: `fast` for the common exact type straight from the object
/// (`None` sends it to `slow`), `slow` for everything else (`None` is refused with `expected`).
struct ValueReader<'s, T> {
    what: &'s str,
    expected: &'s str,
    fast: fn(*mut ffi::PyObject) -> Option<T>,
    slow: fn(&Bound<'_, PyAny>) -> Option<T>,
}

/// A score of exact type `float` that is not NaN, rounded as [`score_of`] rounds it.
fn fast_score(v: *mut ffi::PyObject) -> Option<f64> {
    // SAFETY: `v` is a live object (the caller holds the GIL and the dict holding `v`); a
    // float's value is read without running Python code and cannot fail.
    let x = unsafe {
        if ffi::Py_TYPE(v) != &raw mut ffi::PyFloat_Type {
            return None;
        }
        ffi::PyFloat_AsDouble(v)
    };
    (!x.is_nan()).then_some(x as f32 as f64)
}

/// A judgment of exact type `int` that fits in 64 bits.
fn fast_judgment(v: *mut ffi::PyObject) -> Option<i64> {
    // SAFETY: as in `fast_score`; an int too large sets OverflowError, cleared here (the slow
    // path then refuses it with the usual message).
    unsafe {
        if ffi::Py_TYPE(v) != &raw mut ffi::PyLong_Type {
            return None;
        }
        let x = ffi::PyLong_AsLongLong(v);
        if x == -1 && !ffi::PyErr_Occurred().is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        Some(x)
    }
}

/// The UTF-8 bytes of an exact `str` without lone surrogates, borrowed from the object.
///
/// # Safety
/// `key` is a live object and the GIL is held; the bytes live as long as the object.
unsafe fn fast_key<'a>(key: *mut ffi::PyObject) -> Option<&'a [u8]> {
    // SAFETY: the caller's contract; a failed conversion's error is cleared here.
    unsafe {
        if ffi::Py_TYPE(key) != &raw mut ffi::PyUnicode_Type {
            return None;
        }
        let mut size: ffi::Py_ssize_t = 0;
        let data = ffi::PyUnicode_AsUTF8AndSize(key, &mut size);
        if data.is_null() {
            ffi::PyErr_Clear();
            return None;
        }
        Some(std::slice::from_raw_parts(data.cast::<u8>(), size as usize))
    }
}

/// Append query `i`'s dict `row` to `side`: exact `str` keys and values of the common exact
/// type are read straight from the dict's entries; any other key or value goes through the
/// checked path, which names what is wrong.
fn read_query<T>(
    row: &Bound<'_, PyAny>,
    i: usize,
    side: &mut Side<T>,
    reader: &ValueReader<'_, T>,
) -> PyResult<()> {
    let what = reader.what;
    let dict = row.cast::<PyDict>().map_err(|_| {
        EvalError::Type(format!(
            "{what} {i} must be a dict of document id to value, got {}",
            type_name(row)
        ))
    })?;
    let py = row.py();
    let (mut pos, mut key, mut value): (ffi::Py_ssize_t, _, _) = (0, null_mut(), null_mut());
    // SAFETY: the GIL is held throughout. PyDict_Next hands out borrowed references; the fast
    // paths run no Python code, so the dict cannot change under them, and the checked paths
    // take their own references before doing anything that might run Python code.
    while unsafe { ffi::PyDict_Next(dict.as_ptr(), &mut pos, &mut key, &mut value) } != 0 {
        match unsafe { fast_key(key) } {
            Some(id) => side.bytes.extend_from_slice(id),
            None => {
                let key = unsafe { Bound::from_borrowed_ptr(py, key) };
                let key = key.cast_into::<PyString>().map_err(|e| {
                    EvalError::Type(format!(
                        "{what} {i}: document ids must be str, got {}",
                        type_name(e.into_inner().as_any())
                    ))
                })?;
                side.bytes
                    .extend_from_slice(&str_bytes(key.as_any(), "a document id")?);
            }
        }
        side.ends.push(side.bytes.len());
        let v = match (reader.fast)(value) {
            Some(v) => v,
            None => {
                let value = unsafe { Bound::from_borrowed_ptr(py, value) };
                (reader.slow)(&value).ok_or_else(|| {
                    let start = side.ends.len().checked_sub(2).map_or(0, |j| side.ends[j]);
                    EvalError::input(format!(
                        "{what} {i}: the value of document {:?} must be {}, got {}",
                        String::from_utf8_lossy(&side.bytes[start..]),
                        reader.expected,
                        value_text(&value)
                    ))
                })?
            }
        };
        side.values.push(v);
    }
    side.offsets.push(side.ends.len() as i64);
    Ok(())
}

fn value_text(v: &Bound<'_, PyAny>) -> String {
    v.repr()
        .map(|r| r.to_string_lossy().chars().take(40).collect())
        .unwrap_or_else(|_| type_name(v))
}

/// A run score as trec_eval ranks it: a number (not a bool) rounded to single precision.
fn score_of(v: &Bound<'_, PyAny>) -> Option<f64> {
    let number = v.is_instance_of::<PyFloat>() || v.is_instance_of::<PyInt>();
    if !number || v.is_instance_of::<PyBool>() {
        return None;
    }
    let x = v.extract::<f64>().ok()?;
    (!x.is_nan()).then_some(x as f32 as f64)
}

/// A relevance judgment: an int (not a bool) that fits in 64 bits.
fn judgment_of(v: &Bound<'_, PyAny>) -> Option<i64> {
    if !v.is_instance_of::<PyInt>() || v.is_instance_of::<PyBool>() {
        return None;
    }
    v.extract::<i64>().ok()
}

/// `retrieval_measures_of(qrels, runs, kinds, cutoffs, relevance_level=1, workers=-1)`: a
/// (queries, measures) float64 matrix; row i scores the dict `runs[i]` (document id to score)
/// against the dict `qrels[i]` (document id to judgment). Scores are ranked in single
/// precision, as trec_eval ranks them.
#[pyfunction]
#[pyo3(
    signature = (qrels, runs, kinds, cutoffs, relevance_level = 1, workers = Workers::ALL),
    text_signature = "(qrels, runs, kinds, cutoffs, relevance_level=1, workers=-1)"
)]
fn retrieval_measures_of<'py>(
    py: Python<'py>,
    qrels: Vec<Bound<'py, PyAny>>,
    runs: Vec<Bound<'py, PyAny>>,
    kinds: Vec<String>,
    cutoffs: Vec<i64>,
    relevance_level: i64,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let measures = parse_measures(&kinds, &cutoffs)?;
    same_length(qrels.len(), runs.len())?;
    let run_reader = ValueReader {
        what: "run",
        expected: "a number",
        fast: fast_score,
        slow: score_of,
    };
    let qrel_reader = ValueReader {
        what: "qrels",
        expected: "an int judgment",
        fast: fast_judgment,
        slow: judgment_of,
    };
    let (mut run_side, mut qrel_side) = (Side::new(), Side::new());
    for (i, (qrel, run)) in qrels.iter().zip(&runs).enumerate() {
        read_query(run, i, &mut run_side, &run_reader)?;
        read_query(qrel, i, &mut qrel_side, &qrel_reader)?;
    }
    matrix(
        py,
        &run_side,
        &qrel_side,
        &measures,
        relevance_level,
        workers,
    )
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(retrieval_measures_of, m)?)?;
    Ok(())
}
