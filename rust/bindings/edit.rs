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
use crate::metrics::levenshtein_lanes::{self, LANES};
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
    // Equal weights: the lanes, and with a cut-off the capped kernel for a pair too long for a
    // lane (it stops once the distance is known to be over the cut-off).
    if !equal_weights(w) {
        return crate::pairs::text_batch(
            py,
            &TextBatch::hold(expected, actual)?,
            workers,
            max_chars,
            |s: &mut edit_weighted::Scratch, e, a, stop| {
                weighted_distance(s, e, a, w, score_cutoff, stop)
            },
        );
    }
    lane_batch(
        py,
        (expected, actual),
        workers,
        max_chars,
        score_cutoff.map(|c| c / w.insert),
        |d, _, _| cut(d * w.insert, score_cutoff),
    )
}

/// Each pair's unit Levenshtein distance d through the lanes (`levenshtein_lanes.rs`, eight
/// pairs at a time; a pair too long for a lane on its own), turned into the pair's value by
/// `value(d, expected, actual)`. Under `cap`, d is exact up to the cap and over it otherwise;
/// long ASCII pairs under a cap of at most 3 take the short edit sequences before the lanes
/// (`levenshtein::capped_ascii`, a unit Levenshtein kernel), which never read a whole text.
fn lane_batch<'py, T>(
    py: Python<'py>,
    (expected, actual): (&Bound<'py, PyAny>, &Bound<'py, PyAny>),
    workers: Workers,
    max_chars: MaxChars,
    cap: Option<usize>,
    value: impl Fn(usize, &[u8], &[u8]) -> T + Sync + Send,
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
        let mut out = result_array::<T>(n.div_ceil(LANES) * LANES, "the result array")?;
        fill_rows(
            &mut out,
            LANES,
            workers,
            stop,
            |s: &mut levenshtein_lanes::Scratch, g, cells| {
                let first = g * LANES;
                // The next group's texts, while this one runs.
                for row in (first + LANES)..(first + 2 * LANES).min(n) {
                    levenshtein_lanes::prefetch(e.row(row));
                    levenshtein_lanes::prefetch(a.row(row));
                }
                // Under a cap, a pair whose lengths differ by more is over it without the
                // recurrence (that difference is its value); the others share the lanes.
                let (mut d, mut rows, mut live) = ([0; LANES], [0; LANES], 0);
                for (k, d) in d.iter_mut().enumerate().take(cells.len().min(n - first)) {
                    if let Some(cap) = cap {
                        let (ce, ca) = (e.chars(first + k), a.chars(first + k));
                        let gap = ce.abs_diff(ca);
                        if gap > cap {
                            *d = gap;
                            continue;
                        }
                        let (x, y) = (e.row(first + k), a.row(first + k));
                        if ce == x.len() && ca == y.len() {
                            if let Some(got) = levenshtein::capped_ascii(x, y, cap) {
                                *d = got;
                                continue;
                            }
                        }
                    }
                    rows[live] = k;
                    live += 1;
                }
                let pair = |i: usize| (e.row(first + rows[i]), a.row(first + rows[i]));
                let alone = |x: &[u8], y: &[u8], s: &mut levenshtein::Scratch| match cap {
                    Some(cap) if x != y => levenshtein::distance_capped(x, y, cap, s, stop),
                    _ => levenshtein::distance(x, y, s, stop),
                };
                let mut got = [0; LANES];
                levenshtein_lanes::distances(live, pair, &mut got, s, stop, alone)
                    .map_err(|(i, halt)| EvalError::from(halt).at_row(first + rows[i]))?;
                for (&k, &got) in rows.iter().zip(&got).take(live) {
                    d[k] = got;
                }
                for (k, (cell, &d)) in cells.iter_mut().zip(&d).enumerate() {
                    if first + k < n {
                        *cell = value(d, e.row(first + k), a.row(first + k));
                    }
                }
                Ok(())
            },
        )?;
        out.truncate(n);
        Ok(out)
    })?;
    Ok(PyArray1::from_vec(py, out))
}

