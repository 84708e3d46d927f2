//! ts/generated/boundary.ts is what examples/gen_boundary.rs prints from the Rust definitions
//! (error codes, limits, the bindings' options and results): the TypeScript side cannot drift
//! from them unnoticed.

#[allow(dead_code)]
#[path = "../examples/gen_boundary.rs"]
mod gen_boundary;

#[test]
fn generated_typescript_is_current() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(gen_boundary::PATH);
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    let generated = gen_boundary::typescript();
    assert!(
        committed == generated,
        "{} is not what Rust generates: run `cargo run --example gen_boundary > {}`",
        gen_boundary::PATH,
        gen_boundary::PATH,
    );
}
