//! Unit-cost Levenshtein distance over Unicode code points, bit-parallel (Myers' algorithm in
//! Hyyrö's block form: O(n·⌈m/64⌉) word operations for lengths n ≥ m), and the similarity
//! 1 − d / max(len).
//!
//! Byte patterns of up to [`TABLE_WORDS`] words use a full 256-row match table; longer or more
//! varied patterns use `pattern.rs`'s masks, linear in m. With the table, a pattern of more
//! than 64 symbols is first tried inside a band of 64 diagonals (`levenshtein_band.rs`: one
//! word per text symbol), exact when the distance is small enough, and only otherwise in
//! full. Texts that are not all ASCII lose their common prefix and suffix on the bytes, before
//! any decoding; when one of them is then at most 64 code points it takes
//! `levenshtein_short.rs` (no renaming), else each code point is renamed to a dense id
//! (`dense_ids.rs`). Batches with equal weights take `levenshtein_lanes.rs` first (several
//! short pairs at once) and come here for the pairs it does not take. The column loop polls a
//! [`Context`] every 2^16 word operations or so, so a call on huge texts can be interrupted.

use super::dense_ids::DenseIds;
use super::halt::{Context, Run, TryVec};
use super::levenshtein_band::{banded_distance, byte_window, fits, table_window};
use super::levenshtein_blocks::{blocks, column, fixed_blocks, single_word};
use super::levenshtein_mbleven as mbleven;
use super::levenshtein_short::{mixed_distance, short_distance, SHORT};
use super::levenshtein_widen::{widened, Table};
use super::pattern::{PatternMasks, Symbol};
use super::text::{count_code_points, decode_into};

/// Patterns over at most 256 symbols and of at most this many words (262,144 symbols) use a
/// 256-row table of `words` + 1 words (about 8 MiB at most): a little faster than the masks.
const TABLE_WORDS: usize = 4096;

/// Reusable buffers.
#[derive(Default)]
pub struct Scratch {
    a: Vec<u32>,
    b: Vec<u32>,
    /// Match masks, 256 rows of `words` words, kept all-zero between calls.
    pm: Vec<u64>,
    masks: PatternMasks,
    vp: Vec<u64>,
    vn: Vec<u64>,
    names: DenseIds,
    /// A byte pattern and 64 bytes more, for the band.
    padded: Vec<u8>,
    /// The current call's cut-off: a distance over it may be answered by any value over it.
    cap: Option<usize>,
}

/// A symbol type, and how it tries the band before any table is built.
trait Letter: Symbol + PartialEq {
    /// Whether [`Letter::band`] tries the band (else the table's band is tried).
    const BAND_WITHOUT_TABLE: bool;

    /// The banded distance of `p` and `t` (see `levenshtein_band.rs`), from the symbols.
    fn band(p: &[Self], t: &[Self], padded: &mut Vec<u8>, stop: &Context) -> Run<Option<usize>>;
}

impl Letter for u8 {
    const BAND_WITHOUT_TABLE: bool = true;

    fn band(p: &[u8], t: &[u8], padded: &mut Vec<u8>, stop: &Context) -> Run<Option<usize>> {
        if !fits(p.len(), t.len()) {
            return Ok(None);
        }
        padded.clear();
        padded.try_extend(p, "the Levenshtein pattern")?;
        padded.try_resize(p.len() + 64, 0, "the Levenshtein pattern")?;
        banded_distance(p.len(), t, stop, |offset, c| byte_window(padded, offset, c))
    }
}

impl Letter for u32 {
    const BAND_WITHOUT_TABLE: bool = false;

    fn band(_: &[u32], _: &[u32], _: &mut Vec<u8>, _: &Context) -> Run<Option<usize>> {
        Ok(None)
    }
}

/// `a` and `b` without their common prefix and suffix.
pub(super) fn strip<'x, S: PartialEq>(a: &'x [S], b: &'x [S]) -> (&'x [S], &'x [S]) {
    let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count();
    (&a[..a.len() - suffix], &b[..b.len() - suffix])
}

