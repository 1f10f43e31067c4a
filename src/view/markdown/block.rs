//! What a line of a reply is, read from its start as it streams: a
//! heading, a list item, a quote (nested, `>>`), a rule, a fence, a table's
//! row, the underline that makes the line before it a heading (setext), or
//! a paragraph's line; and how far a list or quote is indented.

use super::MAX_DEPTH;

/// Columns of indentation a list at MAX_DEPTH is drawn with.
pub(super) const MAX_INDENT: usize = 2 * (MAX_DEPTH - 1);

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Block {
    Blank,
    Paragraph,
    Heading(usize),
    /// A list item, and how many lists its line opens (`- - x` is two).
    Bullet(usize),
    Ordered,
    /// A quote: how many quotes deep, and whether a list item is in it.
    Quote(usize, bool),
    Rule,
    FenceOpen,
    FenceClose,
    Code,
    /// A line starting with `|`: a table's row, held until the table ends.
    TableRow,
    /// `===` (1) or `---` (2) under a paragraph's line: that line was a heading.
    Setext(usize),
}

/// The indentation of a list item or quote: `indent` as it came and two
/// columns for each of `more` lists its line opens, but never more than
/// MAX_INDENT columns: what is deeper is drawn there, after `» `.
pub(super) fn nested(indent: &str, more: usize) -> String {
    let columns = indent.chars().map(|c| if c == '\t' { 4 } else { 1 }).sum::<usize>() + 2 * more;
    if columns > MAX_INDENT {
        format!("{}» ", " ".repeat(MAX_INDENT))
    } else if more == 0 {
        indent.to_string()
    } else {
        " ".repeat(columns)
    }
}

/// The list markers a line starts with (`- `, `* `, `+ `), each the start
/// of a list nested in the one before (`- - x`), counted up to one more
/// than MAX_DEPTH, and where what follows them begins. Past that many,
/// markers are text: shown, not dropped.
pub(super) fn list_markers(content: &str) -> (usize, usize) {
    let b = content.as_bytes();
    let (mut count, mut at) = (0, 0);
    while count <= MAX_DEPTH && matches!(b.get(at), Some(b'-' | b'*' | b'+')) {
        let blanks = b[at + 1..].iter().take_while(|&&c| c == b' ' || c == b'\t').count();
        if blanks == 0 {
            break;
        }
        count += 1;
        at += 1 + blanks;
    }
    (count, at)
}

/// The quote marks a line starts with (`>`, `>>`, `> >`, one blank after
/// each taken with it), up to MAX_DEPTH, and where what follows begins.
fn quote_markers(content: &str) -> (usize, usize) {
    let b = content.as_bytes();
    let (mut depth, mut at) = (0, 0);
    while depth < MAX_DEPTH && b.get(at) == Some(&b'>') {
        depth += 1;
        at += 1;
        if b.get(at) == Some(&b' ') {
            at += 1;
        }
    }
    (depth, at)
}

