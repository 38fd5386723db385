//! The one open-addressing table under every token and n-gram count of the text metrics:
//! ROUGE-L and token F1 key their tokens through it, and the n-gram metrics (ROUGE-N, BLEU,
//! chrF) number their tokens, characters and n-grams with it.
//!
//! Linear probing with Fibonacci hashing, at most half full. Each slot carries the generation
//! stamp of the table when it was written, so emptying the table is one increment however
//! large it once grew: scoring many short pairs costs no clearing.

use super::halt::{Context, OutOfMemory, Run, TryVec};

/// The id of a key that was looked up and not found.
pub const ABSENT: u32 = u32::MAX;

/// Slots made ready between two polls of the stop flag when a table is sized for a huge text.
const SLOTS_PER_CHECK: usize = 1 << 15;

const FIB: u64 = 0x9E37_79B9_7F4A_7C15;

/// A key type of [`KeyTable`]: a plain integer, hashed by Fibonacci hashing.
pub trait SlotKey: Copy + Eq + Default {
    /// The top `bits` bits of the key's multiplicative hash.
    fn home(self, bits: u32) -> usize;
}

impl SlotKey for u64 {
    #[inline(always)]
    fn home(self, bits: u32) -> usize {
        (self.wrapping_mul(FIB) >> (64 - bits)) as usize
    }
}

impl SlotKey for u128 {
    #[inline(always)]
    fn home(self, bits: u32) -> usize {
        let folded = self as u64 ^ (self >> 64) as u64;
        (folded.wrapping_mul(FIB) >> (64 - bits)) as usize
    }
}

#[derive(Clone, Copy, Default)]
struct Slot<K, V> {
    key: K,
    value: V,
    generation: u32,
}

/// Keys of type `K`, each with a value `V`.
pub struct KeyTable<K, V> {
    slots: Vec<Slot<K, V>>,
    generation: u32,
    bits: u32,
    len: u32,
}

/// Dense ids for keys: [`KeyTable::intern`] numbers them 0, 1, 2, … in order of first
/// appearance.
pub type KeyIds<K = u64> = KeyTable<K, u32>;

const FIRST_BITS: u32 = 6;

impl<K: SlotKey, V: Copy + Default> Default for KeyTable<K, V> {
    fn default() -> Self {
        KeyTable {
            slots: vec![Slot::default(); 1 << FIRST_BITS],
            generation: 1,
            bits: FIRST_BITS,
            len: 0,
        }
    }
}

impl<K: SlotKey, V: Copy + Default> KeyTable<K, V> {
    /// Forget every key, in O(1).
    pub fn clear(&mut self) {
        self.len = 0;
        self.generation = self.generation.wrapping_add(1);
        if self.generation == 0 {
            // Stamps wrapped around: old ones could look current again.
            self.slots.fill(Slot::default());
            self.generation = 1;
        }
    }

    /// Forget every key and make room for `keys` of them, so that inserting up to `keys` never
    /// grows the table. The slots of a table that has to grow are made ready 1 MiB or so at a
    /// time, polling `stop` in between; memory that cannot be had is an error, not an abort.
    pub fn reset(&mut self, keys: usize, stop: &Context) -> Run<()> {
        self.clear();
        let bits = keys
            .saturating_mul(2)
            .max(1 << FIRST_BITS)
            .next_power_of_two()
            .trailing_zeros();
        let want = 1usize << bits;
        if want > self.slots.len() {
            self.slots.try_capacity(want, "a token table")?;
            while self.slots.len() < want {
                stop.check()?;
                let more = (want - self.slots.len()).min(SLOTS_PER_CHECK);
                // Generation 0 is never current: the new slots are empty.
                self.slots.resize(self.slots.len() + more, Slot::default());
            }
        }
        // A small text after a large one probes a small, cache-warm part of the slots.
        self.bits = bits;
        Ok(())
    }

    /// How many keys the table holds.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The slots in use: `1 << bits` (the vector may hold more, from a larger earlier text).
    #[inline(always)]
    fn capacity(&self) -> usize {
        1 << self.bits
    }

