//! Tokens of the ROUGE family: the two tokenizers, then (optionally) the Porter stemmer on
//! every token longer than three characters, as rouge-score's `tokenize` does with
//! `use_stemmer=True`. Tokens come out as [`TokenKey`]s; stems are cached per thread.

use rustc_hash::FxHashMap;

use super::halt::{Context, Run};
use super::porter;
use super::rouge_pieces::by_pieces;
use super::text::{decode_into, py_lower_into, TokenKey};

/// How text is cut into tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tokenizer {
    /// rouge-score's: lowercase, then maximal runs of `[a-z0-9]`; everything else separates.
    Rouge,
    /// Lowercase, then maximal runs of Unicode letters and digits.
    Unicode,
}

/// Precision, recall and F-measure, as rouge-score reports them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RougeScore {
    pub precision: f64,
    pub recall: f64,
    pub fmeasure: f64,
}

/// Which of the three figures a call returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    Precision,
    Recall,
    F,
}

impl RougeScore {
    /// The figure `m` asks for.
    pub fn get(self, m: Measure) -> f64 {
        match m {
            Measure::Precision => self.precision,
            Measure::Recall => self.recall,
            Measure::F => self.fmeasure,
        }
    }
}

/// Buffers of the tokenizers.
#[derive(Default)]
pub struct KeyScratch {
    raw: Vec<u32>,
    chars: Vec<u32>,
    spans: Vec<(u32, u32)>,
    bytes: Vec<u8>,
}

const SEP: u32 = 0x20;

/// Map text to a code-point stream in which every separator is `SEP` and tokens are the runs
/// between separators.
fn tokenize_chars(text: &[u8], tokenizer: Tokenizer, raw: &mut Vec<u32>, out: &mut Vec<u32>) {
    raw.clear();
    decode_into(text, raw);
    out.clear();
    match tokenizer {
        Tokenizer::Rouge => {
            // Python's str.lower() yields [a-z0-9] only from ASCII letters and digits, from
            // U+0130 (to "i" + U+0307) and from U+212A KELVIN SIGN (to "k").
            for &c in raw.iter() {
                let mapped = match c {
                    0x30..=0x39 | 0x61..=0x7A => c,
                    0x41..=0x5A => c + 32,
                    0x212A => 0x6B,
                    0x130 => {
                        out.push(0x69);
                        SEP
                    }
                    _ => SEP,
                };
                out.push(mapped);
            }
        }
        Tokenizer::Unicode => {
            py_lower_into(raw, out);
            for c in out.iter_mut() {
                if !char::from_u32(*c).is_some_and(char::is_alphanumeric) {
                    *c = SEP;
                }
            }
        }
    }
}

fn token_spans(chars: &[u32], spans: &mut Vec<(u32, u32)>) {
    spans.clear();
    let mut start = None;
    for (i, &c) in chars.iter().enumerate() {
        if c == SEP {
            if let Some(s) = start.take() {
                spans.push((s as u32, i as u32));
            }
        } else if start.is_none() {
            start = Some(i);
        }
    }
    if let Some(s) = start {
        spans.push((s as u32, chars.len() as u32));
    }
}

/// Tokenize `text` into its separator-marked code points (for inspection and tests).
pub fn tokens(text: &[u8], tokenizer: Tokenizer) -> Vec<String> {
    let (mut raw, mut chars, mut spans) = (Vec::new(), Vec::new(), Vec::new());
    tokenize_chars(text, tokenizer, &mut raw, &mut chars);
    token_spans(&chars, &mut spans);
    spans
        .iter()
        .map(|&(a, b)| {
            chars[a as usize..b as usize]
                .iter()
                .map(|&c| char::from_u32(c).unwrap_or('\u{FFFD}'))
                .collect()
        })
        .collect()
}

/// Token keys of `text`, in order, into `keys`.
pub fn keys_into(text: &[u8], tokenizer: Tokenizer, s: &mut KeyScratch, keys: &mut Vec<TokenKey>) {
    keys.clear();
    if text.is_ascii() {
        // For ASCII both tokenizers agree: lowercase, then runs of letters and digits.
        let mut start = None;
        s.bytes.clear();
        s.bytes.extend(text.iter().map(u8::to_ascii_lowercase));
        for (i, &b) in s.bytes.iter().enumerate() {
            match (b.is_ascii_alphanumeric(), start) {
                (true, None) => start = Some(i),
                (false, Some(st)) => {
                    keys.push(TokenKey::of_ascii(&s.bytes[st..i]));
                    start = None;
                }
                _ => {}
            }
        }
        if let Some(st) = start {
            keys.push(TokenKey::of_ascii(&s.bytes[st..]));
        }
        return;
    }
    tokenize_chars(text, tokenizer, &mut s.raw, &mut s.chars);
    token_spans(&s.chars, &mut s.spans);
    for &(a, b) in &s.spans {
        keys.push(TokenKey::of(&s.chars[a as usize..b as usize]));
    }
}

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
    pub(crate) keys: KeyScratch,
    stems: FxHashMap<TokenKey, TokenKey>,
    word8: Vec<u8>,
    word32: Vec<u32>,
}

