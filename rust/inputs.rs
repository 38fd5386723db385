//! Reading Python arguments while the GIL is held: texts are borrowed from the objects (held
//! with a reference each for the length of the call), scalars are copied.

use std::borrow::Cow;

use numpy::{PyReadonlyArray1, PyReadonlyArray2, PyUntypedArrayMethods};
use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyList, PyString, PyTuple};

use crate::errors::{EvalError, EvalResult};
use crate::metrics::text::count_code_points;

/// A batch of texts borrowed from the Python objects that hold them: row i is `rows[i]`, in
/// generalized UTF-8 (lone surrogates kept as Python's `surrogatepass` encodes them). Nothing is
/// copied; the [`Held`] value it borrows from keeps every object alive.
pub struct Texts<'a> {
    rows: Cow<'a, [&'a [u8]]>,
    /// Each row's length in code points, as the `str` objects told it; empty for a column.
    chars: &'a [usize],
}

impl<'a> Texts<'a> {
    pub fn len(&self) -> usize {
        self.rows.len()
    }

    /// The bytes of all rows.
    pub fn bytes(&self) -> usize {
        self.rows.iter().map(|r| r.len()).sum()
    }

    #[inline]
    pub fn row(&self, i: usize) -> &'a [u8] {
        self.rows[i]
    }

    /// Row i's length in code points (Python's `len`): kept from the `str` objects, else
    /// counted. A row is all ASCII exactly when this is its number of bytes.
    #[inline]
    pub fn chars(&self, i: usize) -> usize {
        match self.chars.get(i) {
            Some(&n) => n,
            None => count_code_points(self.rows[i]),
        }
    }
}

/// A batch's Python objects, held while the GIL is released, so that the borrowed rows stay
/// valid even if another thread changes the caller's list meanwhile.
pub enum Held<'py> {
    /// A tuple snapshot of the caller's sequence (one reference keeps every item alive), the
    /// `surrogatepass` encodings made for texts with lone surrogates, and each row's bytes
    /// inside those objects (borrowed as `'static`, never handed out beyond `&self`'s life).
    Strs {
        _snapshot: Bound<'py, PyTuple>,
        _encoded: Vec<Bound<'py, PyBytes>>,
        rows: Vec<&'static [u8]>,
        /// Each row's length in code points, read from its object without a scan.
        chars: Vec<usize>,
    },
    Column {
        data: PyReadonlyArray1<'py, u8>,
        offsets: PyReadonlyArray1<'py, i64>,
    },
}

impl Held<'_> {
    pub fn len(&self) -> usize {
        match self {
            Held::Strs { rows, .. } => rows.len(),
            Held::Column { offsets, .. } => offsets.as_array().len().saturating_sub(1),
        }
    }

    /// Borrow the rows; for the column form, check the offsets and that each row is UTF-8.
    pub fn texts(&self, side: &str) -> PyResult<Texts<'_>> {
        match self {
            // The rows are shortened to `self`'s life: no copy of the list (a second pass over
            // every row under the GIL) is made.
            Held::Strs { rows, chars, .. } => Ok(Texts {
                rows: Cow::Borrowed(rows.as_slice()),
                chars: chars.as_slice(),
            }),
            Held::Column { data, offsets } => column_rows(data, offsets, side),
        }
    }
}

/// The bytes of one Python `str`, lone surrogates included: borrowed from the object when it
/// is valid UTF-8 (nearly always), else its `surrogatepass` encoding.
pub fn str_bytes<'a>(obj: &'a Bound<'_, PyAny>, what: &str) -> PyResult<Cow<'a, [u8]>> {
    let s = obj
        .cast::<PyString>()
        .map_err(|_| EvalError::Type(format!("{what} must be str, got {}", type_name(obj))))?;
    match s.to_str() {
        Ok(text) => Ok(Cow::Borrowed(text.as_bytes())),
        Err(_) => Ok(Cow::Owned(surrogate_bytes(s)?.as_bytes().to_vec())),
    }
}

fn surrogate_bytes<'py>(s: &Bound<'py, PyString>) -> PyResult<Bound<'py, PyBytes>> {
    Ok(s.call_method1("encode", ("utf-8", "surrogatepass"))?
        .cast_into::<PyBytes>()?)
}

/// The name of `obj`'s type, for error messages.
pub fn type_name(obj: &Bound<'_, PyAny>) -> String {
    obj.get_type()
        .name()
        .map(|n| n.to_string())
        .unwrap_or_else(|_| "an unknown type".into())
}

/// A tuple of the batch's items: the object itself when it is a tuple, else a snapshot.
fn snapshot<'py>(obj: &Bound<'py, PyAny>, side: &str) -> PyResult<Bound<'py, PyTuple>> {
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        return Ok(tuple.clone());
    }
    if let Ok(list) = obj.cast::<PyList>() {
        return Ok(list.to_tuple());
    }
    let iter = obj.try_iter().map_err(|_| {
        EvalError::Type(format!(
            "{side} must be a sequence of str, got {}",
            type_name(obj)
        ))
    })?;
    let items = iter.collect::<PyResult<Vec<_>>>()?;
    PyTuple::new(obj.py(), items)
}

