//! A tool that never lies and never wedges: outputs that cannot be written are exit 2 with one
//! line naming the path (checked before the work, and on every write after it), a closed
//! stdout is a quiet exit 0, sizes and thread counts are bounded, the argument parser follows
//! the same one-line error contract as every other bad input, and `--json` always prints
//! exactly one object.

use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
}

fn warpforge(args: &[&str]) -> Output {
    bin().args(args).output().expect("binary runs")
}

/// Exit status 2 and exactly one line `error: …` on stderr containing every needle.
fn assert_error(out: &Output, needles: &[&str]) -> String {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "status; stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 1, "exactly one line on stderr, got: {stderr}");
    assert!(lines[0].starts_with("error: "), "{stderr}");
    for n in needles {
        assert!(lines[0].contains(n), "`{n}` not in: {stderr}");
    }
    assert!(!stderr.contains("panicked") && !stderr.contains("internal error"));
    lines[0].to_string()
}

/// Exactly one JSON object on stdout.
fn one_json(out: &Output) -> serde_json::Value {
    let s = String::from_utf8_lossy(&out.stdout);
    assert_eq!(
        s.trim().lines().count(),
        1,
        "one line of JSON on stdout: {s}"
    );
    serde_json::from_str(s.trim()).expect("valid JSON")
}

/// As [`assert_error`] with `--json`: also `{"error": "<the same line>"}` on stdout.
fn assert_json_error(out: &Output, needles: &[&str]) {
    let line = assert_error(out, needles);
    let v = one_json(out);
    assert_eq!(
        v["error"].as_str(),
        line.strip_prefix("error: "),
        "the JSON error is the stderr line"
    );
}

fn read_only_file(dir: &Path, name: &str) -> String {
    let p = dir.join(name);
    std::fs::write(&p, "keep me").unwrap();
    let mut perm = std::fs::metadata(&p).unwrap().permissions();
    perm.set_readonly(true);
    std::fs::set_permissions(&p, perm).unwrap();
    p.to_string_lossy().into_owned()
}

// ---- output paths ---------------------------------------------------------------------------

#[test]
fn unwritable_output_paths_are_refused_before_any_work() {
    let d = tempfile::tempdir().unwrap();
    let dir = d.path().to_string_lossy().into_owned();
    let ro = read_only_file(d.path(), "ro.out");
    let missing = d.path().join("no").join("such").join("f.out");
    let missing = missing.to_string_lossy().into_owned();
    // Every flag that names an output file, with a directory, a read-only file and a path in
    // a directory that does not exist. The checks run before any build or simulation, so
    // even a cosim of a billion cycles answers at once.
    let cases: Vec<Vec<&str>> = vec![
        vec!["cosim", "warp-sched", "--cycles", "1000000000", "--dump"],
        vec!["cosim", "warp-sched", "--cycles", "1000000000", "--wave"],
        vec!["regress", "--suite", "full", "--junit"],
        vec!["asm", "testbench/kernels/vecadd.s", "-o"],
    ];
    for args in &cases {
        let flag = match *args.last().unwrap() {
            "-o" => "--out",
            f => f,
        };
        for (path, what) in [
            (&dir, "is a directory"),
            (&ro, "read-only"),
            (&missing, "does not exist"),
        ] {
            let mut a = args.clone();
            a.push(path);
            let t0 = std::time::Instant::now();
            assert_error(&warpforge(&a), &[&format!("{flag} {path}"), what]);
            assert!(t0.elapsed().as_secs() < 20, "{a:?} did work first");
        }
    }
    assert_eq!(std::fs::read_to_string(&ro).unwrap(), "keep me");
    // Output directories: a file where a directory is wanted, and one that cannot be made.
    for cmd in [vec!["generate", "simt-stack"], vec!["flow", "simt-stack"]] {
        let mut a = cmd.clone();
        a.extend(["--out", ro.as_str()]);
        assert_error(&warpforge(&a), &[&format!("--out {ro}"), "not a directory"]);
        let mut a = cmd.clone();
        a.extend(["--out", "/proc/nope/out"]);
        assert_error(&warpforge(&a), &["--out /proc/nope/out"]);
    }
    // With --json, the error is also the one JSON object (here, the regression's results
    // would otherwise be lost after the whole run).
    assert_json_error(
        &warpforge(&["regress", "--junit", "/proc/nope/j.xml", "--json"]),
        &["--junit /proc/nope/j.xml", "does not exist"],
    );
}