    #[inline(always)]
    fn mask(&self) -> usize {
        self.capacity() - 1
    }

    /// The value of `key`, inserted as `V::default()` when absent (then `true`). Inlined into
    /// each token loop; growing is out of line.
    #[inline(always)]
    pub fn entry(&mut self, key: K) -> (&mut V, bool) {
        let mut i = key.home(self.bits);
        loop {
            let slot = self.slots[i];
            if slot.generation != self.generation {
                if (self.len as usize + 1) * 2 > self.capacity() {
                    self.grow();
                    i = key.home(self.bits);
                    continue;
                }
                self.len += 1;
                self.slots[i] = Slot {
                    key,
                    value: V::default(),
                    generation: self.generation,
                };
                return (&mut self.slots[i].value, true);
            }
            if slot.key == key {
                return (&mut self.slots[i].value, false);
            }
            i = (i + 1) & self.mask();
        }
    }

    #[inline(always)]
    fn find(&self, key: K) -> Option<usize> {
        let mut i = key.home(self.bits);
        loop {
            let slot = &self.slots[i];
            if slot.generation != self.generation {
                return None;
            }
            if slot.key == key {
                return Some(i);
            }
            i = (i + 1) & self.mask();
        }
    }

    /// The value of `key`, when present.
    #[inline]
    pub fn get(&self, key: K) -> Option<&V> {
        self.find(key).map(|i| &self.slots[i].value)
    }

    /// The value of `key`, when present, to change.
    #[inline]
    pub fn get_mut(&mut self, key: K) -> Option<&mut V> {
        self.find(key).map(|i| &mut self.slots[i].value)
    }

    /// [`entry`](Self::entry), except that a table which must grow and cannot have the memory
    /// gives an error instead of aborting the process: for tables as large as their input.
    #[inline]
    pub fn try_entry(&mut self, key: K) -> Result<(&mut V, bool), OutOfMemory> {
        if (self.len as usize + 1) * 2 > self.capacity() {
            let mut slots = Vec::new();
            slots.try_resize(1 << (self.bits + 1), Slot::default(), "a token table")?;
            self.rehash_into(slots);
        }
        Ok(self.entry(key))
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        self.rehash_into(vec![Slot::default(); 1 << (self.bits + 1)]);
    }

