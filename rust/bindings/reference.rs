//! BLEU and chrF: each row is a hypothesis (`actual`) and its references (`expected`). One
//! [`metric_pair!`] per metric, and the corpus scores from per-row statistics.

use numpy::{PyArray1, PyArray2, PyArrayMethods, PyReadonlyArray2};
use pyo3::prelude::*;

use super::metric_pair;
use crate::batch::Workers;
use crate::errors::EvalError;
use crate::metrics::bleu::{self, BleuOptions, BleuStats, Smooth, SmoothMethod};
use crate::metrics::bleu_tokenize::BleuTokenizer;
use crate::metrics::chrf::{self, ChrfOptions, OrderStats};
use crate::options::{Beta, CharOrder, MaxChars, WordOrder};
use crate::refs::{ref_stats, RefBatch};

fn smoothing(method: SmoothMethod, value: Option<f64>) -> PyResult<Smooth> {
    Smooth::new(method, value).map_err(|msg| EvalError::input(msg).into())
}

/// `max_ngram_order`, checked: 1 to [`bleu::MAX_ORDER`].
fn ngram_order(order: usize) -> PyResult<usize> {
    if (1..=bleu::MAX_ORDER).contains(&order) {
        Ok(order)
    } else {
        Err(EvalError::input(format!(
            "max_ngram_order must be 1 to {}, got {order}",
            bleu::MAX_ORDER
        ))
        .into())
    }
}

metric_pair! {
    shape: refs,
    scalar: py_bleu = "bleu" -> f64,
        "(expected, actual, tokenizer='13a', lowercase=False, smooth='exp', smooth_value=None, effective_order=True, max_ngram_order=4, max_chars=None)";
    batch: bleu_batch -> f64,
        "(expected, actual, tokenizer='13a', lowercase=False, smooth='exp', smooth_value=None, effective_order=True, max_ngram_order=4, workers=-1, max_chars=None)";
    options: (
        tokenizer: BleuTokenizer = BleuTokenizer::Tok13a,
        lowercase: bool = false,
        smooth: SmoothMethod = SmoothMethod::Exp,
        smooth_value: Option<f64> = None,
        effective_order: bool = true,
        max_ngram_order: usize = 4,
    );
    prepare: {
        let order = ngram_order(max_ngram_order)?;
        let opts = BleuOptions { tokenizer, lowercase, max_order: order };
        let sm = smoothing(smooth, smooth_value)?;
    }
    kernel: |s: bleu::Scratch, refs, hyp, stop| {
        let stats = bleu::segment_stats(refs, hyp, opts, s, stop)?;
        Ok(bleu::score_orders(&stats, order, sm, effective_order))
    }
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = BleuTokenizer::Tok13a, lowercase = false, smooth = SmoothMethod::Exp, smooth_value = None, effective_order = false, max_ngram_order = 4, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='13a', lowercase=False, smooth='exp', smooth_value=None, effective_order=False, max_ngram_order=4, workers=-1, max_chars=None)"
)]
#[allow(clippy::too_many_arguments)]
fn corpus_bleu(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: BleuTokenizer,
    lowercase: bool,
    smooth: SmoothMethod,
    smooth_value: Option<f64>,
    effective_order: bool,
    max_ngram_order: usize,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<f64> {
    let order = ngram_order(max_ngram_order)?;
    let (opts, sm) = (
        BleuOptions {
            tokenizer,
            lowercase,
            max_order: order,
        },
        smoothing(smooth, smooth_value)?,
    );
    let rows = ref_stats(
        py,
        &RefBatch::hold(expected, actual)?,
        workers,
        max_chars,
        1,
        |s: &mut bleu::Scratch, refs, hyp, stop, cell: &mut [BleuStats]| {
            cell[0] = bleu::segment_stats(refs, hyp, opts, s, stop)?;
            Ok(())
        },
    )?;
    let mut total = BleuStats::default();
    rows.iter().for_each(|r| total.add(r));
    Ok(bleu::score_orders(&total, order, sm, effective_order))
}

/// `bleu_statistics(expected, actual, tokenizer='13a', lowercase=False, workers=-1,
/// max_chars=None, max_ngram_order=4)`: each row's sufficient statistics as an (n, 2 + 2·order)
/// int64 array, laid out as sacrebleu's: hypothesis length, reference length, clipped matches
/// of orders 1 to order, and hypothesis n-grams of orders 1 to order.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = BleuTokenizer::Tok13a, lowercase = false, workers = Workers::ALL, max_chars = MaxChars::NONE, max_ngram_order = bleu::DEFAULT_ORDER),
    text_signature = "(expected, actual, tokenizer='13a', lowercase=False, workers=-1, max_chars=None, max_ngram_order=4)"
)]
#[allow(clippy::too_many_arguments)]
fn bleu_statistics<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    tokenizer: BleuTokenizer,
    lowercase: bool,
    workers: Workers,
    max_chars: MaxChars,
    max_ngram_order: usize,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let order = ngram_order(max_ngram_order)?;
    let opts = BleuOptions {
        tokenizer,
        lowercase,
        max_order: order,
    };
    let rows = ref_stats(
        py,
        &RefBatch::hold(expected, actual)?,
        workers,
        max_chars,
        1,
        |s: &mut bleu::Scratch, refs, hyp, stop, cell: &mut [BleuStats]| {
            cell[0] = bleu::segment_stats(refs, hyp, opts, s, stop)?;
            Ok(())
        },
    )?;
    let width = 2 + 2 * order;
    let mut out = Vec::with_capacity(rows.len() * width);
    for r in &rows {
        out.push(r.hyp_len as i64);
        out.push(r.ref_len as i64);
        out.extend(r.correct[..order].iter().map(|&x| x as i64));
        out.extend(r.total[..order].iter().map(|&x| x as i64));
    }
    PyArray1::from_vec(py, out).reshape([rows.len(), width])
}

