//! GLEU and METEOR (NLTK's), one [`metric_pair!`] each plus the corpus GLEU, and BERTScore's
//! greedy matching over token embeddings.

use numpy::{PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::metric_pair;
use crate::batch::{fill_rows_weighted, result_array, run_watched, Workers};
use crate::errors::EvalError;
use crate::metrics::{bertscore, gleu, meteor};
use crate::options::MaxChars;
use crate::refs::{ref_stats, RefBatch};

/// GLEU's n-gram orders, checked: 1 <= min_len <= max_len.
fn orders(min_len: usize, max_len: usize) -> PyResult<(usize, usize)> {
    if min_len >= 1 && max_len >= min_len {
        Ok((min_len, max_len))
    } else {
        Err(EvalError::input(format!(
            "GLEU needs 1 <= min_len <= max_len, got min_len={min_len}, max_len={max_len}"
        ))
        .into())
    }
}

fn meteor_params(alpha: f64, beta: f64, gamma: f64) -> PyResult<meteor::Params> {
    if !(0.0..=1.0).contains(&alpha) || !beta.is_finite() || !(0.0..=1.0).contains(&gamma) {
        return Err(EvalError::input(format!(
            "METEOR needs alpha and gamma in [0, 1] and a finite beta, got alpha={alpha}, \
             beta={beta}, gamma={gamma}"
        ))
        .into());
    }
    Ok(meteor::Params { alpha, beta, gamma })
}

metric_pair! {
    shape: refs,
    scalar: py_gleu = "gleu" -> f64,
        "(expected, actual, min_len=1, max_len=4, max_chars=None)";
    batch: gleu_batch -> f64,
        "(expected, actual, min_len=1, max_len=4, workers=-1, max_chars=None)";
    options: (min_len: usize = 1, max_len: usize = 4);
    prepare: { let (lo, hi) = orders(min_len, max_len)?; }
    kernel: |s: gleu::Scratch, e, a, stop| gleu::gleu(e, a, lo, hi, s, stop)
}

metric_pair! {
    shape: refs,
    scalar: py_meteor = "meteor" -> f64,
        "(expected, actual, alpha=0.9, beta=3.0, gamma=0.5, max_chars=None)";
    batch: meteor_batch -> f64,
        "(expected, actual, alpha=0.9, beta=3.0, gamma=0.5, workers=-1, max_chars=None)";
    options: (alpha: f64 = 0.9, beta: f64 = 3.0, gamma: f64 = 0.5);
    prepare: { let params = meteor_params(alpha, beta, gamma)?; }
    kernel: |s: meteor::Scratch, e, a, stop| meteor::meteor(e, a, params, s, stop)
}

/// `corpus_gleu(expected, actual, min_len=1, max_len=4, workers=-1, max_chars=None)`: NLTK's
/// `corpus_gleu`, the summed matches over the summed totals of each row's kept reference.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, min_len = 1, max_len = 4, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, min_len=1, max_len=4, workers=-1, max_chars=None)"
)]
fn corpus_gleu(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    min_len: usize,
    max_len: usize,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<f64> {
    let (lo, hi) = orders(min_len, max_len)?;
    let rows = ref_stats(
        py,
        &RefBatch::hold(expected, actual)?,
        workers,
        max_chars,
        2,
        |s: &mut gleu::Scratch, refs, hyp, stop, cells: &mut [u64]| {
            let (tp, n_all) = gleu::statistics(refs, hyp, lo, hi, s, stop)?;
            cells[0] = tp;
            cells[1] = n_all;
            Ok(())
        },
    )?;
    let (tp, n_all) = rows
        .chunks(2)
        .fold((0u64, 0u64), |(t, n), c| (t + c[0], n + c[1]));
    Ok(if n_all == 0 {
        0.0
    } else {
        tp as f64 / n_all as f64
    })
}

fn slice<'a, T: numpy::Element, D: numpy::ndarray::Dimension>(
    a: &'a numpy::PyReadonlyArray<'_, T, D>,
    side: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| EvalError::input(format!("{side} must be C-contiguous")).into())
}

