//! Edit distances as RapidFuzz defines them (Levenshtein with weights, Indel, normalized forms,
//! the alignment and the all-pairs matrix), SQuAD exact match, and the word and character
//! error rates of jiwer.

use numpy::{PyArray1, PyArray2, PyArrayMethods};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::PyList;

use super::metric_pair;
use crate::batch::{fill_rows, result_array, run_watched, Workers};
use crate::errors::{EvalError, EvalResult};
use crate::inputs::hold;
use crate::inputs::Texts;
use crate::metrics::edit_weighted::{self, Op, Weights};
use crate::metrics::halt::Context;
use crate::metrics::levenshtein;
use crate::metrics::levenshtein_extract as pick;
use crate::metrics::levenshtein_lanes::{self, Kind, LANES};
use crate::metrics::levenshtein_many;
use crate::metrics::opcodes::{self, Tag};
use crate::metrics::token_f1::{self, Normalizer};
use crate::metrics::wer;
use crate::options::MaxChars;
use crate::pairs::{check_rows, TextBatch, TextPair};

fn weights_of((insert, delete, substitute): (usize, usize, usize)) -> Weights {
    Weights {
        insert,
        delete,
        substitute,
    }
}

/// RapidFuzz's cutoff of a distance: above `cutoff`, `cutoff + 1`.
fn cut(dist: usize, cutoff: Option<usize>) -> i64 {
    match cutoff {
        Some(c) if dist > c => c as i64 + 1,
        _ => dist as i64,
    }
}

/// RapidFuzz's cutoff of a normalized distance: above `cutoff`, 1.0.
fn cut_normalized(value: f64, cutoff: Option<f64>) -> f64 {
    match cutoff {
        Some(c) if value > c => 1.0,
        _ => value,
    }
}

/// The weighted distance of one pair, cut at `score_cutoff` as RapidFuzz cuts it; with a
/// cut-off the kernel stops once the distance is known to be over it.
fn weighted_distance(
    s: &mut edit_weighted::Scratch,
    e: &[u8],
    a: &[u8],
    w: Weights,
    score_cutoff: Option<usize>,
    stop: &Context,
) -> EvalResult<i64> {
    // Over the cutoff from the lengths alone: no need for the distance itself.
    if score_cutoff.is_some_and(|c| edit_weighted::length_bound(e, a, w) > c) {
        return Ok(cut(usize::MAX, score_cutoff));
    }
    let d = match score_cutoff {
        Some(cap) => edit_weighted::distance_capped(e, a, w, cap, s, stop)?,
        None => edit_weighted::distance(e, a, w, s, stop)?,
    };
    Ok(cut(d, score_cutoff))
}

// `levenshtein_distance(expected, actual, weights=(1, 1, 1), score_cutoff=None,
// max_chars=None)`: RapidFuzz's Levenshtein distance of one pair. (Plain comments: no
// docstring, as the other pair functions; the Python face documents them.)
#[pyfunction]
#[pyo3(
    signature = (expected, actual, weights = (1, 1, 1), score_cutoff = None, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, weights=(1, 1, 1), score_cutoff=None, max_chars=None)",
    name = "levenshtein_distance"
)]
fn levenshtein_distance(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    weights: (usize, usize, usize),
    score_cutoff: Option<usize>,
    max_chars: MaxChars,
) -> PyResult<i64> {
    let w = weights_of(weights);
    crate::pairs::text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut edit_weighted::Scratch, e, a, stop| {
            weighted_distance(s, e, a, w, score_cutoff, stop)
        },
    )
}

// `levenshtein_distance_batch(expected, actual, weights=(1, 1, 1), score_cutoff=None,
// workers=-1, max_chars=None)`: the distance of each pair. With equal weights and no cut-off
// the pairs go in groups of several at once (`levenshtein_lanes.rs`); others go one by one.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, weights = (1, 1, 1), score_cutoff = None, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, weights=(1, 1, 1), score_cutoff=None, workers=-1, max_chars=None)"
)]
fn levenshtein_distance_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    weights: (usize, usize, usize),
    score_cutoff: Option<usize>,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    let w = weights_of(weights);
    // Weights that are a multiple of the unit or the Indel distance: the lanes, and with a
    // cut-off the capped kernel for a pair too long for a lane (it stops once the distance is
    // known to be over the cut-off).
    let Some(kind) = lane_kind(w) else {
        return crate::pairs::text_batch(
            py,
            &TextBatch::hold(expected, actual)?,
            workers,
            max_chars,
            |s: &mut edit_weighted::Scratch, e, a, stop| {
                weighted_distance(s, e, a, w, score_cutoff, stop)
            },
        );
    };
    lane_batch(
        py,
        (expected, actual),
        (workers, max_chars),
        (kind, score_cutoff.map(|c| c / w.insert)),
        |d, _| cut(d * w.insert, score_cutoff),
    )
}

