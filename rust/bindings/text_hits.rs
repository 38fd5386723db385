//! `normalized_hits_batch`: the comparisons of the text strategies (`ExactMatch`, `Contains`,
//! `ContainsFacts`) over a whole column, each text normalized into a scratch buffer and never
//! made a Python string, without the GIL. The rule is the normalizer's (`normalize_text_batch`):
//! 128 bytes for the ASCII characters and a table for the others; texts must already be in NFKC
//! form. A pair with a text the rule cannot take (a lone surrogate, a character the table
//! lacks, or with `ascii_only` any non-ASCII text) is left to the caller.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyString};
use rustc_hash::FxHashMap;

use crate::bindings::normalize::{known, replacement};
use crate::errors::EvalError;
use crate::inputs::type_name;
use crate::metrics::text::occurs;
use crate::metrics::text_normalize::{normalize_into, Rules};

/// The replacements of the non-ASCII characters seen, `None` for one the table lacks.
type Lookup = FxHashMap<char, Option<String>>;

/// The texts of one side: each as a `str` when the rule can take it, else `None` (left to
/// the caller); the characters `table` lacks go to `missing`.
fn texts_of<'a, 'py>(
    held: &'a [Bound<'py, PyAny>],
    side: &str,
    (table, cache, missing): (&Bound<'py, PyDict>, &mut Lookup, &mut Vec<u32>),
    ascii_only: bool,
) -> PyResult<Vec<Option<&'a str>>> {
    let mut texts = Vec::with_capacity(held.len());
    for (i, item) in held.iter().enumerate() {
        let s = item.cast::<PyString>().map_err(|_| {
            EvalError::Type(format!(
                "row {i} of {side}: expected str, got {}",
                type_name(item)
            ))
        })?;
        // a lone surrogate (no Rust str holds it) is the caller's
        let text = match s.to_str() {
            Ok(t) if t.is_ascii() => Some(t),
            Ok(t) if !ascii_only && known(cache, table, t, missing, replacement)? => Some(t),
            _ => None,
        };
        texts.push(text);
    }
    Ok(texts)
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

/// `normalized_hits_batch(actual, wanted, owners, ascii, table, contains, ascii_only=True)`:
/// for each pair `k`, whether `wanted[k]` normalized equals (or, with `contains`, occurs in)
/// `actual[owners[k]]` normalized (`owners` None: the pair's own row, `k`). Returns `(hits,
/// pending, missing)`: one byte per pair, 1 for a hit; the pairs (0 in `hits`) left to the
/// caller; and, sorted, the code points `table` lacked.
#[pyfunction]
#[pyo3(
    signature = (actual, wanted, owners, ascii, table, contains, ascii_only = true),
    text_signature = "(actual, wanted, owners, ascii, table, contains, ascii_only=True)"
)]
#[allow(clippy::too_many_arguments)]
pub fn normalized_hits_batch<'py>(
    py: Python<'py>,
    actual: &Bound<'py, PyAny>,
    wanted: &Bound<'py, PyAny>,
    owners: Option<PyReadonlyArray1<'py, i64>>,
    ascii: &Bound<'py, PyBytes>,
    table: &Bound<'py, PyDict>,
    contains: bool,
    ascii_only: bool,
) -> PyResult<(Bound<'py, PyBytes>, Vec<usize>, Vec<u32>)> {
    for (side, texts) in [("actual", actual), ("wanted", wanted)] {
        if texts.is_instance_of::<PyString>() {
            return Err(EvalError::Type(format!(
                "{side} must be a sequence of str, got a single str (wrap it in a list)"
            ))
            .into());
        }
    }
    let rules = Rules {
        ascii: rules_of(ascii, "ascii")?,
    };
    let held_actual: Vec<Bound<'py, PyAny>> = actual.try_iter()?.collect::<PyResult<_>>()?;
    let held_wanted: Vec<Bound<'py, PyAny>> = wanted.try_iter()?.collect::<PyResult<_>>()?;
    let (mut cache, mut missing) = (Lookup::default(), Vec::new());
    let seen = (table, &mut cache, &mut missing);
    let texts_actual = texts_of(&held_actual, "actual", seen, ascii_only)?;
    let seen = (table, &mut cache, &mut missing);
    let texts_wanted = texts_of(&held_wanted, "wanted", seen, ascii_only)?;
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
    missing.sort_unstable();
    missing.dedup();
    let (hits, pending) = py.detach(|| {
        judge(
            &texts_actual,
            &texts_wanted,
            &owners,
            (&rules, &cache),
            contains,
        )
    });
    Ok((PyBytes::new(py, &hits), pending, missing))
}

