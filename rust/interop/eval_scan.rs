//! One pass over a common inspect_ai `.eval` log (a zip, read by [`eval_zip`]): the same
//! columns as the `.json` log's scan ([`inspect_scan::scan`]), each sample member read by its
//! sample reader (in parallel, each as soon as it is inflated; the rows then joined in the
//! members' order), and every top-level field of `header.json` as JSON text (with `reductions.json`'s whole text as
//! `reductions` when the header has none), as the general reading keeps them.
//!
//! It gives up (`None`) where the zip reader does, where the `.json` scan gives up on a
//! sample, and on a `header.json` that is not an object or repeats a key.
//!
//! [`inspect_scan::scan`]: crate::interop::inspect_scan::scan

use std::borrow::Cow;

use crate::interop::eval_zip;
use crate::interop::inspect_scan::{sample, Id, Scan};
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

fn owned(text: Cow<'_, str>) -> Cow<'static, str> {
    Cow::Owned(text.into_owned())
}

/// One sample member's row (a one-row [`Scan`]), its texts copied out of the member (which
/// is dropped once read).
fn row(text: &[u8]) -> Option<Scan<'static>> {
    let mut p = Parser::new(text)?;
    let mut found = Scan::default();
    sample(&mut p, &mut found)?;
    if !p.at_end() {
        return None;
    }
    let id = match found.ids.pop()? {
        Id::Int(n) => Id::Int(n),
        Id::Text(text) => Id::Text(owned(text)),
    };
    Some(Scan {
        header: Vec::new(),
        ids: vec![id],
        epochs: found.epochs,
        targets: found.targets.into_iter().map(owned).collect(),
        completions: found.completions.into_iter().map(owned).collect(),
        scores: found
            .scores
            .into_iter()
            .map(|(name, column)| {
                (
                    owned(name),
                    column.into_iter().map(|v| v.map(owned)).collect(),
                )
            })
            .collect(),
    })
}

/// The columns of the common `.eval` log whose bytes are `data` (see the module's
/// docstring), or None.
pub fn scan(data: &[u8]) -> Option<Scan<'static>> {
    let members = eval_zip::members(data, |header| {
        Some(!fields(header)?.iter().any(|(name, _)| name == "reductions"))
    })?;
    let mut out = Scan::default();
    for (name, text) in fields(&members.header)? {
        out.header.push((owned(name), owned(Cow::Borrowed(text))));
    }
    if let Some(text) = &members.reductions {
        let text = owned(Cow::Borrowed(document(text)?));
        out.header.push((Cow::Borrowed("reductions"), text));
    }
    let rows = eval_zip::each_sample(data, &members.samples, row)?;
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
