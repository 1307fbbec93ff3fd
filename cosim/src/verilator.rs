//! The run-time Verilator bridge: `verilator --cc` with a unique prefix per design, a C++ shim
//! rendered from an askama template, compiled with `cc` into a shared library and loaded with
//! `libloading`. Builds are cached by a hash of everything that goes into them, so a second
//! run of the same design loads the library without rebuilding.

use askama::Template;
use libloading::Library;
use std::collections::HashMap;
use std::ffi::{c_void, CString};
use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;
use std::time::Instant;
use warpforge_contract::{Layout, Manifest};
use warpforge_hdl::Design;

/// Bumped whenever the shim or the build recipe changes, so stale cache entries are ignored.
const RECIPE_VERSION: &str = "wf-bridge-5";
/// Optimisation level of the C++ build (Verilated model and shim) unless `WARPFORGE_CXX_OPT`
/// says otherwise.
pub const OPT_LEVEL: u32 = 2;

/// The C++ optimisation level: `$WARPFORGE_CXX_OPT` (0–3) or [`OPT_LEVEL`]. `-O1` builds in
/// 60–75 % of `-O2`'s time and runs up to a third slower: the better trade for many short
/// runs (the test suite sets it); benchmarks and long regressions keep the default.
pub fn opt_level() -> Result<u32, BridgeError> {
    match std::env::var("WARPFORGE_CXX_OPT") {
        Err(_) => Ok(OPT_LEVEL),
        Ok(v) if v.is_empty() => Ok(OPT_LEVEL),
        Ok(v) => match v.parse::<u32>() {
            Ok(n) if n <= 3 => Ok(n),
            _ => Err(BridgeError::Missing(format!(
                "WARPFORGE_CXX_OPT = {v:?}: must be 0, 1, 2 or 3 (the C++ optimisation level of Verilator builds; unset for {OPT_LEVEL})"
            ))),
        },
    }
}

#[derive(Debug)]
pub enum BridgeError {
    /// A required tool is not installed.
    Missing(String),
    /// A build step failed; the message names the step and the log.
    Build(String),
    /// The library could not be loaded.
    Load(String),
    /// An output file (the waveform) could not be written; the message names it.
    Output(String),
}

impl fmt::Display for BridgeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BridgeError::Missing(m)
            | BridgeError::Build(m)
            | BridgeError::Load(m)
            | BridgeError::Output(m) => f.write_str(m),
        }
    }
}

impl std::error::Error for BridgeError {}

/// Where compiled designs are cached, and which setting chose it: `$WARPFORGE_CACHE`, else
/// `$XDG_CACHE_HOME/warpforge`, else `$HOME/.cache/warpforge`, else a folder in the system
/// temp dir. A variable set to the empty string counts as unset.
fn cache_source() -> (PathBuf, String) {
    if let Some(p) = CACHE_OVERRIDE.with(|c| c.borrow().clone()) {
        return (p, "the build cache".into());
    }
    let var = |name: &str| std::env::var_os(name).filter(|v| !v.is_empty());
    if let Some(p) = var("WARPFORGE_CACHE") {
        return (PathBuf::from(p), "WARPFORGE_CACHE".into());
    }
    if let Some(p) = var("XDG_CACHE_HOME") {
        return (PathBuf::from(p).join("warpforge"), "XDG_CACHE_HOME".into());
    }
    if let Some(p) = var("HOME") {
        return (
            PathBuf::from(p).join(".cache").join("warpforge"),
            "HOME".into(),
        );
    }
    (
        std::env::temp_dir().join("warpforge-cache"),
        "the temp directory".into(),
    )
}

/// Where compiled designs are cached (see [`cache_source`]).
pub fn cache_root() -> PathBuf {
    cache_source().0
}

/// The cache root, created if needed; an error names the path and the setting that chose it.
fn cache_dir() -> Result<PathBuf, BridgeError> {
    let (p, why) = cache_source();
    let bad = |what: String| {
        BridgeError::Missing(format!(
            "build cache {} (from {why}): {what}; set WARPFORGE_CACHE to a writable directory",
            p.display()
        ))
    };
    if p.exists() && !p.is_dir() {
        return Err(bad("not a directory".into()));
    }
    std::fs::create_dir_all(&p).map_err(|e| bad(e.to_string()))?;
    Ok(p)
}

thread_local! {
    static CACHE_OVERRIDE: std::cell::RefCell<Option<PathBuf>> = const { std::cell::RefCell::new(None) };
}

/// Run `f` with the build cache at `dir` on this thread (used to measure cold builds).
pub fn with_cache_root<T>(dir: &Path, f: impl FnOnce() -> T) -> T {
    let old = CACHE_OVERRIDE.with(|c| c.replace(Some(dir.to_path_buf())));
    let out = f();
    CACHE_OVERRIDE.with(|c| *c.borrow_mut() = old);
    out
}