/// `bleu_from_statistics(statistics, smooth='exp', smooth_value=None, effective_order=False,
/// max_ngram_order=4)`: BLEU / 100 of the column sums of an (n, 2 + 2·m) statistics array
/// counted to order m ≥ max_ngram_order (one row: that row's score).
#[pyfunction]
#[pyo3(
    signature = (statistics, smooth = SmoothMethod::Exp, smooth_value = None, effective_order = false, max_ngram_order = 4),
    text_signature = "(statistics, smooth='exp', smooth_value=None, effective_order=False, max_ngram_order=4)"
)]
fn bleu_from_statistics(
    statistics: PyReadonlyArray2<'_, i64>,
    smooth: SmoothMethod,
    smooth_value: Option<f64>,
    effective_order: bool,
    max_ngram_order: usize,
) -> PyResult<f64> {
    let sm = smoothing(smooth, smooth_value)?;
    let order = ngram_order(max_ngram_order)?;
    let mut total = BleuStats::default();
    for one in &stats_rows(statistics.as_array(), order)? {
        total.add(one);
    }
    Ok(bleu::score_orders(&total, order, sm, effective_order))
}

/// The rows of a statistics array as [`BleuStats`]: (n, 2 + 2·m) columns, counted to order
/// m (at least `order`, at most [`bleu::MAX_ORDER`]), none negative.
fn stats_rows(view: numpy::ndarray::ArrayView2<'_, i64>, order: usize) -> PyResult<Vec<BleuStats>> {
    let ncols = view.ncols();
    let counted = ncols.saturating_sub(2) / 2;
    if ncols < 2 || !ncols.is_multiple_of(2) || counted < order || counted > bleu::MAX_ORDER {
        return Err(EvalError::input(format!(
            "statistics must have 2 + 2·m columns with max_ngram_order={order} <= m <= {} \
             (as bleu_statistics(..., max_ngram_order=m) gives), got {ncols}",
            bleu::MAX_ORDER
        ))
        .into());
    }
    if view.iter().any(|&x| x < 0) {
        return Err(EvalError::input("statistics must not be negative").into());
    }
    Ok(view
        .rows()
        .into_iter()
        .map(|row| {
            let mut one = BleuStats {
                hyp_len: row[0] as u64,
                ref_len: row[1] as u64,
                ..BleuStats::default()
            };
            for k in 0..counted {
                one.correct[k] = row[2 + k] as u64;
                one.total[k] = row[2 + counted + k] as u64;
            }
            one
        })
        .collect())
}

