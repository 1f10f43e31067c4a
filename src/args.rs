//! What every command's argument parser shares: lexopt values as strings,
//! a peek at the next word, and the usage errors for positional arguments.
//! Each verb's own `Args` and `parse` live beside the verb.

use std::ffi::OsString;

use crate::error::{Error, Result};

/// An argument as text; bytes that are not UTF-8 are shown replaced.
pub(crate) fn string(os: OsString) -> String {
    os.into_string().unwrap_or_else(|os| os.to_string_lossy().into_owned())
}

/// The next raw argument if it looks like an option (without consuming it).
pub(crate) fn peek_option(parser: &mut lexopt::Parser) -> Option<String> {
    let raw = parser.try_raw_args()?;
    let next = raw.peek()?.to_str()?;
    next.starts_with('-').then(|| next.to_string())
}

/// The next raw argument if it is a plain word (without consuming it).
pub(crate) fn peek_word(parser: &mut lexopt::Parser) -> Option<String> {
    let raw = parser.try_raw_args()?;
    let next = raw.peek()?.to_string_lossy().into_owned();
    (!next.starts_with('-')).then_some(next)
}

/// Exactly `N` positional arguments of a sessions verb, or the usage error
/// that says which are missing (`what` names them) or which one is extra.
pub(crate) fn positional_args<const N: usize>(
    verb: &str,
    positional: Vec<OsString>,
    what: &str,
) -> Result<[OsString; N]> {
    if let Some(extra) = positional.get(N) {
        return Err(Error::usage(format!(
            "sessions {verb}: unexpected argument '{}'; quote names with spaces",
            extra.to_string_lossy()
        )));
    }
    positional.try_into().map_err(|_| {
        Error::usage(format!("sessions {verb}: missing {what}; see 'hermes sessions {verb} --help'"))
    })
}

/// The value of `-n/--limit`: a positive number, or the usage error that
/// says what it is not.
pub(crate) fn limit(parser: &mut lexopt::Parser) -> Result<usize> {
    let value = string(parser.value()?);
    value
        .parse()
        .ok()
        .filter(|n| *n > 0)
        .ok_or_else(|| Error::usage(format!("--limit wants a positive number, not '{value}'")))
}