/// FNV-1a, 64 bits: a stable hash for cache keys (std's hasher may change between releases).
pub fn fnv64(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for b in *part {
            h ^= *b as u64;
            h = h.wrapping_mul(0x0100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

fn verilator_path() -> Result<PathBuf, BridgeError> {
    crate::tools::require("verilator").map_err(|e| BridgeError::Missing(e.to_string()))
}

fn run(cmd: &mut Command, what: &str, log: &Path) -> Result<(), BridgeError> {
    let out = cmd
        .output()
        .map_err(|e| BridgeError::Build(format!("{what}: could not start: {e}")))?;
    let mut text = String::from_utf8_lossy(&out.stdout).into_owned();
    text.push_str(&String::from_utf8_lossy(&out.stderr));
    let _ = std::fs::write(log, &text);
    if out.status.success() {
        Ok(())
    } else {
        let first = text
            .lines()
            .find(|l| l.contains("rror"))
            .unwrap_or("")
            .trim()
            .to_string();
        Err(BridgeError::Build(format!(
            "{what} failed ({}); log: {} {first}",
            out.status,
            log.display()
        )))
    }
}

fn verilator_root(verilator: &Path) -> Result<PathBuf, BridgeError> {
    let out = Command::new(verilator)
        .args(["--getenv", "VERILATOR_ROOT"])
        .output()
        .map_err(|e| BridgeError::Build(format!("verilator --getenv: {e}")))?;
    let root = String::from_utf8_lossy(&out.stdout).trim().to_string();
    if root.is_empty() {
        return Err(BridgeError::Build(
            "verilator did not report VERILATOR_ROOT".into(),
        ));
    }
    Ok(PathBuf::from(root))
}

fn verilator_version(verilator: &Path) -> String {
    // Asked once per process: `verilator --version` starts Perl, which cost a random-program
    // run more than a small program's simulation.
    static SEEN: Mutex<Vec<(PathBuf, String)>> = Mutex::new(Vec::new());
    let mut seen = SEEN.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, v)) = seen.iter().find(|(p, _)| p == verilator) {
        return v.clone();
    }
    let v = Command::new(verilator)
        .arg("--version")
        .output()
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    seen.push((verilator.to_path_buf(), v.clone()));
    v
}

/// The C++ compiler, configured explicitly (there are no cargo build-script variables at
/// run time).
fn cxx(root: &Path, trace: bool, opt: u32) -> cc::Tool {
    let mut b = cc::Build::new();
    b.cpp(true)
        .target(env!("WARPFORGE_TARGET"))
        .host(env!("WARPFORGE_HOST"))
        .opt_level(opt)
        .debug(false)
        .pic(true)
        .warnings(false)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .include(root.join("include"))
        .include(root.join("include").join("vltstd"))
        .flag("-std=c++17")
        .flag("-faligned-new")
        .define("VM_TRACE", if trace { "1" } else { "0" })
        .define("VM_TRACE_VCD", if trace { "1" } else { "0" })
        .define("VL_THREADED", "1");
    b.get_compiler()
}

/// Compile `sources` to objects in `dir`, up to the machine's parallelism at once.
fn compile_objects(
    tool: &cc::Tool,
    sources: &[PathBuf],
    dir: &Path,
    extra_include: &[PathBuf],
) -> Result<Vec<PathBuf>, BridgeError> {
    let jobs = std::thread::available_parallelism()
        .map(|n| n.get())
        .unwrap_or(2);
    let objects: Vec<PathBuf> = sources
        .iter()
        .map(|src| {
            let stem = src.file_stem().unwrap().to_string_lossy().into_owned();
            dir.join(format!("{stem}.o"))
        })
        .collect();
    // Largest first, a new compile as soon as any finishes: Verilator's files differ in size
    // tenfold, and the slowest file of a fixed batch would hold back the rest.
    let mut order: Vec<usize> = (0..sources.len()).collect();
    let size = |k: usize| std::fs::metadata(&sources[k]).map(|m| m.len()).unwrap_or(0);
    order.sort_by_key(|&k| std::cmp::Reverse(size(k)));
    let mut pending = order.into_iter();
    let mut running: Vec<(std::process::Child, usize, PathBuf)> = vec![];
    loop {
        while running.len() < jobs {
            let Some(k) = pending.next() else { break };
            let (src, obj) = (&sources[k], &objects[k]);
            let log = obj.with_extension("log");
            let mut cmd = tool.to_command();
            for inc in extra_include {
                cmd.arg("-I").arg(inc);
            }
            cmd.arg("-c").arg(src).arg("-o").arg(obj);
            let child = cmd
                .stdout(std::process::Stdio::null())
                .stderr(
                    std::fs::File::create(&log)
                        .map_err(|e| BridgeError::Build(format!("{}: {e}", log.display())))?,
                )
                .spawn()
                .map_err(|e| BridgeError::Build(format!("C++ compiler could not start: {e}")))?;
            running.push((child, k, log));
        }
        if running.is_empty() {
            break;
        }
        let mut finished = None;
        for (i, (child, _, _)) in running.iter_mut().enumerate() {
            let status = child
                .try_wait()
                .map_err(|e| BridgeError::Build(format!("C++ compiler: {e}")))?;
            if let Some(status) = status {
                finished = Some((i, status));
                break;
            }
        }
        let Some((i, status)) = finished else {
            std::thread::sleep(std::time::Duration::from_millis(10));
            continue;
        };
        let (_, k, log) = running.swap_remove(i);
        if !status.success() {
            for (mut other, _, _) in running {
                let _ = other.kill();
                let _ = other.wait();
            }
            return Err(BridgeError::Build(format!(
                "C++ compile of {} failed; log: {}",
                sources[k].display(),
                log.display()
            )));
        }
    }
    Ok(objects)
}

/// Verilator's own runtime (verilated.cpp and friends), compiled once per Verilator version
/// and trace flag and shared by every design.
fn runtime_objects(root: &Path, version: &str, trace: bool) -> Result<Vec<PathBuf>, BridgeError> {
    let opt = opt_level()?;
    let key = fnv64(&[
        RECIPE_VERSION.as_bytes(),
        version.as_bytes(),
        &[trace as u8],
        &[opt as u8],
    ]);
    let cache = cache_dir()?;
    let dir = cache.join(format!("runtime-{key:016x}"));
    let mut names = vec!["verilated.cpp", "verilated_threads.cpp"];
    if trace {
        names.push("verilated_vcd_c.cpp");
    }
    let objs: Vec<String> = names.iter().map(|n| n.replace(".cpp", ".o")).collect();
    let objects: Vec<PathBuf> = objs.iter().map(|o| dir.join(o)).collect();
    if lookup(&dir, key) {
        return Ok(objects);
    }
    let tmp = make_temp_dir(&cache, "runtime")?;
    let sources: Vec<PathBuf> = names.iter().map(|n| root.join("include").join(n)).collect();
    compile_objects(&cxx(root, trace, opt), &sources, tmp.path(), &[])?;
    seal(tmp.path(), key, &objs)?;
    publish(tmp, &dir, key)?;
    Ok(objects)
}

fn io_err(e: std::io::Error) -> BridgeError {
    BridgeError::Build(format!("cache: {e}"))
}

/// An exclusive lock on `<dir>.lock`, held while `dir` is built (released when dropped), so
/// concurrent builders of one cache entry (test threads, parallel processes) build it once.
/// `None` when locking is not possible; the build then just goes ahead.
pub(crate) fn build_lock(dir: &Path) -> Option<std::fs::File> {
    let mut path = dir.as_os_str().to_owned();
    path.push(".lock");
    std::fs::create_dir_all(dir.parent()?).ok()?;
    let f = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(PathBuf::from(path))
        .ok()?;
    f.lock().ok()?;
    Some(f)
}

/// Temp folders are named `.tmp-<pid>-<what>-…` so a later run can tell whose they are.
pub(crate) fn make_temp_dir(parent: &Path, what: &str) -> Result<tempfile::TempDir, BridgeError> {
    tempfile::Builder::new()
        .prefix(&format!(".tmp-{}-{what}-", std::process::id()))
        .tempdir_in(parent)
        .map_err(|e| BridgeError::Build(format!("cache {}: {e}", parent.display())))
}

/// A temp folder older than this is stale even if a process with its pid is alive.
const STALE_AFTER: std::time::Duration = std::time::Duration::from_secs(3600);

/// Remove the temp folders of builds that cannot finish any more: those whose owning process
/// is gone, and any older than an hour. Builds in progress in live processes are left alone.
pub fn clean_stale_temps(cache: &Path) -> usize {
    let Ok(rd) = std::fs::read_dir(cache) else {
        return 0;
    };
    let mut removed = 0;
    for e in rd.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(rest) = name.strip_prefix(".tmp-") else {
            continue;
        };
        let pid: Option<u32> = rest.split('-').next().and_then(|p| p.parse().ok());
        let dead = match pid {
            Some(pid) => pid != std::process::id() && !Path::new(&format!("/proc/{pid}")).exists(),
            None => true,
        };
        let old = e
            .metadata()
            .and_then(|m| m.modified())
            .ok()
            .and_then(|t| t.elapsed().ok())
            .is_some_and(|age| age > STALE_AFTER);
        if (dead || old) && std::fs::remove_dir_all(e.path()).is_ok() {
            removed += 1;
        }
    }
    removed
}

