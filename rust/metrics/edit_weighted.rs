//! Levenshtein distance with weights, the Indel distance, their normalized forms and the
//! alignment itself (edit operations), all over Unicode code points and as RapidFuzz's
//! `Levenshtein` and `Indel` define them (`s1` is `expected`, `s2` is `actual`: the edits turn
//! `expected` into `actual`).
//!
//! Unit weights use the bit-parallel kernel of `levenshtein.rs`; equal insert and delete costs
//! with a substitution no cheaper than both are the Indel distance times the cost, from the
//! bit-parallel LCS of `lcs.rs`; any other weights take the O(n·m) table, one row at a time.

use super::dense_ids::DenseIds;
use super::halt::{Context, Run, TryVec};
use super::lcs::{lcs_len, LcsScratch};
use super::levenshtein;
use super::levenshtein_blocks::column;
use super::text::decode_into;

/// The cost of an insertion, a deletion and a substitution.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Weights {
    pub insert: usize,
    pub delete: usize,
    pub substitute: usize,
}

impl Weights {
    pub const UNIT: Weights = Weights {
        insert: 1,
        delete: 1,
        substitute: 1,
    };
}

/// [`distance`] when it is at most `cap`; otherwise some value over `cap` (unit-cost pairs
/// stop early once over it).
pub fn distance_capped(
    a: &[u8],
    b: &[u8],
    w: Weights,
    cap: usize,
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    let unit = w.insert;
    if unit > 0 && w.delete == unit && w.substitute == unit && a != b {
        return Ok(levenshtein::distance_capped(a, b, cap / unit, &mut s.unit, stop)? * unit);
    }
    distance(a, b, w, s, stop)
}

/// The most cells [`editops`] holds (two bits each, 256 MiB at most): longer pairs are
/// refused.
pub const EDITOPS_CELLS: usize = 1 << 30;

/// Reusable buffers.
#[derive(Default)]
pub struct Scratch {
    unit: levenshtein::Scratch,
    lcs: LcsScratch,
    a: Vec<u32>,
    b: Vec<u32>,
    names: DenseIds,
    row: Vec<usize>,
    row32: Vec<u32>,
    slots: Vec<u32>,
    pm: Vec<u64>,
    vp: Vec<u64>,
    vn: Vec<u64>,
    columns: Vec<u64>,
}

impl Scratch {
    /// The buffers of the unit-cost kernel.
    pub fn unit(&mut self) -> &mut levenshtein::Scratch {
        &mut self.unit
    }

    /// Decode both texts into `self.a` and `self.b` as ids below the returned alphabet size:
    /// ASCII keeps its value (and two ASCII texts are not decoded at all), other code points
    /// count up from 0x80.
    fn load(&mut self, a: &[u8], b: &[u8]) -> Run<usize> {
        self.a.clear();
        self.b.clear();
        if a.is_ascii() && b.is_ascii() {
            self.a.try_capacity(a.len(), "the decoded text")?;
            self.b.try_capacity(b.len(), "the decoded text")?;
            self.a.extend(a.iter().map(|&c| u32::from(c)));
            self.b.extend(b.iter().map(|&c| u32::from(c)));
            return Ok(0x80);
        }
        Ok(self.names.load_pair(a, b, &mut self.a, &mut self.b)?)
    }

    /// Decode both texts into `self.a` and `self.b` as their code points (the table of
    /// [`distance`] only compares them: no renaming).
    fn load_code_points(&mut self, a: &[u8], b: &[u8]) -> Run<()> {
        self.a.clear();
        self.b.clear();
        self.a.try_capacity(a.len(), "the decoded text")?;
        self.b.try_capacity(b.len(), "the decoded text")?;
        if a.is_ascii() && b.is_ascii() {
            self.a.extend(a.iter().map(|&c| u32::from(c)));
            self.b.extend(b.iter().map(|&c| u32::from(c)));
        } else {
            decode_into(a, &mut self.a);
            decode_into(b, &mut self.b);
        }
        Ok(())
    }
}

/// The common prefix length of `a` and `b`, and both without their common prefix and suffix.
fn strip<'x>(a: &'x [u32], b: &'x [u32]) -> (usize, &'x [u32], &'x [u32]) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (prefix, &a[..a.len() - suffix], &b[..b.len() - suffix])
}

/// The largest distance two texts of `n1` and `n2` code points can have under `w`
/// (RapidFuzz's maximum, the denominator of the normalized distance).
pub fn max_distance(n1: usize, n2: usize, w: Weights) -> usize {
    let all = n1 * w.delete + n2 * w.insert;
    let through = if n1 >= n2 {
        n2 * w.substitute + (n1 - n2) * w.delete
    } else {
        n1 * w.substitute + (n2 - n1) * w.insert
    };
    all.min(through)
}

