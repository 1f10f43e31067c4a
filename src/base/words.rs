//! Words: a line split into words as a shell reads it (quotes group, a
//! backslash escapes), a word quoted so a shell reads it back whole, and
//! words filled into lines of a width.

/// `line`'s words as a POSIX shell reads them: blanks part them; `'...'`
/// keeps everything inside; `"..."` keeps everything but `\"`, `\\`, `\$`
/// and `` \` ``, which lose their backslash; outside quotes a backslash
/// keeps the next character. No expansion of any kind. Why not, for a
/// quote left open or a backslash at the end.
pub(crate) fn split(line: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    let mut word: Option<String> = None;
    let mut chars = line.chars();
    while let Some(c) = chars.next() {
        match c {
            ' ' | '\t' | '\n' => {
                if let Some(done) = word.take() {
                    words.push(done);
                }
            }
            '\'' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('\'') => break,
                        Some(c) => word.push(c),
                        None => return Err("a quote (') left open".to_string()),
                    }
                }
            }
            '"' => {
                let word = word.get_or_insert_with(String::new);
                loop {
                    match chars.next() {
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some(c @ ('"' | '\\' | '$' | '`')) => word.push(c),
                            Some(c) => {
                                word.push('\\');
                                word.push(c);
                            }
                            None => return Err("a quote (\") left open".to_string()),
                        },
                        Some(c) => word.push(c),
                        None => return Err("a quote (\") left open".to_string()),
                    }
                }
            }
            '\\' => match chars.next() {
                Some(c) => word.get_or_insert_with(String::new).push(c),
                None => return Err("a backslash at the end".to_string()),
            },
            c => word.get_or_insert_with(String::new).push(c),
        }
    }
    words.extend(word);
    Ok(words)
}

/// `text` as one word a shell reads back as it is: bare when it is only
/// letters, digits and `._-/`, else in single quotes.
pub(crate) fn quoted(text: &str) -> String {
    if !text.is_empty() && text.chars().all(|c| c.is_ascii_alphanumeric() || "._-/".contains(c)) {
        return text.to_string();
    }
    format!("'{}'", text.replace('\'', "'\\''"))
}

/// `text`'s words in lines of at most `width` columns (a longer word
/// stands alone on its line).
pub(crate) fn fill(text: &str, width: usize) -> String {
    hanging("", text, width)
}

/// `head`, then `text`'s words filled after it to `width` columns, each
/// further line indented as far as `head` is wide (`wrap`, the one
/// wrapping function).
pub(crate) fn hanging(head: &str, text: &str, width: usize) -> String {
    let indent = " ".repeat(crate::text::columns_of(head));
    let words: Vec<&str> = text.split_whitespace().collect();
    crate::wrap::wrapped(&format!("{head}{}", words.join(" ")), Some(width), &indent).trim_end().to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_as_a_shell_reads_them() {
        assert_eq!(split(r#"api design"#).unwrap(), ["api", "design"]);
        assert_eq!(split(r#""quoted title""#).unwrap(), ["quoted title"]);
        assert_eq!(split(r#"'it''s' "a \"b\" \\ \n""#).unwrap(), ["its", r#"a "b" \ \n"#]);
        assert_eq!(split(r"one\ word  x").unwrap(), ["one word", "x"]);
        assert_eq!(split(r#""""#).unwrap(), [""]);
        assert!(split("'open").is_err());
        assert!(split("\"open").is_err());
        assert!(split("end\\").is_err());
    }

    #[test]
    fn quoted_words_read_back_whole() {
        for text in ["plain", "two words", "it's", "", "a\"b", "tab\there"] {
            assert_eq!(split(&quoted(text)).unwrap(), [text]);
        }
        assert_eq!(quoted("redis"), "redis");
    }

    #[test]
    fn filled_and_hanging() {
        assert_eq!(fill("a b c", 3), "a b\nc");
        assert_eq!(
            hanging("/new [TITLE]  ", "start a new session", 20),
            "/new [TITLE]  start\n              a new\n              session"
        );
    }
}
