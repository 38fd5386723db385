//! Tests of the `.eval` log scan: the same columns as the `.json` log's scan of the same
//! samples.

use super::*;
use crate::interop::eval_zip::tests::{write_zip, Part};
use crate::interop::inspect_scan;

const SAMPLES: [&str; 3] = [
    r#"{"id": 1, "epoch": 1, "input": "q", "target": "a", "output": {"completion": "a"},
        "scores": {"match": {"value": "C"}}}"#,
    r#" {"id": 1, "epoch": 2, "input": "q", "target": "a", "output": {"completion": "b"},
        "scores": {"other": {"value": 1}, "match": {"value": "I"}}} "#,
    r#"{"id": "x", "epoch": 1, "input": [], "output": {"completion": ""}, "scores": null}"#,
];
const NAMES: [&str; 3] = [
    "samples/1_epoch_1.json",
    "samples/1_epoch_2.json",
    "samples/x_epoch_1.json",
];
const HEADER: &str = r#"{"version": 2, "eval": {"task": "t"}, "x-extra": [1], "stats": {}}"#;

fn zip_of(header: &str, samples: &[&str], more: &[Part<'_>]) -> Vec<u8> {
    let mut parts: Vec<Part<'_>> = vec![("header.json", header.as_bytes(), true)];
    for (index, text) in samples.iter().enumerate().rev() {
        parts.push((NAMES[index], text.as_bytes(), index % 2 == 0));
    }
    parts.extend_from_slice(more);
    write_zip(&parts, false)
}

#[test]
fn reads_the_columns_of_the_json_scan() {
    let zip = zip_of(HEADER, &SAMPLES, &[("reductions.json", b" [{}] ", true)]);
    let found = scan(&zip).unwrap();
    let log = format!(
        r#"{{"eval": {{"task": "t"}}, "samples": [{}]}}"#,
        SAMPLES.join(",")
    );
    let expected = inspect_scan::scan(log.as_bytes(), &inspect_scan::tests::HEADER).unwrap();
    assert_eq!(found.ids, expected.ids);
    assert_eq!(found.epochs, expected.epochs);
    assert_eq!(found.targets, expected.targets);
    assert_eq!(found.completions, expected.completions);
    assert_eq!(found.scores, expected.scores);
    let names: Vec<&str> = found.header.iter().map(|(name, _)| name.as_ref()).collect();
    assert_eq!(names, ["version", "eval", "x-extra", "stats", "reductions"]);
    assert_eq!(found.header[2].1, "[1]");
    assert_eq!(found.header[4].1, "[{}]");
    assert!(scan(&zip[1..]).is_none());
}

#[test]
fn reads_reductions_json_only_without_a_reductions_field() {
    let header = HEADER.replace("\"stats\"", "\"reductions\"");
    let zip = zip_of(&header, &SAMPLES, &[("reductions.json", b"not JSON", true)]);
    let found = scan(&zip).unwrap().header;
    assert_eq!(
        found.last().unwrap(),
        &(Cow::Borrowed("reductions"), Cow::Borrowed("{}"))
    );
    let zip = zip_of(HEADER, &SAMPLES, &[("reductions.json", b"not JSON", true)]);
    assert!(scan(&zip).is_none());
    let none = zip_of(HEADER, &[], &[]);
    let found = scan(&none).unwrap();
    assert_eq!((found.ids.len(), found.header.len()), (0, 4));
}

#[test]
fn gives_up_on_an_unusual_header_or_sample() {
    let headers = [
        "[]",
        r#"{"eval": 1, "eval": 1}"#,
        r#"{"eval": 1, "\u0065val": 1}"#,
        r#"{"eval": 1} x"#,
        r#"{"eval": [1,]}"#,
    ];
    for header in headers {
        assert!(scan(&zip_of(header, &SAMPLES, &[])).is_none(), "{header}");
    }
    let unusual = [
        r#"{"id": 1, "id": 1, "input": "q", "output": {"completion": ""}}"#,
        r#"{"id": 1, "input": "q", "output": {"completion": ""}} {}"#,
        r#"{"id": 1, "input": "q", "output": {"completion": ""}, "error": "e"}"#,
        r#"{"id": 1, "input": "q"}"#,
        r#"[1]"#,
    ];
    for sample in unusual {
        let zip = zip_of(HEADER, &[SAMPLES[0], sample], &[]);
        assert!(eval_zip::members(&zip, |_| Some(true)).is_some());
        assert!(scan(&zip).is_none(), "{sample}");
    }
}
