//! Token F1: the SQuAD v2.0 `compute_f1` over normalized tokens, or over whitespace tokens.
//!
//! A text is first classified 64 bytes at a time (with SSE2 on x86-64) into two bit masks
//! (ASCII whitespace, and bytes that need a closer look), and lowercased in the same pass.
//! Tokens are then read off the whitespace mask; a token with no byte that needs a closer look
//! (for SQuAD, a run of ASCII letters and digits; for "none", any ASCII run) becomes its key
//! straight from two 8-byte loads; so does a SQuAD token whose punctuation is all at its two
//! ends ("end.", "(see)"), cut to the part between. The others (punctuation inside, control
//! characters, anything not ASCII) take the general path, which follows Python's `str.lower`,
//! `str.split` and `re`'s `\b` exactly.
//!
//! Every token is keyed by its UTF-8 bytes, so the two paths give equal keys for equal tokens.

mod bag;
mod exact;
mod general;
mod tokenize;

use crate::metrics::halt::{Context, Run};
use crate::metrics::key_table::KeyTable;
use bag::common_count;
pub use exact::{exact_match, ExactScratch};
use tokenize::Tokenizer;

/// The most distinct tokens a table is sized for before it is filled.
const TABLE_PRESIZE: usize = 1 << 14;

/// How many times the tokens of a short text the table is sized for.
const SPARSE: usize = 2;

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
    tokenizer: Tokenizer,
    long_gold: Vec<Box<[u8]>>,
    long_pred: Vec<Box<[u8]>>,
    table: KeyTable<u128, u32>,
}

/// Token F1 of `actual` against `expected`, computed exactly as SQuAD's `compute_f1`. `stop`
/// is polled every 1 MiB of text or so.
pub fn token_f1(
    expected: &[u8],
    actual: &[u8],
    normalizer: Normalizer,
    s: &mut Scratch,
    stop: &Context,
) -> Run<f64> {
    // The gold tokens are counted into the table as they are read, and the predicted ones
    // taken out of it as they are read, a batch at a time (so the table's loop keeps its
    // fields in registers); tokens of more than 15 bytes are compared apart.
    let Scratch {
        tokenizer,
        long_gold,
        long_pred,
        table,
    } = s;
    long_gold.clear();
    long_pred.clear();
    tokenizer.classify(expected, normalizer, stop)?;
    // Sized for twice the tokens of a short text, so that it stays at most a quarter full and
    // a probe seldom meets another key; a long text's table grows with its distinct tokens
    // (few, in most huge texts), not with its token count.
    table.reset(tokenizer.token_bound().min(TABLE_PRESIZE) * SPARSE, stop)?;
    // The table grows with the gold text's distinct tokens: memory it cannot have is an error
    // of this row (kept until the tokenizer returns), never an abort.
    let mut short_of_memory = Ok(());
    let n_gold = tokenizer.tokens(expected, long_gold, stop, |keys| {
        if short_of_memory.is_ok() {
            short_of_memory = table.try_add_all_flat(keys);
        }
    })?;
    short_of_memory?;
    tokenizer.classify(actual, normalizer, stop)?;
    let mut same = 0usize;
    let n_pred = tokenizer.tokens(actual, long_pred, stop, |keys| {
        same += table.take_all_flat(keys);
    })?;
    if n_gold == 0 || n_pred == 0 {
        return Ok(if n_gold == n_pred { 1.0 } else { 0.0 });
    }
    if !long_gold.is_empty() && !long_pred.is_empty() {
        stop.check()?;
        long_gold.sort_unstable();
        stop.check()?;
        long_pred.sort_unstable();
        stop.check()?;
        same += common_count(long_gold, long_pred);
    }
    if same == 0 {
        return Ok(0.0);
    }
    let precision = 1.0 * same as f64 / n_pred as f64;
    let recall = 1.0 * same as f64 / n_gold as f64;
    Ok((2.0 * precision * recall) / (precision + recall))
}

#[cfg(test)]
mod tests {
    use super::bag::TokenBag;
    use super::general::{is_article, is_punct};
    use super::*;
    use crate::metrics::text::{for_each_py_token, is_py_word, py_lower_into};
    use crate::metrics::tokens::masks::{Masks, Scheme};

