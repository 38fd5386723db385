//! One pass over a common inspect_ai `.eval` log (a zip, read by [`eval_zip`]): the same
//! columns as the `.json` log's scan ([`inspect_scan::scan`]), each sample member read by its
//! sample reader (in parallel, the rows then joined in the members' order), and every
//! top-level field of `header.json` as JSON text (with `reductions.json`'s whole text as
//! `reductions` when the header has none), as the general reading keeps them.
//!
//! It gives up (`None`) where the zip reader does, where the `.json` scan gives up on a
//! sample, and on a `header.json` that is not an object or repeats a key.
//!
//! [`inspect_scan::scan`]: crate::interop::inspect_scan::scan

use std::borrow::Cow;

use rayon::prelude::*;

use crate::interop::eval_zip::{self, Members};
use crate::interop::inspect_scan::{sample, Scan};
use crate::json_read::Parser;

const MAX_FIELDS: usize = 4096; // more header fields: left to the general reading

/// The top-level fields of the JSON object `text`, as (name, JSON text) in order; None when
/// it is not one or repeats a name.
fn fields(text: &[u8]) -> Option<Vec<(Cow<'_, str>, &str)>> {
    let mut p = Parser::new(text)?;
    let mut found: Vec<(Cow<'_, str>, &str)> = Vec::new();
    p.members(|p, key| {
        if found.len() >= MAX_FIELDS || found.iter().any(|(name, _)| *name == key) {
            return None;
        }
        found.push((key, p.raw(1, false)?));
        Some(())
    })?;
    p.at_end().then_some(found)
}

/// The whole JSON text `text` (one value, whitespace around it allowed).
fn document(text: &[u8]) -> Option<&str> {
    let mut p = Parser::new(text)?;
    let value = p.raw(0, false)?;
    p.at_end().then_some(value)
}

/// The members of the `.eval` log `data` its import reads (`reductions.json` only when the
/// header has no `reductions` field), or None (see [`eval_zip`]).
pub fn read(data: &[u8]) -> Option<Members<'_>> {
    eval_zip::members(data, |header| {
        Some(!fields(header)?.iter().any(|(name, _)| name == "reductions"))
    })
}

/// One sample member's row (a one-row [`Scan`]).
fn row(text: &[u8]) -> Option<Scan<'_>> {
    let mut p = Parser::new(text)?;
    let mut out = Scan::default();
    sample(&mut p, &mut out)?;
    p.at_end().then_some(out)
}

/// The columns of the members `members` (see the module's docstring), or None.
pub fn scan<'a>(members: &'a Members<'_>) -> Option<Scan<'a>> {
    let mut out = Scan {
        header: fields(&members.header)?,
        ..Scan::default()
    };
    if let Some(text) = &members.reductions {
        out.header
            .push((Cow::Borrowed("reductions"), document(text)?));
    }
    let rows = members
        .samples
        .par_iter()
        .map(|text| row(text))
        .collect::<Option<Vec<_>>>()?;
    for found in rows {
        let at = out.ids.len(); // this row's place in every column
        out.ids.extend(found.ids);
        out.epochs.extend(found.epochs);
        out.targets.extend(found.targets);
        out.completions.extend(found.completions);
        for (name, column) in found.scores {
            let value = column.into_iter().next().flatten();
            let index = match out.scores.iter().position(|(seen, _)| *seen == name) {
                Some(index) => index,
                None => {
                    out.scores.push((name, Vec::new()));
                    out.scores.len() - 1
                }
            };
            let column = &mut out.scores[index].1;
            column.resize(at, None); // no score of it in the rows before
            column.push(value);
        }
    }
    let rows = out.ids.len();
    for (_, column) in &mut out.scores {
        column.resize(rows, None);
    }
    Some(out)
}

#[cfg(test)]
#[path = "eval_scan_tests.rs"]
mod tests;
