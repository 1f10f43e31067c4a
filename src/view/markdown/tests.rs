//! The Markdown drawer's tests: every construct, whole and in any two
//! pieces, hostile input, and the wrapping of what it draws.

use super::*;
use block::MAX_INDENT;

/// The whole text rendered at once, and in every split into two pieces
/// the filter could make (never inside a character or an SGR
/// sequence): each must show the same.
fn render(text: &str, colors: bool) -> String {
    render_at(text, colors, None)
}

/// `render`, wrapped to `width` columns.
fn render_at(text: &str, colors: bool, width: Option<usize>) -> String {
    let mut r = Renderer::new(colors, width);
    let whole = r.push(text) + &r.finish();
    let in_sgr = |i: usize| {
        text[..i].rfind('\x1b').is_some_and(|s| sgr_len(&text[s..]).is_some_and(|len| s + len > i))
    };
    for split in (1..text.len()).filter(|&i| text.is_char_boundary(i) && !in_sgr(i)) {
        let mut r = Renderer::new(colors, width);
        let shown = r.push(&text[..split]) + &r.push(&text[split..]) + &r.finish();
        assert_eq!(shown, whole, "split at {split} of {text:?}");
    }
    whole
}

/// What a terminal shows of `text` drawn under NO_COLOR, its attributes
/// (bold, italic, underline) left out.
fn plain(text: &str) -> String {
    unstyled(&render(text, false))
}

/// `plain`, wrapped to `width` columns.
fn plain_at(text: &str, width: usize) -> String {
    unstyled(&render_at(text, false, Some(width)))
}

/// `drawn` without its SGR sequences.
fn unstyled(drawn: &str) -> String {
    let mut out = String::new();
    let mut rest = drawn;
    while let Some(at) = rest.find('\x1b') {
        out.push_str(&rest[..at]);
        rest = &rest[at + sgr_len(&rest[at..]).unwrap_or(1)..];
    }
    out + rest
}

/// A long text rendered at once, and in pieces of 8 KiB as an agent's
/// output is read and handed on by the filter: the same either way.
fn plain_long(text: &str) -> String {
    let mut r = Renderer::new(false, None);
    let whole = r.push(text) + &r.finish();
    let mut filter = crate::text::TerminalFilter::for_renderer(false);
    let mut r = Renderer::new(false, None);
    let mut pieces = String::new();
    for piece in text.as_bytes().chunks(8192) {
        pieces += &r.push(&filter.push(piece));
    }
    pieces += &r.push(&filter.finish());
    assert_eq!(pieces + &r.finish(), whole);
    unstyled(&whole)
}

#[test]
fn headings_emphasis_and_code_spans() {
    assert_eq!(render("# Title\n", true), "\x1b[1;4mTitle\x1b[0m\n");
    assert_eq!(render("## Sub\n", true), "\x1b[1mSub\x1b[0m\n");
    assert_eq!(plain("## Sub\n"), "Sub\n");
    assert_eq!(
        render("a **bold** and *it* `x*y`\n", true),
        "a \x1b[1mbold\x1b[22m and \x1b[3mit\x1b[23m \x1b[36mx*y\x1b[39m\n"
    );
    assert_eq!(plain("a **bold** and _it_ `code`\n"), "a bold and it `code`\n");
    assert_eq!(plain("#hashtag\n"), "#hashtag\n");
}

#[test]
fn marks_that_open_nothing_stay() {
    assert_eq!(plain("2 * 3 * 4\n"), "2 * 3 * 4\n");
    assert_eq!(plain("snake_case_name and a*b\n"), "snake_case_name and a*b\n");
    assert_eq!(plain("an *unclosed mark\n"), "an *unclosed mark\n");
    assert_eq!(plain("`open code\n"), "`open code\n");
    assert_eq!(plain("\\*literal\\*\n"), "*literal*\n");
    assert_eq!(plain("[not a link] and [x]\n"), "[not a link] and [x]\n");
}