fn chrf_options(
    char_order: CharOrder,
    word_order: WordOrder,
    beta: Beta,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
) -> PyResult<ChrfOptions> {
    if char_order.0 + word_order.0 == 0 {
        return Err(EvalError::input(
            "char_order and word_order are both 0: chrF needs at least one n-gram order",
        )
        .into());
    }
    Ok(ChrfOptions {
        char_order: char_order.0,
        word_order: word_order.0,
        beta: beta.0 as u32,
        whitespace,
        eps_smoothing,
        lowercase,
    })
}

metric_pair! {
    shape: refs,
    scalar: py_chrf = "chrf" -> f64,
        "(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False, eps_smoothing=False, lowercase=False, max_chars=None)";
    batch: chrf_batch -> f64,
        "(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False, eps_smoothing=False, lowercase=False, workers=-1, max_chars=None)";
    options: (
        char_order: CharOrder = CharOrder(6),
        word_order: WordOrder = WordOrder(0),
        beta: Beta = Beta(2),
        whitespace: bool = false,
        eps_smoothing: bool = false,
        lowercase: bool = false,
    );
    prepare: {
        let opts = chrf_options(char_order, word_order, beta, whitespace, eps_smoothing, lowercase)?;
    }
    kernel: |s: (chrf::Scratch, Vec<OrderStats>), refs, hyp, stop| {
        chrf::segment_stats(refs, hyp, &opts, &mut s.0, &mut s.1, stop)?;
        Ok(chrf::f_score(&s.1, &opts))
    }
}

/// Each row's chrF statistics (of the reference sacrebleu picks for the row), `opts.orders()`
/// cells a row, rows in order: the sums of `corpus_chrf` and the table of `chrf_statistics`.
fn chrf_rows(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    opts: &ChrfOptions,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Vec<OrderStats>> {
    ref_stats(
        py,
        &RefBatch::hold(expected, actual)?,
        workers,
        max_chars,
        opts.orders(),
        |s: &mut (chrf::Scratch, Vec<OrderStats>), refs, hyp, stop, cells: &mut [OrderStats]| {
            chrf::segment_stats(refs, hyp, opts, &mut s.0, &mut s.1, stop)?;
            cells.copy_from_slice(&s.1);
            Ok(())
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, char_order = CharOrder(6), word_order = WordOrder(0), beta = Beta(2), whitespace = false, eps_smoothing = false, lowercase = false, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False, eps_smoothing=False, lowercase=False, workers=-1, max_chars=None)"
)]
#[allow(clippy::too_many_arguments)]
fn corpus_chrf(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    char_order: CharOrder,
    word_order: WordOrder,
    beta: Beta,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<f64> {
    let opts = chrf_options(
        char_order,
        word_order,
        beta,
        whitespace,
        eps_smoothing,
        lowercase,
    )?;
    let orders = opts.orders();
    let rows = chrf_rows(py, expected, actual, &opts, workers, max_chars)?;
    let mut total = vec![[0u64; 3]; orders];
    for row in rows.chunks(orders) {
        for (t, x) in total.iter_mut().zip(row) {
            for k in 0..3 {
                t[k] += x[k];
            }
        }
    }
    Ok(chrf::f_score(&total, &opts))
}

fn check_width(ncols: usize, width: usize, source: &str) -> PyResult<()> {
    if ncols == width {
        Ok(())
    } else {
        Err(EvalError::input(format!(
            "statistics must have {width} columns (as {source} gives), got {ncols}"
        ))
        .into())
    }
}

/// `bleu_row_scores(statistics, smooth='exp', smooth_value=None, effective_order=False,
/// max_ngram_order=4)`: BLEU / 100 of each row of an (n, 2 + 2·m) statistics array, m ≥
/// max_ngram_order (each row a sum of sentence statistics, such as one bootstrap resample).
#[pyfunction]
#[pyo3(
    signature = (statistics, smooth = SmoothMethod::Exp, smooth_value = None, effective_order = false, max_ngram_order = 4),
    text_signature = "(statistics, smooth='exp', smooth_value=None, effective_order=False, max_ngram_order=4)"
)]
fn bleu_row_scores<'py>(
    py: Python<'py>,
    statistics: PyReadonlyArray2<'py, i64>,
    smooth: SmoothMethod,
    smooth_value: Option<f64>,
    effective_order: bool,
    max_ngram_order: usize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let sm = smoothing(smooth, smooth_value)?;
    let order = ngram_order(max_ngram_order)?;
    let out = stats_rows(statistics.as_array(), order)?
        .iter()
        .map(|one| bleu::score_orders(one, order, sm, effective_order))
        .collect();
    Ok(PyArray1::from_vec(py, out))
}