/// The record of a complete cache entry: its key and each file's size and CRC-32.
const ENTRY: &str = "entry.json";

/// Record what the finished build in `dir` holds.
pub(crate) fn seal(dir: &Path, key: u64, files: &[String]) -> Result<(), BridgeError> {
    let mut list = vec![];
    for f in files {
        let bytes = std::fs::read(dir.join(f)).map_err(io_err)?;
        list.push(serde_json::json!({
            "name": f,
            "size": bytes.len(),
            "crc32": format!("{:08x}", warpforge_contract::checksum::crc32(&bytes)),
        }));
    }
    let entry = serde_json::json!({ "key": format!("{key:016x}"), "files": list });
    std::fs::write(dir.join(ENTRY), entry.to_string()).map_err(io_err)
}

/// Check that the entry in `dir` is complete and holds what its record says: the key of this
/// configuration, and every file with the recorded size and checksum. Err(reason) otherwise.
pub fn verify_entry(dir: &Path, key: u64) -> Result<(), String> {
    let text = std::fs::read_to_string(dir.join(ENTRY))
        .map_err(|e| format!("no readable {ENTRY}: {e}"))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|_| format!("{ENTRY} is malformed"))?;
    if v["key"].as_str() != Some(&format!("{key:016x}")) {
        return Err(format!(
            "{ENTRY} records key {} (another configuration), expected {key:016x}",
            v["key"]
        ));
    }
    let files = v["files"]
        .as_array()
        .filter(|f| !f.is_empty())
        .ok_or_else(|| format!("{ENTRY} lists no files"))?;
    for f in files {
        let (Some(name), Some(size), Some(crc)) =
            (f["name"].as_str(), f["size"].as_u64(), f["crc32"].as_str())
        else {
            return Err(format!("{ENTRY} is malformed"));
        };
        let bytes = std::fs::read(dir.join(name)).map_err(|e| format!("{name}: {e}"))?;
        if bytes.len() as u64 != size {
            return Err(format!("{name} has {} bytes, {size} recorded", bytes.len()));
        }
        let got = format!("{:08x}", warpforge_contract::checksum::crc32(&bytes));
        if got != crc {
            return Err(format!("{name} checksum {got}, {crc} recorded"));
        }
    }
    Ok(())
}

/// True when `dir` holds a verified entry for `key`. An entry that fails verification is
/// moved out of the way (with a one-line notice on stderr) so it is rebuilt.
pub(crate) fn lookup(dir: &Path, key: u64) -> bool {
    // Entries this process verified and whose files are untouched since (same names, sizes,
    // modification times and inodes) are not checksummed again: a run of many short programs
    // looks its library up once per program.
    static VERIFIED: Mutex<Vec<(PathBuf, u64, Vec<FileStamp>)>> = Mutex::new(Vec::new());
    if !dir.exists() {
        return false;
    }
    let stamps = stamps(dir);
    let mut verified = VERIFIED.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(now) = &stamps {
        if verified
            .iter()
            .any(|(d, k, s)| d == dir && *k == key && s == now)
        {
            return true;
        }
    }
    verified.retain(|(d, _, _)| d != dir);
    match verify_entry(dir, key) {
        Ok(()) => {
            if let Some(now) = stamps {
                verified.push((dir.to_path_buf(), key, now));
            }
            true
        }
        Err(reason) => {
            eprintln!(
                "warpforge: cache entry {} failed verification ({reason}); rebuilding it",
                dir.display()
            );
            discard(dir);
            false
        }
    }
}

/// What identifies one file of an entry without reading it: name, size, modification time
/// and inode.
type FileStamp = (std::ffi::OsString, u64, std::time::SystemTime, u64);

/// The stamps of every file in `dir`, sorted; None if the folder cannot be read.
fn stamps(dir: &Path) -> Option<Vec<FileStamp>> {
    use std::os::unix::fs::MetadataExt;
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).ok()? {
        let e = e.ok()?;
        let m = e.metadata().ok()?;
        out.push((e.file_name(), m.len(), m.modified().ok()?, m.ino()));
    }
    out.sort();
    Some(out)
}

/// Remove a cache entry: renamed away first, so no other process sees it half-deleted.
fn discard(dir: &Path) {
    let Some(parent) = dir.parent() else { return };
    let aside = parent.join(format!(
        ".tmp-{}-discard-{:016x}",
        std::process::id(),
        fnv64(&[
            dir.as_os_str().as_encoded_bytes(),
            &now_nanos().to_le_bytes()
        ])
    ));
    if std::fs::rename(dir, &aside).is_ok() {
        let _ = std::fs::remove_dir_all(&aside);
    }
}

fn now_nanos() -> u128 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or(0)
}

