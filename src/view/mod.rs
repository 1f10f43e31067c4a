//! How sessions are shown to a person: a conversation, one message, a
//! Markdown document. Used by `chat` and the `sessions` verbs alike. On a
//! terminal, text is wrapped at words to its width (`wrap`) and replies
//! are drawn as Markdown; into a pipe or a file it is as stored.

use crate::error::Result;
use crate::store::session::{Header, Image, Message, Session};
use crate::text::{printable, truncate_words};
use crate::time;

pub(crate) mod highlight;
pub(crate) mod list;
pub(crate) mod markdown;
pub(crate) mod pick;
pub(crate) mod reply;
mod tail;

/// Where a view is drawn: a terminal of `width` columns (None: it does
/// not say), with colours or not, replies as Markdown or not.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Screen {
    pub(crate) width: Option<usize>,
    pub(crate) colors: bool,
    pub(crate) markdown: bool,
}

impl Screen {
    /// The terminal stdout shows on (the pager's included), if it does;
    /// `plain`: replies as stored (`render = "plain"`, TERM=dumb).
    pub(crate) fn of_stdout(plain: bool) -> Option<Screen> {
        crate::output::stdout_on_terminal().then(|| Screen {
            width: crate::output::terminal_columns(1),
            colors: crate::text::colors_allowed(),
            markdown: !plain,
        })
    }
}

/// The conversation as a person reads it, a piece at a time to `emit`, its
/// messages taken one at a time from `next` (a session of any length is
/// shown holding one message; one of 16 MiB is drawn and written, not
/// gathered with the rest first): control characters in what was stored
/// are shown, not obeyed (`--json` has the raw text); on a `screen`,
/// wrapped to it and replies drawn (the pieces hold hermes's own escape
/// sequences then).
pub(crate) fn render(
    h: &Header,
    next: &mut dyn FnMut() -> Result<Option<Message>>,
    screen: Option<Screen>,
    emit: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<()> {
    let model = h.model.as_deref().map(|m| format!("  model: {}", printable(m, false))).unwrap_or_default();
    let role = h.role.as_deref().map(|r| format!("  role: {}", printable(r, false))).unwrap_or_default();
    let options = h
        .options
        .as_ref()
        .map(|o| format!("  options: {}", printable(&o.describe(), false)))
        .unwrap_or_default();
    let mut head = format!(
        "{}\nid: {}  messages: {}  last active: {}{model}{role}{options}\n",
        if h.title.is_empty() { "(untitled)".into() } else { printable(&h.title, false) },
        h.id,
        h.message_count,
        time::local_minutes(h.updated_at),
    );
    if let Some(usage) = &h.usage {
        head.push_str(&format!("tokens: {} (the replies that reported them)\n", usage.describe()));
    }
    emit(&fit(&head, screen))?;
    let mut at = 0;
    while let Some(m) = next()? {
        emit("\n")?;
        if m.is_summary() {
            let head = format!("[summary of messages 1-{at}] {}\n", time::local_minutes(m.ts));
            emit(&fit(&head, screen))?;
            emit(&fit(&printable(&m.content, true), screen))?;
        } else {
            render_message_each(&m, Part::Whole, screen, emit)?;
        }
        emit("\n")?;
        at += 1;
    }
    Ok(())
}

/// How much of a message a view shows.
#[derive(Clone, Copy)]
pub(crate) enum Part<'a> {
    Whole,
    /// Its start, at most this many characters.
    Start(usize),
    /// Its end (where a resumed conversation left off): at most `chars`
    /// characters and `lines` lines, from a block's start where one is
    /// near, with a note of what is above and `whole` (the command that
    /// shows it all).
    End {
        chars: usize,
        lines: usize,
        whole: &'a str,
    },
}

/// `[role] time` (`[assistant, interrupted] time` for a reply cut by
/// Ctrl-C; with its tokens, when the server counted them) then the
/// content, or the `part` of it. On a `screen`, wrapped to it, a reply
/// drawn as Markdown.
pub(crate) fn render_message(m: &Message, part: Part, screen: Option<Screen>) -> String {
    let mut text = String::new();
    let _ = render_message_each(m, part, screen, &mut |piece| {
        text.push_str(piece);
        Ok(())
    });
    text
}

/// `render_message`, its heading and its content each given to `emit` as
/// made (a reply of 16 MiB is not copied onto its heading).
fn render_message_each(
    m: &Message,
    part: Part,
    screen: Option<Screen>,
    emit: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<()> {
    let cut = how_it_ended(m);
    let tokens = m.usage.map(|u| format!("  tokens: {}", u.describe())).unwrap_or_default();
    let mut head = format!("[{}{cut}] {}{tokens}\n", printable(&m.role, false), time::local_minutes(m.ts));
    let markdown = screen.is_some_and(|s| s.markdown) && m.role == "assistant";
    let content: std::borrow::Cow<'_, str> = match part {
        Part::Whole => std::borrow::Cow::Borrowed(&m.content),
        Part::Start(max_chars) if markdown => truncate_blocks(&m.content, max_chars).into(),
        Part::Start(max_chars) => truncate_words(&m.content, max_chars).into(),
        Part::End { chars, lines, whole } => match tail::tail(&m.content, chars, lines) {
            None => std::borrow::Cow::Borrowed(&m.content),
            Some(end) => {
                head.push_str(&end.note(whole));
                head.push('\n');
                end.text.into()
            }
        },
    };
    if !m.images().is_empty() {
        // After the text, hermes's own lines: whatever the part shown.
        let named: Vec<String> = m.images().iter().map(Image::describe).collect();
        let after = format!("\n{}", named.join("\n"));
        let content = content.into_owned() + &after;
        return emit_content(&head, &content, markdown, screen, emit);
    }
    emit_content(&head, &content, markdown, screen, emit)
}

