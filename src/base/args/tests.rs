//! The one parser, tried on a made-up command.

use super::*;

#[derive(Debug, Default, PartialEq)]
struct Args {
    all: bool,
    limit: Option<usize>,
    name: Option<String>,
    mode: Option<String>,
    names: Vec<String>,
    files: Vec<String>,
}

const SPEC: Spec<Args> = Spec {
    path: "sessions try",
    alias: None,
    summary: "",
    about: "",
    man: Man::NONE,
    options: &[
        switch("-a", "--all", "every one").sets(|a| a.all = true),
        option("-n", "--limit", Value::new("N", Kind::Number), "at most N").takes(|a, v| {
            a.limit = Some(v.positive()?);
            Ok(())
        }),
        option("-c", "--continue", Value::optional("NAME", Kind::Session), "").takes(|a, v| {
            a.name = v.value.map(string);
            Ok(())
        }),
        switch("", "--fast", "").group(1).sets(|a| a.mode = Some("fast".into())),
        switch("", "--slow", "").group(1).sets(|a| a.mode = Some("slow".into())),
        option("-f", "--file", Value::new("FILE", Kind::File), "").repeats().takes(|a, v| {
            a.files.push(v.lossy());
            Ok(())
        }),
    ],
    args: &[Arg::one("NAME|ID", Kind::Session).many().takes(|a, v| {
        a.names.push(v.lossy());
        Ok(())
    })],
    start: Args::default,
    finish: Ok,
    stray: None,
};

fn parse_words(words: &[&str]) -> Result<Args> {
    parse(&SPEC, &mut lexopt::Parser::from_args(words.iter().copied()))
}

#[test]
fn text_that_is_not_utf8_is_refused_with_its_first_bad_byte() {
    assert_eq!(utf8(b"caf\xc3\xa9".to_vec(), "-q").unwrap(), "café");
    match utf8(b"ok caf\xe9 cr\xe8me".to_vec(), "stdin") {
        Err(Error::NotText { place, offset, byte }) => {
            assert_eq!((place.as_str(), offset, byte), ("stdin", 6, 0xe9));
        }
        other => panic!("{other:?}"),
    }
    // A sequence cut short counts from its first byte.
    assert!(matches!(utf8(b"ab\xe2\x82".to_vec(), "-q"), Err(Error::NotText { offset: 2, byte: 0xe2, .. })));
    use std::os::unix::ffi::OsStringExt;
    assert!(text(OsString::from_vec(b"\xff".to_vec()), "--title").is_err());
    assert_eq!(string(OsString::from_vec(b"a\xff".to_vec())), "a\u{fffd}");
}

#[test]
fn options_and_arguments_in_any_order() {
    let args = parse_words(&["x", "-n", "5", "--all", "y", "-f", "a", "--file=b"]).unwrap();
    assert_eq!(args.limit, Some(5));
    assert!(args.all);
    assert_eq!(args.names, ["x", "y"]);
    assert_eq!(args.files, ["a", "b"]);
}

#[test]
fn an_optional_value_is_the_next_word_unless_an_option() {
    assert_eq!(parse_words(&["-c", "a b", "x"]).unwrap().name.as_deref(), Some("a b"));
    assert_eq!(parse_words(&["-c", "-a", "x"]).unwrap().name, None);
    assert_eq!(parse_words(&["x", "-c"]).unwrap().name, None);
    assert_eq!(parse_words(&["-cname", "x"]).unwrap().name.as_deref(), Some("name"));
}

#[test]
fn mistakes_are_usage_errors_that_say_what() {
    let usage = |words: &[&str]| match parse_words(words) {
        Err(Error::Usage(text)) => text,
        other => panic!("{words:?}: {other:?}"),
    };
    assert_eq!(usage(&["x", "-n", "5", "-n", "6"]), "-n/--limit given twice");
    assert_eq!(usage(&["x", "--fast", "--slow"]), "--fast and --slow: one of them, once");
    assert_eq!(usage(&["x", "-n", "0"]), "--limit wants a positive number, not '0'");
    assert_eq!(usage(&[]), "sessions try: missing NAME or ID; see 'hermes sessions try --help'");
    assert!(matches!(parse_words(&["x", "--help", "--bogus"]), Err(Error::HelpWanted)));
    let Err(Error::UnknownOption { option, did_you_mean, .. }) = parse_words(&["x", "--limt", "2"]) else {
        panic!()
    };
    assert_eq!((option.as_str(), did_you_mean.as_deref()), ("--limt", Some("--limit")));
    assert!(matches!(parse_words(&["x", "--all=yes"]), Err(Error::Usage(_))));
}
