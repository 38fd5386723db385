//! The Python-facing functions, by metric family. Every text metric comes as a pair, the
//! scalar form on one (expected, actual) pair and the `_batch` form on two sequences, both
//! written once by [`metric_pair!`] from the same options and kernel closure.

use pyo3::prelude::*;

pub mod csv_columns;
pub mod edit;
pub mod inspect_match;
pub mod inspect_scan;
pub mod items;
pub mod json;
pub mod jsonl_columns;
pub mod nlg;
pub mod normalize;
pub mod promptfoo_scan;
pub mod reference;
pub mod render;
pub mod retrieval;
pub mod text;
pub mod text_hits;
pub mod traces;
pub mod vectors;

/// A column of texts as a Python list (the scans' columns: borrowed or owned texts).
pub(crate) fn texts<'py, T: AsRef<str>>(
    py: Python<'py>,
    column: &[T],
) -> PyResult<Bound<'py, pyo3::types::PyList>> {
    let items = column
        .iter()
        .map(|text| pyo3::types::PyString::new(py, text.as_ref()));
    pyo3::types::PyList::new(py, items)
}

/// `work_done()`: the word operations the O(n·m/64) kernels of this process have done so far.
#[pyfunction]
pub fn work_done() -> u64 {
    crate::batch::work_done()
}

/// `resolve_workers(workers=None)`: the thread count a call uses, checked (`options.rs`).
#[pyfunction]
#[pyo3(signature = (workers = None))]
pub fn resolve_workers(py: Python<'_>, workers: Option<&Bound<'_, PyAny>>) -> PyResult<isize> {
    Ok(crate::options::resolve_workers(py, workers)?.count())
}

/// Define the scalar and the batch function of one metric from one kernel closure:
///
/// ```text
/// metric_pair! {
///     shape: text,                          // or `refs` (BLEU, chrF: expected holds references)
///     scalar: py_token_f1 = "token_f1" -> f64, "(expected, actual, normalizer='squad', max_chars=None)";
///     batch: token_f1_batch -> f64, "(expected, actual, normalizer='squad', workers=-1, max_chars=None)";
///     options: (normalizer: Normalizer = Normalizer::Squad);
///     prepare: { let ... = ...?; }           // optional: derived option values
///     kernel: |s: token_f1::Scratch, e, a, stop| Ok(...)
/// }
/// ```
///
/// Both signatures end with `max_chars=None`; the batch one has `workers=-1` before it. The
/// text signatures are repeated because pyo3 cannot print Rust default values.
macro_rules! metric_pair {
    (
        shape: $shape:ident,
        scalar: $scalar:ident = $name:literal -> $out:ty, $sig:literal;
        batch: $batch:ident -> $bout:ty, $bsig:literal;
        options: ($($opt:ident: $ty:ty = $default:expr),* $(,)?);
        $(prepare: { $($prep:stmt;)* })?
        kernel: |$s:ident: $scratch:ty, $e:ident, $a:ident, $stop:ident| $body:expr
    ) => {
        #[pyo3::pyfunction]
        #[pyo3(
            signature = (expected, actual, $($opt = $default,)* max_chars = $crate::options::MaxChars::NONE),
            text_signature = $sig,
            name = $name
        )]
        #[allow(clippy::too_many_arguments)]
        fn $scalar(
            py: pyo3::Python<'_>,
            expected: &pyo3::Bound<'_, pyo3::PyAny>,
            actual: &pyo3::Bound<'_, pyo3::PyAny>,
            $($opt: $ty,)*
            max_chars: $crate::options::MaxChars,
        ) -> pyo3::PyResult<$out> {
            $($($prep;)*)?
            metric_pair!(@pair $shape, py, expected, actual, max_chars,
                |$s: &mut $scratch, $e, $a, $stop| $body)
        }

        #[pyo3::pyfunction]
        #[pyo3(
            signature = (expected, actual, $($opt = $default,)* workers = $crate::batch::Workers::ALL, max_chars = $crate::options::MaxChars::NONE),
            text_signature = $bsig
        )]
        #[allow(clippy::too_many_arguments)]
        fn $batch<'py>(
            py: pyo3::Python<'py>,
            expected: &pyo3::Bound<'py, pyo3::PyAny>,
            actual: &pyo3::Bound<'py, pyo3::PyAny>,
            $($opt: $ty,)*
            workers: $crate::batch::Workers,
            max_chars: $crate::options::MaxChars,
        ) -> pyo3::PyResult<pyo3::Bound<'py, numpy::PyArray1<$bout>>> {
            $($($prep;)*)?
            metric_pair!(@batch $shape, py, expected, actual, workers, max_chars,
                |$s: &mut $scratch, $e, $a, $stop| $body)
        }
    };
    (@pair text, $py:ident, $x:ident, $y:ident, $cap:ident, $k:expr) => {
        $crate::pairs::text_pair($py, &$crate::pairs::TextPair::read($x, $y)?, $cap, $k)
    };
    (@batch text, $py:ident, $x:ident, $y:ident, $w:ident, $cap:ident, $k:expr) => {
        $crate::pairs::text_batch($py, &$crate::pairs::TextBatch::hold($x, $y)?, $w, $cap, $k)
    };
    (@pair refs, $py:ident, $x:ident, $y:ident, $cap:ident, $k:expr) => {
        $crate::refs::ref_pair($py, &$crate::refs::RefBatch::pair($x, $y)?, $cap, $k)
    };
    (@batch refs, $py:ident, $x:ident, $y:ident, $w:ident, $cap:ident, $k:expr) => {
        $crate::refs::ref_batch($py, &$crate::refs::RefBatch::hold($x, $y)?, $w, $cap, $k)
    };
}

pub(crate) use metric_pair;
