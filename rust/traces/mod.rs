//! The trace reader's fast path for OTLP JSON, over the strict reader `crate::json_read`:
//! `otlp` reads a request into spans, `assemble` a trace into the values of a test case. Each
//! gives up (`None`) on anything it does not read exactly as the Python path does.

pub mod assemble;
pub mod otlp;
