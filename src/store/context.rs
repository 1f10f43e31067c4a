//! The context budget: which of a session's messages one turn sends to the
//! agent. A thread that lives for years is never sent whole: the system
//! prompt, the latest summary (see `Message::summary`), then the newest
//! messages that fit, each whole, the newest user message always.
//!
//! The unit is the character (a Unicode scalar value of the messages'
//! text): a tokenizer is no part of a dependency-light tool, and models
//! read about four characters of English to a token, fewer of other
//! languages and of code. The selection is made in one pass over the
//! messages' sizes (`Selector`), keeping only what can still be chosen,
//! so that a 64 MiB session needs no more memory than a short one; the
//! messages are then read again and the chosen ones sent (`Plan::sends`).

use std::collections::VecDeque;
use std::io::Read;

use crate::store::format::{Fault, Reader};
use crate::text::thousands;

/// The budget when config.toml names none: 300,000 characters, about
/// 75,000 tokens of English, or 100,000 of text that tokenizes at three
/// characters a token: within the 128k-token window of the common hosted
/// models with room left for the reply. Lower it for a small local model
/// (an 8k-token model wants about 24,000).
pub(crate) const DEFAULT_BUDGET: u64 = 300_000;

/// `--context N`'s help, for chat and `sessions compact`.
pub(crate) const BUDGET_HELP: &str = "the context budget: a turn sends at most N characters of the \
    conversation (default: 'context' in config.toml, else 300000; 'off': no limit)";

/// No budget (`context = "off"`): every message is sent, as hermes did
/// before it had one.
pub(crate) const UNLIMITED: u64 = u64::MAX;

/// The smallest budget taken: below it not even a short exchange fits.
pub(crate) const MIN_BUDGET: u64 = 1_000;

/// Characters kept free for the note that tells the agent what was left
/// out (see `Plan::note`), whenever anything is.
pub(crate) const NOTE_RESERVE: u64 = 300;

/// A budget as config.toml, `--context` and `/context` write it: a number
/// of characters (`300000`, `300_000`, `300k`), or `off`.
pub(crate) fn parse_budget(text: &str) -> Result<u64, String> {
    let text = text.trim();
    if matches!(text, "off" | "none") {
        return Ok(UNLIMITED);
    }
    let (digits, scale) = match text.strip_suffix(['k', 'K']) {
        Some(digits) => (digits, 1000),
        None => (text, 1),
    };
    let digits: String = digits.chars().filter(|&c| c != '_').collect();
    let why =
        || format!("the context budget is a number of characters (as 300000 or 300k) or off, not '{text}'");
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(why());
    }
    let n = digits.parse::<u64>().ok().and_then(|n| n.checked_mul(scale)).ok_or_else(why)?;
    if n < MIN_BUDGET {
        return Err(format!(
            "a context budget under {MIN_BUDGET} characters leaves no room for a conversation"
        ));
    }
    Ok(n)
}

/// A budget as people read it.
pub(crate) fn describe(budget: u64) -> String {
    if budget == UNLIMITED { "off".to_string() } else { format!("{} characters", thousands(budget)) }
}

/// What a message is to the selection.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A system prompt: always sent while it fits.
    System,
    /// A summary of every message before it.
    Summary,
    User,
    Assistant,
}

impl Kind {
    pub(crate) fn of(role: &str, summary: bool) -> Kind {
        match role {
            "system" if summary => Kind::Summary,
            "system" => Kind::System,
            "user" => Kind::User,
            _ => Kind::Assistant,
        }
    }
}

