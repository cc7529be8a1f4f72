//! The index file under redb: what neardup checks in redb's header before
//! opening it, and the storage backend that keeps a damaged file from being
//! written to.
//!
//! # What redb checksums (file format 2, redb 2.x)
//! - each of the header's two commit slots (bytes 64..192 and 192..320):
//!   an xxh3-128 checksum of the slot;
//! - every B-tree page reachable from a commit: its checksum is stored in
//!   its parent (the root's in the commit slot).
//!
//! redb verifies the page checksums only when it repairs a file (after a
//! crash, or in [`redb::Database::check_integrity`]), never on a plain read.
//! Not checksummed: the first 64 bytes of the header (magic number, the
//! "god byte" at byte 9 with the primary-slot, recovery-required and
//! two-phase-commit bits, the page size and region geometry), the
//! allocator state (which pages are free: region headers and the region
//! tracker page) and every page no commit reaches (free pages, the unused
//! tail of a B-tree page).
//!
//! The store therefore runs redb's integrity check on every open (it
//! verifies every checksum and rebuilds the allocator state from the
//! B-trees), commits with two-phase commit (so a checksum failure of the
//! newest commit is an error, not a silent roll-back to the commit before
//! it), and checks here what the checksums do not cover but can be told
//! from an intact header: [`check_header`].
//!
//! # Writes
//! [`GuardedFile`] is the file as redb sees it. While the file is opened
//! and checked, redb's writes (its recovery of a crashed file, the
//! recovery-required bit it sets) are held in memory; only once the whole
//! check passed are they written to the file ([`Shared::apply`]). Once the
//! store finds the file damaged ([`Shared::freeze`]), every write fails:
//! nothing, not even redb's own bookkeeping on close, is written to a
//! damaged file.

use std::fs::File;
use std::io::Read as _;
use std::path::Path;
use std::sync::{Arc, Mutex, MutexGuard};

use redb::backends::FileBackend;
use redb::StorageBackend;

/// redb's magic number (the first 9 bytes of every redb file).
const MAGIC: [u8; 9] = [b'r', b'e', b'd', b'b', 0x1A, 0x0A, 0xA9, 0x0D, 0x0A];
/// The god byte: primary slot, recovery required, two-phase commit.
const GOD_BYTE: usize = 9;
const PRIMARY_BIT: u8 = 1;
const RECOVERY_REQUIRED: u8 = 2;
const TWO_PHASE_COMMIT: u8 = 4;
/// redb's page size (the only one it writes).
const PAGE_SIZE: u32 = 4096;
/// The commit slots: offset, size, and within a slot the transaction id
/// and the checksum (of the bytes before it).
const SLOTS: [usize; 2] = [64, 192];
const SLOT_SIZE: usize = 128;
const SLOT_TRANSACTION_ID: usize = 104;
const SLOT_CHECKSUM: usize = 112;
/// The header's length: 64 bytes, then the two slots.
pub(super) const HEADER_LEN: usize = 320;

/// A commit slot as neardup needs it.
struct Slot {
    /// The file format version the slot was written with.
    version: u8,
    transaction_id: u64,
    /// The stored checksum matches the slot's bytes.
    intact: bool,
}

fn slot(header: &[u8], at: usize) -> Slot {
    let bytes = &header[at..at + SLOT_SIZE];
    let le = |range: std::ops::Range<usize>| -> u128 {
        bytes[range]
            .iter()
            .rev()
            .fold(0u128, |acc, b| (acc << 8) | u128::from(*b))
    };
    let stored = le(SLOT_CHECKSUM..SLOT_SIZE);
    let computed = xxhash_rust::xxh3::xxh3_128_with_seed(&bytes[..SLOT_CHECKSUM], 0);
    Slot {
        version: bytes[0],
        // At most 8 bytes: fits.
        transaction_id: u64::try_from(le(SLOT_TRANSACTION_ID..SLOT_TRANSACTION_ID + 8))
            .unwrap_or(u64::MAX),
        intact: stored == computed,
    }
}