fn check_offsets(offsets: &[i64], rows: usize, side: &str) -> PyResult<()> {
    let bad = offsets.first() != Some(&0)
        || offsets.last().map(|&x| x as usize) != Some(rows)
        || offsets.windows(2).any(|w| w[1] <= w[0]);
    if bad {
        return Err(EvalError::input(format!(
            "{side}: every row needs at least one token embedding"
        ))
        .into());
    }
    Ok(())
}

/// `bertscore_rows(expected, expected_offsets, actual, actual_offsets, expected_weights,
/// actual_weights, workers=-1)`: BERTScore's precision, recall and F1 of each pair, an (n, 3)
/// array. Pair i's reference tokens are rows `expected_offsets[i]..expected_offsets[i+1]` of
/// `expected` (a float64 matrix), its hypothesis tokens those of `actual`; the weights give one
/// value per token row.
#[pyfunction]
#[pyo3(
    signature = (expected, expected_offsets, actual, actual_offsets, expected_weights, actual_weights, workers = Workers::ALL),
    text_signature = "(expected, expected_offsets, actual, actual_offsets, expected_weights, actual_weights, workers=-1)"
)]
#[allow(clippy::too_many_arguments)]
fn bertscore_rows<'py>(
    py: Python<'py>,
    expected: PyReadonlyArray2<'py, f64>,
    expected_offsets: PyReadonlyArray1<'py, i64>,
    actual: PyReadonlyArray2<'py, f64>,
    actual_offsets: PyReadonlyArray1<'py, i64>,
    expected_weights: PyReadonlyArray1<'py, f64>,
    actual_weights: PyReadonlyArray1<'py, f64>,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    let (e, a) = (slice(&expected, "expected")?, slice(&actual, "actual")?);
    let (we, wa) = (
        slice(&expected_weights, "expected_weights")?,
        slice(&actual_weights, "actual_weights")?,
    );
    let (oe, oa) = (
        slice(&expected_offsets, "expected_offsets")?,
        slice(&actual_offsets, "actual_offsets")?,
    );
    let (dim, da) = (expected.shape()[1], actual.shape()[1]);
    if dim != da {
        return Err(EvalError::input(format!(
            "expected and actual token embeddings differ in dimension: {dim} and {da}"
        ))
        .into());
    }
    let (re, ra) = (expected.shape()[0], actual.shape()[0]);
    if we.len() != re || wa.len() != ra {
        return Err(EvalError::input("one weight per token embedding is needed").into());
    }
    check_offsets(oe, re, "expected")?;
    check_offsets(oa, ra, "actual")?;
    if oe.len() != oa.len() {
        return Err(EvalError::Lengths {
            expected: oe.len() - 1,
            actual: oa.len() - 1,
        }
        .into());
    }
    let n = oe.len() - 1;
    let size = re.saturating_mul(ra).saturating_mul(dim) / n.max(1);
    let out = run_watched(py, workers, size, |stop, w| {
        let mut out = result_array::<f64>(3 * n, "the result array")?;
        // A pair costs its token count times the other's: the blocks share that out, not the
        // number of pairs.
        let tokens = |o: &[i64], i: usize| (o[i + 1] - o[i]) as usize;
        fill_rows_weighted(
            &mut out,
            3,
            w,
            stop,
            |i| tokens(oe, i).saturating_mul(tokens(oa, i)),
            |s: &mut bertscore::Scratch, i, cell| {
                let (eb, ee) = (oe[i] as usize, oe[i + 1] as usize);
                let (ab, ae) = (oa[i] as usize, oa[i + 1] as usize);
                let prf = bertscore::bertscore_with(
                    s,
                    &e[eb * dim..ee * dim],
                    &a[ab * dim..ae * dim],
                    dim,
                    &we[eb..ee],
                    &wa[ab..ae],
                )
                .ok_or_else(|| not_finite(i))?;
                cell.copy_from_slice(&prf);
                Ok(())
            },
        )?;
        Ok(out)
    })?;
    let arr = numpy::PyArray1::from_vec(py, out);
    arr.reshape([n, 3])
}

fn not_finite(row: usize) -> EvalError {
    EvalError::input(format!(
        "row {row} contains NaN or infinity; embeddings must be finite"
    ))
}