/// Rows per task of [`lane_batch`]: eight groups of lanes.
const CHUNK: usize = 8 * LANES;

/// Each pair's unit Levenshtein (or Indel, by `kind`) distance d through the lanes
/// (`levenshtein_lanes.rs`, eight pairs at a time; a pair too long for a lane on its own),
/// turned into the pair's value by `value(d, (len expected, len actual))` (lengths in code
/// points, counted while the lanes load). Under `cap`, d is exact up to the cap and over it
/// otherwise; the lengths then come from the `str` objects, and long ASCII pairs under a unit
/// Levenshtein cap of at most 3 take the short edit sequences before the lanes
/// (`levenshtein::capped_ascii`), which never read a whole text.
fn lane_batch<'py, T>(
    py: Python<'py>,
    (expected, actual): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
    (workers, max_chars): (Workers, MaxChars),
    (kind, cap): (Kind, Option<usize>),
    value: impl Fn(usize, (usize, usize)) -> T + Sync + Send,
) -> PyResult<Bound<'py, PyArray1<T>>>
where
    T: numpy::Element + Clone + Default + Send,
{
    let (he, ha) = (hold(expected, "expected")?, hold(actual, "actual")?);
    crate::inputs::same_length(he.len(), ha.len())?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let n = e.len();
    let size = (e.bytes() + a.bytes()).saturating_add(16 * n);
    let out = run_watched(py, workers, size, |stop, workers| {
        if let Some(cap) = max_chars.0 {
            check_rows(&e, &a, cap, stop)?;
        }
        let mut out = result_array::<T>(n.div_ceil(CHUNK) * CHUNK, "the result array")?;
        fill_rows(
            &mut out,
            CHUNK,
            workers,
            stop,
            |s: &mut levenshtein_lanes::Scratch, g, cells| {
                let first = g * CHUNK;
                let count = cells.len().min(n - first);
                // Under a cap, a pair whose lengths differ by more is over it without the
                // recurrence (that difference is its value); the others fill the lanes, eight
                // at a time, in the order of their rows.
                let (mut d, mut lens) = ([0; CHUNK], [(0, 0); CHUNK]);
                let (mut rows, mut live) = ([0; CHUNK], 0);
                for (k, (d, len)) in d.iter_mut().zip(&mut lens).enumerate().take(count) {
                    if let Some(cap) = cap {
                        *len = (e.chars(first + k), a.chars(first + k));
                        let gap = len.0.abs_diff(len.1);
                        if gap > cap {
                            *d = gap;
                            continue;
                        }
                        // All ASCII: as many code points as bytes.
                        let (x, y) = (e.row(first + k), a.row(first + k));
                        if kind == Kind::Levenshtein && *len == (x.len(), y.len()) {
                            if let Some(got) = levenshtein::capped_ascii(x, y, cap) {
                                *d = got;
                                continue;
                            }
                        }
                    }
                    rows[live] = first + k;
                    live += 1;
                }
                let alone = |x: &[u8], y: &[u8], s: &mut edit_weighted::Scratch| match (kind, cap) {
                    (Kind::Indel, _) => edit_weighted::indel(x, y, s, stop),
                    (_, Some(cap)) if x != y => {
                        levenshtein::distance_capped(x, y, cap, s.unit(), stop)
                    }
                    _ => levenshtein::distance(x, y, s.unit(), stop),
                };
                for at in (0..live).step_by(LANES) {
                    let group = &rows[at..(at + LANES).min(live)];
                    // The next group's texts (or the next chunk's first), while this one runs.
                    let next = &rows[(at + LANES).min(live)..(at + 2 * LANES).min(live)];
                    let ahead = (first + CHUNK).min(n)..(first + CHUNK + LANES).min(n);
                    let ahead = if next.is_empty() { ahead } else { 0..0 };
                    for row in next.iter().copied().chain(ahead) {
                        levenshtein_lanes::prefetch(e.row(row));
                        levenshtein_lanes::prefetch(a.row(row));
                    }
                    let pair = |i: usize| {
                        let row = group[i];
                        ((e.row(row), e.chars(row)), (a.row(row), a.chars(row)))
                    };
                    let (mut got, mut got_lens) = ([0; LANES], [(0, 0); LANES]);
                    levenshtein_lanes::distances(
                        kind,
                        group.len(),
                        pair,
                        &mut got,
                        &mut got_lens,
                        s,
                        stop,
                        &alone,
                    )
                    .map_err(|(i, halt)| EvalError::from(halt).at_row(group[i]))?;
                    for (i, &row) in group.iter().enumerate() {
                        (d[row - first], lens[row - first]) = (got[i], got_lens[i]);
                    }
                }
                for ((cell, &d), &len) in cells.iter_mut().zip(&d).zip(&lens).take(count) {
                    *cell = value(d, len);
                }
                Ok(())
            },
        )?;
        out.truncate(n);
        Ok(out)
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// The lanes' distance that times `w.insert` is the distance under `w`, if any: equal
/// weights of at least 1 give the unit Levenshtein distance; equal insert and delete costs of
/// at least 1 with a substitution costing at least both give the Indel distance (a
/// substitution is then never cheaper than a deletion and an insertion), as RapidFuzz does.
fn lane_kind(w: Weights) -> Option<Kind> {
    if w.insert == 0 || w.insert != w.delete {
        None
    } else if w.substitute == w.insert {
        Some(Kind::Levenshtein)
    } else if w.substitute >= w.insert + w.delete {
        Some(Kind::Indel)
    } else {
        None
    }
}

// `levenshtein_similarity(expected, actual, max_chars=None)`: 1 − distance / longer length.
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
    crate::pairs::text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut levenshtein::Scratch, e, a, stop| Ok(levenshtein::similarity(e, a, s, stop)?),
    )
}

/// [`levenshtein::similarity`] from the unit distance `d` of two texts of `ne` and `na` code
/// points.
fn similarity_of(d: usize, (ne, na): (usize, usize)) -> f64 {
    let longest = ne.max(na);
    if longest == 0 {
        return 1.0;
    }
    1.0 - d as f64 / longest as f64
}

// `levenshtein_similarity_batch(expected, actual, workers=-1, max_chars=None)`: the
// similarity of each pair, through the lanes.
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
    lane_batch(
        py,
        (expected, actual),
        (workers, max_chars),
        (Kind::Levenshtein, None),
        similarity_of,
    )
}

