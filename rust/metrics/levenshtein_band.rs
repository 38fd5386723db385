//! The Levenshtein distance inside a band of 64 diagonals, one machine word per text symbol:
//! exact whenever the distance is small enough for its optimal alignments to stay inside the
//! band, which is checked from the result itself.
//!
//! Rows are the pattern's symbols (m > 64 of them), columns the text's (n ≥ m). A path of
//! cost d through a cell of diagonal δ = column − row costs at least |δ| + |δ − (n − m)|, so
//! when d ≤ k every optimal path keeps to the diagonals −e ..= n − m + e, with
//! e = ⌊(k − (n − m)) / 2⌋. The widest such band of one word has e = ⌊(63 − (n − m)) / 2⌋.
//!
//! Column j holds the vertical deltas of the 64 rows j − c + 1 ..= j − c + 64 (c = n − m + e + 1),
//! bit 0 the top one. The first c columns hold rows 1 ..= 64 exactly (Myers' algorithm on the
//! pattern's first word); after that the window slides down one row per column. The cells just
//! outside the window that a step reads (the one above its top, the one below the previous
//! column's bottom) are given the value of their neighbour inside plus one: the cost of a real
//! alignment. So every value computed is the cost of some alignment (never below the true
//! distance), and no more than the best alignment inside the band (equal to the true distance
//! when that alignment is optimal). A result of at most k = n − m + 2e is therefore exact; a
//! larger one only says the distance is over k.

use super::halt::{Context, Run};
use super::myers::{step, Column};
use super::pattern::symbols_per_check;

/// The longest difference of lengths the band can hold.
const MAX_DIFF: usize = 63;

/// Whether a pattern of `m` symbols and a text of `n` ≥ m symbols are tried in the band.
pub fn fits(m: usize, n: usize) -> bool {
    m > 64 && n >= m && n - m <= MAX_DIFF
}

/// The distance of a pattern of `m` > 64 symbols and the text `t` of n ≥ m symbols, when it is
/// at most the band's limit; `None` when it is over the limit, or the lengths do not [`fits`].
/// `eq(offset, c)` is the match mask of symbol c over the pattern's symbols offset ..
/// offset + 64 (bit b for symbol offset + b; bits past the pattern's end may be anything).
pub fn banded_distance<S: Copy>(
    m: usize,
    t: &[S],
    stop: &Context,
    mut eq: impl FnMut(usize, S) -> u64,
) -> Run<Option<usize>> {
    let n = t.len();
    if !fits(m, n) {
        return Ok(None);
    }
    let diff = n - m;
    let e = (MAX_DIFF - diff) / 2;
    // Columns 1 ..= c hold rows 1 ..= 64; m > 64 > e + 1 makes c < n.
    let c = diff + e + 1;
    let limit = diff + 2 * e;
    let (mut vp, mut vn) = (!0u64, 0u64);
    // At most 64 columns: counted with the first chunk below, one look at `stop` for both.
    for &sym in &t[..c] {
        let column = step(eq(0, sym), vp, vn);
        (vp, vn) = (column.vp, column.vn);
    }
    // The value at the window's top row, row 1 of column c.
    let mut top = c + (vp & 1) as usize - (vn & 1) as usize;
    // From here on the deltas are kept as the next column reads them: shifted down a row, the
    // new bottom row one more than the row above it.
    let (mut vp, mut vn) = ((vp >> 1) | BOTTOM, vn >> 1);
    // Row m of column n lies e rows below its top row, on the diagonal n − m: so do bits
    // 0 .. e of the shifted deltas, from the row below the top.
    let below = (1u64 << e) - 1;
    let on_diagonal = |top: usize, vp: u64, vn: u64| {
        top + (vp & below).count_ones() as usize - (vn & below).count_ones() as usize
    };
    let (mut offset, mut uncounted) = (0usize, c);
    for chunk in t[c..].chunks(symbols_per_check(1)) {
        stop.check_before(uncounted + chunk.len())?;
        uncounted = 0;
        for &sym in chunk {
            offset += 1;
            let d0;
            (vp, vn, d0) = sliding_step(eq(offset, sym), vp, vn);
            // The top cell is its diagonal neighbour's value, plus one unless they are equal.
            top += 1 - (d0 & 1) as usize;
            // Values never decrease along a diagonal: once over the limit, the result is too.
            if offset % 32 == 0 && on_diagonal(top, vp, vn) > limit {
                return Ok(None);
            }
        }
    }
    let d = on_diagonal(top, vp, vn);
    Ok((d <= limit).then_some(d))
}

/// `eq` for [`banded_distance`] from a table of match masks: symbol c's row starts at word
/// c·`stride` and holds at least one zero word after the pattern's ⌈m/64⌉.
#[inline(always)]
pub fn table_window(pm: &[u64], stride: usize, offset: usize, sym: usize) -> u64 {
    let start = sym * stride + offset / 64;
    let (low, high) = match pm.get(start..start + 2) {
        Some(&[low, high]) => (low as u128, high as u128),
        _ => (0, 0),
    };
    ((low | (high << 64)) >> (offset % 64)) as u64
}

/// `eq` for [`banded_distance`] from the pattern's bytes themselves, followed in `padded` by 64
/// more (of any value): no table to fill and clear.
#[inline(always)]
pub fn byte_window(padded: &[u8], offset: usize, sym: u8) -> u64 {
    match padded.get(offset..offset + 64).map(<&[u8; 64]>::try_from) {
        Some(Ok(window)) => eq_mask(window, sym),
        _ => 0,
    }
}

