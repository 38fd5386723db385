//! Building the canonical tree of the expected side.

use std::cmp::Ordering;

use std::borrow::Cow;

use super::lex::{is_stopped, locate, same_bytes, PResult, Parser, STOPPED};
use super::{Document, Node, Numbers, ParseError, Span};
use crate::metrics::halt::{Context, Halt, Run};

/// An object member: its key and its value.
type Member<'a> = (Cow<'a, [u8]>, Node<'a>);

impl<'a> Document<'a> {
    /// Parse `src` into this document, replacing what it held and reusing its buffers: `Ok`
    /// with the outcome of parsing, or `Err` when `stop` was raised meanwhile.
    pub fn reparse(
        &mut self,
        src: &'a [u8],
        numbers: Numbers,
        stop: &Context,
    ) -> Run<Result<(), ParseError>> {
        self.numbers = numbers;
        self.items.clear();
        self.members.clear();
        self.open_items.clear();
        self.open_members.clear();
        let mut b = Builder {
            p: Parser::new(src, stop),
            doc: self,
        };
        match b.document() {
            Ok(root) => {
                self.root = root;
                Ok(Ok(()))
            }
            Err(e) => {
                self.root = Node::Null;
                if is_stopped(e) {
                    return Err(Halt::Stopped);
                }
                Ok(Err(locate(src, e.0, e.1)))
            }
        }
    }
}

/// Builds the canonical tree of the expected side.
struct Builder<'a, 'd> {
    p: Parser<'a, 'd>,
    doc: &'d mut Document<'a>,
}

impl<'a> Builder<'a, '_> {
    fn document(&mut self) -> PResult<Node<'a>> {
        self.p.skip_ws();
        let node = self.value(0)?;
        self.p.skip_ws();
        if !self.p.at_end() {
            return Err((self.p.pos, "unexpected data after the JSON document"));
        }
        Ok(node)
    }

    fn value(&mut self, depth: usize) -> PResult<Node<'a>> {
        match self.p.peek() {
            None => Err((
                self.p.pos,
                "expected a JSON value, found the end of the text",
            )),
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => Ok(Node::Str(self.p.string()?)),
            Some(b'-' | b'0'..=b'9') => Ok(Node::Num(self.p.number()?)),
            Some(_) => self.p.literal(),
        }
    }

    fn array(&mut self, depth: usize) -> PResult<Node<'a>> {
        let base = self.doc.open_items.len();
        if !self.p.open(b']', depth)? {
            loop {
                self.p.skip_ws();
                let item = self.value(depth)?;
                self.doc.open_items.push(item);
                if self.p.next_element(b']')? {
                    break;
                }
            }
        }
        let doc = &mut *self.doc;
        let start = doc.items.len();
        doc.items.extend(doc.open_items.drain(base..));
        Ok(Node::Arr(Span {
            start,
            len: doc.items.len() - start,
        }))
    }

    fn object(&mut self, depth: usize) -> PResult<Node<'a>> {
        let base = self.doc.open_members.len();
        if !self.p.open(b'}', depth)? {
            loop {
                let key = self.p.key()?;
                let value = self.value(depth)?;
                self.doc.open_members.push((key, value));
                if self.p.next_element(b'}')? {
                    break;
                }
            }
        }
        // Stable sort keeps duplicates in document order, so keeping the last of each run
        // resolves duplicate keys the way Python's json module does.
        let doc = &mut *self.doc;
        let by_key = |a: &Member<'a>, b: &Member<'a>| key_order(&a.0, &b.0);
        if sort_stoppable(&mut doc.open_members[base..], by_key, self.p.stop).is_err() {
            return Err(STOPPED);
        }
        let start = doc.members.len();
        let mut open = doc.open_members.drain(base..).peekable();
        while let Some(member) = open.next() {
            if !open
                .peek()
                .is_some_and(|next| same_bytes(&next.0, &member.0))
            {
                doc.members.push(member);
            }
        }
        Ok(Node::Obj(Span {
            start,
            len: doc.members.len() - start,
        }))
    }
}

