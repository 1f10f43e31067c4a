//! What each key does to the line being edited: a pure function of the
//! editor's state and a key, giving the new state and what the terminal
//! side must do (draw, submit, clear the screen, suspend, ...). The line
//! editor (`lineedit.rs`) reads keys and draws; this decides.

use crate::store::session::MAX_MESSAGE_BYTES;
use crate::terminal::history::{History, Order};
use crate::terminal::keys::Keypress;
use crate::text;

/// The text being edited and the cursor, as an index into `chars`.
#[derive(Default, Clone, Debug, PartialEq)]
pub(super) struct Buffer {
    pub(super) chars: Vec<char>,
    pub(super) cursor: usize,
}

/// Ctrl-R: the text searched for, and the history entry it was found in
/// (a place in `Order::by_time`).
pub(super) struct Search {
    query: String,
    found: Option<usize>,
    before: Buffer,
}

/// One line being read: the text, the history and where in it we are.
#[derive(Default)]
pub(super) struct State<'a> {
    pub(super) prompt: &'a str,
    history: Order<'a>,
    pub(super) buffer: Buffer,
    /// The text being written, kept while Up shows older messages.
    draft: Option<Buffer>,
    /// The place in `history.walk` of what is shown; its length is the draft.
    place: usize,
    pub(super) search: Option<Search>,
    after_ctrl_x: bool,
    /// What Ctrl-K, Ctrl-U, Ctrl-W and Alt-D cut last, for Ctrl-Y (kept
    /// by the editor from one line to the next).
    pub(super) cut: String,
}

/// What the terminal side does after a key.
#[derive(Debug, PartialEq)]
pub(super) enum Effect {
    /// Draw the line as it now is.
    Draw,
    /// Enter: the text is done.
    Submit,
    /// Ctrl-C: the line is dropped.
    Cancel,
    /// Ctrl-D on an empty line: the end of input.
    End,
    /// Ctrl-L: clear the screen, then draw.
    ClearScreen,
    /// Ctrl-Z: stop the job (the shell takes the terminal), then draw.
    Suspend,
    /// After a stop from outside (kill -TSTP) the shell may have changed
    /// the terminal's mode: raw again, then draw anew.
    Reapply,
    /// Ctrl-X Ctrl-E: the text in $VISUAL/$EDITOR.
    EditExternally,
    /// A note above the prompt (a paste too large to take).
    Note(String),
    /// Tab in a slash command: complete it (the caller knows the names).
    Complete,
}

enum SearchStep {
    Handled,
    Accepted,
}

