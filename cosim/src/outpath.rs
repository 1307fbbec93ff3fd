//! Output files: every path a command will write (`--dump`, `--wave`, `--junit`, `--out`,
//! reports) is checked before the work starts, and every write error during or after the
//! work becomes one line naming the flag and the path. Nothing is claimed that was not written.

use std::io::Write;
use std::path::{Path, PathBuf};

/// `{flag} {path}: {what}` — the one-line message of every output-path problem.
pub fn message(flag: &str, path: &Path, what: impl std::fmt::Display) -> String {
    let flag = if flag.is_empty() {
        String::new()
    } else {
        format!("{flag} ")
    };
    format!("{flag}{}: {what}", path.display())
}

/// The message of a failed write to `path`.
pub fn write_error(flag: &str, path: &Path, e: &std::io::Error) -> String {
    message(flag, path, format_args!("cannot write: {e}"))
}

/// Check, before any work, that `path` can be written as a file: it is not a directory, not a
/// read-only file (refused even where the permissions would let the superuser write it), and
/// when it does not exist yet, its directory exists and accepts new files. Nothing is created
/// or truncated.
pub fn check_writable(flag: &str, path: &Path) -> Result<(), String> {
    let bad = |what: String| Err(message(flag, path, what));
    if path.as_os_str().is_empty() {
        return Err(format!("{flag}: empty path; give a file to write"));
    }
    match std::fs::metadata(path) {
        Ok(m) if m.is_dir() => bad("is a directory; give a file path to write".into()),
        Ok(m) if m.permissions().readonly() => bad("is read-only".into()),
        Ok(_) => match std::fs::OpenOptions::new().write(true).open(path) {
            Ok(_) => Ok(()),
            Err(e) => bad(format!("cannot write: {e}")),
        },
        Err(_) => {
            let parent = match path.parent() {
                Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
                _ => PathBuf::from("."),
            };
            if !parent.is_dir() {
                return bad(format!(
                    "cannot write: directory {} does not exist",
                    parent.display()
                ));
            }
            match tempfile::Builder::new()
                .prefix(".wf-probe-")
                .tempfile_in(&parent)
            {
                Ok(_) => Ok(()),
                Err(e) => bad(format!("cannot create files in {}: {e}", parent.display())),
            }
        }
    }
}

/// Write `bytes` to `path`; the error names the flag and the path.
pub fn write_file(flag: &str, path: &Path, bytes: &[u8]) -> Result<(), String> {
    let mut f = std::fs::File::create(path).map_err(|e| write_error(flag, path, &e))?;
    f.write_all(bytes)
        .and_then(|_| f.flush())
        .map_err(|e| write_error(flag, path, &e))
}

/// A file first written in the system temp directory and copied to its destination only when
/// complete, so a writer that cannot report errors itself (the Verilator VCD writer deadlocks
/// on a failed write) never writes to the destination directly, and the copy's result is
/// checked.
pub struct Staged {
    tmp: tempfile::NamedTempFile,
    dest: PathBuf,
    flag: String,
}

impl Staged {
    pub fn new(flag: &str, dest: &Path) -> Result<Staged, String> {
        let tmp = tempfile::Builder::new()
            .prefix(".wf-staged-")
            .tempfile()
            .map_err(|e| {
                message(
                    flag,
                    dest,
                    format_args!(
                        "cannot stage the file in {}: {e}",
                        std::env::temp_dir().display()
                    ),
                )
            })?;
        Ok(Staged {
            tmp,
            dest: dest.to_path_buf(),
            flag: flag.to_string(),
        })
    }

    /// Where the writer writes until [`Staged::commit`].
    pub fn path(&self) -> &Path {
        self.tmp.path()
    }

    pub fn dest(&self) -> &Path {
        &self.dest
    }

    /// A handle on the staged file.
    pub fn file(&self) -> Result<std::fs::File, String> {
        self.tmp
            .reopen()
            .map_err(|e| write_error(&self.flag, self.tmp.path(), &e))
    }

    /// Copy the staged file to its destination. `min_len`: fewer bytes means the writer
    /// failed.
    pub fn commit(self, min_len: u64) -> Result<(), String> {
        let len = std::fs::metadata(self.tmp.path())
            .map(|m| m.len())
            .unwrap_or(0);
        if len < min_len {
            return Err(message(
                &self.flag,
                &self.dest,
                format_args!(
                    "the writer produced {len} bytes in {} (disk full?)",
                    self.tmp.path().display()
                ),
            ));
        }
        let mut src = std::fs::File::open(self.tmp.path())
            .map_err(|e| write_error(&self.flag, &self.dest, &e))?;
        let mut dst = std::fs::File::create(&self.dest)
            .map_err(|e| write_error(&self.flag, &self.dest, &e))?;
        let n = std::io::copy(&mut src, &mut dst)
            .and_then(|n| dst.flush().map(|_| n))
            .map_err(|e| write_error(&self.flag, &self.dest, &e))?;
        if n != len {
            return Err(message(
                &self.flag,
                &self.dest,
                format_args!("wrote {n} of {len} bytes"),
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refuses_directories_read_only_files_and_missing_directories() {
        let d = tempfile::tempdir().unwrap();
        let e = check_writable("--dump", d.path()).unwrap_err();
        assert!(
            e.starts_with("--dump ") && e.contains("is a directory"),
            "{e}"
        );
        let ro = d.path().join("ro.txt");
        std::fs::write(&ro, "x").unwrap();
        let mut p = std::fs::metadata(&ro).unwrap().permissions();
        p.set_readonly(true);
        std::fs::set_permissions(&ro, p).unwrap();
        assert!(check_writable("--junit", &ro)
            .unwrap_err()
            .contains("read-only"));
        let missing = d.path().join("nope").join("x.xml");
        assert!(check_writable("--junit", &missing)
            .unwrap_err()
            .contains("does not exist"));
        let fine = d.path().join("new.txt");
        check_writable("--out", &fine).unwrap();
        assert!(!fine.exists(), "the check creates nothing");
        assert_eq!(
            std::fs::read_dir(d.path()).unwrap().count(),
            1,
            "no probe left"
        );
    }

    #[test]
    fn write_errors_name_the_path() {
        let e = write_file("--junit", Path::new("/dev/full"), b"hello").unwrap_err();
        assert!(e.starts_with("--junit /dev/full: cannot write"), "{e}");
        let s = Staged::new("--wave", Path::new("/dev/full")).unwrap();
        std::fs::write(s.path(), b"data").unwrap();
        let e = s.commit(1).unwrap_err();
        assert!(e.starts_with("--wave /dev/full: cannot write"), "{e}");
    }
}