/// Move a finished build into place. If another process published a valid entry for the
/// same key first, keep theirs (the contents are identical by construction); an invalid one
/// is replaced.
pub(crate) fn publish(tmp: tempfile::TempDir, dir: &Path, key: u64) -> Result<(), BridgeError> {
    let path = tmp.keep();
    for _ in 0..3 {
        if std::fs::rename(&path, dir).is_ok() {
            return Ok(());
        }
        if verify_entry(dir, key).is_ok() {
            let _ = std::fs::remove_dir_all(&path);
            return Ok(());
        }
        discard(dir);
    }
    let _ = std::fs::remove_dir_all(&path);
    Err(BridgeError::Build(format!(
        "cache: could not publish {}",
        dir.display()
    )))
}

struct PortWord32 {
    index: usize,
    word: usize,
    shift: usize,
}
struct PortWord64 {
    word: usize,
    lo: usize,
    hi: usize,
    has_hi: bool,
}
struct ShimPort {
    name: String,
    offset: usize,
    wide: bool,
    words32: Vec<PortWord32>,
    words64: Vec<PortWord64>,
}

#[derive(Template)]
#[template(path = "shim.cpp", escape = "none")]
struct Shim {
    prefix: String,
    module: String,
    trace: bool,
    hier: bool,
    in_words: usize,
    out_words: usize,
    inputs: Vec<ShimPort>,
    outputs: Vec<ShimPort>,
}

fn shim_ports(slots: &[warpforge_contract::manifest::Slot]) -> Vec<ShimPort> {
    slots
        .iter()
        .map(|s| {
            let n32 = s.width.div_ceil(32);
            ShimPort {
                name: s.name.clone(),
                offset: s.offset,
                wide: s.width > 64,
                words32: (0..n32)
                    .map(|i| PortWord32 {
                        index: i,
                        word: s.offset + i / 2,
                        shift: 32 * (i % 2),
                    })
                    .collect(),
                words64: (0..s.words)
                    .map(|i| PortWord64 {
                        word: s.offset + i,
                        lo: 2 * i,
                        hi: 2 * i + 1,
                        has_hi: 2 * i + 1 < n32,
                    })
                    .collect(),
            }
        })
        .collect()
}

/// A compiled design in the cache.
#[derive(Clone, Debug)]
pub struct Compiled {
    pub library: PathBuf,
    pub dir: PathBuf,
    /// True when this call built it; false when it came from the cache.
    pub built: bool,
    pub build_seconds: f64,
    pub trace: bool,
}

/// Build (or find in the cache) the shared library of `design`.
pub fn build(design: &Design, manifest: &Manifest, trace: bool) -> Result<Compiled, BridgeError> {
    let t0 = Instant::now();
    let verilator = verilator_path()?;
    let version = verilator_version(&verilator);
    let layout = manifest.layout();
    let hier = hier_blocks(&design.verilog);
    let mut parts: Vec<&[u8]> = vec![
        RECIPE_VERSION.as_bytes(),
        version.as_bytes(),
        design.verilog.as_bytes(),
        design.module.as_bytes(),
    ];
    let layout_text = format!("{:?}", layout);
    let trace_byte = [trace as u8];
    parts.extend([layout_text.as_bytes(), &trace_byte[..]]);
    // Only a level other than the default adds to the key, so default entries stay valid.
    let opt = opt_level()?;
    let opt_text = format!("O{opt}");
    if opt != OPT_LEVEL {
        parts.push(opt_text.as_bytes());
    }
    // Only a hierarchical build adds to the key, so every other design keeps its entry.
    let hier_text: String = hier.iter().map(|b| format!("hier:{};", b.module)).collect();
    if !hier.is_empty() {
        parts.push(hier_text.as_bytes());
    }
    let key = fnv64(&parts);
    let prefix = format!("Vwf{key:016x}");
    let cache = cache_dir()?;
    clean_stale_temps(&cache);
    let dir = cache.join(format!(
        "{}-{key:016x}{}",
        design.module,
        if trace { "-trace" } else { "" }
    ));
    let lib_name = format!("lib{prefix}.so");
    let library = dir.join(&lib_name);
    // Another thread or process may be building this very design: wait for it, then use its
    // build, rather than build it a second time.
    let _lock = if lookup(&dir, key) {
        None
    } else {
        build_lock(&dir)
    };
    if lookup(&dir, key) {
        return Ok(Compiled {
            library,
            dir,
            built: false,
            build_seconds: t0.elapsed().as_secs_f64(),
            trace,
        });
    }
    check_port_names(design, manifest)?;
    let root = verilator_root(&verilator)?;
    let runtime = runtime_objects(&root, &version, trace)?;

    let tmp = make_temp_dir(&cache, &design.module)?;
    // On failure the build folder is kept as `failed-<module>-<key>` (one per configuration,
    // replaced by the next failure), so the log the error names exists.
    if let Err(e) = compile_design(
        design,
        &layout,
        trace,
        &verilator,
        &root,
        runtime,
        &prefix,
        tmp.path(),
        &hier,
    ) {
        let kept = cache.join(format!("failed-{}-{key:016x}", design.module));
        let _ = std::fs::remove_dir_all(&kept);
        let from = tmp.keep();
        if std::fs::rename(&from, &kept).is_err() {
            return Err(e);
        }
        let moved = |m: String| {
            m.replace(
                from.to_string_lossy().as_ref(),
                kept.to_string_lossy().as_ref(),
            )
        };
        return Err(match e {
            BridgeError::Build(m) => BridgeError::Build(moved(m)),
            other => other,
        });
    }
    seal(tmp.path(), key, &[lib_name])?;
    publish(tmp, &dir, key)?;
    Ok(Compiled {
        library,
        dir,
        built: true,
        build_seconds: t0.elapsed().as_secs_f64(),
        trace,
    })
}

/// The shim addresses every manifest port by name: refuse, with a clear message, a design whose
/// top module does not have exactly those ports (plus `clock`) rather than fail in the C++.
fn check_port_names(design: &Design, manifest: &Manifest) -> Result<(), BridgeError> {
    let head = format!("module {}(", design.module);
    let start = design.verilog.find(&head).ok_or_else(|| {
        BridgeError::Build(format!("the Verilog has no module {}", design.module))
    })? + head.len();
    let end = design.verilog[start..]
        .find(')')
        .map(|e| start + e)
        .unwrap_or(start);
    let have: std::collections::BTreeSet<&str> = design.verilog[start..end]
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect();
    let mut want: std::collections::BTreeSet<&str> =
        manifest.ports.iter().map(|p| p.name.as_str()).collect();
    want.insert("clock");
    if have != want {
        let missing: Vec<_> = want.difference(&have).copied().collect();
        let extra: Vec<_> = have.difference(&want).copied().collect();
        return Err(BridgeError::Build(format!(
            "the RTL of {} does not have the ports its contract declares (missing: {}; not in the contract: {})",
            design.module,
            if missing.is_empty() { "none".to_string() } else { missing.join(", ") },
            if extra.is_empty() { "none".to_string() } else { extra.join(", ") }
        )));
    }
    Ok(())
}