    fn f1(e: &str, a: &str) -> f64 {
        token_f1(
            e.as_bytes(),
            a.as_bytes(),
            Normalizer::Squad,
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap()
    }

    /// SQuAD's normalization step by step over the whole text's code points: lowercase, drop
    /// punctuation, replace article words by a space, split on whitespace.
    fn reference_tokens(text: &str, normalizer: Normalizer) -> TokenBag {
        let cps: Vec<u32> = text.chars().map(|c| c as u32).collect();
        let mut bag = TokenBag::default();
        let mut utf8 = Vec::new();
        let norm = match normalizer {
            Normalizer::None => cps,
            Normalizer::Squad => {
                let mut lowered = Vec::new();
                py_lower_into(&cps, &mut lowered);
                lowered.retain(|&c| !is_punct(c));
                let mut out = Vec::new();
                let mut i = 0;
                while i < lowered.len() {
                    if !is_py_word(lowered[i]) {
                        out.push(lowered[i]);
                        i += 1;
                        continue;
                    }
                    let start = i;
                    while i < lowered.len() && is_py_word(lowered[i]) {
                        i += 1;
                    }
                    if is_article(&lowered[start..i]) {
                        out.push(0x20);
                    } else {
                        out.extend_from_slice(&lowered[start..i]);
                    }
                }
                out
            }
        };
        for_each_py_token(&norm, |t| bag.push_code_points(t, &mut utf8));
        bag
    }

    fn sorted(mut bag: TokenBag) -> (Vec<u128>, Vec<Box<[u8]>>) {
        bag.packed.sort_unstable();
        bag.long.sort_unstable();
        (bag.packed, bag.long)
    }

    /// Deterministic texts from a pool of tricky pieces, long enough to cross the 16- and
    /// 64-byte boundaries of the masks.
    fn generated_texts() -> Vec<String> {
        const POOL: [&str; 38] = [
            " ",
            "  ",
            "\t",
            "\n",
            "\x1c",
            "\u{85}",
            "\u{a0}",
            "\u{3000}",
            "a",
            "an",
            "the",
            "The",
            "THE",
            "cat",
            "Dogs",
            "x",
            "sixteen-letters!",
            "abcdefghijklmnopq",
            ",",
            ".",
            "'",
            "_",
            "\x01",
            "\x7f",
            "é",
            "Σ",
            "ΟΔΟΣ",
            "İ",
            "東京",
            "😀",
            "(x)",
            "end.",
            "\"q\"",
            "-",
            "a,",
            "The!",
            "K\u{212A}",
            "\u{130}z",
        ];
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut out = Vec::new();
        for len in 0..400 {
            let mut text = String::new();
            for _ in 0..len % 90 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                text.push_str(POOL[(state % POOL.len() as u64) as usize]);
            }
            out.push(text);
        }
        out
    }

