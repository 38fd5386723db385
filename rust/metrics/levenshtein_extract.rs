//! The best matches of one query among many choices (RapidFuzz's `process.extract` with
//! `Levenshtein.distance`), and the weighted all-pairs matrix over texts decoded once.
//!
//! `extract` keeps the `limit` nearest choices seen so far; once it holds that many, a later
//! choice only gets in by being strictly nearer than the farthest of them (equal distances go
//! by index, and the choices are read in index order), so that distance less one is the
//! cut-off the next choice is scored under: a choice whose lengths alone put it past the
//! cut-off is not scored at all, a unit-cost cut-off of at most 3 takes the short edit
//! sequences (`levenshtein_mbleven.rs`, which stop at the fourth mismatch), and the unit-cost
//! kernel stops once it is over a larger one. A run over
//! a share of the choices gives that share's best; the union of the shares' best holds the
//! best of all, which [`merge`] picks.
//!
//! The weighted matrix ([`weighted_ids`]) reads texts decoded once into dense
//! ids (`levenshtein_many.rs`'s [`super::levenshtein_many::Decoded`]), so that no pair decodes
//! its texts again.

use std::collections::BinaryHeap;
use std::ops::Range;

use super::edit_weighted::{self, Weights};
use super::halt::{Context, Run, TryVec};
use super::levenshtein;
use super::levenshtein_many::OneQuery;
use super::levenshtein_mbleven as mbleven;
use super::text::decode_into;

/// How the distance of the query to a choice is computed.
enum Kind {
    /// Equal costs `factor` (at least 1): the unit distance times it; a query of up to 64
    /// code points with few distinct non-ASCII ones is prepared once ([`OneQuery`]).
    Unit {
        factor: usize,
        one: Option<Box<OneQuery>>,
    },
    /// Equal insert and delete costs `factor` with a substitution costing at least both: the
    /// Indel distance times it.
    Indel { factor: usize },
    /// Any other weights: the weighted table.
    Weighted,
}

/// One query prepared for scoring many choices under some weights.
pub struct Query<'q> {
    text: &'q [u8],
    /// The code points of the query.
    cps: Vec<u32>,
    chars: usize,
    w: Weights,
    kind: Kind,
}

