//! Tokens of the ROUGE family: ROUGE-L's tokenizers, then (optionally) the Porter stemmer on
//! every token longer than three characters, as rouge-score's `tokenize` does with
//! `use_stemmer=True`. Tokens come out as [`TokenKey`]s; stems are cached per thread.

use rustc_hash::FxHashMap;

use super::halt::{Run, Stop};
use super::porter;
use super::rouge_l::{self, RougeScore, Tokenizer};
use super::rouge_pieces::token_keys_polling;
use super::text::TokenKey;

/// Whether tokens are stemmed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stemmer {
    None,
    /// NLTK's `PorterStemmer()` (mode `NLTK_EXTENSIONS`) on tokens of four or more characters.
    Porter,
}

/// rouge-score stems only the tokens longer than three characters.
const SHORTEST_STEMMED: usize = 4;

/// Stems remembered per thread; the cache is emptied when it reaches this size, so memory stays
/// bounded on any vocabulary. A stem does not depend on the cache, only the speed does.
const STEM_CACHE_LIMIT: usize = 1 << 16;

/// Reusable buffers and the stem cache of one thread.
#[derive(Default)]
pub struct TokenScratch {
    pub(crate) rouge: rouge_l::Scratch,
    stems: FxHashMap<TokenKey, TokenKey>,
    word8: Vec<u8>,
    word32: Vec<u32>,
    keys_e: Vec<TokenKey>,
    keys_a: Vec<TokenKey>,
    piece: Vec<TokenKey>,
}

/// The number of code points of the token behind `key` (see [`TokenKey`]'s two packings).
fn key_len(key: &TokenKey) -> usize {
    match key {
        TokenKey::Packed(k) => ((k >> 120) as usize) & 0x7F,
        TokenKey::Long(cps) => cps.len(),
    }
}

/// The token behind `key`: its bytes into `ascii` when it is ASCII (returns true), else its
/// code points into `cps`.
fn decode_key(key: &TokenKey, ascii: &mut Vec<u8>, cps: &mut Vec<u32>) -> bool {
    ascii.clear();
    cps.clear();
    match key {
        TokenKey::Packed(k) => {
            let top = (k >> 120) as u8;
            let n = (top & 0x7F) as usize;
            if top & 0x80 == 0 {
                ascii.extend_from_slice(&k.to_le_bytes()[..n]);
                true
            } else {
                cps.extend((0..n).map(|i| ((k >> (21 * i)) & 0x1F_FFFF) as u32));
                false
            }
        }
        TokenKey::Long(v) => {
            if v.iter().all(|&c| c < 0x80) {
                ascii.extend(v.iter().map(|&c| c as u8));
                true
            } else {
                cps.extend_from_slice(v);
                false
            }
        }
    }
}

impl TokenScratch {
    fn stem_key(&mut self, key: &TokenKey) -> TokenKey {
        if let Some(stem) = self.stems.get(key) {
            return stem.clone();
        }
        let stem = if decode_key(key, &mut self.word8, &mut self.word32) {
            porter::stem(&mut self.word8);
            TokenKey::of_ascii(&self.word8)
        } else {
            porter::stem(&mut self.word32);
            TokenKey::of(&self.word32)
        };
        if self.stems.len() >= STEM_CACHE_LIMIT {
            self.stems.clear();
        }
        self.stems.insert(key.clone(), stem.clone());
        stem
    }
}

/// The tokens of `text`, in order, into `out` (cleared first).
pub fn token_keys(
    text: &[u8],
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    s: &mut TokenScratch,
    out: &mut Vec<TokenKey>,
) {
    out.clear();
    rouge_l::keys_into(text, tokenizer, &mut s.rouge, out);
    if stemmer == Stemmer::Porter {
        for key in out.iter_mut() {
            if key_len(key) >= SHORTEST_STEMMED {
                *key = s.stem_key(key);
            }
        }
    }
}

