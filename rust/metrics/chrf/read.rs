//! Reading one side of a chrF segment: its text decoded (and lowercased when asked), then the
//! ids of its character n-grams and, for chrF++, of its word n-grams. Every loop over the text
//! polls the stop flag every [`CHECK_EVERY`] units of work.

use super::{ChrfOptions, Scratch};
use crate::metrics::halt::{Context, Run, CHECK_EVERY};
use crate::metrics::ngrams::{KeyIds, NgramIds, ABSENT};
use crate::metrics::polled_text::{decode_polling, for_each_py_token_polling, py_lower_polling};
use crate::metrics::text::{is_py_space, TokenKey};

/// `string.punctuation`: the ASCII characters chrF++ cuts off the ends of words.
#[inline]
fn is_ascii_punct(c: u32) -> bool {
    c < 0x80 && (c as u8).is_ascii_punctuation()
}

/// Dense ids for characters: ASCII through a direct table, the rest through a [`KeyIds`],
/// numbered together in order of first appearance.
pub(super) struct CharIds {
    ascii: [u32; 128],
    other: KeyIds<u64>,
    len: u32,
}

impl Default for CharIds {
    fn default() -> Self {
        CharIds {
            ascii: [ABSENT; 128],
            other: KeyIds::default(),
            len: 0,
        }
    }
}

impl CharIds {
    pub(super) fn clear(&mut self) {
        self.ascii = [ABSENT; 128];
        self.other.clear();
        self.len = 0;
    }

    pub(super) fn len(&self) -> usize {
        self.len as usize
    }

    #[inline]
    fn intern(&mut self, c: u32) -> u32 {
        let len = &mut self.len;
        let mut next = || {
            *len += 1;
            *len - 1
        };
        if c < 128 {
            let slot = &mut self.ascii[c as usize];
            if *slot == ABSENT {
                *slot = next();
            }
            *slot
        } else {
            self.other.intern_with(c as u64, next)
        }
    }

    #[inline]
    fn get(&self, c: u32) -> u32 {
        if c < 128 {
            self.ascii[c as usize]
        } else {
            self.other.id(c as u64)
        }
    }
}

/// One side's n-gram ids: orders 1..=char_order, then word orders 1..=word_order.
#[derive(Default)]
pub(super) struct Side {
    pub(super) grams: Vec<Vec<u32>>,
}

/// The n-gram ids of `ids`, orders 1..=max, into `grams[..max]`.
fn fill_orders(
    ngrams: &mut NgramIds,
    ids: &[u32],
    max: usize,
    insert: bool,
    grams: &mut [Vec<u32>],
    stop: &Context,
) -> Run<()> {
    if max == 0 {
        return Ok(());
    }
    grams[0].clear();
    grams[0].extend_from_slice(ids);
    for order in 2..=max {
        let (done, rest) = grams.split_at_mut(order - 1);
        ngrams.next_order(order, &done[order - 2], ids, insert, &mut rest[0], stop)?;
    }
    Ok(())
}

/// Read one side: preprocess, then character and word n-gram ids (interned when `insert`).
pub(super) fn read_side(
    text: &[u8],
    opts: &ChrfOptions,
    insert: bool,
    s: &mut Scratch,
    side: &mut Side,
    stop: &Context,
) -> Run<()> {
    side.grams.resize_with(opts.orders(), Vec::new);
    let cps = if opts.lowercase {
        s.raw.clear();
        decode_polling(text, &mut s.raw, stop)?;
        s.cps.clear();
        py_lower_polling(&s.raw, &mut s.cps, stop)?;
        &s.cps
    } else {
        s.cps.clear();
        decode_polling(text, &mut s.cps, stop)?;
        &s.cps
    };

    let (units, ids) = (&mut s.char_units, &mut s.ids);
    ids.clear();
    let keep = |c: &u32| opts.whitespace || !is_py_space(*c);
    for part in cps.chunks(CHECK_EVERY) {
        stop.check()?;
        if insert {
            ids.extend(part.iter().filter(|c| keep(c)).map(|&c| units.intern(c)));
        } else {
            ids.extend(part.iter().filter(|c| keep(c)).map(|&c| units.get(c)));
        }
    }
    let (char_grams, word_grams) = side.grams.split_at_mut(opts.char_order);
    fill_orders(
        &mut s.char_ngrams,
        ids,
        opts.char_order,
        insert,
        char_grams,
        stop,
    )?;

    if opts.word_order == 0 {
        return Ok(());
    }
    // sacrebleu's `_remove_punctuation`: split on whitespace; a word of two or more characters
    // loses one trailing ASCII punctuation mark, or else one leading one, as a separate word.
    ids.clear();
    let units = &mut s.word_units;
    let mut push = |w: &[u32]| {
        let key = TokenKey::of(w);
        ids.push(if insert {
            units.intern(key)
        } else {
            units.get(&key)
        });
    };
    for_each_py_token_polling(cps, stop, |w| {
        let n = w.len();
        if n == 1 {
            push(w);
        } else if is_ascii_punct(w[n - 1]) {
            push(&w[..n - 1]);
            push(&w[n - 1..]);
        } else if is_ascii_punct(w[0]) {
            push(&w[..1]);
            push(&w[1..]);
        } else {
            push(w);
        }
    })?;
    fill_orders(
        &mut s.word_ngrams,
        ids,
        opts.word_order,
        insert,
        word_grams,
        stop,
    )
}
