//! Tokenizing machinery shared by token F1, ROUGE-L and ROUGE-N: the 64-byte mask classifier
//! ([`masks`]) and packed token keys ([`packed`]).

pub(crate) mod masks;
pub(crate) mod packed;
#[cfg(test)]
pub(crate) mod timing;
