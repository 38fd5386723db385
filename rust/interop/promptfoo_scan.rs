//! One pass over a common promptfoo results file (version 3): the columns a re-score reads
//! (each row's sample name, answer and expected output, the assertion types) and the file's own
//! fields as JSON text, with nothing built for the values it skips.
//!
//! "Common" is the set of files `evalmark.interop._promptfoo_results` reads column by column:
//! the ones its typed decoding with test cases (`_CaseDocument`, whose msgspec structs are the
//! specification) accepts and whose rows `_case_columns` reads (one provider text in every
//! row, a text answer in each response). The scan accepts none of the others, and reads the
//! same columns from the ones it accepts. It gives up (`None`) on a few of those: a key repeated
//! in an object it reads, nesting deeper than [`MAX_DEPTH`](crate::json_read::MAX_DEPTH), an
//! integer outside `i64`, an `equals` assertion whose value is not a text, no rows. The caller
//! then reads the file the general way, which is slower, never different.

use std::borrow::Cow;

use crate::json_read::Parser;

/// The document's own fields, then the results body's, kept as JSON text (`version` among
/// them: the caller checks it is 3).
pub const KEPT: [&str; 8] = [
    "evalId",
    "config",
    "shareableUrl",
    "metadata",
    "version",
    "timestamp",
    "prompts",
    "stats",
];

/// The fields a row may hold (`_Row`'s, by their names in the file).
const ROW: [&str; 19] = [
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
];

/// The fields a test case may hold (`_Case`'s).
const CASE: [&str; 5] = ["vars", "assert", "threshold", "description", "metadata"];

/// The fields an assertion may hold (`_Assert`'s).
const ASSERT: [&str; 4] = ["type", "value", "weight", "threshold"];

/// The columns of a common results file, one item per row in the file's order (`names`: each
/// row's sample, `test-{testIdx + 1}-prompt-{promptIdx + 1}`; `expected`: the value of its test
/// case's first `equals` assertion holding one, else empty), the assertion types in the order
/// first seen, the provider's JSON text (every row's the same; None: no row names one) and the
/// file's own fields present, as (name, JSON text).
#[derive(Debug, Default, PartialEq)]
pub struct Scan<'a> {
    pub kept: Vec<(&'static str, &'a str)>,
    pub provider: Option<&'a str>,
    pub names: Vec<String>,
    pub answers: Vec<Cow<'a, str>>,
    pub expected: Vec<Cow<'a, str>>,
    pub types: Vec<Cow<'a, str>>,
}

/// Mark bit `bit` of `seen`; false when it was set (a key read twice).
fn first(seen: &mut u32, bit: usize) -> bool {
    let fresh = *seen & (1 << bit) == 0;
    *seen |= 1 << bit;
    fresh
}

/// The bit of `key` among `keys` when it is one of them and not read before; else None.
fn fresh(keys: &[&str], seen: &mut u32, key: &str) -> Option<usize> {
    let bit = keys.iter().position(|name| *name == key)?;
    first(seen, bit).then_some(bit)
}

/// The columns of the results file `data` (its whole bytes) whose assertions are all of the
/// types `carried`, or None when it is not a common file (or one the scan leaves to the
/// general reading).
pub fn scan<'a>(data: &'a [u8], carried: &[&str]) -> Option<Scan<'a>> {
    let mut p = Parser::new(data)?;
    let mut out = Scan::default();
    let mut provider = None; // the first row's: Some(None) when it names none
    let mut seen = 0u32;
    let mut has_rows = false;
    p.members(|p, key| {
        if key == "results" {
            has_rows = first(&mut seen, KEPT.len());
            return (has_rows && body(p, carried, &mut out, &mut provider).is_some()).then_some(());
        }
        let at = fresh(&KEPT[..4], &mut seen, &key)?;
        out.kept.push((KEPT[at], p.raw(1, true)?));
        Some(())
    })?;
    out.provider = provider?; // no row: None
    (p.at_end() && has_rows).then_some(out)
}

