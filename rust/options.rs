//! Keyword options converted from Python values by `FromPyObject`, so a binding names the
//! Rust type in its signature and gets a checked value or a clear error:
//!
//! * string options (`normalizer`, `tokenizer`, `measure`, `numbers`, `scorer`, `location`):
//!   one [`str_option!`] line each, mapping the accepted strings to the kernel's enum;
//! * `workers` ([`Workers`]) and `max_chars` ([`MaxChars`]);
//! * counts (`n`, `char_order`, `word_order`, `beta`): one [`count_option!`] line each;
//! * `stemmer`: `None` or `"porter"`.

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyString};
use pyo3::Borrowed;

use crate::batch::{bad_workers, Workers};
use crate::errors::EvalError;
use crate::inputs::type_name;
use crate::metrics::bleu::SmoothMethod;
use crate::metrics::bleu_tokenize::BleuTokenizer;
use crate::metrics::inspect_match::{Location, Scorer};
use crate::metrics::json::Numbers;
use crate::metrics::rouge_tokens::{Measure, Stemmer, Tokenizer};
use crate::metrics::token_f1::Normalizer;

/// The value of string option `name` among `choices`, or the error saying what is accepted.
fn pick<T: Copy>(name: &str, obj: &Bound<'_, PyAny>, choices: &[(&str, T)]) -> PyResult<T> {
    let listed = || {
        choices
            .iter()
            .map(|(text, _)| format!("{text:?}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let Ok(s) = obj.cast::<PyString>() else {
        return Err(EvalError::Type(format!(
            "{name} must be a str, one of {}, got {}",
            listed(),
            type_name(obj)
        ))
        .into());
    };
    let text = s.to_string_lossy();
    match choices.iter().find(|(t, _)| *t == text) {
        Some(&(_, value)) => Ok(value),
        None => Err(
            EvalError::input(format!("{name} must be one of {}, got {text:?}", listed())).into(),
        ),
    }
}

/// `FromPyObject` for a kernel enum chosen by name: `str_option!(Type, "option", "text" =>
/// Type::Variant, ...)`. The first pair is listed first in the error message.
macro_rules! str_option {
    ($ty:ty, $name:literal, $($text:literal => $value:expr),+ $(,)?) => {
        impl<'a, 'py> FromPyObject<'a, 'py> for $ty {
            type Error = PyErr;

            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                pick($name, &obj, &[$(($text, $value)),+])
            }
        }
    };
}

str_option!(Normalizer, "normalizer", "squad" => Normalizer::Squad, "none" => Normalizer::None);
str_option!(Tokenizer, "tokenizer", "rouge" => Tokenizer::Rouge, "unicode" => Tokenizer::Unicode);
str_option!(
    Measure,
    "measure",
    "fmeasure" => Measure::F,
    "precision" => Measure::Precision,
    "recall" => Measure::Recall,
);
str_option!(Scorer, "scorer", "match" => Scorer::Match, "includes" => Scorer::Includes);
str_option!(
    Location,
    "location",
    "begin" => Location::Begin,
    "end" => Location::End,
    "any" => Location::Any,
    "exact" => Location::Exact,
);
str_option!(Numbers, "numbers", "value" => Numbers::Value, "strict" => Numbers::Strict);
str_option!(
    BleuTokenizer,
    "tokenizer",
    "13a" => BleuTokenizer::Tok13a,
    "intl" => BleuTokenizer::Intl,
    "none" => BleuTokenizer::None,
);
str_option!(
    SmoothMethod,
    "smooth",
    "exp" => SmoothMethod::Exp,
    "floor" => SmoothMethod::Floor,
    "add-k" => SmoothMethod::AddK,
    "none" => SmoothMethod::None,
);

impl<'a, 'py> FromPyObject<'a, 'py> for Stemmer {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Ok(Stemmer::None);
        }
        pick("stemmer", &obj, &[("porter", Stemmer::Porter)]).map_err(|e| {
            let py = obj.py();
            if e.is_instance_of::<pyo3::exceptions::PyTypeError>(py) {
                EvalError::Type(format!(
                    "stemmer must be None or \"porter\", got {}",
                    type_name(&obj)
                ))
                .into()
            } else {
                e
            }
        })
    }
}

