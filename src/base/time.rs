//! Time: now as hermes stores it, and times as people read them (local
//! `YYYY-MM-DD HH:MM`).

use crate::sys;

/// Now, in Unix seconds (the form every stored time takes).
pub(crate) fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

/// The latest year shown as a date: past it (a clock far ahead, a time
/// stored in milliseconds) a time is shown as the number stored.
const LAST_YEAR_SHOWN: i32 = 9999;

pub(crate) fn local_minutes(ts: f64) -> String {
    match sys::local_time(ts as i64) {
        Some((y, mo, d, h, mi, _)) if y <= LAST_YEAR_SHOWN => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}"),
        _ => as_stored(ts),
    }
}

pub(crate) fn local_seconds(ts: f64) -> String {
    match sys::local_time(ts as i64) {
        Some((y, mo, d, h, mi, s)) if y <= LAST_YEAR_SHOWN => {
            format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")
        }
        _ => as_stored(ts),
    }
}

/// A time no calendar date fits: the stored number itself, so the file can
/// be found and fixed.
fn as_stored(ts: f64) -> String {
    if ts > 0.0 { format!("{ts}") } else { "-".to_string() }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
/// `days_from_civil`), so RFC 3339 times convert without the C library.
fn days_from_civil(y: i64, m: i64, d: i64) -> i64 {
    let y = if m <= 2 { y - 1 } else { y };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let doy = (153 * (m + if m > 2 { -3 } else { 9 }) + 2) / 5 + d - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// The UTC calendar date and time of Unix seconds `ts`:
/// (year, month, day, hour, minute, second).
pub(crate) fn utc_civil(ts: f64) -> (i64, i64, i64, i64, i64, i64) {
    let secs = ts.floor() as i64;
    let (days, rem) = (secs.div_euclid(86_400), secs.rem_euclid(86_400));
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d, rem / 3600, rem % 3600 / 60, rem % 60)
}

/// The days of month `mo` (1-12) of year `y`, 29 in a February of a leap
/// year (the Gregorian rule).
fn days_in_month(y: i64, mo: i64) -> i64 {
    match mo {
        2 if y % 4 == 0 && (y % 100 != 0 || y % 400 == 0) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// An RFC 3339 time (`2026-12-02T15:40:07.553960+00:00`, `...Z`, a space
/// for the `T`, no zone meaning UTC) as Unix seconds; None if it is not one.
pub(crate) fn parse_rfc3339(s: &str) -> Option<f64> {
    let b = s.as_bytes();
    let num = |r: std::ops::Range<usize>| -> Option<i64> {
        let part = b.get(r)?;
        part.iter()
            .all(u8::is_ascii_digit)
            .then(|| part.iter().fold(0i64, |n, d| n * 10 + i64::from(d - b'0')))
    };
    if b.len() < 19
        || b[4] != b'-'
        || b[7] != b'-'
        || !matches!(b[10], b'T' | b't' | b' ')
        || b[13] != b':'
        || b[16] != b':'
    {
        return None;
    }
    let (y, mo, d, h, mi, sec) =
        (num(0..4)?, num(5..7)?, num(8..10)?, num(11..13)?, num(14..16)?, num(17..19)?);
    if !(1..=12).contains(&mo) || !(1..=days_in_month(y, mo)).contains(&d) || h > 23 || mi > 59 || sec > 60 {
        return None;
    }
    let mut at = 19;
    let mut fraction = 0.0;
    if b.get(at) == Some(&b'.') {
        let start = at + 1;
        at = start;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            at += 1;
        }
        if at == start {
            return None;
        }
        fraction = format!("0.{}", &s[start..at]).parse().ok()?;
    }
    let offset = match b.get(at) {
        None => 0,
        Some(b'Z' | b'z') if at + 1 == b.len() => 0,
        Some(&sign @ (b'+' | b'-')) if b.len() == at + 6 && b[at + 3] == b':' => {
            // An offset is hours 00-23 and minutes 00-59 (RFC 3339).
            let (hours, minutes) = (num(at + 1..at + 3)?, num(at + 4..at + 6)?);
            if hours > 23 || minutes > 59 {
                return None;
            }
            let minutes = hours * 60 + minutes;
            if sign == b'+' { minutes * 60 } else { -minutes * 60 }
        }
        _ => return None,
    };
    let secs = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + sec - offset;
    Some(secs as f64 + fraction)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn far_future_times_are_shown_as_stored() {
        assert_eq!(local_minutes(1e15), "1000000000000000");
        assert_eq!(local_seconds(1e15), "1000000000000000");
        assert_eq!(local_minutes(2e11).len(), 16);
    }

    #[test]
    fn reads_rfc3339_as_llm_writes_it() {
        assert_eq!(parse_rfc3339("1970-01-01T00:00:00Z"), Some(0.0));
        let t = parse_rfc3339("2026-12-02T15:40:07.553960+00:00").unwrap();
        assert!((t - 1_796_226_007.553_96).abs() < 1e-6, "{t}");
        assert_eq!(parse_rfc3339("2026-12-02T17:40:07+02:00"), parse_rfc3339("2026-12-02 15:40:07"));
        assert_eq!(parse_rfc3339("2028-02-29T00:01:00Z"), parse_rfc3339("2028-03-01T00:00:00+23:59"));
        assert!(
            parse_rfc3339("2000-02-29T00:00:00Z").is_some()
                && parse_rfc3339("2026-12-31T23:59:60Z").is_some()
        );
        for bad in [
            "",
            "2026-12-02",
            "2026-13-02T00:00:00Z",
            "2026-12-02T15:40:07.+00:00",
            "2026-12-02T15:40:07 junk",
            "2026-02-30T10:00:00Z",
            "2026-02-29T10:00:00Z",
            "2100-02-29T10:00:00Z",
            "2026-04-31T10:00:00Z",
            "2026-12-03T10:00:00+99:00",
            "2026-12-03T10:00:00+24:00",
            "2026-12-03T10:00:00-05:60",
        ] {
            assert_eq!(parse_rfc3339(bad), None, "{bad}");
        }
    }

    #[test]
    fn civil_round_trip() {
        for ts in [0.0, 951_782_400.0, 1_796_226_007.9, 4_102_444_799.0] {
            let (y, mo, d, h, mi, s) = utc_civil(ts);
            let back = days_from_civil(y, mo, d) * 86_400 + h * 3600 + mi * 60 + s;
            assert_eq!(back, ts.floor() as i64);
        }
        assert_eq!(utc_civil(1_796_226_007.5), (2026, 12, 2, 15, 40, 7));
    }
}
