//! Fenced code in colour: the keywords, strings, comments and numbers of
//! the common languages (sh, Python, Rust, JavaScript and TypeScript,
//! JSON, Go, C), and a diff's added, removed and hunk lines. Hand-made and
//! small: one line at a time, left to right, what a line leaves open (a
//! block comment, a string that goes on) carried to the next; a control
//! sequence is passed over whole, never read as code. Only with colours:
//! never under NO_COLOR, nor with `--plain` (nothing is drawn then).

/// What a piece of a line is.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Token {
    Keyword,
    Str,
    Comment,
    Number,
    /// A JSON object's key.
    Key,
    /// A diff's lines: added, removed, a hunk's head, a file's.
    Added,
    Removed,
    Hunk,
    Meta,
}

impl Token {
    /// The SGR sequences that start and end it.
    pub(crate) fn colour(self) -> (&'static str, &'static str) {
        match self {
            Token::Keyword => ("\x1b[35m", "\x1b[39m"),
            Token::Str | Token::Added => ("\x1b[32m", "\x1b[39m"),
            Token::Comment => ("\x1b[90m", "\x1b[39m"),
            Token::Number => ("\x1b[33m", "\x1b[39m"),
            Token::Key => ("\x1b[34m", "\x1b[39m"),
            Token::Removed => ("\x1b[31m", "\x1b[39m"),
            Token::Hunk => ("\x1b[36m", "\x1b[39m"),
            Token::Meta => ("\x1b[1m", "\x1b[22m"),
        }
    }
}

/// A language as the highlighter reads it.
struct Lang {
    names: &'static [&'static str],
    keywords: &'static [&'static str],
    /// What starts a comment to the line's end (`#` only where a word starts).
    line_comment: &'static str,
    block_comment: Option<(&'static str, &'static str)>,
    /// Quotes that open a string; those in `spanning` may go on past the line.
    quotes: &'static str,
    spanning: &'static str,
}

