//! [`ServeOptions`]: the server's limits and access control.

use std::time::Duration;

/// Server limits and access control.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    /// Largest request body, in bytes (413 above).
    pub max_body: usize,
    /// Longest a request may take once its body has arrived (504 after).
    pub timeout: Duration,
    /// Longest the upload of a request body may take, from the end of its
    /// headers (408 after).
    pub body_timeout: Duration,
    /// Bytes of request bodies held in memory at once, over all requests
    /// (503 above): bounds memory whatever the number of clients.
    pub max_body_memory: usize,
    /// Longest wait for a request's headers once its first byte arrived
    /// (the connection is closed after).
    pub header_timeout: Duration,
    /// Longest a connection may stay open without a request in progress
    /// (keep-alive included; closed after).
    pub idle_timeout: Duration,
    /// Open connections per client IP address (503 and closed above).
    pub max_connections_per_address: usize,
    /// Requests in flight on `/v1/*` before new ones get 503.
    pub max_concurrency: usize,
    /// Most pages in one batch (400 above).
    pub max_batch: usize,
    /// Bearer token required on every endpoint but `/healthz`, if set.
    pub token: Option<String>,
    /// Threads analyzing batches and single pages over 256 KB (smaller
    /// single checks are analyzed on the async runtime's threads); 0 means
    /// one per core.
    pub workers: usize,
}

impl Default for ServeOptions {
    fn default() -> ServeOptions {
        ServeOptions {
            max_body: 16 << 20,
            timeout: Duration::from_secs(30),
            body_timeout: Duration::from_secs(30),
            max_body_memory: 256 << 20,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            max_connections_per_address: 256,
            max_concurrency: 256,
            max_batch: 1000,
            token: None,
            workers: 0,
        }
    }
}
