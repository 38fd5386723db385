//! Tokenizing machinery shared by token F1 and ROUGE-L: the 64-byte mask classifier
//! ([`masks`]) and packed token keys with their open-addressing table ([`table`]).

pub(crate) mod masks;
pub(crate) mod table;
