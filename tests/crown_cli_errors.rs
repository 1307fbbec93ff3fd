//! Bad parameters of `crown-lookup` and `crown-barrier` get exit status 2 and one line
//! `error: …` naming the parameter and what is allowed — never a panic.

mod common;
use common::assert_error;

#[test]
fn lookup_parameters() {
    assert_error(
        &["generate", "crown-lookup", "--set", "rows=17"],
        &["rows=17", "from 2 to 16"],
    );
    assert_error(
        &["generate", "crown-lookup", "--set", "rows=1"],
        &["rows=1", "from 2 to 16"],
    );
    assert_error(
        &["cosim", "crown-lookup", "--set", "w=12"],
        &["w = 12", "4, 8, 16 or 32"],
    );
    assert_error(
        &["generate", "crown-lookup", "--set", "kind=stalled"],
        &["kind=stalled", "ready, waiting"],
    );
    assert_error(
        &[
            "area",
            "crown-lookup",
            "--set",
            "w=32",
            "--set",
            "threads=128",
        ],
        &["threads = 128", "8·w = 256"],
    );
}

#[test]
fn barrier_parameters() {
    assert_error(
        &["generate", "crown-barrier", "--set", "sets=12"],
        &["sets = 12", "power of two"],
    );
    assert_error(
        &[
            "generate",
            "crown-barrier",
            "--set",
            "sets=64",
            "--set",
            "threads=256",
        ],
        &["sets = 64", "threads/w = 32"],
    );
    assert_error(
        &["lint", "crown-barrier", "--set", "ways=17"],
        &["ways=17", "from 1 to 16"],
    );
    assert_error(
        &[
            "generate",
            "crown-barrier",
            "--set",
            "sets=32",
            "--set",
            "ways=16",
        ],
        &["sets x ways", "at most 256"],
    );
}
