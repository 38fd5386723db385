//! Unit-cost Levenshtein distances of several short pairs at once, one pair per lane.
//!
//! A batch of pairs is cut into groups of [`LANES`]. Each pair of a group loses its common
//! prefix and suffix (on the bytes, at code-point boundaries); when its shorter side is then 1
//! ..= 64 code points and its longer side at most [`LONGEST_TEXT`], the match mask of every
//! text symbol is written into lane k of an interleaved buffer (row j holds the masks of the
//! j-th text symbol of every lane), and Myers' recurrence then runs over all lanes together:
//! one step per row, the same word operations in every lane, which the compiler turns into
//! vector instructions (AVX-512: eight lanes of 64 bits; AVX2: four; baseline SSE2: two, picked
//! at run time; the same source, so the same results). A lane past the end of its text stops
//! counting. Any other pair (longer, or with a long text) takes
//! [`levenshtein::distance`](super::levenshtein::distance).
//!
//! Masks: ASCII pairs look each text byte up in a 256-entry table of the pattern's masks;
//! other pairs decode the pattern into 64 code-point slots and compare each text code point
//! with all of them at once (`levenshtein_short.rs`'s comparison).
//!
//! The Indel distance (insertions and deletions only) takes the same lanes with Hyyrö's
//! bit-parallel LCS recurrence instead of Myers': Indel = m + n − 2·LCS, and the common
//! prefix and suffix leave it unchanged as they leave the Levenshtein distance.

use super::edit_weighted;
use super::halt::{Context, Halt, Run};
use super::levenshtein::{common_prefix, common_suffix, strip_bytes};
use super::levenshtein_short::{lane_mask, NONE, SHORT};
use super::myers::step;
use super::text::{count_code_points, next_code_point};

/// Pairs per group.
pub const LANES: usize = 8;

/// Which distance the lanes compute.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// Unit-cost Levenshtein (Myers' recurrence).
    Levenshtein,
    /// Insertions and deletions only (the LCS recurrence).
    Indel,
}

/// The longest text (in code points, after the common prefix and suffix go) a lane takes:
/// a longer one would keep the other lanes of its group stepping idle.
const LONGEST_TEXT: usize = 128;

/// Reusable buffers of [`distances`].
pub struct Scratch {
    /// The interleaved match masks: row j, lane k at `j * LANES + k`.
    eq: Vec<u64>,
    /// The masks of an ASCII pattern by byte; all zero between pairs.
    table: Box<[u64; 256]>,
    /// For the pairs no lane takes.
    alone: edit_weighted::Scratch,
}

impl Default for Scratch {
    fn default() -> Self {
        Scratch {
            eq: vec![0; LONGEST_TEXT * LANES],
            table: Box::new([0; 256]),
            alone: edit_weighted::Scratch::default(),
        }
    }
}

