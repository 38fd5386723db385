//! Unit-cost Levenshtein distance over Unicode code points, through the `rapidfuzz` crate
//! (bit-parallel Myers/Hyyrö), and the similarity 1 − d / max(len).

use rapidfuzz::distance::levenshtein;

use super::text::decode_into;

/// Reusable decode buffers.
#[derive(Default)]
pub struct Scratch {
    a: Vec<u32>,
    b: Vec<u32>,
}

impl Scratch {
    fn load(&mut self, a: &[u8], b: &[u8]) {
        self.a.clear();
        self.b.clear();
        decode_into(a, &mut self.a);
        decode_into(b, &mut self.b);
    }
}

/// Edit distance between the code points of `a` and `b`.
pub fn distance(a: &[u8], b: &[u8], s: &mut Scratch) -> usize {
    if a == b {
        return 0;
    }
    s.load(a, b);
    levenshtein::distance(s.a.iter(), s.b.iter())
}

/// 1 − distance / max(len a, len b); 1.0 when both are empty.
pub fn similarity(a: &[u8], b: &[u8], s: &mut Scratch) -> f64 {
    if a == b {
        return 1.0;
    }
    s.load(a, b);
    let longest = s.a.len().max(s.b.len());
    if longest == 0 {
        return 1.0;
    }
    let d = levenshtein::distance(s.a.iter(), s.b.iter());
    1.0 - d as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distances() {
        let s = &mut Scratch::default();
        assert_eq!(distance(b"kitten", b"sitting", s), 3);
        assert_eq!(distance("café".as_bytes(), b"cafe", s), 1);
        assert_eq!(distance("😀".as_bytes(), b"", s), 1);
        assert_eq!(similarity(b"", b"", s), 1.0);
        assert_eq!(similarity(b"ab", b"", s), 0.0);
    }
}
