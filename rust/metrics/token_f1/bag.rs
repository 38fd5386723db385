//! Token multisets and the size of their intersection.

use crate::metrics::halt::{Run, Stop};
use crate::metrics::text::push_utf8;

/// Keys counted between two polls of the stop flag (about 1 MiB of text's worth).
const KEYS_PER_CHECK: usize = 1 << 17;

/// Hash table slots zeroed between two polls of the stop flag (1 MiB of table).
const SLOTS_PER_CHECK: usize = 1 << 15;

/// A multiset of tokens keyed by their UTF-8 bytes: up to 15 bytes packed into an integer (the
/// bytes little-endian, the length in the top byte, so no two tokens share a key and no key
/// is 0), longer ones boxed.
#[derive(Default)]
pub(super) struct TokenBag {
    pub(super) packed: Vec<u128>,
    pub(super) long: Vec<Box<[u8]>>,
}

/// The packed key of a token of at most 15 bytes.
#[inline]
pub(super) fn packed_key(bytes: &[u8]) -> u128 {
    let mut raw = [0u8; 16];
    raw[..bytes.len()].copy_from_slice(bytes);
    raw[15] = bytes.len() as u8;
    u128::from_le_bytes(raw)
}

impl TokenBag {
    pub(super) fn clear(&mut self) {
        self.packed.clear();
        self.long.clear();
    }

    pub(super) fn len(&self) -> usize {
        self.packed.len() + self.long.len()
    }

    #[inline]
    pub(super) fn push(&mut self, bytes: &[u8]) {
        if bytes.len() <= 15 {
            self.packed.push(packed_key(bytes));
        } else {
            self.long.push(bytes.into());
        }
    }

    /// Push a token given as code points.
    pub(super) fn push_code_points(&mut self, cps: &[u32], utf8: &mut Vec<u8>) {
        utf8.clear();
        for &c in cps {
            push_utf8(c, utf8);
        }
        self.push(utf8);
    }

    /// Size of the multiset intersection with `other`: packed keys through a small hash table
    /// of counts (0 marks an empty slot), long keys by merging sorted lists. `stop` is polled
    /// every 2^17 keys.
    pub(super) fn common(
        &mut self,
        other: &mut TokenBag,
        table: &mut Vec<(u128, u32)>,
        stop: &Stop,
    ) -> Run<usize> {
        let bits = (2 * self.packed.len())
            .max(16)
            .next_power_of_two()
            .trailing_zeros();
        // The table can reach a gigabyte: zeroed 1 MiB at a time, polling `stop` in between.
        table.clear();
        let slots = 1usize << bits;
        table.reserve(slots);
        while table.len() < slots {
            stop.check()?;
            let more = (slots - table.len()).min(SLOTS_PER_CHECK);
            table.resize(table.len() + more, (0, 0));
        }
        let mask = (1usize << bits) - 1;
        let slot_of = |k: u128| {
            let h = (k as u64 ^ (k >> 64) as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
            (h >> (64 - bits)) as usize
        };
        for (n, &k) in self.packed.iter().enumerate() {
            if n % KEYS_PER_CHECK == 0 {
                stop.check()?;
            }
            let mut i = slot_of(k);
            loop {
                let slot = &mut table[i];
                if slot.0 == k || slot.0 == 0 {
                    *slot = (k, slot.1 + 1);
                    break;
                }
                i = (i + 1) & mask;
            }
        }
        let mut same = 0;
        for (n, &k) in other.packed.iter().enumerate() {
            if n % KEYS_PER_CHECK == 0 {
                stop.check()?;
            }
            let mut i = slot_of(k);
            loop {
                let slot = &mut table[i];
                if slot.0 == k {
                    if slot.1 > 0 {
                        slot.1 -= 1;
                        same += 1;
                    }
                    break;
                }
                if slot.0 == 0 {
                    break;
                }
                i = (i + 1) & mask;
            }
        }
        if !self.long.is_empty() && !other.long.is_empty() {
            stop.check()?;
            self.long.sort_unstable();
            stop.check()?;
            other.long.sort_unstable();
            stop.check()?;
            same += common_count(&self.long, &other.long);
        }
        Ok(same)
    }
}

/// Size of the multiset intersection of two sorted lists.
fn common_count<T: Ord>(a: &[T], b: &[T]) -> usize {
    let (mut i, mut j, mut same) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                same += 1;
                i += 1;
                j += 1;
            }
        }
    }
    same
}