impl<'q> Query<'q> {
    /// The query `text` (generalized UTF-8) under the weights `w`.
    pub fn new(text: &'q [u8], w: Weights) -> Query<'q> {
        let unit = w.insert;
        let kind = if unit > 0 && w.delete == unit && w.substitute == unit {
            Kind::Unit {
                factor: unit,
                one: OneQuery::new(text).map(Box::new),
            }
        } else if unit > 0 && w.delete == unit && w.substitute >= unit + unit {
            Kind::Indel { factor: unit }
        } else {
            Kind::Weighted
        };
        let mut cps = Vec::new();
        decode_into(text, &mut cps);
        Query {
            text,
            chars: cps.len(),
            cps,
            w,
            kind,
        }
    }

    /// The least distance to a choice of `chars` code points, from the lengths alone: the
    /// longer side's surplus takes that many deletions (or insertions).
    fn length_bound(&self, chars: usize) -> usize {
        if self.chars >= chars {
            (self.chars - chars) * self.w.delete
        } else {
            (chars - self.chars) * self.w.insert
        }
    }

    /// The distance to `choice` (of `chars` code points) when it is at most `cap`, else
    /// `None`; with no cap, the distance.
    fn score(
        &self,
        choice: &[u8],
        chars: usize,
        cap: Option<usize>,
        s: &mut Scratch,
        stop: &Context,
    ) -> Run<Option<usize>> {
        if let Some(cap) = cap {
            if self.length_bound(chars) > cap {
                return Ok(None);
            }
            // A small cut-off: the short edit sequences, which stop at its (k + 1)-th mismatch.
            if let Kind::Unit { factor, .. } = self.kind {
                let k = cap / factor;
                if k <= mbleven::MOST {
                    let d = if self.chars == self.text.len() && chars == choice.len() {
                        mbleven::capped_distance(self.text, choice, k)
                    } else {
                        s.decoded.clear();
                        decode_into(choice, &mut s.decoded);
                        mbleven::capped_distance(&self.cps, &s.decoded, k)
                    };
                    return Ok((d <= k).then_some(d * factor));
                }
            }
        }
        let s = &mut s.pair;
        let d = match (&self.kind, cap) {
            (
                Kind::Unit {
                    factor,
                    one: Some(one),
                },
                Some(cap),
            ) => one.distance_capped(choice, chars, cap / factor, stop)? * factor,
            (
                Kind::Unit {
                    factor,
                    one: Some(one),
                },
                None,
            ) => one.distance(choice, stop)? * factor,
            (Kind::Unit { factor, .. }, Some(cap)) => {
                levenshtein::distance_capped(self.text, choice, cap / factor, s.unit(), stop)?
                    * factor
            }
            (Kind::Unit { factor, .. }, None) => {
                levenshtein::distance(self.text, choice, s.unit(), stop)? * factor
            }
            (Kind::Indel { factor }, _) => {
                edit_weighted::indel(self.text, choice, s, stop)? * factor
            }
            (Kind::Weighted, _) => edit_weighted::distance(self.text, choice, self.w, s, stop)?,
        };
        Ok(match cap {
            Some(cap) if d > cap => None,
            _ => Some(d),
        })
    }
}

/// The best `(distance, index)` of the choices in `range`, nearest first and equal distances
/// by index: at most `limit` of them (all with `None`), none over `cutoff`. `choice(j)` is
/// choice j's text and its length in code points.
pub fn extract<'c>(
    query: &Query<'_>,
    choice: impl Fn(usize) -> (&'c [u8], usize),
    range: Range<usize>,
    (limit, cutoff): (Option<usize>, Option<usize>),
    s: &mut Scratch,
    stop: &Context,
) -> Run<Vec<(usize, usize)>> {
    let mut found: Vec<(usize, usize)> = Vec::new();
    let Some(limit) = limit else {
        for j in range {
            let (text, chars) = choice(j);
            if let Some(d) = query.score(text, chars, cutoff, s, stop)? {
                found.try_push((d, j), "the matches")?;
            }
        }
        found.sort_unstable();
        return Ok(found);
    };
    if limit == 0 {
        return Ok(found);
    }
    // The `limit` best so far, the farthest (then the latest) on top.
    let mut best: BinaryHeap<(usize, usize)> = BinaryHeap::new();
    for j in range {
        let cap = match best.peek() {
            Some(&(far, _)) if best.len() == limit => {
                // Only a strictly nearer choice gets in; none is nearer than 0.
                if far == 0 {
                    break;
                }
                Some(cutoff.map_or(far - 1, |c| c.min(far - 1)))
            }
            _ => cutoff,
        };
        let (text, chars) = choice(j);
        if let Some(d) = query.score(text, chars, cap, s, stop)? {
            if best.len() == limit {
                best.pop();
            }
            best.push((d, j));
        }
    }
    found.try_capacity(best.len(), "the matches")?;
    found.extend(best.into_sorted_vec());
    Ok(found)
}

/// The best `limit` (all with `None`) of the shares' best, nearest first and equal distances
/// by index.
pub fn merge(shares: Vec<Vec<(usize, usize)>>, limit: Option<usize>) -> Vec<(usize, usize)> {
    let mut all: Vec<(usize, usize)> = if shares.len() == 1 {
        shares.into_iter().next().unwrap_or_default()
    } else {
        let mut all: Vec<(usize, usize)> = shares.into_iter().flatten().collect();
        all.sort_unstable();
        all
    };
    if let Some(limit) = limit {
        all.truncate(limit);
    }
    all
}

/// Reusable buffers of [`extract`] and of the weighted matrix.
#[derive(Default)]
pub struct Scratch {
    pair: edit_weighted::Scratch,
    decoded: Vec<u32>,
}

/// The Levenshtein distance of the ids `a` to the ids `b` under the weights `w` (the table of
/// `edit_weighted::distance`, on texts decoded once).
pub fn weighted_ids(
    a: &[u32],
    b: &[u32],
    w: Weights,
    s: &mut Scratch,
    stop: &Context,
) -> Run<usize> {
    edit_weighted::distance_of_ids(a, b, w, &mut s.pair, stop)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids(text: &str) -> Vec<u32> {
        text.chars().map(u32::from).collect()
    }

    #[test]
    fn the_weighted_table_on_ids_is_the_one_on_texts() {
        let words = [
            "", "a", "ab", "kitten", "sitting", "café", "東京", "caffè", "abcabc",
        ];
        let weights = [(1, 2, 3), (3, 1, 1), (0, 0, 1), (2, 2, 5), (1, 1, 2)];
        let stop = Context::new();
        let (mut s, mut ws) = (Scratch::default(), edit_weighted::Scratch::default());
        for (insert, delete, substitute) in weights {
            let w = Weights {
                insert,
                delete,
                substitute,
            };
            for a in words {
                for b in words {
                    let want =
                        edit_weighted::distance(a.as_bytes(), b.as_bytes(), w, &mut ws, &stop)
                            .unwrap();
                    let got = weighted_ids(&ids(a), &ids(b), w, &mut s, &stop).unwrap();
                    assert_eq!(got, want, "{a:?} {b:?} {w:?}");
                }
            }
        }
    }

    #[test]
    fn extract_keeps_the_nearest_by_index() {
        let choices = ["abd", "abc", "xyz", "abc", "ab", "", "abcd"];
        let stop = Context::new();
        let mut s = Scratch::default();
        let q = Query::new(b"abc", Weights::UNIT);
        let row = |j: usize| (choices[j].as_bytes(), choices[j].chars().count());
        let all = extract(&q, row, 0..7, (None, None), &mut s, &stop).unwrap();
        assert_eq!(
            all,
            vec![(0, 1), (0, 3), (1, 0), (1, 4), (1, 6), (3, 2), (3, 5)]
        );
        for limit in 0..8 {
            for cutoff in [None, Some(0), Some(1), Some(2)] {
                let want: Vec<_> = all
                    .iter()
                    .copied()
                    .filter(|&(d, _)| cutoff.is_none_or(|c| d <= c))
                    .take(limit)
                    .collect();
                let got = extract(&q, row, 0..7, (Some(limit), cutoff), &mut s, &stop).unwrap();
                assert_eq!(got, want, "{limit} {cutoff:?}");
                let halves = vec![
                    extract(&q, row, 0..3, (Some(limit), cutoff), &mut s, &stop).unwrap(),
                    extract(&q, row, 3..7, (Some(limit), cutoff), &mut s, &stop).unwrap(),
                ];
                assert_eq!(merge(halves, Some(limit)), want);
            }
        }
    }
}
