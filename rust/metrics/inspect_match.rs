//! inspect_ai's text scorers `match` and `includes`, with the verdicts of their Python
//! definition (`evalmark.strategies._inspect`): [`hit`] on ASCII texts, with no string made for
//! `begin`, `end` and `exact`, and [`hit_text`] on any UTF-8 texts, whose non-ASCII characters
//! are ruled by the caller's [`CharRule`]s (Python's own `casefold()` and `isspace()`).
//!
//! `match`: both texts trimmed by `str.strip()` (Python's whitespace, which on ASCII is
//! `\t\n\x0b\x0c\r`, the four separators `\x1c`..`\x1f` and the space), case-folded unless
//! case matters (on ASCII, `lower()`), then trimmed of `string.whitespace` and
//! `string.punctuation` (no separators), and the target looked for at the location.
//! `includes`: the target (both case-folded unless case matters) a substring of the answer,
//! nothing trimmed. Case folding changes no byte's class on ASCII, so ASCII texts are trimmed
//! as they are and compared ignoring case.

use super::text::occurs;

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

/// The reusable buffers of [`hit`] and [`hit_text`]: the case-folded texts.
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
        return if fold {
            lowered(&mut s.answer, answer);
            lowered(&mut s.target, target);
            occurs(&s.answer, &s.target)
        } else {
            occurs(answer, target)
        };
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
        Location::Any if fold => {
            lowered(&mut s.answer, a);
            lowered(&mut s.target, t);
            occurs(&s.answer, &s.target)
        }
        Location::Any => occurs(a, t),
    }
}

/// What Python does with one non-ASCII character: `chr(c).casefold()` and `chr(c).isspace()`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CharRule {
    pub folded: String,
    pub space: bool,
}

/// Whether `answer` matches `target` under `rule`, texts of any characters, the non-ASCII
/// ones ruled by `rules`; `None` when a character it needs has no rule.
pub fn hit_text<'r>(
    s: &mut Scratch,
    answer: &str,
    target: &str,
    rule: Rule,
    rules: impl Fn(char) -> Option<&'r CharRule>,
) -> Option<bool> {
    let fold = rule.ignore_case;
    if rule.scorer == Scorer::Includes {
        return Some(if fold {
            folded(&mut s.answer, answer, &rules)?;
            folded(&mut s.target, target, &rules)?;
            occurs(&s.answer, &s.target)
        } else {
            occurs(answer.as_bytes(), target.as_bytes())
        });
    }
    let (a, t) = (stripped(answer, &rules)?, stripped(target, &rules)?);
    let (a, t) = if fold {
        folded(&mut s.answer, a, &rules)?;
        folded(&mut s.target, t, &rules)?;
        (s.answer.as_slice(), s.target.as_slice())
    } else {
        (a.as_bytes(), t.as_bytes())
    };
    // edges are ASCII bytes, never part of another character's UTF-8; and a valid UTF-8 text
    // found in another is found at a character boundary, so bytes compare as the texts do
    let (a, t) = (trim(a, is_edge), trim(t, is_edge));
    Some(match rule.location {
        Location::Exact => a == t,
        Location::Begin => a.starts_with(t),
        Location::End => a.ends_with(t),
        Location::Any => occurs(a, t),
    })
}

/// `text.strip()`; `None` when a character at either end has no rule.
fn stripped<'t, 'r>(
    text: &'t str,
    rules: &impl Fn(char) -> Option<&'r CharRule>,
) -> Option<&'t str> {
    let space = |c: char| -> Option<bool> {
        if c.is_ascii() {
            Some(is_space(c as u8))
        } else {
            rules(c).map(|r| r.space)
        }
    };
    let mut start = text.len();
    for (i, c) in text.char_indices() {
        if !space(c)? {
            start = i;
            break;
        }
    }
    let mut end = start;
    for (i, c) in text[start..].char_indices().rev() {
        if !space(c)? {
            end = start + i + c.len_utf8();
            break;
        }
    }
    Some(&text[start..end])
}

/// `text.casefold()` into `into`, as UTF-8; `None` when a character has no rule.
fn folded<'r>(
    into: &mut Vec<u8>,
    text: &str,
    rules: &impl Fn(char) -> Option<&'r CharRule>,
) -> Option<()> {
    into.clear();
    for c in text.chars() {
        if c.is_ascii() {
            into.push((c as u8).to_ascii_lowercase());
        } else {
            into.extend_from_slice(rules(c)?.folded.as_bytes());
        }
    }
    Some(())
}

/// `text` (ASCII) lowered into `into`.
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

    #[test]
    fn other_characters_follow_their_rules() {
        let rules = |c: char| -> Option<CharRule> {
            Some(match c {
                '\u{a0}' | '\u{3000}' => CharRule {
                    folded: c.to_string(),
                    space: true,
                },
                'ß' => CharRule {
                    folded: "ss".into(),
                    space: false,
                },
                'É' | 'é' => CharRule {
                    folded: "é".into(),
                    space: false,
                },
                _ => return None,
            })
        };
        let table: Vec<(char, CharRule)> = "\u{a0}\u{3000}ßÉé"
            .chars()
            .map(|c| (c, rules(c).unwrap()))
            .collect();
        let look = |c: char| table.iter().find(|(k, _)| *k == c).map(|(_, r)| r);
        let mut s = Scratch::default();
        let m = |loc, ic| rule(Scorer::Match, loc, ic);
        let go = |s: &mut Scratch, a: &str, t: &str, r| hit_text(s, a, t, r, look);
        assert_eq!(
            go(
                &mut s,
                "\u{a0}Straße.\u{3000}",
                "STRASSE",
                m(Location::Exact, true)
            ),
            Some(true)
        );
        assert_eq!(
            go(
                &mut s,
                "\u{a0}Straße.\u{3000}",
                "STRASSE",
                m(Location::Exact, false)
            ),
            Some(false)
        );
        assert_eq!(
            go(&mut s, "Café", "CAFÉ", m(Location::End, true)),
            Some(true)
        );
        assert_eq!(
            go(&mut s, "x\u{3000}", "", m(Location::Exact, true)),
            Some(false)
        );
        assert_eq!(
            go(&mut s, "\u{3000}", "", m(Location::Exact, false)),
            Some(true)
        );
        // an inner character without a rule is needed only to fold
        assert_eq!(
            go(&mut s, "a東b", "B", m(Location::End, false)),
            Some(false)
        );
        assert_eq!(go(&mut s, "a東b", "B", m(Location::End, true)), None);
        assert_eq!(go(&mut s, "東", "b", m(Location::End, false)), None);
        let inc = |ic| rule(Scorer::Includes, Location::Any, ic);
        assert_eq!(go(&mut s, "a東b", "東", inc(false)), Some(true));
        assert_eq!(go(&mut s, "GROSSE", "ß", inc(true)), Some(true));
    }
}
