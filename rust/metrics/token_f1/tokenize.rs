//! One text's SQuAD or whitespace tokens, handed over one by one as packed keys (long tokens
//! are collected apart), with no list of keys in between.

use super::bag::TokenBag;
use super::general::{split_general, squad_general, General, IS_PUNCT};
use super::Normalizer;
use crate::metrics::halt::{Context, Run};
use crate::metrics::tokens::masks::{next_set, Masks, Scheme, WORDS_PER_CHECK};
use crate::metrics::tokens::packed::packed_at;

/// Keys of short tokens handed over at a time (at most; at least 224 but at the end).
const BATCH: usize = 256;

/// The low half of the packed key of "a", "an" and "the" by token length, 0 for the other
/// lengths (a token's bytes are never zero, so its low half never is).
static ARTICLE_LOW: [u64; 16] = {
    let mut t = [0u64; 16];
    t[1] = 0x61;
    t[2] = 0x6E61;
    t[3] = 0x65_6874;
    t
};

/// Whether a packed key is "a", "an" or "the": one table load and one compare, so that the
/// token loop keeps or drops the key with no branch (articles come in no pattern).
#[inline(always)]
fn is_article_key(k: u128) -> bool {
    k as u64 == ARTICLE_LOW[(k >> 120) as usize & 15]
}

/// The tokenizer's buffers, reused from text to text.
#[derive(Default)]
pub(super) struct Tokenizer {
    pub(super) masks: Masks,
    general: General,
    /// The general path's tokens of one run, before they are handed over.
    spill: TokenBag,
    /// Keys of short tokens not yet handed over: [`BATCH`] of them.
    batch: Vec<u128>,
    squad: bool,
}

impl Tokenizer {
    /// Classify `text` under `normalizer`; [`Tokenizer::tokens`] then reads its tokens.
    pub(super) fn classify(
        &mut self,
        text: &[u8],
        normalizer: Normalizer,
        stop: &Context,
    ) -> Run<()> {
        self.squad = normalizer == Normalizer::Squad;
        let scheme = if self.squad {
            Scheme::Squad
        } else {
            Scheme::Whitespace
        };
        self.masks.fill(text, scheme, stop)
    }

    /// An upper bound on the tokens of the classified text.
    pub(super) fn token_bound(&self) -> usize {
        self.masks.token_bound()
    }

    /// Hand the tokens of `text` (the text last classified) of at most 15 bytes to `keys`, a
    /// batch at a time, and push the longer ones to `long`; returns the number of tokens.
    ///
    /// A token with nothing that needs a closer look takes the short way: its key from two
    /// loads, written to a local batch and kept unless it is an article, with no branch on
    /// which ([`is_article_key`]). The others (punctuation, non-ASCII, more than 15 bytes) take the long way.
    pub(super) fn tokens(
        &mut self,
        text: &[u8],
        long: &mut Vec<Box<[u8]>>,
        stop: &Context,
        mut keys: impl FnMut(&[u128]),
    ) -> Run<usize> {
        let squad = self.squad;
        let Tokenizer {
            masks,
            general,
            spill,
            batch,
            ..
        } = self;
        if batch.len() < BATCH {
            batch.resize(BATCH, 0);
        }
        let batch: &mut [u128; BATCH] = (&mut batch[..BATCH]).try_into().unwrap();
        let (mut count, longs_before) = (0usize, long.len());
        let space = &masks.space[..masks.words];
        let lowered = &masks.text;
        // At most 32 runs start in a 64-byte word: the batch is handed over once it may not
        // hold another word's.
        let mut n = 0usize;
        // The first byte that needs a closer look at or after the runs read so far.
        let mut next_closer = masks.next_closer(0);
        let mut prev_space = 1u64;
        for (w, &sp) in space.iter().enumerate() {
            if w % WORDS_PER_CHECK == 0 {
                stop.check()?;
            }
            let mut starts = !sp & (sp << 1 | prev_space);
            prev_space = sp >> 63;
            while starts != 0 {
                let bit = starts.trailing_zeros();
                starts &= starts - 1;
                let start = 64 * w + bit as usize;
                let after = sp & (!0u64 << bit);
                let end = if after != 0 {
                    64 * w + after.trailing_zeros() as usize
                } else {
                    next_set(space, w + 1)
                };
                if next_closer >= end && end - start <= 15 {
                    let k = packed_at(lowered, start, end);
                    batch[n % BATCH] = k;
                    n += usize::from(!(squad & is_article_key(k)));
                    continue;
                }
                let (mut start, mut end) = (start, end);
                if next_closer < start {
                    next_closer = masks.next_closer(start);
                }
                if next_closer < end {
                    // SQuAD drops punctuation: a token whose other bytes are all letters and
                    // digits between leading and trailing punctuation ("end.", "(see)") is
                    // the part between.
                    let (run_start, run_end) = (start, end);
                    let punct = |i: usize| text[i] < 0x80 && IS_PUNCT[text[i] as usize];
                    if squad {
                        while start < end && punct(start) {
                            start += 1;
                        }
                        while end > start && punct(end - 1) {
                            end -= 1;
                        }
                    }
                    if !squad || (start < end && masks.next_closer(start) < end) {
                        let (raw, low) = (&text[run_start..run_end], &lowered[run_start..run_end]);
                        spill.clear();
                        if squad {
                            squad_general(raw, low, general, spill);
                        } else {
                            split_general(raw, spill);
                        }
                        count += spill.packed.len();
                        keys(&spill.packed);
                        long.append(&mut spill.long);
                        continue;
                    }
                    if start == end {
                        continue; // nothing but punctuation
                    }
                }
                if end - start > 15 {
                    long.push(lowered[start..end].into());
                    continue;
                }
                let k = packed_at(lowered, start, end);
                batch[n % BATCH] = k;
                n += usize::from(!(squad & is_article_key(k)));
            }
            if n > BATCH - 32 {
                keys(&batch[..n]);
                count += n;
                n = 0;
            }
        }
        keys(&batch[..n]);
        count += n;
        Ok(count + long.len() - longs_before)
    }
}

#[cfg(test)]
mod tests {
    use super::is_article_key;
    use crate::metrics::tokens::packed::packed_key;

    #[test]
    fn article_keys_are_the_three_articles_only() {
        for word in ["a", "an", "the"] {
            assert!(is_article_key(packed_key(word.as_bytes())), "{word}");
        }
        for word in [
            "b",
            "aa",
            "na",
            "ann",
            "then",
            "th",
            "he",
            "the0",
            "thee",
            "a1",
            "A",
            "The",
            "x",
            "anthem",
            "abcdefghijklmno",
        ] {
            assert!(!is_article_key(packed_key(word.as_bytes())), "{word}");
        }
    }
}
