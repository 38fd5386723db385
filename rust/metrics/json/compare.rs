//! Comparing the actual side, while it is read, against the expected side's canonical tree.

use std::borrow::Cow;

use super::lex::{is_stopped, same_bytes, Parser};
use super::number::number_value;
use super::{Document, Node, Span};
use crate::metrics::halt::{Context, Halt, Run};

/// Why a streaming comparison stopped early.
enum Mismatch {
    /// Valid so far, but different from the expected value.
    Differs,
    /// Not valid JSON.
    Invalid,
    /// The stop flag was raised.
    Stopped,
}

impl From<(usize, &'static str)> for Mismatch {
    fn from(e: (usize, &'static str)) -> Mismatch {
        if is_stopped(e) {
            Mismatch::Stopped
        } else {
            Mismatch::Invalid
        }
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Member {
    Unseen,
    Same,
    Different,
}

impl Document<'_> {
    /// Whether `actual` is a valid document equal to this one. An invalid `actual` simply
    /// does not match.
    ///
    /// `actual` is compared while it is read, against the already canonical tree, so no tree
    /// is built for it. A difference inside an object member cannot end the work at once,
    /// because a later duplicate of that key (the last occurrence wins) may replace it: the
    /// member is marked and its value skipped, and the object is decided at its closing brace.
    /// `Err` when `stop` was raised meanwhile.
    pub fn matches(&self, actual: &[u8], stop: &Context) -> Run<bool> {
        let mut c = Comparer {
            p: Parser::new(actual, stop),
            doc: self,
        };
        c.p.skip_ws();
        match c.eq_value(&self.root, 0) {
            Ok(()) => {}
            Err(Mismatch::Stopped) => return Err(Halt::Stopped),
            Err(Mismatch::Differs | Mismatch::Invalid) => return Ok(false),
        }
        c.p.skip_ws();
        Ok(c.p.at_end())
    }
}

/// Reads the actual side against an expected [`Document`].
struct Comparer<'a, 'd> {
    p: Parser<'a, 'd>,
    doc: &'d Document<'d>,
}

impl Comparer<'_, '_> {
    fn eq_value(&mut self, exp: &Node<'_>, depth: usize) -> Result<(), Mismatch> {
        let p = &mut self.p;
        match (p.peek(), exp) {
            (Some(b'{'), Node::Obj(span)) => self.eq_object(*span, depth + 1),
            (Some(b'['), Node::Arr(span)) => self.eq_array(*span, depth + 1),
            (Some(b'"'), Node::Str(want)) => {
                let got = p.string()?;
                if same_bytes(&got, want) {
                    Ok(())
                } else {
                    Err(Mismatch::Differs)
                }
            }
            (Some(b'-' | b'0'..=b'9'), Node::Num(want)) => {
                // The same literal is the same number; otherwise compare values.
                let got = p.number()?;
                let numbers = self.doc.numbers;
                if same_bytes(got, want)
                    || number_value(got, numbers) == number_value(want, numbers)
                {
                    Ok(())
                } else {
                    Err(Mismatch::Differs)
                }
            }
            (Some(b't' | b'f' | b'n'), Node::Bool(_) | Node::Null) => {
                let same = match (p.literal()?, exp) {
                    (Node::Null, Node::Null) => true,
                    (Node::Bool(got), Node::Bool(want)) => got == *want,
                    _ => false,
                };
                if same {
                    Ok(())
                } else {
                    Err(Mismatch::Differs)
                }
            }
            _ => Err(Mismatch::Differs),
        }
    }

    fn eq_array(&mut self, span: Span, depth: usize) -> Result<(), Mismatch> {
        let items = span.of(&self.doc.items);
        if self.p.open(b']', depth)? {
            return if items.is_empty() {
                Ok(())
            } else {
                Err(Mismatch::Differs)
            };
        }
        for (i, item) in items.iter().enumerate() {
            self.p.skip_ws();
            self.eq_value(item, depth)?;
            if self.p.next_element(b']')? {
                return if i + 1 == items.len() {
                    Ok(())
                } else {
                    Err(Mismatch::Differs)
                };
            }
        }
        Err(Mismatch::Differs) // more items than expected
    }

    fn eq_object(&mut self, span: Span, depth: usize) -> Result<(), Mismatch> {
        let members = span.of(&self.doc.members);
        if self.p.open(b'}', depth)? {
            return if members.is_empty() {
                Ok(())
            } else {
                Err(Mismatch::Differs)
            };
        }
        let mut inline = [Member::Unseen; 16];
        let mut heap = Vec::new();
        let state: &mut [Member] = if members.len() <= inline.len() {
            &mut inline[..members.len()]
        } else {
            heap.resize(members.len(), Member::Unseen);
            &mut heap
        };
        let mut extra_key = false;
        loop {
            let key = self.p.key()?;
            let start = self.p.pos;
            match find_member(members, key.as_ref()) {
                Ok(j) => match self.eq_value(&members[j].1, depth) {
                    Ok(()) => state[j] = Member::Same,
                    Err(Mismatch::Differs) => {
                        self.p.pos = start;
                        self.p.skip_value(depth)?;
                        state[j] = Member::Different;
                    }
                    Err(other) => return Err(other),
                },
                Err(_) => {
                    self.p.skip_value(depth)?;
                    extra_key = true;
                }
            }
            if self.p.next_element(b'}')? {
                let all_same = state.iter().all(|&m| m == Member::Same);
                return if all_same && !extra_key {
                    Ok(())
                } else {
                    Err(Mismatch::Differs)
                };
            }
        }
    }
}

/// Where `key` is among the sorted, distinct keys of `members`. Small objects (nearly all)
/// are scanned: comparing lengths first spares most byte comparisons, which a binary search
/// makes at every probe.
#[inline]
fn find_member(members: &[(Cow<'_, [u8]>, Node<'_>)], key: &[u8]) -> Result<usize, usize> {
    if members.len() <= 8 {
        return members
            .iter()
            .position(|(k, _)| same_bytes(k, key))
            .ok_or(0);
    }
    members.binary_search_by(|(k, _)| k.as_ref().cmp(key))
}

#[cfg(test)]
mod tests {
    use crate::metrics::halt::Context;
    use crate::metrics::json::testing::parse;
    use crate::metrics::json::Numbers;

    #[test]
    fn streaming_compare_agrees_with_full_parse() {
        let docs = [
            r#"{"a": 1, "b": [1, 2, {"c": null}]}"#,
            r#"{"b": [1, 2, {"c": null}], "a": 1.0}"#,
            r#"{"a": 1, "a": 2, "b": [1, 2, {"c": null}]}"#,
            r#"{"a": 2, "b": [1, 2, {"c": null}], "a": 1}"#,
            r#"{"a": 1, "b": [1, 2, {"c": null}], "x": 0}"#,
            r#"{"a": 1, "b": [1, 2]}"#,
            r#"{"a": 1, "b": [1, 2, {"c": null}]} x"#,
            r#"{"a": 1, "b": [1, 2, {"c": false}]}"#,
            r#"[]"#,
            r#"{}"#,
            r#""a""#,
        ];
        for n in [Numbers::Value, Numbers::Strict] {
            for e in docs {
                let Ok(exp) = parse(e.as_bytes(), n) else {
                    continue;
                };
                for a in docs {
                    let go = Context::new();
                    let canonical = |d: &crate::metrics::json::Document<'_>| d.canonical(&go);
                    let full =
                        parse(a.as_bytes(), n).is_ok_and(|d| canonical(&d) == canonical(&exp));
                    assert_eq!(exp.matches(a.as_bytes(), &go), Ok(full), "{e} vs {a}");
                }
            }
        }
    }
}