impl<'a> State<'a> {
    /// A new line to read, recalling `history`.
    pub(super) fn new(prompt: &'a str, history: &'a History, cut: String) -> State<'a> {
        let history = history.order();
        // The newest entry is the text being written (empty so far).
        State {
            prompt,
            place: history.walk.len(),
            history,
            buffer: Buffer::default(),
            draft: None,
            search: None,
            after_ctrl_x: false,
            cut,
        }
    }

    /// The text as typed.
    pub(super) fn text(&self) -> String {
        self.buffer.chars.iter().collect()
    }

    /// The prompt and text to draw on a terminal `width` columns wide (a
    /// search shows what it looks for, and the session of what it found,
    /// its title cut to fit the prompt's room with the rest).
    pub(super) fn shown(&self, width: usize) -> (String, Buffer) {
        let Some(search) = &self.search else { return (self.prompt.to_string(), self.buffer.clone()) };
        let query = text::printable(&search.query, false);
        let found = search.found.map(|at| self.history.walk[self.history.by_time[at]]);
        let prompt = match found {
            Some(found) if found.from.is_empty() => format!("(search: {query}) "),
            Some(found) => {
                let title = text::printable(&found.from, false);
                let rest = text::columns_of(&query) + "(search: , in '') ".len();
                let room = prompt_columns(width).saturating_sub(rest).max(6);
                format!("(search: {query}, in '{}') ", text::fit_columns(&title, room))
            }
            None if search.query.is_empty() => "(search: ) ".to_string(),
            None => format!("(no match: {query}) "),
        };
        (prompt, self.buffer.clone())
    }

    /// The text an external editor gave back, in place of the line.
    /// Whether Tab completes here: in a one-line slash command, before
    /// the cursor.
    fn completes(&self) -> bool {
        let before = &self.buffer.chars[..self.buffer.cursor];
        before.first() == Some(&'/') && !before.contains(&'\n')
    }

    /// The text before the cursor.
    pub(super) fn before_cursor(&self) -> String {
        self.buffer.chars[..self.buffer.cursor].iter().collect()
    }

    pub(super) fn replace_text(&mut self, text: &str) {
        self.buffer = Buffer::from(text);
    }

    fn step_history(&mut self, by: isize) {
        let walk = &self.history.walk;
        let to = self.place as isize + by;
        if to < 0 || to > walk.len() as isize {
            return;
        }
        if self.place == walk.len() {
            self.draft = Some(self.buffer.clone());
        }
        self.place = to as usize;
        self.buffer = match walk.get(self.place) {
            Some(entry) => Buffer::from(entry.text.as_str()),
            None => self.draft.take().unwrap_or_default(),
        };
    }

    /// A key while Ctrl-R searches: typing narrows, Ctrl-R finds an older
    /// match, Ctrl-G or Esc puts the text back as it was; any other key
    /// takes the match and then does what it does.
    fn search_key(&mut self, key: &Keypress) -> SearchStep {
        let s = self;
        let Some(search) = s.search.as_mut() else { return SearchStep::Accepted };
        let newest = s.history.by_time.len();
        match key {
            Keypress::Char(c) => {
                search.query.push(*c);
                search.found = s.history.find_back(&search.query, newest);
            }
            Keypress::Paste(text) => {
                search.query.push_str(text);
                search.found = s.history.find_back(&search.query, newest);
            }
            Keypress::Backspace => {
                search.query.pop();
                search.found = s.history.find_back(&search.query, newest);
            }
            Keypress::Ctrl('r') => {
                let from = search.found.unwrap_or(newest);
                if let Some(older) = s.history.find_back(&search.query, from) {
                    search.found = Some(older);
                }
            }
            Keypress::Ctrl('g') | Keypress::Escape | Keypress::Ctrl('c') => {
                s.buffer = search.before.clone();
                s.search = None;
                return SearchStep::Handled;
            }
            Keypress::Redraw => {}
            _ => {
                if let Some(found) = search.found {
                    let place = s.history.by_time[found];
                    s.buffer = Buffer::from(s.history.walk[place].text.as_str());
                    s.place = place;
                }
                s.search = None;
                return SearchStep::Accepted;
            }
        }
        if let Some(search) = &s.search
            && let Some(found) = search.found
        {
            let entry = &s.history.walk[s.history.by_time[found]].text;
            s.buffer = Buffer::from(entry);
            if let Some(at) = entry.find(&search.query) {
                s.buffer.cursor = entry[..at].chars().count();
            }
        }
        SearchStep::Handled
    }
}

/// What `key` does to the line: the new state, and what the terminal must
/// do about it.
pub(super) fn step<'a>(mut s: State<'a>, key: Keypress) -> (State<'a>, Effect) {
    let effect = act(&mut s, key);
    (s, effect)
}

fn act(s: &mut State, key: Keypress) -> Effect {
    if s.after_ctrl_x {
        s.after_ctrl_x = false;
        return if key == Keypress::Ctrl('e') { Effect::EditExternally } else { Effect::Draw };
    }
    if s.search.is_some() && matches!(s.search_key(&key), SearchStep::Handled) {
        return Effect::Draw;
    }
    match key {
        Keypress::Enter => Effect::Submit,
        Keypress::Ctrl('d') if s.buffer.chars.is_empty() => Effect::End,
        Keypress::Ctrl('c') => Effect::Cancel,
        Keypress::Ctrl('l') => Effect::ClearScreen,
        Keypress::Ctrl('z') => Effect::Suspend,
        Keypress::Tab if s.completes() => Effect::Complete,
        Keypress::Redraw => Effect::Reapply,
        Keypress::Paste(text)
            if s.buffer.chars.iter().map(|c| c.len_utf8()).sum::<usize>() + text.len()
                > MAX_MESSAGE_BYTES =>
        {
            Effect::Note(format!(
                "[the paste is larger than {} MiB; it was left out]",
                MAX_MESSAGE_BYTES >> 20
            ))
        }
        Keypress::Up | Keypress::Ctrl('p') => {
            s.step_history(-1);
            Effect::Draw
        }
        Keypress::Down | Keypress::Ctrl('n') => {
            s.step_history(1);
            Effect::Draw
        }
        Keypress::Ctrl('r') => {
            s.search = Some(Search { query: String::new(), found: None, before: s.buffer.clone() });
            Effect::Draw
        }
        Keypress::Ctrl('x') => {
            s.after_ctrl_x = true;
            Effect::Draw
        }
        key => {
            edit(&mut s.buffer, &mut s.cut, key);
            Effect::Draw
        }
    }
}

