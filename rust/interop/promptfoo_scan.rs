//! One pass over a common promptfoo results file (version 3): the columns a re-score reads
//! (the samples' names and expected outputs, each row's sample, provider and answer, the
//! assertion types) and the file's own fields as JSON text, with nothing built for the values
//! it skips.
//!
//! "Common" is the set of files `evalmark.interop._promptfoo_results` reads through typed test
//! cases without refusing one: the ones its typed decoding with test cases (`_CaseDocument`,
//! whose msgspec structs are the specification: the caller passes their fields as the
//! [`Shape`]) accepts, with a text answer in each response and a sample's prompt the same in
//! each of its rows (the caller checks that no build answers a sample twice: the builds are
//! named from the providers there). The scan accepts none of the others, and reads the same
//! columns from the ones it accepts. It gives up (`None`) on a few of those: a key repeated in
//! an object it reads, nesting deeper than [`MAX_DEPTH`](crate::json_read::MAX_DEPTH), an
//! integer outside `i64`, an `equals` assertion whose value is not a text, no rows. The caller
//! then reads the file the general way, which is slower, never different.

use std::borrow::Cow;
use std::collections::HashMap;

use crate::json_read::{first, Parser};

/// The fields each object of a common file may hold, by their names in the file (each at most
/// 32), and the assertion types carried (at most 64). A few of them the scan reads: the
/// document's and the body's `results`, a row's `prompt`, `promptIdx`, `testIdx`, `testCase`,
/// `provider` and `response`, a test case's `vars` and `assert`, an assertion's `type` and
/// `value`; it checks the others' values as JSON.
pub struct Shape<'s> {
    pub document: &'s [&'s str],
    pub body: &'s [&'s str],
    pub row: &'s [&'s str],
    pub case: &'s [&'s str],
    pub assertion: &'s [&'s str],
    pub carried: &'s [&'s str],
}

impl Shape<'_> {
    fn fits(&self) -> bool {
        let objects = [
            self.document,
            self.body,
            self.row,
            self.case,
            self.assertion,
        ];
        objects.iter().all(|keys| keys.len() <= 32) && self.carried.len() <= 64
    }
}

/// The columns of a common results file: its samples in the order first seen (`names`:
/// `test-{testIdx + 1}-prompt-{promptIdx + 1}`; `expected`: the value of its test case's first
/// `equals` assertion holding one, else empty), its providers' JSON texts in the order first
/// seen (None: a row naming none), then per row in the file's order its sample and its provider
/// (indexes into those) and its answer; `types`, the assertion types of each sample's test case
/// (bits of the types carried), and the document's and the body's other fields present, as
/// (name, JSON text).
#[derive(Debug, Default, PartialEq)]
pub struct Scan<'a> {
    pub kept: Vec<(Cow<'a, str>, &'a str)>,
    pub names: Vec<String>,
    pub expected: Vec<Cow<'a, str>>,
    pub providers: Vec<Option<&'a str>>,
    pub samples: Vec<u32>,
    pub builds: Vec<u32>,
    pub answers: Vec<Cow<'a, str>>,
    pub types: u64,
}

/// What the scan keeps while it reads the rows: each sample's place by its (testIdx,
/// promptIdx) and its prompt (the same in every row of the sample, or the file is refused).
#[derive(Default)]
struct Seen<'a> {
    places: HashMap<(i64, i64), u32>,
    prompts: Vec<Cow<'a, str>>,
}

/// Whether `key` is one of `keys` not read before (its bit in `seen` then set).
fn fresh(keys: &[&str], seen: &mut u32, key: &str) -> bool {
    keys.iter()
        .position(|name| *name == key)
        .is_some_and(|bit| first(seen, bit))
}

/// The columns of the results file `data` (its whole bytes) of the shape `shape`, or None when
/// it is not a common file (or one the scan leaves to the general reading).
pub fn scan<'a>(data: &'a [u8], shape: &Shape<'_>) -> Option<Scan<'a>> {
    if !shape.fits() {
        return None;
    }
    let mut p = Parser::new(data)?;
    let mut out = Scan::default();
    let mut rows = Seen::default();
    let mut seen = 0u32;
    let mut has_rows = false;
    p.members(|p, key| {
        if !fresh(shape.document, &mut seen, &key) {
            return None;
        }
        if key == "results" {
            has_rows = true;
            return body(p, shape, &mut out, &mut rows);
        }
        out.kept.push((key, p.raw(1, true)?));
        Some(())
    })?;
    (p.at_end() && has_rows && !out.answers.is_empty()).then_some(out)
}