// `levenshtein_normalized_distance(expected, actual, weights=(1, 1, 1), score_cutoff=None,
// max_chars=None)`: the weighted distance over its largest possible value.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, weights = (1, 1, 1), score_cutoff = None, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, weights=(1, 1, 1), score_cutoff=None, max_chars=None)"
)]
fn levenshtein_normalized_distance(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    weights: (usize, usize, usize),
    score_cutoff: Option<f64>,
    max_chars: MaxChars,
) -> PyResult<f64> {
    let w = weights_of(weights);
    crate::pairs::text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut edit_weighted::Scratch, e, a, stop| {
            let value = edit_weighted::normalized_distance(e, a, w, s, stop)?;
            Ok(cut_normalized(value, score_cutoff))
        },
    )
}

// `levenshtein_normalized_distance_batch(expected, actual, weights=(1, 1, 1),
// score_cutoff=None, workers=-1, max_chars=None)`: the normalized distance of each pair. With
// equal weights the pairs go through the lanes (the cut-off applies to the finished value).
#[pyfunction]
#[pyo3(
    signature = (expected, actual, weights = (1, 1, 1), score_cutoff = None, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, weights=(1, 1, 1), score_cutoff=None, workers=-1, max_chars=None)"
)]
fn levenshtein_normalized_distance_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    weights: (usize, usize, usize),
    score_cutoff: Option<f64>,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    let w = weights_of(weights);
    let Some(kind) = lane_kind(w) else {
        return crate::pairs::text_batch(
            py,
            &TextBatch::hold(expected, actual)?,
            workers,
            max_chars,
            |s: &mut edit_weighted::Scratch, e, a, stop| {
                let value = edit_weighted::normalized_distance(e, a, w, s, stop)?;
                Ok(cut_normalized(value, score_cutoff))
            },
        );
    };
    // As `edit_weighted::normalized_distance`: k·d over the largest distance of the lengths.
    lane_batch(
        py,
        (expected, actual),
        (workers, max_chars),
        (kind, None),
        |d, (ne, na)| {
            let value =
                edit_weighted::normalized(d * w.insert, edit_weighted::max_distance(ne, na, w));
            cut_normalized(value, score_cutoff)
        },
    )
}

