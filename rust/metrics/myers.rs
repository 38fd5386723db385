//! One column of Myers' bit-parallel Levenshtein recurrence (in Hyyrö's formulation), the step
//! every kernel shares: one word (the short paths, the band, the lanes of several pairs) and
//! one 64-row block of a longer pattern (the full and the widening block recurrences).

/// What one column of the recurrence gives: the diagonal-zero mask, the horizontal deltas
/// before their shift down a row, and the new vertical deltas.
#[derive(Clone, Copy)]
pub struct Column {
    /// D0: bit i set where the cell of row i + 1 equals its diagonal neighbour.
    pub d0: u64,
    /// +1 horizontal deltas, row i + 1 in bit i (not yet shifted).
    pub hp: u64,
    /// −1 horizontal deltas, row i + 1 in bit i (not yet shifted).
    pub hn: u64,
    /// The new +1 vertical deltas.
    pub vp: u64,
    /// The new −1 vertical deltas.
    pub vn: u64,
}

/// One column with match mask `eq` over the previous column's vertical deltas `vp`, `vn`,
/// the row above the top growing by one (a +1 enters at the top). Callers that keep their
/// own form of the deltas use `d0`, `hp` and `hn` and leave the rest unused.
#[inline(always)]
pub fn step(eq: u64, vp: u64, vn: u64) -> Column {
    let x = eq | vn;
    let d0 = ((x & vp).wrapping_add(vp) ^ vp) | x;
    let hp = vn | !(d0 | vp);
    let hn = d0 & vp;
    let (hp_down, hn_down) = ((hp << 1) | 1, hn << 1);
    Column {
        d0,
        hp,
        hn,
        vp: hn_down | !(d0 | hp_down),
        vn: hp_down & d0,
    }
}

/// The change of the bottom row's value over one column, for a pattern whose last row is
/// the bit `last`: +1, 0 or −1, as a wrapping addend.
#[inline(always)]
pub fn bottom_change(column: &Column, last: u64) -> usize {
    ((column.hp & last != 0) as usize).wrapping_sub((column.hn & last != 0) as usize)
}

/// What one 64-row block of a column passes to the block below it: the horizontal deltas of
/// its bottom row and the carry of its addition.
#[derive(Clone, Copy)]
pub struct Carry {
    /// The +1 horizontal delta leaving the block's bottom row.
    pub hp: u64,
    /// The −1 horizontal delta leaving the block's bottom row.
    pub hn: u64,
    /// The carry out of the block's addition.
    pub add: bool,
}

impl Carry {
    /// Above the first block: the row above grows by one per column.
    pub const TOP: Carry = Carry {
        hp: 1,
        hn: 0,
        add: false,
    };
}

/// [`step`] for one block of a pattern of several words (Hyyrö's block form): the block's
/// vertical deltas `vp`, `vn` advance in place, `carry` comes in from the block above and
/// leaves for the block below; returns the block's horizontal deltas before the shift. With
/// [`Carry::TOP`] it computes what [`step`] computes (`vp` and `vn` are disjoint).
#[inline(always)]
pub fn block_step(eq: u64, vp: &mut u64, vn: &mut u64, carry: &mut Carry) -> (u64, u64) {
    let x = eq | carry.hn;
    let (sum, c1) = (x & *vp).overflowing_add(*vp);
    let (sum, c2) = sum.overflowing_add(carry.add as u64);
    let d0 = (sum ^ *vp) | x | *vn;
    let hp = *vn | !(d0 | *vp);
    let hn = d0 & *vp;
    let (hp_shift, hn_shift) = ((hp << 1) | carry.hp, (hn << 1) | carry.hn);
    *carry = Carry {
        hp: hp >> 63,
        hn: hn >> 63,
        add: c1 | c2,
    };
    *vp = hn_shift | !(d0 | hp_shift);
    *vn = hp_shift & d0;
    (hp, hn)
}
