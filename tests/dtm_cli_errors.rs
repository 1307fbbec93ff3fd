//! Bad `dtm` (top) parameters get exit status 2 and one line `error: …` naming the
//! parameter and what is allowed — never a panic.

mod common;
use common::assert_error;

#[test]
fn top_parameters() {
    assert_error(
        &["generate", "dtm", "--set", "mtg_entries=100"],
        &["mtg_entries = 100", "power of two from 16 to 8192"],
    );
    assert_error(
        &["generate", "dtm", "--set", "mtt_entries=8"],
        &["mtt_entries=8", "from 16 to 8192"],
    );
    assert_error(
        &["cosim", "dtm", "--set", "mtt_ways=6"],
        &["mtt_ways = 6", "power of two"],
    );
    assert_error(
        &["generate", "dtm", "--set", "mtg_ports=16"],
        &["mtg_ports = 16", "simd_width = 8"],
    );
    assert_error(
        &[
            "generate",
            "dtm",
            "--set",
            "warps=1",
            "--set",
            "simd_width=1",
        ],
        &["warps = 1", "at least 2 threads"],
    );
    assert_error(
        &["generate", "dtm", "--set", "trace_policy=all"],
        &["trace_policy", "partial", "unanimous"],
    );
    assert_error(
        &["generate", "dtm", "--set", "tb_pool=33"],
        &["tb_pool = 33", "threads = 32"],
    );
}
