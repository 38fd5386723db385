//! Dense ids for n-grams, built one order at a time: the id of an n-gram is the id of the pair
//! (its first n − 1 units as an (n−1)-gram id, its last unit id). Each order numbers its
//! n-grams 0, 1, 2, … in order of first appearance, so per-order counts fit in plain vectors.
//!
//! Texts on the "reference" side are interned (new n-grams get new ids); texts on the other side
//! are only looked up, an n-gram the references never had being [`ABSENT`] (and so is every
//! longer n-gram that contains it).

use rustc_hash::FxHashMap;

use super::halt::{Context, Run, CHECK_EVERY};
pub use super::key_table::{KeyIds, ABSENT};
use super::text::TokenKey;

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

    /// The id of the token whose packed key is `key` (a token of at most 15 bytes), a new one
    /// if it has none: [`TokenIds::intern`] of `TokenKey::Packed(key)`, inlined.
    #[inline(always)]
    pub fn intern_packed(&mut self, key: u128) -> u32 {
        let next = self.len() as u32;
        self.packed.intern_with(key, || next)
    }

    /// The id of `key`, a new one if it has none; a long key is copied only when new.
    #[inline]
    pub fn intern_ref(&mut self, key: &TokenKey) -> u32 {
        let next = self.len() as u32;
        match key {
            TokenKey::Packed(k) => self.packed.intern_with(*k, || next),
            TokenKey::Long(cps) => match self.long.get(cps) {
                Some(&id) => id,
                None => *self.long.entry(cps.clone()).or_insert(next),
            },
        }
    }

    /// The id of the token whose packed key is `key`, or [`ABSENT`]: [`TokenIds::get`] of
    /// `TokenKey::Packed(key)`, inlined.
    #[inline(always)]
    pub fn get_packed(&self, key: u128) -> u32 {
        self.packed.id(key)
    }

    /// The id of `key`, or [`ABSENT`].
    #[inline]
    pub fn get(&self, key: &TokenKey) -> u32 {
        match key {
            TokenKey::Packed(k) => self.packed.id(*k),
            TokenKey::Long(cps) => self.long.get(cps).copied().unwrap_or(ABSENT),
        }
    }

    /// The ids of `keys` appended to `ids`: interned when `insert` (and `keys` emptied), else
    /// looked up. `stop` is polled every [`CHECK_EVERY`] tokens.
    pub fn ids_polling(
        &mut self,
        keys: &mut Vec<TokenKey>,
        insert: bool,
        ids: &mut Vec<u32>,
        stop: &Context,
    ) -> Run<()> {
        if !insert {
            for part in keys.chunks(CHECK_EVERY) {
                stop.check()?;
                ids.extend(part.iter().map(|k| self.get(k)));
            }
            return Ok(());
        }
        if keys.len() <= CHECK_EVERY {
            stop.check()?;
            ids.extend(keys.drain(..).map(|k| self.intern(k)));
            return Ok(());
        }
        let mut drained = keys.drain(..);
        loop {
            stop.check()?;
            let before = ids.len();
            ids.extend(drained.by_ref().take(CHECK_EVERY).map(|k| self.intern(k)));
            if ids.len() - before < CHECK_EVERY {
                return Ok(());
            }
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
        stop: &Context,
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
                        map.id((p as u64) << 32 | u as u64)
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

        let (mut ng, go) = (NgramIds::default(), Context::new());
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
    fn a_raised_stop_halts_next_order_and_numbering() {
        let (units, stop) = (vec![1; 2 * CHECK_EVERY], Context::new());
        stop.raise();
        let (mut ng, mut out) = (NgramIds::default(), vec![1]);
        let got = ng.next_order(2, &units, &units, true, &mut out, &stop);
        assert_eq!(
            (got, out.len()),
            (Err(crate::metrics::halt::Halt::Stopped), 0)
        );
        let mut keys = vec![TokenKey::of_ascii(b"a"); 2 * CHECK_EVERY];
        let mut t = TokenIds::default();
        for insert in [false, true] {
            let got = t.ids_polling(&mut keys, insert, &mut out, &stop);
            assert_eq!(
                (got, out.len()),
                (Err(crate::metrics::halt::Halt::Stopped), 0)
            );
        }
        keys.resize(2 * CHECK_EVERY, TokenKey::of_ascii(b"a"));
        t.ids_polling(&mut keys, true, &mut out, &Context::new())
            .unwrap();
        assert_eq!((out.len(), t.len(), keys.len()), (2 * CHECK_EVERY, 1, 0));
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
        assert_eq!(t.intern_ref(&long), 0);
        assert_eq!(t.intern_ref(&TokenKey::of_ascii(b"x")), 1);
        assert_eq!(t.intern_ref(&long), 0);
    }

    #[test]
    fn counting_and_clipping() {
        let mut c = Vec::new();
        count_into(&[2, 0, 2, ABSENT], &mut c);
        assert_eq!(c, vec![1, 0, 2]);
        assert_eq!(clipped_matches(&[1, 0, 2], &[3, 1, 1]), 2);
    }
}
