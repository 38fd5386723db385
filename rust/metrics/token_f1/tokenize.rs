//! One text's SQuAD or whitespace tokens, handed over one by one as packed keys (long tokens
//! are collected apart), with no list of keys in between.

use super::bag::TokenBag;
use super::general::{split_general, squad_general, General, IS_PUNCT};
use super::Normalizer;
use crate::metrics::halt::{Context, Run};
use crate::metrics::tokens::masks::{Masks, Scheme};
use crate::metrics::tokens::packed::packed_at;

/// The tokenizer's buffers, reused from text to text.
#[derive(Default)]
pub(super) struct Tokenizer {
    pub(super) masks: Masks,
    general: General,
    /// The general path's tokens of one run, before they are handed over.
    spill: TokenBag,
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

    /// Hand each token of `text` (the text last classified) to `key` when it has at most 15
    /// bytes, or push it to `long`; returns the number of tokens.
    pub(super) fn tokens(
        &mut self,
        text: &[u8],
        long: &mut Vec<Box<[u8]>>,
        stop: &Context,
        mut key: impl FnMut(u128),
    ) -> Run<usize> {
        let squad = self.squad;
        let Tokenizer {
            masks,
            general,
            spill,
            ..
        } = self;
        let (mut count, longs_before) = (0usize, long.len());
        let mut next_closer = 0;
        masks.for_each_run(stop, |run_start, run_end| {
            let (mut start, mut end) = (run_start, run_end);
            if next_closer < start {
                next_closer = masks.next_closer(start);
            }
            if next_closer < end {
                // SQuAD drops punctuation: a token whose other bytes are all letters and
                // digits between leading and trailing punctuation ("end.", "(see)") is the
                // part between.
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
                    let (raw, lowered) =
                        (&text[run_start..run_end], &masks.text[run_start..run_end]);
                    spill.clear();
                    if squad {
                        squad_general(raw, lowered, general, spill);
                    } else {
                        split_general(raw, spill);
                    }
                    count += spill.packed.len();
                    spill.packed.iter().for_each(|&k| key(k));
                    long.append(&mut spill.long);
                    return;
                }
                if start == end {
                    return; // nothing but punctuation
                }
            }
            if end - start > 15 {
                long.push(masks.text[start..end].into());
                return;
            }
            let k = packed_at(&masks.text, start, end);
            // The low half alone tells "a", "an" and "the": these tokens hold no zero byte.
            if squad && matches!(k as u64, 0x61 | 0x6E61 | 0x65_6874) {
                return;
            }
            count += 1;
            key(k);
        })?;
        Ok(count + long.len() - longs_before)
    }
}
