//! Bindings of ROUGE-N, ROUGE-Lsum, BLEU and chrF: argument checks, holding the texts, and the
//! kernels run with the GIL released. References for BLEU and chrF are a `str` or a sequence of
//! `str` per row.

use numpy::PyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::batch::{check_workers, map_rows};
use crate::errors::{EvalError, EvalResult};
use crate::inputs::{choice, hold, same_length, str_bytes, Held, Texts};
use crate::metrics::bleu::{self, BleuOptions, BleuStats, Smooth};
use crate::metrics::bleu_tokenize::BleuTokenizer;
use crate::metrics::chrf::{self, ChrfOptions, OrderStats};
use crate::metrics::rouge_lsum;
use crate::metrics::rouge_n;
use crate::metrics::rouge_tokens::{self, Stemmer};
use crate::{measure, pick, tokenizer};
use std::num::NonZeroUsize;

pub fn stemmer(name: Option<&str>) -> EvalResult<Stemmer> {
    match name {
        None => Ok(Stemmer::None),
        Some(s) => {
            choice("stemmer", s, &["porter"])?;
            Ok(Stemmer::Porter)
        }
    }
}

fn order_n(n: isize) -> EvalResult<NonZeroUsize> {
    usize::try_from(n)
        .ok()
        .and_then(NonZeroUsize::new)
        .ok_or_else(|| EvalError::input(format!("n must be a positive int, got {n}")))
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an unknown type".into())
}

// ---- ROUGE-N, ROUGE-Lsum, stemmed ROUGE-L ----------------------------------------------------

#[pyfunction]
#[pyo3(signature = (expected, actual, n = 1, tokenizer = "rouge", stemmer = None, measure = "fmeasure"), name = "rouge_n")]
pub fn py_rouge_n(
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    n: isize,
    tokenizer: &str,
    stemmer: Option<&str>,
    measure: &str,
) -> PyResult<f64> {
    let (n, t, st, m) = (
        order_n(n)?,
        self::tokenizer(tokenizer)?,
        self::stemmer(stemmer)?,
        self::measure(measure)?,
    );
    let (e, a) = (
        str_bytes(expected, "expected")?,
        str_bytes(actual, "actual")?,
    );
    Ok(pick(
        rouge_n::rouge_n(&e, &a, n, t, st, &mut Default::default()),
        m,
    ))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, n = 1, tokenizer = "rouge", stemmer = None, measure = "fmeasure", workers = -1), text_signature = "(expected, actual, n=1, tokenizer='rouge', stemmer=None, measure='fmeasure', workers=-1)")]
#[allow(clippy::too_many_arguments)]
pub fn rouge_n_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    n: isize,
    tokenizer: &str,
    stemmer: Option<&str>,
    measure: &str,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (n, t, st, m) = (
        order_n(n)?,
        self::tokenizer(tokenizer)?,
        self::stemmer(stemmer)?,
        self::measure(measure)?,
    );
    let (he, ha) = crate::hold_pair(expected, actual, workers)?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let out = py.detach(|| {
        map_rows(e.len(), workers, |s: &mut rouge_n::Scratch, i| {
            pick(rouge_n::rouge_n(e.row(i), a.row(i), n, t, st, s), m)
        })
    })?;
    Ok(PyArray1::from_vec(py, out))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, tokenizer = "rouge", stemmer = None, measure = "fmeasure"), name = "rouge_lsum")]
pub fn py_rouge_lsum(
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: &str,
    stemmer: Option<&str>,
    measure: &str,
) -> PyResult<f64> {
    let (t, st, m) = (
        self::tokenizer(tokenizer)?,
        self::stemmer(stemmer)?,
        self::measure(measure)?,
    );
    let (e, a) = (
        str_bytes(expected, "expected")?,
        str_bytes(actual, "actual")?,
    );
    Ok(pick(
        rouge_lsum::rouge_lsum(&e, &a, t, st, &mut Default::default()),
        m,
    ))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, tokenizer = "rouge", stemmer = None, measure = "fmeasure", workers = -1), text_signature = "(expected, actual, tokenizer='rouge', stemmer=None, measure='fmeasure', workers=-1)")]