/// The Indel distance of one pair, cut at `score_cutoff` as RapidFuzz cuts it.
fn indel_cut(
    s: &mut edit_weighted::Scratch,
    e: &[u8],
    a: &[u8],
    score_cutoff: Option<usize>,
    stop: &Context,
) -> EvalResult<i64> {
    let unit = Weights::UNIT;
    if score_cutoff.is_some_and(|c| edit_weighted::length_bound(e, a, unit) > c) {
        return Ok(cut(usize::MAX, score_cutoff));
    }
    Ok(cut(edit_weighted::indel(e, a, s, stop)?, score_cutoff))
}

/// The normalized Indel distance of a pair of `ne` and `na` code points whose Indel distance
/// is `d`, cut at `cutoff`.
fn indel_normalized_of(d: usize, (ne, na): (usize, usize), cutoff: Option<f64>) -> f64 {
    cut_normalized(edit_weighted::normalized(d, ne + na), cutoff)
}

// `indel_distance(expected, actual, score_cutoff=None, max_chars=None)`: RapidFuzz's Indel
// distance of one pair.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, score_cutoff = None, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, score_cutoff=None, max_chars=None)",
    name = "indel_distance"
)]
fn indel_distance(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    score_cutoff: Option<usize>,
    max_chars: MaxChars,
) -> PyResult<i64> {
    crate::pairs::text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut edit_weighted::Scratch, e, a, stop| indel_cut(s, e, a, score_cutoff, stop),
    )
}

// `indel_distance_batch(expected, actual, score_cutoff=None, workers=-1, max_chars=None)`:
// the Indel distance of each pair, through the lanes.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, score_cutoff = None, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, score_cutoff=None, workers=-1, max_chars=None)"
)]
fn indel_distance_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    score_cutoff: Option<usize>,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<i64>>> {
    lane_batch(
        py,
        (expected, actual),
        (workers, max_chars),
        (Kind::Indel, score_cutoff),
        |d, _| cut(d, score_cutoff),
    )
}

// `indel_normalized_distance(expected, actual, score_cutoff=None, max_chars=None)`: the
// Indel distance over the sum of the lengths.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, score_cutoff = None, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, score_cutoff=None, max_chars=None)",
    name = "indel_normalized_distance"
)]
fn indel_normalized_distance(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    score_cutoff: Option<f64>,
    max_chars: MaxChars,
) -> PyResult<f64> {
    crate::pairs::text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut edit_weighted::Scratch, e, a, stop| {
            let d = edit_weighted::indel(e, a, s, stop)?;
            let lens = (edit_weighted::length(e), edit_weighted::length(a));
            Ok(indel_normalized_of(d, lens, score_cutoff))
        },
    )
}

// `indel_normalized_distance_batch(expected, actual, score_cutoff=None, workers=-1,
// max_chars=None)`: the normalized Indel distance of each pair, through the lanes.
#[pyfunction]
#[pyo3(
    signature = (expected, actual, score_cutoff = None, workers = Workers::ALL, max_chars = MaxChars::NONE),
    text_signature = "(expected, actual, score_cutoff=None, workers=-1, max_chars=None)"
)]
fn indel_normalized_distance_batch<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    score_cutoff: Option<f64>,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray1<f64>>> {
    lane_batch(
        py,
        (expected, actual),
        (workers, max_chars),
        (Kind::Indel, None),
        |d, lens| indel_normalized_of(d, lens, score_cutoff),
    )
}

metric_pair! {
    shape: text,
    scalar: squad_exact_match = "squad_exact_match" -> bool,
        "(expected, actual, normalizer='squad', max_chars=None)";
    batch: squad_exact_match_batch -> bool,
        "(expected, actual, normalizer='squad', workers=-1, max_chars=None)";
    options: (normalizer: Normalizer = Normalizer::Squad);
    kernel: |s: token_f1::ExactScratch, e, a, stop| {
        Ok(token_f1::exact_match(e, a, normalizer, s, stop)?)
    }
}

metric_pair! {
    shape: text,
    scalar: py_wer = "wer" -> f64, "(expected, actual, max_chars=None)";
    batch: wer_batch -> f64, "(expected, actual, workers=-1, max_chars=None)";
    options: ();
    kernel: |s: wer::Scratch, e, a, stop| Ok(wer::word_counts(e, a, s, stop)?.rate())
}