#[test]
fn write_errors_after_the_work_are_exit_2_naming_the_path() {
    // /dev/full accepts the open and fails every write: the error comes after the work.
    let d = tempfile::tempdir().unwrap();
    let src = d.path().join("k.s");
    std::fs::write(&src, ".kernel k\n.regs 1\nexit\n").unwrap();
    let src = src.to_string_lossy().into_owned();
    assert_error(
        &warpforge(&["asm", &src, "-o", "/dev/full"]),
        &["--out /dev/full", "cannot write"],
    );
    assert_error(
        &warpforge(&["generate", "simt-stack", "--out", "/dev/full"]),
        &["--out /dev/full"],
    );
}

/// A bounded run of the child: the /dev/full VCD used to hang forever.
fn run_with_timeout(mut cmd: Command, secs: u64) -> Output {
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let t0 = std::time::Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if t0.elapsed().as_secs() > secs {
            let _ = child.kill();
            panic!("{cmd:?} still running after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
}

#[test]
fn cosim_outputs_to_dev_full_fail_cleanly_and_good_paths_are_written() {
    let d = tempfile::tempdir().unwrap();
    let unit = [
        "cosim",
        "simt-stack",
        "--set",
        "warp_size=4",
        "--set",
        "depth=2",
        "--set",
        "pc_bits=6",
        "--cycles",
        "3000",
    ];
    let mut c = bin();
    c.args(unit).args(["--dump", "/dev/full"]);
    assert_error(
        &run_with_timeout(c, 600),
        &["--dump /dev/full", "cannot write"],
    );
    let mut c = bin();
    c.args(unit).args(["--wave", "/dev/full"]);
    assert_error(
        &run_with_timeout(c, 600),
        &["--wave /dev/full", "cannot write"],
    );
    assert!(!Path::new("/dev/full.model.log").exists());
    // A writable path: the waveform, its model log and the dump exist, and --json names them.
    let wave = d.path().join("w.vcd");
    let dump = d.path().join("d.jsonl");
    let mut c = bin();
    c.args(unit)
        .arg("--wave")
        .arg(&wave)
        .arg("--dump")
        .arg(&dump)
        .arg("--json");
    let out = run_with_timeout(c, 600);
    assert_eq!(out.status.code(), Some(0));
    let v = one_json(&out);
    assert_eq!(v["waveform"].as_str(), Some(wave.to_str().unwrap()));
    assert!(std::fs::read_to_string(&wave)
        .unwrap()
        .contains("$enddefinitions"));
    assert!(
        std::fs::metadata(v["model_log"].as_str().unwrap())
            .unwrap()
            .len()
            > 0
    );
    assert_eq!(
        std::fs::read_to_string(&dump).unwrap().lines().count(),
        3000
    );
}

// ---- closed pipes and stdout errors ---------------------------------------------------------

/// Run with stdout a pipe whose reader is already gone.
fn with_closed_stdout(args: &[&str]) -> Output {
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let mut err = String::new();
    child
        .stderr
        .take()
        .unwrap()
        .read_to_string(&mut err)
        .unwrap();
    let status = child.wait().unwrap();
    Output {
        status,
        stdout: vec![],
        stderr: err.into_bytes(),
    }
}

#[test]
fn a_closed_stdout_is_a_quiet_normal_end_for_every_printing_command() {
    let d = tempfile::tempdir().unwrap();
    // A big image, so disasm has far more to print than a pipe buffer holds.
    let mut src = String::from(".kernel big\n.regs 2\n");
    for _ in 0..20_000 {
        src += "add.s32 %r0, %r0, %r1\n";
    }
    src += "exit\n";
    let s = d.path().join("big.s");
    std::fs::write(&s, src).unwrap();
    let s = s.to_string_lossy().into_owned();
    let img = d.path().join("big.wfk").to_string_lossy().into_owned();
    assert!(warpforge(&["asm", &s, "-o", &img]).status.success());
    let out_dir = d.path().join("gen").to_string_lossy().into_owned();
    let cases: Vec<Vec<&str>> = vec![
        vec!["disasm", &img],
        vec!["disasm", &s],
        vec!["regress", "--list"],
        vec!["regress", "--list", "--json"],
        vec!["units"],
        vec!["units", "--json"],
        vec!["run", "--list"],
        vec!["run", "vecadd"],
        vec!["asm", &s, "-o", &img],
        vec!["generate", "simt-stack", "--out", &out_dir],
        vec!["fuzz", "wfk", "--iters", "50"],
        vec!["--help"],
    ];
    for a in &cases {
        let out = with_closed_stdout(a);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(0), "{a:?}: stderr {err}");
        assert!(err.is_empty(), "{a:?}: quiet, got {err}");
    }
}

#[test]
fn a_full_stdout_is_exit_2() {
    for a in [
        vec!["units"],
        vec!["regress", "--list"],
        vec!["run", "--list"],
    ] {
        let f = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let out = bin().args(&a).stdout(f).output().unwrap();
        assert_error(&out, &["stdout", "cannot write"]);
    }
}

// ---- bounds ---------------------------------------------------------------------------------

#[test]
fn huge_sizes_are_refused_with_the_limit() {
    for (k, size) in [
        ("vecadd", "4294967295"),
        ("saxpy", "4000000000"),
        ("reduce", "4000000000"),
        ("histogram", "4000000000"),
        ("scan", "4000000000"),
        ("strmatch", "4000000000"),
        ("vecadd", "4194305"),
    ] {
        assert_error(
            &warpforge(&["run", k, "--size", size]),
            &[&format!("--size {size}"), k, "4194304"],
        );
    }
    assert_error(
        &warpforge(&["run", "vecadd", "--size", "99999999999"]),
        &["--size 99999999999", "1..=4194304"],
    );
    // Every suite kernel's range is what runs: the largest nqueens board it allows passes.
    assert_error(
        &warpforge(&["run", "nqueens", "--size", "15"]),
        &["--size 15", "4..=14"],
    );
}

#[test]
fn other_sizes_that_allocate_are_bounded_too() {
    // A stack depth or a bench length that would allocate without bound.
    for d in ["18446744073709551615", "4097", "0"] {
        assert_error(
            &warpforge(&["run", "vecadd", "--mode", "warp", "--stack-depth", d]),
            &[&format!("'{d}'"), "--stack-depth", "1..=4096"],
        );
    }
    assert_error(
        &warpforge(&["bench", "simt-stack", "--cycles", "18446744073709551615"]),
        &["--cycles", "1..=20000000"],
    );
    assert_error(
        &warpforge(&["run", "nqueens", "--max-steps", "0"]),
        &["--max-steps", "'0'"],
    );
}

#[test]
fn max_steps_is_honoured_for_suite_kernels() {
    let out = warpforge(&["run", "nqueens", "--size", "6", "--max-steps", "50"]);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    assert!(err.contains("step limit of 50"), "{err}");
    assert!(
        warpforge(&["run", "nqueens", "--size", "6", "--max-steps", "100000000"])
            .status
            .success()
    );
}

#[test]
fn jobs_are_bounded() {
    for j in ["18446744073709551615", "257", "0"] {
        assert_error(
            &warpforge(&["regress", "--jobs", j, "--suite", "vectors"]),
            &[&format!("'{j}'"), "--jobs", "1..=256"],
        );
    }
}

// ---- argument parser and --json contract ----------------------------------------------------

#[test]
fn parser_errors_are_one_line_with_a_hint() {
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (vec![], vec!["no command given", "--help"]),
        (
            vec!["cosim", "warp-sched", "--bogus"],
            vec!["--bogus", "--help"],
        ),
        (
            vec!["cosim", "warp-sched", "--cycles", "abc"],
            vec!["abc", "--cycles", "--help"],
        ),
        (
            vec!["cosim", "warp-sched", "--seed"],
            vec!["--seed", "--help"],
        ),
        (vec!["frobnicate"], vec!["frobnicate", "--help"]),
        (vec!["cosim"], vec!["--help"]),
    ];
    for (a, needles) in &cases {
        assert_error(&warpforge(a), needles);
    }
    // The same with --json: the error is also the one JSON object.
    assert_json_error(
        &warpforge(&["cosim", "warp-sched", "--cycles", "abc", "--json"]),
        &["abc"],
    );
    // Help is not an error.
    let out = warpforge(&["--help"]);
    assert!(out.status.success());
    assert!(String::from_utf8_lossy(&out.stdout).contains("regress"));
}

