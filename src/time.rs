//! Time: now as hermes stores it, and times as people read them (local
//! `YYYY-MM-DD HH:MM`).

use crate::sys;

/// Now, in Unix seconds (the form every stored time takes).
pub fn now() -> f64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map(|d| d.as_secs_f64()).unwrap_or(0.0)
}

pub fn local_minutes(ts: f64) -> String {
    match sys::local_time(ts as i64) {
        Some((y, mo, d, h, mi, _)) => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}"),
        None => "-".to_string(),
    }
}

pub fn local_seconds(ts: f64) -> String {
    match sys::local_time(ts as i64) {
        Some((y, mo, d, h, mi, s)) => format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}"),
        None => "-".to_string(),
    }
}
