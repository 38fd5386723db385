//! `promptfoo_scan`: the fast path of the promptfoo results import
//! (`evalmark.interop._promptfoo_scan`). The file is scanned once without the GIL
//! (`interop/promptfoo_scan.rs`: the columns a re-score reads, nothing built for the rest),
//! then the columns become Python lists. None when the file is not a common one: the caller
//! reads it the general way.

use std::borrow::Cow;

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use crate::interop::promptfoo_scan::scan;

fn texts<'py, T: AsRef<str>>(py: Python<'py>, column: &[T]) -> PyResult<Bound<'py, PyList>> {
    PyList::new(
        py,
        column.iter().map(|text| PyString::new(py, text.as_ref())),
    )
}

/// `promptfoo_scan(data, carried)`: the common promptfoo results file whose bytes are `data`
/// and whose assertions are all of the types `carried`, as `(kept, provider, names, answers,
/// expected, types)` (the file's own fields present as JSON text, the provider's JSON text or
/// None, then one item per row, then the assertion types), or None.
#[pyfunction]
pub fn promptfoo_scan<'py>(
    py: Python<'py>,
    data: Bound<'py, PyBytes>,
    carried: Vec<String>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let bytes = data.as_bytes();
    let carried: Vec<&str> = carried.iter().map(String::as_str).collect();
    let Some(found) = py.detach(|| scan(bytes, &carried)) else {
        return Ok(None);
    };
    let kept = PyDict::new(py);
    for (name, text) in &found.kept {
        kept.set_item(name, text)?;
    }
    let items: [Bound<'py, PyAny>; 6] = [
        kept.into_any(),
        found.provider.into_pyobject(py)?.into_any(),
        texts(py, &found.names)?.into_any(),
        texts::<Cow<'_, str>>(py, &found.answers)?.into_any(),
        texts::<Cow<'_, str>>(py, &found.expected)?.into_any(),
        texts::<Cow<'_, str>>(py, &found.types)?.into_any(),
    ];
    PyTuple::new(py, items).map(Some)
}

/// Register the function.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(promptfoo_scan, m)?)
}
