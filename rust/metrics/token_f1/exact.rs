//! SQuAD exact match: the v2.0 script's `compute_exact`, whether the two answers are equal
//! after `normalize_answer` (lowercase, drop ASCII punctuation, drop the words a/an/the,
//! collapse whitespace). With [`Normalizer::None`], whether their whitespace tokens are equal.
//!
//! Both answers are normalized to their token sequences, one code point buffer each with the
//! tokens joined by one space, as `normalize_answer` joins them; the two buffers are compared.

use super::general::{is_article, is_punct};
use super::Normalizer;
use crate::metrics::halt::{Context, Run};
use crate::metrics::text::{decode_into, for_each_py_token, is_py_word, py_lower_into};

/// Reusable buffers: decoded text, its lowered form and the two normalized answers.
#[derive(Default)]
pub struct ExactScratch {
    decoded: Vec<u32>,
    lowered: Vec<u32>,
    words: Vec<u32>,
    left: Vec<u32>,
    right: Vec<u32>,
}

/// `out` = the normalized answer of `text`, its tokens joined by single spaces.
fn normalize(text: &[u8], normalizer: Normalizer, s: &mut ExactScratch, out: &mut Vec<u32>) {
    s.decoded.clear();
    decode_into(text, &mut s.decoded);
    let spaced: &[u32] = match normalizer {
        Normalizer::None => &s.decoded,
        Normalizer::Squad => {
            s.lowered.clear();
            py_lower_into(&s.decoded, &mut s.lowered);
            s.lowered.retain(|&c| !is_punct(c));
            // `\b(a|an|the)\b` → " ": a whole run of word characters that is an article.
            s.words.clear();
            let lowered = &s.lowered;
            let mut i = 0;
            while i < lowered.len() {
                if !is_py_word(lowered[i]) {
                    s.words.push(lowered[i]);
                    i += 1;
                    continue;
                }
                let start = i;
                while i < lowered.len() && is_py_word(lowered[i]) {
                    i += 1;
                }
                if is_article(&lowered[start..i]) {
                    s.words.push(0x20);
                } else {
                    s.words.extend_from_slice(&lowered[start..i]);
                }
            }
            &s.words
        }
    };
    out.clear();
    for_each_py_token(spaced, |token| {
        if !out.is_empty() {
            out.push(0x20);
        }
        out.extend_from_slice(token);
    });
}

/// Whether `expected` and `actual` are the same answer after normalization. `stop` is polled
/// once per answer.
pub fn exact_match(
    expected: &[u8],
    actual: &[u8],
    normalizer: Normalizer,
    s: &mut ExactScratch,
    stop: &Context,
) -> Run<bool> {
    if expected == actual {
        return Ok(true);
    }
    stop.check()?;
    let (mut left, mut right) = (std::mem::take(&mut s.left), std::mem::take(&mut s.right));
    normalize(expected, normalizer, s, &mut left);
    stop.check()?;
    normalize(actual, normalizer, s, &mut right);
    let same = left == right;
    (s.left, s.right) = (left, right);
    Ok(same)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn em(e: &str, a: &str) -> bool {
        let mut s = ExactScratch::default();
        exact_match(
            e.as_bytes(),
            a.as_bytes(),
            Normalizer::Squad,
            &mut s,
            &Context::new(),
        )
        .unwrap()
    }

    #[test]
    fn normalizes_as_squad() {
        assert!(em("The Eiffel Tower!", "eiffel   tower"));
        assert!(em("a", ""));
        assert!(em("Anne's", "annes"));
        assert!(!em("Paris, France", "Paris"));
        assert!(!em("theater", "ater"));
        assert!(em("ÉCOLE", "école"));
    }
}
