//! Cosine similarity: one pair, row by row, all pairs, and each row's best k (the numerics are `vectors.rs` and
//! `metrics/cosine.rs`).

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;

use crate::batch::Workers;
use crate::vectors;

#[pyfunction]
#[pyo3(name = "cosine")]
fn py_cosine(expected: &Bound<'_, PyAny>, actual: &Bound<'_, PyAny>) -> PyResult<f64> {
    vectors::cosine_pair(expected, actual)
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, workers = Workers::ALL),
    text_signature = "(expected, actual, workers=-1)"
)]
fn cosine_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    vectors::cosine_rows(py, expected, actual, workers)
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, workers = Workers::ALL),
    text_signature = "(expected, actual, workers=-1)"
)]
fn cosine_matrix<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    vectors::cosine_all_pairs(py, expected, actual, workers)
}

#[pyfunction]
#[pyo3(
    signature = (queries, choices, k, workers = Workers::ALL),
    text_signature = "(queries, choices, k, workers=-1)"
)]
fn cosine_top_k<'py>(
    py: Python<'py>,
    queries: &Bound<'py, PyAny>,
    choices: &Bound<'py, PyAny>,
    k: usize,
    workers: Workers,
) -> PyResult<vectors::TopK<'py>> {
    vectors::cosine_top_k(py, queries, choices, k, workers)
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_cosine, m)?)?;
    m.add_function(wrap_pyfunction!(cosine_batch, m)?)?;
    m.add_function(wrap_pyfunction!(cosine_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(cosine_top_k, m)?)?;
    Ok(())
}