#[test]
fn lists_quotes_rules_and_links() {
    assert_eq!(plain("- one\n  * two\n3. three\n"), "• one\n  • two\n3. three\n");
    assert_eq!(plain("> quoted *words*\n"), "│ quoted words\n");
    assert_eq!(plain("---\n"), format!("{}\n", "─".repeat(60)));
    assert_eq!(plain("**bold line**\n"), "bold line\n");
    assert_eq!(plain("see [the docs](https://x.org/a) now\n"), "see the docs (https://x.org/a) now\n");
    assert_eq!(plain("[https://x.org](https://x.org)\n"), "https://x.org\n");
    assert_eq!(render("[docs](u)\n", true), "\x1b[4mdocs\x1b[24m \x1b[2m(u)\x1b[22m\n");
}

#[test]
fn code_blocks_are_set_apart_and_kept_as_they_are() {
    let text = "Try:\n```rust\nfn main() {\n    let a = *b; // **not bold**\n}\n```\nDone.\n";
    let rule = "─".repeat(60);
    assert_eq!(
        plain(text),
        format!(
            "Try:\n── rust {}\nfn main() {{\n    let a = *b; // **not bold**\n}}\n{rule}\nDone.\n",
            "─".repeat(52)
        )
    );
    let shown = render("```\n# not a heading\n```\n", true);
    assert!(shown.contains("\n\x1b[36m# not a heading\x1b[39m\n"), "{shown:?}");
    // An unclosed block ends with the reply.
    assert_eq!(plain("```sh\nls"), format!("── sh {}\nls", "─".repeat(54)));
    assert_eq!(plain("~~~\n```\n~~~\n"), format!("{rule}\n```\n{rule}\n"));
}

#[test]
fn a_line_streams_until_a_mark_opens() {
    let mut r = Renderer::new(false, None);
    assert_eq!(r.push("The answer"), "The answer");
    assert_eq!(r.push(" is **forty"), " is ");
    assert_eq!(r.push("-two** and"), "\x1b[1mforty-two\x1b[22m and");
    assert_eq!(r.push(" more"), " more");
    // Only marks so far: a rule, or a list nested some levels deep.
    assert_eq!(r.push("\n- "), "\n");
    assert_eq!(r.push("x\n#"), "• x\n");
    assert_eq!(r.push("!"), "#!");
    assert_eq!(r.finish(), "");
}

#[test]
fn the_last_line_without_a_newline_is_shown_without_one() {
    assert_eq!(plain("line one\nno newline at end"), "line one\nno newline at end");
    assert_eq!(plain("# head"), "head");
    assert_eq!(render("# head", true), "\x1b[1;4mhead\x1b[0m");
}

#[test]
fn escapes_the_filter_let_through_are_not_markdown() {
    assert_eq!(render("\x1b[31m[red]\x1b[0m *x*\n", false), "\x1b[31m[red]\x1b[0m \x1b[3mx\x1b[23m\n");
}

#[test]
fn control_sequences_are_shown_whole_and_never_read_as_markdown() {
    // ESC \ is one sequence: its backslash escapes nothing after it.
    assert_eq!(plain("a \x1b\\*b* \\*c\n"), "a ^[\\b *c\n");
    assert_eq!(plain("see <http://a \x1b[2J> ok\n"), "see <http://a ^[[2J> ok\n");
    assert_eq!(plain("<http://a \x1b[2J>](u)\n"), "<http://a ^[[2J>](u)\n");
    assert_eq!(plain("x \x1b]0;t*i*tle\x07 y\n"), "x ^[]0;t*i*tle^G y\n");
    assert_eq!(plain("\x1b]8;;http://e\x1b\\link\x1b]8;;\x1b\\\n"), "^[]8;;http://e^[\\link^[]8;;^[\\\n");
    assert_eq!(plain("c1 \u{9b}2J and \u{202e}rev\n"), "c1 \\u{9b}2J and \\u{202e}rev\n");
    assert_eq!(plain("```\x1b]0;x\x07\nls \x1b[2J\n```\n").lines().nth(1), Some("ls ^[[2J"));
    // No span holds a control character: shown, not half obeyed.
    assert_eq!(
        plain("[a](http://x\x1b[2Jy) [b\x07](u) *i\x1b[2Jt*\n"),
        "[a](http://x^[[2Jy) [b^G](u) *i^[[2Jt*\n"
    );
}