/// Hold a batch of texts: a sequence of `str`, or the column form `(data, offsets)` of a
/// `TextColumn` (a uint8 buffer and int64 offsets).
pub fn hold<'py>(obj: &Bound<'py, PyAny>, side: &str) -> PyResult<Held<'py>> {
    if obj.is_instance_of::<PyString>() {
        return Err(EvalError::Type(format!(
            "{side} must be a sequence of str, got a single str (wrap it in a list)"
        ))
        .into());
    }
    if let Ok(tuple) = obj.cast::<PyTuple>() {
        if tuple.len() == 2 {
            if let (Ok(data), Ok(offsets)) = (
                tuple.get_item(0)?.extract::<PyReadonlyArray1<'py, u8>>(),
                tuple.get_item(1)?.extract::<PyReadonlyArray1<'py, i64>>(),
            ) {
                return Ok(Held::Column { data, offsets });
            }
        }
    }
    let items = snapshot(obj, side)?;
    let mut rows = Vec::with_capacity(items.len());
    let mut chars = Vec::with_capacity(items.len());
    let mut encoded = Vec::new();
    for (i, x) in items.iter_borrowed().enumerate() {
        let s = x.cast::<PyString>().map_err(|_| {
            EvalError::Type(format!(
                "row {i} of {side}: expected str, got {}",
                type_name(&x)
            ))
        })?;
        let bytes: &[u8] = match s.to_str() {
            Ok(text) => text.as_bytes(),
            Err(_) => {
                encoded.push(surrogate_bytes(&s.to_owned())?);
                encoded[encoded.len() - 1].as_bytes()
            }
        };
        chars.push(s.code_point_len()?);
        // SAFETY: `bytes` is the UTF-8 buffer of a str (or the buffer of a bytes object)
        // owned by `items` or `encoded`, both kept in the `Held` returned, and neither kind of
        // buffer moves or changes during an object's life. The `'static` slice never leaves
        // the `Held`: `texts` lends it for no longer than `&self`.
        rows.push(unsafe {
            std::slice::from_raw_parts::<'static, u8>(bytes.as_ptr(), bytes.len())
        });
    }
    Ok(Held::Strs {
        _snapshot: items,
        _encoded: encoded,
        rows,
        chars,
    })
}

fn column_rows<'a>(
    data: &'a PyReadonlyArray1<'_, u8>,
    offsets: &'a PyReadonlyArray1<'_, i64>,
    side: &str,
) -> PyResult<Texts<'a>> {
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
    let mut rows = Vec::with_capacity(offsets.len() - 1);
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
        rows.push(row);
    }
    Ok(Texts {
        rows: Cow::Owned(rows),
        chars: &[],
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

/// A 2-D float array argument, borrowed read-only.
pub enum Matrix<'py> {
    F32(PyReadonlyArray2<'py, f32>),
    F64(PyReadonlyArray2<'py, f64>),
}

/// Two matrices of one dtype, as C-contiguous slices.
pub enum MatrixPair<'a> {
    F32(&'a [f32], &'a [f32]),
    F64(&'a [f64], &'a [f64]),
}

impl<'py> Matrix<'py> {
    /// Borrow `obj`, a float32 or float64 array of two dimensions.
    pub fn hold(obj: &Bound<'py, PyAny>, side: &str) -> PyResult<Matrix<'py>> {
        if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f32>>() {
            return Ok(Matrix::F32(a));
        }
        if let Ok(a) = obj.extract::<PyReadonlyArray2<'py, f64>>() {
            return Ok(Matrix::F64(a));
        }
        Err(EvalError::Type(format!(
            "{side} must be a 2-D float32 or float64 numpy array"
        ))
        .into())
    }

    /// (rows, columns).
    pub fn shape(&self) -> (usize, usize) {
        let s = match self {
            Matrix::F32(a) => a.shape(),
            Matrix::F64(a) => a.shape(),
        };
        (s[0], s[1])
    }

    /// Both matrices' data, which must share a dtype and be C-contiguous.
    pub fn pair<'a>(
        &'a self,
        other: &'a Matrix<'py>,
        names: (&str, &str),
    ) -> PyResult<MatrixPair<'a>> {
        match (self, other) {
            (Matrix::F32(x), Matrix::F32(y)) => Ok(MatrixPair::F32(
                contiguous(x, names.0)?,
                contiguous(y, names.1)?,
            )),
            (Matrix::F64(x), Matrix::F64(y)) => Ok(MatrixPair::F64(
                contiguous(x, names.0)?,
                contiguous(y, names.1)?,
            )),
            _ => Err(
                EvalError::Type(format!("{} and {} must share a dtype", names.0, names.1)).into(),
            ),
        }
    }
}

fn contiguous<'a, T: numpy::Element>(
    a: &'a PyReadonlyArray2<'_, T>,
    side: &str,
) -> PyResult<&'a [T]> {
    a.as_slice()
        .map_err(|_| EvalError::input(format!("{side} must be C-contiguous")).into())
}