pub fn rouge_lsum_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    tokenizer: &str,
    stemmer: Option<&str>,
    measure: &str,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let (t, st, m) = (
        self::tokenizer(tokenizer)?,
        self::stemmer(stemmer)?,
        self::measure(measure)?,
    );
    let (he, ha) = crate::hold_pair(expected, actual, workers)?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let out = py.detach(|| {
        map_rows(e.len(), workers, |s: &mut rouge_lsum::Scratch, i| {
            pick(rouge_lsum::rouge_lsum(e.row(i), a.row(i), t, st, s), m)
        })
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// ROUGE-L of one pair with an optional stemmer (the scalar `rouge_l` binding calls this).
pub fn rouge_l_one(
    e: &[u8],
    a: &[u8],
    t: crate::metrics::rouge_l::Tokenizer,
    st: Stemmer,
) -> crate::metrics::rouge_l::RougeScore {
    rouge_tokens::rouge_l_stemmed(e, a, t, st, &mut Default::default())
}

// ---- references ------------------------------------------------------------------------------

/// The references of a batch, every row's references held (in one flat batch) while the GIL
/// is released: row i's references are `flat[bounds[i].0..bounds[i].1]`.
pub struct Refs<'py> {
    held: Held<'py>,
    bounds: Vec<(usize, usize)>,
}

/// Row i's references as byte slices.
pub struct RefRows<'a> {
    texts: Texts<'a>,
    bounds: &'a [(usize, usize)],
}

impl RefRows<'_> {
    pub fn len(&self) -> usize {
        self.bounds.len()
    }

    pub fn row(&self, i: usize) -> Vec<&[u8]> {
        let (b, e) = self.bounds[i];
        (b..e).map(|k| self.texts.row(k)).collect()
    }
}

impl<'py> Refs<'py> {
    pub fn rows(&self) -> PyResult<RefRows<'_>> {
        Ok(RefRows {
            texts: self.held.texts("expected")?,
            bounds: &self.bounds,
        })
    }

    pub fn len(&self) -> usize {
        self.bounds.len()
    }
}

/// The references of one row (a `str`, or a non-empty sequence of `str`), appended to `flat`.
/// `row` names the row in messages (None for a scalar call).
fn push_refs<'py>(
    item: &Bound<'py, PyAny>,
    row: Option<usize>,
    flat: &Bound<'py, PyList>,
) -> PyResult<()> {
    let at = row.map_or("expected".to_string(), |r| format!("row {r} of expected"));
    if item.is_instance_of::<PyString>() {
        return flat.append(item);
    }
    let Ok(iter) = item.try_iter() else {
        return Err(EvalError::Type(format!(
            "{at} must be a str or a sequence of str (its references), got {}",
            type_name(item)
        ))
        .into());
    };
    let before = flat.len();
    for (j, x) in iter.enumerate() {
        let x = x?;
        if !x.is_instance_of::<PyString>() {
            return Err(EvalError::Type(format!(
                "{at}: reference {j} must be str, got {}",
                type_name(&x)
            ))
            .into());
        }
        flat.append(x)?;
    }
    if flat.len() == before {
        return Err(EvalError::input(match row {
            None => "expected needs at least one reference".to_string(),
            Some(r) => format!("row {r} of expected has no reference; give at least one"),
        })
        .into());
    }
    Ok(())
}

