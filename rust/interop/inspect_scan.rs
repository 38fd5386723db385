//! One pass over a common inspect_ai `.json` log: the columns a re-score reads (ids, epochs,
//! targets, completions, each scorer's recorded values) and the log's own fields as JSON text,
//! with nothing built for the values it skips.
//!
//! "Common" is the set of logs `evalmark.interop._inspect_common.read_common` accepts (its
//! msgspec struct is the specification): the scan accepts none it refuses, and reads the same
//! columns from each it accepts. It gives up (`None`) on a few logs that `read_common` reads:
//! a key repeated in an object it reads (msgspec keeps the last), nesting deeper than
//! [`MAX_DEPTH`](crate::json_read::MAX_DEPTH), an integer id or epoch outside `i64`, and a
//! recorded score value that is not a text and holds an integer outside `i64`. The caller then
//! reads the log the general way, which is slower, never different.

use std::borrow::Cow;

use crate::json_read::{first, Parser};

/// A sample's id as read.
#[derive(Debug, PartialEq)]
pub enum Id<'a> {
    Int(i64),
    Text(Cow<'a, str>),
}

/// The columns of a common log, one item per sample in the log's order (`scores`: per scorer
/// named in any sample's `scores`, in the order first seen, its `value` when a text, None when
/// another value or when the sample has no score of it), and the log's own fields present, as
/// (name, JSON text).
#[derive(Debug, Default, PartialEq)]
pub struct Scan<'a> {
    pub header: Vec<(Cow<'a, str>, Cow<'a, str>)>,
    pub ids: Vec<Id<'a>>,
    pub epochs: Vec<Option<i64>>,
    pub targets: Vec<Cow<'a, str>>,
    pub completions: Vec<Cow<'a, str>>,
    pub scores: Vec<ScoreColumn<'a>>,
}

/// One scorer's column: its name, and per sample its recorded value when a text.
pub type ScoreColumn<'a> = (Cow<'a, str>, Vec<Option<Cow<'a, str>>>);

/// What a sample's field may hold.
#[derive(Clone, Copy)]
enum Kind {
    Id,
    Epoch,
    Input,
    Target,
    Output,
    Scores,
    /// `attachments`: null or `{}`
    Attachments,
    /// a refused field: null, `[]`, `{}` or `""`
    Refused,
    /// any value, skipped
    Skipped,
}

/// The fields a common sample may hold, by bit (the struct of `read_common`: the read ones,
/// the refused ones, the other per-epoch ones, `choices` and `metadata`).
fn field(key: &str) -> Option<(usize, Kind)> {
    let found = match key {
        "id" => (0, Kind::Id),
        "epoch" => (1, Kind::Epoch),
        "input" => (2, Kind::Input),
        "target" => (3, Kind::Target),
        "output" => (4, Kind::Output),
        "scores" => (5, Kind::Scores),
        "attachments" => (6, Kind::Attachments),
        "sandbox" => (7, Kind::Refused),
        "files" => (8, Kind::Refused),
        "setup" => (9, Kind::Refused),
        "events" => (10, Kind::Refused),
        "error" => (11, Kind::Refused),
        "events_data" => (12, Kind::Refused),
        "messages" => (13, Kind::Skipped),
        "model_usage" => (14, Kind::Skipped),
        "store" => (15, Kind::Skipped),
        "total_time" => (16, Kind::Skipped),
        "working_time" => (17, Kind::Skipped),
        "uuid" => (18, Kind::Skipped),
        "started_at" => (19, Kind::Skipped),
        "completed_at" => (20, Kind::Skipped),
        "error_retries" => (21, Kind::Skipped),
        "limit" => (22, Kind::Skipped),
        "role_usage" => (23, Kind::Skipped),
        "turn_count" => (24, Kind::Skipped),
        "choices" => (25, Kind::Skipped),
        "metadata" => (26, Kind::Skipped),
        _ => return None,
    };
    Some(found)
}

/// The columns of the log `data` (its whole bytes) whose own fields are named `header` (the
/// caller's list: `_inspect_log.HEADER`, at most 31), or None when it is not a common log (or
/// one the scan leaves to the general reading).
pub fn scan<'a>(data: &'a [u8], header: &[&str]) -> Option<Scan<'a>> {
    if header.len() > 31 {
        return None;
    }
    let mut p = Parser::new(data)?;
    let mut out = Scan::default();
    let mut seen = 0u32;
    p.members(|p, key| {
        if let Some(at) = header.iter().position(|name| *name == key) {
            if !first(&mut seen, at) {
                return None;
            }
            let text = Cow::Borrowed(p.raw(1, false)?);
            out.header.push((key, text));
            Some(())
        } else if key == "samples" {
            if !first(&mut seen, header.len()) {
                return None;
            }
            if p.null() {
                return Some(()); // no samples
            }
            p.array(|p| sample(p, &mut out))
        } else {
            p.skip(1, false)
        }
    })?;
    let has_eval = out.header.iter().any(|(name, _)| name == "eval");
    (p.at_end() && has_eval).then_some(out)
}