/// A message's heading and content (see `render_message_each`).
fn emit_content(
    head: &str,
    content: &str,
    markdown: bool,
    screen: Option<Screen>,
    emit: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<()> {
    match screen {
        None => {
            emit(head)?;
            emit(&printable(content, true))
        }
        Some(screen) if markdown => {
            emit(&fit(head, Some(screen)))?;
            // As a reply streams: its colours kept (or dropped) by the
            // filter, every other character shown through the gate. The
            // filter's copy (if it made one) is let go before the drawing.
            let mut filter = crate::text::TerminalFilter::for_renderer(screen.colors);
            let text = filter.whole(content);
            let coloured = filter.let_sgr_through();
            drop(filter);
            let mut drawn = crate::view::markdown::Renderer::new(screen.colors, screen.width).draw(&text);
            drop(text);
            if coloured {
                drawn.push_str("\x1b[0m"); // what its colours left on ends with it
            }
            emit(&drawn)
        }
        Some(_) => {
            emit(&fit(head, screen))?;
            emit(&fit(&printable(content, true), screen))
        }
    }
}

/// A reply to be drawn as Markdown, cut to at most `max_chars` between
/// two blocks (at a blank line), so that a table or a list is drawn whole
/// or not at all; at a word when no block ends early enough.
fn truncate_blocks(text: &str, max_chars: usize) -> String {
    let Some((end, _)) = text.char_indices().nth(max_chars) else { return text.to_string() };
    match text[..end].rfind("\n\n") {
        Some(at) if at >= end / 4 => format!("{}\n\n…", text[..at].trim_end()),
        _ => truncate_words(text, max_chars),
    }
}

/// Text of hermes's (through the gate already) wrapped to the screen.
fn fit(text: &str, screen: Option<Screen>) -> String {
    crate::wrap::wrapped(text, screen.and_then(|s| s.width), "")
}

/// What `[role, …]` says of a reply: cut short by Ctrl-C, not whole (a
/// cut connection, a silent or failed agent), replaced by `/retry`.
fn how_it_ended(m: &Message) -> String {
    let marks = [
        (m.is_interrupted(), ", interrupted"),
        (m.is_incomplete(), ", incomplete"),
        (m.is_replaced(), ", replaced"),
    ];
    marks.iter().filter(|(on, _)| *on).map(|(_, mark)| *mark).collect()
}

/// Sessions as one Markdown document.
pub(crate) fn markdown(sessions: &[Session]) -> String {
    let mut text = String::new();
    for (i, session) in sessions.iter().enumerate() {
        if i > 0 {
            text.push_str(MARKDOWN_BETWEEN);
        }
        let mut messages = session.messages.iter();
        let _ = markdown_each(&session.header, &mut || Ok(messages.next().cloned()), &mut |piece| {
            text.push_str(piece);
            Ok(())
        });
    }
    text
}

/// What stands between two sessions of one Markdown document.
pub(crate) const MARKDOWN_BETWEEN: &str = "\n---\n\n";

/// One session as Markdown, a piece at a time to `emit`, its messages
/// taken one at a time from `next`.
pub(crate) fn markdown_each(
    h: &Header,
    next: &mut dyn FnMut() -> Result<Option<Message>>,
    emit: &mut dyn FnMut(&str) -> Result<()>,
) -> Result<()> {
    let mut text = format!(
        "# {}\n\n- id: `{}`\n- created: {}\n- last active: {}\n- messages: {}\n",
        if h.title.is_empty() { "(untitled)" } else { &h.title },
        h.id,
        time::local_seconds(h.created_at),
        time::local_seconds(h.updated_at),
        h.message_count
    );
    if let Some(model) = &h.model {
        text.push_str(&format!("- model: `{model}`\n"));
    }
    if let Some(role) = &h.role {
        text.push_str(&format!("- role: `{role}`\n"));
    }
    if let Some(options) = &h.options {
        text.push_str(&format!("- options: `{}`\n", options.describe()));
    }
    if let Some(usage) = &h.usage {
        text.push_str(&format!("- tokens: {}\n", usage.describe()));
    }
    emit(&text)?;
    let mut at = 0;
    while let Some(m) = next()? {
        let cut = how_it_ended(&m);
        let role = if m.is_summary() { format!("summary of messages 1-{at}") } else { m.role.clone() };
        emit(&format!("\n## {role} ({}{cut})\n\n{}\n", time::local_seconds(m.ts), m.content))?;
        for image in m.images() {
            emit(&format!("\n{}\n", image.describe()))?;
        }
        at += 1;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::truncate_blocks;

    #[test]
    fn a_cut_reply_ends_between_blocks_so_a_table_is_whole_or_absent() {
        let table = "| a | b |\n|---|---|\n| 1 | 2 |\n".repeat(20);
        let reply = format!("First a paragraph of some length, which says what follows.\n\n{table}\nAfter.");
        let cut = truncate_blocks(&reply, 200);
        assert_eq!(cut, "First a paragraph of some length, which says what follows.\n\n…");
        // Short enough: whole.
        assert_eq!(truncate_blocks("a\n\nb", 200), "a\n\nb");
        // No block ends early enough: cut at a word, as before.
        let long = "word ".repeat(100);
        assert!(truncate_blocks(&long, 50).ends_with("word…"));
    }
}
