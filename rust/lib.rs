//! The `evalmark._core` extension: argument checks, copying inputs into Rust values, releasing
//! the GIL and calling the kernels. The kernels themselves live in `metrics/` and know nothing
//! of Python.

mod batch;
mod bindings_text_metrics;
mod errors;
mod inputs;
pub mod metrics;

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray1, PyReadonlyArray2};
use numpy::{PyUntypedArrayMethods, ToPyArray};
use pyo3::prelude::*;

use batch::{check_workers, fill_rows, map_rows, try_map_rows};
use errors::{EvalError, EvalResult, MetricInputError};
use inputs::{choice, hold, same_length, str_bytes};
use metrics::cosine::Float;
use metrics::json::Numbers;
use metrics::rouge_l::Tokenizer;
use metrics::token_f1::Normalizer;
use metrics::{cosine, json, levenshtein, rouge_l, rouge_tokens, token_f1};

fn normalizer(name: &str) -> EvalResult<Normalizer> {
    Ok(match choice("normalizer", name, &["squad", "none"])? {
        "squad" => Normalizer::Squad,
        _ => Normalizer::None,
    })
}

fn tokenizer(name: &str) -> EvalResult<Tokenizer> {
    Ok(match choice("tokenizer", name, &["rouge", "unicode"])? {
        "rouge" => Tokenizer::Rouge,
        _ => Tokenizer::Unicode,
    })
}

#[derive(Clone, Copy)]
enum Measure {
    Precision,
    Recall,
    F,
}

fn measure(name: &str) -> EvalResult<Measure> {
    Ok(
        match choice("measure", name, &["fmeasure", "precision", "recall"])? {
            "precision" => Measure::Precision,
            "recall" => Measure::Recall,
            _ => Measure::F,
        },
    )
}

fn pick(score: rouge_l::RougeScore, m: Measure) -> f64 {
    match m {
        Measure::Precision => score.precision,
        Measure::Recall => score.recall,
        Measure::F => score.fmeasure,
    }
}

fn numbers(name: &str) -> EvalResult<Numbers> {
    Ok(match choice("numbers", name, &["value", "strict"])? {
        "value" => Numbers::Value,
        _ => Numbers::Strict,
    })
}

/// Hold both sides of a text batch and check that they pair up.
fn hold_pair<'py>(
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: isize,
) -> PyResult<(inputs::Held<'py>, inputs::Held<'py>)> {
    check_workers(workers)?;
    let e = hold(expected, "expected")?;
    let a = hold(actual, "actual")?;
    same_length(e.len(), a.len())?;
    Ok((e, a))
}

// ---- token F1 -------------------------------------------------------------------------------

#[pyfunction]
#[pyo3(signature = (expected, actual, normalizer = "squad"), name = "token_f1")]
fn py_token_f1(
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    normalizer: &str,
) -> PyResult<f64> {
    let n = self::normalizer(normalizer)?;
    let (e, a) = (
        str_bytes(expected, "expected")?,
        str_bytes(actual, "actual")?,
    );
    Ok(token_f1::token_f1(&e, &a, n, &mut Default::default()))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, normalizer = "squad", workers = -1), text_signature = "(expected, actual, normalizer='squad', workers=-1)")]
fn token_f1_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    normalizer: &str,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let n = self::normalizer(normalizer)?;
    let (he, ha) = hold_pair(expected, actual, workers)?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let out = py.detach(|| {
        map_rows(e.len(), workers, |s: &mut token_f1::Scratch, i| {
            token_f1::token_f1(e.row(i), a.row(i), n, s)
        })
    })?;
    Ok(PyArray1::from_vec(py, out))
}

// ---- ROUGE-L --------------------------------------------------------------------------------

