//! What a person may have meant by a name that matches no session: the
//! closest titles, by substring and by edit distance, newest first. Only
//! ever said, never acted on: a script relies on the failure.

use crate::text::edit_distance;

/// How many titles a "did you mean" lists at most.
pub(crate) const SHOWN: usize = 5;

/// The titles close to a name, fed one session at a time (the scan that
/// found no match) so that only the few newest are kept.
pub(crate) struct ClosestTitles {
    wanted: String,
    /// (activity, title), newest first, at most `SHOWN`, titles distinct.
    found: Vec<(f64, String)>,
}

impl ClosestTitles {
    pub(crate) fn new(name: &str) -> ClosestTitles {
        ClosestTitles { wanted: name.trim().to_lowercase(), found: Vec::new() }
    }

    /// A session titled `title`, last active at `activity`.
    pub(crate) fn consider(&mut self, title: &str, activity: f64) {
        if title.is_empty() || !is_close(&self.wanted, &title.to_lowercase()) {
            return;
        }
        if let Some(at) = self.found.iter().position(|(_, t)| t == title) {
            if self.found[at].0 >= activity {
                return;
            }
            self.found.remove(at);
        }
        let at = self.found.partition_point(|(t, _)| *t >= activity);
        if at < SHOWN {
            self.found.insert(at, (activity, title.to_string()));
            self.found.truncate(SHOWN);
        }
    }

    /// The titles, newest first.
    pub(crate) fn finish(self) -> Vec<String> {
        self.found.into_iter().map(|(_, title)| title).collect()
    }
}

/// Whether `title` is near enough to `wanted` (both lower case) to be
/// what was meant: it holds what was typed; or it is a few edits away; or
/// each word typed is in it, or a few edits from one of its words (or the
/// start of one: `debg` for `debugging`).
pub(crate) fn is_close(wanted: &str, title: &str) -> bool {
    if wanted.chars().count() < 2 {
        return false;
    }
    if title.contains(wanted) || edit_distance(wanted, title) <= allowed_edits(wanted) {
        return true;
    }
    let title_words: Vec<&str> = title.split_whitespace().collect();
    wanted.split_whitespace().all(|word| {
        title.contains(word)
            || word.chars().count() >= 3
                && title_words.iter().any(|t| {
                    let start: String = t.chars().take(word.chars().count()).collect();
                    let limit = allowed_edits(word);
                    edit_distance(word, t) <= limit || edit_distance(word, &start) <= limit
                })
    })
}

/// Edits allowed for a typed word: one in a short word, two in a longer.
fn allowed_edits(word: &str) -> usize {
    (word.chars().count() / 4).clamp(1, 2)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn substrings_and_typos_are_close() {
        assert!(is_close("redis", "redis debugging"));
        assert!(is_close("redis debg", "redis debug"));
        assert!(is_close("redis debg", "debugging redis latency"));
        assert!(is_close("nots", "notes"));
        assert!(is_close("redis debug", "redis debug"));
        assert!(is_close("pycon", "pyconc talk"));
        assert!(!is_close("redis debg", "redis cluster"));
        assert!(!is_close("nots", "pycon talk"));
        assert!(!is_close("x", "x marks the spot"));
    }

    #[test]
    fn at_most_five_distinct_titles_newest_first() {
        let mut closest = ClosestTitles::new("Redis");
        for (i, title) in
            ["redis a", "other", "redis b", "Redis C", "redis d", "redis e", "redis f", "redis b"]
                .iter()
                .enumerate()
        {
            closest.consider(title, i as f64);
        }
        assert_eq!(closest.finish(), vec!["redis b", "redis f", "redis e", "redis d", "Redis C"]);
        let mut none = ClosestTitles::new("zzz");
        none.consider("redis", 1.0);
        assert!(none.finish().is_empty());
    }
}
