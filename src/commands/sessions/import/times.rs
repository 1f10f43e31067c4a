//! The times hermes keeps, from 1970 to the end of year 9999: whether a
//! time read from an input is one, and why a session's cannot be kept.

use crate::store::session::{Header, Session};

/// How a time hermes does not keep is described.
pub(crate) const TIME_RANGE: &str = "a time from 1970 to 9999";

/// The latest time hermes keeps: the end of year 9999.
pub(crate) const LATEST: f64 = 253_402_300_799.0;

/// Whether a time (seconds since 1970) is one hermes keeps: from 1970 to
/// the end of year 9999, and a number.
pub(crate) fn sane_time(t: f64) -> bool {
    t.is_finite() && (0.0..=LATEST).contains(&t)
}

/// Why a session's times cannot be kept, if they cannot: the first time
/// before 1970, after year 9999, or not a number, of its header's and then
/// of its messages' (`first_bad`: the first such message, its index).
pub(crate) fn bad_times(h: &Header, first_bad: Option<(usize, f64)>) -> Option<String> {
    let shown = |t: f64| if t.abs() < 1e15 { format!("{t}") } else { format!("{t:e}") };
    let named = [("created_at", h.created_at), ("updated_at", h.updated_at)];
    for (what, t) in named {
        if !sane_time(t) {
            return Some(format!("{what} {} is not {TIME_RANGE}", shown(t)));
        }
    }
    first_bad.map(|(i, t)| format!("message {} has the time {}, not {TIME_RANGE}", i + 1, shown(t)))
}

/// `bad_times` of a session in memory.
pub(crate) fn bad_times_in(session: &Session) -> Option<String> {
    let first_bad = session.messages.iter().enumerate().find(|(_, m)| !sane_time(m.ts));
    bad_times(&session.header, first_bad.map(|(i, m)| (i, m.ts)))
}