/// Edit distance of two symbol strings whose symbols are below `alphabet`.
fn distance_of<S: Letter>(
    a: &[S],
    b: &[S],
    alphabet: usize,
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    let (a, b) = strip(a, b);
    let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
    let m = p.len();
    if m == 0 {
        return Ok(t.len());
    }
    if let Some(d) = S::band(p, t, &mut s.padded, stop)? {
        return Ok(d);
    }
    let words = m.div_ceil(64);
    if alphabet <= 256 && words <= TABLE_WORDS {
        table_distance(p, t, words, s, stop)
    } else {
        masks_distance(p, t, alphabet, s, stop)
    }
}

/// The distance with `pattern.rs`'s masks of `p`, whose symbols are below `alphabet`.
fn masks_distance<S: Symbol>(
    p: &[S],
    t: &[S],
    alphabet: usize,
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    let (m, words) = (p.len(), p.len().div_ceil(64));
    s.masks.build(p, alphabet)?;
    let Scratch { masks, vp, vn, .. } = s;
    let d = if words == 1 {
        single_word(m, t, stop, |c| masks.with_mask(c.index(), |eq| eq[0]))
    } else {
        blocks(m, t, vp, vn, stop, |c, vp, vn| {
            masks.with_mask(c.index(), |eq| column(eq, vp, vn))
        })
    };
    masks.reset(p);
    d
}

/// The distance with the 256-row table `s.pm` (rows of `words` + 1 words, the last one zero
/// for [`banded_distance`]), cleared again afterwards.
fn table_distance<S: Letter>(
    p: &[S],
    t: &[S],
    words: usize,
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    let stride = words + 1;
    if s.pm.len() < 256 * stride {
        s.pm.try_resize(256 * stride, 0, "the Levenshtein table")?;
    }
    // A pattern of over four words that has had its band already goes to `widened`, which fills
    // the table a block at a time as its runs reach them (under a cut-off, a dissimilar pair
    // gives up after a few); any other gets its whole table now.
    let mut filled = words;
    if S::BAND_WITHOUT_TABLE && words > 4 {
        filled = 0;
    } else {
        for (i, &c) in p.iter().enumerate() {
            s.pm[c.index() * stride + i / 64] |= 1u64 << (i % 64);
        }
    }
    let cap = s.cap;
    let Scratch { pm, vp, vn, .. } = s;
    let banded = if S::BAND_WITHOUT_TABLE {
        Ok(None) // tried already
    } else {
        banded_distance(p.len(), t, stop, |offset, c| {
            table_window(pm, stride, offset, c.index())
        })
    };
    let d = match banded {
        Ok(Some(d)) => Ok(d),
        Ok(None) => match words {
            1 => single_word(p.len(), t, stop, |c| pm[c.index() * stride]),
            2 => fixed_blocks::<2, S>(pm, p.len(), t, stop),
            3 => fixed_blocks::<3, S>(pm, p.len(), t, stop),
            4 => fixed_blocks::<4, S>(pm, p.len(), t, stop),
            _ => {
                let tried = fits(p.len(), t.len());
                let table = &mut Table {
                    pm,
                    stride,
                    p,
                    filled,
                };
                let d = widened(table, t, (tried, cap), (vp, vn), stop);
                filled = table.filled;
                d
            }
        },
        Err(halt) => Err(halt),
    };
    // Only the words set above (those of the blocks filled) can be non-zero.
    for (i, &c) in p[..p.len().min(64 * filled)].iter().enumerate() {
        pm[c.index() * stride + i / 64] = 0;
    }
    d
}

impl Scratch {
    /// Decode `a` and `b` into `self.a` and `self.b`, each code point renamed to a dense id
    /// (ASCII keeps its value, others count up from 0x80); returns the number of ids.
    fn load(&mut self, a: &[u8], b: &[u8]) -> Run<usize> {
        Ok(self.names.load_pair(a, b, &mut self.a, &mut self.b)?)
    }
}