/// One side of `bertscore_lists`: each item's token rows borrowed in place, or `None` when an
/// item is not a C-contiguous float64 matrix of `dim` columns with at least one row.
fn borrow_side<'py>(
    items: &Bound<'py, PyList>,
    dim: &mut Option<usize>,
) -> Option<Vec<PyReadonlyArray2<'py, f64>>> {
    let mut out = Vec::with_capacity(items.len());
    for item in items.iter() {
        let arr = item
            .cast_into::<PyArray2<f64>>()
            .ok()?
            .try_readonly()
            .ok()?;
        let (rows, cols) = (arr.shape()[0], arr.shape()[1]);
        if rows == 0 || cols == 0 || !arr.is_c_contiguous() || *dim.get_or_insert(cols) != cols {
            return None;
        }
        out.push(arr);
    }
    Some(out)
}

/// `bertscore_lists(expected, actual, workers=-1)`: BERTScore (no idf) of each pair of token
/// matrices read in place, an (n, 3) array; `None` when an item is not a C-contiguous float64
/// matrix with at least one row, the dimensions differ or the lists differ in length (the
/// caller then takes the checked path, which says what is wrong). A row holding NaN or
/// infinity raises `MetricInputError`.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, workers = Workers::ALL),
    text_signature = "(expected, actual, workers=-1)"
)]
fn bertscore_lists<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyList>,
    actual: &Bound<'py, PyList>,
    workers: Workers,
) -> PyResult<Option<Bound<'py, PyArray2<f64>>>> {
    let n = expected.len();
    if n == 0 || actual.len() != n {
        return Ok(None);
    }
    let mut dim = None;
    let (Some(e), Some(a)) = (
        borrow_side(expected, &mut dim),
        borrow_side(actual, &mut dim),
    ) else {
        return Ok(None);
    };
    let dim = dim.unwrap_or(1);
    let e: Vec<&[f64]> = e
        .iter()
        .map(|x| x.as_slice())
        .collect::<Result<_, _>>()
        .map_err(|_| EvalError::input("expected must be C-contiguous"))?;
    let a: Vec<&[f64]> = a
        .iter()
        .map(|x| x.as_slice())
        .collect::<Result<_, _>>()
        .map_err(|_| EvalError::input("actual must be C-contiguous"))?;
    let longest = e.iter().chain(&a).map(|x| x.len() / dim).max().unwrap_or(1);
    let ones = vec![1.0f64; longest];
    let rows = |side: &[&[f64]]| side.iter().map(|x| x.len() / dim).sum::<usize>();
    let size = rows(&e).saturating_mul(rows(&a)).saturating_mul(dim) / n;
    let out = run_watched(py, workers, size, |stop, w| {
        let mut out = result_array::<f64>(3 * n, "the result array")?;
        fill_rows_weighted(
            &mut out,
            3,
            w,
            stop,
            |i| (e[i].len() / dim).saturating_mul(a[i].len() / dim),
            |s: &mut bertscore::Scratch, i, cell| {
                let (x, y) = (e[i], a[i]);
                let prf = bertscore::bertscore_with(
                    s,
                    x,
                    y,
                    dim,
                    &ones[..x.len() / dim],
                    &ones[..y.len() / dim],
                )
                .ok_or_else(|| not_finite(i))?;
                cell.copy_from_slice(&prf);
                Ok(())
            },
        )?;
        Ok(out)
    })?;
    let arr = numpy::PyArray1::from_vec(py, out);
    Ok(Some(arr.reshape([n, 3])?))
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_gleu, m)?)?;
    m.add_function(wrap_pyfunction!(gleu_batch, m)?)?;
    m.add_function(wrap_pyfunction!(corpus_gleu, m)?)?;
    m.add_function(wrap_pyfunction!(py_meteor, m)?)?;
    m.add_function(wrap_pyfunction!(meteor_batch, m)?)?;
    m.add_function(wrap_pyfunction!(bertscore_rows, m)?)?;
    m.add_function(wrap_pyfunction!(bertscore_lists, m)?)?;
    Ok(())
}
