//! Dense ids for n-grams, built one order at a time: the id of an n-gram is the id of the pair
//! (its first n − 1 units as an (n−1)-gram id, its last unit id). Each order numbers its
//! n-grams 0, 1, 2, … in order of first appearance, so per-order counts fit in plain vectors.
//!
//! Texts on the "reference" side are interned (new n-grams get new ids); texts on the other side
//! are only looked up, an n-gram the references never had being [`ABSENT`] (and so is every
//! longer n-gram that contains it).

use rustc_hash::FxHashMap;

use super::halt::{Run, Stop, CHECK_EVERY};
use super::text::TokenKey;

/// The id of an n-gram that was looked up and not found.
pub const ABSENT: u32 = u32::MAX;

/// Dense ids for tokens: short tokens (packed keys) in a [`KeyIds`], long ones in a hash map,
/// numbered together 0, 1, 2, … in order of first appearance.
#[derive(Default)]
pub struct TokenIds {
    packed: KeyIds<u128>,
    long: FxHashMap<Box<[u32]>, u32>,
}

impl TokenIds {
    pub fn clear(&mut self) {
        self.packed.clear();
        self.long.clear();
    }

    /// How many distinct tokens have ids.
    pub fn len(&self) -> usize {
        self.packed.len() + self.long.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The id of `key`, a new one if it has none.
    #[inline]
    pub fn intern(&mut self, key: TokenKey) -> u32 {
        let next = self.len() as u32;
        match key {
            TokenKey::Packed(k) => self.packed.intern_with(k, || next),
            TokenKey::Long(cps) => *self.long.entry(cps).or_insert(next),
        }
    }

    /// The id of `key`, or [`ABSENT`].
    #[inline]
    pub fn get(&self, key: &TokenKey) -> u32 {
        match key {
            TokenKey::Packed(k) => self.packed.get(*k),
            TokenKey::Long(cps) => self.long.get(cps).copied().unwrap_or(ABSENT),
        }
    }
}

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

/// Ids of n-grams of order 2 and up (order 1 is the unit ids themselves).
#[derive(Default)]
pub struct NgramIds {
    orders: Vec<KeyIds>,
}

impl NgramIds {
    /// Forget every id (keeps the allocations).
    pub fn clear(&mut self) {
        for m in &mut self.orders {
            m.clear();
        }
    }

    /// How many distinct n-grams of order `n` (≥ 2) have ids.
    pub fn len(&self, n: usize) -> usize {
        self.orders.get(n - 2).map_or(0, |m| m.len())
    }

