//! The shapes of reference-based metrics (BLEU, chrF): each row is a hypothesis (`actual`, a
//! `str`) and its references (`expected`: a `str`, or a non-empty sequence of `str`). One pair
//! ([`ref_pair`]), a batch scored row by row ([`ref_batch`]), and a batch turned into per-row
//! statistics for a corpus score ([`ref_stats`]). The kernel closure is
//!
//! ```text
//! |scratch: &mut S, refs: &[&[u8]], hyp: &[u8], stop: &Context| -> EvalResult<T>
//! ```
//!
//! as in `pairs.rs`, with the references of the row in order.

use numpy::{Element, PyArray1};
use pyo3::prelude::*;
use pyo3::types::{PyList, PyString, PyTuple};

use crate::batch::{fill_rows_weighted, result_array, run_watched, Workers};
use crate::errors::{EvalError, EvalResult};
use crate::inputs::{hold, same_length, type_name, Held, Texts};
use crate::metrics::halt::Context;
use crate::options::MaxChars;
use crate::pairs::{chars_over, check_row_lengths, too_long_pair};

/// References and hypotheses held while the GIL is released: row i's references are
/// `refs[bounds[i].0..bounds[i].1]`, its hypothesis `hyps[i]`.
pub struct RefBatch<'py> {
    refs: Held<'py>,
    bounds: Vec<(usize, usize)>,
    hyps: Held<'py>,
}

/// Append the references of one row (a `str`, or a non-empty sequence of `str`) to `flat`;
/// `row` names the row in messages (`None` for a single pair).
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

impl<'py> RefBatch<'py> {
    /// One pair: `expected` a `str` or a sequence of `str`, `actual` a `str`.
    pub fn pair(expected: &Bound<'py, PyAny>, actual: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = expected.py();
        if !actual.is_instance_of::<PyString>() {
            return Err(
                EvalError::Type(format!("actual must be str, got {}", type_name(actual))).into(),
            );
        }
        let flat = PyList::empty(py);
        push_refs(expected, None, &flat)?;
        let hyps = PyList::new(py, [actual])?.into_any();
        Ok(RefBatch {
            bounds: vec![(0, flat.len())],
            refs: hold(flat.as_any(), "expected")?,
            hyps: hold(&hyps, "actual")?,
        })
    }

    /// A batch: `expected` a sequence whose items are a `str` or a sequence of `str` (or a text
    /// column, one reference per row), `actual` a sequence of `str` or a text column.
    pub fn hold(expected: &Bound<'py, PyAny>, actual: &Bound<'py, PyAny>) -> PyResult<Self> {
        let py = expected.py();
        if expected.is_instance_of::<PyString>() {
            return Err(EvalError::Type(
                "expected must be a sequence of references, got a single str (wrap it in a list)"
                    .into(),
            )
            .into());
        }
        let hyps = hold(actual, "actual")?;
        if let Ok(t) = expected.cast::<PyTuple>() {
            // The column form of a TextColumn: one reference per row.
            if t.len() == 2 && !t.get_item(0)?.is_instance_of::<PyString>() {
                if let Ok(refs) = hold(expected, "expected") {
                    same_length(refs.len(), hyps.len())?;
                    let bounds = (0..refs.len()).map(|i| (i, i + 1)).collect();
                    return Ok(RefBatch { refs, bounds, hyps });
                }
            }
        }
        if expected.is_instance_of::<PyList>() || expected.is_instance_of::<PyTuple>() {
            // One `str` per row (the usual case): held as it is, with no list of references
            // built first. A row holding a list of references makes `hold` refuse it, and the
            // rows are then read one by one below.
            if let Ok(refs) = hold(expected, "expected") {
                same_length(refs.len(), hyps.len())?;
                let bounds = (0..refs.len()).map(|i| (i, i + 1)).collect();
                return Ok(RefBatch { refs, bounds, hyps });
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
        same_length(bounds.len(), hyps.len())?;
        Ok(RefBatch {
            refs: hold(flat.as_any(), "expected")?,
            bounds,
            hyps,
        })
    }

    fn rows(&self) -> PyResult<Rows<'_>> {
        Ok(Rows {
            refs: self.refs.texts("expected")?,
            bounds: &self.bounds,
            hyps: self.hyps.texts("actual")?,
        })
    }
}

struct Rows<'a> {
    refs: Texts<'a>,
    bounds: &'a [(usize, usize)],
    hyps: Texts<'a>,
}

impl<'a> Rows<'a> {
    fn len(&self) -> usize {
        self.bounds.len()
    }

    /// Row i's references, into `out`.
    fn refs_into(&self, i: usize, out: &mut Vec<&'a [u8]>) {
        out.clear();
        let (b, e) = self.bounds[i];
        out.extend((b..e).map(|k| self.refs.row(k)));
    }