/// Read one sample (an object, two levels deep in a `.json` log; a whole member of an
/// `.eval` zip) into the columns.
pub(crate) fn sample<'a>(p: &mut Parser<'a>, out: &mut Scan<'a>) -> Option<()> {
    const DEPTH: usize = 3; // a field's value
    let mut seen = 0u32;
    let mut id = None;
    let mut epoch = None;
    let mut target = Cow::Borrowed("");
    let mut completion = None;
    let row = out.ids.len(); // this sample's place in every column
    p.members(|p, key| {
        let (bit, kind) = field(&key)?;
        if !first(&mut seen, bit) {
            return None;
        }
        match kind {
            Kind::Id => {
                id = Some(if p.next_is(b'"') {
                    Id::Text(p.str_cow()?)
                } else {
                    Id::Int(p.int()?)
                });
            }
            Kind::Epoch => {
                if !p.null() {
                    epoch = Some(p.int().filter(|&n| n >= 1)?);
                }
            }
            Kind::Input => {
                if !(p.next_is(b'"') || p.next_is(b'[')) {
                    return None;
                }
                p.skip(DEPTH, false)?;
            }
            Kind::Target => target = p.str_cow()?,
            Kind::Output => completion = Some(output(p)?),
            Kind::Scores => scores(p, row, &mut out.scores)?,
            Kind::Attachments => {
                if !p.null() {
                    p.members(|_, _| None)?;
                }
            }
            Kind::Refused => empty(p)?,
            Kind::Skipped => p.skip(DEPTH, false)?,
        }
        Some(())
    })?;
    if seen & (1 << 2) == 0 {
        return None; // no input
    }
    out.ids.push(id?);
    out.epochs.push(epoch);
    out.targets.push(target);
    out.completions.push(completion?);
    for (_, column) in &mut out.scores {
        column.resize(row + 1, None); // no score of it: None
    }
    Some(())
}

/// A sample's `output`: its `completion` text (the other keys skipped).
fn output<'a>(p: &mut Parser<'a>) -> Option<Cow<'a, str>> {
    p.text_member("completion", 4, false)?
}

/// A sample's `scores` (null, or an object of objects): each scorer's `value` into its column
/// at `row` (a text; None for another value, read as a plain value), a new column for a
/// scorer not seen before.
fn scores<'a>(p: &mut Parser<'a>, row: usize, columns: &mut Vec<ScoreColumn<'a>>) -> Option<()> {
    const DEPTH: usize = 5; // a score's field's value
    if p.null() {
        return Some(());
    }
    p.members(|p, name| {
        let mut value: Option<Cow<'a, str>> = None;
        let mut has_value = false;
        p.members(|p, key| {
            if key != "value" {
                return p.skip(DEPTH, false);
            }
            if has_value {
                return None;
            }
            has_value = true;
            if p.next_is(b'"') {
                value = Some(p.str_cow()?);
                Some(())
            } else {
                p.skip(DEPTH, true)
            }
        })?;
        let at = match columns.iter().position(|(seen, _)| *seen == name) {
            Some(at) => at,
            None => {
                columns.push((name, Vec::new()));
                columns.len() - 1
            }
        };
        let column = &mut columns[at].1;
        if column.len() > row {
            return None; // the scorer's score read twice
        }
        column.resize(row, None);
        column.push(value);
        Some(())
    })
}

