//! Unit-cost Levenshtein distances of many queries to many choices (the all-pairs matrix of
//! `cdist`), several queries at once: each query of at most 64 code points takes one lane of
//! a group of two 256-bit vectors (lanes of 8, 16, 32 or 64 bits, the narrowest its length
//! fits), and every choice runs once through Myers' recurrence for all the lanes together.
//! The match masks of a choice symbol for all the lanes are one row of a table, so a column
//! costs two loads and a dozen vector operations a vector whatever the number of lanes.
//! (The distance is symmetric: the caller may put the choices in the lanes instead, see
//! [`Decoded::better_swapped`].)
//!
//! Both sides are decoded once into dense ids shared by all texts, so a choice is not decoded
//! again for every query. The queries are read by lane width ([`Decoded::sort_queries`]), so
//! that the groups of lanes are full, and each distance is written where it belongs
//! ([`Place`]): the caller needs no second matrix on one thread. Longer queries take the one-pair kernel of `levenshtein.rs` on the
//! same ids. A single query needs no lanes: [`OneQuery`] reads the choices as they are.

use rustc_hash::FxHashMap;

use super::halt::{Context, OutOfMemory, Run, TryVec};
use super::lcs::{lcs_len, LcsScratch};
use super::levenshtein::{self, distance_ids};
use super::levenshtein_lanes::Kind;
use super::levenshtein_short::MixedPattern;
use super::pattern::symbols_per_check;
use super::text::{count_code_points, decode_into, next_code_point};

/// The bits of a group of lanes: two 256-bit vectors, whose recurrences are independent, so
/// that one runs while the other waits on its carry chain.
const BITS: usize = 512;

/// The longest query a lane holds.
pub const LANE_MAX: usize = 64;

/// The largest alphabet the lane tables take (64 bytes a symbol, per table and thread); over
/// it, every pair takes the one-pair kernel.
const TABLE_ALPHABET: usize = 1 << 16;

/// Texts decoded into dense ids shared by all of them.
#[derive(Default)]
pub struct Decoded {
    ids: Vec<u32>,
    ends: Vec<usize>,
    split: usize,
    alphabet: usize,
    /// Whether the sides are read the other way round (the choices as the queries).
    swapped: bool,
    /// The queries in the order they are read, by lane width (empty: as given).
    order: Vec<usize>,
}

