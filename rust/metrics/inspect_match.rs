//! inspect_ai's text scorers `match` and `includes` on ASCII texts, with the verdicts of their
//! Python definition (`evalmark.strategies._inspect`), and no string made for `begin`, `end`
//! and `exact`.
//!
//! `match`: both texts trimmed by `str.strip()` (Python's whitespace, which on ASCII is
//! `\t\n\x0b\x0c\r`, the four separators `\x1c`..`\x1f` and the space), case-folded unless
//! case matters (on ASCII, `lower()`), then trimmed of `string.whitespace` and
//! `string.punctuation` (no separators), and the target looked for at the location.
//! `includes`: the target (both case-folded unless case matters) a substring of the answer,
//! nothing trimmed. Case folding changes no byte's class on ASCII, so the texts are trimmed as
//! they are and compared ignoring case.

/// Which of inspect_ai's scorers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scorer {
    Match,
    Includes,
}

/// Where `match` looks for the target in the answer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Location {
    Begin,
    End,
    Any,
    Exact,
}

/// One scorer's options.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Rule {
    pub scorer: Scorer,
    pub location: Location,
    pub ignore_case: bool,
}

/// The reusable buffers of [`hit`]: the case-folded texts of a substring search.
#[derive(Debug, Default)]
pub struct Scratch {
    answer: Vec<u8>,
    target: Vec<u8>,
}

/// Python's `str.isspace` on an ASCII byte (what `str.strip()` removes).
fn is_space(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | 0x1c..=0x1f | b' ')
}

/// Whether an ASCII byte is in `string.whitespace + string.punctuation`.
fn is_edge(b: u8) -> bool {
    matches!(b, b'\t'..=b'\r' | b' ') || b.is_ascii_punctuation()
}

/// `text` without the bytes `strip` takes at either end.
fn trim(text: &[u8], strip: impl Fn(u8) -> bool) -> &[u8] {
    let Some(start) = text.iter().position(|&b| !strip(b)) else {
        return &[];
    };
    let end = text
        .iter()
        .rposition(|&b| !strip(b))
        .map_or(start, |i| i + 1);
    &text[start..end]
}

/// An ASCII text as `match` compares it, case aside: `str.strip()`, then
/// `.strip(string.whitespace + string.punctuation)`.
pub fn prepared(text: &[u8]) -> &[u8] {
    trim(trim(text, is_space), is_edge)
}

/// Whether ASCII `answer` matches ASCII `target` under `rule` (the caller checks that both
/// are ASCII: other texts give a verdict, but not Python's).
pub fn hit(s: &mut Scratch, answer: &[u8], target: &[u8], rule: Rule) -> bool {
    debug_assert!(answer.is_ascii() && target.is_ascii());
    let fold = rule.ignore_case;
    if rule.scorer == Scorer::Includes {
        return occurs(s, answer, target, fold);
    }
    let (a, t) = (prepared(answer), prepared(target));
    let same = |x: &[u8], y: &[u8]| {
        if fold {
            x.eq_ignore_ascii_case(y)
        } else {
            x == y
        }
    };
    match rule.location {
        Location::Exact => same(a, t),
        Location::Begin => a.len() >= t.len() && same(&a[..t.len()], t),
        Location::End => a.len() >= t.len() && same(&a[a.len() - t.len()..], t),
        Location::Any => occurs(s, a, t, fold),
    }
}

/// Whether ASCII `needle` occurs in ASCII `haystack` (both lowered first with `fold`), by the
/// standard library's linear two-way search.
fn occurs(s: &mut Scratch, haystack: &[u8], needle: &[u8], fold: bool) -> bool {
    if needle.is_empty() {
        return true;
    }
    if needle.len() > haystack.len() {
        return false;
    }
    let (haystack, needle) = if fold {
        lowered(&mut s.answer, haystack);
        lowered(&mut s.target, needle);
        (s.answer.as_slice(), s.target.as_slice())
    } else {
        (haystack, needle)
    };
    // ASCII bytes are UTF-8, so both convert
    match (std::str::from_utf8(haystack), std::str::from_utf8(needle)) {
        (Ok(h), Ok(n)) => h.contains(n),
        _ => false,
    }
}

/// `text` lowered into `into`.
fn lowered(into: &mut Vec<u8>, text: &[u8]) {
    into.clear();
    into.extend(text.iter().map(u8::to_ascii_lowercase));
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rule(scorer: Scorer, location: Location, ignore_case: bool) -> Rule {
        Rule {
            scorer,
            location,
            ignore_case,
        }
    }

    #[test]
    fn texts_are_trimmed_as_python_strips_them() {
        assert_eq!(prepared(b"  Paris. \n"), b"Paris");
        assert_eq!(prepared(b"\x1c\"Paris\"\x1f"), b"Paris");
        // str.strip() stops at the dot; the separator is no edge, so it stays
        assert_eq!(prepared(b".\x1c."), b"\x1c");
        assert_eq!(prepared(b"...!!"), b"");
        assert_eq!(prepared(b""), b"");
        assert_eq!(prepared(b"a"), b"a");
    }

    #[test]
    fn each_location_compares_as_python_does() {
        let mut s = Scratch::default();
        let m = |loc, ic| rule(Scorer::Match, loc, ic);
        let answer = b"The answer is PARIS.";
        assert!(hit(&mut s, answer, b"paris", m(Location::End, true)));
        assert!(!hit(&mut s, answer, b"paris", m(Location::End, false)));
        assert!(hit(&mut s, answer, b"the", m(Location::Begin, true)));
        assert!(hit(&mut s, answer, b"ANSWER", m(Location::Any, true)));
        assert!(!hit(&mut s, answer, b"ANSWER", m(Location::Any, false)));
        assert!(hit(&mut s, b" ok! ", b"OK", m(Location::Exact, true)));
        assert!(!hit(&mut s, b"ok", b"okay", m(Location::Begin, true)));
        // an empty target matches everywhere, as startswith("") and "" in x do
        for loc in [Location::Begin, Location::End, Location::Any] {
            assert!(hit(&mut s, b"x", b"?!", m(loc, true)));
        }
        assert!(!hit(&mut s, b"x", b"", m(Location::Exact, true)));
    }

    #[test]
    fn includes_looks_for_the_target_untrimmed() {
        let mut s = Scratch::default();
        let inc = |ic| rule(Scorer::Includes, Location::Any, ic);
        assert!(hit(&mut s, b"Say Hello, World", b"o, w", inc(true)));
        assert!(!hit(&mut s, b"Say Hello, World", b"o, w", inc(false)));
        assert!(!hit(&mut s, b"abc", b" abc", inc(true)));
        assert!(hit(&mut s, b"", b"", inc(true)));
    }
}