/// Ask for the first bytes of `text` to be brought into the cache: a batch's texts lie
/// scattered in memory, and the loads of one group's are otherwise waited for one by one.
#[inline]
pub fn prefetch(text: &[u8]) {
    #[cfg(target_arch = "x86_64")]
    // SAFETY: a prefetch is only a hint; it reads nothing and faults on no address.
    unsafe {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        _mm_prefetch::<_MM_HINT_T0>(text.as_ptr().cast());
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = text;
}

/// What became of one pair of a group.
enum Load {
    /// The distance, known without the recurrence.
    Done(usize),
    /// In its lane: the pattern's and the text's lengths.
    Lane(usize, usize),
    /// Too long for a lane.
    Alone,
}

/// The `kind` distances of `count` ≤ [`LANES`] pairs, `pair(k)` the k-th with the length of
/// each text in code points (Python's, known before: a text with as many code points as bytes
/// is ASCII, without a pass over it), into `out[..count]`, and those lengths into
/// `lens[..count]` (for the normalized forms); a pair too long for a lane gets
/// `alone(a, b, scratch)` instead (the one-pair distance, or a capped one). On a halt, the
/// index of the pair that met it.
#[allow(clippy::too_many_arguments)]
pub fn distances<'x>(
    kind: Kind,
    count: usize,
    pair: impl Fn(usize) -> ((&'x [u8], usize), (&'x [u8], usize)),
    out: &mut [usize; LANES],
    lens: &mut [(usize, usize); LANES],
    s: &mut Scratch,
    stop: &Context,
    mut alone: impl FnMut(&[u8], &[u8], &mut edit_weighted::Scratch) -> Run<usize>,
) -> Result<(), (usize, Halt)> {
    let count = count.min(LANES);
    let (mut m, mut n) = ([0usize; LANES], [0usize; LANES]);
    let mut steps = 0;
    let wide = has_avx512();
    for (k, (slot, len)) in out.iter_mut().zip(lens.iter_mut()).enumerate().take(count) {
        let ((a, ca), (b, cb)) = pair(k);
        *len = (ca, cb);
        // Equal texts are all common prefix: `Done(0)`.
        let load = if a.len() == ca && b.len() == cb {
            load_ascii(a, b, k, s)
        } else {
            load_unicode(a, b, k, &mut s.eq, wide)
        };
        match load {
            Load::Done(d) => *slot = d,
            Load::Lane(pm, tn) => {
                (m[k], n[k]) = (pm, tn);
                steps = steps.max(tn);
            }
            Load::Alone => {
                *slot = alone(a, b, &mut s.alone).map_err(|h| (k, h))?;
            }
        }
    }
    if steps == 0 {
        return Ok(());
    }
    // One word operation per symbol of each lane's text, as the one-pair kernels count.
    stop.check_before(n.iter().sum()).map_err(|h| (0, h))?;
    let eq = &s.eq[..steps * LANES];
    let scores = match kind {
        Kind::Levenshtein => run(eq, &m, &n),
        Kind::Indel => run_indel(eq, &m, &n),
    };
    for k in 0..count {
        if n[k] > 0 {
            out[k] = scores[k] as usize;
        }
    }
    Ok(())
}

/// Lane `k` for an ASCII pair.
fn load_ascii(a: &[u8], b: &[u8], k: usize, s: &mut Scratch) -> Load {
    let prefix = common_prefix(a, b);
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = common_suffix(a, b);
    let (a, b) = (&a[..a.len() - suffix], &b[..b.len() - suffix]);
    let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    if p.is_empty() {
        return Load::Done(t.len());
    }
    if p.len() > SHORT || t.len() > LONGEST_TEXT {
        return Load::Alone;
    }
    let table = &mut *s.table;
    for (i, &c) in p.iter().enumerate() {
        table[c as usize] |= 1 << i;
    }
    for (row, &c) in s.eq.chunks_exact_mut(LANES).zip(t) {
        row[k] = table[c as usize];
    }
    for &c in p {
        table[c as usize] = 0;
    }
    Load::Lane(p.len(), t.len())
}

/// Lane `k` for a pair that is not all ASCII.
fn load_unicode(whole_a: &[u8], whole_b: &[u8], k: usize, eq: &mut [u64], wide: bool) -> Load {
    let (a, b) = strip_bytes(whole_a, whole_b);
    let (ca, cb) = (count_code_points(a), count_code_points(b));
    let ((p, m), (t, n)) = if ca <= cb {
        ((a, ca), (b, cb))
    } else {
        ((b, cb), (a, ca))
    };
    if m == 0 {
        return Load::Done(n);
    }
    if m > SHORT || n > LONGEST_TEXT {
        return Load::Alone;
    }
    let mut slots = [NONE; SHORT];
    let mut i = 0;
    for slot in slots.iter_mut().take(m) {
        let (c, len) = next_code_point(p, i);
        *slot = c;
        i += len;
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = wide;
    #[cfg(target_arch = "x86_64")]
    if wide {
        // SAFETY: `wide` says the CPU has AVX-512 F.
        unsafe { fill_avx512(&slots, m, t, n, k, eq) };
        return Load::Lane(m, n);
    }
    fill(t, n, k, eq, |c| lane_mask(&slots, m, c));
    Load::Lane(m, n)
}

/// Lane `k`'s masks: `mask(c)` of each of the first `n` code points `c` of `t`.
#[inline(always)]
fn fill(t: &[u8], n: usize, k: usize, eq: &mut [u64], mut mask: impl FnMut(u32) -> u64) {
    let mut i = 0;
    for row in eq.chunks_exact_mut(LANES).take(n) {
        let (c, len) = next_code_point(t, i);
        i += len;
        row[k] = mask(c);
    }
}

/// [`fill`] with the masks of the `m` code points in `slots`, sixteen compared per
/// instruction with AVX-512.
///
/// # Safety
/// The CPU must support AVX-512 F.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn fill_avx512(
    slots: &[u32; SHORT],
    m: usize,
    t: &[u8],
    n: usize,
    k: usize,
    eq: &mut [u64],
) {
    use std::arch::x86_64::{
        __m512i, _mm512_cmpeq_epi32_mask, _mm512_loadu_si512, _mm512_set1_epi32,
    };
    // SAFETY (the loads): each reads sixteen slots (64 bytes) of the 64 in `slots`.
    let rows: [__m512i; SHORT / 16] =
        std::array::from_fn(|r| unsafe { _mm512_loadu_si512(slots[16 * r..].as_ptr().cast()) });
    #[inline(always)]
    fn masks<const R: usize>(rows: &[__m512i; SHORT / 16], c: u32) -> u64 {
        // SAFETY: only reached from `fill_avx512`, whose caller checked AVX-512 F.
        unsafe {
            let needle = _mm512_set1_epi32(c as i32);
            let mut mask = 0u64;
            for (r, row) in rows.iter().enumerate().take(R) {
                mask |= u64::from(_mm512_cmpeq_epi32_mask(*row, needle)) << (16 * r);
            }
            mask
        }
    }
    match m.div_ceil(16) {
        1 => fill(t, n, k, eq, |c| masks::<1>(&rows, c)),
        2 => fill(t, n, k, eq, |c| masks::<2>(&rows, c)),
        3 => fill(t, n, k, eq, |c| masks::<3>(&rows, c)),
        _ => fill(t, n, k, eq, |c| masks::<4>(&rows, c)),
    }
}

