//! Length of the longest common subsequence of two id sequences, bit-parallel (Hyyrö's
//! formulation of the Allison–Dix recurrence): one machine word holds 64 pattern positions, so a
//! text symbol costs ⌈m/64⌉ word operations instead of m table cells.
//!
//! The masks (linear memory for any alphabet) are `pattern.rs`'s; over a small alphabet (ASCII
//! and a few other code points) a plain table of every symbol's mask words takes their place,
//! so that a text symbol costs one row look-up and a carry chain with no branches.

use super::halt::{Context, Run, TryVec};
use super::pattern::{symbols_per_check, PatternMasks};

/// Reusable buffers for [`lcs_len`].
#[derive(Default)]
pub struct LcsScratch {
    single: Vec<u64>,
    /// The masks by symbol over a small alphabet, `words` a symbol; all zero between calls.
    dense: Vec<u64>,
    masks: PatternMasks,
    v: Vec<u64>,
}

/// LCS length of `pattern` and `text`, whose symbols are ids below `alphabet`.
/// Passing the shorter sequence as `pattern` is fastest; the result is symmetric. The
/// O(|text|·⌈|pattern|/64⌉) work polls `stop` every 2^16 word operations or so.
pub fn lcs_len(
    pattern: &[u32],
    text: &[u32],
    alphabet: usize,
    s: &mut LcsScratch,
    stop: &Context,
) -> Run<usize> {
    let m = pattern.len();
    if m == 0 || text.is_empty() {
        return Ok(0);
    }
    if m <= 64 {
        return lcs_single_word(pattern, text, alphabet, s, stop);
    }
    if alphabet <= DENSE_ALPHABET {
        return lcs_dense(pattern, text, alphabet, s, stop);
    }
    lcs_multi_word(pattern, text, alphabet, s, stop)
}

fn lcs_single_word(
    pattern: &[u32],
    text: &[u32],
    alphabet: usize,
    s: &mut LcsScratch,
    stop: &Context,
) -> Run<usize> {
    s.single.clear();
    s.single.try_resize(alphabet, 0, "the LCS masks")?;
    for (i, &c) in pattern.iter().enumerate() {
        s.single[c as usize] |= 1u64 << i;
    }
    let mut v = !0u64;
    for chunk in text.chunks(symbols_per_check(1)) {
        stop.check_before(chunk.len())?;
        for &c in chunk {
            let u = v & s.single[c as usize];
            v = v.wrapping_add(u) | (v - u);
        }
    }
    let m = pattern.len();
    let live = if m == 64 { !0u64 } else { (1u64 << m) - 1 };
    Ok((!v & live).count_ones() as usize)
}

/// The largest alphabet [`lcs_dense`] takes (its table is `alphabet · ⌈m/64⌉` words).
const DENSE_ALPHABET: usize = 256;

/// [`lcs_multi_word`] with the masks in a table of `alphabet` rows of ⌈m/64⌉ words.
fn lcs_dense(
    pattern: &[u32],
    text: &[u32],
    alphabet: usize,
    s: &mut LcsScratch,
    stop: &Context,
) -> Run<usize> {
    let m = pattern.len();
    let words = m.div_ceil(64);
    let LcsScratch { dense, v, .. } = s;
    if dense.len() < alphabet * words {
        dense.clear();
        dense.try_resize(alphabet * words, 0, "the LCS masks")?;
    }
    for (i, &c) in pattern.iter().enumerate() {
        dense[c as usize * words + i / 64] |= 1u64 << (i % 64);
    }
    let sized = v
        .try_resize(0, 0, "the LCS column")
        .and_then(|()| v.try_resize(words, !0u64, "the LCS column"));
    let out = sized.map_err(Into::into).and_then(|()| {
        for chunk in text.chunks(symbols_per_check(words)) {
            stop.check_before(chunk.len() * words)?;
            // Up to eight words the column lives in registers, the word loop unrolled.
            match words {
                2 => dense_fixed::<2>(dense, chunk, v),
                3 => dense_fixed::<3>(dense, chunk, v),
                4 => dense_fixed::<4>(dense, chunk, v),
                5 => dense_fixed::<5>(dense, chunk, v),
                6 => dense_fixed::<6>(dense, chunk, v),
                7 => dense_fixed::<7>(dense, chunk, v),
                8 => dense_fixed::<8>(dense, chunk, v),
                _ => {
                    for &c in chunk {
                        let row = &dense[c as usize * words..(c as usize + 1) * words];
                        dense_step(v, row);
                    }
                }
            }
        }
        Ok(zero_bits(v, m))
    });
    for &c in pattern {
        dense[c as usize * words..(c as usize + 1) * words].fill(0);
    }
    out
}

