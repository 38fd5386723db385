//! Unit-cost Levenshtein distance of a short pattern (at most [`SHORT`] code points) against a
//! text, for pairs that are not all ASCII: no renaming of the symbols. A pattern with few
//! distinct non-ASCII code points ([`mixed_distance`]) takes a 128-entry table for ASCII and
//! reads the text's bytes as they are; for any other pattern the
//! match mask of a text symbol is found by comparing it with every pattern symbol at once
//! (SSE2 on x86_64, four lanes per instruction, or AVX2 where the CPU has it and the pattern
//! is over 32 symbols; a plain loop off x86_64), which for so short a
//! pattern costs less than a hash lookup per symbol.

use super::halt::{Context, Run};
use super::levenshtein_blocks::single_word;
use super::myers::{bottom_change, step};
use super::pattern::symbols_per_check;
use super::text::next_code_point;

/// The longest pattern this path takes.
pub const SHORT: usize = 64;

/// A lane value no code point takes, for the lanes past the pattern's end.
pub const NONE: u32 = u32::MAX;

/// The distance of the pattern `p` (1 ..= [`SHORT`] code points) and the text `t`.
pub fn short_distance(p: &[u32], t: &[u32], stop: &Context) -> Run<usize> {
    let mut lanes = [NONE; SHORT];
    lanes[..p.len()].copy_from_slice(p);
    #[cfg(target_arch = "x86_64")]
    if p.len() > 32 && std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { avx2_distance(&lanes, p.len(), t, stop) };
    }
    lanes_distance(&lanes, p.len(), t, stop)
}

/// The most distinct non-ASCII code points a pattern may hold for [`mixed_distance`]: with
/// more, comparing with every position at once (`short_distance`) measured faster.
const MIXED_OTHERS: usize = 8;

/// The distance of the pattern `p` (1 ..= [`SHORT`] code points, of which at most
/// [`MIXED_OTHERS`] distinct ones are past ASCII) and the text `t` (generalized UTF-8, read as
/// it is: no decoding into a buffer), or `None` when `p` has more distinct non-ASCII code
/// points. ASCII symbols of the text find their mask in a table of 128; the others compare
/// with the pattern's distinct non-ASCII code points only, not with every position: for
/// mostly-ASCII text that is one load a symbol.
pub fn mixed_distance(p: &[u32], t: &[u8], stop: &Context) -> Run<Option<usize>> {
    match MixedPattern::new(p) {
        Some(pattern) => pattern.distance(t, stop).map(Some),
        None => Ok(None),
    }
}

/// A pattern prepared for [`mixed_distance`], to be run against many texts.
pub struct MixedPattern {
    ascii: [u64; 128],
    others: [u32; MIXED_OTHERS],
    masks: [u64; MIXED_OTHERS],
    distinct: usize,
    len: usize,
}

impl MixedPattern {
    /// The prepared pattern `p` (1 ..= [`SHORT`] code points), or `None` when it is empty,
    /// longer, or has more than [`MIXED_OTHERS`] distinct non-ASCII code points.
    pub fn new(p: &[u32]) -> Option<MixedPattern> {
        if p.is_empty() || p.len() > SHORT {
            return None;
        }
        let mut q = MixedPattern {
            ascii: [0; 128],
            others: [NONE; MIXED_OTHERS],
            masks: [0; MIXED_OTHERS],
            distinct: 0,
            len: p.len(),
        };
        for (i, &c) in p.iter().enumerate() {
            if c < 128 {
                q.ascii[c as usize] |= 1 << i;
                continue;
            }
            let slot = match q.others[..q.distinct].iter().position(|&o| o == c) {
                Some(slot) => slot,
                None if q.distinct < MIXED_OTHERS => {
                    q.others[q.distinct] = c;
                    q.distinct += 1;
                    q.distinct - 1
                }
                None => return None,
            };
            q.masks[slot] |= 1 << i;
        }
        Some(q)
    }