#[test]
fn deep_lists_are_drawn_at_most_eight_deep_and_marked() {
    assert_eq!(plain("- - x\n"), "  • x\n");
    assert_eq!(plain("- - -\n"), format!("{}\n", "─".repeat(60)));
    let deep = "- ".repeat(5000);
    let shown = plain_long(&format!("{deep}\n"));
    assert_eq!(shown, format!("{}» • {}\n", " ".repeat(MAX_INDENT), "- ".repeat(5000 - 9)));
    let indented = format!("{}- deep\n", " ".repeat(40));
    assert_eq!(plain(&indented), format!("{}» • deep\n", " ".repeat(MAX_INDENT)));
    assert_eq!(
        plain(&format!("{}1. one\n", " ".repeat(40))),
        format!("{}» 1. one\n", " ".repeat(MAX_INDENT))
    );
    assert_eq!(plain("      - six\n"), "      • six\n");
}

#[test]
fn spans_end_within_hold_max() {
    let far = format!("*{}*\n", "a".repeat(HOLD_MAX + 10));
    assert_eq!(plain(&far), far);
    assert_eq!(plain("_it_\n"), "it\n");
    assert_eq!(plain("\\**b* \\``c`\n"), "*b ``c`\n");
    let links = "[a](".repeat(100_000);
    assert_eq!(plain_long(&links), links);
    // Marks that a piece of 8 KiB ends in are read whole all the same.
    assert_eq!(plain_long(&"\x1b\\*a* ".repeat(20_000)), "^[\\a ".repeat(20_000));
    assert_eq!(plain_long(&"<http://a \x1b[2J> ".repeat(20_000)), "<http://a ^[[2J> ".repeat(20_000));
}

#[test]
fn any_mix_of_marks_and_controls_draws_the_same_in_any_two_pieces() {
    let alphabet = [
        "*",
        "_",
        "`",
        "[",
        "]",
        "(",
        ")",
        "\\",
        "\x1b",
        "a",
        " ",
        "\n",
        "- ",
        "#",
        "> ",
        "1. ",
        "\x1b[31m",
        "\x1b]0;x\x07",
        "\u{9b}",
        "é",
        "```",
        "\t",
        "|",
        "漢",
    ];
    let mut seed = 7u64;
    for _ in 0..300 {
        let mut text = String::new();
        for _ in 0..24 {
            seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            text.push_str(alphabet[(seed >> 33) as usize % alphabet.len()]);
        }
        for (colors, width) in [(false, None), (true, None), (false, Some(7)), (true, Some(12))] {
            let shown = render_at(&text, colors, width);
            let without_sgr = shown.replace("\x1b[31m", "");
            assert!(!without_sgr.chars().any(|c| is_harmful(c, true) && c != '\x1b'), "{text:?}: {shown:?}");
        }
    }
}

#[test]
fn a_long_open_mark_is_given_up_on() {
    let long = format!("*{}", "a".repeat(HOLD_MAX + 10));
    let mut r = Renderer::new(false, None);
    let shown = r.push(&long);
    assert_eq!(shown, long);
}

#[test]
fn emphasis_is_drawn_with_attributes_under_no_color_and_colours_are_not() {
    assert_eq!(
        render("# T\n**b** *i* [l](u) `c`\n", false),
        "\x1b[1;4mT\x1b[0m\n\x1b[1mb\x1b[22m \x1b[3mi\x1b[23m \x1b[4ml\x1b[24m (u) `c`\n"
    );
    let shown = render("```python\nx = 1\n```\n> q\n---\n", false);
    assert!(!shown.contains("\x1b[3"), "no colour under NO_COLOR: {shown:?}");
    assert!(!shown.contains("\x1b[2m"), "{shown:?}");
}

