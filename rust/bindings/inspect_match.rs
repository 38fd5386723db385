//! `inspect_match_batch`: inspect_ai's `match` and `includes` scorers over flat columns of
//! (answer, target) pairs (`metrics/inspect_match.rs`), in one pass that judges each pair as
//! soon as its two `str` are read: the texts are borrowed from the objects, and each object is
//! touched once while it is in the cache (a column of short texts costs its memory reads, so
//! a second pass, or a snapshot of the column and its release, would cost as much again). It
//! runs with the GIL held, O(total length), and looks for signals (Ctrl-C) every
//! [`CHECK_EVERY`] bytes read. ASCII texts need no table; the non-ASCII characters of the
//! others are ruled by the caller's table (`chars`: a code point to its `casefold()` and
//! `isspace()`, from Python itself). A pair with a character the table lacks, or with a lone
//! surrogate, is left to the caller.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};
use rustc_hash::FxHashMap;

use crate::bindings::normalize::known;
use crate::errors::EvalError;
use crate::inputs::{same_length, type_name};
use crate::metrics::halt::CHECK_EVERY;
use crate::metrics::inspect_match::{hit, hit_text, CharRule, Location, Rule, Scorer, Scratch};

/// The rules of the non-ASCII characters seen, `None` for one the table lacks.
type Seen = FxHashMap<char, Option<CharRule>>;

/// One side's items, read in place when it is a list or a tuple.
enum Items<'py> {
    List(Bound<'py, PyList>),
    Tuple(Bound<'py, PyTuple>),
    Other(Vec<Bound<'py, PyAny>>),
}

impl<'py> Items<'py> {
    fn of(obj: &Bound<'py, PyAny>, side: &str) -> PyResult<Self> {
        if obj.is_instance_of::<PyString>() {
            return Err(EvalError::Type(format!(
                "{side} must be a sequence of str, got a single str (wrap it in a list)"
            ))
            .into());
        }
        if let Ok(list) = obj.cast::<PyList>() {
            return Ok(Items::List(list.clone()));
        }
        if let Ok(tuple) = obj.cast::<PyTuple>() {
            return Ok(Items::Tuple(tuple.clone()));
        }
        let iter = obj.try_iter().map_err(|_| {
            EvalError::Type(format!(
                "{side} must be a sequence of str, got {}",
                type_name(obj)
            ))
        })?;
        Ok(Items::Other(iter.collect::<PyResult<_>>()?))
    }

    fn len(&self) -> usize {
        match self {
            Items::List(list) => list.len(),
            Items::Tuple(tuple) => tuple.len(),
            Items::Other(items) => items.len(),
        }
    }

    /// Item `i` (a list is read again at each item, so a list changed meanwhile is an
    /// error, never a dangling text).
    fn get(&self, i: usize) -> PyResult<Bound<'py, PyAny>> {
        match self {
            Items::List(list) => list.get_item(i),
            Items::Tuple(tuple) => tuple.get_item(i),
            Items::Other(items) => Ok(items[i].clone()),
        }
    }
}

/// A text as the kernel takes it: ASCII, other UTF-8, or unreadable (a lone surrogate).
enum Text<'a> {
    Ascii(&'a [u8]),
    Utf8(&'a str),
    Unreadable,
}

impl Text<'_> {
    /// Its bytes (none when unreadable).
    fn len(&self) -> usize {
        match self {
            Text::Ascii(bytes) => bytes.len(),
            Text::Utf8(text) => text.len(),
            Text::Unreadable => 0,
        }
    }
}

/// Row `i` of `side` read as a text; not a `str` is a `TypeError` naming the row.
fn text_of<'a>(item: &'a Bound<'_, PyAny>, side: &str, i: usize) -> PyResult<Text<'a>> {
    let s = item.cast::<PyString>().map_err(|_| {
        EvalError::Type(format!(
            "row {i} of {side}: expected str, got {}",
            type_name(item)
        ))
    })?;
    let Ok(text) = s.to_str() else {
        return Ok(Text::Unreadable);
    };
    // a text is ASCII exactly when it has as many code points as bytes
    Ok(if s.code_point_len()? == text.len() {
        Text::Ascii(text.as_bytes())
    } else {
        Text::Utf8(text)
    })
}

/// The table's rule for `c`, checked.
fn rule_of(c: char, value: &Bound<'_, PyAny>) -> PyResult<CharRule> {
    let (folded, space) = value.extract::<(String, bool)>().map_err(|_| {
        EvalError::Type(format!(
            "chars[{}] must be a (str, bool) pair: the character's casefold() and isspace()",
            c as u32
        ))
    })?;
    Ok(CharRule { folded, space })
}

/// The text of a pair's side for [`hit_text`], when every character it holds has a rule.
fn readable<'a>(
    text: &Text<'a>,
    table: Option<&Bound<'_, PyDict>>,
    seen: &mut Seen,
    missing: &mut Vec<u32>,
) -> PyResult<Option<&'a str>> {
    Ok(match *text {
        // ASCII bytes are UTF-8
        Text::Ascii(bytes) => std::str::from_utf8(bytes).ok(),
        Text::Utf8(t) => match table {
            Some(table) => known(seen, table, t, missing, rule_of)?.then_some(t),
            None => None, // no table: no rule for any character
        },
        Text::Unreadable => None,
    })
}