/// The results body: its rows into the columns, its other fields into `out.kept`.
fn body<'a>(
    p: &mut Parser<'a>,
    carried: &[&str],
    out: &mut Scan<'a>,
    provider: &mut Option<Option<&'a str>>,
) -> Option<()> {
    let mut seen = 0u32;
    let mut has_rows = false;
    p.members(|p, key| {
        if key == "results" {
            has_rows = first(&mut seen, KEPT.len());
            return if has_rows {
                p.array(|p| row(p, carried, out, provider))
            } else {
                None
            };
        }
        let at = 4 + fresh(&KEPT[4..], &mut seen, &key)?;
        out.kept.push((KEPT[at], p.raw(2, true)?));
        Some(())
    })?;
    has_rows.then_some(())
}

/// Read one row (an object, three levels deep) into the columns.
fn row<'a>(
    p: &mut Parser<'a>,
    carried: &[&str],
    out: &mut Scan<'a>,
    provider: &mut Option<Option<&'a str>>,
) -> Option<()> {
    const DEPTH: usize = 4; // a field's value
    let mut seen = 0u32;
    let (mut prompt_idx, mut test_idx) = (0i64, 0i64);
    let mut expected = None;
    let mut answer = None;
    let mut named = None;
    p.members(|p, key| {
        match ROW[fresh(&ROW, &mut seen, &key)?] {
            "prompt" => prompt(p)?,
            "promptIdx" => prompt_idx = p.int()?,
            "testIdx" => test_idx = p.int()?,
            "testCase" => expected = Some(case(p, carried, &mut out.types)?),
            "provider" => named = Some(p.raw(DEPTH, true)?),
            "response" => answer = Some(response(p)?),
            _ => p.skip(DEPTH, true)?,
        }
        Some(())
    })?;
    if seen & 1 == 0 || *provider.get_or_insert(named) != named {
        return None; // no prompt; another provider's text
    }
    let name = format!(
        "test-{}-prompt-{}",
        i128::from(test_idx) + 1,
        i128::from(prompt_idx) + 1
    );
    out.names.push(name);
    out.expected.push(expected?);
    out.answers.push(answer?);
    Some(())
}

/// A row's `prompt`: an object with a text `raw` (its other keys skipped).
fn prompt(p: &mut Parser<'_>) -> Option<()> {
    let mut raw = false;
    p.members(|p, key| {
        if key != "raw" {
            return p.skip(5, false);
        }
        if raw {
            return None;
        }
        raw = true;
        p.str_cow().map(drop)
    })?;
    raw.then_some(())
}

/// A row's `response`: an object whose `output`, when there, is its text answer (its other
/// keys skipped; no `output`: empty).
fn response<'a>(p: &mut Parser<'a>) -> Option<Cow<'a, str>> {
    let mut output = None;
    p.members(|p, key| {
        if key != "output" {
            return p.skip(5, true);
        }
        if output.is_some() {
            return None;
        }
        output = Some(p.str_cow()?);
        Some(())
    })?;
    Some(output.unwrap_or_default())
}

/// A row's `testCase` (an object of `_Case`'s fields): its expected output, its assertion
/// types added to `types`.
fn case<'a>(
    p: &mut Parser<'a>,
    carried: &[&str],
    types: &mut Vec<Cow<'a, str>>,
) -> Option<Cow<'a, str>> {
    const DEPTH: usize = 5; // a field's value
    let mut seen = 0u32;
    let mut expected = None;
    p.members(|p, key| match CASE[fresh(&CASE, &mut seen, &key)?] {
        "vars" => p.members(|p, _| {
            if p.next_is(b'"') {
                p.skip(DEPTH + 1, false)
            } else {
                p.number_exact()
            }
        }),
        "assert" => p.array(|p| assertion(p, carried, types, &mut expected)),
        _ => p.skip(DEPTH, true),
    })?;
    Some(expected.unwrap_or_default())
}

