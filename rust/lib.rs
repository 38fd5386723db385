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
mod refs;
mod vectors;

use numpy::{PyArray1, PyArray2};
use pyo3::prelude::*;

use batch::{Workers, MAX_WORKERS};
use errors::{EvalError, MetricInputError, TextTooLongError};
use metrics::bleu::{self, BleuOptions, BleuStats, Smooth, SmoothMethod};
use metrics::bleu_tokenize::BleuTokenizer;
use metrics::chrf::{self, ChrfOptions, OrderStats};
use metrics::json::{self, Numbers};
use metrics::levenshtein;
use metrics::rouge_l::{Measure, Tokenizer};
use metrics::rouge_tokens::{self, Stemmer, TokenScratch};
use metrics::token_f1::{self, Normalizer};
use metrics::{rouge_lsum, rouge_n};
use options::{Beta, CharOrder, MaxChars, NgramOrder, WordOrder};
use pairs::{text_batch, text_pair, TextBatch, TextPair};
use refs::{ref_batch, ref_pair, ref_stats, RefBatch};

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

// ---- ROUGE-L, ROUGE-N, ROUGE-Lsum ----------------------------------------------------------

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = Tokenizer::Rouge, measure = Measure::F, stemmer = Stemmer::None, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='rouge', measure='fmeasure', stemmer=None, max_chars=None)",
    name = "rouge_l"
)]
fn py_rouge_l(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: Tokenizer,
    measure: Measure,
    stemmer: Stemmer,
    max_chars: MaxChars,
) -> PyResult<f64> {
    text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut TokenScratch, e, a, _| {
            Ok(rouge_tokens::rouge_l_stemmed(e, a, tokenizer, stemmer, s).get(measure))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = Tokenizer::Rouge, measure = Measure::F, stemmer = Stemmer::None, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='rouge', measure='fmeasure', stemmer=None, workers=-1, max_chars=None)"
)]
#[allow(clippy::too_many_arguments)]
fn rouge_l_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    tokenizer: Tokenizer,
    measure: Measure,
    stemmer: Stemmer,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    text_batch(
        py,
        &TextBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s: &mut TokenScratch, e, a, _| {
            Ok(rouge_tokens::rouge_l_stemmed(e, a, tokenizer, stemmer, s).get(measure))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, n = NgramOrder(1), tokenizer = Tokenizer::Rouge, stemmer = Stemmer::None, measure = Measure::F, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, n=1, tokenizer='rouge', stemmer=None, measure='fmeasure', max_chars=None)",
    name = "rouge_n"
)]
#[allow(clippy::too_many_arguments)]
fn py_rouge_n(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    n: NgramOrder,
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    measure: Measure,
    max_chars: MaxChars,
) -> PyResult<f64> {
    let n = rouge_n::order(n.0);
    text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut rouge_n::Scratch, e, a, _| {
            Ok(rouge_n::rouge_n(e, a, n, tokenizer, stemmer, s).get(measure))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, n = NgramOrder(1), tokenizer = Tokenizer::Rouge, stemmer = Stemmer::None, measure = Measure::F, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, n=1, tokenizer='rouge', stemmer=None, measure='fmeasure', workers=-1, max_chars=None)"
)]
#[allow(clippy::too_many_arguments)]
fn rouge_n_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    n: NgramOrder,
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    measure: Measure,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let n = rouge_n::order(n.0);
    text_batch(
        py,
        &TextBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s: &mut rouge_n::Scratch, e, a, _| {
            Ok(rouge_n::rouge_n(e, a, n, tokenizer, stemmer, s).get(measure))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = Tokenizer::Rouge, stemmer = Stemmer::None, measure = Measure::F, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='rouge', stemmer=None, measure='fmeasure', max_chars=None)",
    name = "rouge_lsum"
)]
fn py_rouge_lsum(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    measure: Measure,
    max_chars: MaxChars,
) -> PyResult<f64> {
    text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut rouge_lsum::Scratch, e, a, stop| {
            Ok(rouge_lsum::rouge_lsum(e, a, tokenizer, stemmer, s, stop)?.get(measure))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = Tokenizer::Rouge, stemmer = Stemmer::None, measure = Measure::F, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='rouge', stemmer=None, measure='fmeasure', workers=-1, max_chars=None)"
)]
#[allow(clippy::too_many_arguments)]
fn rouge_lsum_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    measure: Measure,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    text_batch(
        py,
        &TextBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s: &mut rouge_lsum::Scratch, e, a, stop| {
            Ok(rouge_lsum::rouge_lsum(e, a, tokenizer, stemmer, s, stop)?.get(measure))
        },
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

// ---- BLEU -----------------------------------------------------------------------------------

fn smoothing(method: SmoothMethod, value: Option<f64>) -> PyResult<Smooth> {
    Smooth::new(method, value).map_err(|msg| EvalError::input(msg).into())
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = BleuTokenizer::Tok13a, lowercase = false, smooth = SmoothMethod::Exp, smooth_value = None, effective_order = true, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='13a', lowercase=False, smooth='exp', smooth_value=None, effective_order=True, max_chars=None)",
    name = "bleu"
)]
#[allow(clippy::too_many_arguments)]
fn py_bleu(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: BleuTokenizer,
    lowercase: bool,
    smooth: SmoothMethod,
    smooth_value: Option<f64>,
    effective_order: bool,
    max_chars: MaxChars,
) -> PyResult<f64> {
    let (opts, sm) = (
        BleuOptions {
            tokenizer,
            lowercase,
        },
        smoothing(smooth, smooth_value)?,
    );
    ref_pair(
        py,
        &RefBatch::pair(expected, actual)?,
        max_chars,
        |s: &mut bleu::Scratch, refs, hyp, _| {
            Ok(bleu::score(
                &bleu::segment_stats(refs, hyp, opts, s),
                sm,
                effective_order,
            ))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = BleuTokenizer::Tok13a, lowercase = false, smooth = SmoothMethod::Exp, smooth_value = None, effective_order = true, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='13a', lowercase=False, smooth='exp', smooth_value=None, effective_order=True, workers=-1, max_chars=None)"
)]
#[allow(clippy::too_many_arguments)]
fn bleu_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    tokenizer: BleuTokenizer,
    lowercase: bool,
    smooth: SmoothMethod,
    smooth_value: Option<f64>,
    effective_order: bool,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (opts, sm) = (
        BleuOptions {
            tokenizer,
            lowercase,
        },
        smoothing(smooth, smooth_value)?,
    );
    ref_batch(
        py,
        &RefBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s: &mut bleu::Scratch, refs, hyp, _| {
            Ok(bleu::score(
                &bleu::segment_stats(refs, hyp, opts, s),
                sm,
                effective_order,
            ))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, tokenizer = BleuTokenizer::Tok13a, lowercase = false, smooth = SmoothMethod::Exp, smooth_value = None, effective_order = false, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, tokenizer='13a', lowercase=False, smooth='exp', smooth_value=None, effective_order=False, workers=-1, max_chars=None)"
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
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<f64> {
    let (opts, sm) = (
        BleuOptions {
            tokenizer,
            lowercase,
        },
        smoothing(smooth, smooth_value)?,
    );
    let rows = ref_stats(
        py,
        &RefBatch::hold(expected, actual)?,
        workers,
        max_chars,
        1,
        |s: &mut bleu::Scratch, refs, hyp, _, cell: &mut [BleuStats]| {
            cell[0] = bleu::segment_stats(refs, hyp, opts, s);
            Ok(())
        },
    )?;
    let mut total = BleuStats::default();
    rows.iter().for_each(|r| total.add(r));
    Ok(bleu::score(&total, sm, effective_order))
}

// ---- chrF -----------------------------------------------------------------------------------

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

#[pyfunction]
#[pyo3(
    signature = (expected, actual, char_order = CharOrder(6), word_order = WordOrder(0), beta = Beta(2), whitespace = false, eps_smoothing = false, lowercase = false, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False, eps_smoothing=False, lowercase=False, max_chars=None)",
    name = "chrf"
)]
#[allow(clippy::too_many_arguments)]
fn py_chrf(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    char_order: CharOrder,
    word_order: WordOrder,
    beta: Beta,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
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
    ref_pair(
        py,
        &RefBatch::pair(expected, actual)?,
        max_chars,
        |s: &mut (chrf::Scratch, Vec<OrderStats>), refs, hyp, _| {
            chrf::segment_stats(refs, hyp, &opts, &mut s.0, &mut s.1);
            Ok(chrf::f_score(&s.1, &opts))
        },
    )
}

