//! Retrieval measures over one query, as trec_eval computes them: the run's documents ranked by
//! score descending, ties broken by document id descending (byte order, as `strcmp`); a
//! document is relevant when its judgment is at least the relevance level; unjudged documents
//! are not relevant; nDCG's gain is the judgment itself (0 for judgments at or below 0) with a
//! log2(rank + 1) discount, over the ideal ranking of the judged documents.

/// One measure, with its cutoff where it has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// Precision at k: relevant documents in the first k over k.
    P(usize),
    /// Recall at k: relevant documents in the first k over all relevant documents.
    Recall(usize),
    /// Precision at R, R the number of relevant documents.
    Rprec,
    /// One over the rank of the first relevant document.
    RecipRank,
    /// Average precision.
    Map,
    /// Average precision of the first k documents (still over all relevant documents).
    MapCut(usize),
    /// Normalized discounted cumulative gain of the whole ranking.
    Ndcg,
    /// nDCG of the first k documents against the ideal first k.
    NdcgCut(usize),
    /// 1 when a relevant document is in the first k, else 0.
    Success(usize),
}

impl Measure {
    /// The measure named `kind` (trec_eval's names) with cutoff `k` (ignored by measures
    /// without one); `None` for an unknown name or a cutoff below 1.
    pub fn parse(kind: &str, k: i64) -> Option<Measure> {
        let cut = usize::try_from(k).ok().filter(|&k| k >= 1);
        Some(match kind {
            "P" => Measure::P(cut?),
            "recall" => Measure::Recall(cut?),
            "Rprec" => Measure::Rprec,
            "recip_rank" => Measure::RecipRank,
            "map" => Measure::Map,
            "map_cut" => Measure::MapCut(cut?),
            "ndcg" => Measure::Ndcg,
            "ndcg_cut" => Measure::NdcgCut(cut?),
            "success" => Measure::Success(cut?),
            _ => return None,
        })
    }
}

/// One query: the run's documents and scores, and the judged documents with their judgments.
pub struct Query<'a> {
    pub run_docs: &'a [&'a [u8]],
    pub run_scores: &'a [f64],
    pub qrel_docs: &'a [&'a [u8]],
    pub qrel_rels: &'a [i64],
}

/// Buffers reused from query to query.
#[derive(Default)]
pub struct Scratch {
    ranked: Vec<(u128, usize)>,
    slots: Vec<(u32, u32)>,
    judged: Vec<Option<i64>>,
    gains: Vec<i64>,
}

/// A key whose ascending order is `score`'s descending order (scores are never NaN; -0.0 and
/// 0.0 tie, as trec_eval's comparison has them).
fn descending_key(score: f64) -> u64 {
    let bits = (score + 0.0).to_bits();
    let ascending = if bits >> 63 == 1 {
        !bits
    } else {
        bits | 1 << 63
    };
    !ascending
}

/// The first 8 bytes of `id` as a big-endian number (zero padded): ids whose numbers differ
/// are in the same order as the numbers; ids with equal numbers need their bytes compared.
#[inline]
fn prefix(id: &[u8]) -> u64 {
    match id.first_chunk::<8>() {
        Some(head) => u64::from_be_bytes(*head),
        // byte by byte in registers: a short copy through memory would stall the 8-byte load
        None => id
            .iter()
            .enumerate()
            .fold(0, |x, (i, &b)| x | u64::from(b) << (56 - 8 * i)),
    }
}

/// The ranking trec_eval uses: score descending, then document id descending. Each document
/// gets one integer key (score, then the id's first bytes, both descending) sorted beside its
/// index; full ids are compared only between equal keys.
fn rank(docs: &[&[u8]], scores: &[f64], ranked: &mut Vec<(u128, usize)>) {
    ranked.clear();
    ranked.extend(scores.iter().zip(docs).enumerate().map(|(i, (&s, d))| {
        let key = u128::from(descending_key(s)) << 64 | u128::from(!prefix(d));
        (key, i)
    }));
    ranked.sort_unstable_by(|a, b| a.0.cmp(&b.0).then_with(|| docs[b.1].cmp(docs[a.1])));
}

fn hash(id: &[u8]) -> u32 {
    use std::hash::BuildHasher;
    rustc_hash::FxBuildHasher.hash_one(id) as u32
}