#[test]
fn text_is_wrapped_at_words_with_hanging_indents() {
    assert_eq!(
        plain_at("A paragraph that is longer than the window is wide.\n", 20),
        "A paragraph that is\nlonger than the\nwindow is wide.\n"
    );
    assert_eq!(
        plain_at("- a list item that wraps around\n  1. and a numbered one too\n", 20),
        "• a list item that\n  wraps around\n  1. and a numbered\n     one too\n"
    );
    assert_eq!(plain_at("> a quote that goes on and on\n", 16), "│ a quote that\n│ goes on and on\n");
    assert_eq!(plain_at(">> two deep > and more\n", 12), "│ │ two deep\n│ │ > and\n│ │ more\n");
    // Code is never reflowed; a rule fits the window.
    let code = "```\nlet a_long_line_of_code = 1;\n```\n";
    assert_eq!(plain_at(code, 12).lines().nth(1), Some("let a_long_line_of_code = 1;"));
    assert_eq!(plain_at("***\n", 12), format!("{}\n", "─".repeat(12)));
    // A link's underline is not drawn on the next row's indentation.
    assert_eq!(
        render_at("- see [the docs](u)\n", false, Some(10)),
        "• see \x1b[4mthe\x1b[0m\n  \x1b[4mdocs\x1b[24m (u)\n"
    );
}

#[test]
fn nested_quotes_draw_a_bar_for_each() {
    assert_eq!(plain(">>hello\n"), "│ │ hello\n");
    assert_eq!(plain("> > > deep\n"), "│ │ │ deep\n");
    assert_eq!(plain("> - an item\n>\n"), "│ • an item\n│ \n");
    assert_eq!(plain(&format!("{}x\n", ">".repeat(20))), format!("{}{}x\n", "│ ".repeat(8), ">".repeat(12)));
}

/// `text` drawn in one piece, as a stored message is.
fn whole(text: &str, colors: bool) -> String {
    Renderer::new(colors, None).draw(text)
}

#[test]
fn setext_headings() {
    assert_eq!(whole("Title\n=====\ntext\n", true), "\x1b[1;4mTitle\x1b[0m\ntext\n");
    assert_eq!(whole("Sub\n---\n", false), "\x1b[1mSub\x1b[0m\n");
    assert_eq!(whole("Sub\n--", false), "\x1b[1mSub\x1b[0m");
    assert_eq!(plain("---\n"), format!("{}\n", "─".repeat(60)));
    assert_eq!(plain("\n===\n"), "\n===\n");
    assert_eq!(plain("a\n- b\n"), "a\n• b\n");
    // Drawn live: the line already shown is drawn again over itself.
    let mut r = Renderer::new(false, Some(40)).redrawing();
    assert_eq!(r.push("Title\n"), "Title\n");
    assert_eq!(r.push("===\n"), "\x1b[1A\r\x1b[J\x1b[1;4mTitle\x1b[0m\n");
    // Where it cannot be, the underline is a rule under it.
    let mut r = Renderer::new(false, Some(40));
    assert_eq!(r.push("Title\n"), "Title\n");
    assert_eq!(r.push("==\n"), format!("{}\n", "═".repeat(40)));
}

const TABLE: &str = "\
| Name | Size | Notes |
|:-----|-----:|:-----:|
| a.txt | 12 | `small` |
| b.txt | 3400 | the **big** one |
";

#[test]
fn tables_are_aligned() {
    assert_eq!(
        plain(TABLE),
        "\
Name  │ Size │    Notes
──────┼──────┼────────────
a.txt │   12 │   `small`
b.txt │ 3400 │ the big one\n"
    );
    let shown = render(TABLE, true);
    assert!(shown.starts_with("\x1b[1mName\x1b[22m  \x1b[2m│\x1b[22m"), "{shown:?}");
}

#[test]
fn tables_are_fitted_to_the_width_and_drawn_as_records_when_they_cannot_be() {
    let table = "| Key | Meaning |\n|---|---|\n| wrap | text is broken at words to fit the window |\n";
    assert_eq!(
        plain_at(table, 30),
        "\
Key  │ Meaning
─────┼────────────────────────
wrap │ text is broken at words
     │ to fit the window\n"
    );
    let wide =
        "| a | b | c | d | e |\n|-|-|-|-|-|\n| one two | three | four five six | seven | eight nine |\n";
    assert_eq!(plain_at(wide, 24), "a: one two\nb: three\nc: four five six\nd: seven\ne: eight nine\n");
}

