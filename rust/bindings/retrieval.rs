//! Retrieval measures over many queries at once (the kernel is `metrics/retrieval.rs`), read
//! straight from the queries' dicts: no Python list or array is built in between.

use std::borrow::Cow;

use numpy::{PyArray1, PyArray2, PyArrayMethods};
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

/// Every query's documents and values, one after another, with each query's start.
struct Flat<'a> {
    run_docs: &'a [&'a [u8]],
    scores: &'a [f64],
    run_offsets: &'a [i64],
    qrel_docs: &'a [&'a [u8]],
    rels: &'a [i64],
    qrel_offsets: &'a [i64],
}

fn span(offsets: &[i64], i: usize) -> std::ops::Range<usize> {
    offsets[i] as usize..offsets[i + 1] as usize
}

/// The (queries, measures) matrix of checked flat queries, on the pool with the GIL released.
fn matrix<'py>(
    py: Python<'py>,
    flat: &Flat<'_>,
    measures: &[Measure],
    relevance_level: i64,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (rd, scores, ro) = (flat.run_docs, flat.scores, flat.run_offsets);
    let (qd, rels, qo) = (flat.qrel_docs, flat.rels, flat.qrel_offsets);
    let n = ro.len().saturating_sub(1);
    let width = measures.len();
    let size = rd.len().saturating_add(qd.len()).saturating_mul(8);
    let out = run_watched(py, workers, size, |stop, w| {
        let mut out = result_array(n.saturating_mul(width), "the result matrix")?;
        fill_rows(&mut out, width, w, stop, |s: &mut Scratch, i, row| {
            let (r, q) = (span(ro, i), span(qo, i));
            let query = Query {
                run_docs: &rd[r.clone()],
                run_scores: &scores[r],
                qrel_docs: &qd[q.clone()],
                qrel_rels: &rels[q],
            };
            evaluate(&query, measures, relevance_level, s, row);
            Ok(())
        })?;
        Ok(out)
    })?;
    PyArray1::from_vec(py, out).reshape([n, width])
}

/// One query's dict read under the GIL: its keys (held, so that their bytes outlive any change
/// the caller makes to the dict while the GIL is released) and its values.
fn read_query<'py, T>(
    row: &Bound<'py, PyAny>,
    i: usize,
    what: &str,
    keys: &mut Vec<Bound<'py, PyString>>,
    values: &mut Vec<T>,
    value: impl Fn(&Bound<'py, PyAny>) -> Option<T>,
    expected: &str,
) -> PyResult<()> {
    let dict = row.cast::<PyDict>().map_err(|_| {
        EvalError::Type(format!(
            "{what} {i} must be a dict of document id to value, got {}",
            type_name(row)
        ))
    })?;
    for (key, v) in dict.iter() {
        let key = key.cast_into::<PyString>().map_err(|e| {
            EvalError::Type(format!(
                "{what} {i}: document ids must be str, got {}",
                type_name(e.into_inner().as_any())
            ))
        })?;
        let Some(v) = value(&v) else {
            return Err(EvalError::input(format!(
                "{what} {i}: the value of document {:?} must be {expected}, got {}",
                key.to_string_lossy(),
                value_text(&v)
            ))
            .into());
        };
        keys.push(key);
        values.push(v);
    }
    Ok(())
}

fn value_text(v: &Bound<'_, PyAny>) -> String {
    v.repr()
        .map(|r| r.to_string_lossy().chars().take(40).collect())
        .unwrap_or_else(|_| type_name(v))
}

/// The bytes of each document id (lone surrogates as `surrogatepass` encodes them).
fn held<'a>(keys: &'a [Bound<'_, PyString>]) -> PyResult<Vec<Cow<'a, [u8]>>> {
    keys.iter()
        .map(|k| str_bytes(k.as_any(), "a document id"))
        .collect()
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
    let (mut run_keys, mut scores, mut run_offsets) = (Vec::new(), Vec::new(), vec![0i64]);
    let (mut qrel_keys, mut rels, mut qrel_offsets) = (Vec::new(), Vec::new(), vec![0i64]);
    for (i, (qrel, run)) in qrels.iter().zip(&runs).enumerate() {
        let (rk, sc) = (&mut run_keys, &mut scores);
        read_query(run, i, "run", rk, sc, score_of, "a number")?;
        let (qk, rl) = (&mut qrel_keys, &mut rels);
        read_query(qrel, i, "qrels", qk, rl, judgment_of, "an int judgment")?;
        run_offsets.push(run_keys.len() as i64);
        qrel_offsets.push(qrel_keys.len() as i64);
    }
    let (run_keys, qrel_keys) = (held(&run_keys)?, held(&qrel_keys)?);
    let rd: Vec<&[u8]> = run_keys.iter().map(|k| k.as_ref()).collect();
    let qd: Vec<&[u8]> = qrel_keys.iter().map(|k| k.as_ref()).collect();
    let flat = Flat {
        run_docs: &rd,
        scores: &scores,
        run_offsets: &run_offsets,
        qrel_docs: &qd,
        rels: &rels,
        qrel_offsets: &qrel_offsets,
    };
    matrix(py, &flat, &measures, relevance_level, workers)
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(retrieval_measures_of, m)?)?;
    Ok(())
}