/// The results body: its rows into the columns, its other fields into `out.kept`.
fn body<'a>(
    p: &mut Parser<'a>,
    shape: &Shape<'_>,
    out: &mut Scan<'a>,
    rows: &mut Seen<'a>,
) -> Option<()> {
    let mut seen = 0u32;
    let mut has_rows = false;
    p.members(|p, key| {
        if !fresh(shape.body, &mut seen, &key) {
            return None;
        }
        if key == "results" {
            has_rows = true;
            return p.array(|p| row(p, shape, out, rows));
        }
        out.kept.push((key, p.raw(2, true)?));
        Some(())
    })?;
    has_rows.then_some(())
}

/// Read one row (an object, three levels deep) into the columns.
fn row<'a>(
    p: &mut Parser<'a>,
    shape: &Shape<'_>,
    out: &mut Scan<'a>,
    rows: &mut Seen<'a>,
) -> Option<()> {
    const DEPTH: usize = 4; // a field's value
    let mut seen = 0u32;
    let (mut prompt_idx, mut test_idx) = (0i64, 0i64);
    let mut question = None;
    let mut case_read = None;
    let mut answer = None;
    let mut named = None;
    p.members(|p, key| {
        if !fresh(shape.row, &mut seen, &key) {
            return None;
        }
        match key.as_ref() {
            "prompt" => question = Some(p.text_member("raw", 5, false)??),
            "promptIdx" => prompt_idx = p.int()?,
            "testIdx" => test_idx = p.int()?,
            "testCase" => case_read = Some(case(p, shape)?),
            "provider" => named = Some(p.raw(DEPTH, true)?),
            // no output: empty
            "response" => answer = Some(p.text_member("output", 5, true)?.unwrap_or_default()),
            _ => p.skip(DEPTH, true)?,
        }
        Some(())
    })?;
    let (question, (expected, types)) = (question?, case_read?);
    let next = u32::try_from(out.names.len()).ok()?;
    let sample = *rows.places.entry((test_idx, prompt_idx)).or_insert(next);
    if sample == next {
        let (test, prompt) = (i128::from(test_idx) + 1, i128::from(prompt_idx) + 1);
        out.names.push(format!("test-{test}-prompt-{prompt}"));
        out.expected.push(expected);
        out.types |= types; // the general reading reads a sample's first test case
        rows.prompts.push(question);
    } else if rows.prompts[sample as usize] != question {
        return None; // refused by the general reading: a sample sent different prompts
    }
    let build = match out.providers.iter().position(|known| *known == named) {
        Some(at) => at,
        None => {
            out.providers.push(named);
            out.providers.len() - 1
        }
    };
    out.samples.push(sample);
    out.builds.push(u32::try_from(build).ok()?);
    out.answers.push(answer?);
    Some(())
}

/// A row's `testCase`: its expected output and its assertion types (bits of the types
/// carried).
fn case<'a>(p: &mut Parser<'a>, shape: &Shape<'_>) -> Option<(Cow<'a, str>, u64)> {
    const DEPTH: usize = 5; // a field's value
    let mut seen = 0u32;
    let mut expected = None;
    let mut types = 0u64;
    p.members(|p, key| {
        if !fresh(shape.case, &mut seen, &key) {
            return None;
        }
        match key.as_ref() {
            "vars" => p.members(|p, _| {
                if p.next_is(b'"') {
                    p.skip(DEPTH + 1, false)
                } else {
                    p.number_exact()
                }
            }),
            "assert" => p.array(|p| assertion(p, shape, &mut types, &mut expected)),
            _ => p.skip(DEPTH, true),
        }
    })?;
    Some((expected.unwrap_or_default(), types))
}

