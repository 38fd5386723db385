//! The `evalmark._core` extension: the `#[pymodule]` and one thin wrapper per function. The
//! kernels live in `metrics/` and know nothing of Python.
//!
//! The functions are in `bindings/`, by family (`text`, `json`, `vectors`, `reference`). How a
//! text metric is bound (copy one of `bindings/text.rs`'s):
//!
//! * options are kernel enums that convert themselves from Python (`options.rs`: one
//!   `str_option!` line per enum), so a wrapper names them in its signature;
//! * one `metric_pair!` writes the scalar form (`pairs::text_pair`) and the batch form
//!   (`pairs::text_batch`) from the same kernel closure
//!   `|scratch, expected, actual, stop| -> EvalResult<T>` (`scratch` is the kernel's reusable
//!   buffers; poll `stop` in loops that can run for long, see `metrics/halt.rs`);
//! * signatures are `(expected, actual, <options>, workers=-1, max_chars=None)`, given again
//!   as text signatures because the defaults are Rust values; then `python/evalmark/_core.pyi`
//!   and the public function in `python/evalmark/metrics/`, and the family's `add`.
//!
//! The call runs with the GIL released on worker threads while the calling thread watches for
//! Ctrl-C (`batch::run_watched`), so every call can be interrupted.
//!
//! Everything that can go wrong is an `EvalError` (`errors.rs`), mapped once to Python.

mod batch;
mod bindings;
mod errors;
mod inputs;
mod interface;
mod interop;
mod json_read;
pub mod metrics;
mod options;
mod pairs;
mod refs;
mod traces;
mod vectors;

use pyo3::prelude::*;

use batch::MAX_WORKERS;
use errors::{MetricInputError, TextTooLongError};

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("STUB_CRC32", interface::STUB_CRC32)?;
    m.add("UNICODE_VERSION", metrics::UNICODE_VERSION)?;
    let (major, minor, update) = char::UNICODE_VERSION;
    m.add(
        "ALPHANUMERIC_UNICODE_VERSION",
        format!("{major}.{minor}.{update}"),
    )?;
    m.add("REGEX_VERSION", metrics::REGEX_VERSION)?;
    m.add("MAX_WORKERS", MAX_WORKERS)?;
    m.add("MetricInputError", m.py().get_type::<MetricInputError>())?;
    m.add("TextTooLongError", m.py().get_type::<TextTooLongError>())?;
    m.add_function(wrap_pyfunction!(bindings::work_done, m)?)?;
    m.add_function(wrap_pyfunction!(bindings::resolve_workers, m)?)?;
    bindings::text::add(m)?;
    bindings::vectors::add(m)?;
    bindings::json::add(m)?;
    bindings::reference::add(m)?;
    bindings::edit::add(m)?;
    bindings::items::add(m)?;
    bindings::retrieval::add(m)?;
    bindings::nlg::add(m)?;
    bindings::normalize::add(m)?;
    bindings::inspect_match::add(m)?;
    bindings::render::add(m)?;
    bindings::traces::add(m)?;
    bindings::jsonl_columns::add(m)?;
    bindings::csv_columns::add(m)?;
    bindings::inspect_scan::add(m)?;
    bindings::promptfoo_scan::add(m)?;
    Ok(())
}