/// The characters of the text a JSON string holds (`"..."`, quotes
/// included), counted on its bytes without decoding it.
pub(crate) fn json_chars(string: &[u8]) -> u64 {
    let inner = string.get(1..string.len().saturating_sub(1)).unwrap_or_default();
    let mut chars = 0u64;
    let mut at = 0;
    while at < inner.len() {
        // The run up to the next escape: as many characters as bytes when
        // it is ASCII, else its bytes that do not continue a character.
        let (stop, ascii) = crate::store::json::string_stop_ascii(&inner[at..], false);
        let end = stop.map_or(inner.len(), |p| at + p);
        let run = &inner[at..end];
        chars += if ascii { run.len() } else { run.iter().filter(|&&b| b & 0xC0 != 0x80).count() } as u64;
        at = end;
        let Some(&b) = inner.get(at) else { break };
        if b == b'\\' {
            if inner.get(at + 1) == Some(&b'u') {
                // A low surrogate is the second half of one character.
                let low = inner.get(at + 2..at + 4).is_some_and(|h| {
                    h.eq_ignore_ascii_case(b"dc")
                        || h.eq_ignore_ascii_case(b"dd")
                        || h.eq_ignore_ascii_case(b"de")
                        || h.eq_ignore_ascii_case(b"df")
                });
                chars += u64::from(!low);
                at += 6;
            } else {
                chars += 1;
                at += 2;
            }
            continue;
        }
        chars += u64::from(b & 0xC0 != 0x80);
        at += 1;
    }
    chars
}

/// The first pass: fed each message's kind and size in order, it keeps the
/// system prompts (always sent, as is the newest user message), the latest
/// summary, the newest user message, and of the messages after the summary
/// only the newest whose sizes add up to at most the budget (no older one
/// could be chosen).
#[derive(Debug)]
pub(crate) struct Selector {
    budget: u64,
    count: u64,
    total_chars: u64,
    systems: Vec<(u64, u64)>,
    summary: Option<(u64, u64)>,
    last_user: Option<(u64, u64)>,
    window: VecDeque<(u64, u64)>,
    window_chars: u64,
    /// Messages after the latest summary (not system prompts): how many,
    /// and their characters.
    after: (u64, u64),
}

impl Selector {
    pub(crate) fn new(budget: u64) -> Selector {
        Selector {
            budget,
            count: 0,
            total_chars: 0,
            systems: Vec::new(),
            summary: None,
            last_user: None,
            window: VecDeque::new(),
            window_chars: 0,
            after: (0, 0),
        }
    }

    pub(crate) fn push(&mut self, kind: Kind, chars: u64) {
        let at = self.count;
        self.count += 1;
        self.total_chars = self.total_chars.saturating_add(chars);
        match kind {
            Kind::System => self.systems.push((at, chars)),
            Kind::Summary => {
                self.summary = Some((at, chars));
                self.last_user = None;
                self.window.clear();
                self.window_chars = 0;
                self.after = (0, 0);
            }
            Kind::User | Kind::Assistant => {
                if kind == Kind::User {
                    self.last_user = Some((at, chars));
                }
                self.after = (self.after.0 + 1, self.after.1.saturating_add(chars));
                self.window.push_back((at, chars));
                self.window_chars = self.window_chars.saturating_add(chars);
                while self.window_chars > self.budget
                    && let Some((_, first)) = self.window.pop_front()
                {
                    self.window_chars -= first;
                }
            }
        }
    }

    /// What to send.
    pub(crate) fn finish(self) -> Plan {
        let everything =
            self.systems.iter().map(|s| s.1).sum::<u64>() + self.summary.map_or(0, |s| s.1) + self.after.1;
        let whole = self.window.len() as u64 == self.after.0 && everything <= self.budget;
        if whole && self.summary.is_none() {
            let budget = self.budget;
            return self.choose(budget);
        }
        // Something is left out or summarised: the note needs its room.
        let budget = self.budget.saturating_sub(NOTE_RESERVE);
        self.choose(budget)
    }