/// An empty value: null, `[]`, `{}` or `""`.
fn empty(p: &mut Parser<'_>) -> Option<()> {
    if p.null() {
        return Some(());
    }
    if p.next_is(b'{') {
        return p.members(|_, _| None);
    }
    if p.next_is(b'[') {
        return p.array(|_| None);
    }
    p.plain_text().filter(|text| text.is_empty()).map(drop)
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// The log's own fields, as `evalmark.interop._inspect_log.HEADER` names them.
    pub(crate) const HEADER: [&str; 10] = [
        "version",
        "status",
        "eval",
        "plan",
        "results",
        "stats",
        "reductions",
        "tags",
        "metadata",
        "invalidated",
    ];

    const LOG: &str = r#" {"version": 2, "eval": {"task": "t"}, "error": null, "samples": [
        {"id": 1, "epoch": 1, "input": "q", "target": "a\n", "output": {"x": [1.5e3, {}],
         "completion": "b\u00e9"}, "scores": {"other": {"value": [1, {"k": -2}]},
         "match": {"answer": "b", "value": "C"}}, "events": [], "error": "", "sandbox": {}},
        {"\u0069d": "s2", "epoch": null, "input": [{"role": "user"}], "output":
         {"completion": ""}, "scores": {"match": {"value": "I"}}, "attachments": {}}
    ], "results": {"scores": []}} "#;

    fn cow(s: &str) -> Cow<'_, str> {
        Cow::Borrowed(s)
    }

    #[test]
    fn reads_the_columns() {
        let found = scan(LOG.as_bytes(), &HEADER).unwrap();
        let header = vec![
            (cow("version"), cow("2")),
            (cow("eval"), cow(r#"{"task": "t"}"#)),
            (cow("results"), cow(r#"{"scores": []}"#)),
        ];
        assert_eq!(found.header, header);
        assert_eq!(found.ids, vec![Id::Int(1), Id::Text(cow("s2"))]);
        assert_eq!(found.epochs, vec![Some(1), None]);
        assert_eq!(found.targets, vec![cow("a\n"), cow("")]);
        assert_eq!(found.completions, vec![cow("b\u{e9}"), cow("")]);
        let other = (cow("other"), vec![None, None]); // not a text, then no score of it
        let matched = (cow("match"), vec![Some(cow("C")), Some(cow("I"))]);
        assert_eq!(found.scores, vec![other, matched]);
        let empty = scan(br#"{"eval": null, "samples": null}"#, &HEADER).unwrap();
        assert_eq!((empty.ids.len(), empty.scores), (0, vec![]));
    }

    #[test]
    fn a_score_without_a_text_value_is_none_in_its_column() {
        let log = LOG.replacen(r#""value": "C""#, r#""value": 1"#, 1);
        let found = scan(log.as_bytes(), &HEADER).unwrap();
        assert_eq!(found.scores[1], (cow("match"), vec![None, Some(cow("I"))]));
        let log = LOG.replacen(r#""answer": "b", "value": "C""#, r#""answer": "b""#, 1);
        assert_eq!(scan(log.as_bytes(), &HEADER).unwrap().scores[1].1[0], None);
    }

    #[test]
    fn gives_up_on_any_other_log() {
        let changes = [
            (r#""epoch": 1,"#, r#""epoch": 0,"#),
            (r#""epoch": 1,"#, r#""epoch": 1.0,"#),
            (r#""id": 1,"#, r#""id": 1e0,"#),
            (r#""id": 1,"#, r#""id": true,"#),
            (r#""id": 1,"#, r#""id": 99999999999999999999,"#),
            (r#""id": 1,"#, r#""id": 1, "id": 1,"#),
            (r#""id": 1,"#, r#""idx": 1,"#),
            (r#""input": "q","#, r#""input": 1,"#),
            (r#""target": "a\n","#, r#""target": ["a"],"#),
            (r#""target": "a\n","#, r#""target": "\ud800","#),
            (r#""completion": "b\u00e9""#, r#""completion": null"#),
            (r#""completion": "b\u00e9""#, r#""answer": "b""#),
            (r#""value": "C""#, r#""value": "C", "value": "C""#),
            (
                r#""match": {"answer""#,
                r#""match": {"value": "I"}, "match": {"answer""#,
            ),
            (r#"{"k": -2}"#, r#"{"k": 1e999}"#),
            (r#""error": """#, r#""error": " ""#),
            (r#""sandbox": {}"#, r#""sandbox": [1]"#),
            (r#""attachments": {}"#, r#""attachments": []"#),
            (r#""attachments": {}"#, r#""attachments": {"a": "b"}"#),
            (r#""version": 2"#, r#""version": 2, "vers\u0069on": 2"#),
            (r#""eval": {"task": "t"}"#, r#""evals": {"task": "t"}"#),
            (r#""error": null"#, r#""error": [1,]"#),
            (r#""error": null"#, r#""error": "\u12g4""#),
            (r#""error": null"#, r#""error": "\u+123""#),
            (r#""error": null"#, r#""error": "\x""#),
            (r#""error": null"#, r#""error": 01"#),
            (r#""error": null"#, r#""error": -"#),
            (r#""error": null"#, r#""error": nul"#),
            (r#""samples": ["#, r#""samples": [null, "#),
            ("\"results\"", "\"samples\": [], \"results\""),
            ("} ", "} x"),
        ];
        for (from, to) in changes {
            assert!(LOG.contains(from), "{from}");
            let log = LOG.replacen(from, to, 1);
            assert_eq!(scan(log.as_bytes(), &HEADER), None, "{to}");
        }
        assert_eq!(scan(b"[]", &HEADER), None);
        assert_eq!(scan(b"{\"eval\": \"\xff\"}", &HEADER), None);
        let deep = format!("{{\"eval\": {}1{}}}", "[".repeat(64), "]".repeat(64));
        assert_eq!(scan(deep.as_bytes(), &HEADER), None);
        let shallow = format!("{{\"eval\": {}1{}}}", "[".repeat(63), "]".repeat(63));
        assert!(scan(shallow.as_bytes(), &HEADER).is_some());
    }

    #[test]
    fn any_cut_of_a_log_is_read_or_refused() {
        let text = LOG.as_bytes();
        for end in 0..text.len() {
            let found = scan(&text[..end], &HEADER);
            assert!(found.is_none() || text[end..].iter().all(u8::is_ascii_whitespace));
        }
    }
}