    /// The distance of the pattern to the text `t` (generalized UTF-8).
    pub fn distance(&self, t: &[u8], stop: &Context) -> Run<usize> {
        let tables = Mixed {
            ascii: &self.ascii,
            others: &self.others,
            masks: &self.masks,
        };
        // Non-ASCII code points are compared four at a time: as few groups of four as hold them.
        match self.distinct {
            0..=4 => tables.run::<1, false>(self.len, t, (0, 0), stop),
            _ => tables.run::<2, false>(self.len, t, (0, 0), stop),
        }
    }

    /// [`MixedPattern::distance`] when it is at most `cap`, else some value over `cap`: the
    /// text `t` of `chars` code points is left once the distance so far, less a step for each
    /// code point still to come, is over `cap` (each column moves it by at most one).
    pub fn distance_capped(
        &self,
        t: &[u8],
        chars: usize,
        cap: usize,
        stop: &Context,
    ) -> Run<usize> {
        let tables = Mixed {
            ascii: &self.ascii,
            others: &self.others,
            masks: &self.masks,
        };
        match self.distinct {
            0..=4 => tables.run::<1, true>(self.len, t, (chars, cap), stop),
            _ => tables.run::<2, true>(self.len, t, (chars, cap), stop),
        }
    }
}

/// The match masks of [`mixed_distance`]'s pattern.
struct Mixed<'x> {
    ascii: &'x [u64; 128],
    others: &'x [u32; MIXED_OTHERS],
    masks: &'x [u64; MIXED_OTHERS],
}

impl Mixed<'_> {
    /// Myers' recurrence over the code points of `t`, comparing non-ASCII ones with the first
    /// 4·`CHUNKS` non-ASCII code points of the pattern.
    /// With `CAPPED`, `(chars, cap)`: `t` has `chars` code points, and the run stops with
    /// `cap + 1` once every eight code points show the distance must end over `cap`.
    fn run<const CHUNKS: usize, const CAPPED: bool>(
        &self,
        m: usize,
        t: &[u8],
        (chars, cap): (usize, usize),
        stop: &Context,
    ) -> Run<usize> {
        let (mut vp, mut vn) = (!0u64, 0u64);
        let last = 1u64 << (m - 1);
        let mut score = m;
        let (every, mut next_check, mut i) = (symbols_per_check(1), 0, 0);
        // Code points still to come once this one is read.
        let mut left = chars;
        while i < t.len() {
            if i >= next_check {
                stop.check_before(every.min(t.len() - i))?;
                next_check = i + every;
            }
            if CAPPED {
                // `score` can fall by at most `left` more.
                if left % 8 == 0 && score > cap.saturating_add(left) {
                    return Ok(cap + 1);
                }
                left = left.saturating_sub(1);
            }
            let eq = if t[i] < 0x80 {
                i += 1;
                self.ascii[t[i - 1] as usize]
            } else {
                let (c, len) = next_code_point(t, i);
                i += len;
                let hit = eq_mask::<CHUNKS>(self.others, c);
                if hit == 0 {
                    0
                } else {
                    self.masks[hit.trailing_zeros() as usize % MIXED_OTHERS]
                }
            };
            let column = step(eq, vp, vn);
            score = score.wrapping_add(bottom_change(&column, last));
            (vp, vn) = (column.vp, column.vn);
        }
        Ok(score)
    }
}

/// [`short_distance`] of the `m` symbols in `lanes` with the baseline instructions.
fn lanes_distance(lanes: &[u32; SHORT], m: usize, t: &[u32], stop: &Context) -> Run<usize> {
    match m {
        0..=8 => single_word(m, t, stop, |c| eq_mask::<2>(lanes, c)),
        9..=16 => single_word(m, t, stop, |c| eq_mask::<4>(lanes, c)),
        17..=32 => single_word(m, t, stop, |c| eq_mask::<8>(lanes, c)),
        _ => single_word(m, t, stop, |c| eq_mask::<16>(lanes, c)),
    }
}

/// The match mask of `c` over the first `m` (1 ..= [`SHORT`]) code points in `lanes` (the rest
/// [`NONE`]): as few comparisons as cover `m`.
#[inline]
pub fn lane_mask(lanes: &[u32; SHORT], m: usize, c: u32) -> u64 {
    match m {
        0..=8 => eq_mask::<2>(lanes, c),
        9..=16 => eq_mask::<4>(lanes, c),
        17..=32 => eq_mask::<8>(lanes, c),
        _ => eq_mask::<16>(lanes, c),
    }
}