/// Checks the parts of redb's header its checksums do not cover, on the
/// file's first [`HEADER_LEN`] bytes; `Err` says what is wrong.
///
/// Refused: a wrong magic number or page size; bits or padding that redb
/// never sets (it writes zeros there); a commit slot of an unknown format
/// version; and, in a file closed cleanly (recovery-required bit clear),
/// a primary slot whose checksum fails (redb would read its roots without
/// checking them) or that is older than an intact secondary slot (redb
/// makes each commit the primary: a flipped primary bit would silently
/// open the commit before the last one). A file with the recovery bit set
/// is left to redb's recovery, which checks both slots itself.
pub(super) fn check_header(header: &[u8]) -> Result<(), String> {
    if header.len() < HEADER_LEN {
        return Err(format!(
            "{} bytes, shorter than redb's {HEADER_LEN}-byte header",
            header.len()
        ));
    }
    if header[..MAGIC.len()] != MAGIC {
        return Err("not a redb file (wrong magic number)".into());
    }
    let god = header[GOD_BYTE];
    if god & !(PRIMARY_BIT | RECOVERY_REQUIRED | TWO_PHASE_COMMIT) != 0 {
        return Err(format!(
            "header byte {GOD_BYTE} is {god:#04x}: bits redb never sets"
        ));
    }
    if header[10..12] != [0, 0] || header[40..64].iter().any(|b| *b != 0) {
        return Err("header padding is not zero".into());
    }
    let page_size = u32::from_le_bytes([header[12], header[13], header[14], header[15]]);
    if page_size != PAGE_SIZE {
        return Err(format!(
            "header page size {page_size}, redb writes {PAGE_SIZE}"
        ));
    }
    let slots = SLOTS.map(|at| slot(header, at));
    for (n, s) in slots.iter().enumerate() {
        if !(2..=3).contains(&s.version) {
            return Err(format!(
                "commit slot {n} has file format version {}",
                s.version
            ));
        }
    }
    if god & RECOVERY_REQUIRED == 0 {
        let primary = usize::from(god & PRIMARY_BIT);
        let (p, s) = (&slots[primary], &slots[primary ^ 1]);
        if !p.intact {
            return Err(format!(
                "the primary commit slot ({primary}) fails its checksum"
            ));
        }
        if s.intact && s.transaction_id > p.transaction_id {
            return Err(format!(
                "the primary commit slot ({primary}, transaction {}) is older than the other \
                 ({}): the header's primary bit was changed",
                p.transaction_id, s.transaction_id
            ));
        }
    }
    Ok(())
}

/// Reads the file's first [`HEADER_LEN`] bytes (fewer if it is shorter).
pub(super) fn read_header(path: &Path) -> std::io::Result<Vec<u8>> {
    let mut bytes = Vec::with_capacity(HEADER_LEN);
    File::open(path)?
        .take(HEADER_LEN as u64)
        .read_to_end(&mut bytes)?;
    Ok(bytes)
}

/// Where redb's writes go.
#[derive(Debug)]
enum Mode {
    /// Held in memory (opening and checking): `writes` in order, and the
    /// length redb gave the file.
    Held {
        writes: Vec<(u64, Vec<u8>)>,
        len: Option<u64>,
    },
    /// To the file.
    Direct,
    /// Refused: the file is damaged.
    Frozen,
}

/// The file and the mode of its writes, shared by the store and the
/// backend redb owns.
#[derive(Debug)]
pub(super) struct Shared {
    file: FileBackend,
    mode: Mutex<Mode>,
}

fn frozen() -> std::io::Error {
    std::io::Error::other("the index file is damaged: neardup writes nothing to it")
}

impl Shared {
    /// Opens `path` for redb (locked against other processes), holding
    /// writes until [`Shared::apply`].
    ///
    /// # Errors
    /// As [`FileBackend::new`]: [`redb::DatabaseError::DatabaseAlreadyOpen`]
    /// when another process has it open.
    pub(super) fn open(path: &Path) -> Result<Arc<Shared>, redb::DatabaseError> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open(path)?;
        Ok(Arc::new(Shared {
            file: FileBackend::new(file)?,
            mode: Mutex::new(Mode::Held {
                writes: Vec::new(),
                len: None,
            }),
        }))
    }

    fn mode(&self) -> MutexGuard<'_, Mode> {
        // A panic while the lock was held (inside redb) leaves the mode
        // as it was: still meaningful.
        self.mode
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Writes what was held to the file, in the order redb's own commit
    /// uses (everything but the header page, sync, then the header, sync),
    /// and lets later writes through.
    ///
    /// # Errors
    /// I/O errors; the store is then frozen.
    pub(super) fn apply(&self) -> std::io::Result<()> {
        let mut mode = self.mode();
        let Mode::Held { writes, len } = &*mode else {
            return Ok(());
        };
        let header_page = u64::from(PAGE_SIZE);
        let result = (|| {
            let now = self.file.len()?;
            if let Some(len) = *len {
                if len > now {
                    self.file.set_len(len)?;
                }
            }
            for (at, bytes) in writes.iter().filter(|(at, _)| *at >= header_page) {
                self.file.write(*at, bytes)?;
            }
            self.file.sync_data(false)?;
            for (at, bytes) in writes.iter().filter(|(at, _)| *at < header_page) {
                self.file.write(*at, bytes)?;
            }
            if let Some(len) = *len {
                if len < now {
                    self.file.set_len(len)?;
                }
            }
            self.file.sync_data(false)
        })();
        *mode = if result.is_ok() {
            Mode::Direct
        } else {
            Mode::Frozen
        };
        result
    }

    /// Refuses every later write (and drops those held).
    pub(super) fn freeze(&self) {
        *self.mode() = Mode::Frozen;
    }
}

/// The backend redb is given: the shared file, see [`Mode`].
#[derive(Debug)]
pub(super) struct GuardedFile(pub(super) Arc<Shared>);

impl StorageBackend for GuardedFile {
    fn len(&self) -> std::io::Result<u64> {
        match &*self.0.mode() {
            Mode::Held { len: Some(len), .. } => Ok(*len),
            _ => self.0.file.len(),
        }
    }

