//! Packed token keys, as [`super::super::key_table::KeyTable`] takes them.
//!
//! A token of up to 15 bytes is one integer: its bytes little-endian, its length in the top
//! byte, so no two tokens share a key. The layout is
//! [`TokenKey::of_ascii`](crate::metrics::text::TokenKey::of_ascii)'s.

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
}
