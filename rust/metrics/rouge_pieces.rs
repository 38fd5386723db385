//! The ROUGE tokens of a huge text, a piece at a time: a tokenizer run through [`by_pieces`]
//! on pieces of about [`CHECK_EVERY`] bytes, each cut at an ASCII whitespace byte, with the stop flag polled in
//! between. No token holds whitespace, and neither tokenizer's lowercasing looks past it
//! (whitespace is neither cased nor case-ignorable), so the tokens are those of one pass.

use super::halt::{Context, Run, CHECK_EVERY};
use super::polled_text::pieces;
use super::text::{is_ascii_py_space, TokenKey};

/// The tokens `tokenize` gives of `text`, into `out` (cleared first), computed a piece of
/// about [`CHECK_EVERY`] bytes at a time with `stop` polled in between. `tokenize` clears the
/// buffer it is given and must not let a token span ASCII whitespace.
pub fn by_pieces(
    text: &[u8],
    out: &mut Vec<TokenKey>,
    piece: &mut Vec<TokenKey>,
    stop: &Context,
    mut tokenize: impl FnMut(&[u8], &mut Vec<TokenKey>),
) -> Run<()> {
    stop.check()?;
    if text.len() <= CHECK_EVERY {
        tokenize(text, out);
        return Ok(());
    }
    out.clear();
    for part in pieces(text, |&b| is_ascii_py_space(b)) {
        stop.check()?;
        tokenize(part, piece);
        out.append(piece);
    }
    Ok(())
}

/// The tokens `tokenize` gives of `text`, handed to `take` in `piece` a piece of about
/// [`CHECK_EVERY`] bytes at a time (`take` may drain it), with `stop` polled in between: for a
/// caller that needs no list of all the keys.
pub fn each_piece(
    text: &[u8],
    piece: &mut Vec<TokenKey>,
    stop: &Context,
    mut tokenize: impl FnMut(&[u8], &mut Vec<TokenKey>),
    mut take: impl FnMut(&mut Vec<TokenKey>) -> Run<()>,
) -> Run<()> {
    stop.check()?;
    if text.len() <= CHECK_EVERY {
        tokenize(text, piece);
        return take(piece);
    }
    for part in pieces(text, |&b| is_ascii_py_space(b)) {
        stop.check()?;
        tokenize(part, piece);
        take(piece)?;
    }
    Ok(())
}