/// Items sorted one run at a time before merging, and between two looks at the stop flag.
const SORT_RUN: usize = 1 << 12;

/// `v.sort_by(order)` (a stable sort: the same result), done as a bottom-up merge sort of
/// sorted runs that looks at `stop` every [`SORT_RUN`] items, so a huge object can be stopped
/// while its members are sorted. `Err` when stopped, leaving `v` in no useful order.
fn sort_stoppable<T: Default>(
    v: &mut [T],
    order: impl Fn(&T, &T) -> Ordering,
    stop: &Context,
) -> Result<(), Halt> {
    let n = v.len();
    if n <= SORT_RUN {
        v.sort_by(&order);
        return Ok(());
    }
    for run in v.chunks_mut(SORT_RUN) {
        stop.check()?;
        run.sort_by(&order);
    }
    let mut merged = Vec::with_capacity(n);
    let mut width = SORT_RUN;
    while width < n {
        for start in (0..n).step_by(2 * width) {
            let (mid, end) = ((start + width).min(n), (start + 2 * width).min(n));
            let (mut i, mut j) = (start, mid);
            while i < mid && j < end {
                // The left item first unless the right one is strictly smaller: stable.
                let from = if order(&v[j], &v[i]) == Ordering::Less {
                    j += 1;
                    j - 1
                } else {
                    i += 1;
                    i - 1
                };
                merged.push(std::mem::take(&mut v[from]));
                if merged.len() % SORT_RUN == 0 {
                    stop.check()?;
                }
            }
            merged.extend(v[i..mid].iter_mut().map(std::mem::take));
            merged.extend(v[j..end].iter_mut().map(std::mem::take));
        }
        for (slot, item) in v.iter_mut().zip(merged.drain(..)) {
            *slot = item;
        }
        width *= 2;
    }
    Ok(())
}

/// The byte order of two keys (as `a.cmp(b)`), decided on their first eight bytes as one
/// integer when they differ there: most keys do, and a library call per comparison costs
/// more than the comparison.
#[inline]
fn key_order(a: &[u8], b: &[u8]) -> Ordering {
    let n = a.len().min(b.len()).min(8);
    let head = |k: &[u8]| {
        let bytes = k[..n].iter().fold(0u64, |acc, &x| acc << 8 | x as u64);
        bytes.checked_shl(8 * (8 - n) as u32).unwrap_or(0)
    };
    match head(a).cmp(&head(b)) {
        Ordering::Equal => a.cmp(b),
        order => order,
    }
}

#[cfg(test)]
mod tests {
    use super::{key_order, sort_stoppable, SORT_RUN};
    use crate::metrics::halt::{Context, Halt};

    #[test]
    fn the_stoppable_sort_is_the_stable_sort() {
        for n in [0, 5, SORT_RUN, SORT_RUN + 1, 5 * SORT_RUN + 17] {
            // (key, position): equal keys must keep their order.
            let v: Vec<(u32, u32)> = (0..n as u32).map(|i| ((i * 7919) % 97, i)).collect();
            let (mut got, mut want) = (v.clone(), v);
            want.sort_by_key(|x| x.0);
            sort_stoppable(&mut got, |a, b| a.0.cmp(&b.0), &Context::new()).unwrap();
            assert_eq!(got, want, "{n}");
        }
        let stop = Context::new();
        stop.raise();
        let mut v = vec![(1u32, 0u32); 3 * SORT_RUN];
        let got = sort_stoppable(&mut v, |a, b| a.0.cmp(&b.0), &stop);
        assert_eq!(got, Err(Halt::Stopped));
    }

    #[test]
    fn key_order_is_byte_order() {
        let keys: [&[u8]; 12] = [
            b"",
            b"a",
            b"ab",
            b"abcdefgh",
            b"abcdefghi",
            b"abcdefgg",
            b"b",
            b"\xff",
            b"\x00",
            b"abcdefgh\x00",
            b"zzzzzzzzzz",
            b"abcdefghz",
        ];
        for a in keys {
            for b in keys {
                assert_eq!(key_order(a, b), a.cmp(b), "{a:?} {b:?}");
            }
        }
    }
}
