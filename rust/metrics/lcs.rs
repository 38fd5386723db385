//! Length of the longest common subsequence of two id sequences, bit-parallel (Hyyrö's
//! formulation of the Allison–Dix recurrence): one machine word holds 64 pattern positions, so a
//! text symbol costs ⌈m/64⌉ word operations instead of m table cells.
//!
//! Memory stays linear in m even for very long, very varied patterns: a symbol that occurs at
//! least ⌈m/64⌉ times gets a dense bit mask (there are at most 64 such symbols per word of
//! pattern), and every rarer symbol keeps only its positions, set into a scratch mask when it is
//! met and cleared again afterwards, which costs no more than the word operations themselves.

/// Reusable buffers for [`lcs_len`].
#[derive(Default)]
pub struct LcsScratch {
    single: Vec<u64>,
    count: Vec<u32>,
    start: Vec<u32>,
    positions: Vec<u32>,
    dense_row: Vec<u32>,
    dense: Vec<u64>,
    span: Vec<(u32, u32)>,
    v: Vec<u64>,
    mask: Vec<u64>,
}

const NO_ROW: u32 = u32::MAX;

/// LCS length of `pattern` and `text`, whose symbols are ids below `alphabet`.
/// Passing the shorter sequence as `pattern` is fastest; the result is symmetric.
pub fn lcs_len(pattern: &[u32], text: &[u32], alphabet: usize, s: &mut LcsScratch) -> usize {
    let m = pattern.len();
    if m == 0 || text.is_empty() {
        return 0;
    }
    if m <= 64 {
        return lcs_single_word(pattern, text, alphabet, s);
    }
    lcs_multi_word(pattern, text, alphabet, s)
}

fn lcs_single_word(pattern: &[u32], text: &[u32], alphabet: usize, s: &mut LcsScratch) -> usize {
    s.single.clear();
    s.single.resize(alphabet, 0);
    for (i, &c) in pattern.iter().enumerate() {
        s.single[c as usize] |= 1u64 << i;
    }
    let mut v = !0u64;
    for &c in text {
        let u = v & s.single[c as usize];
        v = v.wrapping_add(u) | (v - u);
    }
    let m = pattern.len();
    let live = if m == 64 { !0u64 } else { (1u64 << m) - 1 };
    (!v & live).count_ones() as usize
}

fn lcs_multi_word(pattern: &[u32], text: &[u32], alphabet: usize, s: &mut LcsScratch) -> usize {
    let m = pattern.len();
    let words = m.div_ceil(64);

    // Positions of every symbol, grouped by symbol (a counting sort).
    s.count.clear();
    s.count.resize(alphabet, 0);
    for &c in pattern {
        s.count[c as usize] += 1;
    }
    s.start.clear();
    s.start.reserve(alphabet + 1);
    let mut acc = 0u32;
    for &k in &s.count {
        s.start.push(acc);
        acc += k;
    }
    s.start.push(acc);
    s.positions.clear();
    s.positions.resize(m, 0);
    let mut fill = s.start.clone();
    for (i, &c) in pattern.iter().enumerate() {
        s.positions[fill[c as usize] as usize] = i as u32;
        fill[c as usize] += 1;
    }

    // Dense masks for frequent symbols; first and last word touched by each symbol.
    s.dense_row.clear();
    s.dense_row.resize(alphabet, NO_ROW);
    s.dense.clear();
    s.span.clear();
    s.span.resize(alphabet, (0, 0));
    let mut rows = 0u32;
    for c in 0..alphabet {
        let (a, b) = (s.start[c] as usize, s.start[c + 1] as usize);
        if a == b {
            continue;
        }
        let ps = &s.positions[a..b];
        s.span[c] = (ps[0] / 64, ps[ps.len() - 1] / 64);
        if b - a >= words {
            s.dense_row[c] = rows;
            rows += 1;
            let base = s.dense.len();
            s.dense.resize(base + words, 0);
            for &p in ps {
                s.dense[base + (p as usize) / 64] |= 1u64 << (p % 64);
            }
        }
    }

    s.v.clear();
    s.v.resize(words, !0u64);
    s.mask.clear();
    s.mask.resize(words, 0);
    for &c in text {
        let c = c as usize;
        if s.count[c] == 0 {
            continue;
        }
        let (first, last) = (s.span[c].0 as usize, s.span[c].1 as usize);
        let row = s.dense_row[c];
        if row != NO_ROW {
            let base = row as usize * words;
            step(&mut s.v, &s.dense[base..base + words], first, last);
        } else {
            let ps = &s.positions[s.start[c] as usize..s.start[c + 1] as usize];
            for &p in ps {
                s.mask[(p as usize) / 64] |= 1u64 << (p % 64);
            }
            step(&mut s.v, &s.mask, first, last);
            for &p in ps {
                s.mask[(p as usize) / 64] = 0;
            }
        }
    }

    let mut lcs = 0usize;
    for (w, &x) in s.v.iter().enumerate() {
        let bits = (m - w * 64).min(64);
        let live = if bits == 64 {
            !0u64
        } else {
            (1u64 << bits) - 1
        };
        lcs += (!x & live).count_ones() as usize;
    }
    lcs
}

/// One text symbol: V ← (V + (V & M)) | (V & !M), with the carry rippling upwards. Words below
/// `first` hold no match bits and are unchanged; above `last` only a carry can change them.
#[inline]
pub(crate) fn step(v: &mut [u64], mask: &[u64], first: usize, last: usize) {
    let mut carry = 0u64;
    for w in first..v.len() {
        let x = v[w];
        let u = if w <= last { x & mask[w] } else { 0 };
        if w > last && carry == 0 {
            break;
        }
        let (sum, c1) = x.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(carry);
        carry = (c1 | c2) as u64;
        v[w] = sum | (x - u);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[u32], b: &[u32]) -> usize {
        let mut prev = vec![0usize; b.len() + 1];
        for &x in a {
            let mut cur = vec![0usize; b.len() + 1];
            for (j, &y) in b.iter().enumerate() {
                cur[j + 1] = if x == y {
                    prev[j] + 1
                } else {
                    cur[j].max(prev[j + 1])
                };
            }
            prev = cur;
        }
        prev[b.len()]
    }

    fn lcg(seed: &mut u64) -> u32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) as u32
    }

    #[test]
    fn matches_the_dynamic_programme() {
        let mut seed = 7u64;
        for round in 0..400 {
            let alphabet = 1 + (round % 9) as u32 * 3;
            let la = (lcg(&mut seed) % 300) as usize;
            let lb = (lcg(&mut seed) % 300) as usize;
            let a: Vec<u32> = (0..la).map(|_| lcg(&mut seed) % alphabet).collect();
            let b: Vec<u32> = (0..lb).map(|_| lcg(&mut seed) % alphabet).collect();
            let got = lcs_len(&a, &b, alphabet as usize, &mut LcsScratch::default());
            assert_eq!(got, naive(&a, &b), "round {round}");
        }
    }

    #[test]
    fn word_boundaries() {
        for m in [63usize, 64, 65, 127, 128, 129] {
            let a: Vec<u32> = (0..m as u32).map(|i| i % 5).collect();
            let b: Vec<u32> = (0..(m as u32 + 3)).map(|i| (i * 3) % 5).collect();
            assert_eq!(
                lcs_len(&a, &b, 5, &mut LcsScratch::default()),
                naive(&a, &b)
            );
        }
    }
}