const LANGS: &[Lang] = &[
    Lang {
        names: &["sh", "bash", "zsh", "shell", "console", "shellsession", "ksh"],
        keywords: &[
            "if", "then", "else", "elif", "fi", "for", "while", "until", "do", "done", "case", "esac", "in",
            "function", "return", "local", "export", "readonly", "select",
        ],
        line_comment: "#",
        block_comment: None,
        quotes: "'\"`",
        spanning: "'\"`",
    },
    Lang {
        names: &["python", "py", "python3", "py3"],
        keywords: &[
            "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del", "elif",
            "else", "except", "False", "finally", "for", "from", "global", "if", "import", "in", "is",
            "lambda", "None", "nonlocal", "not", "or", "pass", "raise", "return", "True", "try", "while",
            "with", "yield", "match", "case", "self",
        ],
        line_comment: "#",
        block_comment: None,
        quotes: "'\"",
        spanning: "",
    },
    Lang {
        names: &["rust", "rs"],
        keywords: &[
            "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
            "false", "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub",
            "ref", "return", "self", "Self", "static", "struct", "super", "trait", "true", "type", "unsafe",
            "use", "where", "while",
        ],
        line_comment: "//",
        block_comment: Some(("/*", "*/")),
        quotes: "\"'",
        spanning: "\"",
    },
    Lang {
        names: &["javascript", "js", "typescript", "ts", "jsx", "tsx", "mjs", "cjs", "node"],
        keywords: &[
            "async",
            "await",
            "break",
            "case",
            "catch",
            "class",
            "const",
            "continue",
            "debugger",
            "default",
            "delete",
            "do",
            "else",
            "enum",
            "export",
            "extends",
            "false",
            "finally",
            "for",
            "from",
            "function",
            "if",
            "implements",
            "import",
            "in",
            "instanceof",
            "interface",
            "let",
            "new",
            "null",
            "of",
            "private",
            "protected",
            "public",
            "readonly",
            "return",
            "static",
            "super",
            "switch",
            "this",
            "throw",
            "true",
            "try",
            "type",
            "typeof",
            "undefined",
            "var",
            "void",
            "while",
            "yield",
        ],
        line_comment: "//",
        block_comment: Some(("/*", "*/")),
        quotes: "'\"`",
        spanning: "`",
    },
    Lang {
        names: &["json", "jsonc", "json5", "jsonl"],
        keywords: &["true", "false", "null"],
        line_comment: "//",
        block_comment: Some(("/*", "*/")),
        quotes: "\"",
        spanning: "",
    },
    Lang {
        names: &["go", "golang"],
        keywords: &[
            "break",
            "case",
            "chan",
            "const",
            "continue",
            "default",
            "defer",
            "else",
            "fallthrough",
            "false",
            "for",
            "func",
            "go",
            "goto",
            "if",
            "import",
            "interface",
            "iota",
            "map",
            "nil",
            "package",
            "range",
            "return",
            "select",
            "struct",
            "switch",
            "true",
            "type",
            "var",
        ],
        line_comment: "//",
        block_comment: Some(("/*", "*/")),
        quotes: "\"'`",
        spanning: "`",
    },
    Lang {
        names: &["c", "h", "cpp", "c++", "cc", "cxx", "hpp", "objc"],
        keywords: &[
            "auto",
            "bool",
            "break",
            "case",
            "char",
            "class",
            "const",
            "continue",
            "default",
            "delete",
            "do",
            "double",
            "else",
            "enum",
            "extern",
            "false",
            "float",
            "for",
            "goto",
            "if",
            "inline",
            "int",
            "long",
            "namespace",
            "new",
            "NULL",
            "nullptr",
            "private",
            "public",
            "register",
            "return",
            "short",
            "signed",
            "sizeof",
            "static",
            "struct",
            "switch",
            "template",
            "this",
            "true",
            "typedef",
            "union",
            "unsigned",
            "using",
            "virtual",
            "void",
            "volatile",
            "while",
        ],
        line_comment: "//",
        block_comment: Some(("/*", "*/")),
        quotes: "\"'",
        spanning: "",
    },
];

/// What a line left open for the next.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Open {
    Nothing,
    Comment,
    /// A string, and what closes it (`"`, `'''`, a backtick).
    Str(&'static str),
}

/// The highlighter of one fenced block.
pub(crate) struct Highlighter {
    lang: Option<&'static Lang>,
    open: Open,
}

/// The highlighter for a fence's language, if it is one of those known.
pub(crate) fn for_language(name: &str) -> Option<Highlighter> {
    let name = name.to_ascii_lowercase();
    if matches!(name.as_str(), "diff" | "patch" | "udiff") {
        return Some(Highlighter { lang: None, open: Open::Nothing });
    }
    let lang = LANGS.iter().find(|lang| lang.names.contains(&name.as_str()))?;
    Some(Highlighter { lang: Some(lang), open: Open::Nothing })
}

/// The closing quotes a string may have, longest first.
const CLOSERS: &[&str] = &["\"\"\"", "'''", "\"", "'", "`"];

