//! The end of a long text, for a resumed conversation: where it left off
//! is the last reply's end, not its start. The end is taken from the
//! start of a Markdown block (after a blank line that is no part of a
//! code block) where one is near enough, so that a table, a list or a
//! code block is drawn whole; else from the start of a line, a code
//! block it falls in opened again; else, in a line longer than the
//! whole, from a word.

/// The end of a text, and what of it is left above.
#[derive(Debug, PartialEq)]
pub(crate) struct End {
    pub(crate) text: String,
    /// Whole lines left above it (0: it starts inside the first line).
    pub(crate) lines_above: usize,
}

impl End {
    /// The note shown before it: what is above, and `whole`, the command
    /// that shows it all.
    pub(crate) fn note(&self, whole: &str) -> String {
        match self.lines_above {
            0 => format!("(the start of this reply not shown: {whole})"),
            1 => format!("(the first line of this reply not shown: {whole})"),
            n => format!("(the first {n} lines of this reply not shown: {whole})"),
        }
    }
}

/// A line of the text: where it starts, and whether a block may start
/// there (the line before it is blank, outside a code block), or else
/// the code block it is inside (its opening line).
struct Line<'a> {
    start: usize,
    block_starts: bool,
    fence: Option<&'a str>,
}

/// The end of `text` within `max_chars` characters and `max_lines`
/// lines; None when the whole of it fits.
pub(crate) fn tail(text: &str, max_chars: usize, max_lines: usize) -> Option<End> {
    let text = text.trim_end();
    let lines = lines_of(text);
    let fits = |start: usize, from_line: usize| {
        lines.len() - from_line <= max_lines && text[start..].chars().count() <= max_chars
    };
    if fits(0, 0) {
        return None;
    }
    // The earliest start that fits: the longest end. A later start
    // always fits when an earlier one does, so the search stops at the
    // first that does not.
    let earliest = |wanted: &dyn Fn(&Line) -> bool| {
        (1..lines.len())
            .rev()
            .take_while(|&at| fits(lines[at].start, at))
            .filter(|&at| wanted(&lines[at]))
            .last()
    };
    if let Some(at) = earliest(&|line| line.block_starts) {
        return Some(End { text: text[lines[at].start..].to_string(), lines_above: at });
    }
    if let Some(at) = earliest(&|_| true) {
        let rest = &text[lines[at].start..];
        let text = match lines[at].fence {
            Some(opening) => format!("{opening}\n{rest}"),
            None => rest.to_string(),
        };
        return Some(End { text, lines_above: at });
    }
    // The last line alone is too long: its end, from a word.
    let last = lines.len() - 1;
    let line = &text[lines[last].start..];
    let skip = line.chars().count().saturating_sub(max_chars.saturating_sub(1));
    let from = line.char_indices().nth(skip).map_or(line.len(), |(at, _)| at);
    let from = line[from..].find(' ').map_or(from, |space| from + space + 1);
    let opening = lines[last].fence.map(|fence| format!("{fence}\n")).unwrap_or_default();
    Some(End { text: format!("{opening}…{}", &line[from..]), lines_above: last })
}

/// The lines of `text`, each with where it starts and what it is to the
/// blocks around it.
fn lines_of(text: &str) -> Vec<Line<'_>> {
    let mut lines = Vec::new();
    let mut start = 0;
    let mut fence: Option<&str> = None;
    let mut after_blank = false;
    for line in text.split('\n') {
        let trimmed = line.trim_start();
        lines.push(Line {
            start,
            block_starts: fence.is_none() && after_blank && !line.trim().is_empty(),
            fence,
        });
        let marker = if trimmed.starts_with("```") {
            Some("```")
        } else if trimmed.starts_with("~~~") {
            Some("~~~")
        } else {
            None
        };
        match (fence, marker) {
            (None, Some(_)) => fence = Some(line),
            (Some(open), Some(m))
                if open.trim_start().starts_with(m) && trimmed.trim_start_matches(m).trim().is_empty() =>
            {
                fence = None
            }
            _ => {}
        }
        after_blank = fence.is_none() && line.trim().is_empty();
        start += line.len() + 1;
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_short_text_is_whole() {
        assert_eq!(tail("one\n\ntwo\n", 100, 10), None);
    }

    #[test]
    fn the_end_starts_at_a_block_whole() {
        let table = "| a | b |\n|---|---|\n| 1 | 2 |\n| 3 | 4 |";
        let text = format!("First a long paragraph that says a lot.\n\nThen more.\n\n{table}\n\nLast words.");
        let end = tail(&text, 60, 10).unwrap();
        assert_eq!(end, End { text: format!("{table}\n\nLast words."), lines_above: 4 });
        assert_eq!(
            end.note("hermes sessions show X"),
            "(the first 4 lines of this reply not shown: hermes sessions show X)"
        );
        // A tighter budget: the last block alone.
        assert_eq!(tail(&text, 20, 10).unwrap().text, "Last words.");
        // Lines count too.
        assert_eq!(tail(&text, 1000, 3).unwrap().text, "Last words.");
    }

    #[test]
    fn a_blank_line_inside_a_code_block_is_no_block_start_and_a_cut_in_it_opens_it_again() {
        let text = "Intro.\n\n```python\ndef f():\n\n    return 1\n\n\nprint(f())\n```";
        // No block starts after "Intro.": the code block from a line, opened again.
        let end = tail(text, 30, 4).unwrap();
        assert_eq!(end.text, "```python\n\n\nprint(f())\n```");
        assert_eq!(end.lines_above, 6);
        let end = tail(text, 100, 9).unwrap();
        assert_eq!(end.text, "```python\ndef f():\n\n    return 1\n\n\nprint(f())\n```");
    }

    #[test]
    fn one_long_line_is_cut_at_a_word() {
        let text = "word ".repeat(100);
        let end = tail(&text, 30, 10).unwrap();
        assert!(end.text.starts_with("…word"), "{:?}", end.text);
        assert!(end.text.chars().count() <= 30, "{:?}", end.text);
        assert_eq!(end.lines_above, 0);
        assert_eq!(end.note("x"), "(the start of this reply not shown: x)");
    }
}
