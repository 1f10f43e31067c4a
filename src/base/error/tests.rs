//! Each error's message and exit status, as users and scripts see them.

use super::*;

fn io_error() -> io::Error {
    io::Error::from(io::ErrorKind::StorageFull)
}

/// One of each kind, with the status the man page gives it.
fn every_kind() -> Vec<(Error, i32)> {
    let path = || PathBuf::from("/h/sessions/x.json");
    vec![
        (Error::NotFound { name: "x".into(), did_you_mean: Vec::new() }, EXIT_NOT_FOUND),
        (Error::NoSuchSession { name: "x".into(), did_you_mean: Vec::new() }, EXIT_NOT_FOUND),
        (Error::UnknownOption { option: "--x".into(), did_you_mean: None, command: "" }, EXIT_USAGE),
        (Error::NoSuchId { id: "x".into(), titled: false }, EXIT_NOT_FOUND),
        (Error::NothingToContinue, EXIT_NOT_FOUND),
        (Error::usage("bad"), EXIT_USAGE),
        (Error::Refused("no".into()), EXIT_USAGE),
        (
            Error::IdLikeTitle {
                title: "20261204".into(),
                shape: "a session ID prefix",
                part: "the start of the ID",
                sessions: Vec::new(),
                create_if_missing: true,
            },
            EXIT_USAGE,
        ),
        (Error::TooLarge("big".into()), EXIT_USAGE),
        (Error::NotText { place: "-q".into(), offset: 3, byte: 0xe9 }, EXIT_USAGE),
        (Error::Agent("failed".into()), EXIT_AGENT),
        (Error::io(&path(), io_error()), EXIT_STORE),
        (Error::Corrupt { path: path(), why: "truncated".into() }, EXIT_STORE),
        (Error::DamagedSession { path: path(), id: "x".into(), why: "message 2: bad".into() }, EXIT_STORE),
        (Error::NewerFormat { path: path(), format: 9, understood: 1 }, EXIT_STORE),
        (
            Error::LockTimeout { lock: path(), what: "lock".into(), waited: Duration::from_secs(10) },
            EXIT_STORE,
        ),
        (Error::NoHome, EXIT_STORE),
        (Error::NotADirectory(path()), EXIT_STORE),
        (Error::AlreadyExists(path()), EXIT_STORE),
        (Error::Vanished { id: "x".into() }, EXIT_STORE),
        (Error::ConfigSyntax { path: path(), line: 3, why: "no '='".into() }, EXIT_STORE),
        (Error::ConfigTooLarge { path: path(), limit: 64 << 10 }, EXIT_STORE),
        (Error::StdoutWrite(io_error()), EXIT_STORE),
        (Error::ReplyNotShown { id: "x".into(), source: io_error() }, EXIT_STORE),
        (Error::ReplyNotSaved { id: "x".into(), max_bytes: 64 << 20 }, EXIT_STORE),
        (Error::TerminalRead(io_error()), EXIT_STORE),
        (Error::NoDirectory { path: path(), dir: path() }, EXIT_STORE),
        (
            Error::creating_in(
                "write",
                &path(),
                Path::new("/h"),
                io::Error::from(io::ErrorKind::PermissionDenied),
            ),
            EXIT_STORE,
        ),
        (Error::ExportIncomplete { damaged: 2 }, EXIT_STORE),
        (Error::ImportRead { name: "f".into(), source: io_error() }, EXIT_STORE),
        (Error::ImportRejected { name: "f".into(), line: 1, why: "not JSON".into() }, EXIT_USAGE),
        (Error::ImportIncomplete { name: "f".into(), damaged: 1, dry_run: false }, EXIT_USAGE),
        (Error::Interrupted, EXIT_INTERRUPTED),
    ]
}

#[test]
fn each_kind_has_its_exit_status() {
    for (error, status) in every_kind() {
        assert_eq!(error.exit_code(), status, "{error:?}");
    }
}

#[test]
fn messages_leave_the_prefix_to_their_printer() {
    for (error, _) in every_kind() {
        let text = error.to_string();
        assert!(!text.is_empty() && !text.starts_with("hermes"), "{error:?}: {text}");
    }
}

#[test]
fn numbers_in_messages_come_from_the_values_given() {
    let newer = Error::NewerFormat { path: "f".into(), format: 7, understood: 3 };
    assert!(newer.to_string().contains("written in format 7") && newer.to_string().contains("format 3"));
    let timeout =
        Error::LockTimeout { lock: "l".into(), what: "store lock".into(), waited: Duration::from_secs(4) };
    assert!(timeout.to_string().starts_with("timed out after 4s"));
}

#[test]
fn a_directory_that_takes_no_files_is_named_with_what_to_look_at() {
    let denied = Error::creating_in(
        "write",
        Path::new("/h/config.toml"),
        Path::new("/h"),
        io::Error::from(io::ErrorKind::PermissionDenied),
    );
    assert!(denied.to_string().ends_with("; see its owner and mode with: ls -ld /h"), "{denied}");
    let read_only = Error::creating_in(
        "make",
        Path::new("/h/sessions"),
        Path::new("/h"),
        io::Error::from(io::ErrorKind::ReadOnlyFilesystem),
    );
    let text = read_only.to_string();
    assert!(
        text.starts_with("cannot make /h/sessions: no file can be added to its directory /h (")
            && !text.contains("ls -ld"),
        "{text}"
    );
    let other = Error::creating_in(
        "write",
        Path::new("/h/x"),
        Path::new("/h"),
        io::Error::from(io::ErrorKind::StorageFull),
    );
    assert!(matches!(other, Error::Io { .. }));
}
