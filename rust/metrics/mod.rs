//! Pure metric kernels: no pyo3 here. Text arrives as generalized UTF-8 bytes (UTF-8 that may
//! also hold lone surrogates, as Python's `surrogatepass` writes them) so that every Python
//! string, including ones no Rust `str` can hold, is scored.

pub mod cosine;
pub mod halt;
pub mod json;
pub mod lcs;
pub mod levenshtein;
pub mod rouge_l;
pub mod text;
pub mod token_f1;
mod unicode_tables;

pub use unicode_tables::UNICODE_VERSION;
