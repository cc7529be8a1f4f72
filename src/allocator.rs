//! The binary's allocator (mimalloc unless the `system-alloc` feature is
//! on) and the options a crawl sets at run time, with the binary's one
//! documented `unsafe` block.

// Page analysis allocates many short-lived strings (words, blocks); mimalloc
// cut allocation from ~12% of a profiled `eval` run (see README). The
// `system-alloc` feature keeps the system allocator, for heap profilers
// that hook malloc (heaptrack).
#[cfg(not(feature = "system-alloc"))]
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc's `mi_option_purge_delay` (position 15 of `mi_option_e` in the
/// bundled v3 `mimalloc.h`; libmimalloc-sys names no constant for it).
#[cfg(not(feature = "system-alloc"))]
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// mimalloc's `mi_option_generic_collect` (position 34 of `mi_option_e`
/// in the same header): a thread's heap collects the blocks other threads
/// freed into its pages every this many allocations that miss its free
/// lists (v3 default 10,000; checked every 1,000).
#[cfg(not(feature = "system-alloc"))]
const MI_OPTION_GENERIC_COLLECT: libmimalloc_sys::mi_option_t = 34;

/// What a crawl sets `generic_collect` to: at every check.
#[cfg(not(feature = "system-alloc"))]
const CRAWL_GENERIC_COLLECT: std::ffi::c_long = 1000;

/// Makes mimalloc return freed memory to the OS at once instead of after
/// its default 1 s delay. A crawl frees large page buffers in bursts (a run
/// of 1-8 MB pages); with the delay its RSS peaked at 360-400 MB on
/// rust-doc, with immediate purging at about 200 MB, at the same speed
/// (docs/results.md, "Crawl benchmark"). Batch commands keep the delay:
/// there immediate purging made every page's buffers fault in afresh (12%
/// of a single-core `dedup` in perf, most of it page faults).
///
/// It also makes each thread collect the blocks that other threads freed
/// into its pages ten times as often: a page analyzed on one thread is
/// freed on the decider's once decided, and until the analyzing thread
/// collects, those pages stay committed. On rust-doc the crawl's peak RSS
/// went from 238-242 MB to 224-231 MB (three alternated pairs, the same
/// speed; docs/results.md, issue 27's twenty-first pass).
///
/// Called by `crawl` before it starts any thread. A `MIMALLOC_PURGE_DELAY`
/// or `MIMALLOC_GENERIC_COLLECT` set in the environment wins.
#[cfg(not(feature = "system-alloc"))]
#[allow(unsafe_code)] // the binary's one documented unsafe block (the workspace denies it)
pub(crate) fn keep_crawl_memory_low() {
    let unset = |name: &str| std::env::var_os(name).is_none();
    // SAFETY: each call sets one integer option; called before the
    // command starts any other thread.
    unsafe {
        if unset("MIMALLOC_PURGE_DELAY") {
            libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 0);
        }
        if unset("MIMALLOC_GENERIC_COLLECT") {
            libmimalloc_sys::mi_option_set(MI_OPTION_GENERIC_COLLECT, CRAWL_GENERIC_COLLECT);
        }
    }
}

#[cfg(feature = "system-alloc")]
pub(crate) fn keep_crawl_memory_low() {}

#[cfg(all(test, not(feature = "system-alloc")))]
mod tests {
    use super::*;

    #[test]
    #[allow(unsafe_code)] // reads back the options keep_crawl_memory_low sets
    fn option_constants_name_mimallocs_options() {
        // Untouched in this test binary (main never runs): each position
        // must read its option's v3 default, which the crawl changes.
        let options = [
            ("MIMALLOC_PURGE_DELAY", MI_OPTION_PURGE_DELAY, 1000, 0),
            (
                "MIMALLOC_GENERIC_COLLECT",
                MI_OPTION_GENERIC_COLLECT,
                10_000,
                CRAWL_GENERIC_COLLECT,
            ),
        ];
        for (env, option, default, crawl) in options {
            if std::env::var_os(env).is_some() {
                continue; // the environment chose a value; nothing to recognize
            }
            // SAFETY: reads one integer option.
            let value = unsafe { libmimalloc_sys::mi_option_get(option) };
            assert_eq!(value, default, "{env}");
            assert_ne!(value, crawl, "{env}");
        }
    }
}
