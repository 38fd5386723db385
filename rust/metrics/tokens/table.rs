//! Packed token keys and a small open-addressing table over them.
//!
//! A token of up to 15 bytes is one integer: its bytes little-endian, its length in the top
//! byte, so no two tokens share a key and no key is 0 (the table's empty slot). The layout is
//! [`TokenKey::of_ascii`](crate::metrics::text::TokenKey::of_ascii)'s.

use crate::metrics::halt::{Run, Stop, TryVec};

/// Slots zeroed between two polls of the stop flag (1 MiB of table).
const SLOTS_PER_CHECK: usize = 1 << 15;

/// The packed key of a token of at most 15 bytes.
#[inline]
pub(crate) fn packed_key(bytes: &[u8]) -> u128 {
    let mut raw = [0u8; 16];
    raw[..bytes.len()].copy_from_slice(bytes);
    raw[15] = bytes.len() as u8;
    u128::from_le_bytes(raw)
}

/// The packed key of the token `text[start..end]` (at most 15 bytes) from two 8-byte loads;
/// `text` must hold 16 bytes from `start` on.
#[inline(always)]
pub(crate) fn packed_at(text: &[u8], start: usize, end: usize) -> u128 {
    let len = end - start;
    let at = |i: usize| u64::from_le_bytes(text[i..i + 8].try_into().unwrap());
    let lo = at(start) & (u64::MAX >> (8 * (8 - len.min(8))));
    let hi = at(start + 8) & (u64::MAX >> 1 >> (63 - 8 * len.saturating_sub(8)));
    ((hi | (len as u64) << 56) as u128) << 64 | lo as u128
}

/// Packed keys, each with a value, in a table that is emptied in time proportional to the keys
/// it held, not to its size, so that scoring many short pairs costs no clearing.
#[derive(Default)]
pub(crate) struct KeyTable<V> {
    slots: Vec<(u128, V)>,
    used: Vec<u32>,
    bits: u32,
}

impl<V: Copy + Default> KeyTable<V> {
    /// Empty the table and make room for `keys` distinct keys. A table that has to grow is
    /// zeroed 1 MiB at a time, polling `stop` in between.
    pub(crate) fn reset(&mut self, keys: usize, stop: &Stop) -> Run<()> {
        for &i in &self.used {
            self.slots[i as usize] = (0, V::default());
        }
        self.used.clear();
        self.used.try_capacity(keys, "a token table")?;
        let bits = (2 * keys).max(16).next_power_of_two().trailing_zeros();
        let slots = 1usize << bits;
        self.slots.try_capacity(slots, "a token table")?;
        while self.slots.len() < slots {
            stop.check()?;
            let more = (slots - self.slots.len()).min(SLOTS_PER_CHECK);
            self.slots
                .resize(self.slots.len() + more, (0, V::default()));
        }
        self.bits = bits;
        Ok(())
    }

    #[inline(always)]
    fn home(&self, k: u128) -> usize {
        let h = (k as u64 ^ (k >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        (h >> (64 - self.bits)) as usize
    }

    /// The value of `k`, inserted as `V::default()` when absent. At most the `keys` of the
    /// last [`KeyTable::reset`] may be inserted.
    #[inline]
    pub(crate) fn entry(&mut self, k: u128) -> (&mut V, bool) {
        let mask = (1usize << self.bits) - 1;
        let mut i = self.home(k);
        loop {
            let key = self.slots[i].0;
            if key == k {
                return (&mut self.slots[i].1, false);
            }
            if key == 0 {
                self.slots[i].0 = k;
                self.used.push(i as u32);
                return (&mut self.slots[i].1, true);
            }
            i = (i + 1) & mask;
        }
    }

    /// The value of `k`, when present.
    #[inline]
    pub(crate) fn get_mut(&mut self, k: u128) -> Option<&mut V> {
        let mask = (1usize << self.bits) - 1;
        let mut i = self.home(k);
        loop {
            let key = self.slots[i].0;
            if key == k {
                return Some(&mut self.slots[i].1);
            }
            if key == 0 {
                return None;
            }
            i = (i + 1) & mask;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_loads_equal_keys_from_bytes() {
        let mut text = b"abcdefghijklmnopqrstuvwxyz".to_vec();
        text.extend([0u8; 16]);
        for start in 0..10 {
            for end in start + 1..(start + 16).min(26) {
                assert_eq!(packed_at(&text, start, end), packed_key(&text[start..end]));
            }
        }
    }

    #[test]
    fn a_reset_table_forgets_its_keys() {
        let mut t = KeyTable::<u32>::default();
        let stop = Stop::new();
        t.reset(100, &stop).unwrap();
        for k in 1..=100u128 {
            *t.entry(k << 64).0 += k as u32;
        }
        assert_eq!(t.get_mut(7 << 64).copied(), Some(7));
        assert!(!t.entry(7 << 64).1);
        t.reset(3, &stop).unwrap();
        assert_eq!(t.get_mut(7 << 64), None);
        assert!(t.entry(7 << 64).1);
        assert_eq!(*t.entry(7 << 64).0, 0);
    }
}