/// Hold the references of a batch: a sequence whose items are `str` or sequences of `str`, or
/// the column form of a `TextColumn` (one reference per row).
pub fn hold_refs<'py>(expected: &Bound<'py, PyAny>) -> PyResult<Refs<'py>> {
    let py = expected.py();
    if expected.is_instance_of::<PyString>() {
        return Err(EvalError::Type(
            "expected must be a sequence of references, got a single str (wrap it in a list)"
                .into(),
        )
        .into());
    }
    if let Ok(t) = expected.cast::<PyTuple>() {
        if t.len() == 2 && !t.get_item(0)?.is_instance_of::<PyString>() {
            if let Ok(held) = hold(expected, "expected") {
                let bounds = (0..held.len()).map(|i| (i, i + 1)).collect();
                return Ok(Refs { held, bounds });
            }
        }
    }
    let iter = expected.try_iter().map_err(|_| {
        EvalError::Type(format!(
            "expected must be a sequence of references, got {}",
            type_name(expected)
        ))
    })?;
    let flat = PyList::empty(py);
    let mut bounds = Vec::new();
    for (i, item) in iter.enumerate() {
        let begin = flat.len();
        push_refs(&item?, Some(i), &flat)?;
        bounds.push((begin, flat.len()));
    }
    Ok(Refs {
        held: hold(&flat, "expected")?,
        bounds,
    })
}

/// The references of one scalar call, as owned bytes.
fn scalar_refs(expected: &Bound<'_, PyAny>) -> PyResult<Vec<Vec<u8>>> {
    if !expected.is_instance_of::<PyString>() && expected.try_iter().is_err() {
        return Err(EvalError::Type(format!(
            "expected must be a str or a sequence of str (the references), got {}",
            type_name(expected)
        ))
        .into());
    }
    let flat = PyList::empty(expected.py());
    push_refs(expected, None, &flat)?;
    flat.iter()
        .map(|x| str_bytes(&x, "a reference"))
        .collect::<PyResult<Vec<_>>>()
}

fn hold_ref_batch<'py>(
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    workers: isize,
) -> PyResult<(Refs<'py>, Held<'py>)> {
    check_workers(workers)?;
    let refs = hold_refs(expected)?;
    let hyps = hold(actual, "actual")?;
    same_length(refs.len(), hyps.len())?;
    Ok((refs, hyps))
}

// ---- BLEU ------------------------------------------------------------------------------------

fn bleu_tokenizer(name: &str) -> EvalResult<BleuTokenizer> {
    Ok(match choice("tokenizer", name, &["13a", "intl", "none"])? {
        "13a" => BleuTokenizer::Tok13a,
        "intl" => BleuTokenizer::Intl,
        _ => BleuTokenizer::None,
    })
}

fn smooth(name: &str, value: Option<f64>) -> EvalResult<Smooth> {
    let method = choice("smooth", name, &["exp", "floor", "add-k", "none"])?;
    if let Some(v) = value {
        if !matches!(method, "floor" | "add-k") {
            return Err(EvalError::input(format!(
                "smooth_value applies to smooth='floor' and 'add-k' only, not {method:?}; leave it None"
            )));
        }
        if !(v.is_finite() && v >= 0.0) {
            return Err(EvalError::input(format!(
                "smooth_value must be a finite number of 0 or more, got {v}"
            )));
        }
    }
    Ok(match method {
        "exp" => Smooth::Exp,
        "floor" => Smooth::Floor(value.unwrap_or(0.1)),
        "add-k" => Smooth::AddK(value.unwrap_or(1.0)),
        _ => Smooth::None,
    })
}

#[pyfunction]
#[pyo3(signature = (expected, actual, tokenizer = "13a", lowercase = false, smooth = "exp", smooth_value = None, effective_order = true), name = "bleu")]
pub fn py_bleu(
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: &str,
    lowercase: bool,
    smooth: &str,
    smooth_value: Option<f64>,
    effective_order: bool,
) -> PyResult<f64> {
    let opts = BleuOptions {
        tokenizer: bleu_tokenizer(tokenizer)?,
        lowercase,
    };
    let sm = self::smooth(smooth, smooth_value)?;
    let refs = scalar_refs(expected)?;
    let hyp = str_bytes(actual, "actual")?;
    let refs: Vec<&[u8]> = refs.iter().map(|r| r.as_slice()).collect();
    let py = expected.py();
    Ok(py.detach(|| {
        let st = bleu::segment_stats(&refs, &hyp, opts, &mut Default::default());
        bleu::score(&st, sm, effective_order)
    }))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, tokenizer = "13a", lowercase = false, smooth = "exp", smooth_value = None, effective_order = true, workers = -1), text_signature = "(expected, actual, tokenizer='13a', lowercase=False, smooth='exp', smooth_value=None, effective_order=True, workers=-1)")]
