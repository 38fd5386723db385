//! Unit-cost Levenshtein distance over Unicode code points, through the `rapidfuzz` crate
//! (bit-parallel Myers/Hyyrö), and the similarity 1 − d / max(len).

use rapidfuzz::distance::levenshtein;
use rustc_hash::FxHashMap;

use super::text::decode_into;

/// Reusable decode buffers.
#[derive(Default)]
pub struct Scratch {
    a: Vec<u32>,
    b: Vec<u32>,
    /// Match masks, 256 rows of `words` words, kept all-zero between calls.
    pm: Vec<u64>,
    vp: Vec<u64>,
    vn: Vec<u64>,
    names: FxHashMap<u32, u32>,
    ra: Vec<u8>,
    rb: Vec<u8>,
}

/// Edit distance of two byte strings (one byte, one symbol): common affixes stripped, then
/// Hyyrö's bit-parallel recurrence over 64-row blocks of the shorter string.
fn bytes_distance(a: &[u8], b: &[u8], s: &mut Scratch) -> usize {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let m = p.len();
    if m == 0 {
        return t.len();
    }
    let words = m.div_ceil(64);
    if s.pm.len() < 256 * words {
        s.pm.resize(256 * words, 0);
    }
    for (i, &c) in p.iter().enumerate() {
        s.pm[c as usize * words + i / 64] |= 1u64 << (i % 64);
    }
    let d = if words == 1 {
        single_word(&s.pm, m, t)
    } else {
        s.vp.clear();
        s.vp.resize(words, !0u64);
        s.vn.clear();
        s.vn.resize(words, 0);
        blocks(&s.pm, &mut s.vp, &mut s.vn, m, t)
    };
    for &c in p {
        for w in 0..words {
            s.pm[c as usize * words + w] = 0;
        }
    }
    d
}

fn single_word(pm: &[u64], m: usize, t: &[u8]) -> usize {
    let (mut vp, mut vn) = (!0u64, 0u64);
    let last = 1u64 << (m - 1);
    let mut score = m;
    for &c in t {
        let x = pm[c as usize] | vn;
        let d0 = (((x & vp).wrapping_add(vp)) ^ vp) | x;
        let mut hp = vn | !(d0 | vp);
        let mut hn = d0 & vp;
        score += (hp & last != 0) as usize;
        score -= (hn & last != 0) as usize;
        hp = (hp << 1) | 1;
        hn <<= 1;
        vp = hn | !(d0 | hp);
        vn = hp & d0;
    }
    score
}

fn blocks(pm: &[u64], vp: &mut [u64], vn: &mut [u64], m: usize, t: &[u8]) -> usize {
    let words = vp.len();
    let last_bit = (m - 1) % 64;
    let mut score = m;
    for &c in t {
        let row = &pm[c as usize * words..(c as usize + 1) * words];
        // The top row of the edit table grows by one per column: a +1 enters the first block.
        let (mut hp_carry, mut hn_carry, mut add_carry) = (1u64, 0u64, false);
        let (mut hp, mut hn) = (0u64, 0u64);
        for ((&eq, v_p), v_n) in row.iter().zip(vp.iter_mut()).zip(vn.iter_mut()) {
            let x = eq | hn_carry;
            let (sum, c1) = (x & *v_p).overflowing_add(*v_p);
            let (sum, c2) = sum.overflowing_add(add_carry as u64);
            add_carry = c1 | c2;
            let d0 = (sum ^ *v_p) | x | *v_n;
            hp = *v_n | !(d0 | *v_p);
            hn = d0 & *v_p;
            let (hp_shift, hn_shift) = ((hp << 1) | hp_carry, (hn << 1) | hn_carry);
            hp_carry = hp >> 63;
            hn_carry = hn >> 63;
            *v_p = hn_shift | !(d0 | hp_shift);
            *v_n = hp_shift & d0;
        }
        // `hp` and `hn` hold the last block's horizontal deltas before the shift.
        score += ((hp >> last_bit) & 1) as usize;
        score -= ((hn >> last_bit) & 1) as usize;
    }
    score
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
    if a.is_ascii() && b.is_ascii() {
        // One byte is one code point: no decoding.
        return bytes_distance(a, b, s);
    }
    s.load(a, b);
    code_point_distance(s)
}

