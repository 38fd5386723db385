//! Tokenizing machinery shared by token F1, ROUGE-L and ROUGE-N: the 64-byte mask classifier
//! ([`masks`]) and packed token keys ([`packed`]).

pub(crate) mod masks;
pub(crate) mod packed;
#[cfg(all(test, target_os = "linux", target_arch = "x86_64"))]
pub(crate) mod timing;