/// The Indel distance (insertions and deletions only): n1 + n2 − 2·LCS.
pub fn indel(a: &[u8], b: &[u8], s: &mut Scratch, stop: &Context) -> Run<usize> {
    if a == b {
        return Ok(0);
    }
    let alphabet = s.load(a, b)?;
    let (_, x, y) = strip(&s.a, &s.b);
    let (p, t) = if x.len() <= y.len() { (x, y) } else { (y, x) };
    let common = lcs_len(p, t, alphabet, &mut s.lcs, stop)?;
    Ok(x.len() + y.len() - 2 * common)
}

/// The Levenshtein distance of `a` to `b` under the weights `w`.
pub fn distance(a: &[u8], b: &[u8], w: Weights, s: &mut Scratch, stop: &Context) -> Run<usize> {
    if a == b {
        return Ok(0);
    }
    if w.insert == w.delete {
        if w.insert == 0 {
            return Ok(0);
        }
        if w.substitute == w.insert {
            return Ok(levenshtein::distance(a, b, &mut s.unit, stop)? * w.insert);
        }
        if w.substitute >= w.insert + w.delete {
            return Ok(indel(a, b, s, stop)? * w.insert);
        }
    }
    s.load_code_points(a, b)?;
    let Scratch {
        a, b, row, row32, ..
    } = s;
    table(a, b, w, row, row32, stop)
}

/// The Levenshtein distance under `w` of texts already decoded into ids (equal ids for equal
/// characters, as code points or dense ids are): the table [`distance`] runs on texts.
pub fn distance_of_ids(
    a: &[u32],
    b: &[u32],
    w: Weights,
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    table(a, b, w, &mut s.row, &mut s.row32, stop)
}

/// [`wagner_fischer`] on `a` and `b` without their common prefix and suffix.
fn table(
    a: &[u32],
    b: &[u32],
    w: Weights,
    row: &mut Vec<usize>,
    row32: &mut Vec<u32>,
    stop: &Context,
) -> Run<usize> {
    let (_, x, y) = strip(a, b);
    // A cell (i, j) is at most i·delete + j·insert (delete all, then insert all): 32-bit
    // cells when the last one's bound fits.
    let bound = x
        .len()
        .checked_mul(w.delete)
        .zip(y.len().checked_mul(w.insert))
        .and_then(|(d, i)| d.checked_add(i));
    match bound {
        Some(b) if b <= u32::MAX as usize => wagner_fischer(x, y, w, row32, stop),
        _ => wagner_fischer(x, y, w, row, stop),
    }
}

/// A cell of [`wagner_fischer`]'s row.
trait Cell: Copy + Ord + std::ops::Add<Output = Self> {
    /// `v` as a cell (the caller checked that it fits).
    fn of(v: usize) -> Self;
    /// The cell as a distance.
    fn get(self) -> usize;
}

impl Cell for u32 {
    #[inline(always)]
    fn of(v: usize) -> Self {
        v as u32
    }
    #[inline(always)]
    fn get(self) -> usize {
        self as usize
    }
}

impl Cell for usize {
    #[inline(always)]
    fn of(v: usize) -> Self {
        v
    }
    #[inline(always)]
    fn get(self) -> usize {
        self
    }
}

/// The weighted distance of the code points `x` to `y` by the table, one row (over `y`,
/// without its first column) at a time. The cell to the left, just computed, stays in a
/// register and enters last: from one cell to the next the chain is one addition and one
/// minimum, not a store and its reload.
fn wagner_fischer<T: Cell>(
    x: &[u32],
    y: &[u32],
    w: Weights,
    row: &mut Vec<T>,
    stop: &Context,
) -> Run<usize> {
    // A substitution dearer than a deletion and an insertion is never taken over them: at most
    // their sum, it keeps the distance and the cells under the bound.
    let substitute = w.substitute.min(w.insert.saturating_add(w.delete));
    let (insert, delete, substitute) = (T::of(w.insert), T::of(w.delete), T::of(substitute));
    let zero = T::of(0);
    row.clear();
    row.try_resize(y.len(), zero, "the Levenshtein row")?;
    let row = &mut row[..];
    let mut value = zero;
    for cell in row.iter_mut() {
        value = value + insert;
        *cell = value;
    }
    // The first column: i deletions.
    let mut first = zero;
    for &cx in x {
        stop.check_before(y.len().div_ceil(64))?;
        let mut diagonal = first;
        first = first + delete;
        let mut left = first;
        for (cell, &cy) in row.iter_mut().zip(y) {
            let up = *cell;
            let swap = if cx == cy { zero } else { substitute };
            left = (up + delete).min(diagonal + swap).min(left + insert);
            diagonal = up;
            *cell = left;
        }
    }
    Ok(row.last().map_or(first, |&c| c).get())
}

