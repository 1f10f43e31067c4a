//! What Up, Down and Ctrl-R recall at the prompt: the messages of the
//! session in hand, and what was typed in every other (the store's
//! history), each knowing the session it came from. Up walks this
//! session's messages first, newest first, then the others'; Ctrl-R
//! searches them all by when they were typed, newest first, each text
//! once.

/// A message typed before, and where.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Recalled {
    pub(crate) text: String,
    /// The title of the session it went to, as stored (shown through the
    /// gate).
    pub(crate) from: String,
    /// When it was typed (Unix seconds).
    pub(crate) ts: f64,
}

/// The messages the prompt recalls.
#[derive(Default)]
pub(crate) struct History {
    /// The session's own, oldest first.
    here: Vec<Recalled>,
    /// Typed in other sessions (or not saved in this one), oldest first.
    elsewhere: Vec<Recalled>,
}

/// The history in the orders the keys walk it: `walk` from its end for
/// Up (others' oldest first, then this session's), `by_time` (places in
/// `walk`, a text only at its newest) from its end for Ctrl-R.
#[derive(Default)]
pub(crate) struct Order<'a> {
    pub(crate) walk: Vec<&'a Recalled>,
    pub(crate) by_time: Vec<usize>,
}

impl History {
    /// The session's own messages (oldest first), in place of those before.
    pub(crate) fn set_here(&mut self, here: Vec<Recalled>) {
        self.here = here;
    }

    /// What was typed elsewhere (oldest first), in place of what was.
    pub(crate) fn set_elsewhere(&mut self, elsewhere: Vec<Recalled>) {
        self.elsewhere = elsewhere;
    }

    /// A message typed now in this session: the newest of all.
    pub(crate) fn push(&mut self, typed: Recalled) {
        if self.here.last().map(|last| &last.text) != Some(&typed.text) {
            self.here.push(typed);
        }
    }

    /// The orders the keys walk it in. What was typed elsewhere is there
    /// once, at its newest, and not when this session holds it too.
    pub(crate) fn order(&self) -> Order<'_> {
        let mut elsewhere: Vec<&Recalled> = Vec::new();
        for (at, r) in self.elsewhere.iter().enumerate() {
            let later = self.elsewhere[at + 1..].iter().any(|other| other.text == r.text);
            if !later && !self.here.iter().any(|h| h.text == r.text) {
                elsewhere.push(r);
            }
        }
        let walk: Vec<&Recalled> = elsewhere.into_iter().chain(&self.here).collect();
        let mut by_time: Vec<usize> = (0..walk.len()).collect();
        // By time, stable: this session's messages keep their order.
        crate::order::sort_by(&mut by_time, |&a, &b| walk[a].ts.total_cmp(&walk[b].ts));
        let mut seen: Vec<&str> = Vec::new();
        let mut newest_first: Vec<usize> = Vec::new();
        for &at in by_time.iter().rev() {
            if !seen.contains(&walk[at].text.as_str()) {
                seen.push(&walk[at].text);
                newest_first.push(at);
            }
        }
        newest_first.reverse();
        Order { walk, by_time: newest_first }
    }

    /// A history of these texts, oldest first, all of this session.
    #[cfg(test)]
    pub(crate) fn of(texts: &[&str]) -> History {
        let here = texts
            .iter()
            .enumerate()
            .map(|(i, t)| Recalled { text: t.to_string(), from: "here".into(), ts: i as f64 })
            .collect();
        History { here, elsewhere: Vec::new() }
    }
}

impl Order<'_> {
    /// The newest place in `by_time` before `before` whose text holds
    /// `query`.
    pub(crate) fn find_back(&self, query: &str, before: usize) -> Option<usize> {
        if query.is_empty() {
            return None;
        }
        self.by_time[..before.min(self.by_time.len())]
            .iter()
            .rposition(|&at| self.walk[at].text.contains(query))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn r(text: &str, from: &str, ts: f64) -> Recalled {
        Recalled { text: text.into(), from: from.into(), ts }
    }

    #[test]
    fn up_walks_this_session_first_then_the_others_each_text_once() {
        let mut h = History::default();
        h.set_elsewhere(vec![
            r("old", "a", 1.0),
            r("dup", "a", 2.0),
            r("mine too", "b", 3.0),
            r("dup", "b", 4.0),
        ]);
        h.set_here(vec![r("first here", "me", 0.5), r("mine too", "me", 5.0)]);
        let order = h.order();
        let texts: Vec<&str> = order.walk.iter().map(|r| r.text.as_str()).collect();
        assert_eq!(texts, ["old", "dup", "first here", "mine too"]);
        assert_eq!(order.walk[1].from, "b");
        // Ctrl-R: newest typed first, whichever session.
        let by_time: Vec<&str> = order.by_time.iter().map(|&at| order.walk[at].text.as_str()).collect();
        assert_eq!(by_time, ["first here", "old", "dup", "mine too"]);
        assert_eq!(order.find_back("d", order.by_time.len()), Some(2));
        assert_eq!(order.find_back("o", 2), Some(1));
        assert_eq!(order.find_back("x", 4), None);
    }
}
