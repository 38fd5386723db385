//! The block recurrence of `levenshtein_blocks.rs` over only the blocks a band of cost k can
//! reach (Ukkonen's cut-off), with k widened in steps until the answer fits under it.
//!
//! Rows are the pattern's m symbols (64 to a block), columns the text's n ≥ m symbols. A cell
//! (r, j) of an alignment of cost d ≤ k satisfies D(r, j) + |(n − m) − (j − r)| ≤ d, and
//! D(r, j) ≥ |j − r|; so in column j no row below j + ⌊(k − (n − m)) / 2⌋ matters (blocks are
//! added as that limit comes down), and a top block whose every row has a lower bound over k
//! is dropped for good. Values outside the live blocks are taken as the cost of a real
//! alignment (straight down below the last block, one more per column above the first), so
//! every value computed is the cost of some alignment, never below the true distance, and
//! exact along an optimal alignment that keeps to the live blocks: any result of at most k is
//! the distance. Each column also lowers k to the cost of an alignment through the last
//! block's bottom cell, which trims the corners even when k starts at n.
//!
//! A run over k stops as soon as no live row can lead to a result under k; the column it got
//! to, against n, guesses how much larger the next k should be.
//!
//! The match table may be filled a block at a time ([`Table`]), as the runs first reach each
//! block: a run under a small cut-off on dissimilar texts gives up after a few blocks, and
//! then most of the pattern is never read.

use super::halt::{Context, Run, TryVec};
use super::levenshtein_blocks::{blocks, column};
use super::myers::{block_step, Carry};
use super::pattern::{symbols_per_check, Symbol};

/// How a run under a bound ended.
#[derive(Debug, PartialEq)]
enum Bounded {
    /// The distance, at most the bound.
    Exact(usize),
    /// The distance is over the bound; the run gave up at this column (1-based).
    Over(usize),
}

/// Columns between two looks at the lower bound of every live row.
const SURVEY: usize = 8;

/// A pattern's match table, filled as far as the runs have reached: symbol c's row of
/// ⌈m/64⌉ masks starts at c·`stride`, and blocks `filled` .. of every row are still zero.
pub struct Table<'x, S> {
    pub pm: &'x mut [u64],
    pub stride: usize,
    pub p: &'x [S],
    pub filled: usize,
}

impl<S: Symbol> Table<'_, S> {
    /// Fill the masks of every block up to `w` (0-based) that is not filled yet.
    #[inline]
    fn reach(&mut self, w: usize) {
        while self.filled <= w {
            let start = 64 * self.filled;
            let end = (start + 64).min(self.p.len());
            for (i, &c) in self.p[start..end].iter().enumerate() {
                self.pm[c.index() * self.stride + self.filled] |= 1u64 << i;
            }
            self.filled += 1;
        }
    }
}

/// The distance of a pattern of `m` > 64 symbols and a text `t` of n ≥ m symbols, from the
/// match table (see [`Table`]; blocks are filled as the runs reach them). `banded` says the
/// distance is known to be over the 64-diagonal band's limit; with a `cap`, a distance over it
/// is answered by `cap` + 1 as soon as it is known to be over. `vp` and `vn` are working space.
pub fn widened<S: Symbol>(
    table: &mut Table<'_, S>,
    t: &[S],
    (banded, cap): (bool, Option<usize>),
    (vp, vn): (&mut Vec<u64>, &mut Vec<u64>),
    stop: &Context,
) -> Run<usize> {
    let (n, m) = (t.len(), table.p.len());
    let diff = n - m;
    let words = m.div_ceil(64);
    vp.clear();
    vp.try_resize(words, !0u64, "the Levenshtein columns")?;
    vn.clear();
    vn.try_resize(words, 0, "the Levenshtein columns")?;
    let most = cap.map_or(n, |cap| cap.min(n));
    let mut k = if banded { 128 } else { 64 }.max(diff + 64);
    loop {
        if k >= n / 2 {
            k = n;
        }
        k = k.min(most);
        match bounded_fastest(table, t, k, vp, vn, stop)? {
            Bounded::Exact(d) => return Ok(d),
            Bounded::Over(_) if k == most && most < n => return Ok(most + 1),
            // A bound of n always holds (d ≤ n): not reached, but the full recurrence is the
            // safe answer if it were.
            Bounded::Over(_) if k >= n => {
                table.reach(words - 1);
                let (pm, stride) = (&*table.pm, table.stride);
                return blocks(m, t, vp, vn, stop, |c, vp, vn| {
                    let start = c.index() * stride;
                    column(&pm[start..start + words], vp, vn)
                });
            }
            Bounded::Over(at) => {
                // Lower bounds grow about linearly along the columns: scale k by n / at.
                let guess = k.saturating_mul(n) / at.max(1);
                k = guess.max(k * 2);
                if k >= n / 4 {
                    k = n;
                }
            }
        }
    }
}