    /// Move every live key into `slots`, twice the slots in use.
    #[cold]
    fn rehash_into(&mut self, slots: Vec<Slot<K, V>>) {
        let old = std::mem::replace(&mut self.slots, slots);
        let live = self.generation;
        self.bits += 1;
        self.generation = 1;
        let mask = self.mask();
        for slot in old.into_iter().filter(|s| s.generation == live) {
            let mut i = slot.key.home(self.bits);
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

impl<K: SlotKey> KeyTable<K, u32> {
    /// The slot that holds `key`, or the empty slot where it would go. The probe loop's test
    /// is one branch, taken only on a collision; whether the key was found is left to the
    /// caller, to use without a branch.
    #[inline(always)]
    fn slot_of(&self, key: K) -> usize {
        let mut i = key.home(self.bits);
        loop {
            let slot = &self.slots[i];
            if (slot.generation != self.generation) | (slot.key == key) {
                return i;
            }
            i = (i + 1) & self.mask();
        }
    }

    /// Make room for one more key, growing the table if it must; memory that cannot be had is
    /// an error, not an abort. [`add_one`](Self::add_one) after it never grows the table.
    #[inline]
    pub fn try_room(&mut self) -> Result<(), OutOfMemory> {
        if (self.len as usize + 1) * 2 > self.capacity() {
            let mut slots = Vec::new();
            slots.try_resize(1 << (self.bits + 1), Slot::default(), "a token table")?;
            self.rehash_into(slots);
        }
        Ok(())
    }

    /// Count one more `key` (a new key counts 1), with no branch on whether it is new: for
    /// counting tokens, where new and seen keys alternate without a pattern.
    #[inline(always)]
    pub fn add_one(&mut self, key: K) {
        if (self.len as usize + 1) * 2 > self.capacity() {
            self.grow();
        }
        let (i, generation) = (self.slot_of(key), self.generation);
        let slot = &mut self.slots[i];
        let new = slot.generation != generation;
        slot.value = if new { 1 } else { slot.value.wrapping_add(1) };
        slot.key = key;
        slot.generation = generation;
        self.len += u32::from(new);
    }

    /// Take one from the count of `key` when it has one left: 1 then, 0 when it has none or
    /// is absent; no branch on which.
    #[inline(always)]
    pub fn take_one(&mut self, key: K) -> u32 {
        let (i, generation) = (self.slot_of(key), self.generation);
        let slot = &mut self.slots[i];
        // An absent key's slot is empty: its value is never read as a count, so taking 0
        // from it changes nothing.
        let take = u32::from((slot.generation == generation) & (slot.value > 0));
        slot.value -= take;
        take
    }

    /// Count one more of each key of `keys`, growing the table as it fills; memory that cannot
    /// be had is an error, not an abort.
    pub fn try_add_all(&mut self, keys: &[K]) -> Result<(), OutOfMemory> {
        self.add_in_chunks(keys, Self::add_fitting)
    }

    /// `add` (which counts keys that fit without growing) over `keys` in chunks that fit with
    /// the table at most half full, growing it between them: no test of its size per key.
    #[inline(always)]
    fn add_in_chunks(
        &mut self,
        keys: &[K],
        add: impl Fn(&mut Self, &[K]),
    ) -> Result<(), OutOfMemory> {
        let mut rest = keys;
        while !rest.is_empty() {
            let room = (self.capacity() / 2).saturating_sub(self.len as usize);
            if room == 0 {
                self.try_room()?;
                continue;
            }
            let (now, later) = rest.split_at(room.min(rest.len()));
            add(self, now);
            rest = later;
        }
        Ok(())
    }

    /// [`add_one`](Self::add_one) for each key, when they fit without growing. The table's
    /// fields are read once into locals, so the loop keeps them in registers.
    #[inline(always)]
    fn add_fitting(&mut self, keys: &[K]) {
        let (bits, generation, mask) = (self.bits, self.generation, self.mask());
        let slots = &mut self.slots[..=mask];
        let mut len = self.len;
        for &key in keys {
            let mut i = key.home(bits);
            while (slots[i].generation == generation) & (slots[i].key != key) {
                i = (i + 1) & mask;
            }
            let slot = &mut slots[i];
            let new = slot.generation != generation;
            slot.value = if new { 1 } else { slot.value.wrapping_add(1) };
            slot.key = key;
            slot.generation = generation;
            len += u32::from(new);
        }
        self.len = len;
    }

    /// [`take_one`](Self::take_one) for each key of `keys`; returns how many were taken.
    pub fn take_all(&mut self, keys: &[K]) -> usize {
        let (bits, generation, mask) = (self.bits, self.generation, self.mask());
        let slots = &mut self.slots[..=mask];
        let mut taken = 0usize;
        for &key in keys {
            let mut i = key.home(bits);
            while (slots[i].generation == generation) & (slots[i].key != key) {
                i = (i + 1) & mask;
            }
            let slot = &mut slots[i];
            let take = u32::from((slot.generation == generation) & (slot.value > 0));
            slot.value -= take;
            taken += take as usize;
        }
        taken
    }

    /// [`try_add_all`](Self::try_add_all) with a probe of one branch per slot
    /// ([`flat_slot`]): for keys that are new or already counted in no pattern, as a text's
    /// tokens are, in a table kept sparse (sized by [`reset`](Self::reset) for more keys than
    /// it will hold) so that a collision is rare.
    pub fn try_add_all_flat(&mut self, keys: &[K]) -> Result<(), OutOfMemory> {
        self.add_in_chunks(keys, Self::add_fitting_flat)
    }

    /// [`add_fitting`](Self::add_fitting) with the one-branch probe ([`flat_slot`]).
    #[inline(always)]
    fn add_fitting_flat(&mut self, keys: &[K]) {
        let (bits, generation, mask) = (self.bits, self.generation, self.mask());
        let slots = &mut self.slots[..=mask];
        let mut len = self.len;
        for &key in keys {
            let slot = &mut slots[flat_slot(slots, key, bits, generation, mask)];
            let live = u32::from(slot.generation == generation);
            // 1 for a new key, one more for a counted one: no branch on which.
            slot.value = (slot.value & live.wrapping_neg()) + 1;
            slot.key = key;
            slot.generation = generation;
            len += 1 - live;
        }
        self.len = len;
    }

    /// [`take_all`](Self::take_all) with the one-branch probe of
    /// [`try_add_all_flat`](Self::try_add_all_flat); returns how many were taken.
    pub fn take_all_flat(&mut self, keys: &[K]) -> usize {
        let (bits, generation, mask) = (self.bits, self.generation, self.mask());
        let slots = &mut self.slots[..=mask];
        let mut taken = 0usize;
        for &key in keys {
            let slot = &mut slots[flat_slot(slots, key, bits, generation, mask)];
            let take = u32::from((slot.generation == generation) & (slot.value > 0));
            slot.value -= take;
            taken += take as usize;
        }
        taken
    }

    /// The ids of `keys` as [`intern`](Self::intern) gives them, appended to `out`, growing
    /// the table as it fills.
    pub fn intern_all(&mut self, keys: &[K], out: &mut Vec<u32>) {
        let mut rest = keys;
        while !rest.is_empty() {
            let room = (self.capacity() / 2).saturating_sub(self.len as usize);
            if room == 0 {
                self.grow();
                continue;
            }
            let (now, later) = rest.split_at(room.min(rest.len()));
            let (bits, generation, mask) = (self.bits, self.generation, self.mask());
            let slots = &mut self.slots[..=mask];
            let mut len = self.len;
            out.extend(now.iter().map(|&key| {
                let mut i = key.home(bits);
                while (slots[i].generation == generation) & (slots[i].key != key) {
                    i = (i + 1) & mask;
                }
                let slot = &mut slots[i];
                let new = slot.generation != generation;
                slot.value = if new { len } else { slot.value };
                slot.key = key;
                slot.generation = generation;
                len += u32::from(new);
                slot.value
            }));
            self.len = len;
            rest = later;
        }
    }

    /// The id of each key of `keys`, or `absent` for a key with none, appended to `out`.
    pub fn ids_or_into(&self, keys: &[K], absent: u32, out: &mut Vec<u32>) {
        let (bits, generation, mask) = (self.bits, self.generation, self.mask());
        let slots = &self.slots[..=mask];
        out.extend(keys.iter().map(|&key| {
            let mut i = key.home(bits);
            while (slots[i].generation == generation) & (slots[i].key != key) {
                i = (i + 1) & mask;
            }
            if slots[i].generation == generation {
                slots[i].value
            } else {
                absent
            }
        }));
    }

    /// [`ids_or_into`](Self::ids_or_into) handing each id to `f` in order instead of
    /// storing it: for a caller that uses each id once, as it comes.
    #[inline(always)]
    pub fn ids_or_each(&self, keys: &[K], absent: u32, mut f: impl FnMut(u32)) {
        let (bits, generation, mask) = (self.bits, self.generation, self.mask());
        let slots = &self.slots[..=mask];
        for &key in keys {
            let mut i = key.home(bits);
            while (slots[i].generation == generation) & (slots[i].key != key) {
                i = (i + 1) & mask;
            }
            f(if slots[i].generation == generation {
                slots[i].value
            } else {
                absent
            });
        }
    }

    /// The id of `key`, a new one (the number of keys before it) if it has none.
    #[inline]
    pub fn intern(&mut self, key: K) -> u32 {
        let next = self.len;
        let (id, new) = self.entry(key);
        if new {
            *id = next;
        }
        *id
    }

    /// The id of `key`, or `next()` given to it if it has none; `next` is called at most once.
    #[inline]
    pub fn intern_with(&mut self, key: K, next: impl FnOnce() -> u32) -> u32 {
        let (id, new) = self.entry(key);
        if new {
            *id = next();
        }
        *id
    }

    /// The id of `key`, or [`ABSENT`].
    #[inline]
    pub fn id(&self, key: K) -> u32 {
        self.get(key).copied().unwrap_or(ABSENT)
    }
}

/// The slot that holds `key`, or the empty slot where it would go. The loop goes on while the
/// slot is live and holds another key, tested as one integer, so that it compiles to one
/// branch taken only on a collision (a test of two conditions becomes two branches, the first
/// as unpredictable as whether the key is there).
#[inline(always)]
fn flat_slot<K: SlotKey>(
    slots: &[Slot<K, u32>],
    key: K,
    bits: u32,
    generation: u32,
    mask: usize,
) -> usize {
    let mut i = key.home(bits);
    while (slots[i].generation ^ generation) | u32::from(slots[i].key == key) == 0 {
        i = (i + 1) & mask;
    }
    i
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn try_entry_grows_as_entry_does() {
        let (mut tried, mut plain) = (KeyTable::<u64, u32>::default(), KeyTable::default());
        for k in 0..20_000u64 {
            *tried.try_entry(k % 7_001).unwrap().0 += 1;
            *plain.entry(k % 7_001).0 += 1;
        }
        assert_eq!((tried.len(), tried.bits), (plain.len(), plain.bits));
        for k in 0..7_001u64 {
            assert_eq!(tried.get(k), plain.get(k));
        }
    }

    #[test]
    fn flat_counts_and_ids_equal_entry() {
        let (mut flat, mut plain) = (KeyTable::<u128, u32>::default(), KeyTable::default());
        let (mut ids, mut want) = (KeyIds::<u128>::default(), KeyIds::<u128>::default());
        let mut state = 0x9E37_79B9_7F4A_7C15u64;
        for round in 0..4 {
            for _ in 0..3_000 {
                state ^= state << 13;
                state ^= state >> 7;
                state ^= state << 17;
                let k = u128::from(state % 700) << 64 | u128::from(state % 7);
                flat.add_one(k);
                *plain.entry(k).0 += 1;
                let mut got = Vec::new();
                ids.intern_all(&[k], &mut got);
                assert_eq!(got, [want.intern(k)]);
            }
            assert_eq!((flat.len(), ids.len()), (plain.len(), want.len()));
            for k in 0..800u128 {
                let k = (k << 64) | (k % 7);
                let mut got = Vec::new();
                ids.ids_or_into(&[k], 7, &mut got);
                assert_eq!(got, [want.get(k).copied().unwrap_or(7)]);
                let left = plain.get(k).copied().unwrap_or(0);
                for _ in 0..left {
                    assert_eq!(flat.take_one(k), 1);
                }
                assert_eq!(flat.take_one(k), 0, "{k} {round}");
            }
            assert!(flat.try_room().is_ok());
            // The batch forms give what the one-key forms give.
            let keys: Vec<u128> = (0..2_000u128)
                .map(|k| ((k * 7 % 900) << 64) | (k % 5))
                .collect();
            let (mut batch, mut one) = (KeyTable::<u128, u32>::default(), KeyTable::default());
            batch.try_add_all(&keys).unwrap();
            keys.iter().for_each(|&k| one.add_one(k));
            let probe: Vec<u128> = (0..3_000u128)
                .map(|k| ((k * 3 % 1000) << 64) | (k % 5))
                .collect();
            let one_taken: u32 = probe.iter().map(|&k| one.take_one(k)).sum();
            assert_eq!(batch.take_all(&probe), one_taken as usize);
            let (mut got, mut by_one) = (Vec::new(), KeyIds::<u128>::default());
            let mut batch_ids = KeyIds::<u128>::default();
            batch_ids.intern_all(&keys, &mut got);
            let expect: Vec<u32> = keys.iter().map(|&k| by_one.intern(k)).collect();
            assert_eq!(got, expect);
            got.clear();
            batch_ids.ids_or_into(&probe, 77_777, &mut got);
            let expect: Vec<u32> = probe
                .iter()
                .map(|&k| by_one.get(k).copied().unwrap_or(77_777))
                .collect();
            assert_eq!(got, expect);
            for t in [&mut flat, &mut plain, &mut ids, &mut want] {
                t.clear();
            }
        }
    }

    #[test]
    fn flat_batch_forms_count_and_take_as_the_batch_forms_do() {
        // Tables sized for fewer keys than they get (so they grow), and for many more; keys
        // that share their low or high half; a table reused across resets.
        let (mut flat, mut batch, stop) = (
            KeyTable::<u128, u32>::default(),
            KeyTable::<u128, u32>::default(),
            Context::new(),
        );
        let mut state = 0x2545_F491_4F6C_DD1Du64;
        let mut next = |m: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % m
        };
        for round in 0..200usize {
            let distinct = 1 + next(300);
            let n = next(600) as usize;
            let gold: Vec<u128> = (0..n)
                .map(|_| {
                    let k = next(distinct);
                    u128::from(k % 13) << 64 | u128::from(k / 13)
                })
                .collect();
            let pred: Vec<u128> = (0..next(600))
                .map(|_| {
                    let k = next(distinct + 40);
                    u128::from(k % 13) << 64 | u128::from(k / 13)
                })
                .collect();
            let sized = [0, n / 4, n * 4][round % 3];
            flat.reset(sized, &stop).unwrap();
            batch.reset(sized, &stop).unwrap();
            for part in gold.chunks(1 + round % 97) {
                flat.try_add_all_flat(part).unwrap();
                batch.try_add_all(part).unwrap();
            }
            assert_eq!(flat.len(), batch.len(), "{round}");
            for part in pred.chunks(1 + round % 89) {
                assert_eq!(flat.take_all_flat(part), batch.take_all(part), "{round}");
            }
            for k in gold.iter().chain(&pred) {
                assert_eq!(flat.get(*k), batch.get(*k), "{round} {k}");
            }
        }
    }

    #[test]
    fn ids_grow_and_clear() {
        let mut t = KeyIds::<u64>::default();
        for round in 0..3u64 {
            for k in 0..5000u64 {
                assert_eq!(t.intern(k * 7919 + round), k as u32);
            }
            for k in 0..5000u64 {
                assert_eq!(t.id(k * 7919 + round), k as u32);
                assert_eq!(t.intern(k * 7919 + round), k as u32);
            }
            assert_eq!(t.id(u64::MAX), ABSENT);
            assert_eq!(t.len(), 5000);
            t.clear();
            assert!(t.is_empty());
            assert_eq!(t.id(round), ABSENT);
        }
        // The generation stamp wrapping around empties the table for real.
        t.generation = u32::MAX;
        t.intern(42);
        t.clear();
        assert_eq!(t.id(42), ABSENT);
        let mut k = KeyIds::<u128>::default();
        for i in 0..3000u128 {
            assert_eq!(k.intern(i << 100 | i), i as u32);
        }
        assert_eq!(k.id(5 << 100 | 5), 5);
    }

    #[test]
    fn a_reset_table_forgets_its_keys_and_holds_what_it_was_sized_for() {
        let mut t = KeyTable::<u128, u32>::default();
        let stop = Context::new();
        t.reset(100, &stop).unwrap();
        let bits = t.bits;
        for k in 1..=100u128 {
            *t.entry(k << 64).0 += k as u32;
        }
        assert_eq!(t.bits, bits, "sized for 100 keys, it did not grow");
        assert_eq!(t.get_mut(7 << 64).copied(), Some(7));
        assert!(!t.entry(7 << 64).1);
        t.reset(3, &stop).unwrap();
        assert_eq!(t.get(7 << 64), None);
        assert!(t.entry(7 << 64).1);
        assert_eq!(*t.entry(7 << 64).0, 0);
        let raised = Context::new();
        raised.raise();
        assert!(
            t.reset(1 << 20, &raised).is_err(),
            "growing polls the stop flag"
        );
    }
}