metric_pair! {
    shape: text,
    scalar: py_cer = "cer" -> f64, "(expected, actual, max_chars=None)";
    batch: cer_batch -> f64, "(expected, actual, workers=-1, max_chars=None)";
    options: ();
    kernel: |s: wer::Scratch, e, a, stop| Ok(wer::char_counts(e, a, s, stop)?.rate())
}

/// `error_counts(expected, actual, unit, workers=-1, max_chars=None)`: for each row, the
/// errors, the reference length and the hypothesis length, in words (`unit="word"`) or
/// characters (`"char"`), as an (n, 3) int64 array (the corpus rates sum them).
#[pyfunction]
#[pyo3(signature = (expected, actual, unit, workers = Workers::ALL, max_chars = MaxChars::NONE))]
fn error_counts<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    unit: &str,
    workers: Workers,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let words = match unit {
        "word" => true,
        "char" => false,
        other => {
            return Err(
                EvalError::input(format!("unit must be 'word' or 'char', got {other:?}")).into(),
            )
        }
    };
    let (he, ha) = (hold(expected, "expected")?, hold(actual, "actual")?);
    crate::inputs::same_length(he.len(), ha.len())?;
    let (e, a) = (he.texts("expected")?, ha.texts("actual")?);
    let n = e.len();
    let size = (e.bytes() + a.bytes()).saturating_add(16 * n);
    let out = run_watched(py, workers, size, |stop, workers| {
        if let Some(cap) = max_chars.0 {
            check_rows(&e, &a, cap, stop)?;
        }
        let mut out = result_array::<i64>(3 * n, "the result array")?;
        fill_rows(
            &mut out,
            3,
            workers,
            stop,
            |s: &mut wer::Scratch, i, cell| {
                let c = if words {
                    wer::word_counts(e.row(i), a.row(i), s, stop)
                } else {
                    wer::char_counts(e.row(i), a.row(i), s, stop)
                }
                .map_err(|err| EvalError::from(err).at_row(i))?;
                cell.copy_from_slice(&[c.errors as i64, c.reference as i64, c.hypothesis as i64]);
                Ok(())
            },
        )?;
        Ok(out)
    })?;
    PyArray1::from_vec(py, out).reshape([n, 3])
}

/// The unit-cost alignment of a pair, with the lengths of both texts in code points.
type Alignment = (Vec<(Op, usize, usize)>, usize, usize);

fn alignment(
    py: Python<'_>,
    expected: &Bound<'_, PyAny>,
    actual: &Bound<'_, PyAny>,
    max_chars: MaxChars,
) -> PyResult<Alignment> {
    crate::pairs::text_pair(
        py,
        &TextPair::read(expected, actual)?,
        max_chars,
        |s: &mut edit_weighted::Scratch, e, a, stop| {
            let ops = edit_weighted::editops(e, a, s, stop)?.ok_or_else(|| {
                EvalError::input(format!(
                    "the texts are too long to align: their lengths multiply to more than {} \
                     cells; align shorter pieces",
                    edit_weighted::EDITOPS_CELLS
                ))
            })?;
            Ok((ops, edit_weighted::length(e), edit_weighted::length(a)))
        },
    )
}

/// `levenshtein_editops(expected, actual, max_chars=None)`: RapidFuzz's `editops` as a list of
/// `(tag, src_pos, dest_pos)`, tags "insert", "delete" and "replace".
#[pyfunction]
#[pyo3(signature = (expected, actual, max_chars = MaxChars::NONE))]
fn levenshtein_editops<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyList>> {
    let (ops, _, _) = alignment(py, expected, actual, max_chars)?;
    // The tags are interned: one string object each, shared by every tuple.
    let (insert, delete, replace) = (
        intern!(py, "insert"),
        intern!(py, "delete"),
        intern!(py, "replace"),
    );
    let rows = ops.into_iter().map(|(op, i, j)| {
        let tag = match op {
            Op::Insert => insert,
            Op::Delete => delete,
            Op::Replace => replace,
        };
        IntoPyObject::into_pyobject((tag, i, j), py)
    });
    PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?)
}

