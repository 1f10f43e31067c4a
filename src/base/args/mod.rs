//! The command line's one specification and its one parser. Every command
//! and verb is a `Spec`: its name, its summary and help, and each option
//! and positional argument as one entry carrying its spelling, its help,
//! what its value is (`Kind`: a session, a file, a config key, ...) and
//! what it does to the command's typed arguments. `parse` reads any of
//! them with lexopt (help, an unknown option with did-you-mean, a value
//! given twice, missing and extra arguments); `--help`, completions and the
//! man page's check are made from the same entries (`cli::help`,
//! `cli::completion`, `cli::man`).
//!
//! A verb's file holds its `Args`, its `SPEC` and its `run` (through
//! `Run`), so that an option is written once, beside what it changes:
//!
//! ```text
//! option("-n", "--limit", Value::new("N", Kind::Number), "show at most N sessions")
//!     .takes(|a: &mut Args, v| { a.limit = v.positive()?; Ok(()) })
//! ```

use std::ffi::OsString;

/// An entry's text in the man page, in roff: what follows its tag line
/// (an option's, a verb's, a slash command's). `man/hermes.1` is made from
/// these and `man/hermes.1.in` (`cli::man`), by the tests; a build for use
/// keeps none of them, so they cost the binary nothing.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Man {
    #[cfg(test)]
    pub(crate) roff: &'static str,
}

impl Man {
    /// No entry of its own (a command whose text is the page's own).
    pub(crate) const NONE: Man = man("");
}

/// `man(r#"..."#)`: an entry's roff text.
pub(crate) const fn man(roff: &'static str) -> Man {
    #[cfg(not(test))]
    let _ = roff;
    Man {
        #[cfg(test)]
        roff,
    }
}

use lexopt::prelude::*;

use crate::error::{Error, Result};

/// What a value or an argument is: what completes it, and how help names it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Kind {
    /// A session: a title (completed), an ID or a short ID.
    Session,
    /// A session's ID (completed as IDs).
    SessionId,
    /// A file name.
    File,
    /// A command line, run by the shell.
    Shell,
    /// A key of config.toml.
    Setting,
    /// A value for the setting named just before it (`config set KEY VALUE`).
    SettingValue,
    /// A model's name.
    Model,
    /// A role's name (`hermes roles`).
    Role,
    /// A profile's name (the directories in `$HERMES_HOME/profiles`).
    Profile,
    /// A command of hermes (`hermes help COMMAND`).
    Command,
    /// One of these words.
    Words(&'static [&'static str]),
    /// A number.
    Number,
    /// Any text: nothing to complete.
    Text,
}

/// An option's value: its name in help (`N`, `FILE`) and what it is.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Value {
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
    /// It may be left out (`-c [NAME]`): then the next word is taken only
    /// when it is not an option.
    pub(crate) optional: bool,
}

impl Value {
    pub(crate) const fn new(name: &'static str, kind: Kind) -> Value {
        Value { name, kind, optional: false }
    }

    pub(crate) const fn optional(name: &'static str, kind: Kind) -> Value {
        Value { name, kind, optional: true }
    }

    /// One of `words`, named by them in help (`json|jsonl|markdown`).
    pub(crate) const fn words(words: &'static [&'static str]) -> Value {
        Value { name: "", kind: Kind::Words(words), optional: false }
    }
}

/// An option as help, completion and the man page see it.
#[derive(Debug)]
pub(crate) struct OptionDef {
    /// `-n`, or `""` for none.
    pub(crate) short: &'static str,
    /// `--limit`.
    pub(crate) long: &'static str,
    pub(crate) value: Option<Value>,
    /// One line in the man page's words (wrapped on output). Empty: not
    /// shown in help nor offered by completion (`-v`, only after `-V`).
    pub(crate) help: &'static str,
    /// A heading printed above it in `--help` ("How:").
    pub(crate) heading: Option<&'static str>,
    /// Other forms shown under it: `("-q -", "read the message from
    /// stdin", man(...))`, each its own entry in the man page.
    pub(crate) also: &'static [(&'static str, &'static str, Man)],
    /// Options of one group (not 0) exclude each other; usage lines show
    /// them as `[-s TEXT | --system-file FILE]`.
    pub(crate) group: u8,
    /// It may be given more than once.
    pub(crate) repeats: bool,
    /// It must be given.
    pub(crate) required: bool,
    /// Its entry in the man page (`help` is the entry's short form).
    pub(crate) man: Man,
}

