//! `inspect_match_batch`: inspect_ai's `match` and `includes` scorers over flat columns of
//! (answer, target) pairs, the texts borrowed from their `str` objects and the pairs judged
//! without the GIL (`metrics/inspect_match.rs`). ASCII texts need no table; the non-ASCII
//! characters of the others are ruled by the caller's table (`chars`: a code point to its
//! `casefold()` and `isspace()`, from Python itself). A pair with a character the table lacks,
//! or a lone surrogate, is left to the caller.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict};
use rustc_hash::FxHashMap;

use crate::batch::{fill_rows_weighted, result_array, run_watched, Workers};
use crate::errors::EvalError;
use crate::inputs::{hold, same_length, Texts};
use crate::metrics::inspect_match::{hit, hit_text, CharRule, Location, Rule, Scorer, Scratch};

/// A verdict's byte while the pair is left to the caller.
const PENDING: u8 = 2;

/// The rules of the non-ASCII characters seen, `None` for one the table lacks.
type Seen = FxHashMap<char, Option<CharRule>>;

/// How a row is judged.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ascii,
    /// UTF-8 whose every non-ASCII character has a rule
    Ruled,
    Pending,
}

/// The kind of each row of one side; with a table, the rules of its characters go to `seen`
/// and the code points the table lacks to `missing`.
fn kinds(
    texts: &Texts<'_>,
    chars: Option<&Bound<'_, PyDict>>,
    seen: &mut Seen,
    missing: &mut Vec<u32>,
) -> PyResult<Vec<Kind>> {
    let mut out = Vec::with_capacity(texts.len());
    for i in 0..texts.len() {
        let row = texts.row(i);
        // a row is ASCII exactly when it has as many code points as bytes
        if texts.chars(i) == row.len() {
            out.push(Kind::Ascii);
            continue;
        }
        // a lone surrogate (no Rust str holds it) is the caller's
        let (Some(table), Ok(text)) = (chars, std::str::from_utf8(row)) else {
            out.push(Kind::Pending);
            continue;
        };
        let mut kind = Kind::Ruled;
        for (at, &b) in row.iter().enumerate() {
            if b < 0xC0 {
                continue; // ASCII, or inside a character
            }
            let Some(c) = text[at..].chars().next() else {
                continue;
            };
            let rule = match seen.get(&c) {
                Some(rule) => rule.is_some(),
                None => {
                    let rule = rule_of(table, c)?;
                    let has = rule.is_some();
                    seen.insert(c, rule);
                    has
                }
            };
            if !rule {
                missing.push(c as u32);
                kind = Kind::Pending;
            }
        }
        out.push(kind);
    }
    Ok(out)
}

/// The table's rule for `c`, checked.
fn rule_of(table: &Bound<'_, PyDict>, c: char) -> PyResult<Option<CharRule>> {
    let Some(value) = table.get_item(c as u32)? else {
        return Ok(None);
    };
    let (folded, space) = value.extract::<(String, bool)>().map_err(|_| {
        EvalError::Type(format!(
            "chars[{}] must be a (str, bool) pair: the character's casefold() and isspace()",
            c as u32
        ))
    })?;
    Ok(Some(CharRule { folded, space }))
}

/// `inspect_match_batch(answers, targets, location, scorer, ignore_case, chars=None,
/// workers=-1)`: for each pair `k`, whether `answers[k]` matches `targets[k]` as inspect_ai's
/// `scorer` decides. Returns `(hits, pending, missing)`: one byte a pair (1: a hit); the pairs
/// (0 in `hits`) left to the caller; and, sorted, the code points `chars` lacked.
#[pyfunction]
#[pyo3(
    signature = (answers, targets, location, scorer, ignore_case, chars = None, workers = Workers::ALL),
    text_signature = "(answers, targets, location, scorer, ignore_case, chars=None, workers=-1)"
)]
#[allow(clippy::too_many_arguments)]
pub fn inspect_match_batch<'py>(
    py: Python<'py>,
    answers: &Bound<'py, PyAny>,
    targets: &Bound<'py, PyAny>,
    location: Location,
    scorer: Scorer,
    ignore_case: bool,
    chars: Option<&Bound<'py, PyDict>>,
    workers: Workers,
) -> PyResult<(Bound<'py, PyBytes>, Vec<usize>, Vec<u32>)> {
    let (held_answers, held_targets) = (hold(answers, "answers")?, hold(targets, "targets")?);
    same_length(held_answers.len(), held_targets.len())?;
    let (a, t) = (
        held_answers.texts("answers")?,
        held_targets.texts("targets")?,
    );
    let (mut seen, mut missing) = (Seen::default(), Vec::new());
    let answer_kinds = kinds(&a, chars, &mut seen, &mut missing)?;
    let target_kinds = kinds(&t, chars, &mut seen, &mut missing)?;
    missing.sort_unstable();
    missing.dedup();
    let rule = Rule {
        scorer,
        location,
        ignore_case,
    };
    let size = (a.bytes() + t.bytes()).saturating_add(16 * a.len());
    let mut verdicts = run_watched(py, workers, size, |stop, workers| {
        let mut out = result_array::<u8>(a.len(), "the verdicts")?;
        let weight = |i: usize| a.row(i).len() + t.row(i).len() + 16;
        let look = |c: char| seen.get(&c).and_then(Option::as_ref);
        fill_rows_weighted(
            &mut out,
            1,
            workers,
            stop,
            weight,
            |s: &mut Scratch, i, cell| {
                let (answer, target) = (a.row(i), t.row(i));
                cell[0] = match (answer_kinds[i], target_kinds[i]) {
                    (Kind::Ascii, Kind::Ascii) => u8::from(hit(s, answer, target, rule)),
                    (Kind::Pending, _) | (_, Kind::Pending) => PENDING,
                    _ => match (std::str::from_utf8(answer), std::str::from_utf8(target)) {
                        (Ok(answer), Ok(target)) => {
                            hit_text(s, answer, target, rule, look).map_or(PENDING, u8::from)
                        }
                        _ => PENDING,
                    },
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
    Ok((PyBytes::new(py, &verdicts), pending, missing))
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(inspect_match_batch, m)?)?;
    Ok(())
}