impl Highlighter {
    /// The pieces of `line` (one whole line of code) to colour: start,
    /// end and what they are, in order, none overlapping.
    pub(crate) fn spans(&mut self, line: &str) -> Vec<(usize, usize, Token)> {
        let Some(lang) = self.lang else { return diff_line(line) };
        let mut spans = Vec::new();
        let mut at = self.go_on(line, &mut spans);
        let b = line.as_bytes();
        while at < b.len() {
            let rest = &line[at..];
            let c = b[at];
            let after_word = at > 0 && is_word(b[at - 1]);
            let next = if !(0x20..0x7f).contains(&c) {
                at + crate::text::sequence_len(rest).unwrap_or(rest.len()).max(1)
            } else if rest.starts_with(lang.line_comment)
                && (lang.line_comment != "#" || at == 0 || b[at - 1] == b' ' || b[at - 1] == b'\t')
            {
                spans.push((at, line.len(), Token::Comment));
                line.len()
            } else if let Some((open, close)) = lang.block_comment.filter(|(open, _)| rest.starts_with(open))
            {
                match rest[open.len()..].find(close) {
                    Some(end) => spans.push((at, at + open.len() + end + close.len(), Token::Comment)),
                    None => {
                        self.open = Open::Comment;
                        spans.push((at, line.len(), Token::Comment));
                    }
                }
                spans.last().map_or(line.len(), |s| s.1)
            } else if lang.quotes.contains(c as char) && !(c == b'\'' && is_lifetime(lang, rest)) {
                self.string(lang, line, at, &mut spans)
            } else if c.is_ascii_digit() && !after_word {
                let end = at + rest.bytes().take_while(|&b| is_word(b) || b == b'.').count();
                spans.push((at, end, Token::Number));
                end
            } else if is_word(c) && !after_word {
                let end = at + rest.bytes().take_while(|&b| is_word(b)).count();
                if lang.keywords.contains(&&line[at..end]) {
                    spans.push((at, end, Token::Keyword));
                }
                end
            } else if c == b'#' && lang.names[0] == "c" && line[..at].trim().is_empty() {
                let end = at + 1 + rest[1..].bytes().take_while(|&b| is_word(b)).count();
                spans.push((at, end, Token::Keyword));
                end
            } else {
                at + 1
            };
            at = next;
        }
        spans
    }

    /// What the line before left open, carried on; where the rest begins.
    fn go_on(&mut self, line: &str, spans: &mut Vec<(usize, usize, Token)>) -> usize {
        let close = match self.open {
            Open::Nothing => return 0,
            Open::Comment => self.lang.and_then(|l| l.block_comment).map_or("*/", |(_, close)| close),
            Open::Str(close) => close,
        };
        let token = if self.open == Open::Comment { Token::Comment } else { Token::Str };
        let end = match self.open {
            Open::Str(_) => {
                closing(line, 0, close, !(close == "'" && self.lang.is_some_and(|l| l.names[0] == "sh")))
            }
            _ => line.find(close).map(|at| at + close.len()),
        };
        match end {
            Some(end) => {
                self.open = Open::Nothing;
                spans.push((0, end, token));
                end
            }
            None => {
                spans.push((0, line.len(), token));
                line.len()
            }
        }
    }

    /// The string opening at `at`: where it ends (the line's end when it
    /// goes on, left open if its quote may span lines).
    fn string(
        &mut self,
        lang: &Lang,
        line: &str,
        at: usize,
        spans: &mut Vec<(usize, usize, Token)>,
    ) -> usize {
        let rest = &line[at..];
        let quote = CLOSERS.iter().copied().find(|q| rest.starts_with(q)).unwrap_or("\"");
        let triple = quote.len() == 3 && lang.names[0] == "python";
        let quote = if quote.len() == 3 && !triple { &quote[..1] } else { quote };
        let escapes = !(quote == "'" && lang.names[0] == "sh");
        let end = closing(line, at + quote.len(), quote, escapes);
        let end = end.unwrap_or_else(|| {
            if triple || lang.spanning.contains(quote) {
                self.open = Open::Str(quote);
            }
            line.len()
        });
        let key = lang.names[0] == "json" && line[end..].trim_start().starts_with(':');
        spans.push((at, end, if key { Token::Key } else { Token::Str }));
        end
    }
}

/// Where the string that `quote` closes ends, from `from` on (with
/// `escapes`, a quote after a backslash closes nothing).
fn closing(line: &str, from: usize, quote: &str, escapes: bool) -> Option<usize> {
    let b = line.as_bytes();
    let mut at = from;
    while at < b.len() {
        if b[at] == b'\\' && escapes {
            at += 2;
            continue;
        }
        if line[at..].starts_with(quote) {
            return Some(at + quote.len());
        }
        at += 1;
    }
    None
}

