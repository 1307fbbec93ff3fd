//! Bad parameters of the MSAP units get exit status 2 and one line `error: …` naming the
//! parameter and what is allowed — never a panic.

mod common;
use common::assert_error;

#[test]
fn arbiter_parameters() {
    assert_error(
        &["generate", "msap-arbiter", "--set", "n=0"],
        &["n=0", "from 2 to 16"],
    );
    assert_error(
        &["cosim", "msap-arbiter", "--set", "nlvl=0"],
        &["nlvl=0", "from 1 to 17"],
    );
    assert_error(
        &["generate", "msap-arbiter", "--set", "pl_bits=2"],
        &["nlvl = 8", "2^pl_bits = 4"],
    );
    assert_error(
        &["area", "msap-arbiter", "--set", "age_thresh=32"],
        &["nlvl = 8", "2^pl_bits + 1 = 9", "urgent level"],
    );
    assert_error(
        &[
            "lint",
            "msap-arbiter",
            "--set",
            "msaa_en=false",
            "--set",
            "age_thresh=2",
            "--set",
            "nlvl=9",
        ],
        &["age_thresh = 2", "msaa_en = false"],
    );
    assert_error(
        &["generate", "msap-arbiter", "--set", "rr_ptr=global"],
        &["rr_ptr=global", "per_level, shared"],
    );
}

#[test]
fn pl_parameters() {
    assert_error(
        &["generate", "msap-pl", "--set", "pl_shift=3"],
        &["pl_shift = 3", "leaves PLs unused", "at most 2"],
    );
    assert_error(
        &[
            "cosim",
            "msap-pl",
            "--set",
            "mshr_entries=6",
            "--set",
            "pl_shift=0",
        ],
        &["mshr_entries = 6", "at least 2^pl_bits - 1 = 7"],
    );
    assert_error(
        &["generate", "msap-pl", "--set", "pl_bits=0"],
        &["pl_bits=0", "from 1 to 4"],
    );
}

#[test]
fn mc_parameters() {
    assert_error(
        &["generate", "msap-mc", "--set", "depth=0"],
        &["depth=0", "from 2 to 32"],
    );
    assert_error(
        &[
            "cosim",
            "msap-mc",
            "--set",
            "msar_en=false",
            "--set",
            "age_thresh=4",
        ],
        &["age_thresh = 4", "msar_en = false"],
    );
    assert_error(
        &["area", "msap-mc", "--set", "meta_bits=65"],
        &["meta_bits=65", "from 1 to 64"],
    );
}

#[test]
fn router_parameters() {
    assert_error(
        &["generate", "msap-router", "--set", "vcs=0"],
        &["vcs=0", "from 1 to 4"],
    );
    assert_error(
        &["generate", "msap-router", "--set", "vcs=3"],
        &["vcs = 3", "1, 2 or 4"],
    );
    assert_error(
        &[
            "cosim",
            "msap-router",
            "--set",
            "vcs=2",
            "--set",
            "pipe_stages=2",
        ],
        &["pipe_stages = 2", "must be 4 with vcs > 1"],
    );
    assert_error(
        &[
            "lint",
            "msap-router",
            "--set",
            "vcs=2",
            "--set",
            "age_thresh=32",
        ],
        &["age_thresh = 32", "must be 0 with vcs > 1"],
    );
    assert_error(
        &["cosim", "msap-router", "--set", "buf_depth=0"],
        &["buf_depth=0", "from 2 to 16"],
    );
    assert_error(
        &["area", "msap-router", "--set", "buf_depth=6"],
        &["buf_depth = 6", "power of two"],
    );
    assert_error(
        &["generate", "msap-router", "--set", "x=8"],
        &["x = 8", "below mesh_x = 8", "inside the mesh"],
    );
    assert_error(
        &["lint", "msap-router", "--set", "mesh_y=4", "--set", "y=5"],
        &["y = 5", "below mesh_y = 4"],
    );
    assert_error(
        &["generate", "msap-router", "--set", "pipe_stages=5"],
        &["pipe_stages=5", "from 2 to 4"],
    );
    assert_error(
        &[
            "cosim",
            "msap-router",
            "--set",
            "msaa_en=false",
            "--set",
            "age_thresh=8",
        ],
        &["age_thresh = 8", "msaa_en = false"],
    );
}

#[test]
fn noc_parameters() {
    assert_error(
        &[
            "generate",
            "msap-noc",
            "--set",
            "mesh_x=4",
            "--set",
            "mesh_y=8",
            "--set",
            "mc_place=spec",
        ],
        &["mc_place = spec", "4x8 is too small"],
    );
    assert_error(
        &[
            "generate",
            "msap-noc",
            "--set",
            "mesh_x=2",
            "--set",
            "mesh_y=2",
            "--set",
            "mc_mask=64",
        ],
        &["mc_mask bit 6", "outside the 2x2 mesh"],
    );
    assert_error(
        &["lint", "msap-noc", "--set", "vcs=0"],
        &["vcs = 0", "must be 1, 2 or 4"],
    );
    assert_error(
        &["cosim", "msap-noc", "--set", "vcs=3"],
        &["vcs = 3", "must be 1, 2 or 4"],
    );
    assert_error(
        &[
            "generate",
            "msap-noc",
            "--set",
            "vcs=2",
            "--set",
            "pipe_stages=3",
        ],
        &["pipe_stages = 3", "must be 4 with vcs > 1"],
    );
    assert_error(
        &[
            "noc",
            "--mesh",
            "4x4",
            "--set",
            "vcs=4",
            "--set",
            "age_thresh=8",
        ],
        &["age_thresh = 8", "must be 0 with vcs > 1"],
    );
    assert_error(
        &[
            "cosim",
            "msap-noc",
            "--set",
            "vcs=4",
            "--set",
            "buf_depth=16",
        ],
        &["buf_depth = 16", "at most 8 with vcs = 4"],
    );
    assert_error(
        &["generate", "msap-noc", "--set", "ni_depth=3"],
        &["ni_depth = 3", "power of two"],
    );
    assert_error(
        &[
            "generate",
            "msap-noc",
            "--set",
            "mesh_x=8",
            "--set",
            "mesh_y=8",
            "--set",
            "line_bits=20",
            "--set",
            "tag_bits=8",
        ],
        &["line_bits = 20", "32 bits"],
    );
    assert_error(
        &["noc", "--mesh", "2x2", "--pl", "forced:9x"],
        &["--pl forced:9x", "forced:7x8,0"],
    );
    assert_error(&["noc", "--mesh", "8"], &["--mesh 8", "COLSxROWS"]);
    assert_error(
        &["noc", "--pattern", "tornado"],
        &["--pattern tornado", "uniform, hotspot"],
    );
    assert_error(&["noc", "--rates", "0.1,2"], &["--rates 0.1,2", "(0, 1]"]);
    assert_error(&["noc", "--mesh", "1x2"], &["mesh_x=1", "from 2 to 16"]);
}
