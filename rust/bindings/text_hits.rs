//! `normalized_hits_batch`: the comparisons of the text strategies (`ExactMatch`, `Contains`,
//! `ContainsFacts`) over a whole column, each text normalized into a scratch buffer and never
//! made a Python string. Only ASCII texts are judged here (the rules of their characters are
//! the 128 bytes the caller gives); a pair with any other text is left to the caller, who
//! normalizes it with `normalize_text_batch`.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyString};

use crate::errors::EvalError;
use crate::inputs::type_name;
use crate::metrics::text_normalize::{normalize_into, Rules};

/// The texts of one side: each as a `str` when it is ASCII, else `None` (left to the caller).
fn ascii_texts<'a, 'py>(
    held: &'a [Bound<'py, PyAny>],
    side: &str,
) -> PyResult<Vec<Option<&'a str>>> {
    held.iter()
        .enumerate()
        .map(|(i, item)| {
            let s = item.cast::<PyString>().map_err(|_| {
                EvalError::Type(format!(
                    "row {i} of {side}: expected str, got {}",
                    type_name(item)
                ))
            })?;
            // a lone surrogate (no Rust str holds it) is the caller's, as any non-ASCII text
            Ok(s.to_str().ok().filter(|t| t.is_ascii()))
        })
        .collect()
}

/// The 128 replacement bytes of one rule, checked.
fn rules_of<'a>(ascii: &'a Bound<'_, PyBytes>, name: &str) -> PyResult<&'a [u8; 128]> {
    let table: &[u8; 128] = ascii.as_bytes().try_into().map_err(|_| {
        EvalError::Type(format!(
            "{name} must hold 128 bytes, one per ASCII character"
        ))
    })?;
    if table.iter().any(|b| !b.is_ascii()) {
        return Err(
            EvalError::Type(format!("{name} must map every character to an ASCII byte")).into(),
        );
    }
    Ok(table)
}

/// `normalized_hits_batch(actual, wanted, owners, ascii_actual, ascii_wanted, contains)`: for
/// each pair `k`, whether `wanted[k]` normalized by the rule `ascii_wanted` equals (or, with
/// `contains`, occurs in) `actual[owners[k]]` normalized by `ascii_actual` (`owners` None: the
/// pair's own row, `k`). Returns `(hits, pending)`: one byte per pair, 1 for a hit, and the
/// pairs (0 in `hits`) whose texts are not all ASCII, which the caller judges.
#[pyfunction]
#[pyo3(
    signature = (actual, wanted, owners, ascii_actual, ascii_wanted, contains),
    text_signature = "(actual, wanted, owners, ascii_actual, ascii_wanted, contains)"
)]
pub fn normalized_hits_batch<'py>(
    py: Python<'py>,
    actual: &Bound<'py, PyAny>,
    wanted: &Bound<'py, PyAny>,
    owners: Option<PyReadonlyArray1<'py, i64>>,
    ascii_actual: &Bound<'py, PyBytes>,
    ascii_wanted: &Bound<'py, PyBytes>,
    contains: bool,
) -> PyResult<(Bound<'py, PyBytes>, Vec<usize>)> {
    for (side, texts) in [("actual", actual), ("wanted", wanted)] {
        if texts.is_instance_of::<PyString>() {
            return Err(EvalError::Type(format!(
                "{side} must be a sequence of str, got a single str (wrap it in a list)"
            ))
            .into());
        }
    }
    let rules_actual = Rules {
        ascii: rules_of(ascii_actual, "ascii_actual")?,
    };
    let rules_wanted = Rules {
        ascii: rules_of(ascii_wanted, "ascii_wanted")?,
    };
    let held_actual: Vec<Bound<'py, PyAny>> = actual.try_iter()?.collect::<PyResult<_>>()?;
    let held_wanted: Vec<Bound<'py, PyAny>> = wanted.try_iter()?.collect::<PyResult<_>>()?;
    let texts_actual = ascii_texts(&held_actual, "actual")?;
    let texts_wanted = ascii_texts(&held_wanted, "wanted")?;
    let owners: Vec<usize> = match &owners {
        None => {
            if texts_actual.len() != texts_wanted.len() {
                return Err(EvalError::Lengths {
                    expected: texts_actual.len(),
                    actual: texts_wanted.len(),
                }
                .into());
            }
            (0..texts_wanted.len()).collect()
        }
        Some(array) => {
            let slice = array
                .as_slice()
                .map_err(|_| EvalError::Type("owners must be a contiguous int64 array".into()))?;
            if slice.len() != texts_wanted.len() {
                return Err(EvalError::input(format!(
                    "owners has {} entries for {} wanted texts; give one each",
                    slice.len(),
                    texts_wanted.len()
                ))
                .into());
            }
            slice
                .iter()
                .enumerate()
                .map(|(k, &row)| {
                    usize::try_from(row)
                        .ok()
                        .filter(|&r| r < texts_actual.len())
                        .ok_or_else(|| {
                            EvalError::input(format!(
                                "owners[{k}] is {row}, not a row of actual (0 to {})",
                                texts_actual.len() as i64 - 1
                            ))
                        })
                })
                .collect::<Result<_, _>>()?
        }
    };
    let (hits, pending) = py.detach(|| {
        judge(
            &texts_actual,
            &texts_wanted,
            &owners,
            (&rules_actual, &rules_wanted),
            contains,
        )
    });
    Ok((PyBytes::new(py, &hits), pending))
}