/// `levenshtein_opcodes(expected, actual, max_chars=None)`: the same alignment as RapidFuzz's
/// `opcodes`, a list of `(tag, src_start, src_end, dest_start, dest_end)` covering both texts,
/// tags "equal", "replace", "insert" and "delete".
#[pyfunction]
#[pyo3(signature = (expected, actual, max_chars = MaxChars::NONE))]
fn levenshtein_opcodes<'py>(
    py: Python<'py>,
    expected: &Bound<'py, PyAny>,
    actual: &Bound<'py, PyAny>,
    max_chars: MaxChars,
) -> PyResult<Bound<'py, PyList>> {
    let (ops, e_len, a_len) = alignment(py, expected, actual, max_chars)?;
    let tags = [
        intern!(py, "equal"),
        intern!(py, "replace"),
        intern!(py, "insert"),
        intern!(py, "delete"),
    ];
    let rows = opcodes::opcodes(&ops, e_len, a_len)
        .into_iter()
        .map(|(tag, s0, s1, d0, d1)| {
            let tag = tags[match tag {
                Tag::Equal => 0,
                Tag::Replace => 1,
                Tag::Insert => 2,
                Tag::Delete => 3,
            }];
            IntoPyObject::into_pyobject((tag, s0, s1, d0, d1), py)
        });
    PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?)
}

/// `levenshtein_cdist(queries, choices, weights=(1, 1, 1), score_cutoff=None, workers=-1)`:
/// the (len queries, len choices) int64 matrix of distances from each query to each choice.
#[pyfunction]
#[pyo3(signature = (queries, choices, weights = (1, 1, 1), score_cutoff = None, workers = Workers::ALL))]
fn levenshtein_cdist<'py>(
    py: Python<'py>,
    queries: &Bound<'py, PyAny>,
    choices: &Bound<'py, PyAny>,
    weights: (usize, usize, usize),
    score_cutoff: Option<usize>,
    workers: Workers,
) -> PyResult<Bound<'py, PyArray2<i64>>> {
    let w = weights_of(weights);
    let (hq, hc) = (hold(queries, "queries")?, hold(choices, "choices")?);
    let (q, c) = (hq.texts("queries")?, hc.texts("choices")?);
    let (n, m) = (q.len(), c.len());
    let size = q
        .bytes()
        .saturating_mul(c.bytes().max(1))
        .saturating_add(m.saturating_mul(n));
    // Unit costs, or Indel costs (equal insert and delete costs with a substitution costing at
    // least both), times a factor: both sides are decoded once, and queries of up to 64 code
    // points run several at a time, one per vector lane, through each choice.
    let lanes = lane_kind(w);
    let out = run_watched(py, workers, size, |stop, workers| {
        let mut out = result_array::<i64>(n * m, "the distance matrix")?;
        if let Some(kind) = lanes {
            unit_cdist(
                &q,
                &c,
                &mut out,
                (kind, w.insert),
                score_cutoff,
                workers,
                stop,
            )?;
        } else if m > 0 && n > 0 {
            weighted_cdist(&q, &c, &mut out, w, score_cutoff, workers, stop)?;
        }
        Ok(out)
    })?;
    PyArray1::from_vec(py, out).reshape([n, m])
}

/// The matrix of `levenshtein_cdist` under weights that are not unit or Indel costs times a
/// factor, into `out`: both sides are decoded once into shared ids, and each pair takes the
/// table.
fn weighted_cdist(
    q: &Texts<'_>,
    c: &Texts<'_>,
    out: &mut [i64],
    w: Weights,
    score_cutoff: Option<usize>,
    workers: Workers,
    stop: &Context,
) -> EvalResult<()> {
    let m = c.len();
    let decoded = levenshtein_many::Decoded::load(
        (0..q.len()).map(|i| q.row(i)),
        (0..m).map(|j| c.row(j)),
        q.bytes().saturating_add(c.bytes()),
    )?;
    fill_rows(out, m, workers, stop, |s: &mut pick::Scratch, i, row| {
        let query = decoded.query(i);
        for (j, cell) in row.iter_mut().enumerate() {
            let choice = decoded.choice(j);
            let d = pick::weighted_ids(query, choice, w, s, stop)
                .map_err(|err| EvalError::from(err).at_row(i))?;
            *cell = cut(d, score_cutoff);
        }
        Ok(())
    })
}

