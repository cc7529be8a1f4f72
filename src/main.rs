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

mod cli;

// Page analysis allocates many short-lived strings (words, blocks); mimalloc
// cut allocation from ~12% of a profiled `eval` run (see README). The
// `system-alloc` feature keeps the system allocator, for heap profilers
// that hook malloc (heaptrack).
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Makes mimalloc give freed memory back to the OS at once instead of after
/// its default 10 ms delay, for the rest of this process: a crawl frees
/// large buffers (bodies, page analyses) on many threads, and with the
/// delay rust-doc's crawl peaked near 500 MB RSS instead of under 300 MB
/// (README, "Crawl benchmark"). mimalloc reads its options from the
/// environment when the process starts, and setting one from Rust needs
/// `unsafe` (forbidden here), so the process re-executes itself once with
/// `MIMALLOC_PURGE_DELAY=0` (same pid, arguments and other environment).
/// An explicit `MIMALLOC_PURGE_DELAY` is left alone; if the exec fails the
/// process simply goes on with the default.
pub(crate) fn purge_freed_memory_promptly() {
    #[cfg(all(unix, not(feature = "system-alloc")))]
    {
        use std::os::unix::process::CommandExt as _;
        const VAR: &str = "MIMALLOC_PURGE_DELAY";
        if std::env::var_os(VAR).is_some() {
            return;
        }
        let Ok(exe) = std::env::current_exe() else {
            return;
        };
        let err = std::process::Command::new(exe)
            .args(std::env::args_os().skip(1))
            .env(VAR, "0")
            .exec();
        tracing::debug!("re-exec with {VAR}=0 failed ({err}): default purge delay");
    }
}

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