/// The kernel of [`normalized_hits_batch`], on ASCII texts (`None`: a text left to the caller).
fn judge(
    actual: &[Option<&str>],
    wanted: &[Option<&str>],
    owners: &[usize],
    (rules_actual, rules_wanted): (&Rules<'_>, &Rules<'_>),
    contains: bool,
) -> (Vec<u8>, Vec<usize>) {
    let mut hits = vec![0u8; wanted.len()];
    let mut pending = Vec::new();
    let (mut got, mut want) = (String::new(), String::new());
    let mut normalized_row = None; // the row whose text `got` holds
    for (k, (&row, text)) in owners.iter().zip(wanted).enumerate() {
        let (Some(output), Some(text)) = (actual[row], text) else {
            pending.push(k);
            continue;
        };
        // ASCII texts take the normalizer's fast path, which needs no lookup
        if normalized_row != Some(row) {
            let _ = normalize_into(output, rules_actual, |_| None, &mut got);
            normalized_row = Some(row);
        }
        let _ = normalize_into(text, rules_wanted, |_| None, &mut want);
        let hit = if contains {
            got.contains(want.as_str())
        } else {
            got == want
        };
        hits[k] = u8::from(hit);
    }
    (hits, pending)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lower() -> [u8; 128] {
        let mut t = [0u8; 128];
        for (i, v) in t.iter_mut().enumerate() {
            let c = i as u8;
            *v = if c.is_ascii_whitespace() || c == b'!' {
                b' '
            } else {
                c.to_ascii_lowercase()
            };
        }
        t
    }

    #[test]
    fn compares_normalized_pairs_and_leaves_non_ascii_to_the_caller() {
        let table = lower();
        let rules = Rules { ascii: &table };
        let actual = [Some("Hello  World!"), Some("abc"), None];
        let wanted = [Some("hello world"), Some("ABD"), Some("x")];
        let (hits, pending) = judge(&actual, &wanted, &[0, 1, 2], (&rules, &rules), false);
        assert_eq!(hits, vec![1, 0, 0]);
        assert_eq!(pending, vec![2]);
    }

    #[test]
    fn finds_each_wanted_text_in_its_owners_output() {
        let table = lower();
        let rules = Rules { ascii: &table };
        let actual = [Some("The Cat sat"), Some("dog")];
        let wanted = [Some("cat"), Some("!SAT!"), Some("mat"), Some(""), None];
        let owners = [0, 0, 0, 1, 1];
        let (hits, pending) = judge(&actual, &wanted, &owners, (&rules, &rules), true);
        assert_eq!(hits, vec![1, 1, 0, 1, 0]);
        assert_eq!(pending, vec![4]);
    }
}