/// The number of code points of the token behind `key` (see [`TokenKey`]'s two packings).
fn key_len(key: &TokenKey) -> usize {
    match key {
        TokenKey::Packed(k) => {
            let (bytes, n) = TokenKey::packed_bytes(k);
            bytes[..n].iter().filter(|&&b| b & 0xC0 != 0x80).count()
        }
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
            let (bytes, n) = TokenKey::packed_bytes(k);
            if bytes[..n].is_ascii() {
                ascii.extend_from_slice(&bytes[..n]);
                true
            } else {
                decode_into(&bytes[..n], cps);
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
    keys_into(text, tokenizer, &mut s.keys, out);
    if stemmer == Stemmer::Porter {
        for key in out.iter_mut() {
            if key_len(key) >= SHORTEST_STEMMED {
                *key = s.stem_key(key);
            }
        }
    }
}

/// [`token_keys`] of `text` into `out` (cleared first), polling `stop` every piece; `piece`
/// is a buffer for one piece's tokens.
pub fn token_keys_polling(
    text: &[u8],
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    s: &mut TokenScratch,
    out: &mut Vec<TokenKey>,
    piece: &mut Vec<TokenKey>,
    stop: &Context,
) -> Run<()> {
    by_pieces(text, out, piece, stop, |t, keys| {
        token_keys(t, tokenizer, stemmer, s, keys)
    })
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
    use crate::metrics::halt::{Halt, CHECK_EVERY};

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
    fn rouge_tokenizer_keeps_ascii_alnum_runs() {
        assert_eq!(
            super::tokens("Hello, WORLD! café x2".as_bytes(), Tokenizer::Rouge),
            vec!["hello", "world", "caf", "x2"]
        );
        assert_eq!(
            super::tokens("\u{130}K\u{212A}".as_bytes(), Tokenizer::Rouge),
            vec!["i", "kk"]
        );
    }

    #[test]
    fn unicode_tokenizer_keeps_letters() {
        assert_eq!(
            super::tokens("Café Zürich 東京!".as_bytes(), Tokenizer::Unicode),
            vec!["café", "zürich", "東京"]
        );
    }

    #[test]
    fn pieces_give_the_tokens_of_one_pass() {
        // Pieces cut inside runs of spaces, next to a capital sigma, between ASCII and not.
        let unit = "Running CATS ΟΔΟΣ x\u{3000}y Zürich-cafés ";
        let text = unit.repeat(3 * CHECK_EVERY / unit.len() + 7);
        let (mut s, go) = (TokenScratch::default(), Context::new());
        for tokenizer in [Tokenizer::Rouge, Tokenizer::Unicode] {
            for stemmer in [Stemmer::None, Stemmer::Porter] {
                let (mut one, mut pieces, mut piece) = (Vec::new(), Vec::new(), Vec::new());
                token_keys(text.as_bytes(), tokenizer, stemmer, &mut s, &mut one);
                let t = text.as_bytes();
                token_keys_polling(t, tokenizer, stemmer, &mut s, &mut pieces, &mut piece, &go)
                    .unwrap();
                assert!(one.len() > CHECK_EVERY / 8);
                assert!(one == pieces, "{tokenizer:?} {stemmer:?}");
            }
        }
    }

    #[test]
    fn a_raised_stop_halts_tokenizing() {
        let text = "a b ".repeat(CHECK_EVERY);
        let (mut s, stop) = (TokenScratch::default(), Context::new());
        stop.raise();
        let (mut out, mut piece) = (Vec::new(), Vec::new());
        let (r, n) = (Tokenizer::Rouge, Stemmer::None);
        let got = token_keys_polling(text.as_bytes(), r, n, &mut s, &mut out, &mut piece, &stop);
        assert_eq!((got, out.len()), (Err(Halt::Stopped), 0));
    }
}
