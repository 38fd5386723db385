//! Match masks of a pattern for the bit-parallel O(n·m/64) kernels (LCS, ROUGE-Lsum,
//! Levenshtein): bit i of symbol c's mask is set when pattern[i] = c.
//!
//! Memory stays linear in the pattern's length m, whatever its alphabet: a symbol that occurs
//! at least once per 64 positions on average (⌈m/64⌉ times or more; there are at most 64 such
//! symbols) gets a dense row of ⌈m/64⌉ words; every rarer symbol keeps only its positions,
//! which are set into a scratch mask when the symbol is met and cleared again afterwards, at
//! no more cost than the word operations of the step itself.

use super::halt::{OutOfMemory, TryVec};

const NO_SLOT: u32 = u32::MAX;
const NO_ROW: u32 = u32::MAX;

/// A pattern symbol: a byte, or an id below the alphabet size given to [`PatternMasks::build`].
pub trait Symbol: Copy {
    fn index(self) -> usize;
}

impl Symbol for u8 {
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

impl Symbol for u32 {
    #[inline]
    fn index(self) -> usize {
        self as usize
    }
}

/// The masks of one pattern; build it again (after [`PatternMasks::reset`]) for the next one.
#[derive(Default)]
pub struct PatternMasks {
    words: usize,
    /// Per symbol of the alphabet: its slot among the pattern's distinct symbols, or NO_SLOT.
    slot_of: Vec<u32>,
    count: Vec<u32>,
    start: Vec<u32>,
    positions: Vec<u32>,
    /// First and last word holding a bit of the slot's symbol.
    span: Vec<(u32, u32)>,
    dense_row: Vec<u32>,
    dense: Vec<u64>,
    /// All zero between calls.
    scratch: Vec<u64>,
}

impl PatternMasks {
    /// Build the masks of `pattern`, whose symbols are below `alphabet`. Every buffer sized by
    /// the input is allocated fallibly.
    pub fn build<S: Symbol>(&mut self, pattern: &[S], alphabet: usize) -> Result<(), OutOfMemory> {
        const WHAT: &str = "the pattern masks";
        let words = pattern.len().div_ceil(64);
        self.words = words;
        if self.slot_of.len() < alphabet {
            self.slot_of.try_resize(alphabet, NO_SLOT, WHAT)?;
        }
        self.count.clear();
        for &sym in pattern {
            let slot = &mut self.slot_of[sym.index()];
            if *slot == NO_SLOT {
                *slot = self.count.len() as u32;
                self.count.try_push(0, WHAT)?;
            }
            self.count[*slot as usize] += 1;
        }
        let slots = self.count.len();
        self.start.clear();
        self.start.try_capacity(slots + 1, WHAT)?;
        let mut acc = 0u32;
        for &k in &self.count {
            self.start.push(acc);
            acc += k;
        }
        self.start.push(acc);
        self.positions.clear();
        self.positions.try_resize(pattern.len(), 0, WHAT)?;
        // Reuse `span` as the fill cursor of the counting sort, then as the spans.
        self.span.clear();
        self.span.try_capacity(slots, WHAT)?;
        self.span
            .extend(self.start[..slots].iter().map(|&s| (s, 0)));
        for (i, &sym) in pattern.iter().enumerate() {
            let slot = self.slot_of[sym.index()] as usize;
            let cursor = &mut self.span[slot].0;
            self.positions[*cursor as usize] = i as u32;
            *cursor += 1;
        }
        self.dense_row.clear();
        self.dense_row.try_capacity(slots, WHAT)?;
        self.dense.clear();
        let mut rows = 0u32;
        for slot in 0..slots {
            let ps = &self.positions[self.start[slot] as usize..self.start[slot + 1] as usize];
            self.span[slot] = (ps[0] / 64, ps[ps.len() - 1] / 64);
            if ps.len() >= words {
                self.dense_row.push(rows);
                rows += 1;
                let base = self.dense.len();
                self.dense.try_resize(base + words, 0, WHAT)?;
                for &p in ps {
                    self.dense[base + p as usize / 64] |= 1u64 << (p % 64);
                }
            } else {
                self.dense_row.push(NO_ROW);
            }
        }
        self.scratch.clear();
        self.scratch.try_resize(words, 0, WHAT)?;
        Ok(())
    }