impl Decoded {
    /// Decode the queries and then the choices: ASCII keeps its value, every other code point
    /// is named 0x80, 0x81, ... in order of first appearance. `reserve`, the bytes of all the
    /// texts, is room for all their ids.
    pub fn load<'t>(
        queries: impl Iterator<Item = &'t [u8]>,
        choices: impl Iterator<Item = &'t [u8]>,
        reserve: usize,
    ) -> Result<Decoded, OutOfMemory> {
        const WHAT: &str = "the decoded texts";
        let mut d = Decoded::default();
        d.ids.try_capacity(reserve, WHAT)?;
        // Names of the code points below 2^16 by direct index (0: none yet; the zeroed
        // table is only touched where used), the others in a map.
        let mut bmp: Vec<u32> = Vec::new();
        let mut names: FxHashMap<u32, u32> = FxHashMap::default();
        let mut next = 0x80u32;
        let mut decode = |text: &[u8], d: &mut Decoded| -> Result<(), OutOfMemory> {
            d.ids.try_capacity(d.ids.len() + text.len(), WHAT)?;
            let mut i = 0;
            while i < text.len() {
                // A run of ASCII bytes at once.
                let end = i + ascii_run(&text[i..]);
                d.ids.extend(text[i..end].iter().map(|&b| u32::from(b)));
                i = end;
                if i == text.len() {
                    break;
                }
                let (cp, len) = next_code_point(text, i);
                let name = if cp < 0x1_0000 {
                    if bmp.is_empty() {
                        bmp.try_resize(0x1_0000, 0, WHAT)?;
                    }
                    &mut bmp[cp as usize]
                } else {
                    names.entry(cp).or_insert(0)
                };
                if *name == 0 {
                    *name = next;
                    next += 1;
                }
                d.ids.push(*name);
                i += len;
            }
            d.ends.try_push(d.ids.len(), WHAT)
        };
        for text in queries {
            decode(text, &mut d)?;
        }
        d.split = d.ends.len();
        for text in choices {
            decode(text, &mut d)?;
        }
        d.alphabet = next as usize;
        Ok(d)
    }

    /// Read the sides the other way round: the choices as the queries and the queries as the
    /// choices (the distance is symmetric; the matrix is then transposed).
    pub fn swap(&mut self) {
        self.swapped = !self.swapped;
        self.order.clear();
    }

    /// Read the queries by lane width, narrowest first (longer than a lane last), and in the
    /// given order within a width, so that any run of consecutive queries fills whole groups
    /// of lanes but at its ends. Query `i` is then the given query [`Decoded::original`]`(i)`.
    pub fn sort_queries(&mut self) -> Result<(), OutOfMemory> {
        let n = self.queries();
        let mut order = Vec::new();
        order.try_capacity(n, "the query order")?;
        order.extend(0..n);
        let class = |i: usize| {
            let width = lane_width(self.text(self.base(i)).len());
            if width == 0 {
                usize::MAX
            } else {
                width
            }
        };
        order.sort_by_key(|&i| class(i));
        self.order = order;
        Ok(())
    }

    /// The position among the given queries of query `i` as read.
    pub fn original(&self, i: usize) -> usize {
        self.order.get(i).copied().unwrap_or(i)
    }

    /// The text index of the given query `i`.
    fn base(&self, i: usize) -> usize {
        if self.swapped {
            self.split + i
        } else {
            i
        }
    }

    fn text(&self, k: usize) -> &[u32] {
        let start = if k == 0 { 0 } else { self.ends[k - 1] };
        &self.ids[start..self.ends[k]]
    }

    /// The number of distinct symbols: every id is below it.
    pub fn alphabet(&self) -> usize {
        self.alphabet
    }

    /// The number of queries.
    pub fn queries(&self) -> usize {
        if self.swapped {
            self.ends.len() - self.split
        } else {
            self.split
        }
    }

    /// The number of choices.
    pub fn choices(&self) -> usize {
        self.ends.len() - self.queries()
    }

    /// Query `i`'s ids.
    pub fn query(&self, i: usize) -> &[u32] {
        self.text(self.base(self.original(i)))
    }

    /// Choice `j`'s ids.
    pub fn choice(&self, j: usize) -> &[u32] {
        self.text(if self.swapped { j } else { self.split + j })
    }

    /// Whether the lanes had better hold the choices: each group of lanes reads every text of
    /// the other side once, and filling the lanes costs about a pass over their own texts.
    pub fn better_swapped(&self) -> bool {
        let (q, c) = (self.queries(), self.choices());
        let side = |texts: &mut dyn Iterator<Item = usize>| -> (usize, usize) {
            let mut chars = 0usize;
            let passes = lane_passes(texts.map(|k| {
                let len = self.text(k).len();
                chars = chars.saturating_add(len + 1);
                len
            }));
            (passes, chars)
        };
        let (qp, qc) = side(&mut (0..q).map(|i| if self.swapped { self.split + i } else { i }));
        let (cp, cc) = side(&mut (0..c).map(|j| if self.swapped { j } else { self.split + j }));
        let by_queries = qp.saturating_mul(cc).saturating_add(qc / SETUP);
        let by_choices = cp.saturating_mul(qc).saturating_add(cc / SETUP);
        by_choices < by_queries
    }
}

/// The length of the run of ASCII bytes `text` starts with, read eight bytes at a time.
fn ascii_run(text: &[u8]) -> usize {
    let mut words = text.chunks_exact(8);
    let mut run = 0;
    for word in &mut words {
        let high = u64::from_le_bytes([
            word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
        ]) & 0x8080_8080_8080_8080;
        if high != 0 {
            return run + (high.trailing_zeros() / 8) as usize;
        }
        run += 8;
    }
    run + words
        .remainder()
        .iter()
        .position(|&b| b >= 0x80)
        .unwrap_or(words.remainder().len())
}

/// How many symbols put into the lanes and cleared again cost about one step of the recurrence
/// over a group of lanes.
const SETUP: usize = 4;

/// One query prepared for many choices that are read as they are, with no decoding and no
/// lanes to fill (the `cdist` of a single query): a query of 1 ..= 64 code points with few
/// distinct non-ASCII ones (see `levenshtein_short.rs`).
pub struct OneQuery(MixedPattern);

