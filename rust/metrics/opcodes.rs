//! An alignment's edits grouped into blocks, as RapidFuzz's `Editops.as_opcodes()`: each run of
//! one kind of edit at consecutive positions is one block, and the stretches between runs (and
//! before the first, after the last) are `Equal` blocks, so the blocks cover both texts.

use super::edit_weighted::Op;

/// The kind of a block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Tag {
    Equal,
    Replace,
    Insert,
    Delete,
}

/// One block: `(tag, a_start, a_end, b_start, b_end)`.
pub type Opcode = (Tag, usize, usize, usize, usize);

fn tag_of(op: Op) -> Tag {
    match op {
        Op::Insert => Tag::Insert,
        Op::Delete => Tag::Delete,
        Op::Replace => Tag::Replace,
    }
}

/// The blocks of `ops` (edits turning a text of `a_len` symbols into one of `b_len`, in order,
/// each `(op, position in a, position in b)`).
pub fn opcodes(ops: &[(Op, usize, usize)], a_len: usize, b_len: usize) -> Vec<Opcode> {
    let mut blocks = Vec::with_capacity(2 * ops.len() + 1);
    let (mut src, mut dest) = (0usize, 0usize);
    let mut i = 0;
    while i < ops.len() {
        let (op, op_src, op_dest) = ops[i];
        if src < op_src || dest < op_dest {
            blocks.push((Tag::Equal, src, op_src, dest, op_dest));
            (src, dest) = (op_src, op_dest);
        }
        let (src_start, dest_start) = (src, dest);
        loop {
            if op != Op::Insert {
                src += 1;
            }
            if op != Op::Delete {
                dest += 1;
            }
            i += 1;
            if i == ops.len() || ops[i] != (op, src, dest) {
                break;
            }
        }
        blocks.push((tag_of(op), src_start, src, dest_start, dest));
    }
    if src < a_len || dest < b_len {
        blocks.push((Tag::Equal, src, a_len, dest, b_len));
    }
    blocks
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn runs_become_blocks_and_gaps_equal_blocks() {
        // "kitten" -> "sitting": replace k, replace e, insert g.
        let ops = [(Op::Replace, 0, 0), (Op::Replace, 4, 4), (Op::Insert, 6, 6)];
        assert_eq!(
            opcodes(&ops, 6, 7),
            vec![
                (Tag::Replace, 0, 1, 0, 1),
                (Tag::Equal, 1, 4, 1, 4),
                (Tag::Replace, 4, 5, 4, 5),
                (Tag::Equal, 5, 6, 5, 6),
                (Tag::Insert, 6, 6, 6, 7),
            ]
        );
        // Consecutive deletions are one block; equal texts are one equal block; empty, none.
        let ops = [(Op::Delete, 1, 1), (Op::Delete, 2, 1)];
        assert_eq!(
            opcodes(&ops, 4, 2),
            vec![
                (Tag::Equal, 0, 1, 0, 1),
                (Tag::Delete, 1, 3, 1, 1),
                (Tag::Equal, 3, 4, 1, 2),
            ]
        );
        assert_eq!(opcodes(&[], 3, 3), vec![(Tag::Equal, 0, 3, 0, 3)]);
        assert_eq!(opcodes(&[], 0, 0), vec![]);
    }
}