    #[test]
    fn tokens_equal_the_step_by_step_normalization() {
        let mut cases: Vec<String> = [
            "The cat, the hat!",
            "x\x01the\x01y a\x02an",
            "an-the a_b",
            "A",
            "the\x7fend",
            "Zürich the café, a İstanbul \u{212A}elvin!",
            "l'été\u{301}the\u{301}x \u{3000}an\u{85}a b",
            "東京 the 東京 The\u{2028}AN",
            "ÀN ÂN the_thé €the€",
            "AΣ.b A.Σ ΟΔΟΣ. word-longer-than-fifteen-bytes",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        cases.extend(generated_texts());
        let s = &mut Scratch::default();
        for text in &cases {
            for n in [Normalizer::Squad, Normalizer::None] {
                let (mut got, tokenizer, stop) =
                    (TokenBag::default(), &mut s.tokenizer, Context::new());
                tokenizer.classify(text.as_bytes(), n, &stop).unwrap();
                let bound = tokenizer.token_bound();
                let count = tokenizer
                    .tokens(text.as_bytes(), &mut got.long, &stop, |keys| {
                        got.packed.extend_from_slice(keys)
                    })
                    .unwrap();
                assert_eq!(count, got.len(), "{text:?} {n:?}");
                assert!(count <= bound, "{text:?} {n:?}");
                assert_eq!(
                    sorted(got),
                    sorted(reference_tokens(text, n)),
                    "{text:?} {n:?}"
                );
            }
        }
    }

    const SCHEMES: [Scheme; 3] = [Scheme::Squad, Scheme::Whitespace, Scheme::Rouge];

    #[test]
    fn simd_masks_equal_byte_by_byte() {
        let (mut fast, mut slow) = (Masks::default(), Masks::default());
        for text in generated_texts() {
            for scheme in SCHEMES {
                fast.fill_with(text.as_bytes(), scheme, true, &Context::new())
                    .unwrap();
                slow.fill_with(text.as_bytes(), scheme, false, &Context::new())
                    .unwrap();
                let w = fast.words;
                assert_eq!(fast.space[..w], slow.space[..w], "{text:?}");
                assert_eq!(fast.closer[..w], slow.closer[..w], "{text:?}");
                let n = text.len();
                assert_eq!(fast.text[..n], slow.text[..n], "{text:?}");
            }
        }
        let all: Vec<u8> = (0..=255).collect();
        for scheme in SCHEMES {
            fast.fill_with(&all, scheme, true, &Context::new()).unwrap();
            slow.fill_with(&all, scheme, false, &Context::new())
                .unwrap();
            let w = fast.words;
            assert_eq!(
                (&fast.space[..w], &fast.closer[..w], &fast.text[..256]),
                (&slow.space[..w], &slow.closer[..w], &slow.text[..256])
            );
        }
    }

    #[test]
    fn runs_equal_a_byte_by_byte_split() {
        // Runs and gaps of 1 to 150 bytes, so that runs start, end and span whole mask words.
        let (mut masks, stop) = (Masks::default(), Context::new());
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..300 {
            let mut text = Vec::new();
            while text.len() < 40 * (round % 20) {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let len = 1 + (state % 150) as usize;
                let byte = if state >> 40 & 1 == 0 { b' ' } else { b'x' };
                text.extend(std::iter::repeat_n(byte, len));
            }
            masks.fill(&text, Scheme::Whitespace, &stop).unwrap();
            let mut got = Vec::new();
            masks.for_each_run(&stop, |a, b| got.push((a, b))).unwrap();
            let mut want = Vec::new();
            let mut i = 0;
            while i < text.len() {
                if text[i] == b' ' {
                    i += 1;
                    continue;
                }
                let start = i;
                while i < text.len() && text[i] != b' ' {
                    i += 1;
                }
                want.push((start, i));
            }
            assert_eq!(got, want, "{round}");
        }
    }

    #[test]
    #[ignore]
    fn tokenizer_stage_timings() {
        use crate::metrics::tokens::timing::{pairs, pairs_file, time};
        let Some(data) = pairs_file() else {
            return;
        };
        let pairs = pairs(&data);
        let (s, stop) = (&mut Scratch::default(), Context::new());
        let mut long = Vec::new();
        for n in [Normalizer::Squad, Normalizer::None] {
            time(&format!("f1 tokens {n:?}"), &pairs, |e, a| {
                let mut sum = 0u64;
                for t in [e, a] {
                    s.tokenizer.classify(t, n, &stop).unwrap();
                    long.clear();
                    s.tokenizer
                        .tokens(t, &mut long, &stop, |keys| {
                            sum = keys.iter().fold(sum, |s, &k| s.wrapping_add(k as u64))
                        })
                        .unwrap();
                }
                sum
            });
        }
        // The table alone, over the short tokens of both texts read beforehand: the batch
        // forms at most half full against the flat ones at most a quarter full.
        let mut keys = std::collections::HashMap::new();
        for &(e, a) in &pairs {
            for t in [e, a] {
                s.tokenizer.classify(t, Normalizer::Squad, &stop).unwrap();
                let mut got = Vec::new();
                s.tokenizer
                    .tokens(t, &mut long, &stop, |k| got.extend_from_slice(k))
                    .unwrap();
                keys.insert(t.as_ptr() as usize, got);
            }
        }
        let of = |t: &[u8]| &keys[&(t.as_ptr() as usize)];
        for flat in [false, true] {
            time(&format!("f1 table flat={flat}"), &pairs, |e, a| {
                let (e, a) = (of(e), of(a));
                let table = &mut s.table;
                if flat {
                    table.reset(e.len() * SPARSE, &stop).unwrap();
                    table.try_add_all_flat(e).unwrap();
                    table.take_all_flat(a) as u64
                } else {
                    table.reset(e.len(), &stop).unwrap();
                    table.try_add_all(e).unwrap();
                    table.take_all(a) as u64
                }
            });
        }
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
    fn long_tokens_compare_by_content() {
        let long = "abcdefghijklmnopqrstuvwxyz";
        assert_eq!(f1(long, &long.to_uppercase()), 1.0);
        assert_eq!(f1(long, "abcdefghijklmnopqrstuvwxy"), 0.0);
        assert_eq!(f1("café-au-lait-au-lait", "CAFÉ-AU-LAIT-AU-LAIT"), 1.0);
    }

    #[test]
    fn a_raised_stop_halts_token_f1() {
        let stop = Context::new();
        stop.raise();
        let got = token_f1(
            b"a b",
            b"a b",
            Normalizer::Squad,
            &mut Scratch::default(),
            &stop,
        );
        assert_eq!(got, Err(crate::metrics::halt::Halt::Stopped));
    }

    #[test]
    fn none_normalizer_keeps_case() {
        let (s, stop) = (&mut Scratch::default(), Context::new());
        assert_eq!(
            token_f1(b"The cat", b"the cat", Normalizer::None, s, &stop).unwrap(),
            0.5
        );
        assert_eq!(
            token_f1("a\u{3000}b".as_bytes(), b"b a", Normalizer::None, s, &stop).unwrap(),
            1.0
        );
    }
}