/// An option without a value: `switch("", "--all", "show every session")`,
/// then what it does: `.sets(|a| a.all = true)`.
pub(crate) const fn switch(short: &'static str, long: &'static str, help: &'static str) -> OptionDef {
    OptionDef {
        short,
        long,
        value: None,
        help,
        heading: None,
        also: &[],
        group: 0,
        repeats: false,
        required: false,
        man: Man::NONE,
    }
}

/// An option with a value, then what it does with it: `.takes(|a, v| ...)`.
pub(crate) const fn option(
    short: &'static str,
    long: &'static str,
    value: Value,
    help: &'static str,
) -> OptionDef {
    OptionDef { value: Some(value), ..switch(short, long, help) }
}

impl OptionDef {
    /// Printed under `heading` in `--help`.
    pub(crate) const fn under(mut self, heading: &'static str) -> OptionDef {
        self.heading = Some(heading);
        self
    }

    /// With other forms shown under it.
    pub(crate) const fn also(mut self, forms: &'static [(&'static str, &'static str, Man)]) -> OptionDef {
        self.also = forms;
        self
    }

    /// One of a group that exclude each other.
    pub(crate) const fn group(mut self, group: u8) -> OptionDef {
        self.group = group;
        self
    }

    /// It may be given more than once.
    pub(crate) const fn repeats(mut self) -> OptionDef {
        self.repeats = true;
        self
    }

    /// Its entry in the man page: roff, after its tag line.
    pub(crate) const fn man(mut self, roff: &'static str) -> OptionDef {
        self.man = man(roff);
        self
    }

    /// It must be given.
    pub(crate) const fn required(mut self) -> OptionDef {
        self.required = true;
        self
    }

    /// What the option does: a flag's.
    pub(crate) const fn sets<A>(self, set: fn(&mut A)) -> Opt<A> {
        Opt { flag: self, apply: Apply::OptionDef(set) }
    }

    /// What the option does with its value.
    pub(crate) const fn takes<A>(self, set: fn(&mut A, Given) -> Result<()>) -> Opt<A> {
        Opt { flag: self, apply: Apply::Value(set) }
    }

    /// Every spelling: `-n`, `--limit`.
    pub(crate) fn spellings(&self) -> impl Iterator<Item = &'static str> + use<> {
        let short = Some(self.short).filter(|s| !s.is_empty());
        short.into_iter().chain([self.long])
    }

    /// `-n/--limit`, or `--limit`, for messages.
    pub(crate) fn named(&self) -> String {
        if self.short.is_empty() { self.long.to_string() } else { format!("{}/{}", self.short, self.long) }
    }

    fn short_char(&self) -> Option<char> {
        self.short.strip_prefix('-').and_then(|s| s.chars().next())
    }
}

/// `-h, --help`, which every command takes.
pub(crate) const HELP: OptionDef = switch("-h", "--help", "show this help");

/// What an option does to the arguments `A` being built.
pub(crate) enum Apply<A> {
    OptionDef(fn(&mut A)),
    Value(fn(&mut A, Given) -> Result<()>),
}

/// One option of a command: as shown, and what it does.
pub(crate) struct Opt<A> {
    pub(crate) flag: OptionDef,
    pub(crate) apply: Apply<A>,
}

impl<A> Opt<A> {
    /// Its entry in the man page: roff, after its tag line.
    pub(crate) const fn man(mut self, roff: &'static str) -> Opt<A> {
        self.flag.man = man(roff);
        self
    }

    /// Do to `args` what the option does, with `value` (a flag has none).
    pub(crate) fn apply(&self, args: &mut A, value: Given) -> Result<()> {
        match self.apply {
            Apply::OptionDef(set) => {
                set(args);
                Ok(())
            }
            Apply::Value(set) => set(args, value),
        }
    }
}

/// Options every command takes wherever they stand on the line (hermes's
/// own: `-p NAME`, `--no-pager`): their entries, and what reading the one
/// at a place of them does (kept by whoever reads the line). The reading
/// loop takes them with the command's own options.
pub(crate) struct Common<'a> {
    pub(crate) flags: &'a [&'static OptionDef],
    pub(crate) take: &'a mut dyn FnMut(usize, Given) -> Result<()>,
}

impl Common<'_> {
    /// No options but the command's own.
    #[cfg(test)]
    pub(crate) fn none(take: &mut dyn FnMut(usize, Given) -> Result<()>) -> Common<'_> {
        Common { flags: &[], take }
    }
}

