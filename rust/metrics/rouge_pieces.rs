//! The ROUGE tokens of a huge text, a piece at a time: [`token_keys`] on pieces of about
//! [`CHECK_EVERY`] bytes, each cut at an ASCII whitespace byte, with the stop flag polled in
//! between. No token holds whitespace, and neither tokenizer's lowercasing looks past it
//! (whitespace is neither cased nor case-ignorable), so the tokens are those of one pass.

use super::halt::{Run, Stop, CHECK_EVERY};
use super::rouge_l::Tokenizer;
use super::rouge_tokens::{token_keys, Stemmer, TokenScratch};
use super::text::{is_ascii_py_space, TokenKey};

/// [`token_keys`] of `text` into `out` (cleared first), polling `stop` every piece; `piece`
/// is a buffer for one piece's tokens.
pub fn token_keys_polling(
    text: &[u8],
    tokenizer: Tokenizer,
    stemmer: Stemmer,
    s: &mut TokenScratch,
    out: &mut Vec<TokenKey>,
    piece: &mut Vec<TokenKey>,
    stop: &Stop,
) -> Run<()> {
    stop.check()?;
    if text.len() <= CHECK_EVERY {
        token_keys(text, tokenizer, stemmer, s, out);
        return Ok(());
    }
    out.clear();
    let mut rest = text;
    while !rest.is_empty() {
        stop.check()?;
        let cut = match rest.get(CHECK_EVERY..) {
            Some(tail) => tail
                .iter()
                .position(|&b| is_ascii_py_space(b))
                .map_or(rest.len(), |p| CHECK_EVERY + p + 1),
            None => rest.len(),
        };
        token_keys(&rest[..cut], tokenizer, stemmer, s, piece);
        out.append(piece);
        rest = &rest[cut..];
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::halt::Halt;

    #[test]
    fn pieces_give_the_tokens_of_one_pass() {
        // Pieces cut inside runs of spaces, next to a capital sigma, between ASCII and not.
        let unit = "Running CATS ΟΔΟΣ x\u{3000}y Zürich-cafés ";
        let text = unit.repeat(3 * CHECK_EVERY / unit.len() + 7);
        let (mut s, go) = (TokenScratch::default(), Stop::new());
        for tokenizer in [Tokenizer::Rouge, Tokenizer::Unicode] {
            for stemmer in [Stemmer::None, Stemmer::Porter] {
                let (mut one, mut pieces, mut piece) = (Vec::new(), Vec::new(), Vec::new());
                token_keys(text.as_bytes(), tokenizer, stemmer, &mut s, &mut one);
                let t = text.as_bytes();
                token_keys_polling(t, tokenizer, stemmer, &mut s, &mut pieces, &mut piece, &go)
                    .unwrap();
                assert!(one.len() > CHECK_EVERY / 8);
                assert!(one == pieces, "{tokenizer:?} {stemmer:?}");
            }
        }
    }

    #[test]
    fn a_raised_stop_halts_tokenizing() {
        let text = "a b ".repeat(CHECK_EVERY);
        let (mut s, stop) = (TokenScratch::default(), Stop::new());
        stop.raise();
        let (mut out, mut piece) = (Vec::new(), Vec::new());
        let (r, n) = (Tokenizer::Rouge, Stemmer::None);
        let got = token_keys_polling(text.as_bytes(), r, n, &mut s, &mut out, &mut piece, &stop);
        assert_eq!((got, out.len()), (Err(Halt::Stopped), 0));
    }
}