impl OneQuery {
    /// The prepared `query` (generalized UTF-8), or `None` when it does not qualify.
    pub fn new(query: &[u8]) -> Option<OneQuery> {
        if count_code_points(query) > LANE_MAX {
            return None;
        }
        let mut cps = Vec::new();
        decode_into(query, &mut cps);
        MixedPattern::new(&cps).map(OneQuery)
    }

    /// The distance of the query to `choice` (generalized UTF-8).
    pub fn distance(&self, choice: &[u8], stop: &Context) -> Run<usize> {
        self.0.distance(choice, stop)
    }

    /// [`OneQuery::distance`] when it is at most `cap`, else some value over `cap` (the
    /// choice, of `chars` code points, is left part-way once it must end over `cap`).
    pub fn distance_capped(
        &self,
        choice: &[u8],
        chars: usize,
        cap: usize,
        stop: &Context,
    ) -> Run<usize> {
        self.0.distance_capped(choice, chars, cap, stop)
    }
}

/// An unsigned lane of a 256-bit vector.
trait Lane: Copy + Default + Eq {
    const BITS: usize;
    const ZERO: Self;
    const ONE: Self;
    const ALL: Self;
    fn bit(i: usize) -> Self;
    fn and(self, o: Self) -> Self;
    fn or(self, o: Self) -> Self;
    fn xor(self, o: Self) -> Self;
    fn not(self) -> Self;
    fn add(self, o: Self) -> Self;
    fn shl1(self) -> Self;
    fn to_usize(self) -> usize;
}

macro_rules! lane {
    ($t:ty) => {
        impl Lane for $t {
            const BITS: usize = <$t>::BITS as usize;
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const ALL: Self = <$t>::MAX;
            #[inline(always)]
            fn bit(i: usize) -> Self {
                1 << i
            }
            #[inline(always)]
            fn and(self, o: Self) -> Self {
                self & o
            }
            #[inline(always)]
            fn or(self, o: Self) -> Self {
                self | o
            }
            #[inline(always)]
            fn xor(self, o: Self) -> Self {
                self ^ o
            }
            #[inline(always)]
            fn not(self) -> Self {
                !self
            }
            #[inline(always)]
            fn add(self, o: Self) -> Self {
                self.wrapping_add(o)
            }
            #[inline(always)]
            fn shl1(self) -> Self {
                self << 1
            }
            #[inline(always)]
            fn to_usize(self) -> usize {
                self as usize
            }
        }
    };
}
lane!(u8);
lane!(u16);
lane!(u32);
lane!(u64);

/// The match tables of the lanes, one per lane width, all zero between calls.
#[derive(Default)]
struct Tables {
    t8: Vec<[u8; BITS / 8]>,
    t16: Vec<[u16; BITS / 16]>,
    t32: Vec<[u32; BITS / 32]>,
    t64: Vec<[u64; BITS / 64]>,
}

/// Reusable buffers.
#[derive(Default)]
pub struct Scratch {
    tables: Tables,
    one: levenshtein::Scratch,
    lcs: LcsScratch,
    order: Vec<usize>,
    dist: Vec<usize>,
}

/// About how many passes over the other side's texts the texts of `lengths` code points take
/// in lanes: a group of lanes of one width is one pass, and so is a text too long for a lane.
pub fn lane_passes(lengths: impl Iterator<Item = usize>) -> usize {
    let mut counts = [0usize; 5];
    for len in lengths {
        counts[match lane_width(len) {
            8 => 0,
            16 => 1,
            32 => 2,
            64 => 3,
            _ => 4,
        }] += 1;
    }
    let lanes = [BITS / 8, BITS / 16, BITS / 32, BITS / 64, 1];
    counts.iter().zip(lanes).map(|(&k, l)| k.div_ceil(l)).sum()
}

/// Whether the lane path takes texts over `alphabet` ids.
pub fn lanes_fit(alphabet: usize) -> bool {
    alphabet <= TABLE_ALPHABET
}

/// Where [`fill_block`] puts the distance of query `i` (as read) to choice `j`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// A block of rows from query `first` on: `(i - first) · choices + j`.
    Rows,
    /// The whole matrix, a row a query in the given order: `original(i) · choices + j`.
    Given,
    /// The whole matrix transposed, a row a choice: `j · queries + original(i)`.
    Transposed,
}

