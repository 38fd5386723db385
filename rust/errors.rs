//! The one error type of the binding and its single mapping to Python exceptions.

use pyo3::exceptions::PyTypeError;
use pyo3::{import_exception, PyErr};

// Defined in Python (`evalmark.errors`, under the package's one error root) and raised from here.
import_exception!(evalmark.errors, MetricInputError);

/// Everything that can go wrong at the boundary.
#[derive(Debug)]
pub enum EvalError {
    /// Two batches that must pair up have different lengths.
    Lengths { expected: usize, actual: usize },
    /// A value of the wrong Python type.
    Type(String),
    /// A bad value or option (raised as `MetricInputError`, a `ValueError`).
    Input(String),
}

impl EvalError {
    pub fn input(msg: impl Into<String>) -> Self {
        EvalError::Input(msg.into())
    }
}

impl From<EvalError> for PyErr {
    fn from(e: EvalError) -> PyErr {
        match e {
            EvalError::Lengths { expected, actual } => MetricInputError::new_err(format!(
                "expected batches of equal length, got {expected} and {actual}"
            )),
            EvalError::Type(msg) => PyTypeError::new_err(msg),
            EvalError::Input(msg) => MetricInputError::new_err(msg),
        }
    }
}

pub type EvalResult<T> = Result<T, EvalError>;