/// One assertion (an object of `_Assert`'s fields, of a type `carried`, its value no text
/// holding `{`): its type added to `types`, its value made `expected` when it is the first
/// `equals` assertion with one.
fn assertion<'a>(
    p: &mut Parser<'a>,
    carried: &[&str],
    types: &mut Vec<Cow<'a, str>>,
    expected: &mut Option<Cow<'a, str>>,
) -> Option<()> {
    const DEPTH: usize = 7; // a field's value
    let mut seen = 0u32;
    let mut kind = None;
    let mut value = None; // Some(None): a value that is not a text
    p.members(|p, key| {
        match ASSERT[fresh(&ASSERT, &mut seen, &key)?] {
            "type" => kind = Some(p.str_cow().filter(|t| carried.contains(&t.as_ref()))?),
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
    if kind == "equals" && expected.is_none() {
        if let Some(value) = value {
            *expected = Some(value?); // not a text: read as one by the general reading
        }
    }
    if !types.contains(&kind) {
        types.push(kind);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const CARRIED: [&str; 3] = ["equals", "contains", "llm-rubric"];

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
        let found = scan(FILE.as_bytes(), &CARRIED).unwrap();
        let kept = vec![
            ("evalId", r#""e""#),
            ("version", "3"),
            ("timestamp", r#""t""#),
            ("stats", r#"{"successes": 1}"#),
            ("config", "{}"),
        ];
        assert_eq!(found.kept, kept);
        assert_eq!(found.provider, Some(r#"{"id": "a:b"}"#));
        assert_eq!(found.names, vec!["test-1-prompt-1", "test-42-prompt-1"]);
        assert_eq!(found.answers, vec![cow("A\n"), cow("")]);
        assert_eq!(found.expected, vec![cow("A\u{e9}"), cow("")]);
        assert_eq!(
            found.types,
            vec![cow("contains"), cow("equals"), cow("llm-rubric")]
        );
    }

    #[test]
    fn rows_without_a_provider_are_read() {
        let file = FILE.replace(r#""provider": {"id": "a:b"},"#, "");
        let found = scan(file.as_bytes(), &CARRIED).unwrap();
        assert_eq!((found.provider, found.names.len()), (None, 2));
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
            (
                r#"{"id": "a:b"}, "response": {}"#,
                r#"{"id": "c"}, "response": {}"#,
            ),
            (r#""success": true"#, r#""success": tru"#),
            (r#""gradingResult": null"#, r#""gradingResult": 01"#),
            ("} ", "} x"),
        ];
        for (from, to) in changes {
            assert!(FILE.contains(from), "{from}");
            let file = FILE.replacen(from, to, 1);
            assert_eq!(scan(file.as_bytes(), &CARRIED), None, "{to}");
        }
        assert_eq!(scan(b"[]", &CARRIED), None);
        assert_eq!(
            scan(br#"{"results": {"version": 3, "results": []}}"#, &CARRIED),
            None
        );
        assert_eq!(scan(br#"{"results": {"version": 3}}"#, &CARRIED), None);
        assert_eq!(scan(b"{\"evalId\": \"\xff\"}", &CARRIED), None);
    }

    #[test]
    fn a_non_text_value_after_the_first_equals_one_is_read() {
        let file = FILE.replacen(r#""value": "B""#, r#""value": 2"#, 1);
        let found = scan(file.as_bytes(), &CARRIED).unwrap();
        assert_eq!(found.expected[0], cow("A\u{e9}"));
        let file = FILE.replacen(
            r#"{"value": "A\u00e9", "type": "equals"}"#,
            r#"{"type": "equals"}"#,
            1,
        );
        assert_eq!(
            scan(file.as_bytes(), &CARRIED).unwrap().expected[0],
            cow("B")
        );
    }

    #[test]
    fn any_cut_of_a_file_is_read_or_refused() {
        let text = FILE.as_bytes();
        for end in 0..text.len() {
            let found = scan(&text[..end], &CARRIED);
            assert!(found.is_none() || text[end..].iter().all(u8::is_ascii_whitespace));
        }
    }
}