/// The distances of queries `first ..` of `d` to every choice, into `out` through
/// `put(distance)`: with [`Place::Rows`], `out.len() / d.choices()` queries row by row; else
/// all the queries (`first` is 0), `out` the whole matrix laid out as `place` says. `kind`:
/// the unit Levenshtein distance (Myers' recurrence in the lanes) or the Indel distance
/// (Hyyrö's LCS recurrence in the same lanes: Indel = m + n − 2·LCS).
#[allow(clippy::too_many_arguments)]
pub fn fill_block(
    d: &Decoded,
    first: usize,
    out: &mut [i64],
    place: Place,
    kind: Kind,
    s: &mut Scratch,
    stop: &Context,
    put: impl Fn(usize) -> i64,
) -> Run<()> {
    let rows = match place {
        Place::Rows => out.len() / d.choices().max(1),
        Place::Given | Place::Transposed => d.queries() - first,
    };
    // The queries by lane width (a counting sort on the classes 8, 16, 32, 64, longer).
    let class = |i: usize| (lane_width(d.query(i).len()).trailing_zeros() as usize).min(7) - 3;
    let mut starts = [0usize; 6];
    for i in first..first + rows {
        starts[class(i) + 1] += 1;
    }
    for c in 1..6 {
        starts[c] += starts[c - 1];
    }
    let mut order = std::mem::take(&mut s.order);
    order.clear();
    let sized = order.try_resize(rows, 0, "the query order");
    let done = sized.map_err(Into::into).and_then(|()| {
        for i in first..first + rows {
            order[starts[class(i)]] = i;
            starts[class(i)] += 1;
        }
        by_groups(d, first, &order, out, (place, kind), s, stop, put)
    });
    s.order = order;
    done
}

/// [`fill_block`] for the queries of `order`, sorted by lane width.
#[allow(clippy::too_many_arguments)]
fn by_groups(
    d: &Decoded,
    first: usize,
    order: &[usize],
    out: &mut [i64],
    (place, kind): (Place, Kind),
    s: &mut Scratch,
    stop: &Context,
    put: impl Fn(usize) -> i64,
) -> Run<()> {
    let (m, n) = (d.choices(), d.queries());
    // The output row of query `i`, or with `Place::Transposed` its column.
    let line = |i: usize| match place {
        Place::Rows => i - first,
        Place::Given | Place::Transposed => d.original(i),
    };
    let at = |i: usize, j: usize| match place {
        Place::Transposed => j * n + line(i),
        _ => line(i) * m + j,
    };
    let fast = lanes_fit(d.alphabet);
    let mut k = 0;
    while k < order.len() {
        let width = lane_width(d.query(order[k]).len());
        if !fast || width == 0 {
            let i = order[k];
            let q = d.query(i);
            for j in 0..m {
                let c = d.choice(j);
                let dist = match kind {
                    Kind::Levenshtein => distance_ids(q, c, d.alphabet, &mut s.one, stop)?,
                    Kind::Indel => {
                        let (p, t) = if q.len() <= c.len() { (q, c) } else { (c, q) };
                        q.len() + c.len() - 2 * lcs_len(p, t, d.alphabet, &mut s.lcs, stop)?
                    }
                };
                out[at(i, j)] = put(dist);
            }
            k += 1;
            continue;
        }
        // A group holds queries of one lane width only.
        let end = (k + BITS / width).min(order.len());
        let end = (k..end)
            .find(|&x| lane_width(d.query(order[x]).len()) != width)
            .unwrap_or(end);
        let group = &order[k..end];
        let (dist, tables) = (&mut s.dist, &mut s.tables);
        let (t8, t16, t32, t64) = (
            &mut tables.t8,
            &mut tables.t16,
            &mut tables.t32,
            &mut tables.t64,
        );
        match (width, kind) {
            (8, Kind::Levenshtein) => {
                group_distances::<u8, { BITS / 8 }, false>(d, group, t8, dist, stop)
            }
            (16, Kind::Levenshtein) => {
                group_distances::<u16, { BITS / 16 }, false>(d, group, t16, dist, stop)
            }
            (32, Kind::Levenshtein) => {
                group_distances::<u32, { BITS / 32 }, false>(d, group, t32, dist, stop)
            }
            (_, Kind::Levenshtein) => {
                group_distances::<u64, { BITS / 64 }, false>(d, group, t64, dist, stop)
            }
            (8, Kind::Indel) => group_distances::<u8, { BITS / 8 }, true>(d, group, t8, dist, stop),
            (16, Kind::Indel) => {
                group_distances::<u16, { BITS / 16 }, true>(d, group, t16, dist, stop)
            }
            (32, Kind::Indel) => {
                group_distances::<u32, { BITS / 32 }, true>(d, group, t32, dist, stop)
            }
            (_, Kind::Indel) => {
                group_distances::<u64, { BITS / 64 }, true>(d, group, t64, dist, stop)
            }
        }?;
        if place == Place::Transposed {
            // A choice at a time: `dist` is read in order, and the columns of a group's
            // queries are mostly side by side.
            for (j, cells) in s.dist.chunks_exact(group.len()).enumerate() {
                let row = &mut out[j * n..(j + 1) * n];
                for (&i, &got) in group.iter().zip(cells) {
                    row[line(i)] = put(got);
                }
            }
        } else {
            for (lane, &i) in group.iter().enumerate() {
                let row = &mut out[line(i) * m..(line(i) + 1) * m];
                for (j, cell) in row.iter_mut().enumerate() {
                    *cell = put(s.dist[j * group.len() + lane]);
                }
            }
        }
        k = end;
    }
    Ok(())
}