/// A positional argument as help, completion and the man page see it.
#[derive(Debug)]
pub(crate) struct Arg {
    /// `NAME|ID`, `FILE`, `TEXT`.
    pub(crate) name: &'static str,
    pub(crate) kind: Kind,
    pub(crate) optional: bool,
    /// It takes every word from here on (`NAME|ID...`).
    pub(crate) many: bool,
}

impl Arg {
    /// An argument that must be given.
    pub(crate) const fn one(name: &'static str, kind: Kind) -> Arg {
        Arg { name, kind, optional: false, many: false }
    }

    /// An argument that may be left out.
    pub(crate) const fn optional(name: &'static str, kind: Kind) -> Arg {
        Arg { name, kind, optional: true, many: false }
    }

    /// Every word from here on (at least one, unless optional).
    pub(crate) const fn many(mut self) -> Arg {
        self.many = true;
        self
    }

    /// What the argument does with its word.
    pub(crate) const fn takes<A>(self, set: fn(&mut A, Given) -> Result<()>) -> Positional<A> {
        Positional { arg: self, set }
    }

    /// As a usage line shows it: `NAME|ID`, `[TEXT]`, `NAME|ID...`, and
    /// one of some words by them (`bash|zsh|fish`).
    pub(crate) fn usage(&self) -> String {
        let dots = if self.many { "..." } else { "" };
        let name = match self.kind {
            Kind::Words(words) if self.name.is_empty() => words.join("|"),
            _ => self.name.to_string(),
        };
        if self.optional { format!("[{name}{dots}]") } else { format!("{name}{dots}") }
    }
}

/// One positional argument of a command: as shown, and what it does.
pub(crate) struct Positional<A> {
    pub(crate) arg: Arg,
    pub(crate) set: fn(&mut A, Given) -> Result<()>,
}

/// A command or verb: everything the command line says of it.
pub(crate) struct Spec<A: 'static> {
    /// Its words after `hermes`: `"sessions list"`, `"chat"`.
    pub(crate) path: &'static str,
    pub(crate) alias: Option<&'static str>,
    /// What it does, in one line: the lists of commands and completions.
    pub(crate) summary: &'static str,
    /// Its help after the usage line: prose, with `{options}` where the
    /// option lines go.
    pub(crate) about: &'static str,
    /// A verb's entry in the man page, before its options.
    #[cfg_attr(not(test), allow(dead_code, reason = "the man page is made by the tests"))]
    pub(crate) man: Man,
    pub(crate) options: &'static [Opt<A>],
    pub(crate) args: &'static [Positional<A>],
    /// The arguments before any is read (the defaults).
    pub(crate) start: fn() -> A,
    /// Checks of the whole, once everything is read.
    pub(crate) finish: fn(A) -> Result<A>,
    /// The error for a word no positional argument takes, when the
    /// command has something better to say than "unexpected argument".
    pub(crate) stray: Option<fn(&A, &str) -> Error>,
}

/// What help, completion and the man page read of a command, whatever
/// its arguments' type.
pub(crate) trait Describe {
    fn path(&self) -> &'static str;
    fn alias(&self) -> Option<&'static str>;
    fn summary(&self) -> &'static str;
    fn about(&self) -> &'static str;
    #[cfg(test)]
    fn man(&self) -> Man;
    fn flags(&self) -> Vec<&'static OptionDef>;
    fn positionals(&self) -> Vec<&'static Arg>;

    /// The last word of its path: `list`.
    fn name(&self) -> &'static str {
        self.path().rsplit(' ').next().unwrap_or_default()
    }
}

impl<A> Describe for Spec<A> {
    fn path(&self) -> &'static str {
        self.path
    }
    fn alias(&self) -> Option<&'static str> {
        self.alias
    }
    fn summary(&self) -> &'static str {
        self.summary
    }
    fn about(&self) -> &'static str {
        self.about
    }
    #[cfg(test)]
    fn man(&self) -> Man {
        self.man
    }
    fn flags(&self) -> Vec<&'static OptionDef> {
        self.options.iter().map(|o| &o.flag).collect()
    }
    fn positionals(&self) -> Vec<&'static Arg> {
        self.args.iter().map(|p| &p.arg).collect()
    }
}

/// What a command does, for the dispatcher's checks: a home others can
/// write to is refused to a command that writes or runs an agent (one that
/// only reads goes on, warned), and a command that writes files in steps
/// is ended between them by a signal, its temporary removed.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Access {
    /// Reads the store only (and may write the header cache).
    Reads,
    /// Reads the store, and writes a file the user named.
    ReadsToFile,
    /// Writes the store.
    Writes,
    /// Runs the agent, which may write the store; it handles signals itself.
    RunsAgent,
}

