//! Token multisets and the size of their intersection.

use crate::metrics::text::push_utf8;
use crate::metrics::tokens::packed::packed_key;

/// A multiset of tokens keyed by their UTF-8 bytes: up to 15 bytes packed into an integer
/// ([`packed_key`]), longer ones boxed.
#[derive(Default)]
pub(super) struct TokenBag {
    pub(super) packed: Vec<u128>,
    pub(super) long: Vec<Box<[u8]>>,
}

impl TokenBag {
    pub(super) fn clear(&mut self) {
        self.packed.clear();
        self.long.clear();
    }

    #[cfg(test)]
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
}

/// Size of the multiset intersection of two sorted lists.
pub(super) fn common_count<T: Ord>(a: &[T], b: &[T]) -> usize {
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