#[test]
fn zero_cycles_is_refused_by_every_simulating_command() {
    for cmd in [
        vec!["cosim", "simt-stack"],
        vec!["flow", "simt-stack"],
        vec!["bench", "simt-stack"],
    ] {
        let mut a = cmd.clone();
        a.extend(["--cycles", "0"]);
        assert_error(&warpforge(&a), &["'0'", "--cycles", "1.."]);
    }
}

#[test]
fn booleans_take_true_or_false_on_the_command_line_as_in_toml() {
    for v in ["1", "0", "yes"] {
        let set = format!("split_ptr={v}");
        assert_error(
            &warpforge(&["generate", "warp-sched", "--set", &set]),
            &[&format!("--set {set}"), "true or false"],
        );
    }
    let d = tempfile::tempdir().unwrap();
    let p = d.path().join("c.toml");
    std::fs::write(&p, "unit = \"warp-sched\"\n[params]\nsplit_ptr = 1\n").unwrap();
    let p = p.to_string_lossy().into_owned();
    assert_error(&warpforge(&["generate", &p]), &[&p, "true or false"]);
}

#[test]
fn every_json_command_prints_one_object_on_error() {
    let d = tempfile::tempdir().unwrap();
    let missing = d.path().join("missing.s").to_string_lossy().into_owned();
    let cases: Vec<Vec<&str>> = vec![
        vec!["cosim", "no-such-unit", "--json"],
        vec!["lint", "no-such-unit", "--json"],
        vec!["area", "warp-sched", "--set", "warps=999", "--json"],
        vec!["generate", "warp-sched", "--set", "x=1", "--json"],
        vec!["bench", "no-such-unit", "--json"],
        vec!["flow", "no-such-unit", "--json"],
        vec!["regress", "--suite", "nightly", "--json"],
        vec!["run", "vecadd", "--size", "4294967295", "--json"],
        vec!["asm", &missing, "--json"],
        vec!["fuzz", "nothing", "--json"],
    ];
    for a in &cases {
        let out = warpforge(a);
        assert_json_error(&out, &[]);
    }
    // And on success: regress --list --json is one object too.
    let v = one_json(&warpforge(&[
        "regress", "--list", "--json", "--suite", "quick",
    ]));
    assert!(v["jobs"].as_array().unwrap().len() > 10);
}

