//! Token F1: the SQuAD v2.0 `compute_f1` over normalized tokens, or over whitespace tokens.

use super::text::{decode_into, for_each_py_token, is_py_word, py_lower_into};

/// How answers are turned into tokens before F1 is taken.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Normalizer {
    /// SQuAD: lowercase, drop ASCII punctuation, drop the words a/an/the, split on whitespace.
    Squad,
    /// Split on whitespace only.
    None,
}

/// Reusable buffers so a batch allocates once per thread, not once per pair.
#[derive(Default)]
pub struct Scratch {
    raw: Vec<u32>,
    lowered: Vec<u32>,
    norm_e: Vec<u32>,
    norm_a: Vec<u32>,
}

const ASCII_PUNCT: &[u8] = b"!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~";

fn is_article(word: &[u32]) -> bool {
    matches!(
        word,
        [0x61] | [0x61, 0x6E] | [0x74, 0x68, 0x65] // "a" | "an" | "the"
    )
}

/// Replace every whole word "a", "an" or "the" by a space, as SQuAD's `\b(a|an|the)\b` does.
fn replace_articles(text: &[u32], out: &mut Vec<u32>) {
    out.clear();
    let n = text.len();
    let mut i = 0;
    while i < n {
        if !is_py_word(text[i]) {
            out.push(text[i]);
            i += 1;
            continue;
        }
        let start = i;
        while i < n && is_py_word(text[i]) {
            i += 1;
        }
        let word = &text[start..i];
        if is_article(word) {
            out.push(0x20);
        } else {
            out.extend_from_slice(word);
        }
    }
}

fn prepare(text: &[u8], normalizer: Normalizer, s: &mut Scratch, expected_side: bool) {
    s.raw.clear();
    decode_into(text, &mut s.raw);
    let out = if expected_side {
        &mut s.norm_e
    } else {
        &mut s.norm_a
    };
    match normalizer {
        Normalizer::None => {
            out.clear();
            out.extend_from_slice(&s.raw);
        }
        Normalizer::Squad => {
            s.lowered.clear();
            py_lower_into(&s.raw, &mut s.lowered);
            s.lowered
                .retain(|&c| !(c < 0x80 && ASCII_PUNCT.contains(&(c as u8))));
            replace_articles(&s.lowered, out);
        }
    }
}

fn sorted_tokens(cps: &[u32]) -> Vec<&[u32]> {
    let mut toks = Vec::new();
    for_each_py_token(cps, |t| toks.push(t));
    toks.sort_unstable();
    toks
}

/// Size of the multiset intersection of two sorted token lists.
fn common_count(a: &[&[u32]], b: &[&[u32]]) -> usize {
    let (mut i, mut j, mut same) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                same += 1;
                i += 1;
                j += 1;
            }
        }
    }
    same
}

/// Token F1 of `actual` against `expected`, computed exactly as SQuAD's `compute_f1`.
pub fn token_f1(expected: &[u8], actual: &[u8], normalizer: Normalizer, s: &mut Scratch) -> f64 {
    prepare(expected, normalizer, s, true);
    prepare(actual, normalizer, s, false);
    let gold = sorted_tokens(&s.norm_e);
    let pred = sorted_tokens(&s.norm_a);
    if gold.is_empty() || pred.is_empty() {
        return if gold == pred { 1.0 } else { 0.0 };
    }
    let same = common_count(&gold, &pred);
    if same == 0 {
        return 0.0;
    }
    let precision = 1.0 * same as f64 / pred.len() as f64;
    let recall = 1.0 * same as f64 / gold.len() as f64;
    (2.0 * precision * recall) / (precision + recall)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f1(e: &str, a: &str) -> f64 {
        token_f1(
            e.as_bytes(),
            a.as_bytes(),
            Normalizer::Squad,
            &mut Scratch::default(),
        )
    }

    #[test]
    fn squad_examples() {
        assert_eq!(f1("The cat sat.", "a cat sat"), 1.0);
        assert_eq!(f1("", ""), 1.0);
        assert_eq!(f1("the", "an"), 1.0);
        assert_eq!(f1("cat", ""), 0.0);
        assert_eq!(f1("cat dog", "dog"), 2.0 * 1.0 * 0.5 / 1.5);
        assert_eq!(f1("cat cat", "cat"), 2.0 * 1.0 * 0.5 / 1.5);
    }

    #[test]
    fn articles_are_whole_words_only() {
        assert_eq!(f1("another theme", "another theme"), 1.0);
        assert_eq!(f1("a-b", "ab"), 1.0);
        // the article inside a run of non-word characters becomes a separator
        assert_eq!(f1("€the€", "€ €"), 1.0);
    }

    #[test]
    fn none_normalizer_keeps_case() {
        let s = &mut Scratch::default();
        assert_eq!(token_f1(b"The cat", b"the cat", Normalizer::None, s), 0.5);
    }
}
