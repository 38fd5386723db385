//! SQuAD exact match: the v2.0 script's `compute_exact`, whether the two answers are equal
//! after `normalize_answer` (lowercase, drop ASCII punctuation, drop the words a/an/the,
//! collapse whitespace). With [`Normalizer::None`], whether their whitespace tokens are equal.
//!
//! Both answers are normalized to their token sequences, one buffer each with the tokens joined
//! by one space, as `normalize_answer` joins them; the two buffers are compared. ASCII answers
//! (nearly all) are normalized as bytes in two passes; others as code points.

use super::general::{is_article, is_punct};
use super::Normalizer;
use crate::metrics::halt::{Context, Run};
use crate::metrics::text::{decode_into, for_each_py_token, is_py_word, py_lower_into};

/// Reusable buffers: decoded text, its lowered form and the two normalized answers (as code
/// points, and as bytes for ASCII answers).
#[derive(Default)]
pub struct ExactScratch {
    decoded: Vec<u32>,
    lowered: Vec<u32>,
    words: Vec<u32>,
    left: Vec<u32>,
    right: Vec<u32>,
    ascii_lowered: Vec<u8>,
    ascii_left: Vec<u8>,
    ascii_right: Vec<u8>,
}

/// Python's `str.split()` whitespace, for ASCII.
fn is_ascii_py_space(c: u8) -> bool {
    matches!(c, 0x09..=0x0D | 0x1C..=0x20)
}

/// [`normalize`] of an ASCII answer with the SQuAD normalizer, as bytes: lowered with the
/// punctuation dropped (`lowered`), then each article replaced by a space and the tokens joined
/// by single spaces into `out`. After the punctuation is gone, a word is a run of ASCII letters
/// and digits (`_` is punctuation).
fn normalize_ascii(text: &[u8], lowered: &mut Vec<u8>, out: &mut Vec<u8>) {
    lowered.clear();
    lowered.extend(
        text.iter()
            .map(u8::to_ascii_lowercase)
            .filter(|&c| !is_punct(u32::from(c))),
    );
    out.clear();
    let mut i = 0;
    let mut pending_space = false;
    while i < lowered.len() {
        let c = lowered[i];
        if is_ascii_py_space(c) {
            pending_space = !out.is_empty();
            i += 1;
            continue;
        }
        // a token: non-space bytes, in which each whole word that is an article is a space
        let start = i;
        while i < lowered.len() && !is_ascii_py_space(lowered[i]) {
            i += 1;
        }
        let mut j = start;
        while j < i {
            let k = if lowered[j].is_ascii_alphanumeric() {
                let mut k = j;
                while k < i && lowered[k].is_ascii_alphanumeric() {
                    k += 1;
                }
                if is_article(&lowered[j..k]) {
                    pending_space = !out.is_empty();
                    j = k;
                    continue;
                }
                k
            } else {
                j + 1
            };
            if pending_space {
                out.push(b' ');
                pending_space = false;
            }
            out.extend_from_slice(&lowered[j..k]);
            j = k;
        }
        pending_space = !out.is_empty();
    }
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
    if normalizer == Normalizer::Squad && expected.is_ascii() && actual.is_ascii() {
        normalize_ascii(expected, &mut s.ascii_lowered, &mut s.ascii_left);
        normalize_ascii(actual, &mut s.ascii_lowered, &mut s.ascii_right);
        return Ok(s.ascii_left == s.ascii_right);
    }
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

    #[test]
    fn the_ascii_path_normalizes_as_the_code_point_path() {
        // articles, case, punctuation (with `_`), every kind of ASCII whitespace, control
        // characters that are neither words nor space, digits
        let alphabet = b"aAnNtThHeExy1 _.,!-'\t\n\x0b\x0c\r\x1c\x1f\x00\x07\x7f";
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let mut s = ExactScratch::default();
        let (mut bytes, mut points) = (Vec::new(), Vec::new());
        for _ in 0..50_000 {
            let len = (next() % 12) as usize;
            let text: Vec<u8> = (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect();
            let mut lowered = Vec::new();
            normalize_ascii(&text, &mut lowered, &mut bytes);
            normalize(&text, Normalizer::Squad, &mut s, &mut points);
            let widened: Vec<u32> = bytes.iter().map(|&b| u32::from(b)).collect();
            assert_eq!(widened, points, "{:?}", String::from_utf8_lossy(&text));
        }
    }
}
