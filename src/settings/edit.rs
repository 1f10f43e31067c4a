//! Rewriting config.toml for `hermes config set` and `unset`: the key's
//! line is replaced where it stands (its indentation and trailing comment
//! kept), a new key is added at the end, and every other line, comments and
//! blank lines included, stays byte for byte. Values are written as TOML
//! basic strings.

use super::Key;
use super::file::parse_line;

/// `text` with `key` set to `value`: its line rewritten, or a line added at
/// the end. A line that does not parse is left as it is (`load` reports it).
pub(crate) fn set(text: &str, key: Key, value: &str) -> String {
    let mut out = String::with_capacity(text.len() + key.name().len() + value.len() + 8);
    let mut done = false;
    let mut in_table = false;
    for line in text.split_inclusive('\n') {
        // A new key goes before the first table (`[servers.NAME]`), whose
        // keys are its own.
        if !done && !in_table && line.trim_start().starts_with('[') {
            in_table = true;
            out.push_str(&assignment(key, value));
            out.push('\n');
            done = true;
        }
        if !done && !in_table && key_of(line).as_deref() == Some(key.name()) {
            let body = line.trim_end_matches(['\n', '\r']);
            let indent = &body[..body.len() - body.trim_start().len()];
            out.push_str(indent);
            out.push_str(&assignment(key, value));
            if let Some(comment) = trailing_comment(body) {
                out.push_str("  ");
                out.push_str(comment);
            }
            out.push_str(&line[body.len()..]);
            done = true;
        } else {
            out.push_str(line);
        }
    }
    if !done {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(&assignment(key, value));
        out.push('\n');
    }
    out
}

/// `text` without the line that sets `key`, and whether there was one.
pub(crate) fn unset(text: &str, key: Key) -> (String, bool) {
    let mut found = false;
    let mut in_table = false;
    let kept = text
        .split_inclusive('\n')
        .filter(|line| {
            in_table |= line.trim_start().starts_with('[');
            let this = !found && !in_table && key_of(line).as_deref() == Some(key.name());
            found |= this;
            !this
        })
        .collect();
    (kept, found)
}

/// Why `text` cannot be config.toml: over `limit` bytes. Names the key
/// whose line is longest (most likely the culprit: a system prompt), and
/// says that nothing was written.
pub(crate) fn too_large(text: &str, limit: u64) -> crate::error::Error {
    let kib = |n: usize| n.div_ceil(1024);
    let largest =
        text.split_inclusive('\n').filter_map(|l| Some((key_of(l)?, l.len()))).max_by_key(|(_, n)| *n);
    let mut why = format!(
        "config.toml would be {} KiB, over the {} KiB a config file may be; nothing was written",
        kib(text.len()),
        limit >> 10
    );
    if let Some((key, n)) = largest {
        why.push_str(&format!(" (the line of '{key}' alone is {} KiB)", kib(n)));
        if Key::parse(&key) == Some(Key::System) {
            why.push_str(". A long system prompt belongs in a file: hermes chat --system-file FILE");
        }
    }
    crate::error::Error::TooLarge(why)
}

/// `key = "value"`, the value a TOML basic string.
pub(crate) fn assignment(key: Key, value: &str) -> String {
    format!("{key} = {}", basic_string(value))
}

/// A TOML basic string: quotes, backslashes and control characters escaped.
pub(crate) fn basic_string(value: &str) -> String {
    let mut s = String::with_capacity(value.len() + 2);
    s.push('"');
    for c in value.chars() {
        match c {
            '"' => s.push_str("\\\""),
            '\\' => s.push_str("\\\\"),
            '\n' => s.push_str("\\n"),
            '\t' => s.push_str("\\t"),
            '\r' => s.push_str("\\r"),
            c if c.is_control() => s.push_str(&format!("\\u{:04X}", c as u32)),
            c => s.push(c),
        }
    }
    s.push('"');
    s
}

/// The key a line sets, if it is a well-formed `key = "value"` line.
fn key_of(line: &str) -> Option<String> {
    parse_line(line.trim_end_matches(['\n', '\r'])).ok().flatten().map(|(key, _)| key)
}

/// The `# ...` after a line's value, found by parsing the value away.
fn trailing_comment(line: &str) -> Option<&str> {
    // parse_line accepted the line: the value is one quoted string, so the
    // comment is the first '#' after its closing quote.
    let rest = line.split_once('=')?.1.trim_start();
    let quote = rest.chars().next()?;
    let mut escaped = false;
    for (i, c) in rest.char_indices().skip(1) {
        match c {
            '\\' if quote == '"' && !escaped => escaped = true,
            c if c == quote && !escaped => {
                let after = rest[i + 1..].trim_start();
                return after.starts_with('#').then_some(after);
            }
            _ => escaped = false,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn set_replaces_the_line_in_place_keeping_the_rest() {
        let text = "# my settings\n\nagent = \"llm\"   # the agent\n  model = 'x'\nsystem = \"be brief\"\n";
        assert_eq!(
            set(text, Key::Model, "gpt \"4\""),
            "# my settings\n\nagent = \"llm\"   # the agent\n  model = \"gpt \\\"4\\\"\"\nsystem = \"be \
                brief\"\n"
        );
        assert_eq!(
            set(text, Key::Agent, "openai-compatible"),
            "# my settings\n\nagent = \"openai-compatible\"  # the agent\n  model = 'x'\nsystem = \"be \
                brief\"\n"
        );
    }

    #[test]
    fn set_adds_a_new_key_at_the_end() {
        assert_eq!(set("", Key::Model, "m"), "model = \"m\"\n");
        assert_eq!(set("# c", Key::Model, "m"), "# c\nmodel = \"m\"\n");
        assert_eq!(set("agent = \"a\"\r\n", Key::Model, "m"), "agent = \"a\"\r\nmodel = \"m\"\n");
        // A commented-out line is a comment, not the key.
        assert_eq!(set("# model = \"old\"\n", Key::Model, "new"), "# model = \"old\"\nmodel = \"new\"\n");
    }

    #[test]
    fn set_keeps_crlf_and_comments_with_quotes_in_values() {
        assert_eq!(set("model = \"a#b\" # c \"q\"\r\n", Key::Model, "z"), "model = \"z\"  # c \"q\"\r\n");
        assert_eq!(set("model = \"a\\\"#\"\n", Key::Model, "z"), "model = \"z\"\n");
    }

    #[test]
    fn what_set_writes_reads_back_as_the_value() {
        for value in ["plain", "a \"quoted\" \\ path", "two\nlines\tand\u{7}bell", "中文 é", ""] {
            let text = set("# header\n", Key::System, value);
            let line = text.lines().nth(1).unwrap();
            assert_eq!(parse_line(line), Ok(Some(("system".to_string(), value.to_string()))), "{value:?}");
        }
    }

    #[test]
    fn the_keys_of_a_server_table_are_its_own() {
        let text = "model = \"a\"\n\n[servers.work]\nbase_url = \"https://w/v1\"\n";
        assert_eq!(
            set(text, Key::BaseUrl, "http://h/v1"),
            "model = \"a\"\n\nbase_url = \"http://h/v1\"\n[servers.work]\nbase_url = \"https://w/v1\"\n"
        );
        assert_eq!(unset(text, Key::BaseUrl), (text.to_string(), false));
    }

    #[test]
    fn unset_removes_only_that_line() {
        let text = "agent = \"a\"\n# keep\nmodel = \"m\"\n";
        assert_eq!(unset(text, Key::Model), ("agent = \"a\"\n# keep\n".to_string(), true));
        assert_eq!(unset(text, Key::System), (text.to_string(), false));
    }
}
