//! Pure metric kernels: no pyo3 here. Text arrives as generalized UTF-8 bytes (UTF-8 that may
//! also hold lone surrogates, as Python's `surrogatepass` writes them) so that every Python
//! string, including ones no Rust `str` can hold, is scored.

pub mod bertscore;
pub mod bleu;
pub mod bleu_tokenize;
pub mod chrf;
pub mod cosine;
pub mod cosine_tiles;
mod dense_ids;
pub mod edit_weighted;
pub mod gleu;
pub mod halt;
pub mod inspect_match;
mod intl_tables;
pub mod json;
pub mod key_table;
pub mod lcs;
pub mod levenshtein;
mod levenshtein_band;
mod levenshtein_blocks;
pub mod levenshtein_extract;
pub mod levenshtein_lanes;
pub mod levenshtein_many;
mod levenshtein_mbleven;
mod levenshtein_short;
mod levenshtein_widen;
pub mod meteor;
mod myers;
pub mod ngrams;
pub mod opcodes;
pub mod pattern;
pub mod polled_text;
pub mod porter;
pub mod retrieval;
pub mod rouge_l;
pub mod rouge_lsum;
pub mod rouge_n;
pub mod rouge_pieces;
pub mod rouge_tokens;
#[cfg(test)]
mod test_text;
pub mod text;
pub mod text_normalize;
pub mod token_f1;
pub(crate) mod tokens;
mod unicode_tables;
pub mod wer;

pub use intl_tables::REGEX_VERSION;
pub use unicode_tables::UNICODE_VERSION;
