//! `inspect_scan` and `inspect_eval_scan`: the fast paths of the inspect_ai `.json` and `.eval`
//! log imports (`evalmark.interop._inspect_scan`). The log is scanned once without the GIL
//! (`interop/inspect_scan.rs`, `interop/eval_scan.rs`: the columns a re-score reads, nothing
//! built for the rest), then the columns become Python lists. None when the log is not a common
//! one: the caller reads it the general way.

use pyo3::prelude::*;
use pyo3::types::{PyBytes, PyDict, PyList, PyString, PyTuple};

use super::texts;
use crate::interop::eval_scan;
use crate::interop::inspect_scan::{scan, Id, Scan};

/// `inspect_scan(data, header)`: the common inspect_ai `.json` log whose bytes are `data`,
/// its own fields named `header`, as `(header, ids, epochs, targets, completions, scores)`
/// (the log's own fields present as JSON text, then one item per sample; `scores` maps each
/// scorer to its column: each sample's recorded `scores[name].value` when a text, else
/// None), or None.
#[pyfunction]
pub fn inspect_scan<'py>(
    py: Python<'py>,
    data: Bound<'py, PyBytes>,
    header: Vec<String>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let bytes = data.as_bytes();
    let names: Vec<&str> = header.iter().map(String::as_str).collect();
    let Some(found) = py.detach(|| scan(bytes, &names)) else {
        return Ok(None);
    };
    columns(py, &found).map(Some)
}

/// `inspect_eval_scan(data)`: the common inspect_ai `.eval` log (a zip) whose bytes are
/// `data`, as `inspect_scan` gives a `.json` log's (the header: every field of `header.json`,
/// and `reductions.json` as `reductions` when it has none), or None.
#[pyfunction]
pub fn inspect_eval_scan<'py>(
    py: Python<'py>,
    data: Bound<'py, PyBytes>,
) -> PyResult<Option<Bound<'py, PyTuple>>> {
    let bytes = data.as_bytes();
    let Some(found) = py.detach(|| eval_scan::scan(bytes)) else {
        return Ok(None);
    };
    columns(py, &found).map(Some)
}

/// The scan's columns as the tuple both functions give.
fn columns<'py>(py: Python<'py>, found: &Scan<'_>) -> PyResult<Bound<'py, PyTuple>> {
    let header = PyDict::new(py);
    for (name, text) in &found.header {
        header.set_item(PyString::new(py, name), text)?;
    }
    let ids = found
        .ids
        .iter()
        .map(|id| {
            Ok(match id {
                Id::Int(n) => n.into_pyobject(py)?.into_any(),
                Id::Text(s) => PyString::new(py, s).into_any(),
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let epochs = found
        .epochs
        .iter()
        .map(|epoch| {
            Ok(match epoch {
                Some(n) => n.into_pyobject(py)?.into_any(),
                None => py.None().into_bound(py),
            })
        })
        .collect::<PyResult<Vec<_>>>()?;
    let scores = PyDict::new(py);
    for (name, column) in &found.scores {
        let values = column
            .iter()
            .map(|value| value.as_deref().map(|text| PyString::new(py, text)));
        scores.set_item(PyString::new(py, name), PyList::new(py, values)?)?;
    }
    let items: [Bound<'py, PyAny>; 6] = [
        header.into_any(),
        PyList::new(py, ids)?.into_any(),
        PyList::new(py, epochs)?.into_any(),
        texts(py, &found.targets)?.into_any(),
        texts(py, &found.completions)?.into_any(),
        scores.into_any(),
    ];
    PyTuple::new(py, items)
}

/// Register the function.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(inspect_scan, m)?)?;
    m.add_function(wrap_pyfunction!(inspect_eval_scan, m)?)
}
