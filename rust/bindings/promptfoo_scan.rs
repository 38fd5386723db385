//! `promptfoo_scan`: the fast path of the promptfoo results import
//! (`evalmark.interop._promptfoo_scan`). The file is scanned once without the GIL
//! (`interop/promptfoo_scan.rs`: the columns a re-score reads, nothing built for the rest),
//! then the columns become Python lists. None when the file is not a common one: the caller
//! reads it the general way.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyTuple};

use super::texts;
use crate::interop::promptfoo_scan::{scan, Shape};

/// The keys of each object of a common file and the assertion types carried, as the caller
/// passes them (see [`Shape`]).
type Keys = (
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<String>,
    Vec<String>,
);

fn strs(keys: &[String]) -> Vec<&str> {
    keys.iter().map(String::as_str).collect()
}

/// `promptfoo_scan(data, shape)`: the common promptfoo results file whose bytes are `data`,
/// of the shape `shape` (the keys of the document, the body, a row, a test case and an
/// assertion, and the assertion types carried), as `(kept, names, expected, types,
/// providers, samples, builds, answers)` (see the stub), or None.
#[pyfunction]
pub fn promptfoo_scan<'py>(
    py: Python<'py>,
    data: Bound<'py, PyBytes>,
    shape: Keys,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let bytes = data.as_bytes();
    let lists = [&shape.0, &shape.1, &shape.2, &shape.3, &shape.4, &shape.5].map(|k| strs(k));
    let [document, body, row, case, assertion, carried] = &lists;
    let keys = Shape {
        document,
        body,
        row,
        case,
        assertion,
        carried,
    };
    let Some(found) = py.detach(|| scan(bytes, &keys)) else {
        return Ok(None);
    };
    let kept = PyDict::new(py);
    for (name, text) in &found.kept {
        kept.set_item(name.as_ref(), text)?;
    }
    let types = (0..carried.len()).filter(|&at| found.types >> at & 1 == 1);
    let types: Vec<&str> = types.map(|at| carried[at]).collect();
    let rows = found.answers.len();
    let one_each = found.names.len() == rows; // row i answers sample i
    let one_provider = found.providers.len() == 1;
    let items: [Bound<'py, PyAny>; 8] = [
        kept.into_any(),
        texts(py, &found.names)?.into_any(),
        texts(py, &found.expected)?.into_any(),
        texts(py, &types)?.into_any(),
        found.providers.into_pyobject(py)?.into_any(),
        indexes(py, &found.samples, one_each)?,
        indexes(py, &found.builds, one_provider)?,
        texts(py, &found.answers)?.into_any(),
    ];
    PyTuple::new(py, items).map(Some)
}

/// A column of indexes, or None when it goes without saying (`plain`).
fn indexes<'py>(py: Python<'py>, column: &[u32], plain: bool) -> PyResult<Bound<'py, PyAny>> {
    if plain {
        return Ok(py.None().into_bound(py));
    }
    Ok(PyList::new(py, column)?.into_any())
}

/// Register the function.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(promptfoo_scan, m)?)
}