/// The length of the longest common prefix of `a` and `b`, compared eight bytes at a time.
pub(super) fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let mut done = 0;
    for (x, y) in a.chunks_exact(8).zip(b.chunks_exact(8)) {
        let (x, y) = (word(x), word(y));
        if x != y {
            // Little-endian: the first differing byte is the lowest differing one.
            return done + ((x ^ y).trailing_zeros() / 8) as usize;
        }
        done += 8;
    }
    done + a[done..]
        .iter()
        .zip(&b[done..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The length of the longest common suffix of `a` and `b`, compared eight bytes at a time.
pub(super) fn common_suffix(a: &[u8], b: &[u8]) -> usize {
    let mut done = 0;
    for (x, y) in a.rchunks_exact(8).zip(b.rchunks_exact(8)) {
        let (x, y) = (word(x), word(y));
        if x != y {
            // Little-endian: the last differing byte is the highest differing one.
            return done + ((x ^ y).leading_zeros() / 8) as usize;
        }
        done += 8;
    }
    let (a, b) = (&a[..a.len() - done], &b[..b.len() - done]);
    done + a
        .iter()
        .rev()
        .zip(b.iter().rev())
        .take_while(|(x, y)| x == y)
        .count()
}

/// Eight bytes as a little-endian word.
#[inline(always)]
pub(super) fn word(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    w.copy_from_slice(bytes);
    u64::from_le_bytes(w)
}

/// `a` and `b` (generalized UTF-8) without their common prefix and suffix of whole code
/// points, cut on the bytes before any decoding: a code point starts at any byte that is not
/// a continuation byte, and equal bytes before (after) a cut hold equal code points.
pub(super) fn strip_bytes<'x>(a: &'x [u8], b: &'x [u8]) -> (&'x [u8], &'x [u8]) {
    let continues = |x: Option<&u8>| x.is_some_and(|&x| x & 0xC0 == 0x80);
    let mut prefix = common_prefix(a, b);
    while prefix > 0 && (continues(a.get(prefix)) || continues(b.get(prefix))) {
        prefix -= 1;
    }
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let mut suffix = common_suffix(a, b);
    // The suffix's bytes are equal in both: check one.
    while suffix > 0 && continues(a.get(a.len() - suffix)) {
        suffix -= 1;
    }
    (&a[..a.len() - suffix], &b[..b.len() - suffix])
}

/// The distance of two texts of `ca` and `cb` code points, one of them at most [`SHORT`]
/// and none empty, with the code points themselves as symbols (no renaming, no table). A
/// pattern with few distinct non-ASCII code points reads the other text as it is.
fn short_pair(
    (a, ca): (&[u8], usize),
    (b, cb): (&[u8], usize),
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    let (p, t) = if ca <= cb { (a, b) } else { (b, a) };
    s.a.clear();
    decode_into(p, &mut s.a);
    if let Some(d) = mixed_distance(&s.a, t, stop)? {
        return Ok(d);
    }
    s.b.clear();
    decode_into(t, &mut s.b);
    short_distance(&s.a, &s.b, stop)
}

/// The distance and the longer length, in code points.
fn distance_and_length(a: &[u8], b: &[u8], s: &mut Scratch, stop: &Context) -> Run<(usize, usize)> {
    if a.is_ascii() && b.is_ascii() {
        // One byte is one code point: no decoding.
        return Ok((distance_of(a, b, 256, s, stop)?, a.len().max(b.len())));
    }
    let longest = count_code_points(a).max(count_code_points(b));
    let (a, b) = strip_bytes(a, b);
    let (ca, cb) = (count_code_points(a), count_code_points(b));
    if ca.min(cb) == 0 {
        return Ok((ca.max(cb), longest));
    }
    if ca.min(cb) <= SHORT {
        return Ok((short_pair((a, ca), (b, cb), s, stop)?, longest));
    }
    let alphabet = s.load(a, b)?;
    let (ea, eb) = (std::mem::take(&mut s.a), std::mem::take(&mut s.b));
    let d = distance_of(&ea, &eb, alphabet, s, stop);
    (s.a, s.b) = (ea, eb);
    Ok((d?, longest))
}

/// Edit distance between the code points of `a` and `b`.
pub fn distance(a: &[u8], b: &[u8], s: &mut Scratch, stop: &Context) -> Run<usize> {
    if a == b {
        return Ok(0);
    }
    Ok(distance_and_length(a, b, s, stop)?.0)
}

/// [`distance`] when it is at most `cap`; otherwise some value over `cap`. Cut-offs up to 3
/// on texts of over 64 bytes try the short edit sequences (`levenshtein_mbleven.rs`); long
/// patterns stop as soon as the distance is known to be over a larger one.
pub fn distance_capped(
    a: &[u8],
    b: &[u8],
    cap: usize,
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    // Up to 64 bytes a side the bit-parallel kernels are as quick as the enumeration.
    if cap <= mbleven::MOST && a.len().min(b.len()) > 64 && a != b {
        if a.is_ascii() && b.is_ascii() {
            return Ok(mbleven::capped_distance(a, b, cap));
        }
        let (a, b) = strip_bytes(a, b);
        s.a.clear();
        decode_into(a, &mut s.a);
        s.b.clear();
        decode_into(b, &mut s.b);
        return Ok(mbleven::capped_distance(&s.a, &s.b, cap));
    }
    s.cap = Some(cap);
    let d = distance(a, b, s, stop);
    s.cap = None;
    d
}

/// [`distance_capped`] of two long texts known to be all ASCII (their lengths in code points
/// are their byte counts, say, as the `str` objects tell them), for a cut-off of at most
/// [`mbleven::MOST`]: the short edit sequences, which read the texts only as far as their
/// walks go, instead of a pass over both to find them ASCII. `None` for other cut-offs and for
/// pairs with a side of 64 bytes or fewer (the bit-parallel kernels take those).
pub fn capped_ascii(a: &[u8], b: &[u8], cap: usize) -> Option<usize> {
    (cap <= mbleven::MOST && a.len().min(b.len()) > 64).then(|| {
        let (a, b) = strip_ascii(a, b);
        mbleven::capped_distance(a, b, cap)
    })
}

/// [`strip`] of two byte strings, eight bytes at a time.
fn strip_ascii<'x>(a: &'x [u8], b: &'x [u8]) -> (&'x [u8], &'x [u8]) {
    let prefix = common_prefix(a, b);
    let (a, b) = (&a[prefix..], &b[prefix..]);
    let suffix = common_suffix(a, b);
    (&a[..a.len() - suffix], &b[..b.len() - suffix])
}

