//! The environment variables hermes reads and those it gives the agent:
//! one table, each with its entry in the man page (ENVIRONMENT), in the
//! order the page lists them (compiled for the tests, which make the
//! page). Each is read where it is used; t6000 holds the page to every
//! variable the source reads.

use crate::args::{Man, man};

/// A variable of the environment, or several documented as one.
pub(crate) struct Variable {
    pub(crate) names: &'static [&'static str],
    /// Its entry in the man page.
    pub(crate) man: Man,
}

pub(crate) const ENVIRONMENT: &[Variable] = &[
    Variable {
        names: &["HERMES_HOME"],
        man: man(r#"
the directory that holds everything; default
.BR $HOME/.hermes .
When neither
.B HERMES_HOME
nor
.B HOME
is set,
.B hermes
refuses to guess and exits with status 4.
"#),
    },
    Variable {
        names: &["HERMES_AGENT"],
        man: man(r#"
the agent command, when
.B \-\-agent
is not given; it overrides
.B agent
in
.BR config.toml .
Empty means unset.
"#),
    },
    Variable {
        names: &["HERMES_MODEL"],
        man: man(r#"
the model when
.B config.toml
sets none: it goes into the
.B json
request body, and to the agent unchanged.
The agent is given the
.B model
of
.B config.toml
here when that is set.
"#),
    },
    Variable {
        names: &["HERMES_SESSION_ID"],
        man: man(r#"
given to the agent: the ID of the session it answers in.
"#),
    },
    Variable {
        names: &["HERMES_SESSION_TITLE"],
        man: man(r#"
given to the agent: that session's title.
"#),
    },
    Variable {
        names: &["HERMES_USAGE_FILE"],
        man: man(r#"
given to the agent: where it may report the reply's tokens (see
.BR AGENTS ).
"#),
    },
    Variable {
        names: &["HERMES_TIMEOUT"],
        man: man(r#"
given to the agent: the turn's timeout in seconds (0: none), which the
shipped
.B openai\-compatible
gives curl as its time to connect.
"#),
    },
    Variable {
        names: &["HERMES_OPTIONS"],
        man: man(r#"
given to the agent when model options apply
.RB ( "chat \-o" ,
a role, config.toml): KEY=VALUE a line.
"#),
    },
    Variable {
        names: &["HERMES_SCHEMA"],
        man: man(r#"
given to the agent with
.BR "chat \-\-schema" :
the schema's JSON.
"#),
    },
    Variable {
        names: &["HERMES_REQUEST"],
        man: man(r#"
given to the agent as
.B models
by
.BR "hermes models" :
list the server's models instead of answering.
"#),
    },
    Variable {
        names: &["TMUX", "STY"],
        man: man(r#"
read by
.BR /copy :
inside tmux it asks tmux whether
.B set\-clipboard
is on; GNU screen does not pass the clipboard sequence on.
"#),
    },
    Variable {
        names: &[
            "ZELLIJ_PANE_ID",
            "TMUX_PANE",
            "KITTY_WINDOW_ID",
            "WEZTERM_PANE",
            "TERM_SESSION_ID",
            "WT_SESSION",
        ],
        man: man(r#"
identify the terminal when none of stdin, stdout and stderr is a tty
(see
.BR "TERMINAL IDENTITY" ).
"#),
    },
    Variable {
        names: &["NO_COLOR"],
        man: man(r#"
set and not empty:
.B hermes
writes no colour of its own (no highlighting, no coloured code), and
drops an agent's colour sequences instead of passing them.
Bold, italic and underline are attributes, not colours: a reply's
headings, emphasis and links are still drawn with them.
"#),
    },
    Variable {
        names: &["HERMES_PAGER", "PAGER"],
        man: man(r#"
the pager of long output on a terminal (the first one set; empty or
.B cat
means none), else
.BR less ;
see
.BR \-\-no\-pager .
It is run by
.BR /bin/sh .
"#),
    },
    Variable {
        names: &["LESS"],
        man: man(r#"
given to the pager as
.B FRX
when not set.
"#),
    },
    Variable {
        names: &["LV"],
        man: man(r#"
given to the pager as
.B \-c
when not set (colours in
.BR lv ,
as git gives it).
"#),
    },
    Variable {
        names: &["VISUAL", "EDITOR"],
        man: man(r#"
the editor of
.B /edit
and Ctrl-X Ctrl-E: the first one set and not empty, else
.BR vi .
It is run by
.BR /bin/sh ,
so it may carry arguments
.RB ( "code \-w" ).
"#),
    },
    Variable {
        names: &["SHELL"],
        man: man(r#"
the shell that runs the command of
.B chat \-e
.RB ( "$SHELL \-c" );
.B /bin/sh
when unset or empty.
"#),
    },
    Variable {
        names: &["TERM"],
        man: man(r#"
unset or
.B dumb
turns the line editor off: the prompt reads line by line.
"#),
    },
    Variable {
        names: &["HOME"],
        man: man(r#"
the default for
.BR HERMES_HOME .
"#),
    },
    Variable {
        names: &["OPENAI_BASE_URL", "OPENAI_API_KEY", "OPENAI_MODEL"],
        man: man(r#"
read by the
.B openai\-compatible
agent.
.B hermes
gives the agent
.B OPENAI_BASE_URL
when
.B base_url
is set, and
.B OPENAI_API_KEY
when
.B api_key_env
or
.B api_key_command
is; otherwise the agent sees those of hermes's environment.
.B config list
shows an
.B OPENAI_BASE_URL
of the environment as the
.BR base_url .
"#),
    },
];

/// An entry's tag line in the man page: `.B HOME`, or `.BR TMUX ", " STY`.
pub(crate) fn tag(variable: &Variable) -> String {
    match variable.names {
        [one] => format!(".B {one}"),
        names => format!(".BR {}", names.join(" \", \" ")),
    }
}

#[cfg(test)]
mod tests {
    use super::ENVIRONMENT;

    /// Not hermes's to document: where programs are found (read as any
    /// program reads it), and what makes the tests write the generated
    /// reference (`make bless`).
    const NOT_HERMES: &[&str] = &["PATH", "HERMES_BLESS"];

    /// Every `NAME` in `text` read or set as a variable of the
    /// environment: `var("NAME")`, `var_os`, `env`, `env_remove`.
    fn variables(text: &str) -> Vec<&str> {
        let mut names = Vec::new();
        for call in ["var(\"", "var_os(\"", "env(\"", "env_remove(\""] {
            for (at, _) in text.match_indices(call) {
                let rest = &text[at + call.len()..];
                let name = &rest[..rest.find('"').unwrap_or(0)];
                if !name.is_empty()
                    && name.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_')
                {
                    names.push(name);
                }
            }
        }
        names
    }

    fn sources(dir: &std::path::Path, out: &mut Vec<(String, String)>) {
        for entry in std::fs::read_dir(dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                sources(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push((path.display().to_string(), std::fs::read_to_string(&path).unwrap()));
            }
        }
    }

    #[test]
    fn every_variable_the_source_reads_or_sets_is_in_the_table() {
        let mut files = Vec::new();
        sources(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src"), &mut files);
        let mut missing = Vec::new();
        for (path, text) in &files {
            // What the tests set for themselves is no variable of hermes's.
            let code = text.split("#[cfg(test)]").next().unwrap_or_default();
            for name in variables(code) {
                let known = ENVIRONMENT.iter().any(|v| v.names.contains(&name)) || NOT_HERMES.contains(&name);
                if !known {
                    missing.push(format!("{name} ({path})"));
                }
            }
        }
        assert!(files.len() > 50);
        assert!(missing.is_empty(), "not in cli::environment::ENVIRONMENT: {}", missing.join(", "));
    }

    #[test]
    fn the_check_sees_a_variable() {
        let text = "std::env::var(\"HERMES_NEW\"); Sources::env(\"OTHER_ONE\"); var(\"lower\")";
        assert_eq!(variables(text), ["HERMES_NEW", "OTHER_ONE"]);
    }
}