/// A Rust lifetime (`'a`), not a character (`'a'`, `'\n'`).
fn is_lifetime(lang: &Lang, rest: &str) -> bool {
    let b = rest.as_bytes();
    lang.names[0] == "rust" && b.get(1) != Some(&b'\\') && b.get(2) != Some(&b'\'')
}

fn is_word(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_'
}

/// A diff's line, whole: added, removed, a hunk's head or a file's.
fn diff_line(line: &str) -> Vec<(usize, usize, Token)> {
    let token = if ["+++", "---", "diff ", "index "].iter().any(|p| line.starts_with(p)) {
        Token::Meta
    } else if line.starts_with('+') {
        Token::Added
    } else if line.starts_with('-') {
        Token::Removed
    } else if line.starts_with("@@") {
        Token::Hunk
    } else {
        return Vec::new();
    };
    vec![(0, line.len(), token)]
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `lines` of `language` with each coloured piece marked `<T:...>`.
    fn marked(language: &str, lines: &str) -> String {
        let mut h = for_language(language).unwrap();
        let mut out = String::new();
        for line in lines.lines() {
            let mut at = 0;
            for (start, end, token) in h.spans(line) {
                out.push_str(&line[at..start]);
                let t = format!("{token:?}");
                out.push_str(&format!("<{}:{}>", &t[..1], &line[start..end]));
                at = end;
            }
            out.push_str(&line[at..]);
            out.push('\n');
        }
        out
    }

    #[test]
    fn python() {
        assert_eq!(
            marked("python", "def f(x):  # doc\n    return \"a#b\" + 42\n"),
            "<K:def> f(x):  <C:# doc>\n    <K:return> <S:\"a#b\"> + <N:42>\n"
        );
        assert_eq!(
            marked("py", "s = \"\"\"one\ntwo\"\"\" if x else 'y'\n"),
            "s = <S:\"\"\"one>\n<S:two\"\"\"> <K:if> x <K:else> <S:'y'>\n"
        );
    }

    #[test]
    fn rust_c_go_and_javascript() {
        assert_eq!(
            marked("rust", "fn f<'a>(s: &'a str) -> char { 'x' } // end\n"),
            "<K:fn> f<'a>(s: &'a str) -> char { <S:'x'> } <C:// end>\n"
        );
        assert_eq!(
            marked("c", "#include <stdio.h>\nint x = 0x1F; /* a\nb */ y\n"),
            "<K:#include> <stdio.h>\n<K:int> x = <N:0x1F>; <C:/* a>\n<C:b */> y\n"
        );
        assert_eq!(marked("go", "func main() { s := `raw` }\n"), "<K:func> main() { s := <S:`raw`> }\n");
        assert_eq!(
            marked("ts", "const a = `x${y}\nz`; let b2 = null\n"),
            "<K:const> a = <S:`x${y}>\n<S:z`>; <K:let> b2 = <K:null>\n"
        );
    }

    #[test]
    fn sh_json_and_diff() {
        assert_eq!(
            marked("sh", "if [ -f a#b ]; then echo \"hi\" # no\nfi\n"),
            "<K:if> [ -f a#b ]; <K:then> echo <S:\"hi\"> <C:# no>\n<K:fi>\n"
        );
        assert_eq!(
            marked("json", "{\"a\": [1, true, \"x\"]}\n"),
            "{<K:\"a\">: [<N:1>, <K:true>, <S:\"x\">]}\n"
        );
        assert_eq!(
            marked("diff", "--- a\n+++ b\n@@ -1 +1 @@\n-old\n+new\n same\n"),
            "<M:--- a>\n<M:+++ b>\n<H:@@ -1 +1 @@>\n<R:-old>\n<A:+new>\n same\n"
        );
        assert!(for_language("cobol").is_none());
    }

    #[test]
    fn control_sequences_are_not_code() {
        // ESC [31m is passed over whole: its "31" is no number.
        assert_eq!(marked("python", "x = \x1b[31m 7\n"), "x = \x1b[31m <N:7>\n");
    }
}