/// The keys that change only the text, the cursor and what was cut.
fn edit(b: &mut Buffer, cut: &mut String, key: Keypress) {
    match key {
        Keypress::Char(c) => b.insert(&c.to_string()),
        Keypress::Paste(text) => b.insert(&text),
        Keypress::Tab => b.insert("\t"),
        Keypress::Ctrl('j') | Keypress::AltEnter => b.insert("\n"),
        Keypress::Left | Keypress::Ctrl('b') => b.cursor = b.cursor.saturating_sub(1),
        Keypress::Right | Keypress::Ctrl('f') => b.cursor = (b.cursor + 1).min(b.chars.len()),
        Keypress::Home | Keypress::Ctrl('a') => b.cursor = b.line_start(),
        Keypress::End | Keypress::Ctrl('e') => b.cursor = b.line_end(),
        Keypress::WordLeft | Keypress::Alt('b') => b.cursor = b.word_start_before(),
        Keypress::WordRight | Keypress::Alt('f') => b.cursor = b.word_end_after(),
        Keypress::Backspace if b.cursor > 0 => {
            b.cursor -= 1;
            b.chars.remove(b.cursor);
        }
        Keypress::Delete | Keypress::Ctrl('d') => b.delete_forward(),
        Keypress::Ctrl('w') => *cut = b.cut(b.blank_word_start_before(), b.cursor),
        Keypress::AltBackspace => *cut = b.cut(b.word_start_before(), b.cursor),
        Keypress::Alt('d') => *cut = b.cut(b.cursor, b.word_end_after()),
        Keypress::Ctrl('u') => *cut = b.cut(b.line_start(), b.cursor),
        Keypress::Ctrl('k') => {
            let to = b.line_end();
            // At the end of a line, Ctrl-K joins it with the next.
            let to = if to == b.cursor { (to + 1).min(b.chars.len()) } else { to };
            *cut = b.cut(b.cursor, to);
        }
        Keypress::Ctrl('y') => b.insert(&cut.clone()),
        Keypress::Ctrl('t') => b.transpose(),
        _ => {}
    }
}

impl Buffer {
    pub(super) fn from(text: &str) -> Buffer {
        let chars: Vec<char> = text.chars().collect();
        Buffer { cursor: chars.len(), chars }
    }

    fn insert(&mut self, text: &str) {
        let at = self.cursor;
        let added: Vec<char> = text.chars().collect();
        self.cursor += added.len();
        self.chars.splice(at..at, added);
    }

    fn delete_forward(&mut self) {
        if self.cursor < self.chars.len() {
            self.chars.remove(self.cursor);
        }
    }

    /// Take out `from..to` and return it.
    fn cut(&mut self, from: usize, to: usize) -> String {
        let taken: String = self.chars.drain(from..to).collect();
        self.cursor = from;
        taken
    }

    /// Swap the characters before and at the cursor (at the end: the last two).
    fn transpose(&mut self) {
        let at = if self.cursor == self.chars.len() { self.cursor.saturating_sub(1) } else { self.cursor };
        if at > 0 && at < self.chars.len() {
            self.chars.swap(at - 1, at);
            self.cursor = at + 1;
        }
    }

    /// The start of the line (of a multi-line text) the cursor is on.
    fn line_start(&self) -> usize {
        self.chars[..self.cursor].iter().rposition(|&c| c == '\n').map_or(0, |at| at + 1)
    }