    /// Forget `pattern`'s symbols, so that the next pattern starts clean.
    pub fn reset<S: Symbol>(&mut self, pattern: &[S]) {
        for &sym in pattern {
            if let Some(slot) = self.slot_of.get_mut(sym.index()) {
                *slot = NO_SLOT;
            }
        }
    }

    /// Words per mask: ⌈m/64⌉.
    pub fn words(&self) -> usize {
        self.words
    }

    #[inline]
    fn slot(&self, sym: usize) -> Option<usize> {
        match self.slot_of.get(sym) {
            Some(&slot) if slot != NO_SLOT => Some(slot as usize),
            _ => None,
        }
    }

    /// `f(mask, first, last)` with the mask of the symbol in `slot` and the first and last word
    /// holding one of its bits.
    #[inline]
    fn with_slot<R>(&mut self, slot: usize, f: impl FnOnce(&[u64], usize, usize) -> R) -> R {
        let (first, last) = (self.span[slot].0 as usize, self.span[slot].1 as usize);
        let row = self.dense_row[slot];
        if row != NO_ROW {
            let base = row as usize * self.words;
            return f(&self.dense[base..base + self.words], first, last);
        }
        let ps = &self.positions[self.start[slot] as usize..self.start[slot + 1] as usize];
        for &p in ps {
            self.scratch[p as usize / 64] |= 1u64 << (p % 64);
        }
        let out = f(&self.scratch, first, last);
        for &p in ps {
            self.scratch[p as usize / 64] = 0;
        }
        out
    }

    /// `f(mask)` with the mask of `sym` (all zero when the pattern lacks it).
    #[inline]
    pub fn with_mask<R>(&mut self, sym: usize, f: impl FnOnce(&[u64]) -> R) -> R {
        match self.slot(sym) {
            Some(slot) => self.with_slot(slot, |mask, _, _| f(mask)),
            None => f(&self.scratch),
        }
    }

    /// Advance the LCS column `v` by one text symbol (a symbol outside the pattern, or outside
    /// the alphabet, leaves it unchanged).
    #[inline]
    pub fn advance_lcs(&mut self, v: &mut [u64], sym: usize) {
        if let Some(slot) = self.slot(sym) {
            self.with_slot(slot, |mask, first, last| lcs_step(v, mask, first, last));
        }
    }
}

/// One text symbol of the LCS recurrence: V ← (V + (V & M)) | (V & !M), with the carry
/// rippling upwards. Words below `first` hold no match bits and are unchanged; above `last`
/// only a carry can change them.
#[inline]
pub fn lcs_step(v: &mut [u64], mask: &[u64], first: usize, last: usize) {
    let mut carry = 0u64;
    for w in first..v.len() {
        let x = v[w];
        let u = if w <= last { x & mask[w] } else { 0 };
        if w > last && carry == 0 {
            break;
        }
        let (sum, c1) = x.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(carry);
        carry = (c1 | c2) as u64;
        v[w] = sum | (x - u);
    }
}

/// How many text symbols a kernel advances between two looks at its stop flag, for masks of
/// `words` words: about 2^16 word operations, a few tens of microseconds.
#[inline]
pub fn symbols_per_check(words: usize) -> usize {
    ((1usize << 16) / words.max(1)).max(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_hold_the_positions_of_each_symbol() {
        for m in [1usize, 63, 64, 65, 200, 1000] {
            let pattern: Vec<u32> = (0..m as u32).map(|i| (i * 7 + i / 3) % 11).collect();
            let mut masks = PatternMasks::default();
            masks.build(&pattern, 12).unwrap();
            for sym in 0..13usize {
                let want: Vec<u64> = (0..masks.words())
                    .map(|w| {
                        (0..64)
                            .filter(|b| pattern.get(w * 64 + b).map(|&c| c as usize) == Some(sym))
                            .fold(0u64, |acc, b| acc | (1 << b))
                    })
                    .collect();
                assert_eq!(
                    masks.with_mask(sym, |mask| mask.to_vec()),
                    want,
                    "m={m} sym={sym}"
                );
            }
            masks.reset(&pattern);
            assert!(masks.slot_of.iter().all(|&s| s == NO_SLOT));
            assert!(masks.scratch.iter().all(|&w| w == 0));
        }
    }

    #[test]
    fn an_impossible_alphabet_is_an_error() {
        let mut masks = PatternMasks::default();
        assert!(masks.build(&[1u32], usize::MAX / 2).is_err());
    }
}
