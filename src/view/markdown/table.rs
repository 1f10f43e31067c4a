//! A Markdown table (GitHub's: a header row, a row of `---`, rows, each
//! starting with `|`), held until it ends and then drawn with its columns
//! aligned and fitted to the width, cells wrapped at words within their
//! columns (a column is never narrower than its longest word); where even
//! that cannot fit, each row as lines of "header: value". What
//! is held is bounded (MAX_ROWS, MAX_BYTES: past them the table is drawn
//! and the rest comes as text), and so is what is drawn (a budget in
//! proportion to what came: past it, the lines are drawn as they came).

use super::inline::inline_into;
use super::{BOLD, DIM};
use crate::wrap::{rows, visible_columns, wrapped};

/// The most rows and bytes held before a table is drawn.
const MAX_ROWS: usize = 1000;
const MAX_BYTES: usize = 256 * 1024;

/// A line longer than this is no table's row.
pub(super) const LINE_MAX: usize = 4096;

/// A column is not drawn narrower than this: rows are drawn as records instead.
const MIN_CELL: usize = 6;

/// A table has at most this many columns: a wider one is text (what a
/// row costs is then bounded by the row, not by the header).
const MAX_COLUMNS: usize = 64;

#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum Align {
    Left,
    Center,
    Right,
}

/// The lines of a table, or of what may become one: its header, its
/// delimiter row, its rows, as they came.
pub(super) struct MaybeTable {
    pub(super) lines: Vec<String>,
    /// Its columns' alignments, once its second line said it is a table.
    pub(super) aligns: Option<Vec<Align>>,
    bytes: usize,
}

impl MaybeTable {
    pub(super) fn new(line: String) -> MaybeTable {
        MaybeTable { bytes: line.len(), lines: vec![line], aligns: None }
    }

    /// Take the line after the header: a table, if it is its delimiter
    /// row (as many cells as the header); else it is left to the caller.
    pub(super) fn second(&mut self, line: String) -> Result<(), String> {
        let columns = cells(&self.lines[0]).len();
        match delimiter(&line).filter(|aligns| aligns.len() == columns && columns <= MAX_COLUMNS) {
            Some(aligns) => {
                self.aligns = Some(aligns);
                self.push(line);
                Ok(())
            }
            None => Err(line),
        }
    }

    pub(super) fn push(&mut self, line: String) {
        self.bytes += line.len();
        self.lines.push(line);
    }

    /// Whether it is time to draw it: no more is held.
    pub(super) fn is_full(&self) -> bool {
        self.lines.len() > MAX_ROWS || self.bytes > MAX_BYTES
    }

    /// The table drawn to `width` columns, or None: its lines are to be
    /// drawn as they came (not a table, or one too costly to draw).
    pub(super) fn draw(&self, width: usize, colors: bool) -> Option<String> {
        let aligns = self.aligns.as_ref()?;
        let budget = 8 * self.bytes + 8192;
        let drawn = |line: &str| {
            let mut cells: Vec<String> = cells(line)
                .into_iter()
                .take(aligns.len())
                .map(|cell| {
                    let mut shown = String::new();
                    inline_into(&mut shown, cell, None, true, colors);
                    shown
                })
                .collect();
            cells.resize(aligns.len(), String::new());
            cells
        };
        let head = drawn(&self.lines[0]);
        let body: Vec<Vec<String>> = self.lines[2..].iter().map(|line| drawn(line)).collect();
        let mut natural = vec![1; aligns.len()];
        let mut least = vec![1; aligns.len()];
        for row in std::iter::once(&head).chain(&body) {
            for ((widest, longest), cell) in natural.iter_mut().zip(least.iter_mut()).zip(row) {
                *widest = (*widest).max(visible_columns(cell));
                *longest = (*longest).max(longest_word(cell));
            }
        }
        let seps = 3 * (aligns.len() - 1);
        let layout = Layout { aligns, colors, budget };
        match fit(&natural, &least, width.saturating_sub(seps)) {
            Some(widths) => layout.aligned(&head, &body, &widths),
            None => layout.records(&head, &body, width),
        }
    }
}

/// The cells of a table's line: between its pipes (`\|` is a pipe in a
/// cell), trimmed.
pub(super) fn cells(line: &str) -> Vec<&str> {
    let line = line.trim();
    let line = line.strip_prefix('|').unwrap_or(line);
    let line = match line.strip_suffix('|') {
        Some(inner) if !inner.ends_with('\\') => inner,
        _ => line,
    };
    let mut cells = Vec::new();
    let mut start = 0;
    let b = line.as_bytes();
    for at in 0..b.len() {
        if b[at] == b'|' && (at == 0 || b[at - 1] != b'\\') {
            cells.push(line[start..at].trim());
            start = at + 1;
        }
    }
    cells.push(line[start..].trim());
    cells
}

/// A delimiter row's alignments (`|:--|:-:|--:|`), if it is one.
fn delimiter(line: &str) -> Option<Vec<Align>> {
    cells(line)
        .into_iter()
        .map(|cell| {
            let dashes = cell.trim_start_matches(':').trim_end_matches(':');
            if dashes.is_empty() || !dashes.bytes().all(|b| b == b'-') {
                return None;
            }
            Some(match (cell.starts_with(':'), cell.ends_with(':')) {
                (true, true) => Align::Center,
                (false, true) => Align::Right,
                _ => Align::Left,
            })
        })
        .collect()
}