    fn line_end(&self) -> usize {
        self.chars[self.cursor..]
            .iter()
            .position(|&c| c == '\n')
            .map_or(self.chars.len(), |at| self.cursor + at)
    }

    /// Alt-B: back over non-word characters, then over a word.
    fn word_start_before(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && !self.chars[at - 1].is_alphanumeric() {
            at -= 1;
        }
        while at > 0 && self.chars[at - 1].is_alphanumeric() {
            at -= 1;
        }
        at
    }

    /// Alt-F: forward over non-word characters, then over a word.
    fn word_end_after(&self) -> usize {
        let mut at = self.cursor;
        while at < self.chars.len() && !self.chars[at].is_alphanumeric() {
            at += 1;
        }
        while at < self.chars.len() && self.chars[at].is_alphanumeric() {
            at += 1;
        }
        at
    }

    /// Ctrl-W: back over blanks, then over what is not blank (as a shell does).
    fn blank_word_start_before(&self) -> usize {
        let mut at = self.cursor;
        while at > 0 && self.chars[at - 1].is_whitespace() {
            at -= 1;
        }
        while at > 0 && !self.chars[at - 1].is_whitespace() {
            at -= 1;
        }
        at
    }
}

/// The most columns a prompt takes on a screen `width` wide (a search's,
/// with what it found and where, may be long).
pub(super) fn prompt_columns(width: usize) -> usize {
    width * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;

    fn buffer(text: &str, cursor: usize) -> Buffer {
        Buffer { chars: text.chars().collect(), cursor }
    }

    /// The line `before` the cursor and `after` it, then `keys`: the text
    /// before and after the cursor, and the last key's effect (as
    /// rustyline's own tests of its Emacs keys are written).
    fn keys_on(
        history: &History,
        (before, after): (&str, &str),
        keys: &[Keypress],
    ) -> (String, String, Effect) {
        let mut s = State::new("> ", history, String::new());
        s.buffer = Buffer::from(&format!("{before}{after}"));
        s.buffer.cursor = before.chars().count();
        let mut effect = Effect::Draw;
        for key in keys {
            (s, effect) = step(s, key.clone());
        }
        let (left, right) = s.buffer.chars.split_at(s.buffer.cursor);
        (left.iter().collect(), right.iter().collect(), effect)
    }

    fn assert_cursor(initial: (&str, &str), keys: &[Keypress], expected: (&str, &str)) {
        let (before, after, _) = keys_on(&History::default(), initial, keys);
        assert_eq!((before.as_str(), after.as_str()), expected, "keys {keys:?} on {initial:?}");
    }

    fn typed(text: &str) -> Vec<Keypress> {
        text.chars().map(Keypress::Char).collect()
    }

    #[test]
    fn typing_inserts_at_the_cursor() {
        assert_cursor(("", ""), &typed("abc"), ("abc", ""));
        assert_cursor(("a", "c"), &typed("b"), ("ab", "c"));
        assert_cursor(("", ""), &typed("调试"), ("调试", ""));
    }

    #[test]
    fn ctrl_a_and_ctrl_e_go_to_the_line_s_ends() {
        assert_cursor(("Hi", ""), &[Keypress::Ctrl('a')], ("", "Hi"));
        assert_cursor(("", "Hi"), &[Keypress::Ctrl('e')], ("Hi", ""));
        assert_cursor(("H", "i"), &[Keypress::Home], ("", "Hi"));
        assert_cursor(("H", "i"), &[Keypress::End], ("Hi", ""));
    }

    #[test]
    fn home_and_end_stay_on_the_line_of_a_multi_line_text() {
        assert_cursor(("one\ntw", "o\nthree"), &[Keypress::Ctrl('a')], ("one\n", "two\nthree"));
        assert_cursor(("one\ntw", "o\nthree"), &[Keypress::Ctrl('e')], ("one\ntwo", "\nthree"));
    }

    #[test]
    fn ctrl_b_and_ctrl_f_move_one_character_and_stop_at_the_ends() {
        assert_cursor(("Hi", ""), &[Keypress::Ctrl('b')], ("H", "i"));
        assert_cursor(("", "Hi"), &[Keypress::Ctrl('f')], ("H", "i"));
        assert_cursor(("", "Hi"), &[Keypress::Left], ("", "Hi"));
        assert_cursor(("Hi", ""), &[Keypress::Right], ("Hi", ""));
    }

    #[test]
    fn alt_b_and_alt_f_move_by_words() {
        assert_cursor(("a ß c", ""), &[Keypress::Alt('b')], ("a ß ", "c"));
        assert_cursor(("a ß c", ""), &[Keypress::Alt('b'), Keypress::Alt('b')], ("a ", "ß c"));
        assert_cursor(("", "a ß  c"), &[Keypress::Alt('f')], ("a", " ß  c"));
        assert_cursor(("", "a ß  c"), &[Keypress::WordRight, Keypress::WordRight], ("a ß", "  c"));
        assert_cursor(("say hello, world", ""), &[Keypress::WordLeft], ("say hello, ", "world"));
    }

    #[test]
    fn backspace_and_delete() {
        assert_cursor(("Hi", ""), &[Keypress::Backspace], ("H", ""));
        assert_cursor(("", "Hi"), &[Keypress::Backspace], ("", "Hi"));
        assert_cursor(("", "Hi"), &[Keypress::Delete], ("", "i"));
        assert_cursor(("Hi", ""), &[Keypress::Delete], ("Hi", ""));
    }

    #[test]
    fn ctrl_d_deletes_forward_and_ends_only_an_empty_line() {
        assert_cursor(("", "Hi"), &[Keypress::Ctrl('d')], ("", "i"));
        assert_eq!(keys_on(&History::default(), ("", ""), &[Keypress::Ctrl('d')]).2, Effect::End);
        assert_eq!(keys_on(&History::default(), ("Hi", ""), &[Keypress::Ctrl('d')]).2, Effect::Draw);
    }

    #[test]
    fn ctrl_w_cuts_back_to_a_blank_alt_backspace_to_a_word() {
        assert_cursor(("echo a/b.c", ""), &[Keypress::Ctrl('w')], ("echo ", ""));
        assert_cursor(("echo a/b.c", ""), &[Keypress::AltBackspace], ("echo a/b.", ""));
        assert_cursor(("echo one  ", ""), &[Keypress::Ctrl('w')], ("echo ", ""));
    }

    #[test]
    fn ctrl_u_and_ctrl_k_cut_to_the_line_s_ends() {
        assert_cursor(("Hello, ", "world"), &[Keypress::Ctrl('u')], ("", "world"));
        assert_cursor(("Hello, ", "world"), &[Keypress::Ctrl('k')], ("Hello, ", ""));
        assert_cursor(("one\ntw", "o"), &[Keypress::Ctrl('u')], ("one\n", "o"));
    }

    #[test]
    fn ctrl_k_at_the_end_of_a_line_joins_the_next() {
        assert_cursor(("one", "\ntwo"), &[Keypress::Ctrl('k')], ("one", "two"));
        assert_cursor(("one", ""), &[Keypress::Ctrl('k')], ("one", ""));
    }

    #[test]
    fn alt_d_cuts_the_next_word() {
        assert_cursor(("Hello, ", "world!"), &[Keypress::Alt('d')], ("Hello, ", "!"));
    }

    #[test]
    fn ctrl_y_puts_back_the_last_cut() {
        assert_cursor(
            ("Hello, ", "world"),
            &[Keypress::Ctrl('k'), Keypress::Ctrl('a'), Keypress::Ctrl('y')],
            ("world", "Hello, "),
        );
        assert_cursor(
            ("one two", ""),
            &[Keypress::Ctrl('w'), Keypress::Ctrl('w'), Keypress::Ctrl('y')],
            ("one ", ""),
        );
        assert_cursor(("", ""), &[Keypress::Ctrl('y')], ("", ""));
    }

    #[test]
    fn the_cut_outlives_the_line() {
        let none = History::default();
        let mut s = State::new("> ", &none, "kept".to_string());
        (s, _) = step(s, Keypress::Ctrl('y'));
        assert_eq!(s.text(), "kept");
        (s, _) = step(s, Keypress::Ctrl('u'));
        assert_eq!(s.cut, "kept");
    }

    #[test]
    fn ctrl_t_swaps_the_characters_around_the_cursor() {
        assert_cursor(("a", "bc"), &[Keypress::Ctrl('t')], ("ba", "c"));
        assert_cursor(("ab", ""), &[Keypress::Ctrl('t')], ("ba", ""));
        assert_cursor(("", "ab"), &[Keypress::Ctrl('t')], ("", "ab"));
    }

    #[test]
    fn tab_alt_enter_and_ctrl_j_insert_themselves() {
        assert_cursor(("a", "b"), &[Keypress::Tab], ("a\t", "b"));
        assert_cursor(("a", "b"), &[Keypress::AltEnter], ("a\n", "b"));
        assert_cursor(("a", "b"), &[Keypress::Ctrl('j')], ("a\n", "b"));
    }

    #[test]
    fn a_paste_is_inserted_whole() {
        assert_cursor(("a", "b"), &[Keypress::Paste("1\n2".into())], ("a1\n2", "b"));
    }

    #[test]
    fn a_paste_too_large_is_left_out_with_a_note() {
        let huge = "x".repeat(MAX_MESSAGE_BYTES);
        let (before, after, effect) = keys_on(&History::default(), ("a", ""), &[Keypress::Paste(huge)]);
        assert_eq!((before.as_str(), after.as_str()), ("a", ""));
        assert!(matches!(effect, Effect::Note(note) if note.contains("left out")));
    }

    #[test]
    fn enter_submits_ctrl_c_cancels_and_the_screen_keys_say_so() {
        assert_eq!(keys_on(&History::default(), ("Hi", ""), &[Keypress::Enter]).2, Effect::Submit);
        assert_eq!(keys_on(&History::default(), ("Hi", ""), &[Keypress::Ctrl('c')]).2, Effect::Cancel);
        assert_eq!(keys_on(&History::default(), ("Hi", ""), &[Keypress::Ctrl('l')]).2, Effect::ClearScreen);
        assert_eq!(keys_on(&History::default(), ("Hi", ""), &[Keypress::Ctrl('z')]).2, Effect::Suspend);
        assert_eq!(keys_on(&History::default(), ("Hi", ""), &[Keypress::Redraw]).2, Effect::Reapply);
    }

    #[test]
    fn ctrl_x_ctrl_e_asks_for_the_external_editor_and_nothing_else_does() {
        assert_eq!(
            keys_on(&History::default(), ("Hi", ""), &[Keypress::Ctrl('x'), Keypress::Ctrl('e')]).2,
            Effect::EditExternally
        );
        let (before, _, effect) =
            keys_on(&History::default(), ("Hi", ""), &[Keypress::Ctrl('x'), Keypress::Char('a')]);
        assert_eq!((before.as_str(), effect), ("Hi", Effect::Draw));
        assert_cursor(("", "Hi"), &[Keypress::Ctrl('e')], ("Hi", ""));
    }

    #[test]
    fn keys_that_do_nothing_change_nothing() {
        assert_cursor(
            ("a", "b"),
            &[Keypress::PageUp, Keypress::PageDown, Keypress::Escape, Keypress::Ctrl('g')],
            ("a", "b"),
        );
    }

    fn history() -> History {
        History::of(&["first", "second", "first again"])
    }

    #[test]
    fn up_and_down_walk_the_history_and_keep_the_draft() {
        let h = history();
        let (before, ..) = keys_on(&h, ("draft", ""), &[Keypress::Up]);
        assert_eq!(before, "first again");
        let (before, ..) =
            keys_on(&h, ("draft", ""), &[Keypress::Up, Keypress::Ctrl('p'), Keypress::Up, Keypress::Up]);
        assert_eq!(before, "first");
        let (before, ..) = keys_on(
            &h,
            ("draft", ""),
            &[Keypress::Up, Keypress::Up, Keypress::Down, Keypress::Ctrl('n'), Keypress::Down],
        );
        assert_eq!(before, "draft");
    }

    #[test]
    fn ctrl_r_finds_the_newest_match_and_again_an_older_one() {
        let h = history();
        let mut keys = vec![Keypress::Ctrl('r')];
        keys.extend(typed("first"));
        let (before, after, _) = keys_on(&h, ("", ""), &keys);
        assert_eq!((before.as_str(), after.as_str()), ("", "first again"));
        keys.push(Keypress::Ctrl('r'));
        let (before, after, _) = keys_on(&h, ("", ""), &keys);
        assert_eq!((before.as_str(), after.as_str()), ("", "first"));
    }

    #[test]
    fn a_search_is_shown_in_the_prompt() {
        let h = history();
        let mut s = State::new("> ", &h, String::new());
        for key in [Keypress::Ctrl('r'), Keypress::Char('z')] {
            (s, _) = step(s, key);
        }
        assert_eq!(s.shown(80).0, "(no match: z) ");
        (s, _) = step(s, Keypress::Backspace);
        assert_eq!(s.shown(80).0, "(search: ) ");
        (s, _) = step(s, Keypress::Char('s'));
        assert_eq!(s.shown(80).0, "(search: s, in 'here') ");
    }

    #[test]
    fn ctrl_g_escape_or_ctrl_c_in_a_search_put_the_text_back() {
        let h = history();
        for cancel in [Keypress::Ctrl('g'), Keypress::Escape, Keypress::Ctrl('c')] {
            let (before, after, effect) =
                keys_on(&h, ("my", " text"), &[Keypress::Ctrl('r'), Keypress::Char('s'), cancel.clone()]);
            assert_eq!(
                (before.as_str(), after.as_str(), effect),
                ("my", " text", Effect::Draw),
                "{cancel:?}"
            );
        }
    }

    #[test]
    fn any_other_key_takes_the_match_and_then_acts() {
        let h = history();
        let (before, after, effect) =
            keys_on(&h, ("", ""), &[Keypress::Ctrl('r'), Keypress::Char('c'), Keypress::Enter]);
        assert_eq!((before.as_str(), after.as_str(), effect), ("second", "", Effect::Submit));
        let (before, ..) = keys_on(
            &h,
            ("", ""),
            &[Keypress::Ctrl('r'), Keypress::Char('c'), Keypress::Ctrl('e'), Keypress::Char('!')],
        );
        assert_eq!(before, "second!");
        // Up from a found entry goes on from where it was found.
        let (before, ..) =
            keys_on(&h, ("", ""), &[Keypress::Ctrl('r'), Keypress::Char('c'), Keypress::Right, Keypress::Up]);
        assert_eq!(before, "first");
    }

    #[test]
    fn words_lines_and_cuts() {
        let mut b = buffer("say hello, world", 16);
        assert_eq!(b.word_start_before(), 11);
        b.cursor = 3;
        assert_eq!(b.word_end_after(), 9);
        b.cursor = 16;
        assert_eq!(b.blank_word_start_before(), 11);
        assert_eq!(b.cut(11, 16), "world");
        assert_eq!(b.chars.iter().collect::<String>(), "say hello, ");
        let b = buffer("one\ntwo\nthree", 5);
        assert_eq!((b.line_start(), b.line_end()), (4, 7));
        let mut b = buffer("ab", 2);
        b.transpose();
        assert_eq!(b.chars, vec!['b', 'a']);
    }

    #[test]
    fn history_keeps_the_draft_and_search_finds_the_newest_match() {
        let history = history();
        let order = history.order();
        assert_eq!(order.find_back("first", 3), Some(2));
        assert_eq!(order.find_back("first", 2), Some(0));
        assert_eq!(order.find_back("none", 3), None);
        let mut s = State::new("> ", &history, String::new());
        s.buffer = buffer("draft", 5);
        s.step_history(-1);
        assert_eq!(s.buffer.chars.iter().collect::<String>(), "first again");
        s.step_history(-1);
        s.step_history(-1);
        s.step_history(-1);
        assert_eq!(s.buffer.chars.iter().collect::<String>(), "first");
        for _ in 0..4 {
            s.step_history(1);
        }
        assert_eq!(s.buffer.chars.iter().collect::<String>(), "draft");
    }
}
