//! The `evalmark._core` extension: the `#[pymodule]` and one thin wrapper per function. The
//! kernels live in `metrics/` and know nothing of Python.
//!
//! How a text metric is bound (copy the token F1 pair below):
//!
//! * options are kernel enums that convert themselves from Python (`options.rs`: one
//!   `str_option!` line per enum), so a wrapper names them in its signature;
//! * the scalar form calls `pairs::text_pair`, the batch form `pairs::text_batch`, both with
//!   the same kernel closure `|scratch, expected, actual, stop| -> EvalResult<T>` (`S` is the
//!   kernel's reusable buffers; poll `stop` in loops that can run for long);
//! * signatures are `(expected, actual, <options>, workers=-1, max_chars=None)`, given again
//!   in `text_signature` because the defaults are Rust values; then `python/evalmark/_core.pyi`
//!   and the public function in `python/evalmark/metrics.py`, and `add_function` below.
//!
//! Everything that can go wrong is an `EvalError` (`errors.rs`), mapped once to Python.

mod batch;
mod errors;
mod inputs;
pub mod metrics;
mod options;
mod pairs;
mod vectors;

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;

use batch::{Workers, MAX_WORKERS};
use errors::{EvalError, MetricInputError, TextTooLongError};
use metrics::json::{self, Numbers};
use metrics::levenshtein;
use metrics::rouge_l::{self, Measure, Tokenizer};
use metrics::token_f1::{self, Normalizer};
use options::MaxChars;
use pairs::{text_batch, text_pair, TextBatch, TextPair};

// ---- token F1 -------------------------------------------------------------------------------

#[pyfunction]
#[pyo3(
    signature = (expected, actual, normalizer = Normalizer::Squad, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, normalizer='squad', max_chars=None)",
    name = "token_f1"
)]
fn py_token_f1(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    normalizer: Normalizer,
    max_chars: MaxChars,
) -> PyResult<f64> {
    text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s, e, a, _| Ok(token_f1::token_f1(e, a, normalizer, s)),
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, normalizer = Normalizer::Squad, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, normalizer='squad', workers=-1, max_chars=None)"
)]
fn token_f1_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    normalizer: Normalizer,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    text_batch(
        py,
        &TextBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s, e, a, _| Ok(token_f1::token_f1(e, a, normalizer, s)),
    )
}

// ---- ROUGE-L --------------------------------------------------------------------------------

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = Tokenizer::Rouge, measure = Measure::F, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='rouge', measure='fmeasure', max_chars=None)",
    name = "rouge_l"
)]
fn py_rouge_l(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: Tokenizer,
    measure: Measure,
    max_chars: MaxChars,
) -> PyResult<f64> {
    text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s, e, a, _| Ok(rouge_l::rouge_l(e, a, tokenizer, s).get(measure)),
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = Tokenizer::Rouge, measure = Measure::F, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='rouge', measure='fmeasure', workers=-1, max_chars=None)"
)]
fn rouge_l_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    tokenizer: Tokenizer,
    measure: Measure,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    text_batch(
        py,
        &TextBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s, e, a, _| Ok(rouge_l::rouge_l(e, a, tokenizer, s).get(measure)),
    )
}

// ---- Levenshtein ----------------------------------------------------------------------------

#[pyfunction]
#[pyo3(
    signature = (expected, actual, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, max_chars=None)"
)]
fn levenshtein_distance(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    max_chars: MaxChars,
) -> PyResult<usize> {
    text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s, e, a, _| Ok(levenshtein::distance(e, a, s)),
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, max_chars=None)"
)]
fn levenshtein_similarity(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    max_chars: MaxChars,
) -> PyResult<f64> {
    text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s, e, a, _| Ok(levenshtein::similarity(e, a, s)),
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, workers=-1, max_chars=None)"
)]
fn levenshtein_distance_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    text_batch(
        py,
        &TextBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s, e, a, _| Ok(levenshtein::distance(e, a, s) as i64),
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, workers=-1, max_chars=None)"
)]
fn levenshtein_similarity_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    text_batch(
        py,
        &TextBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s, e, a, _| Ok(levenshtein::similarity(e, a, s)),
    )
}

// ---- JSON -----------------------------------------------------------------------------------

/// Parse the expected document into `doc` (reusing its buffers), or say what is wrong.
fn parse_expected<'a>(
    doc: &mut json::Document<'a>,
    text: &'a [u8],
    n: Numbers,
) -> Result<(), EvalError> {
    doc.reparse(text, n).map_err(|e| {
        EvalError::input(format!(
            "expected is not valid JSON ({e}); fix the expected document"
        ))
    })
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, numbers = Numbers::Value, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, numbers='value', max_chars=None)"
)]
fn json_match(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    numbers: Numbers,
    max_chars: MaxChars,
) -> PyResult<bool> {
    text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |doc: &mut json::Document<'_>, e, a, _| {
            parse_expected(doc, e, numbers)?;
            Ok(doc.matches(a))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, numbers = Numbers::Value, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, numbers='value', workers=-1, max_chars=None)"
)]
fn json_match_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    numbers: Numbers,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    text_batch(
        py,
        &TextBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |doc: &mut json::Document<'_>, e, a, _| {
            parse_expected(doc, e, numbers)?;
            Ok(doc.matches(a))
        },
    )
}

#[pyfunction]
#[pyo3(signature = (text, numbers = Numbers::Value), text_signature = "(text, numbers='value')")]
fn canonical_json(text: &Bound<'_, PyAny>, numbers: Numbers) -> PyResult<String> {
    let t = inputs::str_bytes(text, "text")?;
    let doc = json::parse(&t, numbers)
        .map_err(|e| EvalError::input(format!("text is not valid JSON ({e})")))?;
    Ok(doc.canonical())
}

// ---- cosine ---------------------------------------------------------------------------------

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

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("UNICODE_VERSION", metrics::UNICODE_VERSION)?;
    let (major, minor, update) = char::UNICODE_VERSION;
    m.add(
        "ALPHANUMERIC_UNICODE_VERSION",
        format!("{major}.{minor}.{update}"),
    )?;
    m.add("MAX_WORKERS", MAX_WORKERS)?;
    m.add("MetricInputError", m.py().get_type::<MetricInputError>())?;
    m.add("TextTooLongError", m.py().get_type::<TextTooLongError>())?;
    m.add_function(wrap_pyfunction!(py_token_f1, m)?)?;
    m.add_function(wrap_pyfunction!(token_f1_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_rouge_l, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_l_batch, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_distance, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_similarity, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_distance_batch, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_similarity_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_cosine, m)?)?;
    m.add_function(wrap_pyfunction!(cosine_batch, m)?)?;
    m.add_function(wrap_pyfunction!(cosine_matrix, m)?)?;
    m.add_function(wrap_pyfunction!(json_match, m)?)?;
    m.add_function(wrap_pyfunction!(json_match_batch, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_json, m)?)?;
    Ok(())
}
