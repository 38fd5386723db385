//! The one error type of the binding and its single mapping to Python exceptions.

use pyo3::exceptions::{PyKeyboardInterrupt, PyMemoryError, PyRuntimeError, PyTypeError};
use pyo3::import_exception;
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::metrics::halt::{Halt, OutOfMemory};

// Defined in Python (`evalmark.errors`, under the package's one error root) and raised from here.
import_exception!(evalmark.errors, MetricInputError);
import_exception!(evalmark.errors, TextTooLongError);

/// Everything that can go wrong at the boundary.
#[derive(Debug)]
pub enum EvalError {
    /// Two batches that must pair up have different lengths.
    Lengths { expected: usize, actual: usize },
    /// A value of the wrong Python type.
    Type(String),
    /// A bad value or option (raised as `MetricInputError`, a `ValueError`).
    Input(String),
    /// Texts over the `max_chars` cap: the message, and the offending rows of a batch.
    TooLong { message: String, rows: Vec<usize> },
    /// Memory sized by the input could not be had (raised as `MemoryError`).
    Memory(String),
    /// The kernel was stopped (the caller pressed Ctrl-C).
    Stopped,
    /// A bug: a kernel panicked. Raised as `RuntimeError`, an `Exception`, never a panic.
    Internal(String),
}

impl EvalError {
    pub fn input(msg: impl Into<String>) -> Self {
        EvalError::Input(msg.into())
    }

    /// The same error about row `row` of a batch: messages about one pair ("expected is not
    /// valid JSON", "cannot allocate ...") gain a "row i of " or "row i: " prefix.
    pub fn at_row(self, row: usize) -> Self {
        match self {
            EvalError::Input(msg) => EvalError::Input(format!("row {row} of {msg}")),
            EvalError::Memory(msg) => EvalError::Memory(format!("row {row}: {msg}")),
            EvalError::Internal(msg) => EvalError::Internal(format!("row {row}: {msg}")),
            other => other,
        }
    }
}

impl From<OutOfMemory> for EvalError {
    fn from(e: OutOfMemory) -> Self {
        EvalError::Memory(e.to_string())
    }
}

impl From<Halt> for EvalError {
    fn from(h: Halt) -> Self {
        match h {
            Halt::Stopped => EvalError::Stopped,
            Halt::OutOfMemory(e) => e.into(),
        }
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
            EvalError::TooLong { message, rows } => Python::attach(|py| {
                let err = TextTooLongError::new_err(message);
                let set = PyTuple::new(py, rows).and_then(|t| err.value(py).setattr("rows", t));
                set.err().unwrap_or(err)
            }),
            EvalError::Memory(msg) => PyMemoryError::new_err(msg),
            EvalError::Stopped => PyKeyboardInterrupt::new_err("the metric call was interrupted"),
            EvalError::Internal(msg) => PyRuntimeError::new_err(format!(
                "internal error in an evalmark kernel ({msg}); please report it with the input"
            )),
        }
    }
}

pub type EvalResult<T> = Result<T, EvalError>;