/// The lane width a query of `len` ids takes, 0 when it is longer than [`LANE_MAX`].
fn lane_width(len: usize) -> usize {
    match len {
        0..=8 => 8,
        9..=16 => 16,
        17..=32 => 32,
        33..=64 => 64,
        _ => 0,
    }
}

/// The distances of the queries `group` (at most `N`, each of at most `T::BITS` ids) to every
/// choice: `dist[j · group.len() + lane]` (Indel distances with `INDEL`).
fn group_distances<T: Lane, const N: usize, const INDEL: bool>(
    d: &Decoded,
    group: &[usize],
    table: &mut Vec<[T; N]>,
    dist: &mut Vec<usize>,
    stop: &Context,
) -> Run<()> {
    if table.len() < d.alphabet {
        table.try_resize(d.alphabet, [T::ZERO; N], "the lane table")?;
    }
    let mut last = [T::ZERO; N];
    let mut lens = [0usize; N];
    for (lane, &i) in group.iter().enumerate() {
        let q = d.query(i);
        for (b, &c) in q.iter().enumerate() {
            let row = &mut table[c as usize];
            row[lane] = row[lane].or(T::bit(b));
        }
        lens[lane] = q.len();
        if !q.is_empty() {
            last[lane] = T::bit(q.len() - 1);
        }
    }
    dist.clear();
    let run = dist
        .try_resize(d.choices() * group.len(), 0, "the distances")
        .map_err(Into::into)
        .and_then(|()| all_choices::<T, N, INDEL>(d, table, last, lens, group.len(), dist, stop));
    for (lane, &i) in group.iter().enumerate() {
        for &c in d.query(i) {
            table[c as usize][lane] = T::ZERO;
        }
    }
    run
}

/// The distances of the `used` lanes to every choice of `d`, with the vector instructions of
/// the CPU: `dist[j · used + lane]`.
fn all_choices<T: Lane, const N: usize, const INDEL: bool>(
    d: &Decoded,
    table: &[[T; N]],
    last: [T; N],
    lens: [usize; N],
    used: usize,
    dist: &mut [usize],
    stop: &Context,
) -> Run<()> {
    #[cfg(target_arch = "x86_64")]
    if std::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        return unsafe { all_choices_avx2::<T, N, INDEL>(d, table, last, lens, used, dist, stop) };
    }
    choices_body::<T, N, INDEL>(d, table, last, lens, used, dist, stop)
}

/// [`choices_body`] compiled with AVX2.
///
/// # Safety
/// The CPU must support AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn all_choices_avx2<T: Lane, const N: usize, const INDEL: bool>(
    d: &Decoded,
    table: &[[T; N]],
    last: [T; N],
    lens: [usize; N],
    used: usize,
    dist: &mut [usize],
    stop: &Context,
) -> Run<()> {
    choices_body::<T, N, INDEL>(d, table, last, lens, used, dist, stop)
}