/// Bit i set where `window[i]` is `sym`.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn eq_mask(window: &[u8; 64], sym: u8) -> u64 {
    use std::arch::x86_64::{_mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8};
    let mut mask = 0u64;
    for (k, part) in window.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is part of every x86_64 target, and `part` holds the 16 bytes read.
        let bits = unsafe {
            let v = _mm_loadu_si128(part.as_ptr().cast());
            _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(sym as i8)))
        };
        mask |= u64::from(bits as u16) << (16 * k);
    }
    mask
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn eq_mask(window: &[u8; 64], sym: u8) -> u64 {
    let mut mask = 0u64;
    for (i, &b) in window.iter().enumerate() {
        mask |= u64::from(b == sym) << i;
    }
    mask
}

/// The top bit: the row below a window's bottom.
const BOTTOM: u64 = 1 << 63;

/// Myers' [`step`] on deltas kept shifted down a row (with [`BOTTOM`] set), giving them shifted
/// again, and its diagonal-zero mask D0. Shifting D0 instead of the horizontal deltas takes two
/// operations off the chain from one column to the next (the step's own new deltas go unused).
#[inline(always)]
fn sliding_step(eq: u64, vp: u64, vn: u64) -> (u64, u64, u64) {
    let Column { d0, hp, hn, .. } = step(eq, vp, vn);
    (hn | BOTTOM | !((d0 >> 1) | hp), (d0 >> 1) & hp, d0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::test_text::{edited, lcg};
    use rapidfuzz::distance::levenshtein as reference;

    /// The band of `p` and `t` with the masks of `p` as table rows of `stride` words, and again
    /// from `p`'s bytes (padded with `pad`): both answers, which must agree.
    fn band(p: &[u8], t: &[u8], stride: usize, pad: u8, stop: &Context) -> Run<Option<usize>> {
        let mut pm = vec![0u64; 256 * stride];
        for (i, &c) in p.iter().enumerate() {
            pm[c as usize * stride + i / 64] |= 1 << (i % 64);
        }
        let by_table = banded_distance(p.len(), t, stop, |offset, c: u8| {
            table_window(&pm, stride, offset, c as usize)
        });
        let padded: Vec<u8> = p.iter().copied().chain([pad; 64]).collect();
        let by_bytes = banded_distance(p.len(), t, stop, |offset, c| {
            byte_window(&padded, offset, c)
        });
        assert_eq!(by_table, by_bytes);
        by_table
    }

    #[test]
    fn an_answer_is_the_exact_distance_and_none_means_over_the_limit() {
        let mut seed = 3u64;
        let stop = Context::new();
        let (mut exact, mut over) = (0, 0);
        for round in 0..4000 {
            let sigma = [2usize, 4, 26][round % 3];
            let m = 65 + lcg(&mut seed) % 200;
            let a: Vec<u8> = (0..m)
                .map(|_| b'a' + (lcg(&mut seed) % sigma) as u8)
                .collect();
            let edits = lcg(&mut seed) % 160;
            let b = edited(&mut seed, &a, edits, sigma);
            let (p, t) = if a.len() <= b.len() {
                (&a, &b)
            } else {
                (&b, &a)
            };
            let want = reference::distance(p.iter(), t.iter());
            let stride = p.len().div_ceil(64) + 1 + round % 2;
            let got = band(p, t, stride, b'a' + (round % 3) as u8, &stop);
            let diff = t.len() - p.len();
            match got {
                Ok(Some(d)) => {
                    assert_eq!(d, want, "round {round}");
                    exact += 1;
                }
                Ok(None) => {
                    let limit = diff + 2 * ((MAX_DIFF - diff.min(MAX_DIFF)) / 2);
                    assert!(
                        p.len() <= 64 || diff > MAX_DIFF || want > limit,
                        "round {round}: {want} is inside the band"
                    );
                    over += 1;
                }
                Err(e) => panic!("{e:?}"),
            }
        }
        assert!(exact > 1000 && over > 100, "{exact} exact, {over} over");
    }

    #[test]
    fn every_length_difference_and_distance_at_the_limit() {
        let mut seed = 8u64;
        let stop = Context::new();
        for diff in 0..=MAX_DIFF + 1 {
            for m in [65usize, 127, 128, 129, 200] {
                let p: Vec<u8> = (0..m).map(|_| b'a' + (lcg(&mut seed) % 3) as u8).collect();
                let mut t = p.clone();
                for _ in 0..diff {
                    let k = lcg(&mut seed) % (t.len() + 1);
                    t.insert(k, b'z');
                }
                for extra in 0..40 {
                    let k = lcg(&mut seed) % t.len();
                    t[k] = b'a' + (extra % 4) as u8;
                    let want = reference::distance(p.iter(), t.iter());
                    let got = band(&p, &t, m / 64 + 2, b'z', &stop);
                    let Ok(got) = got else { panic!() };
                    assert!(got.is_none_or(|d| d == want), "m={m} diff={diff}");
                    if diff <= MAX_DIFF && want <= diff + 2 * ((MAX_DIFF - diff) / 2) {
                        assert_eq!(got, Some(want), "m={m} diff={diff}");
                    }
                }
            }
        }
    }

    #[test]
    fn a_raised_stop_halts_it() {
        let stop = Context::new();
        stop.raise();
        let p: Vec<u8> = (0..100).map(|i| b'a' + (i % 7) as u8).collect();
        let got = band(&p, &p, 3, 0, &stop);
        assert!(got.is_err());
    }
}