#[pyfunction]
#[pyo3(
    signature = (expected, actual, char_order = CharOrder(6), word_order = WordOrder(0), beta = Beta(2), whitespace = false, eps_smoothing = false, lowercase = false, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False, eps_smoothing=False, lowercase=False, workers=-1, max_chars=None)"
)]
#[allow(clippy::too_many_arguments)]
fn chrf_batch<'py>(
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
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let opts = chrf_options(
        char_order,
        word_order,
        beta,
        whitespace,
        eps_smoothing,
        lowercase,
    )?;
    ref_batch(
        py,
        &RefBatch::hold(expected, actual)?,
        workers,
        max_chars,
        |s: &mut (chrf::Scratch, Vec<OrderStats>), refs, hyp, _| {
            chrf::segment_stats(refs, hyp, &opts, &mut s.0, &mut s.1);
            Ok(chrf::f_score(&s.1, &opts))
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
    let rows = ref_stats(
        py,
        &RefBatch::hold(expected, actual)?,
        workers,
        max_chars,
        orders,
        |s: &mut (chrf::Scratch, Vec<OrderStats>), refs, hyp, _, cells: &mut [OrderStats]| {
            chrf::segment_stats(refs, hyp, &opts, &mut s.0, &mut s.1);
            cells.copy_from_slice(&s.1);
            Ok(())
        },
    )?;
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
    m.add_function(wrap_pyfunction!(py_rouge_n, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_n_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_rouge_lsum, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_lsum_batch, m)?)?;
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
    m.add("REGEX_VERSION", metrics::REGEX_VERSION)?;
    m.add_function(wrap_pyfunction!(py_bleu, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_batch, m)?)?;
    m.add_function(wrap_pyfunction!(corpus_bleu, m)?)?;
    m.add_function(wrap_pyfunction!(py_chrf, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_batch, m)?)?;
    m.add_function(wrap_pyfunction!(corpus_chrf, m)?)?;
    Ok(())
}