/// The normalized distance of `a` to `b` under `w` (the distance over [`max_distance`], 0.0
/// when that is 0); unit costs take the lengths from the kernel, not from a count of their own.
pub fn normalized_distance(
    a: &[u8],
    b: &[u8],
    w: Weights,
    s: &mut Scratch,
    stop: &Context,
) -> Run<f64> {
    if w == Weights::UNIT {
        return levenshtein::normalized_distance(a, b, &mut s.unit, stop);
    }
    let dist = distance(a, b, w, s, stop)?;
    Ok(normalized(dist, max_distance(length(a), length(b), w)))
}

/// The number of code points of a text.
pub fn length(text: &[u8]) -> usize {
    super::text::count_code_points(text)
}

/// A lower bound of the distance of `a` to `b` under `w` from their lengths alone: the
/// longer text's surplus takes that many deletions (or insertions), whatever else is done.
pub fn length_bound(a: &[u8], b: &[u8], w: Weights) -> usize {
    let (n1, n2) = (length(a), length(b));
    if n1 >= n2 {
        (n1 - n2) * w.delete
    } else {
        (n2 - n1) * w.insert
    }
}

/// The distance over its maximum (0.0 when the maximum is 0), computed as one division.
pub fn normalized(dist: usize, maximum: usize) -> f64 {
    if maximum == 0 {
        0.0
    } else {
        dist as f64 / maximum as f64
    }
}

/// One edit of an alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    Insert,
    Delete,
    Replace,
}