    fn choose(self, budget: u64) -> Plan {
        let forced = self.last_user.map_or(0, |u| u.1);
        let mut used = forced;
        let mut plan = Plan {
            budget: self.budget,
            messages: self.count,
            total_chars: self.total_chars,
            systems: Vec::new(),
            summary: None,
            summary_at: self.summary.map(|s| s.0),
            last_user: self.last_user.map(|u| u.0),
            tail_from: self.count,
            sent: u64::from(self.last_user.is_some()),
            sent_chars: 0,
            left_out: 0,
            left_out_chars: 0,
            newest_over: forced.saturating_add(self.systems.iter().map(|s| s.1).sum()) > self.budget,
        };
        // The system prompts go whatever their size, as the newest user
        // message does: without them the conversation is another.
        for &(at, chars) in &self.systems {
            used = used.saturating_add(chars);
            plan.systems.push(at);
            plan.sent += 1;
        }
        if let Some((at, chars)) = self.summary {
            if used.saturating_add(chars) <= budget {
                used += chars;
                plan.summary = Some(at);
                plan.sent += 1;
            } else {
                plan.left_out += 1;
                plan.left_out_chars += chars;
            }
        }
        let mut tail = (0u64, 0u64);
        for &(at, chars) in self.window.iter().rev() {
            if Some(at) == plan.last_user {
                plan.tail_from = at;
                continue;
            }
            if used.saturating_add(chars) > budget {
                break;
            }
            used += chars;
            plan.tail_from = at;
            tail = (tail.0 + 1, tail.1 + chars);
        }
        // The newest user message may lie before the tail's start, when
        // what follows it did not all fit: those messages are out too.
        plan.sent += tail.0;
        let forced_after = u64::from(self.last_user.is_some());
        plan.left_out += self.after.0 - tail.0 - forced_after;
        plan.left_out_chars += self.after.1 - tail.1 - forced;
        plan.sent_chars = used;
        plan
    }
}

/// Which messages one turn sends, by their place in the file (0-based),
/// and what that leaves out.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Plan {
    pub(crate) budget: u64,
    /// The session's messages, and their characters.
    pub(crate) messages: u64,
    pub(crate) total_chars: u64,
    /// The system prompts: always sent.
    pub(crate) systems: Vec<u64>,
    /// The latest summary, when sent.
    pub(crate) summary: Option<u64>,
    /// Where the latest summary is, sent or not: it covers the messages
    /// before it.
    pub(crate) summary_at: Option<u64>,
    /// The newest user message (after the latest summary): always sent.
    pub(crate) last_user: Option<u64>,
    /// The newest messages from here on are sent (after the summary).
    pub(crate) tail_from: u64,
    /// Messages and characters sent (the note not counted).
    pub(crate) sent: u64,
    pub(crate) sent_chars: u64,
    /// Messages not sent that no summary covers, and their characters.
    pub(crate) left_out: u64,
    pub(crate) left_out_chars: u64,
    /// The newest user message (with the system prompts) alone is
    /// larger than the budget.
    pub(crate) newest_over: bool,
}

impl Plan {
    /// Everything, as it stands (a summariser's input, made to fit).
    pub(crate) fn everything() -> Plan {
        Plan {
            budget: UNLIMITED,
            messages: 0,
            total_chars: 0,
            systems: Vec::new(),
            summary: None,
            summary_at: None,
            last_user: None,
            tail_from: 0,
            sent: 0,
            sent_chars: 0,
            left_out: 0,
            left_out_chars: 0,
            newest_over: false,
        }
    }

    /// Whether the message at `at` is sent.
    pub(crate) fn sends(&self, at: u64) -> bool {
        let after_summary = self.summary_at.is_none_or(|s| at > s);
        self.systems.contains(&at)
            || self.summary == Some(at)
            || self.last_user == Some(at)
            || (at >= self.tail_from && after_summary)
    }

    /// Messages before the latest summary, which it stands for.
    pub(crate) fn covered(&self) -> u64 {
        self.summary_at.unwrap_or(0)
    }

    /// Whether a turn leaves anything out (a summary's messages aside).
    pub(crate) fn leaves_out(&self) -> bool {
        self.left_out > 0
    }

    /// What the agent is told in its input, before the first message
    /// that is not a system prompt: what the summary stands for and what
    /// the budget left out. None when nothing is either. Never longer
    /// than `NOTE_RESERVE` characters.
    pub(crate) fn note(&self) -> Option<String> {
        let mut parts = Vec::new();
        if self.summary.is_some() {
            parts.push(format!(
                "the next message summarises the {} earlier messages of this conversation",
                self.covered()
            ));
        }
        if self.left_out > 0 {
            parts.push(format!(
                "{} messages ({} characters) are left out to keep within the context budget of {} characters",
                self.left_out, self.left_out_chars, self.budget
            ));
        }
        (!parts.is_empty()).then(|| format!("[hermes: {}.]", parts.join("; ")))
    }
}