#[allow(clippy::too_many_arguments)]
pub fn bleu_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    tokenizer: &str,
    lowercase: bool,
    smooth: &str,
    smooth_value: Option<f64>,
    effective_order: bool,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let opts = BleuOptions {
        tokenizer: bleu_tokenizer(tokenizer)?,
        lowercase,
    };
    let sm = self::smooth(smooth, smooth_value)?;
    let (refs, hyps) = hold_ref_batch(expected, actual, workers)?;
    let (r, h) = (refs.rows()?, hyps.texts("actual")?);
    let out = py.detach(|| {
        map_rows(r.len(), workers, |s: &mut bleu::Scratch, i| {
            let st = bleu::segment_stats(&r.row(i), h.row(i), opts, s);
            bleu::score(&st, sm, effective_order)
        })
    })?;
    Ok(PyArray1::from_vec(py, out))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, tokenizer = "13a", lowercase = false, smooth = "exp", smooth_value = None, effective_order = false, workers = -1), text_signature = "(expected, actual, tokenizer='13a', lowercase=False, smooth='exp', smooth_value=None, effective_order=False, workers=-1)")]
#[allow(clippy::too_many_arguments)]
pub fn corpus_bleu(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    tokenizer: &str,
    lowercase: bool,
    smooth: &str,
    smooth_value: Option<f64>,
    effective_order: bool,
    workers: isize,
) -> PyResult<f64> {
    let opts = BleuOptions {
        tokenizer: bleu_tokenizer(tokenizer)?,
        lowercase,
    };
    let sm = self::smooth(smooth, smooth_value)?;
    let (refs, hyps) = hold_ref_batch(expected, actual, workers)?;
    let (r, h) = (refs.rows()?, hyps.texts("actual")?);
    let total = py.detach(|| -> EvalResult<BleuStats> {
        let rows = map_rows(r.len(), workers, |s: &mut bleu::Scratch, i| {
            bleu::segment_stats(&r.row(i), h.row(i), opts, s)
        })?;
        let mut total = BleuStats::default();
        for st in &rows {
            total.add(st);
        }
        Ok(total)
    })?;
    Ok(bleu::score(&total, sm, effective_order))
}

// ---- chrF ------------------------------------------------------------------------------------

fn chrf_options(
    char_order: isize,
    word_order: isize,
    beta: isize,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
) -> EvalResult<ChrfOptions> {
    let count = |name: &str, v: isize| {
        usize::try_from(v)
            .map_err(|_| EvalError::input(format!("{name} must be 0 or more, got {v}")))
    };
    let (c, w) = (
        count("char_order", char_order)?,
        count("word_order", word_order)?,
    );
    if c + w == 0 {
        return Err(EvalError::input(
            "char_order and word_order are both 0: chrF needs at least one n-gram order",
        ));
    }
    let beta = u32::try_from(beta)
        .map_err(|_| EvalError::input(format!("beta must be an int of 0 or more, got {beta}")))?;
    Ok(ChrfOptions {
        char_order: c,
        word_order: w,
        beta,
        whitespace,
        eps_smoothing,
        lowercase,
    })
}