/// Lines of Verilog past which Verilator is told not to inline modules (see [`inlining_copies`]).
const INLINE_LIMIT: usize = 200_000;

/// The lines of Verilog that inlining every module would add: each module's length times its
/// instantiations in the text beyond the first. The emitter keeps one module per distinct body, so a design
/// with many instances of one block (a mesh of routers) is small as text, and Verilator's
/// default inlining would expand it again.
pub fn inlining_copies(verilog: &str) -> usize {
    let g = ModuleGraph::of(verilog);
    g.instances
        .iter()
        .map(|(ty, &n)| g.lines_of[ty] * n.saturating_sub(1))
        .sum()
}

/// The modules of a Verilog text: each one's lines, how often it is instantiated, and the
/// modules each one instantiates (one entry per instance).
struct ModuleGraph<'a> {
    lines_of: HashMap<&'a str, usize>,
    instances: HashMap<&'a str, usize>,
    children: HashMap<&'a str, Vec<&'a str>>,
}

impl<'a> ModuleGraph<'a> {
    fn of(verilog: &'a str) -> Self {
        let mut lines_of: HashMap<&str, usize> = HashMap::new();
        let mut current: Option<(&str, usize)> = None;
        let mut body: Vec<(&str, &str)> = vec![];
        for (i, l) in verilog.lines().enumerate() {
            if let Some(rest) = l.strip_prefix("module ") {
                let name = rest.split(['(', ';', ' ']).next().unwrap_or("");
                current = Some((name, i));
            } else if l.starts_with("endmodule") {
                if let Some((name, start)) = current.take() {
                    lines_of.insert(name, i - start + 1);
                }
            } else if let Some((name, _)) = current {
                body.push((name, l));
            }
        }
        let mut instances: HashMap<&str, usize> = HashMap::new();
        let mut children: HashMap<&str, Vec<&str>> = HashMap::new();
        for (parent, l) in body {
            let mut words = l.split_whitespace();
            if let (Some(ty), Some(inst)) = (words.next(), words.next()) {
                if inst.ends_with('(') && lines_of.contains_key(ty) {
                    *instances.entry(ty).or_insert(0) += 1;
                    children.entry(parent).or_default().push(ty);
                }
            }
        }
        ModuleGraph {
            lines_of,
            instances,
            children,
        }
    }
}

/// Inlined copies of one module (its lines with everything it instantiates, times its instances
/// beyond the first) past which it is Verilated once as a hierarchy block (see [`hier_blocks`]).
const HIER_LIMIT: usize = INLINE_LIMIT;

/// A module of the design Verilated once, as its own model, and called by every instance.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HierBlock {
    pub module: String,
    pub instances: usize,
    /// Lines of the module with every module under it.
    pub lines: usize,
}

/// The modules to Verilate as hierarchy blocks: those whose inlined copies alone exceed
/// [`HIER_LIMIT`] lines. Keeping such a module apart (`--inline-mult 1`) is not enough:
/// Verilator 5 schedules every instance's logic globally and writes it out per instance (the
/// 8x8 msap-noc: 128 routers, 43 MB of C++, 44 min of compile); a hierarchy block is compiled
/// once and each instance calls it. A block inside another block's subtree is left to it.
pub fn hier_blocks(verilog: &str) -> Vec<HierBlock> {
    let ModuleGraph {
        lines_of,
        instances,
        children,
    } = ModuleGraph::of(verilog);
    fn subtree<'a>(
        m: &'a str,
        lines_of: &HashMap<&'a str, usize>,
        children: &HashMap<&'a str, Vec<&'a str>>,
        memo: &mut HashMap<&'a str, usize>,
    ) -> usize {
        if let Some(&n) = memo.get(m) {
            return n;
        }
        let kids = children.get(m).cloned().unwrap_or_default();
        let n = lines_of[m]
            + kids
                .iter()
                .map(|c| subtree(c, lines_of, children, memo))
                .sum::<usize>();
        memo.insert(m, n);
        n
    }
    let mut memo = HashMap::new();
    let mut picked: Vec<HierBlock> = instances
        .iter()
        .map(|(&m, &n)| HierBlock {
            module: m.to_string(),
            instances: n,
            lines: subtree(m, &lines_of, &children, &mut memo),
        })
        .filter(|b| b.lines * b.instances.saturating_sub(1) > HIER_LIMIT)
        .collect();
    picked.sort_by(|a, b| a.module.cmp(&b.module));
    // Drop blocks under another block: the outer one is Verilated with them inside.
    let under = |outer: &str, inner: &str| {
        let mut stack = vec![outer];
        while let Some(m) = stack.pop() {
            for &c in children.get(m).map(Vec::as_slice).unwrap_or(&[]) {
                if c == inner {
                    return true;
                }
                stack.push(c);
            }
        }
        false
    };
    let all = picked.clone();
    picked.retain(|b| {
        !all.iter()
            .any(|o| o.module != b.module && under(&o.module, &b.module))
    });
    picked
}

/// The name a hierarchy block gets in the text Verilator reads: Verilator 5.006 mangles a
/// block whose name holds `__` and then cannot find it, and the name must differ between
/// designs loaded into one process.
fn hier_name(prefix: &str, k: usize) -> String {
    format!("{}_h{k}", prefix.trim_start_matches('V'))
}

/// `verilog` with every hierarchy block marked and renamed (see [`hier_name`]).
pub fn mark_hier_blocks(verilog: &str, blocks: &[HierBlock], prefix: &str) -> String {
    let ident = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '$';
    let mut out = String::with_capacity(verilog.len() + 64);
    for l in verilog.split_inclusive('\n') {
        let mut line = l.to_string();
        for (k, b) in blocks.iter().enumerate() {
            // Whole words only: the block's own submodules start with its name.
            let mut s = String::with_capacity(line.len());
            let mut rest = line.as_str();
            while let Some(at) = rest.find(b.module.as_str()) {
                let end = at + b.module.len();
                let before = rest[..at].chars().next_back().is_some_and(ident);
                let after = rest[end..].chars().next().is_some_and(ident);
                s.push_str(&rest[..at]);
                if before || after {
                    s.push_str(&b.module);
                } else {
                    s.push_str(&hier_name(prefix, k));
                }
                rest = &rest[end..];
            }
            s.push_str(rest);
            line = s;
        }
        let header = blocks.iter().enumerate().any(|(k, _)| {
            line.trim_end().ends_with(");")
                && line
                    .strip_prefix("module ")
                    .is_some_and(|r| r.starts_with(&format!("{}(", hier_name(prefix, k))))
        });
        out.push_str(&line);
        if header {
            out.push_str("    /*verilator hier_block*/\n");
        }
    }
    out
}

