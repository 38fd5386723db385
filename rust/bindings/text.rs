//! Token F1 and the ROUGE family: one [`metric_pair!`] each.

use pyo3::prelude::*;

use super::metric_pair;
use crate::metrics::rouge_l;
use crate::metrics::rouge_tokens::{Measure, Stemmer, Tokenizer};
use crate::metrics::token_f1::{self, Normalizer};
use crate::metrics::{rouge_lsum, rouge_n};
use crate::options::NgramOrder;

metric_pair! {
    shape: text,
    scalar: py_token_f1 = "token_f1" -> f64,
        "(expected, actual, normalizer='squad', max_chars=None)";
    batch: token_f1_batch -> f64,
        "(expected, actual, normalizer='squad', workers=-1, max_chars=None)";
    options: (normalizer: Normalizer = Normalizer::Squad);
    kernel: |s: token_f1::Scratch, e, a, stop| Ok(token_f1::token_f1(e, a, normalizer, s, stop)?)
}

metric_pair! {
    shape: text,
    scalar: py_rouge_l = "rouge_l" -> f64,
        "(expected, actual, tokenizer='rouge', measure='fmeasure', stemmer=None, max_chars=None)";
    batch: rouge_l_batch -> f64,
        "(expected, actual, tokenizer='rouge', measure='fmeasure', stemmer=None, workers=-1, max_chars=None)";
    options: (
        tokenizer: Tokenizer = Tokenizer::Rouge,
        measure: Measure = Measure::F,
        stemmer: Stemmer = Stemmer::None,
    );
    kernel: |s: rouge_l::Scratch, e, a, stop| {
        Ok(rouge_l::rouge_l_stemmed(e, a, tokenizer, stemmer, s, stop)?.get(measure))
    }
}

metric_pair! {
    shape: text,
    scalar: py_rouge_n = "rouge_n" -> f64,
        "(expected, actual, n=1, tokenizer='rouge', stemmer=None, measure='fmeasure', max_chars=None)";
    batch: rouge_n_batch -> f64,
        "(expected, actual, n=1, tokenizer='rouge', stemmer=None, measure='fmeasure', workers=-1, max_chars=None)";
    options: (
        n: NgramOrder = NgramOrder(1),
        tokenizer: Tokenizer = Tokenizer::Rouge,
        stemmer: Stemmer = Stemmer::None,
        measure: Measure = Measure::F,
    );
    prepare: { let order = rouge_n::order(n.0); }
    kernel: |s: rouge_n::Scratch, e, a, stop| {
        Ok(rouge_n::rouge_n(e, a, order, tokenizer, stemmer, s, stop)?.get(measure))
    }
}

metric_pair! {
    shape: text,
    scalar: py_rouge_lsum = "rouge_lsum" -> f64,
        "(expected, actual, tokenizer='rouge', stemmer=None, measure='fmeasure', max_chars=None)";
    batch: rouge_lsum_batch -> f64,
        "(expected, actual, tokenizer='rouge', stemmer=None, measure='fmeasure', workers=-1, max_chars=None)";
    options: (
        tokenizer: Tokenizer = Tokenizer::Rouge,
        stemmer: Stemmer = Stemmer::None,
        measure: Measure = Measure::F,
    );
    kernel: |s: rouge_lsum::Scratch, e, a, stop| {
        Ok(rouge_lsum::rouge_lsum(e, a, tokenizer, stemmer, s, stop)?.get(measure))
    }
}

/// Add this family's functions to the module.
pub fn add(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(py_token_f1, m)?)?;
    m.add_function(wrap_pyfunction!(token_f1_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_rouge_l, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_l_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_rouge_n, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_n_batch, m)?)?;
    m.add_function(wrap_pyfunction!(py_rouge_lsum, m)?)?;
    m.add_function(wrap_pyfunction!(rouge_lsum_batch, m)?)?;
    Ok(())
}
