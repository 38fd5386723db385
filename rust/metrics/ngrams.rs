//! Dense ids for n-grams, built one order at a time: the id of an n-gram is the id of the pair
//! (its first n − 1 units as an (n−1)-gram id, its last unit id). Each order numbers its
//! n-grams 0, 1, 2, … in order of first appearance, so per-order counts fit in plain vectors.
//!
//! Texts on the "reference" side are interned (new n-grams get new ids); texts on the other side
//! are only looked up, an n-gram the references never had being [`ABSENT`] (and so is every
//! longer n-gram that contains it).

use rustc_hash::FxHashMap;

/// The id of an n-gram that was looked up and not found.
pub const ABSENT: u32 = u32::MAX;

/// Dense ids for units (tokens, characters) of any hashable kind.
pub struct UnitIds<K> {
    ids: FxHashMap<K, u32>,
}

impl<K> Default for UnitIds<K> {
    fn default() -> Self {
        UnitIds {
            ids: FxHashMap::default(),
        }
    }
}

impl<K: std::hash::Hash + Eq> UnitIds<K> {
    pub fn clear(&mut self) {
        self.ids.clear();
    }

    /// How many distinct units have ids.
    pub fn len(&self) -> usize {
        self.ids.len()
    }

    pub fn is_empty(&self) -> bool {
        self.ids.is_empty()
    }

    /// The id of `key`, a new one if it has none.
    #[inline]
    pub fn intern(&mut self, key: K) -> u32 {
        let next = self.ids.len() as u32;
        *self.ids.entry(key).or_insert(next)
    }

    /// The id of `key`, or [`ABSENT`].
    #[inline]
    pub fn get(&self, key: &K) -> u32 {
        self.ids.get(key).copied().unwrap_or(ABSENT)
    }
}

/// Ids of n-grams of order 2 and up (order 1 is the unit ids themselves).
#[derive(Default)]
pub struct NgramIds {
    orders: Vec<FxHashMap<u64, u32>>,
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
    /// With `insert`, unseen n-grams get new ids; without, they are [`ABSENT`].
    pub fn next_order(
        &mut self,
        n: usize,
        prev: &[u32],
        units: &[u32],
        insert: bool,
        out: &mut Vec<u32>,
    ) {
        out.clear();
        if units.len() < n {
            return;
        }
        while self.orders.len() < n - 1 {
            self.orders.push(FxHashMap::default());
        }
        let map = &mut self.orders[n - 2];
        let count = units.len() + 1 - n;
        out.reserve(count);
        for i in 0..count {
            let (p, u) = (prev[i], units[i + n - 1]);
            if p == ABSENT || u == ABSENT {
                out.push(ABSENT);
                continue;
            }
            let key = (p as u64) << 32 | u as u64;
            out.push(if insert {
                let next = map.len() as u32;
                *map.entry(key).or_insert(next)
            } else {
                map.get(&key).copied().unwrap_or(ABSENT)
            });
        }
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
        let mut units = UnitIds::default();
        let a: Vec<u32> = "a b a b c"
            .split(' ')
            .map(|w| units.intern(w.to_string()))
            .collect();
        assert_eq!(a, vec![0, 1, 0, 1, 2]);
        let b: Vec<u32> = "a b d"
            .split(' ')
            .map(|w| units.get(&w.to_string()))
            .collect();
        assert_eq!(b, vec![0, 1, ABSENT]);

        let mut ng = NgramIds::default();
        let (mut a2, mut a3, mut b2, mut b3) = (vec![], vec![], vec![], vec![]);
        ng.next_order(2, &a, &a, true, &mut a2);
        assert_eq!(a2, vec![0, 1, 0, 2]); // ab ba ab bc
        ng.next_order(3, &a2, &a, true, &mut a3);
        assert_eq!(a3, vec![0, 1, 2]); // aba bab abc
        assert_eq!(ng.len(2), 3);
        ng.next_order(2, &b, &b, false, &mut b2);
        assert_eq!(b2, vec![0, ABSENT]);
        ng.next_order(3, &b2, &b, false, &mut b3);
        assert_eq!(b3, vec![ABSENT]);
        let mut b4 = vec![7];
        ng.next_order(4, &b3, &b, false, &mut b4);
        assert!(b4.is_empty(), "a 3-unit text has no 4-grams");
    }

    #[test]
    fn counting_and_clipping() {
        let mut c = Vec::new();
        count_into(&[2, 0, 2, ABSENT], &mut c);
        assert_eq!(c, vec![1, 0, 2]);
        assert_eq!(clipped_matches(&[1, 0, 2], &[3, 1, 1]), 2);
    }
}