/// The kernel of [`normalized_hits_batch`] (`None`: a text left to the caller; `lookup`: the
/// replacements of the non-ASCII characters of the others).
fn judge(
    actual: &[Option<&str>],
    wanted: &[Option<&str>],
    owners: &[usize],
    (rules, lookup): (&Rules<'_>, &Lookup),
    contains: bool,
) -> (Vec<u8>, Vec<usize>) {
    let replace = |c: char| lookup.get(&c).and_then(|r| r.as_deref());
    let mut hits = vec![0u8; wanted.len()];
    let mut pending = Vec::new();
    let (mut got, mut want) = (String::new(), String::new());
    let mut normalized_row = None; // the row whose text `got` holds
    for (k, (&row, text)) in owners.iter().zip(wanted).enumerate() {
        let (Some(output), Some(text)) = (actual[row], text) else {
            pending.push(k);
            continue;
        };
        if !contains && output.is_ascii() && text.is_ascii() {
            // compared as they are normalized: most pairs differ within a few characters
            let got = Normalized::new(output, rules.ascii);
            hits[k] = u8::from(got.eq(Normalized::new(text, rules.ascii)));
            continue;
        }
        // every character of these texts has a rule (checked when they were read)
        if normalized_row != Some(row) {
            if normalize_into(output, rules, replace, &mut got).is_err() {
                pending.push(k);
                normalized_row = None;
                continue;
            }
            normalized_row = Some(row);
        }
        if normalize_into(text, rules, replace, &mut want).is_err() {
            pending.push(k);
            continue;
        }
        let hit = if contains {
            occurs(got.as_bytes(), want.as_bytes())
        } else {
            got == want
        };
        hits[k] = u8::from(hit);
    }
    (hits, pending)
}

/// The bytes of an ASCII text as the normalizer writes them (each byte mapped by `ascii`, runs
/// of spaces one space, none at the ends), made one at a time.
struct Normalized<'a> {
    text: &'a [u8],
    ascii: &'a [u8; 128],
    at: usize,
    /// a space is owed before the next other byte
    gap: bool,
    /// a byte other than a space has been given
    started: bool,
}

impl<'a> Normalized<'a> {
    fn new(text: &'a str, ascii: &'a [u8; 128]) -> Self {
        Normalized {
            text: text.as_bytes(),
            ascii,
            at: 0,
            gap: false,
            started: false,
        }
    }
}

impl Iterator for Normalized<'_> {
    type Item = u8;

    fn next(&mut self) -> Option<u8> {
        while let Some(&b) = self.text.get(self.at) {
            let m = self.ascii[usize::from(b & 0x7f)];
            if m == b' ' {
                self.gap = self.started;
                self.at += 1;
            } else if self.gap {
                self.gap = false; // the space now; this byte on the next call
                return Some(b' ');
            } else {
                self.started = true;
                self.at += 1;
                return Some(m);
            }
        }
        None // a space owed at the end is dropped
    }
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
    fn compares_normalized_pairs_and_leaves_the_unreadable_to_the_caller() {
        let table = lower();
        let rules = Rules { ascii: &table };
        let mut lookup = Lookup::default();
        lookup.insert('É', Some("é".into()));
        lookup.insert('é', Some("é".into()));
        let actual = [Some("Hello  World!"), Some("abc"), None, Some("Café!")];
        let wanted = [Some("hello world"), Some("ABD"), Some("x"), Some("cafÉ")];
        let owners = [0, 1, 2, 3];
        let (hits, pending) = judge(&actual, &wanted, &owners, (&rules, &lookup), false);
        assert_eq!(hits, vec![1, 0, 0, 1]);
        assert_eq!(pending, vec![2]);
    }

    #[test]
    fn the_byte_by_byte_form_is_the_normalizers() {
        let table = lower();
        let rules = Rules { ascii: &table };
        for text in [
            "",
            "  ",
            " a ",
            "Hello,  World!! ",
            "!a!!b!",
            "x\t\ny  z",
            "!!",
        ] {
            let mut out = String::new();
            normalize_into(text, &rules, |_| None, &mut out).unwrap();
            let bytes: Vec<u8> = Normalized::new(text, &table).collect();
            assert_eq!(bytes, out.as_bytes(), "{text:?}");
        }
    }

    #[test]
    fn finds_each_wanted_text_in_its_owners_output() {
        let table = lower();
        let rules = Rules { ascii: &table };
        let actual = [Some("The Cat sat"), Some("dog")];
        let wanted = [Some("cat"), Some("!SAT!"), Some("mat"), Some(""), None];
        let owners = [0, 0, 0, 1, 1];
        let lookup = Lookup::default();
        let (hits, pending) = judge(&actual, &wanted, &owners, (&rules, &lookup), true);
        assert_eq!(hits, vec![1, 1, 0, 1, 0]);
        assert_eq!(pending, vec![4]);
    }
}