/// Distance of the decoded `s.a` and `s.b`. When the two strings use at most 128 distinct
/// non-ASCII code points (nearly always), they are renamed to bytes and take the byte path;
/// otherwise the `rapidfuzz` crate's generic implementation runs.
fn code_point_distance(s: &mut Scratch) -> usize {
    s.names.clear();
    let mut next: u32 = 0x80;
    let mut rename = |cps: &[u32], out: &mut Vec<u8>| -> bool {
        out.clear();
        for &c in cps {
            let id = if c < 0x80 {
                c
            } else {
                *s.names.entry(c).or_insert_with(|| {
                    next += 1;
                    next - 1
                })
            };
            if id > 0xFF {
                return false;
            }
            out.push(id as u8);
        }
        true
    };
    let (mut ra, mut rb) = (std::mem::take(&mut s.ra), std::mem::take(&mut s.rb));
    let d = if rename(&s.a, &mut ra) && rename(&s.b, &mut rb) {
        bytes_distance(&ra, &rb, s)
    } else {
        levenshtein::distance(s.a.iter(), s.b.iter())
    };
    s.ra = ra;
    s.rb = rb;
    d
}

/// 1 − distance / max(len a, len b); 1.0 when both are empty.
pub fn similarity(a: &[u8], b: &[u8], s: &mut Scratch) -> f64 {
    if a == b {
        return 1.0;
    }
    let (d, longest) = if a.is_ascii() && b.is_ascii() {
        (bytes_distance(a, b, s), a.len().max(b.len()))
    } else {
        s.load(a, b);
        (code_point_distance(s), s.a.len().max(s.b.len()))
    };
    if longest == 0 {
        return 1.0;
    }
    1.0 - d as f64 / longest as f64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[u8], b: &[u8]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, &x) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, &y) in b.iter().enumerate() {
                cur[j + 1] = (prev[j] + (x != y) as usize)
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    #[test]
    fn bit_parallel_matches_the_table() {
        let mut seed = 11u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (seed >> 33) as usize
        };
        let s = &mut Scratch::default();
        for round in 0..1500 {
            let sigma = 1 + round % 6;
            let (la, lb) = (next() % 300, next() % 300);
            let a: Vec<u8> = (0..la).map(|_| b'a' + (next() % sigma) as u8).collect();
            let mut b: Vec<u8> = (0..lb).map(|_| b'a' + (next() % sigma) as u8).collect();
            if round % 3 == 0 {
                b = a.clone();
                for _ in 0..(next() % 8) {
                    if !b.is_empty() {
                        let k = next() % b.len();
                        b[k] = b'z';
                    }
                }
            }
            assert_eq!(bytes_distance(&a, &b, s), naive(&a, &b), "round {round}");
            let rapid = levenshtein::distance(a.iter(), b.iter());
            assert_eq!(rapid, naive(&a, &b));
        }
        assert!(s.pm.iter().all(|&w| w == 0));
    }

    #[test]
    fn distances() {
        let s = &mut Scratch::default();
        assert_eq!(distance(b"kitten", b"sitting", s), 3);
        assert_eq!(distance("café".as_bytes(), b"cafe", s), 1);
        assert_eq!(distance("😀".as_bytes(), b"", s), 1);
        assert_eq!(
            distance(
                "日本語のテキスト".as_bytes(),
                "日本のテキスト!".as_bytes(),
                s
            ),
            2
        );
        // More than 128 distinct non-ASCII code points: the generic path.
        let wide: String = (0x4E00..0x4F00u32).filter_map(char::from_u32).collect();
        let other: String = wide.chars().rev().collect();
        let d = distance(wide.as_bytes(), other.as_bytes(), s);
        let cps = |t: &str| t.chars().collect::<Vec<char>>();
        assert_eq!(d, levenshtein::distance(cps(&wide), cps(&other)));
        assert_eq!(similarity(b"", b"", s), 1.0);
        assert_eq!(similarity(b"ab", b"", s), 0.0);
    }
}