/// Equal weights of at least 1: the distance is the unit distance times the weight.
fn equal_weights(w: Weights) -> bool {
    w.insert >= 1 && w.insert == w.delete && w.insert == w.substitute
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

/// [`levenshtein::similarity`] from the unit distance `d` of `e` and `a`.
fn similarity_of(d: usize, e: &[u8], a: &[u8]) -> f64 {
    let longest = edit_weighted::length(e).max(edit_weighted::length(a));
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
        workers,
        max_chars,
        None,
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
    if !equal_weights(w) {
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
    }
    // As `edit_weighted::normalized_distance`: k·d over the largest distance of the lengths.
    lane_batch(
        py,
        (expected, actual),
        workers,
        max_chars,
        None,
        |d, e, a| {
            let (ne, na) = (edit_weighted::length(e), edit_weighted::length(a));
            let value =
                edit_weighted::normalized(d * w.insert, edit_weighted::max_distance(ne, na, w));
            cut_normalized(value, score_cutoff)
        },
    )
}

metric_pair! {
    shape: text,
    scalar: indel_distance = "indel_distance" -> i64,
        "(expected, actual, score_cutoff=None, max_chars=None)";
    batch: indel_distance_batch -> i64,
        "(expected, actual, score_cutoff=None, workers=-1, max_chars=None)";
    options: (score_cutoff: Option<usize> = None);
    kernel: |s: edit_weighted::Scratch, e, a, stop| {
        let unit = edit_weighted::Weights::UNIT;
        if score_cutoff.is_some_and(|c| edit_weighted::length_bound(e, a, unit) > c) {
            return Ok(cut(usize::MAX, score_cutoff));
        }
        Ok(cut(edit_weighted::indel(e, a, s, stop)?, score_cutoff))
    }
}

metric_pair! {
    shape: text,
    scalar: indel_normalized_distance = "indel_normalized_distance" -> f64,
        "(expected, actual, score_cutoff=None, max_chars=None)";
    batch: indel_normalized_distance_batch -> f64,
        "(expected, actual, score_cutoff=None, workers=-1, max_chars=None)";
    options: (score_cutoff: Option<f64> = None);
    kernel: |s: edit_weighted::Scratch, e, a, stop| {
        let dist = edit_weighted::indel(e, a, s, stop)?;
        let most = edit_weighted::length(e) + edit_weighted::length(a);
        Ok(cut_normalized(edit_weighted::normalized(dist, most), score_cutoff))
    }
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
    // Unit costs (times a factor): both sides are decoded once, and queries of up to 64 code
    // points run several at a time, one per vector lane, through each choice.
    let unit =
        (w.insert == w.delete && w.delete == w.substitute && w.insert > 0).then_some(w.insert);
    let out = run_watched(py, workers, size, |stop, workers| {
        let mut out = result_array::<i64>(n * m, "the distance matrix")?;
        if let Some(k) = unit {
            unit_cdist(&q, &c, &mut out, k, score_cutoff, workers, stop)?;
        } else if m > 0 {
            fill_rows(
                &mut out,
                m,
                workers,
                stop,
                |s: &mut edit_weighted::Scratch, i, row| {
                    let query = q.row(i);
                    for (j, cell) in row.iter_mut().enumerate() {
                        let d = edit_weighted::distance(query, c.row(j), w, s, stop)
                            .map_err(|err| EvalError::from(err).at_row(i))?;
                        *cell = cut(d, score_cutoff);
                    }
                    Ok(())
                },
            )?;
        }
        Ok(out)
    })?;
    PyArray1::from_vec(py, out).reshape([n, m])
}

/// The unit-cost matrix (costs times `k`) of `levenshtein_cdist` into `out`: both sides decoded
/// once, and the texts of one side run several at a time, one per vector lane, through each
/// text of the other. The side that takes fewer passes over the other goes in the lanes: the
/// distance is symmetric, so when that is the choices the matrix is transposed.
fn unit_cdist(
    q: &Texts<'_>,
    c: &Texts<'_>,
    out: &mut [i64],
    k: usize,
    score_cutoff: Option<usize>,
    workers: Workers,
    stop: &Context,
) -> EvalResult<()> {
    let (n, m) = (q.len(), c.len());
    if n == 0 || m == 0 {
        return Ok(());
    }
    // A single query runs through the choices as they are, a share of them a task.
    if let (1, Some(query)) = (n, levenshtein_many::OneQuery::new(q.row(0))) {
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
    let (rows, width) = (decoded.queries(), decoded.choices());
    let mut swapped = if swap {
        result_array::<i64>(n * m, "the distance matrix")?
    } else {
        Vec::new()
    };
    let target = if swap { &mut swapped[..] } else { &mut *out };
    // Large blocks fill the lanes; eight or more of them share the work among the threads.
    let block = rows.div_ceil(8).clamp(1, 512);
    fill_rows(
        target,
        block * width,
        workers,
        stop,
        |s: &mut levenshtein_many::Scratch, b, cells| {
            let put = |d: usize| cut(d * k, score_cutoff);
            levenshtein_many::fill_block(&decoded, b * block, cells, s, stop, put).map_err(|err| {
                // A halt: the row is the block's first query (or choice, when swapped).
                EvalError::from(err).at_row(if swap { 0 } else { b * block })
            })
        },
    )?;
    if swap {
        for (j, row) in swapped.chunks_exact(n).enumerate() {
            for (i, &d) in row.iter().enumerate() {
                out[i * m + j] = d;
            }
        }
    }
    Ok(())
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
    Ok(())
}
