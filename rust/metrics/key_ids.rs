//! Dense ids for integer keys: an open-addressing table that numbers keys 0, 1, 2, … in order
//! of first appearance, the table under every n-gram and token id of [`super::ngrams`].

use super::ngrams::ABSENT;

/// Dense ids for `u64` keys: an open-addressing table (linear probing, Fibonacci hashing)
/// emptied in O(1) by bumping a generation stamp, so clearing it between pairs costs nothing
/// however large it once grew. Faster than a general hash map on the few hundred keys a pair
/// of texts has.
pub struct KeyIds<K = u64> {
    slots: Vec<Slot<K>>,
    generation: u32,
    bits: u32,
    len: u32,
}

/// A key type of [`KeyIds`]: a plain integer, hashed by Fibonacci hashing.
pub trait SlotKey: Copy + Eq + Default {
    /// The top `bits` bits of the key's multiplicative hash.
    fn home(self, bits: u32) -> usize;
}

const FIB: u64 = 0x9E37_79B9_7F4A_7C15;

impl SlotKey for u64 {
    #[inline(always)]
    fn home(self, bits: u32) -> usize {
        (self.wrapping_mul(FIB) >> (64 - bits)) as usize
    }
}

impl SlotKey for u128 {
    #[inline(always)]
    fn home(self, bits: u32) -> usize {
        let folded = (self as u64).wrapping_mul(FIB) ^ ((self >> 64) as u64);
        (folded.wrapping_mul(FIB) >> (64 - bits)) as usize
    }
}

#[derive(Clone, Copy, Default)]
struct Slot<K> {
    key: K,
    id: u32,
    generation: u32,
}

impl<K: SlotKey> Default for KeyIds<K> {
    fn default() -> Self {
        KeyIds {
            slots: vec![Slot::default(); 64],
            generation: 1,
            bits: 6,
            len: 0,
        }
    }
}

impl<K: SlotKey> KeyIds<K> {
    /// Forget every key.
    pub fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Stamps wrapped around: old ones could look current again.
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    /// How many keys have ids.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    #[inline(always)]
    fn home(&self, key: K) -> usize {
        key.home(self.bits)
    }

    /// The id of `key`, a new one (the next integer) if it has none.
    #[inline]
    pub fn intern(&mut self, key: K) -> u32 {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let slot = &mut self.slots[i];
            if slot.generation != self.generation {
                let id = self.len;
                *slot = Slot {
                    key,
                    id,
                    generation: self.generation,
                };
                self.len += 1;
                if self.len as usize * 4 > self.slots.len() {
                    self.grow();
                }
                return id;
            }
            if slot.key == key {
                return slot.id;
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `key`, or [`ABSENT`].
    #[inline]
    pub fn get(&self, key: K) -> u32 {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let slot = &self.slots[i];
            if slot.generation != self.generation {
                return ABSENT;
            }
            if slot.key == key {
                return slot.id;
            }
            i = (i + 1) & mask;
        }
    }

    /// The id of `key`, or `next()` given to it if it has none; `next` is called at most once.
    #[inline]
    pub fn intern_with(&mut self, key: K, next: impl FnOnce() -> u32) -> u32 {
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            let slot = &mut self.slots[i];
            if slot.generation != self.generation {
                let id = next();
                *slot = Slot {
                    key,
                    id,
                    generation: self.generation,
                };
                self.len += 1;
                if self.len as usize * 4 > self.slots.len() {
                    self.grow();
                }
                return id;
            }
            if slot.key == key {
                return slot.id;
            }
            i = (i + 1) & mask;
        }
    }

    fn grow(&mut self) {
        let old = std::mem::take(&mut self.slots);
        let live = self.generation;
        self.bits += 1;
        self.slots = vec![Slot::default(); 1 << self.bits];
        self.generation = 1;
        let mask = self.slots.len() - 1;
        for slot in old.into_iter().filter(|s| s.generation == live) {
            let mut i = self.home(slot.key);
            while self.slots[i].generation == 1 {
                i = (i + 1) & mask;
            }
            self.slots[i] = Slot {
                generation: 1,
                ..slot
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_ids_grow_and_clear() {
        let mut t = KeyIds::<u64>::default();
        for round in 0..3u64 {
            for k in 0..5000u64 {
                assert_eq!(t.intern(k * 7919 + round), k as u32);
            }
            for k in 0..5000u64 {
                assert_eq!(t.get(k * 7919 + round), k as u32);
                assert_eq!(t.intern(k * 7919 + round), k as u32);
            }
            assert_eq!(t.get(u64::MAX), ABSENT);
            assert_eq!(t.len(), 5000);
            t.clear();
            assert!(t.is_empty());
            assert_eq!(t.get(round), ABSENT);
        }
        // The generation stamp wrapping around empties the table for real.
        t.generation = u32::MAX;
        t.intern(42);
        t.clear();
        assert_eq!(t.get(42), ABSENT);
    }
}