/// ROUGE-L with an optional stemmer: with `Stemmer::None` exactly [`rouge_l::rouge_l`].
pub fn rouge_l_stemmed(
    expected: &[u8],
    actual: &[u8],
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    s: &mut TokenScratch,
    stop: &Stop,
) -> Run<RougeScore> {
    if stemmer == Stemmer::None {
        return rouge_l::rouge_l(expected, actual, tokenizer, &mut s.rouge, stop);
    }
    let (mut ke, mut ka) = (std::mem::take(&mut s.keys_e), std::mem::take(&mut s.keys_a));
    let mut piece = std::mem::take(&mut s.piece);
    let score = token_keys_polling(expected, tokenizer, stemmer, s, &mut ke, &mut piece, stop)
        .and_then(|()| token_keys_polling(actual, tokenizer, stemmer, s, &mut ka, &mut piece, stop))
        .and_then(|()| rouge_l::score_keys(&ke, &ka, &mut s.rouge, stop));
    s.keys_e = ke;
    s.keys_a = ka;
    s.piece = piece;
    score
}

/// rouge-score's `fmeasure`: 2pr/(p+r), 0 when p + r = 0.
#[inline]
pub fn fmeasure(precision: f64, recall: f64) -> f64 {
    if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str, tokenizer: Tokenizer, stemmer: Stemmer) -> Vec<String> {
        let (mut s, mut out) = (TokenScratch::default(), Vec::new());
        token_keys(text.as_bytes(), tokenizer, stemmer, &mut s, &mut out);
        out.iter()
            .map(|k| {
                let (mut a, mut c) = (Vec::new(), Vec::new());
                if decode_key(k, &mut a, &mut c) {
                    String::from_utf8(a).unwrap()
                } else {
                    c.iter().map(|&x| char::from_u32(x).unwrap()).collect()
                }
            })
            .collect()
    }

    #[test]
    fn keys_decode_to_their_tokens() {
        for w in [
            "",
            "a",
            "abcdefghijklmno",
            "abcdefghijklmnop",
            "é",
            "東京",
            "ab東京",
            "zürich",
        ] {
            let cps: Vec<u32> = w.chars().map(|c| c as u32).collect();
            let key = TokenKey::of(&cps);
            assert_eq!(key_len(&key), cps.len(), "{w}");
            let (mut a, mut c) = (Vec::new(), Vec::new());
            if decode_key(&key, &mut a, &mut c) {
                assert_eq!(a, w.as_bytes(), "{w}");
            } else {
                assert_eq!(c, cps, "{w}");
            }
        }
    }

    #[test]
    fn stems_only_tokens_longer_than_three() {
        assert_eq!(
            tokens(
                "The cats were running, flies! Sing Caresses",
                Tokenizer::Rouge,
                Stemmer::Porter
            ),
            vec!["the", "cat", "were", "run", "fli", "sing", "caress"]
        );
        // "dies" -> "die" (four letters: stemmed); "ies" has three: kept.
        assert_eq!(
            tokens("dies ies was", Tokenizer::Rouge, Stemmer::Porter),
            vec!["die", "ies", "was"]
        );
        assert_eq!(
            tokens("The cats", Tokenizer::Rouge, Stemmer::None),
            vec!["the", "cats"]
        );
    }

    #[test]
    fn long_and_unicode_tokens_are_stemmed() {
        assert_eq!(
            tokens("internationalizations", Tokenizer::Rouge, Stemmer::Porter),
            vec!["internation"]
        );
        assert_eq!(
            tokens("Zürich cafés", Tokenizer::Unicode, Stemmer::Porter),
            vec!["zürich", "café"]
        );
        // The stem cache gives the same answer as a cold stemmer.
        let mut s = TokenScratch::default();
        let mut out = Vec::new();
        for _ in 0..3 {
            token_keys(
                b"running runs",
                Tokenizer::Rouge,
                Stemmer::Porter,
                &mut s,
                &mut out,
            );
            assert_eq!(out[0], out[1]);
        }
    }

    #[test]
    fn stemmed_rouge_l() {
        let s = &mut TokenScratch::default();
        let plain = rouge_l_stemmed(
            b"cats running",
            b"cat run",
            Tokenizer::Rouge,
            Stemmer::None,
            s,
            &Stop::new(),
        )
        .unwrap();
        assert_eq!(plain.fmeasure, 0.0);
        let stemmed = rouge_l_stemmed(
            b"cats running",
            b"cat run",
            Tokenizer::Rouge,
            Stemmer::Porter,
            s,
            &Stop::new(),
        )
        .unwrap();
        assert_eq!(stemmed.fmeasure, 1.0);
    }
}