#[pyfunction]
#[pyo3(signature = (expected, actual, char_order = 6, word_order = 0, beta = 2, whitespace = false, eps_smoothing = false, lowercase = false), name = "chrf")]
#[allow(clippy::too_many_arguments)]
pub fn py_chrf(
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    char_order: isize,
    word_order: isize,
    beta: isize,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
) -> PyResult<f64> {
    let opts = chrf_options(
        char_order,
        word_order,
        beta,
        whitespace,
        eps_smoothing,
        lowercase,
    )?;
    let refs = scalar_refs(expected)?;
    let hyp = str_bytes(actual, "actual")?;
    let refs: Vec<&[u8]> = refs.iter().map(|r| r.as_slice()).collect();
    Ok(expected.py().detach(|| {
        let mut stats = Vec::new();
        chrf::segment_stats(&refs, &hyp, &opts, &mut Default::default(), &mut stats);
        chrf::f_score(&stats, &opts)
    }))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, char_order = 6, word_order = 0, beta = 2, whitespace = false, eps_smoothing = false, lowercase = false, workers = -1), text_signature = "(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False, eps_smoothing=False, lowercase=False, workers=-1)")]
#[allow(clippy::too_many_arguments)]
pub fn chrf_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    char_order: isize,
    word_order: isize,
    beta: isize,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
    workers: isize,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let opts = chrf_options(
        char_order,
        word_order,
        beta,
        whitespace,
        eps_smoothing,
        lowercase,
    )?;
    let (refs, hyps) = hold_ref_batch(expected, actual, workers)?;
    let (r, h) = (refs.rows()?, hyps.texts("actual")?);
    let out = py.detach(|| {
        map_rows(
            r.len(),
            workers,
            |s: &mut (chrf::Scratch, Vec<OrderStats>), i| {
                chrf::segment_stats(&r.row(i), h.row(i), &opts, &mut s.0, &mut s.1);
                chrf::f_score(&s.1, &opts)
            },
        )
    })?;
    Ok(PyArray1::from_vec(py, out))
}

#[pyfunction]
#[pyo3(signature = (expected, actual, char_order = 6, word_order = 0, beta = 2, whitespace = false, eps_smoothing = false, lowercase = false, workers = -1), text_signature = "(expected, actual, char_order=6, word_order=0, beta=2, whitespace=False, eps_smoothing=False, lowercase=False, workers=-1)")]
#[allow(clippy::too_many_arguments)]
pub fn corpus_chrf(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    char_order: isize,
    word_order: isize,
    beta: isize,
    whitespace: bool,
    eps_smoothing: bool,
    lowercase: bool,
    workers: isize,
) -> PyResult<f64> {
    let opts = chrf_options(
        char_order,
        word_order,
        beta,
        whitespace,
        eps_smoothing,
        lowercase,
    )?;
    let (refs, hyps) = hold_ref_batch(expected, actual, workers)?;
    let (r, h) = (refs.rows()?, hyps.texts("actual")?);
    let total = py.detach(|| -> EvalResult<Vec<OrderStats>> {
        let rows = map_rows(r.len(), workers, |s: &mut chrf::Scratch, i| {
            let mut stats = Vec::new();
            chrf::segment_stats(&r.row(i), h.row(i), &opts, s, &mut stats);
            stats
        })?;
        let mut total = vec![[0u64; 3]; opts.orders()];
        for st in &rows {
            for (t, x) in total.iter_mut().zip(st) {
                for k in 0..3 {
                    t[k] += x[k];
                }
            }
        }
        Ok(total)
    })?;
    Ok(chrf::f_score(&total, &opts))
}

/// Register every function of this file.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("REGEX_VERSION", crate::metrics::REGEX_VERSION)?;
    m.add_function(wrap_pyfunction!(py_rouge_n, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_n_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_rouge_lsum, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_lsum_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_bleu, m)?)?;
    m.add_function(wrap_pyfunction!(bleu_batch, m)?)?;
    m.add_function(wrap_pyfunction!(corpus_bleu, m)?)?;
    m.add_function(wrap_pyfunction!(py_chrf, m)?)?;
    m.add_function(wrap_pyfunction!(chrf_batch, m)?)?;
    m.add_function(wrap_pyfunction!(corpus_chrf, m)?)?;
    Ok(())
}