    fn read(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mode = self.0.mode();
        let Mode::Held { writes, .. } = &*mode else {
            drop(mode);
            return self.0.file.read(offset, len);
        };
        // The file's bytes (zeros past its end), then the held writes over
        // them in the order they were made.
        let on_disk = self.0.file.len()?;
        let end = offset.saturating_add(len as u64);
        let mut out = if end <= on_disk {
            self.0.file.read(offset, len)?
        } else {
            let mut v = if offset < on_disk {
                let n = usize::try_from(on_disk - offset).map_err(std::io::Error::other)?;
                self.0.file.read(offset, n)?
            } else {
                Vec::new()
            };
            v.resize(len, 0);
            v
        };
        for (at, bytes) in writes {
            let w_end = at.saturating_add(bytes.len() as u64);
            if w_end <= offset || *at >= end {
                continue;
            }
            let from = at.max(&offset);
            let to = w_end.min(end);
            let (Ok(dst), Ok(src), Ok(n)) = (
                usize::try_from(from - offset),
                usize::try_from(from - at),
                usize::try_from(to - from),
            ) else {
                return Err(std::io::Error::other("held write out of range"));
            };
            out[dst..dst + n].copy_from_slice(&bytes[src..src + n]);
        }
        Ok(out)
    }

    fn set_len(&self, len: u64) -> std::io::Result<()> {
        let mut mode = self.0.mode();
        match &mut *mode {
            Mode::Held { writes, len: held } => {
                // Held writes past the new end are cut, as the file would cut them.
                for (at, bytes) in writes.iter_mut() {
                    if *at >= len {
                        bytes.clear();
                    } else if let Ok(keep) = usize::try_from(len - *at) {
                        bytes.truncate(keep);
                    }
                }
                *held = Some(len);
                Ok(())
            }
            Mode::Direct => {
                drop(mode);
                self.0.file.set_len(len)
            }
            Mode::Frozen => Err(frozen()),
        }
    }

    fn sync_data(&self, eventual: bool) -> std::io::Result<()> {
        match &*self.0.mode() {
            Mode::Held { .. } => Ok(()),
            Mode::Direct => self.0.file.sync_data(eventual),
            Mode::Frozen => Err(frozen()),
        }
    }

    fn write(&self, offset: u64, data: &[u8]) -> std::io::Result<()> {
        let mut mode = self.0.mode();
        match &mut *mode {
            Mode::Held { writes, .. } => {
                writes.push((offset, data.to_vec()));
                Ok(())
            }
            Mode::Direct => {
                drop(mode);
                self.0.file.write(offset, data)
            }
            Mode::Frozen => Err(frozen()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn held_writes_are_read_back_over_the_file_and_past_its_end() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("f");
        std::fs::write(&path, [1u8; 10]).unwrap();
        let shared = Shared::open(&path).unwrap();
        let f = GuardedFile(Arc::clone(&shared));
        f.set_len(16).unwrap();
        f.write(8, &[2, 2, 2, 2]).unwrap();
        f.write(9, &[3]).unwrap();
        assert_eq!(f.len().unwrap(), 16);
        assert_eq!(
            f.read(6, 10).unwrap(),
            [1, 1, 2, 3, 2, 2, 0, 0, 0, 0],
            "file, held writes in order, zeros past the file's end"
        );
        assert_eq!(
            std::fs::read(&path).unwrap(),
            [1u8; 10],
            "nothing written yet"
        );
        shared.apply().unwrap();
        let mut expected = vec![1u8; 8];
        expected.extend([2, 3, 2, 2, 0, 0, 0, 0]);
        assert_eq!(std::fs::read(&path).unwrap(), expected);
        shared.freeze();
        assert!(f.write(0, &[9]).is_err());
        assert!(f.set_len(1).is_err());
        assert_eq!(std::fs::read(&path).unwrap(), expected);
    }
}

thread_local! {
    /// Set while [`caught`] runs redb code on this thread: its panics are
    /// turned into errors, so the panic hook must not print them.
    static QUIET_PANICS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Installs (once per process) a panic hook that stays silent for panics
/// on a thread inside [`caught`] and hands every other panic to the hook
/// that was there before.
fn install_quiet_hook() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !QUIET_PANICS.with(std::cell::Cell::get) {
                previous(info);
            }
        }));
    });
}

/// Runs `f`; a panic comes back as `Err` with its message.
///
/// redb 2 does not report every damaged file as an error: a truncated file
/// fails an `assert!` in its page manager while opening (the file must be
/// as long as its header's layout says), a flipped byte an `assert_eq!`,
/// and damaged pages can fail others while reading. The panic is caught
/// at the boundary where redb is called (opening, reading, committing,
/// closing), so every command that opens an index fails with a clear
/// error (exit 2) instead of exit 101; the store is then marked damaged
/// and never written to again (`RedbStore::guard`).
pub(super) fn caught<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    install_quiet_hook();
    let was = QUIET_PANICS.with(|q| q.replace(true));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET_PANICS.with(|q| q.set(was));
    outcome.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| (*s).to_owned())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "unknown panic".into())
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ")
    })
}