impl Access {
    pub(crate) fn is_read_only(self) -> bool {
        matches!(self, Access::Reads | Access::ReadsToFile)
    }

    pub(crate) fn writes_files(self) -> bool {
        matches!(self, Access::ReadsToFile | Access::Writes)
    }
}

/// A command's typed arguments, ready to run in a context `C` (the store).
pub(crate) trait Run<C>: Sized + 'static {
    fn run(self, context: &C) -> Result<()>;
    fn access(&self) -> Access {
        Access::Writes
    }
    /// Whether what it writes to stdout goes through a pager on a
    /// terminal (`sessions show`, `export`).
    fn paged(&self) -> bool {
        false
    }
}

/// A command read from the command line, not yet run.
pub(crate) trait Job<C> {
    fn access(&self) -> Access;
    fn paged(&self) -> bool;
    fn run(self: Box<Self>, context: &C) -> Result<()>;
}

impl<C, A: Run<C>> Job<C> for A {
    fn access(&self) -> Access {
        Run::access(self)
    }
    fn paged(&self) -> bool {
        Run::paged(self)
    }
    fn run(self: Box<Self>, context: &C) -> Result<()> {
        Run::run(*self, context)
    }
}

/// A command of a table (`sessions::VERBS`): described, and read into a
/// `Job`. Every `Spec` whose arguments `Run` is one.
pub(crate) trait Command<C>: Describe {
    /// Its arguments read from `parser`, with the `common` options
    /// wherever they stand among them.
    fn read(&'static self, parser: &mut lexopt::Parser, common: &mut Common) -> Result<Box<dyn Job<C>>>;
}

impl<C, A: Run<C>> Command<C> for Spec<A> {
    fn read(&'static self, parser: &mut lexopt::Parser, common: &mut Common) -> Result<Box<dyn Job<C>>> {
        Ok(Box::new(parse_with(self, parser, common)?))
    }
}

/// A value given on the command line, with the option or argument it was
/// given for (to name in an error).
pub(crate) struct Given {
    /// `--limit`, or the argument's name (`NAME|ID`).
    pub(crate) what: &'static str,
    /// None for an optional value left out.
    pub(crate) value: Option<OsString>,
}

impl Given {
    /// As text, lossily: bytes that are not UTF-8 are shown replaced (for
    /// a value that is only compared or looked up; `utf8` refuses them).
    pub(crate) fn lossy(self) -> String {
        self.value.map(string).unwrap_or_default()
    }

    /// As text that will be stored or sent: refused, naming `place`, when
    /// it is not UTF-8 (see `text`).
    pub(crate) fn utf8(self, place: &str) -> Result<String> {
        text(self.value.unwrap_or_default(), place)
    }

    /// As it was given, for file names.
    pub(crate) fn os(self) -> OsString {
        self.value.unwrap_or_default()
    }

    /// A positive whole number.
    pub(crate) fn positive(self) -> Result<usize> {
        let what = self.what;
        let text = self.lossy();
        text.parse()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| Error::usage(format!("{what} wants a positive number, not '{text}'")))
    }
}

/// An argument as text; bytes that are not UTF-8 are shown replaced. For
/// what is only looked up or shown (a session's name, an option's word):
/// a replaced byte matches nothing. What is stored or sent takes `text`.
pub(crate) fn string(os: OsString) -> String {
    os.into_string().unwrap_or_else(|os| os.to_string_lossy().into_owned())
}

/// An argument that becomes stored or sent text (a message, a title, a
/// setting): refused, naming `place`, when it is not UTF-8, where a
/// replacement would lose a Latin-1 text's accents without a word.
pub(crate) fn text(os: OsString, place: &str) -> Result<String> {
    use std::os::unix::ffi::OsStringExt;
    utf8(os.into_vec(), place)
}

/// Bytes read as text (stdin, a file): refused as `text` refuses them.
pub(crate) fn utf8(bytes: Vec<u8>, place: &str) -> Result<String> {
    String::from_utf8(bytes).map_err(|e| {
        let offset = e.utf8_error().valid_up_to();
        Error::NotText { place: place.to_string(), offset, byte: e.as_bytes()[offset] }
    })
}

