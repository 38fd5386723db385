//! Sequences of hashable items (token lists) as texts the edit-distance kernels compare. Each
//! distinct item gets a code point in order of first appearance (the surrogates skipped), so
//! texts coded under one table have equal characters exactly where RapidFuzz sees equal items:
//! a one-character `str` is its code point, the int -1 is -1, any other item is its `hash()`.

use pyo3::prelude::*;
use pyo3::types::{PyInt, PyList, PySequence, PyString};
use rustc_hash::FxHashMap;

use crate::errors::EvalError;
use crate::inputs::type_name;

const SURROGATES: u32 = 0xD800;
const SURROGATE_SPAN: u32 = 0x800;
/// Code points left once the surrogates are skipped.
const MAX_ITEMS: usize = 0x11_0000 - SURROGATE_SPAN as usize;

/// One table of codes, filled as items are met.
#[derive(Default)]
struct Codes {
    ids: FxHashMap<i64, u32>,
}

impl Codes {
    fn code(&mut self, key: i64) -> PyResult<char> {
        let next = self.ids.len();
        let id = *self.ids.entry(key).or_insert(next as u32);
        if self.ids.len() > MAX_ITEMS {
            return Err(EvalError::input(format!(
                "more than {MAX_ITEMS} distinct items in one comparison; split the input or map \
                 the items to fewer values"
            ))
            .into());
        }
        let cp = if id < SURROGATES {
            id
        } else {
            id + SURROGATE_SPAN
        };
        // Below 0x110000 and never a surrogate, by the bound above.
        Ok(char::from_u32(cp).unwrap_or(char::REPLACEMENT_CHARACTER))
    }
}

/// The code point of a one-character `str`, or `None` for any other length.
fn single_char(s: &Bound<'_, PyString>) -> PyResult<Option<i64>> {
    if let Ok(text) = s.to_str() {
        let mut chars = text.chars();
        return Ok(match (chars.next(), chars.next()) {
            (Some(c), None) => Some(c as i64),
            _ => None,
        });
    }
    // A lone surrogate (no UTF-8 form): ask Python.
    if s.len()? == 1 {
        let ord = s.py().import("builtins")?.getattr("ord")?;
        return Ok(Some(ord.call1((s,))?.extract::<i64>()?));
    }
    Ok(None)
}

fn key(item: &Bound<'_, PyAny>) -> PyResult<i64> {
    if let Ok(s) = item.cast::<PyString>() {
        if let Some(c) = single_char(s)? {
            return Ok(c);
        }
    } else if item.cast::<PyInt>().is_ok() && item.extract::<i64>().ok() == Some(-1) {
        return Ok(-1);
    }
    item.hash().map(|h| h as i64).map_err(|_| {
        EvalError::Type(format!(
            "the items of a sequence must be hashable, got {}",
            type_name(item)
        ))
        .into()
    })
}

fn text(row: &Bound<'_, PyAny>, codes: &mut Codes, name: &dyn Fn() -> String) -> PyResult<String> {
    let mut out = String::new();
    if let Ok(s) = row.cast::<PyString>() {
        if let Ok(t) = s.to_str() {
            for c in t.chars() {
                out.push(codes.code(c as i64)?);
            }
            return Ok(out);
        }
    } else if row.cast::<PySequence>().is_err() {
        return Err(EvalError::Type(format!(
            "{} must be a str or a sequence of hashable items (a list or tuple), got {}",
            name(),
            type_name(row)
        ))
        .into());
    }
    for item in row.try_iter()? {
        out.push(codes.code(key(&item?)?)?);
    }
    Ok(out)
}

/// `item_texts(expected, actual, shared, names, numbered)`: the rows of two lists as texts of
/// codes, one table per pair of rows (`expected[i]`, `actual[i]`, the lists of equal length),
/// or with `shared` one table for every row of both. An error names the row's list from
/// `names` (and its index when `numbered`).
#[pyfunction]
#[pyo3(signature = (expected, actual, shared, names, numbered))]
fn item_texts(
    expected: &Bound<'_, PyList>,
    actual: &Bound<'_, PyList>,
    shared: bool,
    names: (String, String),
    numbered: bool,
) -> PyResult<(Vec<String>, Vec<String>)> {
    let label = |i: usize, side: &str| {
        if numbered {
            format!("row {i} of {side}")
        } else {
            side.to_string()
        }
    };
    let mut codes = Codes::default();
    if shared {
        let mut sides = (Vec::new(), Vec::new());
        for (list, out, side) in [
            (expected, &mut sides.0, &names.0),
            (actual, &mut sides.1, &names.1),
        ] {
            for (i, row) in list.iter().enumerate() {
                out.push(text(&row, &mut codes, &|| label(i, side))?);
            }
        }
        return Ok(sides);
    }
    if expected.len() != actual.len() {
        return Err(EvalError::input(format!(
            "expected batches of equal length, got {} and {}",
            expected.len(),
            actual.len()
        ))
        .into());
    }
    let mut sides = (
        Vec::with_capacity(expected.len()),
        Vec::with_capacity(actual.len()),
    );
    for (i, (e, a)) in expected.iter().zip(actual.iter()).enumerate() {
        codes.ids.clear();
        sides.0.push(text(&e, &mut codes, &|| label(i, &names.0))?);
        sides.1.push(text(&a, &mut codes, &|| label(i, &names.1))?);
    }
    Ok(sides)
}

/// Add this module's functions.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(item_texts, m)?)?;
    Ok(())
}