/// Verilate `design`, render the shim, compile and link `lib<prefix>.so` in `work`.
#[allow(clippy::too_many_arguments)]
fn compile_design(
    design: &Design,
    layout: &Layout,
    trace: bool,
    verilator: &Path,
    root: &Path,
    runtime: Vec<PathBuf>,
    prefix: &str,
    work: &Path,
    hier: &[HierBlock],
) -> Result<(), BridgeError> {
    let vfile = work.join(format!("{}.v", design.module));
    let text = if hier.is_empty() {
        design.verilog.clone()
    } else {
        mark_hier_blocks(&design.verilog, hier, prefix)
    };
    std::fs::write(&vfile, text).map_err(io_err)?;
    let obj = work.join("obj");
    let mut cmd = Command::new(verilator);
    // Hierarchical Verilation runs make in the current directory.
    cmd.current_dir(work);
    cmd.args([
        "--cc",
        "-O3",
        "--x-assign",
        "fast",
        "--x-initial",
        "unique",
        "--noassert",
        "-Wno-fatal",
        "-Wno-lint",
        "-Wno-style",
    ])
    .arg("--prefix")
    .arg(prefix)
    .arg("--top-module")
    .arg(&design.module)
    .arg("-Mdir")
    .arg(&obj);
    if trace {
        cmd.arg("--trace");
    }
    if !hier.is_empty() {
        // The blocks are what inlining would have copied; the rest inlines as usual.
        cmd.arg("--hierarchical");
    } else if inlining_copies(&design.verilog) > INLINE_LIMIT {
        // Inlining would copy the shared module's text into every instance (the 8x8
        // msap-noc's 128 routers: 112 MB of C++ instead of 43 MB): keep modules apart.
        cmd.args(["--inline-mult", "1"]);
    }
    cmd.arg(&vfile);
    run(&mut cmd, "verilator --cc", &work.join("verilator.log"))?;

    let shim = Shim {
        prefix: prefix.to_string(),
        module: design.module.clone(),
        trace,
        hier: !hier.is_empty(),
        in_words: layout.in_words,
        out_words: layout.out_words,
        inputs: shim_ports(&layout.inputs),
        outputs: shim_ports(&layout.outputs),
    };
    let shim_path = work.join("wf_shim.cpp");
    std::fs::write(
        &shim_path,
        shim.render()
            .map_err(|e| BridgeError::Build(format!("shim template: {e}")))?,
    )
    .map_err(io_err)?;

    let mut sources: Vec<PathBuf> = std::fs::read_dir(&obj)
        .map_err(io_err)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
        .collect();
    sources.sort();
    let mut includes = vec![obj.clone()];
    for k in 0..hier.len() {
        // Each block's model (and its DPI wrapper) sits in a folder of its own.
        let dir = obj.join(format!("V{}", hier_name(prefix, k)));
        let mut own: Vec<PathBuf> = std::fs::read_dir(&dir)
            .map_err(io_err)?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|x| x == "cpp"))
            .collect();
        own.sort();
        sources.extend(own);
        includes.push(dir);
    }
    if !hier.is_empty() {
        // The calls into the blocks are DPI calls; the shared runtime has no DPI part.
        sources.push(root.join("include").join("verilated_dpi.cpp"));
    }
    sources.push(shim_path);
    let tool = cxx(root, trace, opt_level()?);
    let mut objects = compile_objects(&tool, &sources, work, &includes)?;
    objects.extend(runtime);
    let built_lib = work.join(format!("lib{prefix}.so"));
    let mut link = tool.to_command();
    link.arg("-shared")
        .arg("-o")
        .arg(&built_lib)
        .args(&objects)
        .arg("-pthread")
        .arg("-latomic");
    run(&mut link, "link", &work.join("link.log"))?;
    Ok(())
}

type NewFn = unsafe extern "C" fn(u64) -> *mut c_void;
type FreeFn = unsafe extern "C" fn(*mut c_void);
type RunFn = unsafe extern "C" fn(*mut c_void, u64, *const u64, *mut u64);
type TraceOpenFn = unsafe extern "C" fn(*mut c_void, *const std::os::raw::c_char, u64) -> i32;
type TraceCloseFn = unsafe extern "C" fn(*mut c_void);

/// One instance of a Verilated design, driven a batch of cycles at a time.
pub struct Rtl {
    handle: *mut c_void,
    free: FreeFn,
    run: RunFn,
    trace_open: TraceOpenFn,
    trace_close: TraceCloseFn,
    in_words: usize,
    out_words: usize,
    /// The waveform being written: staged in the temp directory, copied by `finish_trace`.
    wave: Option<crate::outpath::Staged>,
    // Keep the library loaded as long as the instance lives; dropped last.
    _lib: Library,
}

impl Rtl {
    /// Load the library and create an instance whose registers start from `seed`-random values.
    pub fn load(compiled: &Compiled, layout: &Layout, seed: u64) -> Result<Rtl, BridgeError> {
        let load_err = |e: libloading::Error| {
            BridgeError::Load(format!("{}: {e}", compiled.library.display()))
        };
        // SAFETY: the library is one we built from the shim template; its symbols have the
        // signatures declared above.
        unsafe {
            let lib = Library::new(&compiled.library).map_err(load_err)?;
            let new: NewFn = *lib.get::<NewFn>(b"wf_new").map_err(load_err)?;
            let free: FreeFn = *lib.get::<FreeFn>(b"wf_free").map_err(load_err)?;
            let run: RunFn = *lib.get::<RunFn>(b"wf_run").map_err(load_err)?;
            let trace_open: TraceOpenFn =
                *lib.get::<TraceOpenFn>(b"wf_trace_open").map_err(load_err)?;
            let trace_close: TraceCloseFn = *lib
                .get::<TraceCloseFn>(b"wf_trace_close")
                .map_err(load_err)?;
            let handle = new(seed);
            Ok(Rtl {
                handle,
                free,
                run,
                trace_open,
                trace_close,
                in_words: layout.in_words,
                out_words: layout.out_words,
                wave: None,
                _lib: lib,
            })
        }
    }