/// `levenshtein_extract(query, choices, limit, weights=(1, 1, 1), score_cutoff=None,
/// workers=-1, items=None)`: the `limit` choices nearest to `query` (all with `None`) as a list
/// of `(items[j], distance, j)`, nearest first and equal distances by index, none past
/// `score_cutoff` (`items` defaults to `choices`).
#[pyfunction]
#[pyo3(signature = (query, choices, limit, weights = (1, 1, 1), score_cutoff = None, workers = Workers::ALL, items = None))]
#[allow(clippy::too_many_arguments)]
fn levenshtein_extract<'py>(
    py: Python<'py>,
    query: &Bound<'py, PyAny>,
    choices: &Bound<'py, PyAny>,
    limit: Option<usize>,
    weights: (usize, usize, usize),
    score_cutoff: Option<usize>,
    workers: Workers,
    items: Option<&Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyList>> {
    let w = weights_of(weights);
    let text = crate::inputs::str_bytes(query, "query")?;
    let hc = hold(choices, "choices")?;
    let c = hc.texts("choices")?;
    let m = c.len();
    let size = text
        .len()
        .max(1)
        .saturating_mul(c.bytes().saturating_add(m));
    let found = run_watched(py, workers, size, |stop, workers| {
        let prepared = pick::Query::new(&text, w);
        let row = |j: usize| (c.row(j), c.chars(j));
        let options = (limit, score_cutoff);
        if m == 0 || limit == Some(0) {
            return Ok(Vec::new());
        }
        // Shares of the choices, each with its own best (a few per thread).
        let share = m.div_ceil(16).max(256);
        let mut shares: Vec<Vec<(usize, usize)>> = Vec::new();
        shares.resize_with(m.div_ceil(share), Vec::new);
        fill_rows(
            &mut shares,
            1,
            workers,
            stop,
            |s: &mut pick::Scratch, b, cell| {
                let range = b * share..((b + 1) * share).min(m);
                cell[0] = pick::extract(&prepared, row, range, options, s, stop)
                    .map_err(EvalError::from)?;
                Ok(())
            },
        )?;
        Ok(pick::merge(shares, limit))
    })?;
    let items = items.unwrap_or(choices);
    let rows = found
        .into_iter()
        .map(|(d, j)| (items.get_item(j)?, d, j).into_pyobject(py));
    PyList::new(py, rows.collect::<PyResult<Vec<_>>>()?)
}

/// The unit-cost (or Indel, by `kind`) matrix, costs times `k`, of `levenshtein_cdist` into
/// `out`: both sides decoded
/// once, and the texts of one side run several at a time, one per vector lane, through each
/// text of the other. The side that takes fewer passes over the other goes in the lanes: the
/// distance is symmetric, so when that is the choices the matrix is transposed. The lane side
/// is read by lane width; on one thread every distance goes straight into its place, on
/// several the blocks of rows (in that order) are put back in place after.
fn unit_cdist(
    q: &Texts<'_>,
    c: &Texts<'_>,
    out: &mut [i64],
    (kind, k): (Kind, usize),
    score_cutoff: Option<usize>,
    workers: Workers,
    stop: &Context,
) -> EvalResult<()> {
    let (n, m) = (q.len(), c.len());
    if n == 0 || m == 0 {
        return Ok(());
    }
    // A single query runs through the choices as they are, a share of them a task.
    let one = (kind == Kind::Levenshtein && n == 1)
        .then(|| levenshtein_many::OneQuery::new(q.row(0)))
        .flatten();
    if let Some(query) = one {
        let share = m.div_ceil(8).max(64);
        return fill_rows(out, share, workers, stop, |_: &mut (), b, cells| {
            for (j, cell) in cells.iter_mut().enumerate() {
                let d = query
                    .distance(c.row(b * share + j), stop)
                    .map_err(EvalError::from)?;
                *cell = cut(d * k, score_cutoff);
            }
            Ok(())
        });
    }
    let mut decoded = levenshtein_many::Decoded::load(
        (0..n).map(|i| q.row(i)),
        (0..m).map(|j| c.row(j)),
        q.bytes().saturating_add(c.bytes()),
    )?;
    let swap = decoded.better_swapped();
    if swap {
        decoded.swap();
    }
    // The lane side by lane width, so that a block of consecutive rows fills whole groups of
    // lanes (a block of unsorted rows leaves a partly filled group of every width).
    decoded.sort_queries()?;
    let put = |d: usize| cut(d * k, score_cutoff);
    // A halt: the row is the block's first query (or the first, when swapped).
    let row_of = |first: usize| if swap { 0 } else { decoded.original(first) };
    // On one thread, the whole matrix at once, each distance straight into its place.
    if workers.serial() || rayon::current_num_threads() <= 1 {
        let place = if swap {
            levenshtein_many::Place::Transposed
        } else {
            levenshtein_many::Place::Given
        };
        let s = &mut levenshtein_many::Scratch::default();
        return levenshtein_many::fill_block(&decoded, 0, out, place, kind, s, stop, put)
            .map_err(|err| EvalError::from(err).at_row(row_of(0)));
    }
    let (rows, width) = (decoded.queries(), decoded.choices());
    let mut swapped = if swap {
        result_array::<i64>(n * m, "the distance matrix")?
    } else {
        Vec::new()
    };
    let target = if swap { &mut swapped[..] } else { &mut *out };
    // Blocks of whole groups of the narrowest lanes (64 rows), eight or more of them to share
    // the work among the threads.
    let block = rows.div_ceil(8).clamp(1, 512).next_multiple_of(64);
    fill_rows(
        target,
        block * width,
        workers,
        stop,
        |s: &mut levenshtein_many::Scratch, b, cells| {
            let place = levenshtein_many::Place::Rows;
            levenshtein_many::fill_block(&decoded, b * block, cells, place, kind, s, stop, put)
                .map_err(|err| EvalError::from(err).at_row(row_of(b * block)))
        },
    )?;
    // Row r of the target is the lane side's text `original(r)`.
    if swap {
        // Transposed in tiles, so that the writes of a tile stay in a few cache lines.
        const TILE: usize = 32;
        for r0 in (0..m).step_by(TILE) {
            for i0 in (0..n).step_by(TILE) {
                for r in r0..(r0 + TILE).min(m) {
                    let j = decoded.original(r);
                    let row = &swapped[r * n..(r + 1) * n];
                    for (i, &d) in row.iter().enumerate().take((i0 + TILE).min(n)).skip(i0) {
                        out[i * m + j] = d;
                    }
                }
            }
        }
    } else {
        unsort_rows(out, m, |r| decoded.original(r));
    }
    Ok(())
}

