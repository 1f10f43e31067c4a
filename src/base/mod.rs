//! The ground floor: what every floor above uses and nothing here builds
//! on any of them: the system calls (`sys`, every `unsafe`), the one error
//! type, hashes and encodings, time, text as a terminal shows it, words as
//! a shell reads them, wrapping, suggestions, atomic files, hermes's own
//! output, the command line's one parser (`args`), and the one sort.
//! `lib.rs` names each by its own name: `crate::text`, not `crate::base::text`.

pub(crate) mod args;
pub(crate) mod encoding;
pub(crate) mod error;
pub(crate) mod fsio;
pub(crate) mod hash;
pub(crate) mod order;
pub(crate) mod output;
pub(crate) mod suggest;
pub(crate) mod sys;
pub(crate) mod text;
pub(crate) mod time;
pub(crate) mod words;
pub(crate) mod wrap;