// ---- build cache settings -------------------------------------------------------------------

#[test]
fn a_cache_setting_that_is_not_a_directory_names_the_variable() {
    let d = tempfile::tempdir().unwrap();
    let file = d.path().join("f");
    std::fs::write(&file, "").unwrap();
    let f = file.to_string_lossy().into_owned();
    let out = bin()
        .args(["cosim", "simt-stack", "--cycles", "10"])
        .env("WARPFORGE_CACHE", &file)
        .output()
        .unwrap();
    assert_error(&out, &["WARPFORGE_CACHE", &f, "not a directory"]);
    // An empty WARPFORGE_CACHE counts as unset: XDG_CACHE_HOME decides (here, badly).
    let out = bin()
        .args(["cosim", "simt-stack", "--cycles", "10"])
        .env("WARPFORGE_CACHE", "")
        .env("XDG_CACHE_HOME", &file)
        .output()
        .unwrap();
    assert_error(&out, &["XDG_CACHE_HOME", &f]);
}

// ---- kernel images --------------------------------------------------------------------------

#[test]
fn a_damaged_image_is_refused_naming_the_file() {
    let d = tempfile::tempdir().unwrap();
    let img = d.path().join("v.wfk");
    let img_s = img.to_string_lossy().into_owned();
    assert!(
        warpforge(&["asm", "testbench/kernels/vecadd.s", "-o", &img_s])
            .status
            .success()
    );
    let good = std::fs::read(&img).unwrap();
    // Flips in the header, the names, the code and the checksum itself.
    for byte in [5, 22, good.len() / 2, good.len() - 9, good.len() - 1] {
        let mut b = good.clone();
        b[byte] ^= 0x04;
        std::fs::write(&img, &b).unwrap();
        for cmd in ["disasm", "run"] {
            assert_error(&warpforge(&[cmd, &img_s]), &[&img_s, "checksum"]);
        }
    }
}