    /// Run `inputs.len() / in_words` cycles; `outputs` receives each cycle's outputs.
    pub fn run(&mut self, inputs: &[u64], outputs: &mut [u64]) {
        let n = if self.in_words == 0 {
            outputs.len() / self.out_words.max(1)
        } else {
            inputs.len() / self.in_words
        };
        assert!(
            outputs.len() >= n * self.out_words,
            "output buffer too small"
        );
        assert!(inputs.len() >= n * self.in_words, "input buffer too small");
        // SAFETY: buffers are sized for n cycles as the shim expects.
        unsafe { (self.run)(self.handle, n as u64, inputs.as_ptr(), outputs.as_mut_ptr()) }
    }

    /// Write a VCD of every cycle from `from_cycle` on to `path`. Fails if this is not a
    /// tracing build. The VCD is written to a staged file in the temp directory (Verilator's
    /// writer cannot report a failed write, and deadlocks on one) and only reaches `path`
    /// through [`Rtl::finish_trace`], which checks the copy.
    pub fn trace(&mut self, path: &Path, from_cycle: u64) -> Result<(), BridgeError> {
        let staged = crate::outpath::Staged::new("--wave", path).map_err(BridgeError::Output)?;
        let c = CString::new(staged.path().to_string_lossy().as_bytes())
            .map_err(|e| BridgeError::Load(e.to_string()))?;
        // SAFETY: valid handle and NUL-terminated path.
        let ok = unsafe { (self.trace_open)(self.handle, c.as_ptr(), from_cycle) };
        if ok == 1 {
            self.wave = Some(staged);
            Ok(())
        } else {
            Err(BridgeError::Load(
                "this build has no tracing; build with trace = true".into(),
            ))
        }
    }

    /// Close the waveform and copy it to the path given to [`Rtl::trace`]; an error names
    /// that path. Nothing to do when no waveform is open.
    pub fn finish_trace(&mut self) -> Result<(), BridgeError> {
        // SAFETY: valid handle; closing twice is a no-op in the shim.
        unsafe { (self.trace_close)(self.handle) };
        match self.wave.take() {
            // A VCD always starts with its header, so an empty file means the write failed.
            Some(w) => w.commit(1).map_err(BridgeError::Output),
            None => Ok(()),
        }
    }
}