/// [`bounded`], compiled for the POPCNT instruction where the CPU has it (the counts of set
/// bits in the bounds are a dozen instructions each without it).
fn bounded_fastest<S: Symbol>(
    table: &mut Table<'_, S>,
    t: &[S],
    limit: usize,
    vp: &mut [u64],
    vn: &mut [u64],
    stop: &Context,
) -> Run<Bounded> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("popcnt") {
        // SAFETY: the CPU has POPCNT, checked just above.
        return unsafe { bounded_popcnt(table, t, limit, vp, vn, stop) };
    }
    bounded(table, t, limit, vp, vn, stop)
}

/// [`bounded`] with POPCNT.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "popcnt")]
fn bounded_popcnt<S: Symbol>(
    table: &mut Table<'_, S>,
    t: &[S],
    limit: usize,
    vp: &mut [u64],
    vn: &mut [u64],
    stop: &Context,
) -> Run<Bounded> {
    bounded(table, t, limit, vp, vn, stop)
}

/// The distance under `limit` (see the module's text), or where it gave up.
#[inline(always)]
fn bounded<S: Symbol>(
    table: &mut Table<'_, S>,
    t: &[S],
    limit: usize,
    vp: &mut [u64],
    vn: &mut [u64],
    stop: &Context,
) -> Run<Bounded> {
    let (n, m, stride) = (t.len(), table.p.len(), table.stride);
    let diff = n - m;
    if limit < diff {
        return Ok(Bounded::Over(1));
    }
    let words = m.div_ceil(64);
    let last_bit = (m - 1) % 64;
    // The bottom row of block w (1-based rows), and the rows it holds.
    let bottom = |w: usize| (64 * (w + 1)).min(m);
    let rows = |w: usize| bottom(w) - 64 * w;
    let mask = |w: usize| {
        if w + 1 == words {
            !0u64 >> (63 - last_bit)
        } else {
            !0u64
        }
    };
    let mut k = limit;
    // A bound of n holds whatever the texts: no run under it can be cut short.
    let surveying = limit < n;
    // Live blocks first ..= last; `top` is the value just above the first block's top row,
    // `low` the value at the last block's bottom row.
    let (mut first, mut last) = (0usize, ((1 + (k - diff) / 2).min(m) - 1) / 64);
    for w in 0..=last {
        (vp[w], vn[w]) = (!0, 0);
    }
    table.reach(last);
    let (mut top, mut low) = (0usize, bottom(last));
    let mut j = 0usize;
    for chunk in t.chunks(symbols_per_check(words)) {
        stop.check_before(chunk.len() * (last + 1 - first))?;
        let mut i = 0;
        while i < chunk.len() {
            // Two columns at a time where there are two: their steps interleave.
            let width = if i + 1 < chunk.len() { 2 } else { 1 };
            j += width;
            // Blocks for the last of the columns (a block early is only one more live block).
            while last + 1 < words && 64 * (last + 1) < j + (k - diff) / 2 {
                last += 1;
                (vp[last], vn[last]) = (!0, 0);
                low += rows(last);
                table.reach(last);
            }
            let pm = &*table.pm;
            let row = |c: S| pm.get(c.index() * stride + first..=c.index() * stride + last);
            let live = (&mut vp[first..=last], &mut vn[first..=last]);
            let bits = match (row(chunk[i]), chunk.get(i + 1).map(|&c| row(c))) {
                (Some(one), Some(Some(two))) if width == 2 => {
                    let ((hp1, hn1), (hp2, hn2)) = two_columns(one, two, live);
                    [(hp1, hn1), (hp2, hn2)]
                }
                (Some(one), _) if width == 1 => [column(one, live.0, live.1), (0, 0)],
                _ => return Ok(Bounded::Over(j)),
            };
            i += width;
            top += width;
            let bit = if last + 1 == words { last_bit } else { 63 };
            for (hp, hn) in bits {
                low = low + ((hp >> bit) & 1) as usize - ((hn >> bit) & 1) as usize;
            }
            k = k.min(low + (n - j).max(m - bottom(last)));
            // Drop top blocks whose rows all lie on the far side of the last diagonal with a
            // lower bound over k: D(r) ≥ D(b) − (b − r) and the rest costs j − r − (n − m).
            loop {
                let b = bottom(first);
                let at_bottom = top + (vp[first] & mask(first)).count_ones() as usize
                    - (vn[first] & mask(first)).count_ones() as usize;
                if j < b + diff || at_bottom + (j - b) - diff <= k {
                    break;
                }
                if first == last {
                    return Ok(Bounded::Over(j));
                }
                top = at_bottom;
                first += 1;
            }
            if surveying
                && j % SURVEY < width
                && survey((first, last), top, (j, m, diff), (&*vp, &*vn)) > k as isize
            {
                return Ok(Bounded::Over(j));
            }
        }
    }
    if last + 1 == words && low <= limit {
        Ok(Bounded::Exact(low))
    } else {
        Ok(Bounded::Over(n))
    }
}