// ---- build cache integrity ------------------------------------------------------------------

/// A private build cache; Verilator's shared runtime objects are linked in from the cache
/// the test run was given (when there is one), so only the design itself is built here.
fn private_cache() -> tempfile::TempDir {
    let d = tempfile::tempdir().unwrap();
    if let Some(shared) = std::env::var_os("WARPFORGE_CACHE").filter(|v| !v.is_empty()) {
        for e in std::fs::read_dir(shared).into_iter().flatten().flatten() {
            let name = e.file_name();
            if name.to_string_lossy().starts_with("runtime-") {
                let _ = std::os::unix::fs::symlink(e.path(), d.path().join(&name));
            }
        }
    }
    d
}

fn cosim_in(cache: &Path) -> Output {
    let mut c = bin();
    c.args([
        "cosim",
        "simt-stack",
        "--set",
        "warp_size=2",
        "--set",
        "depth=3",
        "--set",
        "pc_bits=5",
        "--cycles",
        "500",
    ])
    .env("WARPFORGE_CACHE", cache);
    run_with_timeout(c, 900)
}

/// The design's entry folder and its library.
fn entry_of(cache: &Path) -> (std::path::PathBuf, std::path::PathBuf) {
    let dir = std::fs::read_dir(cache)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| {
            let n = p.file_name().unwrap().to_string_lossy().into_owned();
            n.starts_with("simt_stack") && p.is_dir()
        })
        .expect("an entry for the design");
    let lib = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|x| x == "so"))
        .expect("a library in the entry");
    (dir, lib)
}

/// Exit 0, the run passed, and stderr is exactly the one rebuild notice naming `reason`.
fn assert_rebuilt(out: &Output, reason: &str) {
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(0), "stderr: {err}");
    assert!(String::from_utf8_lossy(&out.stdout).contains("PASS"));
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 1, "one notice: {err}");
    assert!(
        lines[0].contains("failed verification") && lines[0].contains(reason),
        "{err}"
    );
}

#[test]
fn a_damaged_cache_entry_is_rebuilt_with_a_notice() {
    let cache = private_cache();
    let first = cosim_in(cache.path());
    assert_eq!(first.status.code(), Some(0), "{first:?}");
    // A truncated library (this used to die with SIGBUS on every later run).
    let (dir, lib) = entry_of(cache.path());
    let bytes = std::fs::read(&lib).unwrap();
    std::fs::write(&lib, &bytes[..bytes.len() / 3]).unwrap();
    assert_rebuilt(&cosim_in(cache.path()), "bytes");
    // Rebuilt for good: the next run is quiet and cached.
    let again = cosim_in(cache.path());
    assert_eq!(again.status.code(), Some(0));
    assert!(again.stderr.is_empty(), "{again:?}");
    assert!(String::from_utf8_lossy(&again.stdout).contains("cached"));
    // A missing completion record (this used to rebuild and then fail on every run), and a
    // stale temp folder of a process that is gone: both cleaned up by the next run.
    std::fs::remove_file(dir.join("entry.json")).unwrap();
    let stale = cache.path().join(".tmp-4194304999-simt_stack-xyz");
    std::fs::create_dir(&stale).unwrap();
    assert_rebuilt(&cosim_in(cache.path()), "entry.json");
    assert!(!stale.exists(), "the stale temp folder was removed");
    let leftovers: Vec<_> = std::fs::read_dir(cache.path())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn a_results_file_that_fails_after_the_run_keeps_the_results() {
    // /dev/full passes the check and fails the write: the results are still the one JSON
    // object, with the error beside them, and the status is 2.
    let mut c = bin();
    c.args([
        "regress",
        "--suite",
        "vectors",
        "--shard",
        "0/100000",
        "--junit",
        "/dev/full",
        "--json",
    ]);
    let out = run_with_timeout(c, 900);
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{err}");
    let v = one_json(&out);
    assert_eq!(v["passed"].as_u64(), Some(1), "{v}");
    assert!(v["error"]
        .as_str()
        .unwrap()
        .starts_with("--junit /dev/full: cannot write"));
    assert_eq!(err.lines().count(), 1, "{err}");
}