#[pyfunction]
#[pyo3(signature = (expected, actual, tokenizer = "rouge", measure = "fmeasure", stemmer = None), name = "rouge_l")]
fn py_rouge_l(
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: &str,
    measure: &str,
    stemmer: Option<&str>,
) -> PyResult<f64> {
    let (t, m) = (self::tokenizer(tokenizer)?, self::measure(measure)?);
    let st = bindings_text_metrics::stemmer(stemmer)?;
    let (e, a) = (
        str_bytes(expected, "expected")?,
        str_bytes(actual, "actual")?,
    );
    Ok(pick(bindings_text_metrics::rouge_l_one(&e, &a, t, st), m))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, tokenizer = "rouge", measure = "fmeasure", workers = -1, stemmer = None), text_signature = "(expected, actual, tokenizer='rouge', measure='fmeasure', workers=-1, stemmer=None)")]
fn rouge_l_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    tokenizer: &str,
    measure: &str,
    workers: isize,
    stemmer: Option<&str>,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (t, m) = (self::tokenizer(tokenizer)?, self::measure(measure)?);
    let st = bindings_text_metrics::stemmer(stemmer)?;
    let (he, ha) = hold_pair(expected, actual, workers)?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let out = py.detach(|| {
        map_rows(e.len(), workers, |s: &mut rouge_tokens::TokenScratch, i| {
            pick(
                rouge_tokens::rouge_l_stemmed(e.row(i), a.row(i), t, st, s),
                m,
            )
        })
    })?;
    Ok(PyArray1::from_vec(py, out))
}

// ---- Levenshtein ----------------------------------------------------------------------------

#[pyfunction]
fn levenshtein_distance(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<usize> {
    let (x, y) = (str_bytes(a, "a")?, str_bytes(b, "b")?);
    Ok(levenshtein::distance(&x, &y, &mut Default::default()))
}

#[pyfunction]
fn levenshtein_similarity(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
    let (x, y) = (str_bytes(a, "a")?, str_bytes(b, "b")?);
    Ok(levenshtein::similarity(&x, &y, &mut Default::default()))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, workers = -1), text_signature = "(expected, actual, workers=-1)")]
fn levenshtein_distance_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let (he, ha) = hold_pair(expected, actual, workers)?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let out = py.detach(|| {
        map_rows(e.len(), workers, |s: &mut levenshtein::Scratch, i| {
            levenshtein::distance(e.row(i), a.row(i), s) as i64
        })
    })?;
    Ok(PyArray1::from_vec(py, out))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, workers = -1), text_signature = "(expected, actual, workers=-1)")]
fn levenshtein_similarity_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (he, ha) = hold_pair(expected, actual, workers)?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let out = py.detach(|| {
        map_rows(e.len(), workers, |s: &mut levenshtein::Scratch, i| {
            levenshtein::similarity(e.row(i), a.row(i), s)
        })
    })?;
    Ok(PyArray1::from_vec(py, out))
}

// ---- cosine ---------------------------------------------------------------------------------

fn check_finite_rows<T: Float>(data: &[T], dim: usize, side: &str) -> EvalResult<()> {
    if dim == 0 {
        return Ok(());
    }
    match data.chunks(dim).position(|row| !cosine::all_finite(row)) {
        None => Ok(()),
        Some(row) => Err(non_finite_row(row, side)),
    }
}

fn non_finite_row(row: usize, side: &str) -> EvalError {
    EvalError::input(format!(
        "row {row} of {side} contains NaN or infinity; cosine needs finite values"
    ))
}

fn cosine_rows<T: Float>(
    a: &[T],
    b: &[T],
    rows: usize,
    dim: usize,
    workers: isize,
) -> EvalResult<Vec<f64>> {
    try_map_rows(rows, workers, |_: &mut (), i| {
        let span = i * dim..(i + 1) * dim;
        cosine::checked_cosine(&a[span.clone()], &b[span]).map_err(|side| match side {
            cosine::NonFinite::First => non_finite_row(i, "expected"),
            cosine::NonFinite::Second => non_finite_row(i, "actual"),
        })
    })
}

