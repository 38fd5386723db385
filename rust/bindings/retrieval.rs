//! Retrieval measures over many queries at once (the kernel is `metrics/retrieval.rs`). Python
//! flattens the qrels and the run into document-id lists, value arrays and per-query offsets.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1};
use pyo3::prelude::*;

use crate::batch::{fill_rows, result_array, run_watched, Workers};
use crate::errors::EvalError;
use crate::inputs::hold;
use crate::metrics::retrieval::{evaluate, Measure, Query, Scratch};

/// Check that `offsets` cut `len` items into `n` runs of items: starts at 0, never decreases,
/// ends at `len`.
fn check_offsets(offsets: &[i64], n: usize, len: usize, what: &str) -> Result<(), EvalError> {
    let ok = offsets.len() == n + 1
        && offsets.first() == Some(&0)
        && offsets.windows(2).all(|w| w[0] <= w[1])
        && offsets.last().copied() == i64::try_from(len).ok();
    if ok {
        Ok(())
    } else {
        Err(EvalError::input(format!(
            "{what} offsets must rise from 0 to {len} over {n} queries"
        )))
    }
}

fn span(offsets: &[i64], i: usize) -> std::ops::Range<usize> {
    offsets[i] as usize..offsets[i + 1] as usize
}

/// `retrieval_measures(run_docs, run_scores, run_offsets, qrel_docs, qrel_rels, qrel_offsets,
/// kinds, cutoffs, relevance_level=1, workers=-1)`: a (queries, measures) float64 matrix;
/// query i is `run_docs[run_offsets[i]:run_offsets[i+1]]` with its scores against the judged
/// documents `qrel_docs[qrel_offsets[i]:qrel_offsets[i+1]]`.
#[pyfunction]
#[pyo3(
    signature = (run_docs, run_scores, run_offsets, qrel_docs, qrel_rels, qrel_offsets, kinds, cutoffs, relevance_level = 1, workers = Workers::ALL),
    text_signature = "(run_docs, run_scores, run_offsets, qrel_docs, qrel_rels, qrel_offsets, kinds, cutoffs, relevance_level=1, workers=-1)"
)]
#[allow(clippy::too_many_arguments)]
fn retrieval_measures<'py>(
    py: Python<'py>,
    run_docs: &Bound<'py, PyAny>,
    run_scores: PyReadonlyArray1<'py, f64>,
    run_offsets: PyReadonlyArray1<'py, i64>,
    qrel_docs: &Bound<'py, PyAny>,
    qrel_rels: PyReadonlyArray1<'py, i64>,
    qrel_offsets: PyReadonlyArray1<'py, i64>,
    kinds: Vec<String>,
    cutoffs: Vec<i64>,
    relevance_level: i64,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    if kinds.len() != cutoffs.len() {
        return Err(EvalError::input("kinds and cutoffs must have the same length").into());
    }
    let measures = kinds
        .iter()
        .zip(&cutoffs)
        .map(|(kind, &k)| {
            Measure::parse(kind, k).ok_or_else(|| {
                EvalError::input(format!(
                    "unknown retrieval measure {kind:?} with cutoff {k}"
                ))
            })
        })
        .collect::<Result<Vec<_>, _>>()?;
    let (rd_held, qd_held) = (hold(run_docs, "run_docs")?, hold(qrel_docs, "qrel_docs")?);
    let (rd, qd) = (rd_held.texts("run_docs")?, qd_held.texts("qrel_docs")?);
    let rd: Vec<&[u8]> = (0..rd.len()).map(|i| rd.row(i)).collect();
    let qd: Vec<&[u8]> = (0..qd.len()).map(|i| qd.row(i)).collect();
    let (scores, rels) = (run_scores.as_slice()?, qrel_rels.as_slice()?);
    let (ro, qo) = (run_offsets.as_slice()?, qrel_offsets.as_slice()?);
    if scores.len() != rd.len() || rels.len() != qd.len() {
        return Err(EvalError::input(
            "each document id needs one value: run_docs and run_scores, qrel_docs and qrel_rels",
        )
        .into());
    }
    if let Some(i) = scores.iter().position(|s| s.is_nan()) {
        return Err(EvalError::input(format!(
            "the score of run document {i} is NaN; scores must be numbers"
        ))
        .into());
    }
    let n = ro.len().saturating_sub(1);
    check_offsets(ro, n, rd.len(), "run")?;
    check_offsets(qo, n, qd.len(), "qrels")?;
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
            evaluate(&query, &measures, relevance_level, s, row);
            Ok(())
        })?;
        Ok(out)
    })?;
    PyArray1::from_vec(py, out).reshape([n, width])
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(retrieval_measures, m)?)?;
    Ok(())
}