/// An open-addressing table of the judged documents (hash, index + 1; 0 is empty), at most
/// half full; each run document is then looked up in one or two probes.
fn index_judged(docs: &[&[u8]], slots: &mut Vec<(u32, u32)>) {
    let size = (2 * docs.len()).next_power_of_two().max(8);
    slots.clear();
    slots.resize(size, (0, 0));
    for (i, d) in docs.iter().enumerate() {
        let h = hash(d);
        let mut at = h as usize & (size - 1);
        while slots[at].1 != 0 {
            at = (at + 1) & (size - 1);
        }
        slots[at] = (h, i as u32 + 1);
    }
}

/// The index of `id` among `docs` (the first one when it is there twice), from the table.
fn find_judged(docs: &[&[u8]], slots: &[(u32, u32)], id: &[u8]) -> Option<usize> {
    let h = hash(id);
    let mask = slots.len() - 1;
    let mut at = h as usize & mask;
    loop {
        let (sh, slot) = slots[at];
        if slot == 0 {
            return None;
        }
        let j = slot as usize - 1;
        if sh == h && docs[j] == id {
            return Some(j);
        }
        at = (at + 1) & mask;
    }
}

/// Discounted cumulative gain of the first `k` gains, summed in rank order as trec_eval does.
fn dcg(gains: impl Iterator<Item = i64>, k: usize) -> f64 {
    let mut sum = 0.0;
    for (i, g) in gains.take(k).enumerate() {
        if g > 0 {
            sum += g as f64 / ((i + 2) as f64).log2();
        }
    }
    sum
}

