//! Decoding a pair of texts into dense symbol ids in one pass: ASCII keeps its value, every
//! other code point is named 0x80, 0x81, ... in order of first appearance, so that the
//! bit-parallel kernels can index match tables by id (and a pair over at most 128 distinct
//! non-ASCII code points still takes the 256-row table).
//!
//! The names live in an open-addressing table keyed by code point (multiplicative hash,
//! linear probing) whose slots carry the number of the pair they belong to: starting the next
//! pair costs nothing, where a general hash map must be cleared and hashes more slowly.

use super::halt::{OutOfMemory, TryVec};
use super::text::next_code_point;

/// Reusable renaming table.
#[derive(Default)]
pub struct DenseIds {
    /// Per slot: the code point, its id, and the pair (`epoch`) that wrote it.
    slots: Vec<(u32, u32, u32)>,
    epoch: u32,
    /// log2 of the slots this pair uses (a power of two, at most all of them).
    bits: u32,
    next: u32,
}

impl DenseIds {
    /// Start a new pair whose two texts take `bytes` bytes in all: room for every distinct
    /// non-ASCII code point they can hold (each takes at least two bytes).
    fn start(&mut self, bytes: usize) -> Result<(), OutOfMemory> {
        let most = (bytes / 2).min(0x11_0000);
        let want = (2 * most).next_power_of_two().max(64);
        if self.slots.len() < want {
            self.slots.clear();
            self.slots.try_resize(want, (0, 0, 0), "the symbol names")?;
            self.epoch = 0;
        }
        // A short pair probes only the first `want` slots of a table grown for a longer one:
        // they stay in cache. Slots of older pairs there are told apart by their epoch.
        self.bits = want.trailing_zeros();
        if self.epoch == u32::MAX {
            self.slots.iter_mut().for_each(|s| s.2 = 0);
            self.epoch = 0;
        }
        self.epoch += 1;
        self.next = 0x80;
        Ok(())
    }

    /// The id of non-ASCII code point `cp`, named now if it is new in this pair.
    #[inline]
    fn name(&mut self, cp: u32) -> u32 {
        let mask = (1usize << self.bits) - 1;
        let mut at = (cp.wrapping_mul(0x9E37_79B1) >> (32 - self.bits)) as usize;
        loop {
            let slot = &mut self.slots[at];
            if slot.2 != self.epoch {
                *slot = (cp, self.next, self.epoch);
                self.next += 1;
                return self.next - 1;
            }
            if slot.0 == cp {
                return slot.1;
            }
            at = (at + 1) & mask;
        }
    }

    /// Decode `text` (generalized UTF-8), appending its ids to `out`.
    fn decode(&mut self, text: &[u8], out: &mut Vec<u32>) -> Result<(), OutOfMemory> {
        out.try_capacity(text.len(), "the decoded text")?;
        let mut i = 0;
        while i < text.len() {
            let b = text[i];
            if b < 0x80 {
                out.push(u32::from(b));
                i += 1;
            } else {
                let (cp, len) = next_code_point(text, i);
                let id = self.name(cp);
                out.push(id);
                i += len;
            }
        }
        Ok(())
    }

    /// Decode `a` into `da` and `b` into `db` (both cleared first) with ids shared between the
    /// two; returns the alphabet size (every id is below it).
    pub fn load_pair(
        &mut self,
        a: &[u8],
        b: &[u8],
        da: &mut Vec<u32>,
        db: &mut Vec<u32>,
    ) -> Result<usize, OutOfMemory> {
        self.start(a.len() + b.len())?;
        da.clear();
        db.clear();
        self.decode(a, da)?;
        self.decode(b, db)?;
        Ok(self.next as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::text::decode;

    #[test]
    fn ids_are_dense_shared_and_in_order_of_first_appearance() {
        let mut names = DenseIds::default();
        let (mut da, mut db) = (Vec::new(), Vec::new());
        for round in 0..300u32 {
            let a: String = (0..round)
                .filter_map(|i| {
                    char::from_u32([0x61, 0xE9, 0x4E00, 0x1F600][(i % 4) as usize] + i * 7 % 300)
                })
                .collect();
            let b: String = a.chars().rev().chain("zé😀".chars()).collect();
            let alphabet = names
                .load_pair(a.as_bytes(), b.as_bytes(), &mut da, &mut db)
                .unwrap();
            // The reference: a plain map, filled in the same order.
            let mut want = std::collections::HashMap::new();
            let mut name = |c: u32| {
                if c < 0x80 {
                    return c;
                }
                let next = 0x80 + want.len() as u32;
                *want.entry(c).or_insert(next)
            };
            let wa: Vec<u32> = decode(a.as_bytes()).into_iter().map(&mut name).collect();
            let wb: Vec<u32> = decode(b.as_bytes()).into_iter().map(&mut name).collect();
            assert_eq!((&da, &db), (&wa, &wb), "round {round}");
            assert_eq!(alphabet, 0x80 + want.len());
        }
    }
}
