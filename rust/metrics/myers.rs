//! One column of Myers' bit-parallel Levenshtein recurrence (in Hyyrö's formulation), the step
//! every single-word kernel shares: the short paths, the band, and the lanes of several pairs.

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