/// The columns a cell's longest word takes: its column is never
/// narrower, so that no word is cut.
fn longest_word(cell: &str) -> usize {
    cell.split(' ').map(visible_columns).max().unwrap_or(0)
}

/// Columns' widths for `natural` (their widest cells) within `room`: as
/// they are if they fit, else the widest cut down to one width, the same
/// for all of them, but none narrower than its longest word (`least`) or
/// MIN_CELL; None when even that does not fit (the rows are drawn as
/// records then, no word cut).
fn fit(natural: &[usize], least: &[usize], room: usize) -> Option<Vec<usize>> {
    if natural.iter().sum::<usize>() <= room {
        return Some(natural.to_vec());
    }
    let floor: Vec<usize> = natural.iter().zip(least).map(|(&n, &l)| l.max(MIN_CELL.min(n))).collect();
    let width_at =
        |cap: usize| -> Vec<usize> { natural.iter().zip(&floor).map(|(&n, &f)| n.min(cap).max(f)).collect() };
    if floor.iter().sum::<usize>() > room {
        return None;
    }
    // The widest cap that fits: the sum grows with the cap.
    let (mut low, mut high) = (0, natural.iter().copied().max().unwrap_or(0));
    while low < high {
        let cap = (low + high).div_ceil(2);
        if width_at(cap).iter().sum::<usize>() <= room {
            low = cap;
        } else {
            high = cap - 1;
        }
    }
    let mut widths = width_at(low);
    let mut spare = room - widths.iter().sum::<usize>();
    for (width, &wanted) in widths.iter_mut().zip(natural) {
        if spare > 0 && *width < wanted {
            *width += 1;
            spare -= 1;
        }
    }
    Some(widths)
}

/// How a table's cells are laid out.
struct Layout<'a> {
    aligns: &'a [Align],
    colors: bool,
    /// The most bytes drawn: past it, the table is drawn as it came.
    budget: usize,
}

impl Layout<'_> {
    fn styled(&self, style: (&str, &str), text: &str) -> String {
        if self.colors { format!("{}{text}{}", style.0, style.1) } else { text.to_string() }
    }

    /// Columns side by side, `│` between, a rule under the header.
    fn aligned(&self, head: &[String], body: &[Vec<String>], widths: &[usize]) -> Option<String> {
        let mut out = String::new();
        let bold: Vec<String> = head.iter().map(|cell| format!("{}{cell}{}", BOLD.0, BOLD.1)).collect();
        self.row(&mut out, &bold, widths);
        let rule: Vec<String> = widths.iter().map(|&w| "─".repeat(w)).collect();
        out.push_str(&self.styled(DIM, &rule.join("─┼─")));
        out.push('\n');
        for row in body {
            self.row(&mut out, row, widths);
            if out.len() > self.budget {
                return None;
            }
        }
        Some(out)
    }

    /// One row, its cells wrapped within their columns.
    fn row(&self, out: &mut String, cells: &[String], widths: &[usize]) {
        let wrapped: Vec<Vec<String>> = cells
            .iter()
            .zip(widths)
            .map(|(cell, &w)| if visible_columns(cell) <= w { vec![cell.clone()] } else { rows(cell, w) })
            .collect();
        let height = wrapped.iter().map(Vec::len).max().unwrap_or(1);
        let sep = self.styled(DIM, "│");
        for k in 0..height {
            let mut line = String::new();
            for (i, (lines, &width)) in wrapped.iter().zip(widths).enumerate() {
                if i > 0 {
                    line.push_str(&format!(" {sep} "));
                }
                let piece = lines.get(k).map_or("", String::as_str);
                let pad = width.saturating_sub(visible_columns(piece));
                let (before, after) = match self.aligns[i] {
                    Align::Left => (0, pad),
                    Align::Right => (pad, 0),
                    Align::Center => (pad / 2, pad - pad / 2),
                };
                line.push_str(&" ".repeat(before));
                line.push_str(piece);
                line.push_str(&" ".repeat(after));
            }
            out.push_str(line.trim_end_matches(' '));
            out.push('\n');
        }
    }

    /// Too narrow for columns: each row as lines of "header: value",
    /// a blank line between rows.
    fn records(&self, head: &[String], body: &[Vec<String>], width: usize) -> Option<String> {
        let mut out = String::new();
        let width = Some(width.max(MIN_CELL));
        if body.is_empty() {
            for cell in head.iter().filter(|cell| !cell.is_empty()) {
                out.push_str(&wrapped(&format!("{}{cell}{}", BOLD.0, BOLD.1), width, "  "));
                out.push('\n');
            }
        }
        for (r, row) in body.iter().enumerate() {
            if r > 0 {
                out.push('\n');
            }
            for (name, cell) in head.iter().zip(row).filter(|(_, cell)| !cell.is_empty()) {
                let line = if name.is_empty() {
                    cell.clone()
                } else {
                    format!("{}{name}{}: {cell}", BOLD.0, BOLD.1)
                };
                out.push_str(&wrapped(&line, width, "  "));
                out.push('\n');
            }
            if out.len() > self.budget {
                return None;
            }
        }
        Some(out)
    }
}
