//! Fast paths of the importers of other tools' files: `inspect_scan` reads a common inspect_ai
//! `.json` log's columns in one pass, `promptfoo_scan` a common promptfoo results file's. Each
//! gives up (`None`) on anything it does not read exactly as the Python path does.

pub mod inspect_scan;
pub mod promptfoo_scan;
