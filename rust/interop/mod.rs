//! Fast paths of the importers of other tools' files: `inspect_scan` reads a common inspect_ai
//! `.json` log's columns in one pass, `eval_scan` a common `.eval` log's (its zip's members
//! read by `eval_zip`), `promptfoo_scan` a common promptfoo results file's. Each gives up
//! (`None`) on anything it does not read exactly as the Python path does.

pub mod eval_scan;
pub mod eval_zip;
pub mod inspect_scan;
pub mod promptfoo_scan;