fn cosine_all_pairs<T: Float>(
    q: &[T],
    m: &[T],
    nq: usize,
    nm: usize,
    dim: usize,
    workers: isize,
) -> EvalResult<Vec<f64>> {
    check_finite_rows(q, dim, "queries")?;
    check_finite_rows(m, dim, "matrix")?;
    let m_norms = map_rows(nm, workers, |_: &mut (), j| {
        cosine::squared_norm(&m[j * dim..(j + 1) * dim])
    })?;
    let mut out = vec![0.0f64; nq * nm];
    fill_rows(&mut out, nm, workers, |i, row| {
        let qi = &q[i * dim..(i + 1) * dim];
        let nqi = cosine::squared_norm(qi);
        for (j, cell) in row.iter_mut().enumerate() {
            let mj = &m[j * dim..(j + 1) * dim];
            let c = cosine::from_parts(cosine::dot(qi, mj), nqi, m_norms[j]);
            // Squares of huge or tiny finite f64 values overflow or lose precision: those
            // pairs are recomputed rescaled.
            let ordinary = c.is_finite()
                && nqi >= cosine::TINY_SQUARED_NORM
                && m_norms[j] >= cosine::TINY_SQUARED_NORM;
            *cell = if ordinary {
                c
            } else {
                cosine::checked_cosine(qi, mj).unwrap_or(f64::NAN)
            };
        }
    })?;
    Ok(out)
}

enum Matrix<'py> {
    F32(PyReadonlyArray2<'py, f32>),
    F64(PyReadonlyArray2<'py, f64>),
}

impl Matrix<'_> {
    fn shape(&self) -> (usize, usize) {
        let s = match self {
            Matrix::F32(a) => a.shape(),
            Matrix::F64(a) => a.shape(),
        };
        (s[0], s[1])
    }
}

fn matrix<'py>(obj: &Bound<'py, PyAny>, side: &str) -> PyResult<Matrix<'py>> {
    if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f32>>() {
        return Ok(Matrix::F32(a));
    }
    if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f64>>() {
        return Ok(Matrix::F64(a));
    }
    Err(EvalError::Type(format!(
        "{side} must be a 2-D float32 or float64 numpy array"
    ))
    .into())
}

fn contiguous<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray2<'_, T>,
    side: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| EvalError::input(format!("{side} must be C-contiguous")).into())
}

#[pyfunction]
#[pyo3(name = "cosine")]
fn py_cosine(a: &Bound<'_, PyAny>, b: &Bound<'_, PyAny>) -> PyResult<f64> {
    let a: PyReadonlyArray1<'_, f64> = a.extract()?;
    let b: PyReadonlyArray1<'_, f64> = b.extract()?;
    let (a, b) = (a.as_slice()?, b.as_slice()?);
    if a.len() != b.len() {
        return Err(EvalError::input(format!(
            "vectors of different dimensions: {} and {}",
            a.len(),
            b.len()
        ))
        .into());
    }
    cosine::checked_cosine(a, b).map_err(|side| {
        let name = if side == cosine::NonFinite::First {
            "a"
        } else {
            "b"
        };
        EvalError::input(format!(
            "{name} contains NaN or infinity; cosine needs finite values"
        ))
        .into()
    })
}

#[pyfunction]
#[pyo3(signature = (expected, actual, workers = -1), text_signature = "(expected, actual, workers=-1)")]
fn cosine_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    check_workers(workers)?;
    let (e, a) = (matrix(expected, "expected")?, matrix(actual, "actual")?);
    let ((re, de), (ra, da)) = (e.shape(), a.shape());
    if (re, de) != (ra, da) {
        return Err(EvalError::input(format!(
            "expected and actual must have the same shape, got ({re}, {de}) and ({ra}, {da})"
        ))
        .into());
    }
    let out = match (&e, &a) {
        (Matrix::F32(x), Matrix::F32(y)) => {
            let (x, y) = (contiguous(x, "expected")?, contiguous(y, "actual")?);
            py.detach(|| cosine_rows(x, y, re, de, workers))?
        }
        (Matrix::F64(x), Matrix::F64(y)) => {
            let (x, y) = (contiguous(x, "expected")?, contiguous(y, "actual")?);
            py.detach(|| cosine_rows(x, y, re, de, workers))?
        }
        _ => return Err(EvalError::Type("expected and actual must share a dtype".into()).into()),
    };
    Ok(PyArray1::from_vec(py, out))
}