/// Whether the CPU has AVX-512 F and VL.
fn has_avx512() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl")
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// The recurrence over every lane; lane k has a pattern of `m[k]` symbols and a text of
/// `n[k]` (none when 0), its masks in column k of `eq`. Returns each lane's distance.
fn run(eq: &[u64], m: &[usize; LANES], n: &[usize; LANES]) -> [u64; LANES] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl") {
            // SAFETY: the CPU has AVX-512 F and VL, checked just above.
            return unsafe { run_avx512(eq, m, n) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { run_avx2(eq, m, n) };
        }
    }
    run_lanes(eq, m, n)
}

/// [`run_lanes`] compiled for AVX-512.
///
/// # Safety
/// The CPU must support AVX-512 F and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2")]
unsafe fn run_avx512(eq: &[u64], m: &[usize; LANES], n: &[usize; LANES]) -> [u64; LANES] {
    run_lanes(eq, m, n)
}

/// [`run_lanes`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn run_avx2(eq: &[u64], m: &[usize; LANES], n: &[usize; LANES]) -> [u64; LANES] {
    run_lanes(eq, m, n)
}

/// Myers' recurrence in every lane at once: the lane loops have no branches, so that they
/// vectorize.
#[inline(always)]
fn run_lanes(eq: &[u64], m: &[usize; LANES], n: &[usize; LANES]) -> [u64; LANES] {
    let mut last = [0u64; LANES];
    let mut score = [0u64; LANES];
    let mut end = [0u64; LANES];
    for k in 0..LANES {
        // A lane without a pair has no bottom row to count.
        last[k] = if m[k] > 0 { 1 << (m[k] - 1) } else { 0 };
        score[k] = m[k] as u64;
        end[k] = n[k] as u64;
    }
    let (mut vp, mut vn) = ([!0u64; LANES], [0u64; LANES]);
    for (j, row) in eq.chunks_exact(LANES).enumerate() {
        let j = j as u64;
        for k in 0..LANES {
            let column = step(row[k], vp[k], vn[k]);
            // Past the end of its text a lane keeps stepping, uncounted.
            let live = if j < end[k] { last[k] } else { 0 };
            score[k] = score[k]
                .wrapping_add((column.hp & live != 0) as u64)
                .wrapping_sub((column.hn & live != 0) as u64);
            (vp[k], vn[k]) = (column.vp, column.vn);
        }
    }
    score
}

/// The Indel distances of the lanes, as [`run`] the Levenshtein ones.
fn run_indel(eq: &[u64], m: &[usize; LANES], n: &[usize; LANES]) -> [u64; LANES] {
    #[cfg(target_arch = "x86_64")]
    {
        if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512vl") {
            // SAFETY: the CPU has AVX-512 F and VL, checked just above.
            return unsafe { indel_avx512(eq, m, n) };
        }
        if std::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2, checked just above.
            return unsafe { indel_avx2(eq, m, n) };
        }
    }
    indel_lanes(eq, m, n)
}

