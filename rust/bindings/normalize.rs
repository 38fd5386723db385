//! `normalize_text_batch`: the text strategies' normalizer over a whole column in one call
//! (the kernel is `metrics::text_normalize`; the rules come from Python, see there).

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString};
use rustc_hash::FxHashMap;

use crate::errors::EvalError;
use crate::inputs::type_name;
use crate::metrics::text_normalize::{normalize_into, Rules};

/// A row's result: the normalized text, or `None` for a row left to the caller.
type Row<'py> = Option<Bound<'py, PyString>>;

/// `normalize_text_batch(texts, ascii, table, ascii_only=True)`: each text normalized by the
/// rules (`ascii`: 128 bytes, the ASCII characters' replacements; `table`: a dict from a
/// non-ASCII code point to its replacement `str`, spaces for whitespace and punctuation).
/// Returns `(rows, pending, missing)`: `rows[i]` is the normalized text or `None`; `pending`
/// lists the rows left as `None` (a non-ASCII text when `ascii_only`, a text holding a lone
/// surrogate, or one with a character `table` lacks); `missing` lists, sorted, the code points
/// `table` lacked.
#[pyfunction]
#[pyo3(
    signature = (texts, ascii, table, ascii_only = true),
    text_signature = "(texts, ascii, table, ascii_only=True)"
)]
pub fn normalize_text_batch<'py>(
    py: Python<'py>,
    texts: &Bound<'py, PyAny>,
    ascii: &Bound<'py, PyBytes>,
    table: &Bound<'py, PyDict>,
    ascii_only: bool,
) -> PyResult<(Bound<'py, PyList>, Vec<usize>, Vec<u32>)> {
    let ascii: &[u8; 128] = ascii.as_bytes().try_into().map_err(|_| {
        EvalError::Type("ascii must hold 128 bytes, one per ASCII character".into())
    })?;
    if ascii.iter().any(|b| !b.is_ascii()) {
        return Err(
            EvalError::Type("ascii must map every character to an ASCII byte".into()).into(),
        );
    }
    if texts.is_instance_of::<PyString>() {
        return Err(EvalError::Type(
            "texts must be a sequence of str, got a single str (wrap it in a list)".into(),
        )
        .into());
    }
    let rules = Rules { ascii };
    let mut cache: FxHashMap<char, Option<String>> = FxHashMap::default();
    let mut rows: Vec<Row<'py>> = Vec::with_capacity(texts.len().unwrap_or(0));
    let mut pending = Vec::new();
    let mut missing = Vec::new();
    let mut out = String::new();
    for (i, item) in texts.try_iter()?.enumerate() {
        let item = item?;
        let s = item.cast::<PyString>().map_err(|_| {
            EvalError::Type(format!(
                "row {i} of texts: expected str, got {}",
                type_name(&item)
            ))
        })?;
        let text = match s.to_str() {
            Ok(t) if !ascii_only || t.is_ascii() => t,
            _ => {
                // a lone surrogate (no Rust str holds it) or a text the caller composes first
                pending.push(i);
                rows.push(None);
                continue;
            }
        };
        if !text.is_ascii() && !known(&mut cache, table, text, &mut missing, replacement)? {
            pending.push(i);
            rows.push(None);
            continue;
        }
        let lookup = |c: char| cache.get(&c).and_then(|r| r.as_deref());
        match normalize_into(text, &rules, lookup, &mut out) {
            // a text already in normal form is returned as it is, not copied
            Ok(()) if out.as_str() == text => rows.push(Some(s.clone())),
            Ok(()) => rows.push(Some(PyString::new(py, &out))),
            Err(_) => {
                pending.push(i);
                rows.push(None);
            }
        }
    }
    missing.sort_unstable();
    missing.dedup();
    Ok((PyList::new(py, rows)?, pending, missing))
}

/// Look up every non-ASCII character of `text` in `table` (once per call each, read by
/// `rule_of`); whether all have a rule. The ones without are added to `missing`.
pub(crate) fn known<R>(
    cache: &mut FxHashMap<char, Option<R>>,
    table: &Bound<'_, PyDict>,
    text: &str,
    missing: &mut Vec<u32>,
    rule_of: impl Fn(char, &Bound<'_, PyAny>) -> PyResult<R>,
) -> PyResult<bool> {
    let mut all = true;
    for c in text.chars().filter(|c| !c.is_ascii()) {
        let rule = match cache.get(&c) {
            Some(rule) => rule.is_some(),
            None => {
                let found = match table.get_item(c as u32)? {
                    Some(value) => Some(rule_of(c, &value)?),
                    None => None,
                };
                let has = found.is_some();
                cache.insert(c, found);
                has
            }
        };
        if !rule {
            missing.push(c as u32);
            all = false;
        }
    }
    Ok(all)
}

/// A normalizer table's replacement text for `c`, checked.
pub(crate) fn replacement(c: char, value: &Bound<'_, PyAny>) -> PyResult<String> {
    let text = value.cast::<PyString>().map_err(|_| {
        EvalError::Type(format!(
            "table[{}] must be str, got {}",
            c as u32,
            type_name(value)
        ))
    })?;
    Ok(text.to_str()?.to_owned())
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(normalize_text_batch, m)?)?;
    m.add_function(wrap_pyfunction!(
        super::text_hits::normalized_hits_batch,
        m
    )?)?;
    Ok(())
}
