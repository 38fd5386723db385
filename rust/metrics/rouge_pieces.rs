//! The ROUGE tokens of a huge text, a piece at a time: [`token_keys`] (or ROUGE-L's own
//! tokenizer, through [`by_pieces`]) on pieces of about
//! [`CHECK_EVERY`] bytes, each cut at an ASCII whitespace byte, with the stop flag polled in
//! between. No token holds whitespace, and neither tokenizer's lowercasing looks past it
//! (whitespace is neither cased nor case-ignorable), so the tokens are those of one pass.

use super::halt::{Run, Stop, CHECK_EVERY};
use super::polled_text::pieces;
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
    by_pieces(text, out, piece, stop, |t, keys| {
        token_keys(t, tokenizer, stemmer, s, keys)
    })
}

/// The tokens `tokenize` gives of `text`, into `out` (cleared first), computed a piece of
/// about [`CHECK_EVERY`] bytes at a time with `stop` polled in between. `tokenize` clears the
/// buffer it is given and must not let a token span ASCII whitespace.
pub fn by_pieces(
    text: &[u8],
    out: &mut Vec<TokenKey>,
    piece: &mut Vec<TokenKey>,
    stop: &Stop,
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

    #[test]
    fn rouge_l_by_pieces_scores_as_one_pass() {
        use crate::metrics::rouge_l::{rouge_l, score_keys, Scratch};
        let unit = "Running CATS ΟΔΟΣ x\u{3000}y Zürich-cafés ";
        let e = unit.repeat(CHECK_EVERY / unit.len() + 3);
        let a = e.replace("CATS", "dogs");
        let (mut s, go) = (Scratch::default(), Stop::new());
        for tokenizer in [Tokenizer::Rouge, Tokenizer::Unicode] {
            let got = rouge_l(e.as_bytes(), a.as_bytes(), tokenizer, &mut s, &go).unwrap();
            let (mut ke, mut ka, mut t) = (Vec::new(), Vec::new(), TokenScratch::default());
            token_keys(e.as_bytes(), tokenizer, Stemmer::None, &mut t, &mut ke);
            token_keys(a.as_bytes(), tokenizer, Stemmer::None, &mut t, &mut ka);
            let want = score_keys(&ke, &ka, &mut s, &go).unwrap();
            assert_eq!(got, want, "{tokenizer:?}");
        }
    }
}