/// [`indel_lanes`] compiled for AVX-512.
///
/// # Safety
/// The CPU must support AVX-512 F and VL.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vl,avx2")]
unsafe fn indel_avx512(eq: &[u64], m: &[usize; LANES], n: &[usize; LANES]) -> [u64; LANES] {
    indel_lanes(eq, m, n)
}

/// [`indel_lanes`] compiled for AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn indel_avx2(eq: &[u64], m: &[usize; LANES], n: &[usize; LANES]) -> [u64; LANES] {
    indel_lanes(eq, m, n)
}

/// Hyyrö's LCS recurrence in every lane at once (V starts all ones; a text symbol with match
/// mask M gives U = V & M, V = (V + U) | (V − U); the LCS is the count of zero bits of V in
/// the pattern's rows), then Indel = m + n − 2·LCS. A lane past the end of its text sees an
/// empty mask, which leaves V as it is.
#[inline(always)]
fn indel_lanes(eq: &[u64], m: &[usize; LANES], n: &[usize; LANES]) -> [u64; LANES] {
    let mut end = [0u64; LANES];
    for k in 0..LANES {
        end[k] = n[k] as u64;
    }
    let mut v = [!0u64; LANES];
    for (j, row) in eq.chunks_exact(LANES).enumerate() {
        let j = j as u64;
        for k in 0..LANES {
            let live = if j < end[k] { !0u64 } else { 0 };
            let u = v[k] & row[k] & live;
            v[k] = v[k].wrapping_add(u) | v[k].wrapping_sub(u);
        }
    }
    let mut out = [0u64; LANES];
    for k in 0..LANES {
        let rows = if m[k] >= 64 {
            !0u64
        } else {
            (1u64 << m[k]) - 1
        };
        let lcs = u64::from((!v[k] & rows).count_ones());
        out[k] = (m[k] + n[k]) as u64 - 2 * lcs;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::levenshtein;
    use crate::metrics::test_text::lcg;
    use rapidfuzz::distance::levenshtein as reference;

    const BOUNDARIES: [usize; 12] = [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 129];

    /// A text of `len` symbols from `alphabet`, or an edited copy of `base`.
    fn text(seed: &mut u64, alphabet: &[char], len: usize, base: Option<&str>) -> String {
        let pick = |seed: &mut u64| alphabet[lcg(seed) % alphabet.len()];
        let Some(base) = base else {
            return (0..len).map(|_| pick(seed)).collect();
        };
        let mut chars: Vec<char> = base.chars().collect();
        for _ in 0..=lcg(seed) % 6 {
            let at = lcg(seed) % (chars.len() + 1);
            match lcg(seed) % 3 {
                0 if at < chars.len() => chars[at] = pick(seed),
                1 if at < chars.len() => {
                    chars.remove(at);
                }
                _ => chars.insert(at, pick(seed)),
            }
        }
        chars.into_iter().collect()
    }

    #[test]
    fn groups_match_the_reference_at_every_boundary() {
        groups_match(Kind::Levenshtein, 36);
    }

    #[test]
    fn indel_groups_match_the_reference_at_every_boundary() {
        groups_match(Kind::Indel, 30);
    }

    fn groups_match(kind: Kind, mut seed: u64) {
        let alphabets: [Vec<char>; 5] = [
            "ab".chars().collect(),
            ('a'..='z').chain([' ']).collect(),
            (0x4E00..0x4E00 + 40).filter_map(char::from_u32).collect(),
            (0x1F300..0x1F300 + 40)
                .filter_map(char::from_u32)
                .chain("xyé".chars())
                .collect(),
            // Mostly ASCII with a few wider symbols, as in Latin text with accents.
            "ab cé東\u{1F300}".chars().collect(),
        ];
        let stop = Context::new();
        let s = &mut Scratch::default();
        for round in 0..1500 {
            let alphabet = &alphabets[round % alphabets.len()];
            let count = 1 + lcg(&mut seed) % LANES;
            let pairs: Vec<(String, String)> = (0..count)
                .map(|_| {
                    let la = BOUNDARIES[lcg(&mut seed) % BOUNDARIES.len()];
                    let a = text(&mut seed, alphabet, la, None);
                    let b = if lcg(&mut seed).is_multiple_of(2) {
                        text(&mut seed, alphabet, 0, Some(&a))
                    } else {
                        let lb = BOUNDARIES[lcg(&mut seed) % BOUNDARIES.len()];
                        text(&mut seed, alphabet, lb, None)
                    };
                    (a, b)
                })
                .collect();
            let mut out = [usize::MAX; LANES];
            let mut lens = [(0, 0); LANES];
            let got = distances(
                kind,
                count,
                |k| {
                    let (a, b) = &pairs[k];
                    (
                        (a.as_bytes(), a.chars().count()),
                        (b.as_bytes(), b.chars().count()),
                    )
                },
                &mut out,
                &mut lens,
                s,
                &stop,
                |a, b, s| match kind {
                    Kind::Levenshtein => levenshtein::distance(a, b, s.unit(), &stop),
                    Kind::Indel => edit_weighted::indel(a, b, s, &stop),
                },
            );
            assert!(got.is_ok());
            for (k, (a, b)) in pairs.iter().enumerate() {
                let want = match kind {
                    Kind::Levenshtein => reference::distance(a.chars(), b.chars()),
                    Kind::Indel => rapidfuzz::distance::indel::distance(a.chars(), b.chars()),
                };
                assert_eq!(out[k], want, "round {round} pair {k}: {a:?} {b:?}");
                let counts = (a.chars().count(), b.chars().count());
                assert_eq!(lens[k], counts, "round {round} pair {k}: {a:?} {b:?}");
            }
            assert!(s.table.iter().all(|&w| w == 0));
        }
    }

    #[test]
    fn every_instruction_set_gives_the_same_scores() {
        let mut seed = 5u64;
        for _ in 0..200 {
            let m: [usize; LANES] = std::array::from_fn(|_| lcg(&mut seed) % 65);
            let n: [usize; LANES] = std::array::from_fn(|k| m[k] + lcg(&mut seed) % 40);
            let steps = *n.iter().max().unwrap_or(&0);
            let eq: Vec<u64> = (0..steps * LANES)
                .map(|_| (lcg(&mut seed) as u64) << 32 | lcg(&mut seed) as u64)
                .collect();
            let want = run_lanes(&eq, &m, &n);
            assert_eq!(run(&eq, &m, &n), want);
            let want_indel = indel_lanes(&eq, &m, &n);
            assert_eq!(run_indel(&eq, &m, &n), want_indel);
            #[cfg(target_arch = "x86_64")]
            if std::is_x86_feature_detected!("avx2") {
                // SAFETY: checked just above.
                assert_eq!(unsafe { run_avx2(&eq, &m, &n) }, want);
                // SAFETY: checked just above.
                assert_eq!(unsafe { indel_avx2(&eq, &m, &n) }, want_indel);
            }
        }
    }

    #[test]
    fn unicode_masks_are_the_same_with_and_without_avx512() {
        let mut seed = 12u64;
        let alphabet: Vec<char> = (0x1F300..0x1F300 + 30)
            .filter_map(char::from_u32)
            .chain("abé\u{4E00}".chars())
            .collect();
        for round in 0..2000 {
            let a = text(
                &mut seed,
                &alphabet,
                BOUNDARIES[round % BOUNDARIES.len()],
                None,
            );
            let b = text(&mut seed, &alphabet, 0, Some(&a));
            let (mut plain, mut wide) =
                (vec![0; LONGEST_TEXT * LANES], vec![0; LONGEST_TEXT * LANES]);
            let k = round % LANES;
            load_unicode(a.as_bytes(), b.as_bytes(), k, &mut plain, false);
            load_unicode(a.as_bytes(), b.as_bytes(), k, &mut wide, has_avx512());
            assert_eq!(plain, wide, "round {round}");
        }
    }

    #[test]
    fn a_raised_stop_halts_a_group() {
        let stop = Context::new();
        stop.raise();
        let mut out = [0; LANES];
        let got = distances(
            Kind::Levenshtein,
            2,
            |_| (("kitten".as_bytes(), 6), ("sitting".as_bytes(), 7)),
            &mut out,
            &mut [(0, 0); LANES],
            &mut Scratch::default(),
            &stop,
            |a, b, s| levenshtein::distance(a, b, s.unit(), &stop),
        );
        assert_eq!(got, Err((0, Halt::Stopped)));
    }
}
