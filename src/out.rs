//! Standard output of every command, in one place: a closed pipe (`warpforge … | head -1`)
//! is a normal end (exit 0, quietly), any other write error is exit 2 with one line; with
//! `--json`, exactly one JSON object is printed, an error included.

use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};

/// `--json` was given (set once, from the raw arguments, before parsing).
static JSON_MODE: AtomicBool = AtomicBool::new(false);
/// A JSON object is already on stdout.
static JSON_PRINTED: AtomicBool = AtomicBool::new(false);

pub fn set_json_mode(on: bool) {
    JSON_MODE.store(on, Ordering::SeqCst);
}

fn stdout_failed(e: std::io::Error) -> ! {
    if e.kind() == std::io::ErrorKind::BrokenPipe {
        std::process::exit(0);
    }
    eprintln!("error: stdout: cannot write: {e}");
    std::process::exit(2);
}

/// Write to stdout (used by the `out!` and `outln!` macros).
pub fn write(args: std::fmt::Arguments) {
    if let Err(e) = std::io::stdout().lock().write_fmt(args) {
        stdout_failed(e);
    }
}

/// Flush stdout before exiting; a failure here is treated like any other write error.
pub fn finish() {
    if let Err(e) = std::io::stdout().flush() {
        stdout_failed(e);
    }
}

/// Print one JSON object on one line.
pub fn json(v: &serde_json::Value) {
    JSON_PRINTED.store(true, Ordering::SeqCst);
    write(format_args!("{v}\n"));
}

/// Report a failure: one line `error: …` on stderr and, with `--json` when no object was
/// printed yet, `{"error": "…"}` on stdout.
pub fn error(msg: &str) {
    let line = msg.lines().next().unwrap_or("");
    eprintln!("error: {line}");
    if JSON_MODE.load(Ordering::SeqCst) && !JSON_PRINTED.load(Ordering::SeqCst) {
        json(&serde_json::json!({ "error": line }));
    }
}

#[macro_export]
macro_rules! out {
    ($($t:tt)*) => { $crate::out::write(format_args!($($t)*)) };
}

#[macro_export]
macro_rules! outln {
    () => { $crate::out::write(format_args!("\n")) };
    ($($t:tt)*) => { $crate::out::write(format_args!("{}\n", format_args!($($t)*))) };
}