/// [`lanes_distance`] with AVX2: eight lanes per comparison. The loop is written out here (not
/// through `single_word`'s closure) so that the comparisons are compiled with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn avx2_distance(lanes: &[u32; SHORT], m: usize, t: &[u32], stop: &Context) -> Run<usize> {
    use std::arch::x86_64::{
        __m256i, _mm256_castsi256_ps, _mm256_cmpeq_epi32, _mm256_loadu_si256, _mm256_movemask_ps,
        _mm256_set1_epi32, _mm256_setzero_si256,
    };
    let mut rows: [__m256i; SHORT / 8] = [_mm256_setzero_si256(); SHORT / 8];
    for (row, part) in rows.iter_mut().zip(lanes.chunks_exact(8)) {
        // `part` holds the eight lanes (32 bytes) the unaligned load reads.
        *row = _mm256_loadu_si256(part.as_ptr().cast());
    }
    let (mut vp, mut vn) = (!0u64, 0u64);
    let last = 1u64 << (m - 1);
    let mut score = m;
    for chunk in t.chunks(symbols_per_check(1)) {
        stop.check_before(chunk.len())?;
        for &c in chunk {
            let needle = _mm256_set1_epi32(c as i32);
            let mut eq = 0u64;
            for (k, row) in rows.iter().enumerate() {
                let bits =
                    _mm256_movemask_ps(_mm256_castsi256_ps(_mm256_cmpeq_epi32(*row, needle)));
                eq |= u64::from(bits as u32 & 0xFF) << (8 * k);
            }
            let column = step(eq, vp, vn);
            score = score.wrapping_add(bottom_change(&column, last));
            (vp, vn) = (column.vp, column.vn);
        }
    }
    Ok(score)
}

/// Bit i set where `lanes[i]` is `c`, over the first 4·`CHUNKS` lanes (`lanes` has as many).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
fn eq_mask<const CHUNKS: usize>(lanes: &[u32], c: u32) -> u64 {
    use std::arch::x86_64::{
        _mm_castsi128_ps, _mm_cmpeq_epi32, _mm_loadu_si128, _mm_movemask_ps, _mm_set1_epi32,
    };
    let mut mask = 0u64;
    for (k, part) in lanes.chunks_exact(4).take(CHUNKS).enumerate() {
        // SAFETY: SSE2 is part of every x86_64 target, and `part` holds the four lanes (16
        // bytes) the unaligned load reads.
        let bits = unsafe {
            let v = _mm_loadu_si128(part.as_ptr().cast());
            let eq = _mm_cmpeq_epi32(v, _mm_set1_epi32(c as i32));
            _mm_movemask_ps(_mm_castsi128_ps(eq))
        };
        mask |= u64::from(bits as u32 & 0xF) << (4 * k);
    }
    mask
}

#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn eq_mask<const CHUNKS: usize>(lanes: &[u32], c: u32) -> u64 {
    eq_mask_scalar(&lanes[..4 * CHUNKS], c)
}

/// The portable form of `eq_mask` (the one used off x86_64; tested against it there).
#[cfg_attr(target_arch = "x86_64", allow(dead_code))]
#[inline(always)]
fn eq_mask_scalar(lanes: &[u32], c: u32) -> u64 {
    lanes
        .iter()
        .enumerate()
        .fold(0u64, |mask, (i, &x)| mask | (u64::from(x == c) << i))
}

#[cfg(test)]
mod tests {
    use super::*;
    use rapidfuzz::distance::levenshtein as reference;

