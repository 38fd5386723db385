//! The full Levenshtein recurrences of Myers' bit-parallel algorithm in Hyyrö's block form,
//! one column per text symbol: a pattern of one word, of `N` words known at compile time, and
//! of any number of words. Each polls a [`Context`] every 2^16 word operations or so.

use super::halt::{Context, Run, TryVec};
use super::myers::{bottom_change, step};
use super::pattern::{symbols_per_check, Symbol};

/// A pattern of `m` ≤ 64 symbols against `t`; `eq(c)` is the match mask of symbol c.
pub fn single_word<S: Copy>(
    m: usize,
    t: &[S],
    stop: &Context,
    mut eq: impl FnMut(S) -> u64,
) -> Run<usize> {
    let (mut vp, mut vn) = (!0u64, 0u64);
    let last = 1u64 << (m - 1);
    let mut score = m;
    for chunk in t.chunks(symbols_per_check(1)) {
        stop.check_before(chunk.len())?;
        for &c in chunk {
            let column = step(eq(c), vp, vn);
            score = score.wrapping_add(bottom_change(&column, last));
            (vp, vn) = (column.vp, column.vn);
        }
    }
    Ok(score)
}

/// A pattern of `m` > 64 symbols against `t`, one column per text symbol:
/// `col(c, vp, vn)` advances the vertical deltas by symbol c and returns the last block's
/// horizontal deltas (see [`column`]).
pub fn blocks<S: Copy>(
    m: usize,
    t: &[S],
    vp: &mut Vec<u64>,
    vn: &mut Vec<u64>,
    stop: &Context,
    mut col: impl FnMut(S, &mut [u64], &mut [u64]) -> (u64, u64),
) -> Run<usize> {
    let words = m.div_ceil(64);
    vp.clear();
    vp.try_resize(words, !0u64, "the Levenshtein columns")?;
    vn.clear();
    vn.try_resize(words, 0, "the Levenshtein columns")?;
    let last_bit = (m - 1) % 64;
    let mut score = m;
    for chunk in t.chunks(symbols_per_check(words)) {
        stop.check_before(chunk.len() * words)?;
        for &c in chunk {
            let (hp, hn) = col(c, vp, vn);
            score += ((hp >> last_bit) & 1) as usize;
            score -= ((hn >> last_bit) & 1) as usize;
        }
    }
    Ok(score)
}

/// [`blocks`] with the table `pm` of `N` + 1 words a row, for the commonest lengths (a shorter side
/// of 65 to 256 symbols): with the block count known at compile time the deltas stay in
/// registers and the loop over the blocks unrolls.
pub fn fixed_blocks<const N: usize, S: Symbol>(
    pm: &[u64],
    m: usize,
    t: &[S],
    stop: &Context,
) -> Run<usize> {
    let (mut vp, mut vn) = ([!0u64; N], [0u64; N]);
    let last_bit = (m - 1) % 64;
    let mut score = m;
    for chunk in t.chunks(symbols_per_check(N)) {
        stop.check_before(chunk.len() * N)?;
        for &c in chunk {
            let start = c.index() * (N + 1);
            let row: &[u64; N] = match pm.get(start..start + N).map(<&[u64; N]>::try_from) {
                Some(Ok(row)) => row,
                _ => &[0; N],
            };
            let (hp, hn) = column(row, &mut vp, &mut vn);
            score += ((hp >> last_bit) & 1) as usize;
            score -= ((hn >> last_bit) & 1) as usize;
        }
    }
    Ok(score)
}

/// One column of the block recurrence with match row `row`; returns the last block's
/// horizontal deltas before the shift.
#[inline(always)]
pub fn column(row: &[u64], vp: &mut [u64], vn: &mut [u64]) -> (u64, u64) {
    // The top row of the edit table grows by one per column: a +1 enters the first block.
    // (This is `myers::block_step` with its carries in locals: through the block step, the
    // masks path of long non-ASCII pairs measured some 10% slower.)
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
    (hp, hn)
}
