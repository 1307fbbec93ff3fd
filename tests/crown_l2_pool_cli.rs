//! Bad `crown-l2` / `crown-pool` parameters: exit status 2 and one line `error: …` naming the
//! parameter and what is allowed — never a panic.

use std::process::{Command, Output};

fn warpforge(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_warpforge"))
        .args(args)
        .output()
        .expect("binary runs")
}

fn assert_error(out: &Output, line: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "status; stderr: {stderr}");
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines, [format!("error: {line}").as_str()], "{stderr}");
}

#[test]
fn n2_smaller_than_the_pool() {
    assert_error(
        &warpforge(&["generate", "crown-l2", "--set", "n2=4"]),
        "n2 = 4: must be a power of two from pool = 8 to 4096",
    );
    assert_error(
        &warpforge(&["lint", "crown-pool", "--set", "pool=16", "--set", "n2=8"]),
        "n2 = 8: must be a power of two from pool = 16 to 4096",
    );
}

#[test]
fn n2_not_a_power_of_two() {
    assert_error(
        &warpforge(&["area", "crown-l2", "--set", "n2=96"]),
        "n2 = 96: must be a power of two from pool = 8 to 4096",
    );
}

#[test]
fn out_of_range() {
    assert_error(
        &warpforge(&["generate", "crown-l2", "--set", "n2=8192"]),
        "--set n2=8192: n2 must be an integer from 2 to 4096",
    );
    assert_error(
        &warpforge(&["cosim", "crown-pool", "--set", "pool=1"]),
        "--set pool=1: pool must be an integer from 2 to 16",
    );
    assert_error(
        &warpforge(&["generate", "crown-pool", "--set", "w=12"]),
        "w = 12: must be 4, 8, 16 or 32",
    );
    assert_error(
        &warpforge(&[
            "generate",
            "crown-l2",
            "--set",
            "w=32",
            "--set",
            "threads=128",
        ]),
        "threads = 128: must be a power of two from 8·w = 256 to 4096",
    );
    assert_error(
        &warpforge(&["generate", "crown-l2", "--set", "pc_bits=7"]),
        "--set pc_bits=7: pc_bits must be an integer from 8 to 32",
    );
}