    fn lcg(seed: &mut u64) -> u32 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (*seed >> 33) as u32
    }

    #[test]
    fn masks_agree_with_the_portable_form() {
        let mut seed = 4u64;
        for m in 0..=SHORT {
            let mut lanes = [NONE; SHORT];
            for lane in lanes.iter_mut().take(m) {
                *lane = 0x1F300 + lcg(&mut seed) % 5;
            }
            for c in (0x1F300..0x1F306).chain([0, NONE - 1]) {
                let want = eq_mask_scalar(&lanes, c);
                assert_eq!(eq_mask::<16>(&lanes, c), want);
                assert_eq!(eq_mask::<8>(&lanes, c), want & 0xFFFF_FFFF);
                assert_eq!(eq_mask::<4>(&lanes, c), want & 0xFFFF);
                assert_eq!(eq_mask::<2>(&lanes, c), want & 0xFF);
            }
        }
    }

    #[test]
    fn mixed_patterns_match_the_reference() {
        // Distinct non-ASCII code points on both sides of every comparison width (4, 8,
        // and one over), ASCII around them, and texts of one- to four-byte code points.
        let mut seed = 17u64;
        let stop = Context::new();
        let (mut taken, mut refused) = (0, 0);
        for round in 0..4000 {
            let distinct = [1usize, 3, 4, 5, 8, 9, 15, 16, 17, 30][round % 10];
            let others: Vec<char> = (0..distinct as u32)
                .filter_map(|k| char::from_u32([0xE9, 0x4E00, 0x1F600][k as usize % 3] + k))
                .collect();
            let pick = |seed: &mut u64| -> char {
                match lcg(seed) % 3 {
                    0 => ['a', 'b', ' ', 'z'][lcg(seed) as usize % 4],
                    _ => others[lcg(seed) as usize % others.len()],
                }
            };
            let m = 1 + round % SHORT;
            let p: Vec<char> = (0..m).map(|_| pick(&mut seed)).collect();
            let n = (lcg(&mut seed) % 90) as usize;
            let t: String = (0..n).map(|_| pick(&mut seed)).collect();
            let want = reference::distance(p.iter().copied(), t.chars());
            let cps: Vec<u32> = p.iter().map(|&c| c as u32).collect();
            match mixed_distance(&cps, t.as_bytes(), &stop) {
                Ok(Some(d)) => {
                    assert_eq!(d, want, "round {round}");
                    taken += 1;
                    // Under a cap: exact up to it, over it otherwise.
                    let q = MixedPattern::new(&cps).unwrap();
                    let chars = t.chars().count();
                    for cap in [0, 1, 2, 5, 9, 17, 40, 100] {
                        let got = q.distance_capped(t.as_bytes(), chars, cap, &stop).unwrap();
                        if want <= cap {
                            assert_eq!(got, want, "round {round} cap {cap}");
                        } else {
                            assert!(got > cap, "round {round} cap {cap}");
                        }
                    }
                }
                Ok(None) => {
                    let mut seen: Vec<u32> = cps.iter().copied().filter(|&c| c >= 128).collect();
                    seen.sort_unstable();
                    seen.dedup();
                    assert!(seen.len() > MIXED_OTHERS, "round {round}");
                    refused += 1;
                }
                Err(e) => panic!("{e:?}"),
            }
        }
        assert!(
            taken > 2000 && refused > 50,
            "{taken} taken, {refused} refused"
        );
    }

    #[test]
    fn distances_match_the_reference_at_every_short_length() {
        let mut seed = 9u64;
        let stop = Context::new();
        for round in 0..3000 {
            let m = 1 + round % SHORT;
            let sigma = [2u32, 5, 40][round % 3];
            let p: Vec<u32> = (0..m).map(|_| 0x4E00 + lcg(&mut seed) % sigma).collect();
            let n = m + (lcg(&mut seed) % 70) as usize;
            let t: Vec<u32> = (0..n).map(|_| 0x4E00 + lcg(&mut seed) % sigma).collect();
            let want = reference::distance(p.iter(), t.iter());
            assert_eq!(short_distance(&p, &t, &stop), Ok(want), "round {round}");
            // The baseline path too, on a machine whose CPU has AVX2.
            let mut lanes = [NONE; SHORT];
            lanes[..m].copy_from_slice(&p);
            assert_eq!(
                lanes_distance(&lanes, m, &t, &stop),
                Ok(want),
                "round {round}"
            );
        }
    }
}
