//! Hierarchies as ZOM JSON.

use super::*;

#[test]
fn hierarchy_pydantic_zarr_forms_are_valid() {
    clean(&validate_hierarchy(&zom3(), &opts()));
    clean(&validate_hierarchy(&zom2(), &opts()));
    clean(&validate_hierarchy(
        &set(zom2(), "/members/sub/members", Value::Null),
        &opts(),
    ));
}

#[test]
fn hierarchy_nodes_are_validated_with_their_paths() {
    let r = validate_hierarchy(
        &set(zom3(), "/members/g/members/a/shape", json!([1.5, 20])),
        &opts(),
    );
    only(&r, "g/a", json!(["shape", 0]), "invalid_type");
    let r = validate_hierarchy(
        &set(zom2(), "/members/sub/members/i/order", json!("Z")),
        &opts(),
    );
    only(&r, "sub/i", json!(["order"]), "invalid_value");
    let r = validate_hierarchy(&set(zom2(), "/members/f/attributes", json!(1)), &opts());
    only(&r, "f", json!(["attributes"]), "invalid_type");
    let r = validate_hierarchy(&set(zom3(), "/members/g/attributes", json!(1)), &opts());
    only(&r, "g", json!(["attributes"]), "invalid_type");
}

#[test]
fn hierarchy_member_names() {
    for bad in ["", "a/b", "..", ".", "__meta"] {
        let doc = set(
            zom3(),
            &format!("/members/{}", bad.replace('/', "~1")),
            group(),
        );
        let r = validate_hierarchy(&doc, &opts());
        err(&r, "", json!(["members", bad]), "invalid_value");
    }
    let doc = set(zom3(), "/members/caf\u{e9}", group());
    clean(&validate_hierarchy(&doc, &opts()));
    warn(
        &validate_hierarchy(&doc, &strict()),
        "",
        json!(["members", "caf\u{e9}"]),
        "invalid_value",
    );
}

#[test]
fn hierarchy_mixed_versions_and_array_members() {
    let r = validate_hierarchy(
        &set(
            zom3(),
            "/members/v2",
            json!({"zarr_format": 2, "attributes": {}, "members": {}}),
        ),
        &opts(),
    );
    only(&r, "v2", json!(["zarr_format"]), "invalid_value");
    let r = validate_hierarchy(&set(zom3(), "/members/x/members", json!({})), &opts());
    only(&r, "x", json!(["members"]), "invalid_value");
    let r = validate_hierarchy(
        &set(
            zom2(),
            "/members/f/members",
            json!({"y": {"zarr_format": 2}}),
        ),
        &opts(),
    );
    only(&r, "f", json!(["members"]), "invalid_value");
    let r = validate_hierarchy(&set(zom3(), "/members", json!([])), &opts());
    only(&r, "", json!(["members"]), "invalid_type");
    let r = validate_hierarchy(&set(zom3(), "/members/g/members/n", json!(5)), &opts());
    only(&r, "g/n", json!([]), "invalid_type");
}

#[test]
fn hierarchy_depth_is_capped() {
    // Built by hand: deeper than the JSON parser would allow.
    let mut node = group();
    for _ in 0..400 {
        node = set(group(), "/members", json!({ "n": node }));
    }
    let r = validate_hierarchy(&node, &opts());
    assert_eq!(r.problems.len(), 1, "{}", dump(&r));
    assert_eq!(r.problems[0].loc, vec![LocStep::Key("members".into())]);
    assert_eq!(r.problems[0].path.split('/').count(), 256);
    // Free the deep value without recursing through 800 levels of drops.
    let mut stack = vec![node];
    while let Some(mut v) = stack.pop() {
        if let Some(m) = v.as_object_mut().and_then(|o| o.remove("members")) {
            stack.push(m);
        }
        if let Some(n) = v.as_object_mut().and_then(|o| o.remove("n")) {
            stack.push(n);
        }
    }
}
