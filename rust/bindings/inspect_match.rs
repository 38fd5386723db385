//! `inspect_match_batch`: inspect_ai's `match` and `includes` scorers over flat columns of
//! (answer, target) pairs, the texts borrowed from their `str` objects and the pairs judged
//! without the GIL (`metrics/inspect_match.rs`). A pair with a text that is not ASCII (case
//! folding and Python's whitespace beyond ASCII) is left to the caller.

use pyo3::prelude::*;
use pyo3::types::PyBytes;

use crate::batch::{fill_rows_weighted, result_array, run_watched, Workers};
use crate::inputs::{hold, same_length};
use crate::metrics::inspect_match::{hit, Location, Rule, Scorer, Scratch};

/// A verdict's byte while the pair is left to the caller.
const PENDING: u8 = 2;

/// `inspect_match_batch(answers, targets, location, scorer, ignore_case, workers=-1)`: for
/// each pair `k`, whether `answers[k]` matches `targets[k]` as inspect_ai's `scorer` decides.
/// Returns `(hits, pending)`: one byte a pair (1: a hit), and the pairs (0 in `hits`) with a
/// text that is not ASCII, left to the caller.
#[pyfunction]
#[pyo3(
    signature = (answers, targets, location, scorer, ignore_case, workers = Workers::ALL),
    text_signature = "(answers, targets, location, scorer, ignore_case, workers=-1)"
)]
pub fn inspect_match_batch<'py>(
    py: Python<'py>,
    answers: &Bound<'py, PyAny>,
    targets: &Bound<'py, PyAny>,
    location: Location,
    scorer: Scorer,
    ignore_case: bool,
    workers: Workers,
) -> PyResult<(Bound<'py, PyBytes>, Vec<usize>)> {
    let (held_answers, held_targets) = (hold(answers, "answers")?, hold(targets, "targets")?);
    same_length(held_answers.len(), held_targets.len())?;
    let (a, t) = (
        held_answers.texts("answers")?,
        held_targets.texts("targets")?,
    );
    let rule = Rule {
        scorer,
        location,
        ignore_case,
    };
    let size = (a.bytes() + t.bytes()).saturating_add(16 * a.len());
    let mut verdicts = run_watched(py, workers, size, |stop, workers| {
        let mut out = result_array::<u8>(a.len(), "the verdicts")?;
        let weight = |i: usize| a.row(i).len() + t.row(i).len() + 16;
        fill_rows_weighted(
            &mut out,
            1,
            workers,
            stop,
            weight,
            |s: &mut Scratch, i, cell| {
                // a row is ASCII exactly when it has as many code points as bytes
                let (answer, target) = (a.row(i), t.row(i));
                let ascii = a.chars(i) == answer.len() && t.chars(i) == target.len();
                cell[0] = if ascii {
                    u8::from(hit(s, answer, target, rule))
                } else {
                    PENDING
                };
                Ok(())
            },
        )?;
        Ok(out)
    })?;
    let mut pending = Vec::new();
    for (k, verdict) in verdicts.iter_mut().enumerate() {
        if *verdict == PENDING {
            *verdict = 0;
            pending.push(k);
        }
    }
    Ok((PyBytes::new(py, &verdicts), pending))
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(inspect_match_batch, m)?)?;
    Ok(())
}
