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

/// The execution mode's analysis modes are the model's (A1, A5, A7): with the RTL
/// answering they are refused before anything is built; the cycle model's `group_skip`
/// needs a SIMD width below the warp size (A10).
#[test]
fn execution_mode_parameters() {
    let run = |sets: &[&str], model_only: bool| {
        let mut a = vec!["run", "--suite", "--dtm"];
        if model_only {
            a.push("--model-only");
        }
        for s in sets {
            a.extend(["--set", s]);
        }
        a.iter().map(|s| s.to_string()).collect::<Vec<String>>()
    };
    let check = |sets: &[&str], model_only: bool, needles: &[&str]| {
        let args = run(sets, model_only);
        let args: Vec<&str> = args.iter().map(|s| s.as_str()).collect();
        assert_error(&args, needles);
    };
    check(
        &["table_scope=lane"],
        false,
        &["table_scope = lane", "--model-only"],
    );
    check(
        &["lane_serial=1"],
        false,
        &["lane_serial = 1", "--model-only"],
    );
    check(
        &["branch_eligible=1"],
        false,
        &["branch_eligible = 1", "--model-only"],
    );
    check(
        &["group_skip=1"],
        true,
        &["group_skip = 1", "fu_width < simd_width = 8"],
    );
    check(
        &[
            "simd_width=16",
            "mtg_ports=8",
            "fu_width=16",
            "group_skip=1",
        ],
        true,
        &["group_skip = 1", "fu_width < simd_width = 16"],
    );
    check(
        &["fu_width=16"],
        true,
        &["fu_width = 16", "at most simd_width = 8"],
    );
    check(&["table_scope=warp"], true, &["table_scope", "sm, lane"]);
    check(&["lane_serial=2"], true, &["lane_serial", "from 0 to 1"]);
    // They are modes of the run, not parameters of the top's hardware.
    assert_error(
        &["generate", "dtm", "--set", "lane_serial=1"],
        &["lane_serial", "unknown parameter"],
    );
}
