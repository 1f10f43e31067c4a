//! What every command's argument parser shares: lexopt values as strings,
//! a peek at the next word, and the usage errors for positional arguments.
//! Each verb's own `Args` and `parse` live beside the verb.

use std::ffi::OsString;

use crate::error::{Error, Result};

/// An argument as text; bytes that are not UTF-8 are shown replaced. For
/// what is only looked up or shown (a session's name, an option's word):
/// a replaced byte matches nothing. What is stored or sent takes `text`.
pub(crate) fn string(os: OsString) -> String {
    os.into_string().unwrap_or_else(|os| os.to_string_lossy().into_owned())
}

/// An argument that becomes stored or sent text (a message, a title, a
/// setting): refused, naming `place`, when it is not UTF-8, where a
/// replacement would lose a Latin-1 text's accents without a word.
pub(crate) fn text(os: OsString, place: &str) -> Result<String> {
    use std::os::unix::ffi::OsStringExt;
    utf8(os.into_vec(), place)
}

/// Bytes read as text (stdin, a file): refused as `text` refuses them.
pub(crate) fn utf8(bytes: Vec<u8>, place: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        Error::NotText { place: place.to_string(), offset, byte: e.as_bytes()[offset] }
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_that_is_not_utf8_is_refused_with_its_first_bad_byte() {
        assert_eq!(utf8(b"caf\xc3\xa9".to_vec(), "-q").unwrap(), "café");
        match utf8(b"ok caf\xe9 cr\xe8me".to_vec(), "stdin") {
            Err(Error::NotText { place, offset, byte }) => {
                assert_eq!((place.as_str(), offset, byte), ("stdin", 6, 0xe9));
            }
            other => panic!("{other:?}"),
        }
        // A sequence cut short counts from its first byte.
        assert!(matches!(
            utf8(b"ab\xe2\x82".to_vec(), "-q"),
            Err(Error::NotText { offset: 2, byte: 0xe2, .. })
        ));
        use std::os::unix::ffi::OsStringExt;
        assert!(text(OsString::from_vec(b"\xff".to_vec()), "--title").is_err());
        assert_eq!(string(OsString::from_vec(b"a\xff".to_vec())), "a\u{fffd}");
    }
}
