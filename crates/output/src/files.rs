//! Files that appear under their final name only when complete:
//! [`AtomicFile`] (a hidden temporary, gone if dropped) and
//! [`PartialFile`] (a visible `NAME.partial` that stays).

use std::io::Write;
use std::path::{Path, PathBuf};

use neardup::{Error, Result};

/// A file written under a temporary name in its final directory and
/// renamed over the final name by [`AtomicFile::commit`]. Dropped without a
/// commit, the temporary file is removed and the final name is untouched.
#[derive(Debug)]
pub struct AtomicFile {
    out: std::io::BufWriter<tempfile::NamedTempFile>,
    path: PathBuf,
}

impl AtomicFile {
    /// Starts writing `path` (its directory must exist).
    ///
    /// # Errors
    /// If the temporary file cannot be created.
    pub fn create(path: &Path) -> Result<AtomicFile> {
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let prefix = format!(".{name}.");
        let mut builder = tempfile::Builder::new();
        builder.prefix(&prefix).suffix(".tmp");
        // Temporary files are owner-only by default; output files should
        // get the usual mode (0666 less the umask), like any created file.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder.tempfile_in(dir).map_err(|e| Error::io(path, e))?;
        Ok(AtomicFile {
            out: std::io::BufWriter::new(tmp),
            path: path.to_owned(),
        })
    }

    /// The final path.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flushes, syncs to disk, and renames the file into place.
    ///
    /// # Errors
    /// If any of those fails; the final name is then untouched.
    pub fn commit(self) -> Result<()> {
        let path = self.path;
        let tmp = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&path, e.into_error()))?;
        // Data before name: without the sync a crash just after the rename
        // could leave an empty file under the final name on some filesystems.
        tmp.as_file().sync_all().map_err(|e| Error::io(&path, e))?;
        tmp.persist(&path).map_err(|e| Error::io(&path, e.error))?;
        Ok(())
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// A file appended under a visible temporary name (`NAME.partial`) and
/// renamed to its final name by [`PartialFile::commit`]. Unlike
/// [`AtomicFile`] it stays when dropped: it holds what a killed or failed
/// run wrote.
#[derive(Debug)]
pub struct PartialFile {
    /// Large enough for a window of verdict lines: one write per checkpoint.
    out: std::io::BufWriter<std::fs::File>,
    partial: PathBuf,
    path: PathBuf,
}

impl PartialFile {
    /// Starts `partial` afresh (truncating what an earlier run left); it
    /// becomes `path` on commit.
    ///
    /// # Errors
    /// If the file cannot be created.
    pub fn create(partial: &Path, path: &Path) -> Result<PartialFile> {
        let file = std::fs::File::create(partial).map_err(|e| Error::io(partial, e))?;
        Ok(PartialFile {
            out: std::io::BufWriter::with_capacity(1 << 20, file),
            partial: partial.to_owned(),
            path: path.to_owned(),
        })
    }

    /// Flushes, syncs to disk, and renames the file to its final name.
    ///
    /// # Errors
    /// If any of those fails; the final name is then untouched.
    pub fn commit(self) -> Result<()> {
        let file = self
            .out
            .into_inner()
            .map_err(|e| Error::io(&self.partial, e.into_error()))?;
        file.sync_all().map_err(|e| Error::io(&self.partial, e))?;
        std::fs::rename(&self.partial, &self.path).map_err(|e| Error::io(&self.path, e))
    }
}

impl Write for PartialFile {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.out.write(buf)
    }
    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}
