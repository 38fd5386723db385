//! The two shapes every text metric has: one pair of `str` ([`text_pair`]), and two batches
//! scored row by row into a numpy array ([`text_batch`]). Both take the same kernel closure:
//!
//! ```text
//! |scratch: &mut S, expected: &[u8], actual: &[u8], stop: &Context| -> EvalResult<T>
//! ```
//!
//! `S` is the kernel's reusable buffers (one per thread, `S::default()`); texts are generalized
//! UTF-8; `stop` is raised when the user presses Ctrl-C and long kernels poll it. An error
//! about the pair ("expected is not valid JSON ...") is named after its row in a batch.

use std::borrow::Cow;

use numpy::{Element, PyArray1};
use pyo3::prelude::*;

use crate::batch::{fill_rows_weighted, result_array, run_watched, Workers};
use crate::errors::{EvalError, EvalResult};
use crate::inputs::{hold, same_length, str_bytes, Held, Texts};
use crate::metrics::halt::Context;
use crate::metrics::text::count_code_points;
use crate::options::MaxChars;

/// The texts of one pair, borrowed from the two `str` (or copied, for a `str` holding lone
/// surrogates).
pub struct TextPair<'a> {
    e: Cow<'a, [u8]>,
    a: Cow<'a, [u8]>,
}

impl<'a> TextPair<'a> {
    pub fn read(expected: &'a Bound<'_, PyAny>, actual: &'a Bound<'_, PyAny>) -> PyResult<Self> {
        Ok(TextPair {
            e: str_bytes(expected, "expected")?,
            a: str_bytes(actual, "actual")?,
        })
    }
}

/// Score one pair: `text_pair(py, &TextPair::read(expected, actual)?, max_chars, kernel)`.
pub fn text_pair<'b, S, T, K>(
    py: Python<'_>,
    pair: &'b TextPair<'_>,
    max_chars: MaxChars,
    kernel: K,
) -> PyResult<T>
where
    S: Default,
    T: Send,
    K: Fn(&mut S, &'b [u8], &'b [u8], &Context) -> EvalResult<T> + Sync,
{
    let (e, a): (&'b [u8], &'b [u8]) = (&pair.e, &pair.a);
    if let Some(cap) = max_chars.0 {
        let (ne, na) = (chars_over(e, cap), chars_over(a, cap));
        if ne.is_some() || na.is_some() {
            return Err(too_long_pair(ne, na, cap).into());
        }
    }
    run_watched(py, Workers::ALL, e.len() + a.len(), |stop, _| {
        kernel(&mut S::default(), e, a, stop)
    })
}

/// Two batches of texts (sequences of `str`, or text columns) of equal length, held while the
/// GIL is released.
pub struct TextBatch<'py> {
    e: Held<'py>,
    a: Held<'py>,
}

impl<'py> TextBatch<'py> {
    pub fn hold(expected: &Bound<'py, PyAny>, actual: &Bound<'py, PyAny>) -> PyResult<Self> {
        let (e, a) = (hold(expected, "expected")?, hold(actual, "actual")?);
        same_length(e.len(), a.len())?;
        Ok(TextBatch { e, a })
    }
}

/// Score a batch pair by pair on `workers` threads, with the GIL released:
/// `text_batch(py, &TextBatch::hold(expected, actual)?, workers, max_chars, kernel)`.
pub fn text_batch<'py, 'b, S, T, K>(
    py: Python<'py>,
    batch: &'b TextBatch<'_>,
    workers: Workers,
    max_chars: MaxChars,
    kernel: K,
) -> PyResult<Bound<'py, PyArray1<T>>>
where
    S: Default,
    T: Element + Copy + Default + Send,
    K: Fn(&mut S, &'b [u8], &'b [u8], &Context) -> EvalResult<T> + Sync,
{
    let (e, a) = (batch.e.texts("expected")?, batch.a.texts("actual")?);
    let size = (e.bytes() + a.bytes()).saturating_add(16 * e.len());
    let out = run_watched(py, workers, size, |stop, workers| {
        if let Some(cap) = max_chars.0 {
            check_rows(&e, &a, cap, stop)?;
        }
        let mut out = result_array::<T>(e.len(), "the result array")?;
        let bytes = |i: usize| e.row(i).len() + a.row(i).len() + 16;
        fill_rows_weighted(&mut out, 1, workers, stop, bytes, |s: &mut S, i, cell| {
            cell[0] = kernel(s, e.row(i), a.row(i), stop).map_err(|err| err.at_row(i))?;
            Ok(())
        })?;
        Ok(out)
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// The number of code points of `text` when it is more than `cap`.
pub(crate) fn chars_over(text: &[u8], cap: usize) -> Option<usize> {
    if text.len() <= cap {
        return None; // never more code points than bytes
    }
    Some(count_code_points(text)).filter(|&n| n > cap)
}

pub(crate) fn too_long_pair(e: Option<usize>, a: Option<usize>, cap: usize) -> EvalError {
    EvalError::TooLong {
        message: format!(
            "{} more than max_chars={cap}; shorten the text or raise max_chars",
            sides(e, a)
        ),
        rows: Vec::new(),
    }
}

/// "expected has N characters" / "expected has N and actual M characters".
fn sides(e: Option<usize>, a: Option<usize>) -> String {
    match (e, a) {
        (Some(n), Some(m)) => format!("expected has {n} and actual {m} characters,"),
        (Some(n), None) => format!("expected has {n} characters,"),
        (None, Some(m)) => format!("actual has {m} characters,"),
        (None, None) => String::new(),
    }
}

/// Every row of either side over `cap` code points, or none.
pub(crate) fn check_rows(
    e: &Texts<'_>,
    a: &Texts<'_>,
    cap: usize,
    stop: &Context,
) -> EvalResult<()> {
    check_row_lengths(e.len(), cap, stop, |i| {
        (chars_over(e.row(i), cap), chars_over(a.row(i), cap))
    })
}

/// Every row of `n` whose `over(i)` (the code points of its expected and its actual side, where
/// over `cap`) names a side, or none.
pub(crate) fn check_row_lengths(
    n: usize,
    cap: usize,
    stop: &Context,
    over: impl Fn(usize) -> (Option<usize>, Option<usize>),
) -> EvalResult<()> {
    const LISTED: usize = 5;
    let mut rows = Vec::new();
    let mut listed = Vec::new();
    for i in 0..n {
        if i % 4096 == 0 {
            stop.check()?;
        }
        let (ne, na) = over(i);
        if ne.is_none() && na.is_none() {
            continue;
        }
        if listed.len() < LISTED {
            listed.push(format!("row {i}: {}", sides(ne, na).trim_end_matches(',')));
        }
        rows.push(i);
    }
    if rows.is_empty() {
        return Ok(());
    }
    let more = rows.len() - listed.len();
    let rest = if more > 0 {
        format!("; and {more} more")
    } else {
        String::new()
    };
    let n = rows.len();
    let noun = if n == 1 { "row is" } else { "rows are" };
    Err(EvalError::TooLong {
        message: format!(
            "{n} {noun} longer than max_chars={cap} ({}{rest}); drop or shorten them (their \
             indices are in this error's `rows`), or raise max_chars",
            listed.join("; ")
        ),
        rows,
    })
}