/// Write each measure of `measures` for query `q` into `out` (one value per measure), with
/// documents judged at `level` or above counted as relevant.
pub fn evaluate(q: &Query<'_>, measures: &[Measure], level: i64, s: &mut Scratch, out: &mut [f64]) {
    index_judged(q.qrel_docs, &mut s.slots);
    let slots = &s.slots;
    let judged = |d: &[u8]| find_judged(q.qrel_docs, slots, d).map(|j| q.qrel_rels[j]);
    let num_rel = q.qrel_rels.iter().filter(|&&r| r >= level).count();
    rank(q.run_docs, q.run_scores, &mut s.ranked);
    s.judged.clear();
    s.judged
        .extend(s.ranked.iter().map(|&(_, i)| judged(q.run_docs[i])));
    let relevant = |r: &Option<i64>| r.is_some_and(|r| r >= level);
    let rel_in = |k: usize| s.judged.iter().take(k).filter(|r| relevant(r)).count();
    let average_precision = |k: usize| {
        if num_rel == 0 {
            return 0.0;
        }
        let (mut so_far, mut sum) = (0usize, 0.0);
        for (i, r) in s.judged.iter().take(k).enumerate() {
            if relevant(r) {
                so_far += 1;
                sum += so_far as f64 / (i + 1) as f64;
            }
        }
        sum / num_rel as f64
    };
    let mut ideal_ready = false;
    for (m, slot) in measures.iter().zip(out.iter_mut()) {
        *slot = match *m {
            Measure::P(k) => rel_in(k) as f64 / k as f64,
            Measure::Recall(_) if num_rel == 0 => 0.0,
            Measure::Recall(k) => rel_in(k) as f64 / num_rel as f64,
            Measure::Success(k) => f64::from(u8::from(rel_in(k) > 0)),
            Measure::Rprec if num_rel == 0 => 0.0,
            Measure::Rprec => rel_in(num_rel) as f64 / num_rel as f64,
            Measure::RecipRank => s
                .judged
                .iter()
                .position(relevant)
                .map_or(0.0, |i| 1.0 / (i + 1) as f64),
            Measure::Map => average_precision(usize::MAX),
            Measure::MapCut(k) => average_precision(k),
            Measure::Ndcg | Measure::NdcgCut(_) => {
                if !ideal_ready {
                    s.gains.clear();
                    s.gains
                        .extend(q.qrel_rels.iter().copied().filter(|&r| r > 0));
                    s.gains.sort_unstable_by(|a, b| b.cmp(a));
                    ideal_ready = true;
                }
                let k = match *m {
                    Measure::NdcgCut(k) => k,
                    _ => usize::MAX,
                };
                let ideal = dcg(s.gains.iter().copied(), k);
                if ideal > 0.0 {
                    dcg(s.judged.iter().map(|r| r.unwrap_or(0)), k) / ideal
                } else {
                    0.0
                }
            }
        };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(
        measures: &[Measure],
        docs: &[&str],
        scores: &[f64],
        qd: &[&str],
        qr: &[i64],
    ) -> Vec<f64> {
        let rd: Vec<&[u8]> = docs.iter().map(|d| d.as_bytes()).collect();
        let jd: Vec<&[u8]> = qd.iter().map(|d| d.as_bytes()).collect();
        let q = Query {
            run_docs: &rd,
            run_scores: scores,
            qrel_docs: &jd,
            qrel_rels: qr,
        };
        let mut out = vec![0.0; measures.len()];
        evaluate(&q, measures, 1, &mut Scratch::default(), &mut out);
        out
    }

    #[test]
    fn ties_go_to_the_larger_document_id() {
        // a and b tie; b ranks first, so the relevant a is second.
        let out = run(
            &[Measure::RecipRank],
            &["a", "b"],
            &[1.0, 1.0],
            &["a"],
            &[1],
        );
        assert_eq!(out, vec![0.5]);
    }

    #[test]
    fn precision_divides_by_the_cutoff_even_past_the_run() {
        let out = run(
            &[Measure::P(5), Measure::Success(1)],
            &["a"],
            &[1.0],
            &["a"],
            &[1],
        );
        assert_eq!(out, vec![0.2, 1.0]);
    }

    #[test]
    fn no_relevant_documents_score_zero() {
        let all = [
            Measure::Map,
            Measure::Rprec,
            Measure::Ndcg,
            Measure::Recall(3),
        ];
        assert_eq!(run(&all, &["a"], &[1.0], &["a"], &[0]), vec![0.0; 4]);
        assert_eq!(run(&all, &[], &[], &[], &[]), vec![0.0; 4]);
    }

    #[test]
    fn the_descending_key_orders_scores_from_highest_and_ties_the_zeros() {
        let scores = [
            f64::INFINITY,
            1e300,
            1.0,
            f64::MIN_POSITIVE / 2.0,
            0.0,
            -f64::MIN_POSITIVE / 2.0,
            -1.0,
            f64::NEG_INFINITY,
        ];
        for pair in scores.windows(2) {
            assert!(
                descending_key(pair[0]) < descending_key(pair[1]),
                "{pair:?}"
            );
        }
        assert_eq!(descending_key(-0.0), descending_key(0.0));
    }

    #[test]
    fn the_ranking_orders_tied_ids_by_their_bytes_past_the_first_eight() {
        let ids: Vec<&[u8]> = vec![
            b"document-17",
            b"document-170",
            b"document-2",
            b"doc",
            b"doc\0",
            b"doc\0\0",
            b"",
            b"\xff",
            b"document-1",
            b"documenz",
        ];
        let scores = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 1.0, 1.0];
        let mut ranked = Vec::new();
        rank(&ids, &scores, &mut ranked);
        let got: Vec<&[u8]> = ranked.iter().map(|&(_, i)| ids[i]).collect();
        let mut want: Vec<usize> = (0..ids.len()).collect();
        want.sort_by(|&a, &b| {
            scores[b]
                .total_cmp(&scores[a])
                .then_with(|| ids[b].cmp(ids[a]))
        });
        let want: Vec<&[u8]> = want.iter().map(|&i| ids[i]).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn judged_documents_are_found_by_their_bytes() {
        let docs: Vec<String> = (0..100).map(|i| format!("d{i}")).collect();
        let ids: Vec<&[u8]> = docs.iter().map(|d| d.as_bytes()).collect();
        let mut slots = Vec::new();
        index_judged(&ids, &mut slots);
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(find_judged(&ids, &slots, id), Some(i));
        }
        assert_eq!(find_judged(&ids, &slots, b"d100"), None);
        assert_eq!(find_judged(&ids, &slots, b""), None);
        index_judged(&[], &mut slots);
        assert_eq!(find_judged(&[], &slots, b"d1"), None);
    }

    #[test]
    fn parse_rejects_unknown_names_and_zero_cutoffs() {
        assert_eq!(Measure::parse("P", 0), None);
        assert_eq!(Measure::parse("bpref", 0), None);
        assert_eq!(Measure::parse("map", 0), Some(Measure::Map));
    }
}