impl Drop for Rtl {
    fn drop(&mut self) {
        // SAFETY: handle came from wf_new of the same library, which is still loaded.
        unsafe {
            (self.trace_close)(self.handle);
            (self.free)(self.handle);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A 4-line leaf instantiated three times and a 2-line one once: inlining would copy the
    /// leaf twice more (8 lines); the top and the single instance add nothing.
    #[test]
    fn inlining_copies_count_lines_times_extra_instances() {
        let v = "module top(a);\n    leaf u0(\n    );\n    leaf u1(\n    );\n    leaf u2(\n    );\n    \
                 one u3(\n    );\nendmodule // top\n\nmodule leaf(a);\n    input a;\n    wire b;\n\
                 endmodule // leaf\nmodule one(a);\nendmodule // one\n";
        assert_eq!(inlining_copies(v), 8);
        assert_eq!(inlining_copies(&v.replace("leaf u2", "one u2")), 4 + 2);
    }

    /// A top with `n` instances of a block of `body` lines that holds a 3-line leaf, and one
    /// instance of a small module.
    fn mesh(n: usize, body: usize) -> String {
        let mut v = String::from("module top(a);\n");
        for i in 0..n {
            v += &format!("    top__r__0 r{i}(\n    );\n");
        }
        v += "    top__one u(\n    );\nendmodule // top\nmodule top__r__0(a,b);\n";
        v += "    top__r__0__leaf l(\n    );\n";
        for i in 0..body {
            v += &format!("    wire w{i};\n");
        }
        v += "endmodule // top__r__0\nmodule top__r__0__leaf(a);\n    wire x;\nendmodule\n";
        v += "module top__one(a);\nendmodule\n";
        v
    }

    #[test]
    fn hier_blocks_are_the_modules_whose_copies_pass_the_limit() {
        // The block is its own lines (body + 4) plus its leaf's 3.
        let lines = 1000 + 4 + 3;
        let just_over = HIER_LIMIT / lines + 2;
        let b = hier_blocks(&mesh(just_over, 1000));
        assert_eq!(
            b,
            vec![HierBlock {
                module: "top__r__0".into(),
                instances: just_over,
                lines
            }]
        );
        // One instance fewer: the copies stay under the limit, nothing changes.
        let under = HIER_LIMIT / lines;
        assert!(hier_blocks(&mesh(under, 1000)).is_empty());
    }

    #[test]
    fn a_block_under_another_block_is_left_to_it() {
        // 300 leaves inside each of 300 blocks: both pass the limit alone.
        let mut v = String::from("module top(a);\n");
        for i in 0..300 {
            v += &format!("    top__r r{i}(\n    );\n");
        }
        v += "endmodule\nmodule top__r(a);\n";
        for i in 0..300 {
            v += &format!("    top__r__leaf l{i}(\n    );\n");
        }
        v += "endmodule\nmodule top__r__leaf(a);\n";
        for i in 0..3000 {
            v += &format!("    wire w{i};\n");
        }
        v += "endmodule\n";
        let b = hier_blocks(&v);
        assert_eq!(b.len(), 1, "{b:?}");
        assert_eq!(b[0].module, "top__r");
    }

    #[test]
    fn marking_renames_whole_words_and_comments_the_header() {
        let v = mesh(3, 2);
        let b = vec![HierBlock {
            module: "top__r__0".into(),
            instances: 3,
            lines: 9,
        }];
        let m = mark_hier_blocks(&v, &b, "Vwf00ab");
        assert_eq!(m.matches("wf00ab_h0 r").count(), 3);
        assert!(m.contains("module wf00ab_h0(a,b);\n    /*verilator hier_block*/\n"));
        // The block's own submodule keeps its name; nothing else is touched.
        assert!(m.contains("top__r__0__leaf l("));
        assert!(!m.contains("top__r__0 ") && !m.contains("top__r__0("));
        assert_eq!(m.matches("hier_block").count(), 1);
        assert_eq!(m.lines().count(), v.lines().count() + 1);
    }

    /// A fabricated entry: a "library" and its record, as a build leaves them.
    fn entry(key: u64, lib: &[u8]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("libV.so"), lib).unwrap();
        seal(d.path(), key, &["libV.so".to_string()]).unwrap();
        d
    }

    fn lib_bytes() -> Vec<u8> {
        (0..50_000u32).map(|i| (i * 7 + i / 13) as u8).collect()
    }

    #[test]
    fn a_sealed_entry_verifies() {
        let d = entry(7, &lib_bytes());
        verify_entry(d.path(), 7).unwrap();
        assert!(lookup(d.path(), 7));
    }

    #[test]
    fn an_entry_damaged_after_a_lookup_is_still_caught() {
        // The second lookup is answered from the stamps of the first; a library changed since
        // (here shortened) no longer matches them and is checksummed, fails and is moved away.
        let d = entry(7, &lib_bytes());
        assert!(lookup(d.path(), 7));
        assert!(lookup(d.path(), 7));
        assert!(!lookup(d.path(), 8), "another key is not the verified one");
        let d = entry(7, &lib_bytes());
        assert!(lookup(d.path(), 7));
        let b = std::fs::read(d.path().join("libV.so")).unwrap();
        std::fs::write(d.path().join("libV.so"), &b[..b.len() - 1]).unwrap();
        assert!(!lookup(d.path(), 7));
        assert!(
            !d.path().exists(),
            "the damaged entry is moved out of the way"
        );
    }

    #[test]
    fn every_damaged_entry_fails_verification_with_a_reason() {
        let lib = lib_bytes();
        let cases: Vec<(&str, Box<dyn Fn(&Path)>, &str)> = vec![
            (
                "truncated library",
                Box::new(|p: &Path| {
                    let b = std::fs::read(p.join("libV.so")).unwrap();
                    std::fs::write(p.join("libV.so"), &b[..b.len() / 2]).unwrap();
                }),
                "bytes",
            ),
            (
                "flipped bytes",
                Box::new(|p: &Path| {
                    let mut b = std::fs::read(p.join("libV.so")).unwrap();
                    b[1000] ^= 0x10;
                    b[40_000] ^= 0x01;
                    std::fs::write(p.join("libV.so"), b).unwrap();
                }),
                "checksum",
            ),
            (
                "empty library",
                Box::new(|p: &Path| std::fs::write(p.join("libV.so"), b"").unwrap()),
                "0 bytes",
            ),
            (
                "library of another configuration (same size)",
                Box::new(|p: &Path| {
                    let other: Vec<u8> = (0..50_000u32).map(|i| (i * 5) as u8).collect();
                    std::fs::write(p.join("libV.so"), other).unwrap();
                }),
                "checksum",
            ),
            (
                "missing marker",
                Box::new(|p: &Path| std::fs::remove_file(p.join(ENTRY)).unwrap()),
                ENTRY,
            ),
            (
                "missing library",
                Box::new(|p: &Path| std::fs::remove_file(p.join("libV.so")).unwrap()),
                "libV.so",
            ),
            (
                "garbled marker",
                Box::new(|p: &Path| std::fs::write(p.join(ENTRY), "{\"key\": ").unwrap()),
                "malformed",
            ),
        ];
        for (what, damage, reason) in cases {
            let d = entry(7, &lib);
            damage(d.path());
            let e = verify_entry(d.path(), 7).unwrap_err();
            assert!(e.contains(reason), "{what}: {e}");
            assert!(!e.contains('\n'));
            // The lookup moves it out of the way so it is rebuilt (and publishing can succeed).
            assert!(!lookup(d.path(), 7), "{what}");
            assert!(!d.path().exists(), "{what}: entry still in place");
        }
        // A whole entry of another configuration copied under this one's name.
        let d = entry(8, &lib);
        assert!(verify_entry(d.path(), 7)
            .unwrap_err()
            .contains("another configuration"));
    }

    #[test]
    fn publish_replaces_a_broken_entry_and_keeps_a_valid_one() {
        let cache = tempfile::tempdir().unwrap();
        let dir = cache.path().join("unit-0007");
        // A broken entry in place (marker missing): publishing must still succeed.
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("libV.so"), b"half").unwrap();
        let tmp = tempfile::tempdir_in(cache.path()).unwrap();
        std::fs::write(tmp.path().join("libV.so"), lib_bytes()).unwrap();
        seal(tmp.path(), 7, &["libV.so".to_string()]).unwrap();
        publish(tmp, &dir, 7).unwrap();
        verify_entry(&dir, 7).unwrap();
        // A second build of the same key keeps the valid entry.
        let tmp = tempfile::tempdir_in(cache.path()).unwrap();
        std::fs::write(tmp.path().join("libV.so"), lib_bytes()).unwrap();
        seal(tmp.path(), 7, &["libV.so".to_string()]).unwrap();
        let tmp_path = tmp.path().to_path_buf();
        publish(tmp, &dir, 7).unwrap();
        verify_entry(&dir, 7).unwrap();
        assert!(!tmp_path.exists());
    }

    #[test]
    fn only_stale_temp_folders_are_removed() {
        let cache = tempfile::tempdir().unwrap();
        let mk = |name: &str| {
            let p = cache.path().join(name);
            std::fs::create_dir(&p).unwrap();
            std::fs::write(p.join("x.o"), b"x").unwrap();
            p
        };
        // Owner gone (no such pid), and no pid at all: stale.
        let dead = mk(".tmp-4194304999-warp_sched-abc");
        let nopid = mk(".tmp-runtime-abc");
        // Owned by a live process (this one), fresh: a build in progress.
        let live = mk(&format!(".tmp-{}-warp_sched-def", std::process::id()));
        // Owned by a live process (pid 1) but two hours old: stale.
        let old = mk(".tmp-1-simt_stack-ghi");
        let two_hours_ago = std::time::SystemTime::now() - std::time::Duration::from_secs(7200);
        std::fs::File::open(&old)
            .unwrap()
            .set_modified(two_hours_ago)
            .unwrap();
        // Not a temp folder: never touched.
        let entry = mk("simt_stack-0123456789abcdef");
        assert_eq!(clean_stale_temps(cache.path()), 3);
        assert!(!dead.exists() && !nopid.exists() && !old.exists());
        assert!(live.exists() && entry.exists());
    }
}