/// [`column`] for two successive columns with match rows `one` and `two`, over the same
/// blocks: block w of the first column is computed beside block w − 1 of the second, two
/// independent chains of carries. Returns the last block's horizontal deltas of each.
#[inline(always)]
fn two_columns(
    one: &[u64],
    two: &[u64],
    (vp, vn): (&mut [u64], &mut [u64]),
) -> ((u64, u64), (u64, u64)) {
    let blocks = vp.len().min(vn.len()).min(one.len()).min(two.len());
    let (mut a, mut b) = (Carry::TOP, Carry::TOP);
    let mut out_a = block_step(one[0], &mut vp[0], &mut vn[0], &mut a);
    for w in 1..blocks {
        out_a = block_step(one[w], &mut vp[w], &mut vn[w], &mut a);
        block_step(two[w - 1], &mut vp[w - 1], &mut vn[w - 1], &mut b);
    }
    let out_b = block_step(
        two[blocks - 1],
        &mut vp[blocks - 1],
        &mut vn[blocks - 1],
        &mut b,
    );
    (out_a, out_b)
}

/// A lower bound, over every live row r of column `j`, of D(r, j) + |(n − m) − (j − r)|: a
/// bound on any alignment through the column's live rows. Along a column that sum moves by at
/// most 2 a row, so between two block bottoms it is at least their mean less the rows between;
/// and a row is at least its block's bottom value less the rows down to it.
#[inline(always)]
fn survey(
    (first, last): (usize, usize),
    top: usize,
    (j, m, diff): (usize, usize, usize),
    (vp, vn): (&[u64], &[u64]),
) -> isize {
    let bottom = |w: usize| (64 * (w + 1)).min(m);
    let mut value = top as isize;
    let mut above: Option<(isize, usize)> = None;
    let mut least = isize::MAX;
    for w in first..=last {
        let b = bottom(w);
        let keep = if b == m && m % 64 != 0 {
            !0u64 >> (64 - m % 64)
        } else {
            !0u64
        };
        value += (vp[w] & keep).count_ones() as isize - (vn[w] & keep).count_ones() as isize;
        let f = value + (diff as isize - (j as isize - b as isize)).abs();
        let between = match above {
            Some((fa, ba)) => (fa + f - 2 * (b - ba) as isize).div_euclid(2),
            None => f - 2 * (b - 64 * w - 1) as isize,
        };
        // From the bottom alone: D(r) ≥ D(b) − (b − r), and |r − (j − (n − m))| is least at
        // the block's top row or on that diagonal.
        let (c, first_row) = (j as isize - diff as isize, (64 * w + 1) as isize);
        let own = value - b as isize + c.max(2 * first_row - c);
        let bound = between.max(own);
        least = least.min(bound);
        above = Some((f, b));
    }
    least
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::test_text::{edited, lcg};
    use rapidfuzz::distance::levenshtein as reference;

    fn table(p: &[u8]) -> (Vec<u64>, usize) {
        let stride = p.len().div_ceil(64) + 1;
        let mut pm = vec![0u64; 256 * stride];
        for (i, &c) in p.iter().enumerate() {
            pm[c as usize * stride + i / 64] |= 1 << (i % 64);
        }
        (pm, stride)
    }

    /// The table of `p`, filled in full (`full`) or left to be filled as the runs go.
    fn start(p: &[u8], full: bool) -> (Vec<u64>, usize, usize) {
        let (pm, stride) = table(p);
        if full {
            (pm, stride, p.len().div_ceil(64))
        } else {
            (vec![0; pm.len()], stride, 0)
        }
    }

    fn ordered(a: Vec<u8>, b: Vec<u8>) -> (Vec<u8>, Vec<u8>) {
        if a.len() <= b.len() {
            (a, b)
        } else {
            (b, a)
        }
    }

    #[test]
    fn a_bounded_run_is_exact_under_its_bound_and_over_it_otherwise() {
        let mut seed = 21u64;
        let stop = Context::new();
        let (mut exact, mut over) = (0, 0);
        for round in 0..1500 {
            let sigma = [2usize, 4, 26][round % 3];
            let m = 65 + lcg(&mut seed) % 700;
            let a: Vec<u8> = (0..m)
                .map(|_| b'a' + (lcg(&mut seed) % sigma) as u8)
                .collect();
            let edits = lcg(&mut seed) % 300;
            let b = edited(&mut seed, &a, edits, sigma);
            let (p, t) = ordered(a, b);
            if p.len() <= 64 {
                continue;
            }
            let want = reference::distance(p.iter(), t.iter());
            // Odd rounds fill the table as the runs reach its blocks, across all the runs below.
            let (mut pm, stride, mut filled) = start(&p, round % 2 == 0);
            let words = p.len().div_ceil(64);
            let (mut vp, mut vn) = (vec![0; words], vec![0; words]);
            // Bounds around the answer, and around the block and widening steps.
            let wiggle = lcg(&mut seed) % 9;
            for limit in [
                want.saturating_sub(wiggle),
                want,
                want + wiggle,
                64,
                128,
                130,
            ] {
                let lazy = &mut Table {
                    pm: &mut pm,
                    stride,
                    p: &p,
                    filled,
                };
                let got = bounded(lazy, &t, limit, &mut vp, &mut vn, &stop);
                filled = lazy.filled;
                match got {
                    Ok(Bounded::Exact(d)) => {
                        assert_eq!(d, want, "round {round} limit {limit}");
                        exact += 1;
                    }
                    Ok(Bounded::Over(_)) => {
                        assert!(want > limit, "round {round}: {want} under {limit}");
                        over += 1;
                    }
                    Err(e) => panic!("{e:?}"),
                }
            }
            let lazy = &mut Table {
                pm: &mut pm,
                stride,
                p: &p,
                filled,
            };
            let got = widened(lazy, &t, (round % 2 == 0, None), (&mut vp, &mut vn), &stop);
            filled = lazy.filled;
            assert_eq!(got, Ok(want), "round {round}");
            // Cut-offs around the answer: exact at or under it, over it otherwise.
            for cap in [0, want.saturating_sub(1), want, want + 1, wiggle + 60] {
                let tried = (round % 2 == 0, Some(cap));
                let lazy = &mut Table {
                    pm: &mut pm,
                    stride,
                    p: &p,
                    filled,
                };
                let got = widened(lazy, &t, tried, (&mut vp, &mut vn), &stop);
                filled = lazy.filled;
                match got {
                    Ok(d) if want <= cap => assert_eq!(d, want, "round {round} cap {cap}"),
                    Ok(d) => assert!(d > cap, "round {round}: {d} for {want} over {cap}"),
                    Err(e) => panic!("{e:?}"),
                }
            }
            // What was filled is the table's, block for block; the rest is still zero.
            let (full, _) = table(&p);
            for (i, (&got, &want)) in pm.iter().zip(&full).enumerate() {
                let block = i % stride;
                assert_eq!(got, if block < filled { want } else { 0 }, "round {round}");
            }
        }
        assert!(exact > 3000 && over > 1000, "{exact} exact, {over} over");
    }

    #[test]
    fn long_similar_and_dissimilar_pairs_match_the_reference() {
        let mut seed = 4u64;
        let stop = Context::new();
        for (round, n) in [1000usize, 4000, 9000, 4097, 1025].into_iter().enumerate() {
            for edits in [0usize, 70, 130, 260, 520, n / 12, n] {
                let a: Vec<u8> = (0..n).map(|_| b'a' + (lcg(&mut seed) % 27) as u8).collect();
                let b = if edits == n {
                    (0..n).map(|_| b'a' + (lcg(&mut seed) % 27) as u8).collect()
                } else {
                    edited(&mut seed, &a, edits, 27)
                };
                let (p, t) = ordered(a, b);
                let want = reference::distance(p.iter(), t.iter());
                let (mut vp, mut vn) = (Vec::new(), Vec::new());
                for full in [true, false] {
                    let (mut pm, stride, filled) = start(&p, full);
                    let lazy = &mut Table {
                        pm: &mut pm,
                        stride,
                        p: &p,
                        filled,
                    };
                    // Cut-offs first (dissimilar pairs give up after a few blocks of a table
                    // filled as it goes), then the distance itself from the same table.
                    for cap in [3, 100, want.saturating_sub(1), want] {
                        let got = widened(lazy, &t, (true, Some(cap)), (&mut vp, &mut vn), &stop);
                        match got {
                            Ok(d) if want <= cap => assert_eq!(d, want, "n={n} cap {cap}"),
                            Ok(d) => assert!(d > cap, "n={n}: {d} for {want} over {cap}"),
                            Err(e) => panic!("{e:?}"),
                        }
                    }
                    let tried = (round % 2 == 1, None);
                    let got = widened(lazy, &t, tried, (&mut vp, &mut vn), &stop);
                    assert_eq!(got, Ok(want), "n={n} edits={edits}");
                }
            }
        }
    }

    #[test]
    fn a_raised_stop_halts_it() {
        let stop = Context::new();
        stop.raise();
        let p: Vec<u8> = (0..3000).map(|i| b'a' + (i % 7) as u8).collect();
        let t: Vec<u8> = (0..3000).map(|i| b'a' + (i % 5) as u8).collect();
        let (mut pm, stride, filled) = start(&p, false);
        let got = widened(
            &mut Table {
                pm: &mut pm,
                stride,
                p: &p,
                filled,
            },
            &t,
            (false, None),
            (&mut Vec::new(), &mut Vec::new()),
            &stop,
        );
        assert!(got.is_err());
    }
}
