//! The `neardup` binary: a thin shell over the library. Parses arguments,
//! sets up logging, runs a command, maps errors to exit codes.
//!
//! Exit codes:
//! - 0: success (also when pages had warnings or input records could not
//!   be read: those are reported on stderr and in verdicts.jsonl);
//! - 2: an error: bad arguments (clap's usage errors also exit 2), an
//!   invalid config (the message names the file, key and allowed range), an
//!   input that cannot be opened, an output that cannot be written.
//!
//! A closed stdout (`neardup extract ... | head`) exits 0 quietly.

mod allocator;
mod cli;

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../tests/skip.rs"]
mod skip;

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