/// The next raw argument if it looks like an option (without consuming it).
pub(crate) fn peek_option(parser: &mut lexopt::Parser) -> Option<String> {
    let raw = parser.try_raw_args()?;
    let next = raw.peek()?.to_str()?;
    next.starts_with('-').then(|| next.to_string())
}

/// Take the next argument if it is one of the `common` options (and its
/// value): `-p NAME`, `-pNAME`, `--profile=NAME`, `--no-pager`. False,
/// with nothing taken, for anything else: what comes before a command's
/// word, or between a group and its verb.
pub(crate) fn common_option(parser: &mut lexopt::Parser, common: &mut Common) -> Result<bool> {
    let Some(raw) = peek_option(parser) else { return Ok(false) };
    let name = match raw.strip_prefix("--") {
        Some(long) => format!("--{}", long.split('=').next().unwrap_or_default()),
        None => raw.chars().take(2).collect(),
    };
    // `-h` is the caller's to answer, with the help of where it stands.
    let found = common.flags.iter().position(|f| f.long != HELP.long && f.spellings().any(|s| s == name));
    let Some(at) = found else {
        return Ok(false);
    };
    let flag = common.flags[at];
    parser.next()?;
    let value = if flag.value.is_some() { Some(parser.value()?) } else { None };
    (common.take)(at, Given { what: flag.long, value })?;
    Ok(true)
}

/// The next raw argument if it is a plain word (without consuming it).
pub(crate) fn peek_word(parser: &mut lexopt::Parser) -> Option<String> {
    let raw = parser.try_raw_args()?;
    let next = raw.peek()?.to_string_lossy().into_owned();
    (!next.starts_with('-')).then_some(next)
}

/// Read `spec`'s arguments: its options in any order, its positional
/// arguments in theirs, `-h`/`--help` anywhere (`Error::HelpWanted`).
/// The reading is `read`'s, the same code for every command; only what
/// each entry does to the typed arguments is `A`'s own.
#[cfg(test)]
pub(crate) fn parse<A: 'static>(spec: &'static Spec<A>, parser: &mut lexopt::Parser) -> Result<A> {
    parse_with(spec, parser, &mut Common::none(&mut |_, _| Ok(())))
}

/// `parse`, with the `common` options (hermes's own) taken wherever they
/// stand among the command's: a command's own spelling wins (none shares
/// one, cli's tests check).
pub(crate) fn parse_with<A: 'static>(
    spec: &'static Spec<A>,
    parser: &mut lexopt::Parser,
    common: &mut Common,
) -> Result<A> {
    let mut args = (spec.start)();
    read_command(spec, parser, common, &mut |step| match step {
        Step::Option(at, value) => spec.options[at].apply(&mut args, value),
        Step::Word(at, word) => (spec.args[at].set)(&mut args, word),
        Step::Stray(word) => match spec.stray {
            Some(stray) => Err(stray(&args, &word)),
            None => Err(unexpected(spec.path, &word)),
        },
    })?;
    (spec.finish)(args)
}

/// `parse_with`'s reading, one copy for every command: `apply` gets the
/// steps of the command's own options and arguments; the `common` ones
/// are taken here.
#[inline(never)]
fn read_command(
    spec: &dyn Describe,
    parser: &mut lexopt::Parser,
    common: &mut Common,
    apply: &mut dyn FnMut(Step) -> Result<()>,
) -> Result<()> {
    let mut flags = spec.flags();
    let own = flags.len();
    flags.extend(common.flags.iter().copied());
    let shape = Shape { path: spec.path(), flags, args: spec.positionals() };
    read(&shape, parser, &mut |step| match step {
        Step::Option(at, value) if at >= own => (common.take)(at - own, value),
        step => apply(step),
    })
}

/// A word no positional argument takes, when the command has nothing
/// better to say.
#[inline(never)]
fn unexpected(path: &str, word: &str) -> Error {
    Error::usage(format!("{path}: unexpected argument '{word}'; quote names with spaces"))
}

/// A command's options and arguments as the reading sees them, whatever
/// its arguments' type.
struct Shape<'a> {
    path: &'static str,
    flags: Vec<&'a OptionDef>,
    args: Vec<&'a Arg>,
}

/// What the reading found, for the command's entries to apply.
enum Step {
    /// The option at this place of the command's table, with its value
    /// (what `Given` holds for a flag is not read).
    Option(usize, Given),
    /// A word for the positional argument at this place.
    Word(usize, Given),
    /// A word no positional argument takes.
    Stray(String),
}