/// `chrf_statistics(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False,
/// eps_smoothing=False, lowercase=False, workers=-1, max_chars=None)`: each row's chrF
/// statistics as an (n, 3·orders) int64 array laid out as sacrebleu's: for each character
/// order then each word order, [hypothesis n-grams, reference n-grams, matches] (of the
/// reference sacrebleu picks for the row).
#[pyfunction]
#[pyo3(
    signature = (expected, actual, char_order = CharOrder(6), word_order = WordOrder(0), beta = Beta(2), whitespace = false, eps_smoothing = false, lowercase = false, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False, eps_smoothing=False, lowercase=False, workers=-1, max_chars=None)"
)]
#[allow(clippy::too_many_arguments)]
fn chrf_statistics<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    char_order: CharOrder,
    word_order: WordOrder,
    beta: Beta,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let opts = chrf_options(
        char_order,
        word_order,
        beta,
        whitespace,
        eps_smoothing,
        lowercase,
    )?;
    let orders = opts.orders();
    let rows = chrf_rows(py, expected, actual, &opts, workers, max_chars)?;
    let n = rows.len() / orders;
    let out: Vec<i64> = rows
        .iter()
        .flat_map(|cell| cell.iter().map(|&x| x as i64))
        .collect();
    PyArray1::from_vec(py, out).reshape([n, 3 * orders])
}

/// `chrf_row_scores(statistics, char_order=6, word_order=0, beta=2, eps_smoothing=False)`:
/// chrF / 100 of each row of a `chrf_statistics` array (each row a sum of sentence
/// statistics, such as one bootstrap resample).
#[pyfunction]
#[pyo3(
    signature = (statistics, char_order = CharOrder(6), word_order = WordOrder(0), beta = Beta(2), eps_smoothing = false),
    text_signature = "(statistics, char_order=6, word_order=0, beta=2, eps_smoothing=False)"
)]
fn chrf_row_scores<'py>(
    py: Python<'py>,
    statistics: PyReadonlyArray2<'py, i64>,
    char_order: CharOrder,
    word_order: WordOrder,
    beta: Beta,
    eps_smoothing: bool,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let opts = chrf_options(char_order, word_order, beta, false, eps_smoothing, false)?;
    let orders = opts.orders();
    let view = statistics.as_array();
    check_width(view.ncols(), 3 * orders, "chrf_statistics")?;
    let mut cells: Vec<OrderStats> = vec![[0u64; 3]; orders];
    let mut out = Vec::with_capacity(view.nrows());
    for row in view.rows() {
        if row.iter().any(|&x| x < 0) {
            return Err(EvalError::input("statistics must not be negative").into());
        }
        for (k, cell) in cells.iter_mut().enumerate() {
            *cell = [
                row[3 * k] as u64,
                row[3 * k + 1] as u64,
                row[3 * k + 2] as u64,
            ];
        }
        out.push(chrf::f_score(&cells, &opts));
    }
    Ok(PyArray1::from_vec(py, out))
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_bleu, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_batch, m)?)?;
    m.add_function(wrap_pyfunction!(corpus_bleu, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_statistics, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_from_statistics, m)?)?;
    m.add_function(wrap_pyfunction!(py_chrf, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_batch, m)?)?;
    m.add_function(wrap_pyfunction!(corpus_chrf, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_row_scores, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_statistics, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_row_scores, m)?)?;
    Ok(())
}
