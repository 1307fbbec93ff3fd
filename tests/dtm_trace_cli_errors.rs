//! Bad `dtm-mtt` / `dtm-tb` parameters get exit status 2 and one line `error: …` naming the
//! parameter and what is allowed — never a panic.

mod common;
use common::assert_error;

#[test]
fn mtt_parameters() {
    assert_error(
        &["generate", "dtm-mtt", "--set", "entries=100"],
        &["entries = 100", "power of two from 16 to 8192"],
    );
    assert_error(
        &["generate", "dtm-mtt", "--set", "entries=8"],
        &["entries=8", "from 16 to 8192"],
    );
    assert_error(
        &["cosim", "dtm-mtt", "--set", "ways=6"],
        &["ways = 6", "power of two"],
    );
    assert_error(
        &["area", "dtm-mtt", "--set", "cand=3", "--set", "ways=2"],
        &["cand = 3", "MTT_CAND", "ways = 2"],
    );
    assert_error(
        &["generate", "dtm-mtt", "--set", "k_in=0"],
        &["k_in=0", "from 1 to 8"],
    );
    assert_error(
        &["generate", "dtm-mtt", "--set", "k_out=0"],
        &["k_out=0", "from 1 to 8"],
    );
    assert_error(
        &["generate", "dtm-mtt", "--set", "val_bits=65"],
        &["val_bits=65", "from 1 to 64"],
    );
}

#[test]
fn tb_parameters() {
    assert_error(
        &[
            "generate",
            "dtm-tb",
            "--set",
            "threads=64",
            "--set",
            "tb_pool=65",
        ],
        &["tb_pool = 65", "TB_POOL", "threads = 64"],
    );
    assert_error(
        &["generate", "dtm-tb", "--set", "tb_pool=4096"],
        &["tb_pool=4096", "from 0 to 2048"],
    );
    assert_error(
        &["cosim", "dtm-tb", "--set", "k_in=0"],
        &["k_in=0", "from 1 to 8"],
    );
    assert_error(
        &["generate", "dtm-tb", "--set", "k_out=0"],
        &["k_out=0", "from 1 to 8"],
    );
    assert_error(
        &["area", "dtm-tb", "--set", "l_max=1"],
        &["l_max=1", "from 2 to 31"],
    );
}
