//! ROUGE-L: precision, recall and F-measure from the longest common subsequence of tokens.
//!
//! Under the default tokenizer a pair is read off the 64-byte masks of [`super::tokens`]: its
//! tokens become packed keys, numbered through a small open-addressing table. A text that may
//! hold U+0130 or U+212A, or a token longer than 15 bytes, takes the general path instead;
//! both give the same ids for the same tokens, so the same scores.

use rustc_hash::FxHashMap;

use super::halt::{Run, Stop, TryVec, CHECK_EVERY};
use super::lcs::{lcs_len, LcsScratch};
use super::rouge_pieces::by_pieces;
use super::text::{decode_into, py_lower_into, TokenKey};
use super::tokens::masks::{Masks, Scheme};
use super::tokens::table::{packed_at, KeyTable};

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

/// Reusable buffers so a batch allocates once per thread, not once per pair.
#[derive(Default)]
pub struct Scratch {
    raw: Vec<u32>,
    chars: Vec<u32>,
    spans: Vec<(u32, u32)>,
    bytes: Vec<u8>,
    keys_e: Vec<TokenKey>,
    keys_a: Vec<TokenKey>,
    piece: Vec<TokenKey>,
    ids_e: Vec<u32>,
    ids_a: Vec<u32>,
    ids: FxHashMap<TokenKey, u32>,
    lcs: LcsScratch,
    masks: Masks,
    packed_e: Vec<u128>,
    packed_a: Vec<u128>,
    table: KeyTable<u32>,
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
pub(crate) fn keys_into(
    text: &[u8],
    tokenizer: Tokenizer,
    s: &mut Scratch,
    keys: &mut Vec<TokenKey>,
) {
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

/// rouge-score's tokens of `text`, in order, as packed keys read off the masks; `false` when
/// the text needs the general path instead (it may hold U+0130 or U+212A, or a token is
/// longer than 15 bytes).
fn packed_tokens(text: &[u8], masks: &mut Masks, out: &mut Vec<u128>, stop: &Stop) -> Run<bool> {
    out.clear();
    masks.fill(text, Scheme::Rouge, stop)?;
    if masks.closer[..masks.words].iter().any(|&w| w != 0) {
        return Ok(false);
    }
    out.try_capacity(text.len() / 2 + 1, "ROUGE-L tokens")?;
    let mut short = true;
    masks.for_each_run(stop, |start, end| {
        if end - start > 15 {
            short = false;
        } else {
            out.push(packed_at(&masks.text, start, end));
        }
    })?;
    Ok(short)
}

/// ROUGE-L of `actual` (the prediction) against `expected` (the target). The LCS work,
/// O(n·⌈m/64⌉) for token counts n ≥ m, polls `stop`.
pub fn rouge_l(
    expected: &[u8],
    actual: &[u8],
    tokenizer: Tokenizer,
    s: &mut Scratch,
    stop: &Stop,
) -> Run<RougeScore> {
    if tokenizer == Tokenizer::Rouge
        && packed_tokens(expected, &mut s.masks, &mut s.packed_e, stop)?
        && packed_tokens(actual, &mut s.masks, &mut s.packed_a, stop)?
    {
        return score_packed(s, stop);
    }
    let (mut keys_e, mut keys_a) = (std::mem::take(&mut s.keys_e), std::mem::take(&mut s.keys_a));
    let mut piece = std::mem::take(&mut s.piece);
    let tokenize = |t: &[u8], keys: &mut Vec<TokenKey>| keys_into(t, tokenizer, s, keys);
    let score = by_pieces(expected, &mut keys_e, &mut piece, stop, tokenize)
        .and_then(|()| {
            let tokenize = |t: &[u8], keys: &mut Vec<TokenKey>| keys_into(t, tokenizer, s, keys);
            by_pieces(actual, &mut keys_a, &mut piece, stop, tokenize)
        })
        .and_then(|()| score_keys(&keys_e, &keys_a, s, stop));
    s.keys_e = keys_e;
    s.keys_a = keys_a;
    s.piece = piece;
    score
}

const ZERO: RougeScore = RougeScore {
    precision: 0.0,
    recall: 0.0,
    fmeasure: 0.0,
};

/// [`score_keys`] over the packed keys in `s.packed_e` and `s.packed_a`.
fn score_packed(s: &mut Scratch, stop: &Stop) -> Run<RougeScore> {
    let (n_e, n_a) = (s.packed_e.len(), s.packed_a.len());
    if n_e == 0 || n_a == 0 {
        return Ok(ZERO);
    }
    s.table.reset(n_e, stop)?;
    s.ids_e.clear();
    s.ids_e.try_capacity(n_e, "ROUGE-L token ids")?;
    let mut distinct = 0;
    for chunk in s.packed_e.chunks(CHECK_EVERY) {
        stop.check()?;
        for &key in chunk {
            let (id, new) = s.table.entry(key);
            if new {
                *id = distinct;
                distinct += 1;
            }
            s.ids_e.push(*id);
        }
    }
    s.ids_a.clear();
    s.ids_a.try_capacity(n_a, "ROUGE-L token ids")?;
    for chunk in s.packed_a.chunks(CHECK_EVERY) {
        stop.check()?;
        for &key in chunk {
            s.ids_a
                .push(s.table.get_mut(key).map_or(distinct, |id| *id));
        }
    }
    score_ids(distinct as usize + 1, s, stop)
}

pub(crate) fn score_keys(
    keys_e: &[TokenKey],
    keys_a: &[TokenKey],
    s: &mut Scratch,
    stop: &Stop,
) -> Run<RougeScore> {
    let (n_e, n_a) = (keys_e.len(), keys_a.len());
    if n_e == 0 || n_a == 0 {
        return Ok(ZERO);
    }
    // Ids for the expected tokens; an actual token absent from expected gets the one id
    // `alphabet - 1`, which can never match.
    s.ids.clear();
    s.ids_e.clear();
    s.ids_e.try_capacity(n_e, "ROUGE-L token ids")?;
    for chunk in keys_e.chunks(CHECK_EVERY) {
        stop.check()?;
        for key in chunk {
            let next = s.ids.len() as u32;
            s.ids_e.push(*s.ids.entry(key.clone()).or_insert(next));
        }
    }
    let absent = s.ids.len() as u32;
    let alphabet = s.ids.len() + 1;
    s.ids_a.clear();
    s.ids_a.try_capacity(n_a, "ROUGE-L token ids")?;
    for chunk in keys_a.chunks(CHECK_EVERY) {
        stop.check()?;
        for key in chunk {
            s.ids_a.push(s.ids.get(key).copied().unwrap_or(absent));
        }
    }
    score_ids(alphabet, s, stop)
}

/// The scores from the token ids in `s.ids_e` and `s.ids_a` (both non-empty), all below
/// `alphabet`.
fn score_ids(alphabet: usize, s: &mut Scratch, stop: &Stop) -> Run<RougeScore> {
    let (n_e, n_a) = (s.ids_e.len(), s.ids_a.len());
    let lcs = if n_e <= n_a {
        lcs_len(&s.ids_e, &s.ids_a, alphabet, &mut s.lcs, stop)?
    } else {
        lcs_len(&s.ids_a, &s.ids_e, alphabet, &mut s.lcs, stop)?
    };

    let precision = lcs as f64 / n_a as f64;
    let recall = lcs as f64 / n_e as f64;
    let fmeasure = if precision + recall > 0.0 {
        2.0 * precision * recall / (precision + recall)
    } else {
        0.0
    };
    Ok(RougeScore {
        precision,
        recall,
        fmeasure,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rouge_tokenizer_keeps_ascii_alnum_runs() {
        assert_eq!(
            tokens("Hello, WORLD! café x2".as_bytes(), Tokenizer::Rouge),
            vec!["hello", "world", "caf", "x2"]
        );
        assert_eq!(
            tokens("\u{130}K\u{212A}".as_bytes(), Tokenizer::Rouge),
            vec!["i", "kk"]
        );
    }

    #[test]
    fn unicode_tokenizer_keeps_letters() {
        assert_eq!(
            tokens("Café Zürich 東京!".as_bytes(), Tokenizer::Unicode),
            vec!["café", "zürich", "東京"]
        );
    }

    #[test]
    fn packed_tokens_equal_the_general_path() {
        let texts = [
            "",
            "The cat sat on the mat.",
            "the cat, on THE mat!! x2 y_3",
            "café Zürich 東京 data-set 42",
            "\u{130}stanbul K\u{212A}elvin \u{2014} dash",
            "abcdefghijklmnopqrstuvwxyz short",
            "  lots   of\tspace\n\x01ctrl\x7fdel ",
            "a very long text of words that repeat, words that repeat, words that repeat \
             and cross the sixty-four byte boundary of the masks more than once or twice",
        ];
        let (s, stop) = (&mut Scratch::default(), Stop::new());
        for e in texts {
            for a in texts {
                let got = rouge_l(e.as_bytes(), a.as_bytes(), Tokenizer::Rouge, s, &stop).unwrap();
                let (mut ke, mut ka) = (Vec::new(), Vec::new());
                keys_into(e.as_bytes(), Tokenizer::Rouge, s, &mut ke);
                keys_into(a.as_bytes(), Tokenizer::Rouge, s, &mut ka);
                let want = score_keys(&ke, &ka, s, &stop).unwrap();
                assert_eq!(got, want, "{e:?} {a:?}");
            }
        }
    }

    #[test]
    fn scores() {
        let s = &mut Scratch::default();
        let r = rouge_l(
            b"the cat sat on the mat",
            b"the cat on the mat",
            Tokenizer::Rouge,
            s,
            &Stop::new(),
        )
        .unwrap();
        assert_eq!(r.precision, 1.0);
        assert_eq!(r.recall, 5.0 / 6.0);
        let r = rouge_l(b"", b"x", Tokenizer::Rouge, s, &Stop::new()).unwrap();
        assert_eq!(r.fmeasure, 0.0);
    }
}
