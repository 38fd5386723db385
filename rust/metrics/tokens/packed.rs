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

/// The bytes of a token of each length kept from the first 8-byte word of its window.
static LOW: [u64; 16] = {
    let mut t = [u64::MAX; 16];
    let mut len = 0;
    while len < 8 {
        t[len] = (1u64 << (8 * len)) - 1;
        len += 1;
    }
    t
};

/// The bytes of a token of each length kept from the second 8-byte word of its window (never
/// the top byte, where the length goes).
static HIGH: [u64; 16] = {
    let mut t = [0u64; 16];
    let mut len = 9;
    while len < 16 {
        t[len] = (1u64 << (8 * (len - 8))) - 1;
        len += 1;
    }
    t
};

/// The packed key of the token `text[start..end]` (at most 15 bytes) from two 8-byte loads
/// and two table masks; `text` must hold 16 bytes from `start` on.
#[inline(always)]
pub(crate) fn packed_at(text: &[u8], start: usize, end: usize) -> u128 {
    let len = (end - start) & 15;
    let window: &[u8; 16] = text[start..start + 16].try_into().unwrap();
    let (lo, hi) = window.split_at(8);
    let lo = u64::from_le_bytes(lo.try_into().unwrap()) & LOW[len];
    let hi = u64::from_le_bytes(hi.try_into().unwrap()) & HIGH[len] | (len as u64) << 56;
    (hi as u128) << 64 | lo as u128
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