/// `inspect_match_batch(answers, targets, location, scorer, ignore_case, chars=None)`: for
/// each pair `k`, whether `answers[k]` matches `targets[k]` as inspect_ai's `scorer` decides.
/// Returns `(hits, pending, missing)`: one byte a pair (1: a hit); the pairs (0 in `hits`)
/// left to the caller; and, sorted, the code points `chars` lacked.
#[pyfunction]
#[pyo3(
    signature = (answers, targets, location, scorer, ignore_case, chars = None),
    text_signature = "(answers, targets, location, scorer, ignore_case, chars=None)"
)]
pub fn inspect_match_batch<'py>(
    py: Python<'py>,
    answers: &Bound<'py, PyAny>,
    targets: &Bound<'py, PyAny>,
    location: Location,
    scorer: Scorer,
    ignore_case: bool,
    chars: Option<&Bound<'py, PyDict>>,
) -> PyResult<(Bound<'py, PyBytes>, Vec<usize>, Vec<u32>)> {
    let (answers, targets) = (
        Items::of(answers, "answers")?,
        Items::of(targets, "targets")?,
    );
    same_length(answers.len(), targets.len())?;
    let rule = Rule {
        scorer,
        location,
        ignore_case,
    };
    let (mut seen, mut missing) = (Seen::default(), Vec::new());
    let mut scratch = Scratch::default();
    let mut hits = Vec::with_capacity(answers.len());
    let mut pending = Vec::new();
    let mut unchecked = 0usize; // bytes read since signals were last looked for
    for k in 0..answers.len() {
        let (answer, target) = (answers.get(k)?, targets.get(k)?);
        let (answer, target) = (
            text_of(&answer, "answers", k)?,
            text_of(&target, "targets", k)?,
        );
        unchecked += answer.len() + target.len();
        if unchecked > CHECK_EVERY {
            // Ctrl-C: a handler may run Python code, after which every item is read again
            py.check_signals()?;
            unchecked = 0;
        }
        let verdict = if let (Text::Ascii(a), Text::Ascii(t)) = (&answer, &target) {
            Some(hit(&mut scratch, a, t, rule))
        } else {
            let a = readable(&answer, chars, &mut seen, &mut missing)?;
            let t = readable(&target, chars, &mut seen, &mut missing)?;
            match (a, t) {
                (Some(a), Some(t)) => {
                    let look = |c: char| seen.get(&c).and_then(Option::as_ref);
                    hit_text(&mut scratch, a, t, rule, look)
                }
                _ => None,
            }
        };
        hits.push(u8::from(verdict.unwrap_or(false)));
        if verdict.is_none() {
            pending.push(k);
        }
    }
    missing.sort_unstable();
    missing.dedup();
    Ok((PyBytes::new(py, &hits), pending, missing))
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(inspect_match_batch, m)?)?;
    Ok(())
}
