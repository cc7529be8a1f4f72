//! [`SharedDeduper`]: a deduper shared by tokio tasks.

use std::sync::Arc;

use crate::deduper::Deduper;

/// A [`Deduper`] shared by async tasks: analysis runs on the blocking pool
/// under a read lock, many pages at once; decisions take the write lock
/// briefly, one at a time, in the order the tasks reach it.
#[derive(Clone, Debug)]
pub struct SharedDeduper {
    inner: Arc<std::sync::RwLock<Deduper>>,
}

impl SharedDeduper {
    /// Wraps a deduper for sharing.
    pub fn new(deduper: Deduper) -> SharedDeduper {
        SharedDeduper {
            inner: Arc::new(std::sync::RwLock::new(deduper)),
        }
    }

    /// Checks a page without blocking the async runtime (feature `tokio`).
    ///
    /// # Errors
    /// If the document store fails, a blocking task panicked or the lock
    /// was poisoned by a panic.
    #[cfg(feature = "tokio")]
    pub async fn check(
        &self,
        url: String,
        body: Vec<u8>,
        content_type: Option<String>,
    ) -> crate::Result<crate::verdict::Verdict> {
        let inner = Arc::clone(&self.inner);
        tokio::task::spawn_blocking(move || {
            // Analysis needs no lock: a decision in progress on another
            // thread does not wait for it, nor it for the decision.
            let analyzer = inner.read().map_err(|_| poisoned())?.analyzer();
            let analyzed = analyzer.analyze(&url, &url, &body, content_type.as_deref());
            let mut d = inner.write().map_err(|_| poisoned())?;
            d.decide(analyzed)
        })
        .await
        .map_err(|e| crate::Error::runtime("check task", e))?
    }

    /// Runs `f` with the deduper locked for reading: [`Deduper::analyze`]
    /// runs here, many threads at once. Blocks while a decision holds the
    /// write lock, so call it off the async runtime.
    ///
    /// # Errors
    /// If the lock was poisoned by a panic.
    pub fn read<R>(&self, f: impl FnOnce(&Deduper) -> R) -> crate::Result<R> {
        let d = self.inner.read().map_err(|_| poisoned())?;
        Ok(f(&d))
    }

    /// Runs `f` with the deduper locked for writing (stats, removal).
    ///
    /// # Errors
    /// If the lock was poisoned by a panic.
    pub fn with<R>(&self, f: impl FnOnce(&mut Deduper) -> R) -> crate::Result<R> {
        let mut d = self.inner.write().map_err(|_| poisoned())?;
        Ok(f(&mut d))
    }
}

fn poisoned() -> crate::Error {
    crate::Error::Poisoned {
        lock: "deduper".into(),
    }
}
