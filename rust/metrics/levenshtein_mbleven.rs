//! The Levenshtein distance under a cut-off of at most [`MOST`], by trying every short
//! sequence of edits (the enumeration of the mbleven algorithm): walking both texts, an
//! edit is spent at each mismatch, in the order the sequence gives, and the walk ends when the
//! sequence runs out at a mismatch. Each walk costs its edits plus what is left of both texts,
//! the cost of a real alignment; one of the sequences of at most k edits follows an optimal
//! alignment when the distance is at most k. A walk stops at the (k + 1)-th mismatch, so a
//! pair far over the cut-off is answered after a few symbols.
//!
//! Only the sequences of exactly k edits are walked: a shorter one followed by substitutions
//! (which keep the surplus) is one of them, and walks the same until its own edits are spent;
//! if no mismatch is left by then, the substitutions are never used. Byte texts skip their
//! runs of equal symbols eight bytes at a time.

use super::levenshtein::common_prefix;

/// A symbol the walks compare, with a quick count of equal leading symbols.
pub trait Letter: PartialEq + Copy {
    /// The number of leading positions where `a` and `b` agree.
    fn same_run(a: &[Self], b: &[Self]) -> usize {
        a.iter().zip(b).take_while(|(x, y)| x == y).count()
    }
}

impl Letter for u8 {
    fn same_run(a: &[u8], b: &[u8]) -> usize {
        common_prefix(a, b)
    }
}

impl Letter for u32 {}

/// The largest cut-off this answers.
pub const MOST: usize = 3;

/// One edit of a sequence: skip a symbol of the longer text, of the shorter, or of both.
#[derive(Clone, Copy, PartialEq)]
enum Edit {
    Long,
    Short,
    Both,
}

const EDITS: [Edit; 3] = [Edit::Long, Edit::Short, Edit::Both];

/// How many sequences of 1 ..= [`MOST`] edits there are (3 + 9 + 27).
const SEQUENCES: usize = 39;

/// Where the sequences of `count` edits with a surplus of `diff` lie in [`Models::edits`].
type Starts = [[usize; MOST + 2]; MOST + 1];

/// Every sequence of 1 ..= [`MOST`] edits that skips at least as many symbols of the longer
/// text as of the shorter (no other can end both walks together), by length and then by
/// surplus: those of `count` edits that skip `diff` more of the longer text are
/// `edits[starts[count][diff]..starts[count][diff + 1]]`.
struct Models {
    edits: [[Edit; MOST]; SEQUENCES],
    starts: Starts,
}

static MODELS: Models = models();

const fn models() -> Models {
    let mut out = Models {
        edits: [[Edit::Both; MOST]; SEQUENCES],
        starts: [[0; MOST + 2]; MOST + 1],
    };
    let mut filled = 0;
    let mut count = 1;
    while count <= MOST {
        let mut diff = 0;
        while diff <= count {
            out.starts[count][diff] = filled;
            // Every sequence of `count` edits, as base-3 digits.
            let mut code = 0;
            while code < 3usize.pow(count as u32) {
                let mut edits = [Edit::Both; MOST];
                let (mut rest, mut k, mut longer, mut shorter) = (code, 0, 0, 0);
                while k < count {
                    edits[k] = EDITS[rest % 3];
                    match edits[k] {
                        Edit::Long => longer += 1,
                        Edit::Short => shorter += 1,
                        Edit::Both => {}
                    }
                    rest /= 3;
                    k += 1;
                }
                if longer == shorter + diff {
                    out.edits[filled] = edits;
                    filled += 1;
                }
                code += 1;
            }
            diff += 1;
        }
        out.starts[count][count + 1] = filled;
        count += 1;
    }
    out
}

/// The distance of `a` and `b` when it is at most `cut` (≤ [`MOST`]), else `cut` + 1.
pub fn capped_distance<S: Letter>(a: &[S], b: &[S], cut: usize) -> usize {
    let prefix = S::same_run(a, b);
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    let (long, short) = if a.len() >= b.len() { (a, b) } else { (b, a) };
    let diff = long.len() - short.len();
    if diff > cut.min(MOST) {
        return cut + 1;
    }
    if short.is_empty() {
        return diff;
    }
    let mut best = cut + 1;
    // The sequences of exactly `cut` edits (1 ..= MOST here: a cut of 0 with equal lengths
    // left an empty pair above) whose surplus is the difference of the lengths.
    let count = cut.min(MOST);
    let starts = &MODELS.starts[count];
    for edits in &MODELS.edits[starts[diff]..starts[diff + 1]] {
        best = best.min(walk(long, short, &edits[..count]));
        // No alignment of texts that differ costs less than 1 or than the lengths' gap.
        if best <= diff.max(1) {
            break;
        }
    }
    best
}

/// The cost of the alignment that spends `edits` in turn at the mismatches of a walk.
fn walk<S: Letter>(long: &[S], short: &[S], edits: &[Edit]) -> usize {
    let (mut i, mut j, mut spent) = (0usize, 0usize, 0usize);
    while i < long.len() && j < short.len() {
        let run = S::same_run(&long[i..], &short[j..]);
        (i, j) = (i + run, j + run);
        if i == long.len() || j == short.len() {
            break;
        }
        let Some(&edit) = edits.get(spent) else {
            break;
        };
        spent += 1;
        match edit {
            Edit::Long => i += 1,
            Edit::Short => j += 1,
            Edit::Both => {
                i += 1;
                j += 1;
            }
        }
    }
    spent + (long.len() - i) + (short.len() - j)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::test_text::lcg;
    use rapidfuzz::distance::levenshtein as reference;

    #[test]
    fn every_cut_off_matches_the_reference() {
        let mut seed = 9u64;
        for round in 0..20000 {
            let sigma = [2usize, 3, 26][round % 3];
            let n = lcg(&mut seed) % 90;
            let a: Vec<u8> = (0..n).map(|_| (lcg(&mut seed) % sigma) as u8).collect();
            let mut b = a.clone();
            for _ in 0..lcg(&mut seed) % 6 {
                let k = lcg(&mut seed) % (b.len() + 1);
                let sym = (lcg(&mut seed) % sigma) as u8;
                match lcg(&mut seed) % 3 {
                    0 if k < b.len() => b[k] = sym,
                    1 if k < b.len() => {
                        b.remove(k);
                    }
                    _ => b.insert(k, sym),
                }
            }
            let want = reference::distance(a.iter(), b.iter());
            for cut in 0..=MOST {
                let got = capped_distance(&a, &b, cut);
                assert_eq!(got, want.min(cut + 1), "round {round} cut {cut}");
            }
        }
    }
}