#[pyfunction]
#[pyo3(signature = (queries, matrix, workers = -1), text_signature = "(queries, matrix, workers=-1)")]
fn cosine_matrix<'py>(
    py: Python<'py>,
    queries: &Bound<'py, PyAny>,
    matrix: &Bound<'py, PyAny>,
    workers: isize,
) -> PyResult<Bound<'py, PyArray2<f64>>> {
    check_workers(workers)?;
    let (q, m) = (
        self::matrix(queries, "queries")?,
        self::matrix(matrix, "matrix")?,
    );
    let ((nq, dq), (nm, dm)) = (q.shape(), m.shape());
    if dq != dm {
        return Err(EvalError::input(format!(
            "queries and matrix must have the same number of columns, got {dq} and {dm}"
        ))
        .into());
    }
    let out = match (&q, &m) {
        (Matrix::F32(x), Matrix::F32(y)) => {
            let (x, y) = (contiguous(x, "queries")?, contiguous(y, "matrix")?);
            py.detach(|| cosine_all_pairs(x, y, nq, nm, dq, workers))?
        }
        (Matrix::F64(x), Matrix::F64(y)) => {
            let (x, y) = (contiguous(x, "queries")?, contiguous(y, "matrix")?);
            py.detach(|| cosine_all_pairs(x, y, nq, nm, dq, workers))?
        }
        _ => return Err(EvalError::Type("queries and matrix must share a dtype".into()).into()),
    };
    let flat = PyArray1::from_vec(py, out);
    flat.reshape([nq, nm])
}

// ---- JSON -----------------------------------------------------------------------------------

/// Parse row `row`'s expected document into `doc` (reusing its buffers), or say what is wrong.
fn parse_expected<'a>(
    doc: &mut json::Document<'a>,
    text: &'a [u8],
    n: Numbers,
    row: Option<usize>,
) -> EvalResult<()> {
    doc.reparse(text, n).map_err(|e| {
        let at = row.map_or(String::new(), |r| format!("row {r} of "));
        EvalError::input(format!(
            "{at}expected is not valid JSON ({e}); fix the expected document"
        ))
    })
}

#[pyfunction]
#[pyo3(signature = (expected, actual, numbers = "value"))]
fn json_match(
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    numbers: &str,
) -> PyResult<bool> {
    let n = self::numbers(numbers)?;
    let (e, a) = (
        str_bytes(expected, "expected")?,
        str_bytes(actual, "actual")?,
    );
    let mut doc = json::Document::default();
    parse_expected(&mut doc, &e, n, None)?;
    Ok(doc.matches(&a))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, numbers = "value", workers = -1), text_signature = "(expected, actual, numbers='value', workers=-1)")]
fn json_match_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    numbers: &str,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<bool>>> {
    let n = self::numbers(numbers)?;
    let (he, ha) = hold_pair(expected, actual, workers)?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let out = py.detach(|| {
        try_map_rows(e.len(), workers, |doc: &mut json::Document<'_>, i| {
            parse_expected(doc, e.row(i), n, Some(i))?;
            Ok(doc.matches(a.row(i)))
        })
    })?;
    Ok(out.to_pyarray(py))
}

#[pyfunction]
#[pyo3(signature = (text, numbers = "value"))]
fn canonical_json(text: &Bound<'_, PyAny>, numbers: &str) -> PyResult<String> {
    let n = self::numbers(numbers)?;
    let t = str_bytes(text, "text")?;
    let doc = json::parse(&t, n)
        .map_err(|e| EvalError::input(format!("text is not valid JSON ({e})")))?;
    Ok(doc.canonical())
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
    m.add("MetricInputError", m.py().get_type::<MetricInputError>())?;
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
    bindings_text_metrics::register(m)?;
    Ok(())
}