/// What a line is, from its start: None while that start could still be
/// read more than one way (`#` before its space, a `--` that may become a
/// rule). Also where its text begins (after a bullet, a `#`, a `>`).
/// `after_paragraph`: the line before was a paragraph's, which a setext
/// underline makes a heading.
pub(super) fn decide(
    line: &str,
    complete: bool,
    fence: Option<(char, usize)>,
    after_paragraph: bool,
) -> Option<(Block, usize)> {
    let content = line.trim_start_matches(' ');
    let indent = line.len() - content.len();
    if let Some(fence) = fence {
        return in_fence(line, indent, complete, fence);
    }
    if content.is_empty() {
        return if complete { Some((Block::Blank, line.len())) } else { None };
    }
    let first = content.chars().next()?;
    let run = content.chars().take_while(|&c| c == first).count();
    let after = &content[run * first.len_utf8()..];
    let undecided = after.is_empty() && !complete;
    match first {
        '#' if run <= 6 => {
            // Where its text begins is known once that text has begun.
            if after.trim_start().is_empty() && !complete {
                return None;
            }
            if after.is_empty() || after.starts_with([' ', '\t']) {
                let body = line.len() - after.trim_start().len();
                return Some((Block::Heading(run), body));
            }
        }
        '`' | '~' if run >= 3 => {
            if !complete {
                return None; // the language comes with the rest of the line
            }
            if first == '~' || !after.contains('`') {
                return Some((Block::FenceOpen, line.len()));
            }
        }
        '`' | '~' if undecided => return None,
        '=' if after_paragraph && indent <= 3 && after.trim_end_matches([' ', '\t']).is_empty() => {
            return if complete { Some((Block::Setext(1), line.len())) } else { None };
        }
        '>' => return quote(content, indent, complete),
        '|' if indent <= 3 => return Some((Block::TableRow, indent)),
        '-' | '*' | '_' | '+' => {
            let setext = after_paragraph
                && first == '-'
                && run >= 2
                && indent <= 3
                && after.trim_end_matches([' ', '\t']).is_empty();
            if setext && complete {
                return Some((Block::Setext(2), line.len()));
            }
            if let Some(decided) = rule_or_list(line, indent, first, run, complete) {
                return decided;
            }
        }
        '0'..='9' => {
            let digits = content.chars().take_while(char::is_ascii_digit).count();
            let after = &content[digits..];
            if digits <= 9 {
                if after.is_empty() && !complete {
                    return None;
                }
                if let Some(rest) = after.strip_prefix(['.', ')']) {
                    if rest.trim_start().is_empty() && !complete {
                        return None;
                    }
                    if rest.starts_with([' ', '\t']) {
                        return Some((Block::Ordered, line.len() - rest.trim_start().len()));
                    }
                }
            }
        }
        _ => {}
    }
    Some((Block::Paragraph, indent))
}

/// A quote's line (`content` starts with `>`): how deep, and whether a
/// list item is in it; None while only its marks have come.
fn quote(content: &str, indent: usize, complete: bool) -> Option<(Block, usize)> {
    let (depth, at) = quote_markers(content);
    let rest = &content[at..];
    if rest.is_empty() && !complete {
        return None;
    }
    let b = rest.as_bytes();
    if matches!(b.first(), Some(b'-' | b'*' | b'+')) {
        match b.get(1) {
            None if !complete => return None,
            Some(b' ' | b'\t') => {
                let blanks = b[1..].iter().take_while(|&&c| c == b' ' || c == b'\t').count();
                if 1 + blanks == b.len() && !complete {
                    return None; // where its text begins is known once it has begun
                }
                return Some((Block::Quote(depth, true), indent + at + 1 + blanks));
            }
            _ => {}
        }
    }
    Some((Block::Quote(depth, false), indent + at))
}

/// A line starting with `-`, `*`, `_` or `+` at `indent`: a rule, a list
/// item, or (Some(None)) not known yet; None: neither, a paragraph.
fn rule_or_list(
    line: &str,
    indent: usize,
    first: char,
    run: usize,
    complete: bool,
) -> Option<Option<(Block, usize)>> {
    let content = &line[indent..];
    // Only marks so far: a rule or a list, known at the line's end.
    let only_marks = content.chars().all(|c| c == first || c == ' ' || c == '\t');
    let (lists, text_at) = list_markers(content);
    // What follows may still be another list's marker.
    if !complete && (only_marks || matches!(&content[text_at..], "" | "-" | "*" | "+")) {
        return Some(None);
    }
    // A rule is only its marks (and spaces); so many list markers that the
    // lists would be drawn deeper than MAX_DEPTH are lists.
    let marks = content.chars().filter(|&c| c == first).count();
    if only_marks && first != '+' && marks >= 3 && lists <= MAX_DEPTH {
        return Some(Some((Block::Rule, line.len())));
    }
    (run == 1 && first != '_' && lists > 0).then_some(Some((Block::Bullet(lists), indent + text_at)))
}

/// What a line inside a fenced code block is: code, or the fence's close.
fn in_fence(line: &str, indent: usize, complete: bool, fence: (char, usize)) -> Option<(Block, usize)> {
    let (marker, length) = fence;
    let content = &line[indent..];
    if indent > 3 {
        return Some((Block::Code, 0));
    }
    let run = content.chars().take_while(|&c| c == marker).count();
    let after = &content[run * marker.len_utf8()..];
    if after.trim().is_empty() && !complete {
        return None; // spaces and fence marks so far: it may close
    }
    if run >= length && after.trim().is_empty() {
        return Some((Block::FenceClose, line.len()));
    }
    Some((Block::Code, 0))
}