/// An `int` argument that is not a `bool`, as `i128` (`None` when it does not fit).
fn int_arg(name: &str, obj: &Bound<'_, PyAny>) -> PyResult<Option<i128>> {
    if obj.is_instance_of::<PyBool>() || !obj.is_instance_of::<PyInt>() {
        return Err(
            EvalError::Type(format!("{name} must be an int, got {}", type_name(obj))).into(),
        );
    }
    Ok(obj.extract::<i128>().ok())
}

/// The largest count option accepted: far beyond any useful n-gram order or beta.
pub const MAX_COUNT: i128 = 65_535;

/// `FromPyObject` for an `int` option from `min` to [`MAX_COUNT`]:
/// `count_option!(Type, "option", min);` defines `Type(pub usize)`.
macro_rules! count_option {
    ($ty:ident, $name:literal, $min:literal, $doc:literal) => {
        #[doc = $doc]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct $ty(pub usize);

        impl<'a, 'py> FromPyObject<'a, 'py> for $ty {
            type Error = PyErr;

            fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
                match int_arg($name, &obj)? {
                    Some(v) if ($min..=MAX_COUNT).contains(&v) => Ok($ty(v as usize)),
                    _ => Err(EvalError::input(format!(
                        "{} must be an int from {} to {MAX_COUNT}, got {}",
                        $name,
                        $min,
                        obj.str()?
                    ))
                    .into()),
                }
            }
        }
    };
}

count_option!(NgramOrder, "n", 1, "ROUGE-N's n (1 or more).");
count_option!(CharOrder, "char_order", 0, "chrF's character n-gram order.");
count_option!(
    WordOrder,
    "word_order",
    0,
    "chrF's word n-gram order (2: chrF++)."
);
count_option!(Beta, "beta", 0, "chrF's recall weight.");

impl<'a, 'py> FromPyObject<'a, 'py> for Workers {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        workers_from("workers", &obj)
    }
}

/// The thread count in `obj`, an int read from `source`.
fn workers_from(source: &str, obj: &Bound<'_, PyAny>) -> PyResult<Workers> {
    let value = int_arg(source, obj)?;
    match value
        .and_then(|v| isize::try_from(v).ok())
        .and_then(Workers::new)
    {
        Some(w) => Ok(w),
        None => Err(bad_workers(source, &obj.str()?.to_string_lossy()).into()),
    }
}

/// The variable that gives the thread count when a call does not.
const WORKERS_VARIABLE: &str = "EVALMARK_WORKERS";

/// The thread count a call uses: `workers` when given, else the `EVALMARK_WORKERS`
/// environment variable (as `os.environ` holds it), else -1; every value is checked here, the
/// one place for it.
pub fn resolve_workers(py: Python<'_>, workers: Option<&Bound<'_, PyAny>>) -> PyResult<Workers> {
    if let Some(w) = workers.filter(|w| !w.is_none()) {
        return workers_from("workers", w);
    }
    let environ = py.import("os")?.getattr("environ")?;
    let raw = environ.call_method1("get", (WORKERS_VARIABLE, ""))?;
    let text = raw.call_method0("strip")?;
    if text.len()? == 0 {
        return Ok(Workers::ALL);
    }
    match py.get_type::<PyInt>().call1((&text,)) {
        Ok(value) => workers_from(WORKERS_VARIABLE, &value),
        Err(_) => Err(EvalError::input(format!(
            "{WORKERS_VARIABLE} must be an integer (-1 for all cores), got {}",
            text.repr()?
        ))
        .into()),
    }
}

/// The `max_chars` argument: the most code points a text may have, or no limit.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MaxChars(pub Option<usize>);

impl MaxChars {
    pub const NONE: MaxChars = MaxChars(None);
}

impl<'a, 'py> FromPyObject<'a, 'py> for MaxChars {
    type Error = PyErr;

    fn extract(obj: Borrowed<'a, 'py, PyAny>) -> PyResult<Self> {
        if obj.is_none() {
            return Ok(MaxChars::NONE);
        }
        match int_arg("max_chars", &obj)? {
            Some(v) if v < 0 => Err(EvalError::input(format!(
                "max_chars must be None or a count of characters (0 or more), got {v}"
            ))
            .into()),
            // Beyond any text's length: no limit.
            Some(v) => Ok(MaxChars(usize::try_from(v).ok())),
            None if obj.lt(0)? => Err(EvalError::input(format!(
                "max_chars must be None or a count of characters (0 or more), got {}",
                obj.str()?
            ))
            .into()),
            None => Ok(MaxChars::NONE),
        }
    }
}