/// Pass one over a session file: the plan of a turn under `budget`.
pub(crate) fn plan<R: Read>(conversation: &mut Reader<R>, budget: u64) -> Result<Plan, Fault> {
    let mut selector = Selector::new(budget);
    while let Some(m) = conversation.next_json()? {
        selector.push(Kind::of(m.role, m.summary), json_chars(&m.content));
    }
    Ok(selector.finish())
}

/// What a session holds, for `stats` and `list`: its messages and their
/// characters, and what a turn would send with no budget (the system
/// prompts, the latest summary and every message after it).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub(crate) struct Measure {
    pub(crate) messages: u64,
    pub(crate) chars: u64,
    pub(crate) context_chars: u64,
    pub(crate) summaries: u64,
}

impl Measure {
    pub(crate) fn over(&self, budget: u64) -> bool {
        self.context_chars > budget
    }
}

/// Every message of a session file, checked, measured.
pub(crate) fn measure<R: Read>(conversation: &mut Reader<R>) -> Result<Measure, Fault> {
    let mut m = Measuring::default();
    while let Some(message) = conversation.next_json()? {
        m.push(Kind::of(message.role, message.summary), json_chars(&message.content));
    }
    Ok(m.finish())
}

/// `measure` of messages in memory (an import's, before they are written).
pub(crate) fn measure_messages(messages: &[crate::store::session::Message]) -> Measure {
    let mut m = Measuring::default();
    for message in messages {
        m.push_message(message);
    }
    m.finish()
}

/// A `Measure` being taken, a message at a time.
#[derive(Default)]
pub(crate) struct Measuring {
    m: Measure,
    systems: u64,
    since_summary: u64,
}

impl Measuring {
    fn push(&mut self, kind: Kind, chars: u64) {
        self.m.messages += 1;
        self.m.chars += chars;
        match kind {
            Kind::System => self.systems += chars,
            Kind::Summary => {
                self.m.summaries += 1;
                self.since_summary = chars;
            }
            Kind::User | Kind::Assistant => self.since_summary += chars,
        }
    }

    /// A message in memory (an import's, before it is written).
    pub(crate) fn push_message(&mut self, message: &crate::store::session::Message) {
        self.push(Kind::of(&message.role, message.is_summary()), message.content.chars().count() as u64);
    }