/// One text symbol with mask words `row` over the column `v`: V ← (V + (V & M)) | (V − (V & M)),
/// the carry rippling up through the words.
#[inline(always)]
fn dense_step(v: &mut [u64], row: &[u64]) {
    let mut carry = false;
    for (x, &mask) in v.iter_mut().zip(row) {
        let u = *x & mask;
        let (sum, c1) = x.overflowing_add(u);
        let (sum, c2) = sum.overflowing_add(carry as u64);
        carry = c1 | c2;
        *x = sum | (*x - u);
    }
}

/// The symbols of `text` over a column of `W` words (`v`), with the masks `dense` of `W` words
/// a symbol.
fn dense_fixed<const W: usize>(dense: &[u64], text: &[u32], v: &mut [u64]) {
    let mut col = [0u64; W];
    col.copy_from_slice(&v[..W]);
    for &c in text {
        let start = c as usize * W;
        dense_step(&mut col, &dense[start..start + W]);
    }
    v[..W].copy_from_slice(&col);
}

/// The number of zero bits among the first `m` bits of `v` (the LCS length).
fn zero_bits(v: &[u64], m: usize) -> usize {
    let mut lcs = 0usize;
    for (w, &x) in v.iter().enumerate() {
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

fn lcs_multi_word(
    pattern: &[u32],
    text: &[u32],
    alphabet: usize,
    s: &mut LcsScratch,
    stop: &Context,
) -> Run<usize> {
    let m = pattern.len();
    let words = m.div_ceil(64);
    let built = s.masks.build(pattern, alphabet);
    let out = built.map_err(Into::into).and_then(|()| {
        s.v.clear();
        s.v.try_resize(words, !0u64, "the LCS column")?;
        for chunk in text.chunks(symbols_per_check(words)) {
            stop.check_before(chunk.len() * words)?;
            for &c in chunk {
                s.masks.advance_lcs(&mut s.v, c as usize);
            }
        }
        Ok(zero_bits(&s.v, m))
    });
    s.masks.reset(pattern);
    out
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
            let got = lcs_len(
                &a,
                &b,
                alphabet as usize,
                &mut LcsScratch::default(),
                &Context::new(),
            )
            .unwrap();
            assert_eq!(got, naive(&a, &b), "round {round}");
        }
    }

    #[test]
    fn a_raised_stop_halts_the_work() {
        let stop = Context::new();
        stop.raise();
        let (a, b): (Vec<u32>, Vec<u32>) = ((0..500).map(|i| i % 7).collect(), vec![1; 500]);
        for m in [10, 500] {
            let got = lcs_len(&a[..m], &b, 7, &mut LcsScratch::default(), &stop);
            assert_eq!(got, Err(crate::metrics::halt::Halt::Stopped));
        }
    }

    #[test]
    fn the_table_and_the_slots_agree_around_the_alphabet_bound() {
        let mut seed = 11u64;
        let s = &mut LcsScratch::default();
        for round in 0..300 {
            let alphabet = [2u32, 200, 256, 257, 600][round % 5];
            let la = 60 + (lcg(&mut seed) % 300) as usize;
            let lb = (lcg(&mut seed) % 400) as usize;
            let a: Vec<u32> = (0..la).map(|_| lcg(&mut seed) % alphabet).collect();
            let b: Vec<u32> = (0..lb).map(|_| lcg(&mut seed) % alphabet).collect();
            let got = lcs_len(&a, &b, alphabet as usize, s, &Context::new()).unwrap();
            assert_eq!(got, naive(&a, &b), "round {round}");
        }
        assert!(s.dense.iter().all(|&w| w == 0));
    }

    #[test]
    fn word_boundaries() {
        for m in [63usize, 64, 65, 127, 128, 129] {
            let a: Vec<u32> = (0..m as u32).map(|i| i % 5).collect();
            let b: Vec<u32> = (0..(m as u32 + 3)).map(|i| (i * 3) % 5).collect();
            assert_eq!(
                lcs_len(&a, &b, 5, &mut LcsScratch::default(), &Context::new()).unwrap(),
                naive(&a, &b)
            );
        }
    }
}
