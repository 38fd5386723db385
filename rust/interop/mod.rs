//! Fast paths of the importers of other tools' files: `inspect_scan` reads a common inspect_ai
//! `.json` log's columns in one pass. Each gives up (`None`) on anything it does not read
//! exactly as the Python path does.

pub mod inspect_scan;
