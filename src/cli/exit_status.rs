//! The exit statuses hermes gives, and what each means: one table, read by
//! the main `--help`, the man page's EXIT STATUS and the README's table.

use crate::args::{Man, man};
use crate::error::{EXIT_AGENT, EXIT_INTERRUPTED, EXIT_NOT_FOUND, EXIT_STORE, EXIT_USAGE};

/// An exit status, in the words of each place that lists it.
pub(crate) struct ExitStatus {
    pub(crate) code: i32,
    /// In the main `--help`'s one line: `2 usage`.
    pub(crate) word: &'static str,
    /// In the README's table.
    #[cfg_attr(not(test), allow(dead_code, reason = "the README's table is made by the tests"))]
    pub(crate) summary: &'static str,
    /// Its entry in the man page.
    #[cfg_attr(not(test), allow(dead_code, reason = "the man page is made by the tests"))]
    pub(crate) man: Man,
}

pub(crate) const EXIT_STATUSES: &[ExitStatus] = &[
    ExitStatus {
        code: 0,
        word: "ok",
        summary: "success",
        man: man(r#"
success (also when stdout is closed early, as in
.BR "hermes sessions list | head \-1" )
"#),
    },
    ExitStatus {
        code: EXIT_NOT_FOUND,
        word: "no such session",
        summary: "no session matches, or nothing to continue",
        man: man(r#"
no session matches, or nothing to continue
"#),
    },
    ExitStatus {
        code: EXIT_USAGE,
        word: "usage",
        summary: "usage error",
        man: man(r#"
usage error, or input that is not what it should be (a file
.B sessions import
refuses, or whose damaged lines it skipped; a role that is nowhere; a file for
.B \-f
that is not there or not text, too many files)
"#),
    },
    ExitStatus {
        code: EXIT_AGENT,
        word: "agent failed",
        summary: "the agent failed, or sent nothing for the timeout \
            (your message is saved, and what arrived)",
        man: man(r#"
the agent failed: it could not run, exited with an error, sent an error,
or sent nothing for the turn\(aqs timeout (what arrived before is kept,
marked incomplete)
"#),
    },
    ExitStatus {
        code: EXIT_STORE,
        word: "store failed",
        summary: "the store failed: I/O error, unreadable or newer-format file, lock timeout, no \
            `HERMES_HOME`/`HOME`; a pager that failed",
        man: man(r#"
the store failed: I/O error, unreadable or newer-format file, lock
timeout (10 seconds), no
.B HERMES_HOME
or
.BR HOME ;
a pager that failed
"#),
    },
    ExitStatus {
        code: EXIT_INTERRUPTED,
        word: "interrupted",
        summary: "interrupted",
        man: man(r#"
interrupted: Ctrl-C (SIGINT), SIGTERM or SIGHUP
"#),
    },
];

/// The main `--help`'s line: `Exit status: 0 ok, 1 no such session, ...`.
pub(crate) fn help_line() -> String {
    let each: Vec<String> = EXIT_STATUSES.iter().map(|s| format!("{} {}", s.code, s.word)).collect();
    format!("Exit status: {}. See hermes(1).", each.join(", "))
}