    /// The ids of the n-grams of order `n` (≥ 2) of a sequence, into `out`: `prev` holds the
    /// ids of its (n−1)-grams and `units` its unit ids (so `prev.len() == units.len() − n + 2`).
    /// With `insert`, unseen n-grams get new ids; without, they are [`ABSENT`]. `stop` is
    /// polled every [`CHECK_EVERY`] n-grams.
    pub fn next_order(
        &mut self,
        n: usize,
        prev: &[u32],
        units: &[u32],
        insert: bool,
        out: &mut Vec<u32>,
        stop: &Stop,
    ) -> Run<()> {
        out.clear();
        if units.len() < n {
            return Ok(());
        }
        while self.orders.len() < n - 1 {
            self.orders.push(KeyIds::default());
        }
        let map = &mut self.orders[n - 2];
        let count = units.len() + 1 - n;
        out.reserve(count);
        let (prev, last) = (&prev[..count], &units[n - 1..]);
        for (prev, last) in prev.chunks(CHECK_EVERY).zip(last.chunks(CHECK_EVERY)) {
            stop.check()?;
            if insert {
                out.extend(
                    prev.iter()
                        .zip(last)
                        .map(|(&p, &u)| map.intern((p as u64) << 32 | u as u64)),
                );
            } else {
                out.extend(prev.iter().zip(last).map(|(&p, &u)| {
                    if p == ABSENT || u == ABSENT {
                        ABSENT
                    } else {
                        map.get((p as u64) << 32 | u as u64)
                    }
                }));
            }
        }
        Ok(())
    }
}

/// Add one to `counts[id]` for every id that is not [`ABSENT`], growing `counts` as needed.
#[inline]
pub fn count_into(ids: &[u32], counts: &mut Vec<u32>) {
    for &id in ids {
        if id != ABSENT {
            let i = id as usize;
            if i >= counts.len() {
                counts.resize(i + 1, 0);
            }
            counts[i] += 1;
        }
    }
}

/// Σ min(a[i], b[i]): the size of the multiset intersection of two count vectors.
#[inline]
pub fn clipped_matches(a: &[u32], b: &[u32]) -> u64 {
    a.iter().zip(b).map(|(&x, &y)| x.min(y) as u64).sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_follow_first_appearance_and_lookups_stay_absent() {
        let mut units = TokenIds::default();
        let key = |w: &str| TokenKey::of_ascii(w.as_bytes());
        let a: Vec<u32> = "a b a b c"
            .split(' ')
            .map(|w| units.intern(key(w)))
            .collect();
        assert_eq!(a, vec![0, 1, 0, 1, 2]);
        let b: Vec<u32> = "a b d".split(' ').map(|w| units.get(&key(w))).collect();
        assert_eq!(b, vec![0, 1, ABSENT]);

        let (mut ng, go) = (NgramIds::default(), Stop::new());
        let (mut a2, mut a3, mut b2, mut b3) = (vec![], vec![], vec![], vec![]);
        ng.next_order(2, &a, &a, true, &mut a2, &go).unwrap();
        assert_eq!(a2, vec![0, 1, 0, 2]); // ab ba ab bc
        ng.next_order(3, &a2, &a, true, &mut a3, &go).unwrap();
        assert_eq!(a3, vec![0, 1, 2]); // aba bab abc
        assert_eq!(ng.len(2), 3);
        ng.next_order(2, &b, &b, false, &mut b2, &go).unwrap();
        assert_eq!(b2, vec![0, ABSENT]);
        ng.next_order(3, &b2, &b, false, &mut b3, &go).unwrap();
        assert_eq!(b3, vec![ABSENT]);
        let mut b4 = vec![7];
        ng.next_order(4, &b3, &b, false, &mut b4, &go).unwrap();
        assert!(b4.is_empty(), "a 3-unit text has no 4-grams");
    }

    #[test]
    fn a_raised_stop_halts_next_order() {
        let units: Vec<u32> = (0..2 * CHECK_EVERY as u32).map(|i| i % 5).collect();
        let (mut ng, mut out, stop) = (NgramIds::default(), vec![1], Stop::new());
        stop.raise();
        let got = ng.next_order(2, &units, &units, true, &mut out, &stop);
        assert_eq!(got, Err(crate::metrics::halt::Halt::Stopped));
        assert!(out.is_empty());
        ng.next_order(2, &units, &units, true, &mut out, &Stop::new())
            .unwrap();
        assert_eq!(out.len(), units.len() - 1);
        assert_eq!(ng.len(2), 5);
    }

    #[test]
    fn token_ids_number_short_and_long_tokens_together() {
        let mut t = TokenIds::default();
        let long = TokenKey::of(&[0x61; 40]);
        assert_eq!(t.intern(TokenKey::of_ascii(b"x")), 0);
        assert_eq!(t.intern(long.clone()), 1);
        assert_eq!(t.intern(TokenKey::of(&[0x1F600])), 2);
        assert_eq!(t.get(&long), 1);
        assert_eq!(t.get(&TokenKey::of_ascii(b"y")), ABSENT);
        assert_eq!(t.len(), 3);
        t.clear();
        assert_eq!(t.get(&long), ABSENT);
        let mut k = KeyIds::<u128>::default();
        for i in 0..3000u128 {
            assert_eq!(k.intern(i << 100 | i), i as u32);
        }
        assert_eq!(k.get(5 << 100 | 5), 5);
    }

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

    #[test]
    fn counting_and_clipping() {
        let mut c = Vec::new();
        count_into(&[2, 0, 2, ABSENT], &mut c);
        assert_eq!(c, vec![1, 0, 2]);
        assert_eq!(clipped_matches(&[1, 0, 2], &[3, 1, 1]), 2);
    }
}