/// The edit operations turning `a` into `b`, with their positions in `a` and `b`, in
/// RapidFuzz's order and with its choices among equal alignments: common prefix and suffix
/// are left out, the vertical deltas of the table are computed bit-parallel (Myers' algorithm
/// with the stripped `a` as the pattern, one column per symbol of `b`, kept: n·m/4 bytes), and
/// the table is walked back from its end preferring a deletion, then an insertion, then a
/// substitution or match. `None` when the table would exceed [`EDITOPS_CELLS`].
pub fn editops(
    a: &[u8],
    b: &[u8],
    s: &mut Scratch,
    stop: &Context,
) -> Run<Option<Vec<(Op, usize, usize)>>> {
    let alphabet = s.load(a, b)?;
    let Scratch {
        a,
        b,
        slots,
        pm,
        vp,
        vn,
        columns,
        ..
    } = s;
    let (prefix, x, y) = strip(a, b);
    let (n, m) = (x.len(), y.len());
    if n.saturating_mul(m) > EDITOPS_CELLS {
        return Ok(None);
    }
    let words = n.div_ceil(64);
    if n > 0 && m > 0 {
        // Match masks of the symbols of x; slot 0 is the all-zero row of the others.
        slots.clear();
        slots.try_resize(alphabet, 0, "the alignment masks")?;
        pm.clear();
        pm.try_resize(words, 0, "the alignment masks")?;
        for (i, &c) in x.iter().enumerate() {
            if slots[c as usize] == 0 {
                slots[c as usize] = (pm.len() / words) as u32;
                pm.try_resize(pm.len() + words, 0, "the alignment masks")?;
            }
            pm[slots[c as usize] as usize * words + i / 64] |= 1u64 << (i % 64);
        }
        vp.clear();
        vp.try_resize(words, !0u64, "the alignment table")?;
        vn.clear();
        vn.try_resize(words, 0, "the alignment table")?;
        columns.clear();
        columns.try_resize(2 * words * m, 0, "the alignment table")?;
        for (j, &c) in y.iter().enumerate() {
            if j % 64 == 0 {
                stop.check_before(64 * words)?;
            }
            let slot = slots[c as usize] as usize * words;
            column(&pm[slot..slot + words], vp, vn);
            columns[2 * words * j..2 * words * j + words].copy_from_slice(vp);
            columns[2 * words * j + words..2 * words * (j + 1)].copy_from_slice(vn);
        }
    }
    // D[i][j] − D[i − 1][j], the distance of x[..i] to y[..j] against x[..i − 1] to y[..j].
    let vertical = |i: usize, j: usize| -> i8 {
        let (word, bit) = ((i - 1) / 64, (i - 1) % 64);
        let base = 2 * words * (j - 1);
        if (columns[base + word] >> bit) & 1 == 1 {
            1
        } else if (columns[base + words + word] >> bit) & 1 == 1 {
            -1
        } else {
            0
        }
    };
    let mut ops = Vec::new();
    let (mut col, mut line) = (n, m);
    while line > 0 && col > 0 {
        if vertical(col, line) == 1 {
            col -= 1;
            ops.push((Op::Delete, col + prefix, line + prefix));
        } else {
            line -= 1;
            if line > 0 && vertical(col, line) == -1 {
                ops.push((Op::Insert, col + prefix, line + prefix));
            } else {
                col -= 1;
                if x[col] != y[line] {
                    ops.push((Op::Replace, col + prefix, line + prefix));
                }
            }
        }
    }
    while col > 0 {
        col -= 1;
        ops.push((Op::Delete, col + prefix, line + prefix));
    }
    while line > 0 {
        line -= 1;
        ops.push((Op::Insert, col + prefix, line + prefix));
    }
    ops.reverse();
    Ok(Some(ops))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::test_text::lcg;
    use rapidfuzz::distance::levenshtein::{self as reference, Args, WeightTable};

    #[test]
    fn the_table_matches_the_reference_with_narrow_and_wide_cells() {
        let alphabets: [Vec<char>; 3] = [
            "ab".chars().collect(),
            "the cat é東\u{1F300}".chars().collect(),
            (0x4E00..0x4E00 + 30).filter_map(char::from_u32).collect(),
        ];
        // Small weights keep 32-bit cells; the large ones pass u32::MAX and take the wide.
        let weights = [
            (1, 2, 3),
            (3, 2, 1),
            (2, 2, 1),
            (5, 1, 7),
            (0, 1, 1),
            (1, 0, 4),
            (1 << 30, 3 << 29, 1 << 31),
            (u32::MAX as usize, 2, 3),
            (2, 3, 1 << 40),
        ];
        let (mut seed, s, stop) = (11u64, &mut Scratch::default(), Context::new());
        for round in 0..3000 {
            let alphabet = &alphabets[round % alphabets.len()];
            let text = |seed: &mut u64| -> String {
                let len = [0, 1, 2, 7, 31, 64, 65, 100][lcg(seed) % 8];
                (0..len)
                    .map(|_| alphabet[lcg(seed) % alphabet.len()])
                    .collect()
            };
            let a = text(&mut seed);
            let b = if lcg(&mut seed).is_multiple_of(2) {
                let mut b: Vec<char> = a.chars().collect();
                if !b.is_empty() {
                    let at = lcg(&mut seed) % b.len();
                    b[at] = alphabet[lcg(&mut seed) % alphabet.len()];
                }
                b.into_iter().collect()
            } else {
                text(&mut seed)
            };
            let (insert, delete, substitute) = weights[lcg(&mut seed) % weights.len()];
            let w = Weights {
                insert,
                delete,
                substitute,
            };
            let table = WeightTable {
                insertion_cost: insert,
                deletion_cost: delete,
                substitution_cost: substitute,
            };
            let want = reference::distance_with_args(
                a.chars(),
                b.chars(),
                &Args::default().weights(&table),
            );
            let got = distance(a.as_bytes(), b.as_bytes(), w, s, &stop);
            assert_eq!(got, Ok(want), "round {round}: {a:?} {b:?} {:?}", w);
        }
    }

    fn weighted(a: &str, b: &str, w: (usize, usize, usize)) -> usize {
        let w = Weights {
            insert: w.0,
            delete: w.1,
            substitute: w.2,
        };
        distance(
            a.as_bytes(),
            b.as_bytes(),
            w,
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap()
    }

    #[test]
    fn weights_pick_the_cheapest_edits() {
        assert_eq!(weighted("kitten", "sitting", (1, 1, 1)), 3);
        assert_eq!(weighted("kitten", "sitting", (1, 1, 2)), 5);
        assert_eq!(weighted("abc", "", (1, 3, 1)), 9);
        assert_eq!(weighted("", "abc", (2, 1, 1)), 6);
        assert_eq!(weighted("ab", "ba", (1, 1, 5)), 2);
        assert_eq!(weighted("héllo", "hallo", (3, 3, 1)), 1);
    }

    #[test]
    fn editops_are_a_minimal_alignment() {
        let ops = editops(
            b"kitten",
            b"sitting",
            &mut Scratch::default(),
            &Context::new(),
        )
        .unwrap()
        .unwrap();
        assert_eq!(
            ops,
            vec![(Op::Replace, 0, 0), (Op::Replace, 4, 4), (Op::Insert, 6, 6)]
        );
    }
}
