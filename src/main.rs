//! The `neardup` binary: a thin shell over the library. Parses arguments,
//! sets up logging, runs a command, maps errors to exit codes.
//!
//! Exit codes: 0 success, 1 the command ran but found a problem it reports
//! (e.g. a test threshold missed), 2 an error (bad arguments, config, I/O).

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            if is_broken_pipe(&err) {
                return ExitCode::SUCCESS;
            }
            eprintln!("neardup: error: {err:#}");
            ExitCode::from(2)
        }
    }
}

fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|e| {
        e.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
