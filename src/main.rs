//! The `hermes` binary: parse, run, and the one place where an error becomes
//! a message and an exit status.

fn main() {
    std::panic::set_hook(Box::new(|info| {
        // Never a backtrace: one line that says it is our bug.
        hermes::notice(&format!("internal error: {info}; please report this bug"));
    }));
    hermes::return_large_buffers();
    hermes::survive_file_size_limit();
    let status = match hermes::parse().and_then(hermes::run) {
        Ok(()) => 0,
        Err(e) => {
            hermes::report(&e);
            e.exit_code()
        }
    };
    std::process::exit(status);
}