    pub(crate) fn finish(mut self) -> Measure {
        self.m.context_chars = self.systems + self.since_summary;
        self.m
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan_of(messages: &[(Kind, u64)], budget: u64) -> Plan {
        let mut s = Selector::new(budget);
        for &(kind, chars) in messages {
            s.push(kind, chars);
        }
        s.finish()
    }

    fn sent(plan: &Plan) -> Vec<u64> {
        (0..plan.messages).filter(|&i| plan.sends(i)).collect()
    }

    use Kind::{Assistant as A, Summary as S, System as Sys, User as U};

    #[test]
    fn all_of_a_short_session_goes() {
        let p = plan_of(&[(Sys, 10), (U, 100), (A, 100), (U, 50)], 10_000);
        assert_eq!(sent(&p), [0, 1, 2, 3]);
        assert_eq!((p.sent, p.sent_chars, p.left_out), (4, 260, 0));
        assert_eq!(p.note(), None);
    }

    #[test]
    fn the_newest_that_fit_go_whole_after_the_system_prompt() {
        let mut messages = vec![(Sys, 100)];
        for i in 0..5000 {
            messages.push((if i % 2 == 0 { U } else { A }, 97 + i % 7));
        }
        messages.push((U, 40));
        let p = plan_of(&messages, 2000);
        let s = sent(&p);
        assert_eq!(s[0], 0);
        assert!(s.windows(2).skip(1).all(|w| w[1] == w[0] + 1), "one run of the newest: {s:?}");
        assert_eq!(*s.last().unwrap(), 5001);
        let chars: u64 = s.iter().map(|&i| messages[i as usize].1).sum();
        assert_eq!(chars, p.sent_chars);
        assert!(p.sent_chars + NOTE_RESERVE <= 2000, "{}", p.sent_chars);
        // The next older message would not have fitted.
        let first = s[1] as usize;
        assert!(p.sent_chars + messages[first - 1].1 > 2000 - NOTE_RESERVE);
        assert_eq!(p.sent + p.left_out, 5002);
        assert!(p.note().unwrap().len() as u64 <= NOTE_RESERVE);
    }

    #[test]
    fn the_newest_user_message_goes_even_alone_over_the_budget() {
        let p = plan_of(&[(Sys, 10), (U, 100), (A, 100), (U, 5000)], 2000);
        assert_eq!(sent(&p), [0, 3]);
        assert!(p.newest_over);
        assert_eq!((p.left_out, p.left_out_chars), (2, 200));
        // A reply cut short after it comes first when it fits.
        let p = plan_of(&[(U, 500), (U, 1500), (A, 10)], 2000);
        assert_eq!(sent(&p), [1, 2]);
    }

    #[test]
    fn a_summary_stands_for_what_is_before_it() {
        let p = plan_of(&[(Sys, 10), (U, 900), (A, 900), (S, 100), (U, 50), (A, 50), (U, 50)], 2000);
        assert_eq!(sent(&p), [0, 3, 4, 5, 6]);
        assert_eq!((p.covered(), p.left_out), (3, 0));
        assert!(p.note().unwrap().contains("summarises the 3 earlier"));
        // Only the latest summary counts.
        let p = plan_of(&[(U, 9), (S, 10), (U, 20), (S, 30), (U, 40)], 2000);
        assert_eq!(sent(&p), [3, 4]);
        assert_eq!(p.covered(), 3);
    }

    #[test]
    fn what_is_kept_of_a_long_pass_is_bounded() {
        let mut s = Selector::new(1000);
        for _ in 0..100_000 {
            s.push(U, 100);
        }
        assert!(s.window.len() <= 10);
        assert_eq!(s.finish().left_out, 100_000 - 7);
    }

    #[test]
    fn counts_characters_of_json_strings() {
        // As counted a byte at a time (what json_chars did before it
        // looked at runs of plain bytes).
        fn one_by_one(string: &[u8]) -> u64 {
            let inner = string.get(1..string.len().saturating_sub(1)).unwrap_or_default();
            let (mut chars, mut at) = (0u64, 0);
            while at < inner.len() {
                match (inner[at], inner.get(at + 1)) {
                    (b'\\', Some(b'u')) => {
                        let low = inner.get(at + 2..at + 4).is_some_and(|h| {
                            [b"dc", b"dd", b"de", b"df"].iter().any(|l| h.eq_ignore_ascii_case(*l))
                        });
                        chars += u64::from(!low);
                        at += 6;
                    }
                    (b'\\', _) => (chars, at) = (chars + 1, at + 2),
                    (b, _) => (chars, at) = (chars + u64::from(b & 0xC0 != 0x80), at + 1),
                }
            }
            chars
        }
        let pieces: [&[u8]; 9] = [
            b"a",
            b"\\n",
            b"\\\"",
            "é".as_bytes(),
            "😀".as_bytes(),
            b"\\u00e9",
            b"\\ud83d\\ude00",
            b"\\",
            b"\"",
        ];
        for n in 0..40 {
            for (i, p) in pieces.iter().enumerate() {
                let mut s = b"\"".to_vec();
                for k in 0..n {
                    s.extend_from_slice(pieces[(k * 7 + i) % pieces.len()]);
                }
                s.extend_from_slice(p);
                s.push(b'"');
                assert_eq!(json_chars(&s), one_by_one(&s), "{}", String::from_utf8_lossy(&s));
            }
        }
        assert_eq!(json_chars(br#""""#), 0);
        assert_eq!(json_chars(br#""ab\n\"c""#), 5);
        assert_eq!(json_chars("\"été 😀\"".as_bytes()), 5);
        assert_eq!(json_chars(br#""\u00e9t\ud83d\ude00""#), 3);
    }

    #[test]
    fn budgets_are_read_as_people_write_them() {
        assert_eq!(parse_budget("300000"), Ok(300_000));
        assert_eq!(parse_budget("300_000"), Ok(300_000));
        assert_eq!(parse_budget("24k"), Ok(24_000));
        assert_eq!(parse_budget("off"), Ok(UNLIMITED));
        for bad in ["", "k", "-5", "10", "1e6", "lots", "99999999999999999999"] {
            assert!(parse_budget(bad).is_err(), "{bad}");
        }
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(12), "12");
    }
}