#[test]
fn no_cell_word_is_cut_a_column_is_as_wide_as_its_longest_word_or_the_rows_are_records() {
    let table = "\
| Protocol | Throughput | Latency | Notes |
|---|---|---|---|
| HTTP/2 | high | low | ubiquitous, multiplexed streams |
| WebSocket | medium | lowest | full duplex |
";
    // At 40 columns the longest words (WebSocket, Throughput, Latency,
    // multiplexed) and the bars take 46: records.
    assert_eq!(
        plain_at(table, 40),
        "\
Protocol: HTTP/2
Throughput: high
Latency: low
Notes: ubiquitous, multiplexed streams

Protocol: WebSocket
Throughput: medium
Latency: lowest
Notes: full duplex\n"
    );
    // At 56 they fit, the widest column wrapped at its words.
    assert_eq!(
        plain_at(table, 56),
        "\
Protocol  │ Throughput │ Latency │ Notes
──────────┼────────────┼─────────┼──────────────────────
HTTP/2    │ high       │ low     │ ubiquitous,
          │            │         │ multiplexed streams
WebSocket │ medium     │ lowest  │ full duplex\n"
    );
    // At any width every word is drawn whole.
    for width in 20..100 {
        let drawn = plain_at(table, width);
        let tokens: Vec<&str> =
            drawn.split(|c: char| c.is_whitespace() || c == '│').map(|t| t.trim_end_matches(':')).collect();
        for word in table.split(|c: char| c.is_whitespace() || c == '|').filter(|w| !w.starts_with('-')) {
            assert!(tokens.contains(&word), "{word:?} not whole at {width}:\n{drawn}");
        }
    }
}

#[test]
fn what_only_looks_like_a_table_is_text() {
    assert_eq!(plain("| not a table\nnext\n"), "| not a table\nnext\n");
    assert_eq!(plain("| a | b |\n| c | d |\n"), "| a | b |\n| c | d |\n");
    assert_eq!(plain("| a \\| b |\n|---|\n| c |"), "a | b\n─────\nc\n");
    // A table ends at the first line that is not a row.
    assert_eq!(plain("|a|\n|-|\n|b|\ntext\n"), "a\n─\nb\ntext\n");
}

#[test]
fn fenced_code_is_highlighted_with_colours_only() {
    let text = "```python\ndef f():  # hi\n    return \"x\" + 1\n```\n";
    let shown = render(text, true);
    assert!(shown.contains("\n\x1b[35mdef\x1b[39m f():  \x1b[90m# hi\x1b[39m\n"), "{shown:?}");
    assert!(shown.contains("\x1b[32m\"x\"\x1b[39m + \x1b[33m1\x1b[39m\n"), "{shown:?}");
    assert_eq!(unstyled(&shown), unstyled(&render(text, false)));
    assert!(!render(text, false).contains('\x1b'));
    // A line too long to wait for is drawn as it comes, plain.
    let long = format!("```rust\nlet x = \"{}\";\n```\n", "a".repeat(CODE_HOLD));
    assert!(!render(&long, true).contains("\x1b[32m"));
}

#[test]
fn tables_cost_what_their_rows_hold() {
    // Wider than MAX_COLUMNS: text, whatever follows.
    let wide = format!("{}|\n{}|\n|\n", "|a".repeat(100), "|-".repeat(100));
    assert_eq!(plain(&wide), wide);
    // A table of many empty rows and long headers: drawn within its
    // budget, or as it came; never more than a few times what came.
    let head = format!("{}|\n{}|\n", "| a long column name ".repeat(64), "|-".repeat(64));
    let text = head + &"|\n".repeat(5000);
    let shown = plain_long(&text);
    assert!(shown.len() < 10 * text.len(), "{} for {}", shown.len(), text.len());
}
