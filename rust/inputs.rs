//! Turning Python arguments into owned Rust values while the GIL is held.

use numpy::PyReadonlyArray1;
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use crate::errors::{EvalError, EvalResult};

/// A batch of texts copied into one buffer: row i is `buf[offs[i]..offs[i + 1]]`, in
/// generalized UTF-8 (lone surrogates kept as Python's `surrogatepass` encodes them).
pub struct Texts {
    buf: Vec<u8>,
    offs: Vec<usize>,
}

impl Texts {
    pub fn len(&self) -> usize {
        self.offs.len() - 1
    }

    #[inline]
    pub fn row(&self, i: usize) -> &[u8] {
        &self.buf[self.offs[i]..self.offs[i + 1]]
    }
}

/// The bytes of one Python `str`, lone surrogates included.
pub fn str_bytes(obj: &Bound<'_, PyAny>, what: &str) -> PyResult<Vec<u8>> {
    let s = obj
        .cast::<PyString>()
        .map_err(|_| EvalError::Type(format!("{what} must be str, got {}", type_name(obj))))?;
    match s.to_str() {
        Ok(text) => Ok(text.as_bytes().to_vec()),
        Err(_) => Ok(surrogate_bytes(s)?.as_bytes().to_vec()),
    }
}

fn surrogate_bytes<'py>(s: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(s.call_method1("encode", ("utf-8", "surrogatepass"))?
        .cast_into::<PyBytes>()?)
}

fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an unknown type".into())
}

fn push_item(texts: &mut Texts, item: &Bound<'_, PyAny>, i: usize, side: &str) -> PyResult<()> {
    let s = item.cast::<PyString>().map_err(|_| {
        EvalError::Type(format!(
            "row {i} of {side}: expected str, got {}",
            type_name(item)
        ))
    })?;
    match s.to_str() {
        Ok(text) => texts.buf.extend_from_slice(text.as_bytes()),
        Err(_) => texts.buf.extend_from_slice(surrogate_bytes(s)?.as_bytes()),
    }
    texts.offs.push(texts.buf.len());
    Ok(())
}

/// Read a batch of texts: a sequence of `str`, or the column form `(data, offsets)` of a
/// `TextColumn` (a uint8 buffer and int64 offsets, UTF-8 checked row by row).
pub fn texts(obj: &Bound<'_, PyAny>, side: &str) -> PyResult<Texts> {
    if obj.is_instance_of::<PyString>() {
        return Err(EvalError::Type(format!(
            "{side} must be a sequence of str, got a single str (wrap it in a list)"
        ))
        .into());
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        if tuple.len() == 2 {
            if let (Ok(data), Ok(offsets)) = (
                tuple.get_item(0)?.extract::<PyReadonlyArray1<'_, u8>>(),
                tuple.get_item(1)?.extract::<PyReadonlyArray1<'_, i64>>(),
            ) {
                return column(&data, &offsets, side);
            }
        }
    }
    let mut out = Texts {
        buf: Vec::new(),
        offs: vec![0],
    };
    if let Ok(list) = obj.cast::<PyList>() {
        out.offs.reserve(list.len());
        for (i, item) in list.iter().enumerate() {
            push_item(&mut out, &item, i, side)?;
        }
        return Ok(out);
    }
    let iter = obj.try_iter().map_err(|_| {
        EvalError::Type(format!(
            "{side} must be a sequence of str, got {}",
            type_name(obj)
        ))
    })?;
    for (i, item) in iter.enumerate() {
        push_item(&mut out, &item?, i, side)?;
    }
    Ok(out)
}

fn column(
    data: &PyReadonlyArray1<'_, u8>,
    offsets: &PyReadonlyArray1<'_, i64>,
    side: &str,
) -> PyResult<Texts> {
    let bad = |msg: String| -> PyErr { EvalError::input(format!("{side}: {msg}")).into() };
    let data = data
        .as_slice()
        .map_err(|_| bad("the text column's data buffer must be contiguous".into()))?;
    let offsets = offsets
        .as_slice()
        .map_err(|_| bad("the text column's offsets must be contiguous".into()))?;
    if offsets.is_empty() {
        return Err(bad(
            "a text column needs at least one offset (n + 1 for n rows)".into(),
        ));
    }
    let base = offsets[0];
    let mut offs = Vec::with_capacity(offsets.len());
    for (i, w) in offsets.windows(2).enumerate() {
        if w[0] < 0 || w[1] < w[0] || w[1] as usize > data.len() {
            return Err(bad(format!(
                "row {i}: offsets {}..{} do not lie inside the {}-byte buffer",
                w[0],
                w[1],
                data.len()
            )));
        }
        let row = &data[w[0] as usize..w[1] as usize];
        if std::str::from_utf8(row).is_err() {
            return Err(bad(format!("row {i} is not valid UTF-8")));
        }
    }
    if base < 0 || base as usize > data.len() {
        return Err(bad(format!("offset {base} lies outside the buffer")));
    }
    offs.extend(offsets.iter().map(|&o| (o - base) as usize));
    let end = *offsets.last().unwrap_or(&base) as usize;
    Ok(Texts {
        buf: data[base as usize..end].to_vec(),
        offs,
    })
}

/// Check that two batches pair up.
pub fn same_length(expected: usize, actual: usize) -> EvalResult<()> {
    if expected == actual {
        Ok(())
    } else {
        Err(EvalError::Lengths { expected, actual })
    }
}

/// Check that `value` is one of `allowed` for option `name`.
pub fn choice<'a>(name: &str, value: &'a str, allowed: &[&str]) -> EvalResult<&'a str> {
    if allowed.contains(&value) {
        Ok(value)
    } else {
        Err(EvalError::input(format!(
            "{name} must be one of {}, got {value:?}",
            allowed
                .iter()
                .map(|a| format!("{a:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        )))
    }
}