/// Edit distance of two id sequences (words, say) whose ids are below `alphabet`.
pub fn distance_ids(
    a: &[u32],
    b: &[u32],
    alphabet: usize,
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    if a == b {
        return Ok(0);
    }
    distance_of(a, b, alphabet, s, stop)
}

/// distance / max(len a, len b) as one division (RapidFuzz's normalized distance); 0.0 when
/// both are empty.
pub fn normalized_distance(a: &[u8], b: &[u8], s: &mut Scratch, stop: &Context) -> Run<f64> {
    if a == b {
        return Ok(0.0);
    }
    let (d, longest) = distance_and_length(a, b, s, stop)?;
    Ok(if longest == 0 {
        0.0
    } else {
        d as f64 / longest as f64
    })
}

/// 1 − distance / max(len a, len b); 1.0 when both are empty.
pub fn similarity(a: &[u8], b: &[u8], s: &mut Scratch, stop: &Context) -> Run<f64> {
    if a == b {
        return Ok(1.0);
    }
    let (d, longest) = distance_and_length(a, b, s, stop)?;
    if longest == 0 {
        return Ok(1.0);
    }
    Ok(1.0 - d as f64 / longest as f64)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::halt::Halt;
    use crate::metrics::test_text::lcg;
    use rapidfuzz::distance::levenshtein as reference;

    fn naive<S: PartialEq>(a: &[S], b: &[S]) -> usize {
        let mut prev: Vec<usize> = (0..=b.len()).collect();
        for (i, x) in a.iter().enumerate() {
            let mut cur = vec![i + 1; b.len() + 1];
            for (j, y) in b.iter().enumerate() {
                cur[j + 1] = (prev[j] + (x != y) as usize)
                    .min(prev[j + 1] + 1)
                    .min(cur[j] + 1);
            }
            prev = cur;
        }
        prev[b.len()]
    }

    /// Two random strings over `sigma` symbols (the second often a few edits of the first).
    fn pair(seed: &mut u64, round: usize, max_len: usize, sigma: usize) -> (Vec<u32>, Vec<u32>) {
        let (la, lb) = (lcg(seed) % max_len, lcg(seed) % max_len);
        let a: Vec<u32> = (0..la).map(|_| (lcg(seed) % sigma) as u32).collect();
        let mut b: Vec<u32> = (0..lb).map(|_| (lcg(seed) % sigma) as u32).collect();
        if round.is_multiple_of(3) {
            b = a.clone();
            for _ in 0..(lcg(seed) % 8) {
                if !b.is_empty() {
                    let k = lcg(seed) % b.len();
                    b[k] = sigma as u32;
                }
            }
        }
        (a, b)
    }

    #[test]
    fn table_and_masks_match_the_dynamic_programme() {
        let mut seed = 11u64;
        let s = &mut Scratch::default();
        let stop = Context::new();
        for round in 0..1500 {
            let sigma = 1 + round % 6;
            let (a, b) = pair(&mut seed, round, 300, sigma);
            let want = naive(&a, &b);
            let bytes = |v: &[u32]| v.iter().map(|&c| b'a' + c as u8).collect::<Vec<u8>>();
            assert_eq!(distance_of(&bytes(&a), &bytes(&b), 256, s, &stop), Ok(want));
            // Code points past ASCII with a narrow alphabet: the table's band, then the table.
            let narrow = |v: &[u32]| v.iter().map(|&c| c + 0x80).collect::<Vec<u32>>();
            let got = distance_of(&narrow(&a), &narrow(&b), 0x80 + 8, s, &stop);
            assert_eq!(got, Ok(want), "round {round}");
            // An alphabet over 256 takes the masks path at every length.
            let wide = |v: &[u32]| v.iter().map(|&c| c + 1000).collect::<Vec<u32>>();
            let got = distance_of(&wide(&a), &wide(&b), 1010, s, &stop);
            assert_eq!(got, Ok(want), "round {round}");
            assert_eq!(reference::distance(a.iter(), b.iter()), want);
        }
        assert!(s.pm.iter().all(|&w| w == 0));
    }

    #[test]
    fn masks_match_the_table_on_long_patterns() {
        let mut seed = 5u64;
        let s = &mut Scratch::default();
        for (round, sigma) in [2usize, 30, 200].into_iter().enumerate() {
            let n = 9000;
            let a: Vec<u8> = (0..n).map(|_| (lcg(&mut seed) % sigma) as u8).collect();
            let mut b = a.clone();
            for _ in 0..400 {
                let k = lcg(&mut seed) % b.len();
                b[k] = (lcg(&mut seed) % sigma) as u8;
            }
            b.truncate(n - round * 50);
            let (a, b) = strip(&a, &b);
            let (p, t) = if a.len() <= b.len() { (a, b) } else { (b, a) };
            let want = reference::distance(a.iter(), b.iter());
            assert_eq!(masks_distance(p, t, 256, s, &Context::new()), Ok(want));
            assert_eq!(distance_of(a, b, 256, s, &Context::new()), Ok(want));
        }
    }

    #[test]
    fn a_capped_distance_is_exact_up_to_the_cap_and_over_it_after() {
        let mut seed = 17u64;
        let s = &mut Scratch::default();
        let stop = Context::new();
        for round in 0..300 {
            let sigma = [2usize, 5, 27][round % 3];
            let (a, b) = pair(&mut seed, round, 1500, sigma);
            let bytes = |v: &[u32]| v.iter().map(|&c| b'a' + c as u8).collect::<Vec<u8>>();
            let (a, b) = (bytes(&a), bytes(&b));
            let want = reference::distance(a.iter(), b.iter());
            for cap in [0, 1, 3, 4, want.saturating_sub(1), want, want + 1, 200] {
                let got = distance_capped(&a, &b, cap, s, &stop).unwrap();
                if want <= cap {
                    assert_eq!(got, want, "round {round} cap {cap}");
                } else {
                    assert!(got > cap, "round {round}: {got} for {want}, cap {cap}");
                }
            }
            assert_eq!(distance(&a, &b, s, &stop), Ok(want));
        }
    }

    #[test]
    fn the_short_edit_sequences_of_ascii_texts_match_the_capped_distance() {
        let mut seed = 23u64;
        let s = &mut Scratch::default();
        let stop = Context::new();
        for round in 0..600 {
            let sigma = [2usize, 5, 27][round % 3];
            let (a, b) = pair(&mut seed, round, 400, sigma);
            let bytes = |v: &[u32]| v.iter().map(|&c| b'a' + c as u8).collect::<Vec<u8>>();
            let (a, b) = (bytes(&a), bytes(&b));
            for cap in 0..=5 {
                let got = capped_ascii(&a, &b, cap);
                if cap > mbleven::MOST || a.len().min(b.len()) <= 64 {
                    assert_eq!(got, None);
                    continue;
                }
                let want = distance_capped(&a, &b, cap, s, &stop).unwrap();
                assert_eq!(got, Some(want.min(cap + 1)), "round {round} cap {cap}");
            }
        }
    }

    #[test]
    fn a_raised_stop_halts_every_path() {
        let stop = Context::new();
        stop.raise();
        let s = &mut Scratch::default();
        for n in [30usize, 100, 200, 500, TABLE_WORDS * 64 + 10] {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 7) as u8).collect();
            let b: Vec<u8> = (0..n).map(|i| b'a' + (i % 5) as u8).collect();
            assert_eq!(distance(&a, &b, s, &stop), Err(Halt::Stopped), "n={n}");
            let wide: String = (0..n as u32)
                .filter_map(|i| char::from_u32(0x4E00 + i % 300))
                .collect();
            assert_eq!(
                similarity(wide.as_bytes(), &b, s, &stop),
                Err(Halt::Stopped)
            );
        }
    }

    #[test]
    fn byte_stripping_cuts_between_code_points() {
        // "é" is C3 A9, "è" C3 A8; U+4E00 and U+4E01 share their first two bytes, U+1F600 and
        // U+1F601 their first three: the first difference falls inside a code point.
        let cases = [
            ("xé", "xè", ("é", "è")),
            ("\u{4E00}ab", "\u{4E01}ab", ("\u{4E00}", "\u{4E01}")),
            ("a\u{1F600}", "a\u{1F601}", ("\u{1F600}", "\u{1F601}")),
            ("éé", "é", ("é", "")),
            (
                "\u{1F600}z\u{1F600}",
                "\u{1F601}z\u{1F600}",
                ("\u{1F600}", "\u{1F601}"),
            ),
            ("same", "same", ("", "")),
        ];
        for (a, b, (want_a, want_b)) in cases {
            let (x, y) = strip_bytes(a.as_bytes(), b.as_bytes());
            assert_eq!(
                (x, y),
                (want_a.as_bytes(), want_b.as_bytes()),
                "{a:?} {b:?}"
            );
        }
    }

    #[test]
    fn word_wise_prefixes_and_suffixes_match_the_byte_wise_ones() {
        let mut seed = 21u64;
        for round in 0..3000 {
            let len = |seed: &mut u64| [0usize, 1, 7, 8, 9, 15, 16, 17, 40][lcg(seed) % 9];
            let a: Vec<u8> = (0..len(&mut seed))
                .map(|_| b'a' + (lcg(&mut seed) % 2) as u8)
                .collect();
            let mut b = a.clone();
            b.truncate(lcg(&mut seed) % (a.len() + 1));
            b.extend((0..len(&mut seed)).map(|_| b'a' + (lcg(&mut seed) % 2) as u8));
            let prefix = a.iter().zip(&b).take_while(|(x, y)| x == y).count();
            let suffix = a
                .iter()
                .rev()
                .zip(b.iter().rev())
                .take_while(|(x, y)| x == y)
                .count();
            assert_eq!(common_prefix(&a, &b), prefix, "round {round}");
            assert_eq!(common_suffix(&a, &b), suffix, "round {round}");
        }
    }

    #[test]
    fn distances() {
        let s = &mut Scratch::default();
        let stop = &Context::new();
        let d = |a: &str, b: &str, s: &mut Scratch| distance(a.as_bytes(), b.as_bytes(), s, stop);
        assert_eq!(d("kitten", "sitting", s), Ok(3));
        assert_eq!(d("café", "cafe", s), Ok(1));
        assert_eq!(d("😀", "", s), Ok(1));
        assert_eq!(d("日本語のテキスト", "日本のテキスト!", s), Ok(2));
        // More than 256 distinct code points: the masks path.
        let wide: String = (0x4E00..0x4F80u32).filter_map(char::from_u32).collect();
        let other: String = wide.chars().rev().collect();
        let cps = |t: &str| t.chars().collect::<Vec<char>>();
        let want = reference::distance(cps(&wide), cps(&other));
        assert_eq!(d(&wide, &other, s), Ok(want));
        assert_eq!(similarity(b"", b"", s, stop), Ok(1.0));
        assert_eq!(similarity(b"ab", b"", s, stop), Ok(0.0));
    }
}