#[inline(always)]
fn choices_body<T: Lane, const N: usize, const INDEL: bool>(
    d: &Decoded,
    table: &[[T; N]],
    last: [T; N],
    lens: [usize; N],
    used: usize,
    dist: &mut [usize],
    stop: &Context,
) -> Run<()> {
    let mut out = [0usize; N];
    // Symbols since the last look at `stop`: short choices are counted together.
    let mut unchecked = 0usize;
    for (j, cells) in dist.chunks_exact_mut(used).enumerate() {
        let text = d.choice(j);
        if text.len() <= symbols_per_check(1) {
            unchecked += text.len();
        }
        if unchecked > symbols_per_check(1) {
            stop.check_before(unchecked)?;
            unchecked = 0;
        }
        if INDEL {
            lcs_body(table, lens, text, &mut out, stop)?;
            for (got, &len) in out.iter_mut().zip(&lens) {
                *got = len + text.len() - 2 * *got;
            }
        } else {
            lanes_body(table, last, lens, text, &mut out, stop)?;
        }
        for ((cell, &len), &got) in cells.iter_mut().zip(&lens).zip(&out) {
            *cell = if len == 0 { text.len() } else { got };
        }
    }
    stop.check_before(unchecked)?;
    Ok(())
}

/// The recurrence itself: per lane the score starts at the query's length and moves by the
/// horizontal delta of its last row; the moves are counted in lane-wide counters, added up
/// before they can overflow. A text longer than [`symbols_per_check`] looks at `stop` itself;
/// shorter ones are counted by the caller.
#[inline(always)]
fn lanes_body<T: Lane, const N: usize>(
    table: &[[T; N]],
    last: [T; N],
    lens: [usize; N],
    text: &[u32],
    out: &mut [usize; N],
    stop: &Context,
) -> Run<()> {
    let mut vp = [T::ALL; N];
    let mut vn = [T::ZERO; N];
    let mut score = lens;
    // Long choices are counted (and the counters added up) a chunk at a time.
    let chunk = symbols_per_check(1).min((1usize << T::BITS.min(32)) - 1);
    let long = text.len() > symbols_per_check(1);
    for part in text.chunks(chunk) {
        if long {
            stop.check_before(part.len())?;
        }
        let mut ups = [T::ZERO; N];
        let mut downs = [T::ZERO; N];
        for &c in part {
            let eq = match table.get(c as usize) {
                Some(row) => *row,
                None => [T::ZERO; N],
            };
            for k in 0..N {
                let x = eq[k].or(vn[k]);
                let d0 = x.and(vp[k]).add(vp[k]).xor(vp[k]).or(x);
                let hp = vn[k].or(d0.or(vp[k]).not());
                let hn = d0.and(vp[k]);
                ups[k] = ups[k].add(if hp.and(last[k]) == T::ZERO {
                    T::ZERO
                } else {
                    T::ONE
                });
                downs[k] = downs[k].add(if hn.and(last[k]) == T::ZERO {
                    T::ZERO
                } else {
                    T::ONE
                });
                let hp = hp.shl1().or(T::ONE);
                let hn = hn.shl1();
                vp[k] = hn.or(d0.or(hp).not());
                vn[k] = hp.and(d0);
            }
        }
        for k in 0..N {
            score[k] = score[k] + ups[k].to_usize() - downs[k].to_usize();
        }
    }
    *out = score;
    Ok(())
}