/// The one loop of the command line's reading (see `parse`).
fn read(shape: &Shape, parser: &mut lexopt::Parser, apply: &mut dyn FnMut(Step) -> Result<()>) -> Result<()> {
    let mut given = vec![false; shape.flags.len()];
    let mut words = Words::default();
    while let Some(arg) = parser.next()? {
        let found = match &arg {
            Short('h') | Long("help") => return Err(Error::HelpWanted),
            Short(c) => shape.flags.iter().position(|f| f.short_char() == Some(*c)),
            Long(name) => shape.flags.iter().position(|f| f.long.strip_prefix("--") == Some(name)),
            Value(word) => {
                words.take(shape, word.clone(), apply)?;
                continue;
            }
        };
        let Some(at) = found else {
            let option = match arg {
                Short(c) => format!("-{c}"),
                Long(name) => format!("--{name}"),
                Value(_) => unreachable!(),
            };
            return Err(unknown_option(shape, option));
        };
        let flag = shape.flags[at];
        check_once(shape, &given, at)?;
        given[at] = true;
        let value = match flag.value {
            None => None,
            Some(v) if v.optional => match parser.optional_value() {
                Some(v) => Some(v),
                None => peek_word(parser).map(|_| parser.value()).transpose()?,
            },
            Some(_) => Some(parser.value()?),
        };
        apply(Step::Option(at, Given { what: flag.long, value }))?;
    }
    words.finish(shape)?;
    if let Some(flag) =
        shape.flags.iter().zip(&given).find(|(f, given)| f.required && !**given).map(|(f, _)| f)
    {
        let value = flag.value.map(|v| format!(" {}", v.name)).unwrap_or_default();
        return Err(Error::usage(format!(
            "{}: {}{value} is required; see 'hermes {} --help'",
            shape.path, flag.long, shape.path
        )));
    }
    Ok(())
}

/// An option given twice, or with another of its group.
fn check_once(shape: &Shape, given: &[bool], at: usize) -> Result<()> {
    let flag = shape.flags[at];
    if given[at] && !flag.repeats {
        return Err(Error::usage(format!("{} given twice", flag.named())));
    }
    let rival = shape
        .flags
        .iter()
        .zip(given)
        .find(|(f, given)| **given && flag.group != 0 && f.group == flag.group && f.long != flag.long);
    match rival {
        Some((other, _)) => {
            Err(Error::usage(format!("{} and {}: one of them, once", other.named(), flag.named())))
        }
        None => Ok(()),
    }
}

/// An option the command does not take, with the nearest it does.
fn unknown_option(shape: &Shape, option: String) -> Error {
    // A one-letter option is one edit from every other: no guess.
    let did_you_mean = if option.starts_with("--") {
        let spellings = shape.flags.iter().flat_map(|f| f.spellings()).chain(HELP.spellings());
        crate::text::nearest(&option, spellings).map(str::to_string)
    } else {
        None
    };
    Error::UnknownOption { option, did_you_mean, command: shape.path }
}

/// The positional arguments as they come.
#[derive(Default)]
struct Words {
    /// The next positional argument to fill.
    next: usize,
    /// Words given to the one that takes many.
    many: usize,
}

impl Words {
    fn take(
        &mut self,
        shape: &Shape,
        word: OsString,
        apply: &mut dyn FnMut(Step) -> Result<()>,
    ) -> Result<()> {
        let Some(arg) = shape.args.get(self.next) else {
            return apply(Step::Stray(word.to_string_lossy().into_owned()));
        };
        apply(Step::Word(self.next, Given { what: arg.name, value: Some(word) }))?;
        if arg.many {
            self.many += 1;
        } else {
            self.next += 1;
        }
        Ok(())
    }

    /// The arguments still missing, named in one error.
    fn finish(&self, shape: &Shape) -> Result<()> {
        let missing: Vec<String> = shape.args[self.next.min(shape.args.len())..]
            .iter()
            .filter(|a| !(a.optional || a.many && self.many > 0))
            .map(|a| match a.kind {
                // One of some words, named by them: `bash, zsh or fish`.
                Kind::Words(words) if a.name.is_empty() => match words.split_last() {
                    Some((last, [])) => last.to_string(),
                    Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
                    None => String::new(),
                },
                _ => a.name.replace('|', " or "),
            })
            .collect();
        if missing.is_empty() {
            return Ok(());
        }
        Err(Error::usage(format!(
            "{}: missing {}; see 'hermes {} --help'",
            shape.path,
            missing.join(" and "),
            shape.path
        )))
    }
}

#[cfg(test)]
mod tests;