/// One assertion (of a type carried, its value no text holding `{`): its type's bit set in
/// `types`, its value made `expected` when it is the first `equals` assertion with one.
fn assertion<'a>(
    p: &mut Parser<'a>,
    shape: &Shape<'_>,
    types: &mut u64,
    expected: &mut Option<Cow<'a, str>>,
) -> Option<()> {
    const DEPTH: usize = 7; // a field's value
    let mut seen = 0u32;
    let mut kind = None;
    let mut value = None; // Some(None): a value that is not a text
    p.members(|p, key| {
        if !fresh(shape.assertion, &mut seen, &key) {
            return None;
        }
        match key.as_ref() {
            "type" => {
                let text = p.str_cow()?;
                kind = Some(shape.carried.iter().position(|known| *known == text)?);
            }
            "value" if p.next_is(b'"') => {
                let text = p.str_cow()?;
                if text.contains('{') {
                    return None; // a template: rendered by the general reading
                }
                value = Some(Some(text));
            }
            "value" => {
                p.skip(DEPTH, true)?;
                value = Some(None);
            }
            _ => p.skip(DEPTH, true)?,
        }
        Some(())
    })?;
    let kind = kind?;
    if shape.carried[kind] == "equals" && expected.is_none() {
        if let Some(value) = value {
            *expected = Some(value?); // not a text: read as one by the general reading
        }
    }
    *types |= 1 << kind;
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The shape `evalmark.interop._promptfoo_scan` passes (its structs' fields), with three
    /// of the assertion types carried.
    const SHAPE: Shape<'static> = Shape {
        document: &["results", "evalId", "config", "shareableUrl", "metadata"],
        body: &["results", "version", "timestamp", "prompts", "stats"],
        row: &[
            "prompt",
            "promptIdx",
            "testIdx",
            "testCase",
            "provider",
            "response",
            "promptId",
            "vars",
            "success",
            "score",
            "gradingResult",
            "namedScores",
            "latencyMs",
            "cost",
            "error",
            "failureReason",
            "id",
            "metadata",
            "tokenUsage",
        ],
        case: &["vars", "assert", "threshold", "description", "metadata"],
        assertion: &["type", "value", "weight", "threshold"],
        carried: &["equals", "contains", "llm-rubric"],
    };

    const FILE: &str = r#" {"evalId": "e", "results": {"version": 3, "timestamp": "t",
        "results": [
        {"prompt": {"raw": "Q1", "label": "{{q}}"}, "testIdx": 0, "promptIdx": 0,
         "testCase": {"vars": {"q": "Q1", "n": 2.5e1}, "assert": [{"type": "contains",
           "value": ["x"]}, {"value": "A\u00e9", "type": "equals"}, {"type": "equals",
           "value": "B"}], "metadata": {"k": [1]}},
         "provider": {"id": "a:b"}, "response": {"output": "A\n", "cached": false},
         "success": true, "score": 1.0, "gradingResult": null},
        {"pr\u006fmpt": {"raw": ""}, "testIdx": 41, "testCase": {"assert": [{"type":
         "llm-rubric", "value": "good"}]}, "provider": {"id": "a:b"}, "response": {}}
        ], "stats": {"successes": 1}}, "config": {}} "#;

    fn cow(s: &str) -> Cow<'_, str> {
        Cow::Borrowed(s)
    }

    #[test]
    fn reads_the_columns() {
        let found = scan(FILE.as_bytes(), &SHAPE).unwrap();
        let kept = vec![
            (cow("evalId"), r#""e""#),
            (cow("version"), "3"),
            (cow("timestamp"), r#""t""#),
            (cow("stats"), r#"{"successes": 1}"#),
            (cow("config"), "{}"),
        ];
        assert_eq!(found.kept, kept);
        assert_eq!(found.providers, vec![Some(r#"{"id": "a:b"}"#)]);
        assert_eq!(found.names, vec!["test-1-prompt-1", "test-42-prompt-1"]);
        assert_eq!(found.expected, vec![cow("A\u{e9}"), cow("")]);
        assert_eq!((found.samples, found.builds), (vec![0, 1], vec![0, 0]));
        assert_eq!(found.answers, vec![cow("A\n"), cow("")]);
        assert_eq!(found.types, 0b111);
    }

    #[test]
    fn rows_of_several_providers_are_read() {
        let file = FILE.replace(r#""provider": {"id": "a:b"},"#, "");
        let found = scan(file.as_bytes(), &SHAPE).unwrap();
        assert_eq!((found.providers, found.builds), (vec![None], vec![0, 0]));
        // the second row answers the first sample, from another provider: its case not read
        let file = FILE
            .replacen(r#""testIdx": 41"#, r#""testIdx": 0"#, 1)
            .replacen(r#"{"raw": ""}"#, r#"{"raw": "Q1"}"#, 1)
            .replacen(
                r#"{"id": "a:b"}, "response": {}"#,
                r#""b", "response": {}"#,
                1,
            );
        let found = scan(file.as_bytes(), &SHAPE).unwrap();
        assert_eq!(
            found.providers,
            vec![Some(r#"{"id": "a:b"}"#), Some(r#""b""#)]
        );
        assert_eq!(found.names, vec!["test-1-prompt-1"]);
        assert_eq!((found.samples, found.builds), (vec![0, 0], vec![0, 1]));
        assert_eq!(found.types, 0b011);
        let other_prompt = file.replacen(r#"{"raw": "Q1"}"#, r#"{"raw": "Q2"}"#, 1);
        assert_eq!(scan(other_prompt.as_bytes(), &SHAPE), None);
    }

    #[test]
    fn gives_up_on_any_other_file() {
        let changes = [
            (r#""version": 3"#, r#""version": 3, "version": 3"#),
            (r#""evalId": "e""#, r#""evalId": "e", "evalId": "e""#),
            (r#""evalId": "e""#, r#""eval": "e""#),
            (r#""timestamp": "t""#, r#""time": "t""#),
            (r#""stats": {"successes": 1}"#, r#""stats": 1e999"#),
            (r#""testIdx": 41"#, r#""testIdx": 41.0"#),
            (r#""testIdx": 41"#, r#""testIdx": null"#),
            (r#""testIdx": 41"#, r#""testIdx": 99999999999999999999"#),
            (r#""testIdx": 41"#, r#""testIdx": 41, "testIdx": 41"#),
            (r#""testIdx": 41"#, r#""testIdx": 41, "extra": 1"#),
            (r#"{"raw": ""}"#, r#"{"raw": 1}"#),
            (r#"{"raw": ""}"#, r#"{"label": ""}"#),
            (r#"{"raw": ""}"#, r#"{"raw": "", "raw": ""}"#),
            (r#""pr\u006fmpt": {"raw": ""}, "#, ""),
            (r#""n": 2.5e1"#, r#""n": true"#),
            (r#""n": 2.5e1"#, r#""n": null"#),
            (r#""n": 2.5e1"#, r#""n": [1]"#),
            (r#""n": 2.5e1"#, r#""n": 1e999"#),
            (r#""metadata": {"k": [1]}"#, r#""options": {}"#),
            (
                r#""metadata": {"k": [1]}"#,
                r#""metadata": 99999999999999999999"#,
            ),
            (r#""type": "contains""#, r#""type": "javascript""#),
            (r#""type": "contains""#, r#""type": ["contains"]"#),
            (r#"{"type": "contains","#, r#"{"#),
            (
                r#""type": "contains""#,
                r#""type": "contains", "provider": "p""#,
            ),
            (r#""value": "good""#, r#""value": "{{q}}""#),
            (r#""value": "A\u00e9""#, r#""value": 1"#),
            (r#""value": "A\u00e9""#, r#""value": null"#),
            (r#""value": "A\u00e9""#, r#""value": "\ud800""#),
            (r#""output": "A\n""#, r#""output": ["A"]"#),
            (r#""output": "A\n""#, r#""output": "A", "output": "A""#),
            (r#""cached": false"#, r#""cached": 1e999"#),
            (r#", "response": {}"#, ""),
            (r#", "response": {}"#, r#", "response": null"#),
            (r#", "response": {}"#, r#", "response": "x""#),
            (
                r#""testCase": {"assert""#,
                r#""testCase": null, "x": {"assert""#,
            ),
            (r#""success": true"#, r#""success": tru"#),
            (r#""gradingResult": null"#, r#""gradingResult": 01"#),
            ("} ", "} x"),
        ];
        for (from, to) in changes {
            assert!(FILE.contains(from), "{from}");
            let file = FILE.replacen(from, to, 1);
            assert_eq!(scan(file.as_bytes(), &SHAPE), None, "{to}");
        }
        assert_eq!(scan(b"[]", &SHAPE), None);
        assert_eq!(
            scan(br#"{"results": {"version": 3, "results": []}}"#, &SHAPE),
            None
        );
        assert_eq!(scan(br#"{"results": {"version": 3}}"#, &SHAPE), None);
        assert_eq!(scan(b"{\"evalId\": \"\xff\"}", &SHAPE), None);
    }

    #[test]
    fn a_non_text_value_after_the_first_equals_one_is_read() {
        let file = FILE.replacen(r#""value": "B""#, r#""value": 2"#, 1);
        let found = scan(file.as_bytes(), &SHAPE).unwrap();
        assert_eq!(found.expected[0], cow("A\u{e9}"));
        let file = FILE.replacen(
            r#"{"value": "A\u00e9", "type": "equals"}"#,
            r#"{"type": "equals"}"#,
            1,
        );
        assert_eq!(scan(file.as_bytes(), &SHAPE).unwrap().expected[0], cow("B"));
    }

    #[test]
    fn any_cut_of_a_file_is_read_or_refused() {
        let text = FILE.as_bytes();
        for end in 0..text.len() {
            let found = scan(&text[..end], &SHAPE);
            assert!(found.is_none() || text[end..].iter().all(u8::is_ascii_whitespace));
        }
    }
}