/// Move row `r` of `out` (rows of `m` values) to row `dest(r)`, a permutation of the rows, in
/// place: each cycle of the permutation is followed with one row in hand.
fn unsort_rows(out: &mut [i64], m: usize, dest: impl Fn(usize) -> usize) {
    let n = out.len() / m.max(1);
    let mut done = vec![false; n];
    let mut hand = vec![0i64; m];
    for start in 0..n {
        if done[start] || dest(start) == start {
            continue;
        }
        // `hand` holds the row that belongs at `at`; the row there goes into the hand.
        hand.copy_from_slice(&out[start * m..(start + 1) * m]);
        done[start] = true;
        let mut at = dest(start);
        while at != start {
            hand.swap_with_slice(&mut out[at * m..(at + 1) * m]);
            done[at] = true;
            at = dest(at);
        }
        out[start * m..(start + 1) * m].copy_from_slice(&hand);
    }
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(levenshtein_distance, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_distance_batch, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_similarity, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_similarity_batch, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_normalized_distance, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_normalized_distance_batch, m)?)?;
    m.add_function(wrap_pyfunction!(indel_distance, m)?)?;
    m.add_function(wrap_pyfunction!(indel_distance_batch, m)?)?;
    m.add_function(wrap_pyfunction!(indel_normalized_distance, m)?)?;
    m.add_function(wrap_pyfunction!(indel_normalized_distance_batch, m)?)?;
    m.add_function(wrap_pyfunction!(squad_exact_match, m)?)?;
    m.add_function(wrap_pyfunction!(squad_exact_match_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_wer, m)?)?;
    m.add_function(wrap_pyfunction!(wer_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_cer, m)?)?;
    m.add_function(wrap_pyfunction!(cer_batch, m)?)?;
    m.add_function(wrap_pyfunction!(error_counts, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_editops, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_opcodes, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_cdist, m)?)?;
    m.add_function(wrap_pyfunction!(levenshtein_extract, m)?)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::unsort_rows;

    #[test]
    fn rows_go_back_to_their_places() {
        // Row r holds the values of row dest(r): a permutation of several cycles and fixed rows.
        let dest = [3usize, 0, 2, 5, 1, 4, 7, 6, 8];
        let m = 3;
        let mut out: Vec<i64> = dest
            .iter()
            .flat_map(|&d| (0..m).map(move |j| (d * 10 + j) as i64))
            .collect();
        unsort_rows(&mut out, m, |r| dest[r]);
        let want: Vec<i64> = (0..dest.len())
            .flat_map(|r| (0..m).map(move |j| (r * 10 + j) as i64))
            .collect();
        assert_eq!(out, want);
    }
}
