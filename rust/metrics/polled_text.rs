//! The passes of [`super::text`] over a whole, possibly huge, text, done [`CHECK_EVERY`] units
//! at a time with the stop flag polled in between. Each gives exactly what its one-pass form
//! gives.

use super::halt::{Context, Run, CHECK_EVERY};
use super::text::{decode_into, for_each_py_token, is_py_space, lower_part};

/// `items` in pieces of about [`CHECK_EVERY`]: each piece but the first starts at the first item
/// past [`CHECK_EVERY`] for which `starts_piece` holds (the rest goes in one piece when none
/// does). The callers poll their stop flag between pieces.
pub fn pieces<T>(items: &[T], starts_piece: impl Fn(&T) -> bool) -> impl Iterator<Item = &[T]> {
    let mut rest = items;
    std::iter::from_fn(move || {
        if rest.is_empty() {
            return None;
        }
        let cut = match rest.get(CHECK_EVERY..) {
            Some(tail) => tail
                .iter()
                .position(&starts_piece)
                .map_or(rest.len(), |p| CHECK_EVERY + p),
            None => rest.len(),
        };
        let (piece, tail) = rest.split_at(cut);
        rest = tail;
        Some(piece)
    })
}

/// [`super::text::py_lower_into`], polling `stop` every [`CHECK_EVERY`] code points.
pub fn py_lower_polling(cps: &[u32], out: &mut Vec<u32>, stop: &Context) -> Run<()> {
    out.reserve(cps.len());
    for from in (0..cps.len()).step_by(CHECK_EVERY) {
        stop.check()?;
        lower_part(cps, from, cps.len().min(from + CHECK_EVERY), out);
    }
    Ok(())
}

/// [`decode_into`], [`CHECK_EVERY`] bytes at a time (each piece cut before a leading byte),
/// polling `stop` in between.
pub fn decode_polling(bytes: &[u8], out: &mut Vec<u32>, stop: &Context) -> Run<()> {
    out.reserve(bytes.len());
    for piece in pieces(bytes, |&c| c & 0xC0 != 0x80) {
        stop.check()?;
        decode_into(piece, out);
    }
    Ok(())
}

/// [`for_each_py_token`], [`CHECK_EVERY`] code points at a time (each piece cut at a
/// whitespace character, which no token holds), polling `stop` in between.
pub fn for_each_py_token_polling<'a>(
    cps: &'a [u32],
    stop: &Context,
    mut f: impl FnMut(&'a [u32]),
) -> Run<()> {
    for piece in pieces(cps, |&c| is_py_space(c)) {
        stop.check()?;
        for_each_py_token(piece, &mut f);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::metrics::halt::Halt;
    use crate::metrics::text::{decode, py_lower_into, CAPITAL_SIGMA};

    /// A text longer than one piece, with a capital sigma at the start of the second piece
    /// (final: its cased neighbour is in the first piece) and multi-byte characters across
    /// the cut.
    fn long_text() -> String {
        let mut t = "A".repeat(CHECK_EVERY - 1);
        t.push(char::from_u32(CAPITAL_SIGMA).unwrap());
        t.push_str(" é東 ÉCOLE\u{3000}x".repeat(CHECK_EVERY / 8).as_str());
        t
    }

    #[test]
    fn pieces_give_what_one_pass_gives() {
        let text = long_text();
        let go = Context::new();
        let mut cps = Vec::new();
        decode_polling(text.as_bytes(), &mut cps, &go).unwrap();
        assert_eq!(cps, decode(text.as_bytes()));
        let (mut lower, mut whole) = (Vec::new(), Vec::new());
        py_lower_polling(&cps, &mut lower, &go).unwrap();
        py_lower_into(&cps, &mut whole);
        assert_eq!(lower, whole);
        assert_eq!(lower[CHECK_EVERY - 1], 0x03C2, "the sigma is final");
        let (mut pieces, mut one) = (Vec::new(), Vec::new());
        for_each_py_token_polling(&cps, &go, |t| pieces.push(t)).unwrap();
        for_each_py_token(&cps, |t| one.push(t));
        assert_eq!(pieces, one);
    }

    #[test]
    fn a_raised_stop_halts_each_pass() {
        let text = long_text();
        let stop = Context::new();
        stop.raise();
        let mut out = Vec::new();
        assert_eq!(
            decode_polling(text.as_bytes(), &mut out, &stop),
            Err(Halt::Stopped)
        );
        assert!(out.is_empty());
        let cps = decode(text.as_bytes());
        assert_eq!(py_lower_polling(&cps, &mut out, &stop), Err(Halt::Stopped));
        assert!(out.is_empty());
        let mut tokens = 0;
        let got = for_each_py_token_polling(&cps, &stop, |_| tokens += 1);
        assert_eq!((got, tokens), (Err(Halt::Stopped), 0));
    }

    #[test]
    fn pieces_cut_only_where_asked() {
        let items: Vec<u32> = (0..3 * CHECK_EVERY as u32 + 5).map(|i| i % 1000).collect();
        let got: Vec<&[u32]> = pieces(&items, |&x| x == 0).collect();
        assert_eq!(got.concat(), items);
        assert_eq!(got.len(), 3);
        for piece in &got[1..] {
            assert_eq!(piece[0], 0);
        }
        assert!(got[..2].iter().all(|p| p.len() > CHECK_EVERY));
        let whole: Vec<&[u32]> = pieces(&items, |&x| x == 5000).collect();
        assert_eq!(whole, [&items[..]]);
        assert_eq!(pieces(&[] as &[u32], |_| true).count(), 0);
    }
}