    /// The bytes of row i's references and hypothesis (and a little for the row itself).
    fn bytes(&self, i: usize) -> usize {
        let (b, e) = self.bounds[i];
        (b..e).map(|k| self.refs.row(k).len()).sum::<usize>() + self.hyps.row(i).len() + 16
    }

    fn size(&self) -> usize {
        (self.refs.bytes() + self.hyps.bytes()).saturating_add(16 * self.len())
    }

    /// The code points of row i's longest reference and of its hypothesis, where over `cap`.
    fn over(&self, i: usize, cap: usize) -> (Option<usize>, Option<usize>) {
        let (b, e) = self.bounds[i];
        let longest = (b..e)
            .filter_map(|k| chars_over(self.refs.row(k), cap))
            .max();
        (longest, chars_over(self.hyps.row(i), cap))
    }
}

/// Score one pair: `ref_pair(py, &RefBatch::pair(expected, actual)?, max_chars, kernel)`.
pub fn ref_pair<S, T, K>(
    py: Python<'_>,
    pair: &RefBatch<'_>,
    max_chars: MaxChars,
    kernel: K,
) -> PyResult<T>
where
    S: Default,
    T: Send,
    K: for<'b> Fn(&mut S, &[&'b [u8]], &'b [u8], &Context) -> EvalResult<T> + Sync,
{
    let rows = pair.rows()?;
    if let Some(cap) = max_chars.0 {
        let (ne, na) = rows.over(0, cap);
        if ne.is_some() || na.is_some() {
            return Err(too_long_pair(ne, na, cap).into());
        }
    }
    run_watched(py, Workers::ALL, rows.size(), |stop, _| {
        let mut refs = Vec::new();
        rows.refs_into(0, &mut refs);
        kernel(&mut S::default(), &refs, rows.hyps.row(0), stop)
    })
}

/// Fill `width` values per row with `kernel` on `workers` threads, the GIL released.
fn per_row<S, T, K>(
    py: Python<'_>,
    batch: &RefBatch<'_>,
    workers: Workers,
    max_chars: MaxChars,
    width: usize,
    kernel: K,
) -> PyResult<Vec<T>>
where
    S: Default,
    T: Clone + Default + Send,
    K: for<'b> Fn(&mut S, &[&'b [u8]], &'b [u8], &Context, &mut [T]) -> EvalResult<()> + Sync,
{
    let rows = batch.rows()?;
    run_watched(py, workers, rows.size(), |stop, workers| {
        if let Some(cap) = max_chars.0 {
            check_row_lengths(rows.len(), cap, stop, |i| rows.over(i, cap))?;
        }
        let mut out = result_array::<T>(rows.len() * width, "the result array")?;
        fill_rows_weighted(
            &mut out,
            width,
            workers,
            stop,
            |i| rows.bytes(i),
            |s: &mut (S, Vec<&[u8]>), i, cells| {
                rows.refs_into(i, &mut s.1);
                kernel(&mut s.0, &s.1, rows.hyps.row(i), stop, cells).map_err(|err| err.at_row(i))
            },
        )?;
        Ok(out)
    })
}

/// Score a batch row by row into a numpy array:
/// `ref_batch(py, &RefBatch::hold(expected, actual)?, workers, max_chars, kernel)`.
pub fn ref_batch<'py, S, T, K>(
    py: Python<'py>,
    batch: &RefBatch<'_>,
    workers: Workers,
    max_chars: MaxChars,
    kernel: K,
) -> PyResult<Bound<'py, PyArray1<T>>>
where
    S: Default,
    T: Element + Copy + Default + Send,
    K: for<'b> Fn(&mut S, &[&'b [u8]], &'b [u8], &Context) -> EvalResult<T> + Sync,
{
    let out = per_row(
        py,
        batch,
        workers,
        max_chars,
        1,
        |s: &mut S, refs, hyp, stop, cell: &mut [T]| {
            cell[0] = kernel(s, refs, hyp, stop)?;
            Ok(())
        },
    )?;
    Ok(PyArray1::from_vec(py, out))
}

/// Each row's `width` statistics, row after row, for a corpus score: the kernel fills its
/// row's slice.
pub fn ref_stats<S, T, K>(
    py: Python<'_>,
    batch: &RefBatch<'_>,
    workers: Workers,
    max_chars: MaxChars,
    width: usize,
    kernel: K,
) -> PyResult<Vec<T>>
where
    S: Default,
    T: Clone + Default + Send,
    K: for<'b> Fn(&mut S, &[&'b [u8]], &'b [u8], &Context, &mut [T]) -> EvalResult<()> + Sync,
{
    per_row(py, batch, workers, max_chars, width, kernel)
}