/// Hyyrö's LCS recurrence over the lanes: per lane `S` starts all ones and a text symbol with
/// match mask `M` turns it into `(S + (S & M)) | (S & !M)`; the LCS is the number of zero bits
/// of `S` among the query's `len` positions (the bits above them never reach those below).
#[inline(always)]
fn lcs_body<T: Lane, const N: usize>(
    table: &[[T; N]],
    lens: [usize; N],
    text: &[u32],
    out: &mut [usize; N],
    stop: &Context,
) -> Run<()> {
    let mut v = [T::ALL; N];
    let long = text.len() > symbols_per_check(1);
    for part in text.chunks(symbols_per_check(1)) {
        if long {
            stop.check_before(part.len())?;
        }
        for &c in part {
            let eq = match table.get(c as usize) {
                Some(row) => *row,
                None => [T::ZERO; N],
            };
            for k in 0..N {
                let u = v[k].and(eq[k]);
                v[k] = v[k].add(u).or(v[k].and(eq[k].not()));
            }
        }
    }
    for k in 0..N {
        let below = if lens[k] >= 64 {
            u64::MAX
        } else {
            (1u64 << lens[k]) - 1
        };
        out[k] = ((!(v[k].to_usize() as u64)) & below).count_ones() as usize;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::test_text::lcg;
    use rapidfuzz::distance::{indel, levenshtein as reference};

    #[test]
    fn every_lane_width_matches_the_reference() {
        let mut seed = 21u64;
        let alphabets: [&[char]; 3] = [
            &['a', 'b', 'c', ' '],
            &['a', 'é', '東', '京', 'x'],
            &['😀', '😁', 'q', '\u{10FFFF}'],
        ];
        for round in 0..60 {
            let sigma = alphabets[round % 3];
            let text = |seed: &mut u64, most: usize| -> String {
                let n = lcg(seed) % (most + 1);
                (0..n).map(|_| sigma[lcg(seed) % sigma.len()]).collect()
            };
            // Lengths around every lane boundary, some over the longest lane.
            let queries: Vec<String> = (0..40)
                .map(|q| text(&mut seed, [3, 9, 17, 33, 66, 80][q % 6]))
                .collect();
            let choices: Vec<String> = (0..30).map(|_| text(&mut seed, 300)).collect();
            let bytes = queries.iter().chain(&choices).map(String::len).sum();
            let d = Decoded::load(
                queries.iter().map(|q| q.as_bytes()),
                choices.iter().map(|c| c.as_bytes()),
                bytes,
            )
            .unwrap();
            let mut out = vec![0i64; queries.len() * choices.len()];
            let s = &mut Scratch::default();
            let first = round % 3;
            let rows = queries.len() - first;
            for kind in [Kind::Levenshtein, Kind::Indel] {
                fill_block(
                    &d,
                    first,
                    &mut out[..rows * choices.len()],
                    Place::Rows,
                    kind,
                    s,
                    &Context::new(),
                    |x| x as i64,
                )
                .unwrap();
                for (r, row) in out.chunks(choices.len()).take(rows).enumerate() {
                    for (j, &got) in row.iter().enumerate() {
                        let (q, c) = (&queries[first + r], &choices[j]);
                        let want = match kind {
                            Kind::Levenshtein => reference::distance(q.chars(), c.chars()),
                            Kind::Indel => indel::distance(q.chars(), c.chars()),
                        };
                        assert_eq!(got, want as i64, "round {round} {kind:?} {q:?} {c:?}");
                    }
                }
            }
            assert!(s.tables.t8.iter().all(|r| r.iter().all(|&x| x == 0)));
            assert!(s.tables.t64.iter().all(|r| r.iter().all(|&x| x == 0)));
        }
    }

    #[test]
    fn sorted_queries_land_in_their_rows_and_columns() {
        let mut seed = 5u64;
        let sigma = ['a', 'b', 'é', '東', '😀'];
        let text = |seed: &mut u64| -> String {
            let n = [0, 3, 9, 17, 40, 64, 65, 90][lcg(seed) % 8];
            (0..n).map(|_| sigma[lcg(seed) % sigma.len()]).collect()
        };
        for round in 0..20 {
            let queries: Vec<String> = (0..50).map(|_| text(&mut seed)).collect();
            let choices: Vec<String> = (0..23).map(|_| text(&mut seed)).collect();
            let bytes = queries.iter().chain(&choices).map(String::len).sum();
            let mut d = Decoded::load(
                queries.iter().map(|q| q.as_bytes()),
                choices.iter().map(|c| c.as_bytes()),
                bytes,
            )
            .unwrap();
            let swap = round % 2 == 1;
            if swap {
                d.swap();
            }
            d.sort_queries().unwrap();
            // Read by lane width, narrowest first, longer than a lane last.
            let widths: Vec<usize> = (0..d.queries())
                .map(|i| match lane_width(d.query(i).len()) {
                    0 => usize::MAX,
                    w => w,
                })
                .collect();
            assert!(widths.windows(2).all(|w| w[0] <= w[1]));
            let (n, m) = (queries.len(), choices.len());
            let mut out = vec![-1i64; n * m];
            let place = if swap {
                Place::Transposed
            } else {
                Place::Given
            };
            let s = &mut Scratch::default();
            let kind = Kind::Levenshtein;
            fill_block(&d, 0, &mut out, place, kind, s, &Context::new(), |x| {
                x as i64
            })
            .unwrap();
            for (i, q) in queries.iter().enumerate() {
                for (j, c) in choices.iter().enumerate() {
                    let want = reference::distance(q.chars(), c.chars());
                    assert_eq!(out[i * m + j], want as i64, "round {round} {q:?} {c:?}");
                }
            }
        }
    }
}
