//! Bad parameters of `dtm-mtg` get exit status 2 and one line `error: …` naming the
//! parameter and what is allowed — never a panic.

mod common;
use common::assert_error;

#[test]
fn table_shape() {
    assert_error(
        &["generate", "dtm-mtg", "--set", "entries=100"],
        &["entries = 100", "power of two from 16 to 8192"],
    );
    assert_error(
        &["cosim", "dtm-mtg", "--set", "entries=16384"],
        &["entries=16384", "from 16 to 8192"],
    );
    assert_error(
        &["generate", "dtm-mtg", "--set", "ways=6"],
        &["ways = 6", "power of two from 1 to 32"],
    );
    assert_error(
        &[
            "lint",
            "dtm-mtg",
            "--set",
            "entries=16",
            "--set",
            "ways=32",
            "--set",
            "ports=1",
        ],
        &["ways = 32", "at most entries = 16"],
    );
    assert_error(
        &[
            "area",
            "dtm-mtg",
            "--set",
            "entries=8192",
            "--set",
            "ways=1",
            "--set",
            "ports=1",
        ],
        &["8192 rows per bank RAM", "at most 4096"],
    );
}

#[test]
fn ports_and_widths() {
    assert_error(
        &["generate", "dtm-mtg", "--set", "ports=0"],
        &["ports=0", "from 1 to 32"],
    );
    assert_error(
        &["generate", "dtm-mtg", "--set", "ports=16"],
        &["ports = 16", "simd_width = 8"],
    );
    assert_error(
        &["cosim", "dtm-mtg", "--set", "ports=3"],
        &["ports = 3", "power of two"],
    );
    assert_error(
        &[
            "generate",
            "dtm-mtg",
            "--set",
            "entries=16",
            "--set",
            "ways=16",
            "--set",
            "ports=2",
        ],
        &["ports = 2", "entries/ways = 1"],
    );
    assert_error(
        &["generate", "dtm-mtg", "--set", "val_bits=128"],
        &["val_bits=128", "from 8 to 64"],
    );
    assert_error(
        &["generate", "dtm-mtg", "--set", "simd_width=0"],
        &["simd_width=0", "from 1 to 32"],
    );
}
