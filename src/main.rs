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

// The tests' one way to skip (a failure under CI), shared with tests/.
#[cfg(test)]
#[path = "../tests/skip.rs"]
mod skip;

// Page analysis allocates many short-lived strings (words, blocks); mimalloc
// cut allocation from ~12% of a profiled `eval` run (see README). The
// `system-alloc` feature keeps the system allocator, for heap profilers
// that hook malloc (heaptrack).
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

use std::process::ExitCode;

/// mimalloc's `mi_option_purge_delay` (position 15 of `mi_option_e` in the
/// bundled v3 `mimalloc.h`; libmimalloc-sys names no constant for it).
#[cfg(not(feature = "system-alloc"))]
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Makes mimalloc return freed memory to the OS at once instead of after
/// its default 1 s delay. A crawl frees large page buffers in bursts (a run
/// of 1-8 MB pages); with the delay its RSS peaked at 360-400 MB on
/// rust-doc, with immediate purging at about 200 MB, at the same speed
/// (docs/results.md, "Crawl benchmark"). Batch commands keep the delay:
/// there immediate purging made every page's buffers fault in afresh (12%
/// of a single-core `dedup` in perf, most of it page faults).
///
/// Called by `crawl` before it starts any thread. A `MIMALLOC_PURGE_DELAY`
/// set in the environment wins.
#[cfg(not(feature = "system-alloc"))]
#[allow(unsafe_code)] // the binary's one documented unsafe call (the workspace denies it)
pub(crate) fn return_freed_memory_at_once() {
    if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
        return;
    }
    // SAFETY: sets one integer option; called before the command starts
    // any other thread.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0) }
}

#[cfg(feature = "system-alloc")]
pub(crate) fn return_freed_memory_at_once() {}

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

#[cfg(all(test, not(feature = "system-alloc")))]
mod tests {
    use super::*;

    #[test]
    #[allow(unsafe_code)] // reads back the option return_freed_memory_at_once sets
    fn purge_delay_constant_names_mimallocs_purge_delay() {
        if std::env::var_os("MIMALLOC_PURGE_DELAY").is_some() {
            return; // the environment chose a value; nothing to recognize
        }
        // Untouched in this test binary (main never runs): option 15 must
        // read purge_delay's v3 default of 1000 ms.
        // SAFETY: reads one integer option.
        let value = unsafe { libmimalloc_sys::mi_option_get(MI_OPTION_PURGE_DELAY) };
        assert_eq!(value, 1000);
    }
}
