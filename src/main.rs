//! The `hermes` binary: parse, run, and the one place where an error becomes
//! a message and an exit status.

use hermes::output;

fn main() {
    std::panic::set_hook(Box::new(|info| {
        // Never a backtrace: one line that says it is our bug.
        output::notice(&format!("internal error: {info}; please report this bug"));
    }));
    hermes::sys::return_large_buffers();
    let status = match hermes::cli::parse().and_then(hermes::run) {
        Ok(()) => 0,
        Err(e) => {
            output::report(&e);
            e.exit_code()
        }
    };
    std::process::exit(status);
}
