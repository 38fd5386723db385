//! JSON match (scalar and batch) and canonical JSON.

use pyo3::prelude::*;

use super::metric_pair;
use crate::batch::{run_watched, Workers};
use crate::errors::EvalError;
use crate::inputs;
use crate::metrics::halt::Context;
use crate::metrics::json::{self, Numbers};

/// Parse the expected document into `doc` (reusing its buffers), or say what is wrong.
fn parse_expected<'a>(
    doc: &mut json::Document<'a>,
    text: &'a [u8],
    n: Numbers,
    stop: &Context,
) -> Result<(), EvalError> {
    doc.reparse(text, n, stop)?.map_err(|e| {
        EvalError::input(format!(
            "expected is not valid JSON ({e}); fix the expected document"
        ))
    })
}

metric_pair! {
    shape: text,
    scalar: json_match = "json_match" -> bool, "(expected, actual, numbers='value', max_chars=None)";
    batch: json_match_batch -> bool,
        "(expected, actual, numbers='value', workers=-1, max_chars=None)";
    options: (numbers: Numbers = Numbers::Value);
    kernel: |doc: json::Document<'_>, e, a, stop| {
        // The same bytes are the same document once they are valid, which reading them
        // without a tree tells; an invalid expected document is parsed below for its error.
        if e == a && json::is_valid(e, stop)? {
            return Ok(true);
        }
        parse_expected(doc, e, numbers, stop)?;
        Ok(doc.matches(a, stop)?)
    }
}

#[pyfunction]
#[pyo3(signature = (text, numbers = Numbers::Value), text_signature = "(text, numbers='value')")]
fn canonical_json(py: Python<'_>, text: &Bound<'_, PyAny>, numbers: Numbers) -> PyResult<String> {
    let t = inputs::str_bytes(text, "text")?;
    let t: &[u8] = &t;
    run_watched(py, Workers::ALL, t.len(), |stop, _| {
        let doc = json::parse(t, numbers, stop)?
            .map_err(|e| EvalError::input(format!("text is not valid JSON ({e})")))?;
        Ok(doc.canonical(stop)?)
    })
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(json_match, m)?)?;
    m.add_function(wrap_pyfunction!(json_match_batch, m)?)?;
    m.add_function(wrap_pyfunction!(canonical_json, m)?)?;
    Ok(())
}
