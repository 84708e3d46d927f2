//! No panics on hostile input; the serialised contract shape.

use super::*;

fn hostile_values() -> Vec<Value> {
    let mut deep = json!(1);
    for _ in 0..100 {
        deep = json!([deep]);
    }
    vec![
        Value::Null,
        json!(true),
        json!(-1),
        json!(-9223372036854775808i64),
        json!(18446744073709551615u64),
        json!(1e308),
        json!(-0.5),
        json!(""),
        json!("\u{0}\u{ffff}"),
        json!([]),
        json!([null, -1, 1.5, "x", [], {}]),
        json!([18446744073709551615u64, 0]),
        json!({}),
        json!({"name": 1, "configuration": [], "must_understand": "no"}),
        json!({"name": "sharding_indexed", "configuration": {"chunk_shape": [0], "codecs": {}, "index_codecs": [1]}}),
        deep,
    ]
}

fn poke_everywhere(doc: &Value, mut f: impl FnMut(&Value)) {
    fn pointers(v: &Value, here: String, out: &mut Vec<String>) {
        match v {
            Value::Object(o) => o.iter().for_each(|(k, c)| {
                let p = format!("{here}/{}", k.replace('~', "~0").replace('/', "~1"));
                out.push(p.clone());
                pointers(c, p, out);
            }),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, c)| {
                let p = format!("{here}/{i}");
                out.push(p.clone());
                pointers(c, p, out);
            }),
            _ => {}
        }
    }
    let mut all = Vec::new();
    pointers(doc, String::new(), &mut all);
    for p in all {
        for h in hostile_values() {
            f(&set(doc.clone(), &p, h));
        }
    }
}

#[test]
fn never_panics_on_hostile_documents() {
    let o = ValidateOptions {
        strict: true,
        ..ext_opts()
    };
    for doc in [arr(), sharded(), consolidated()] {
        poke_everywhere(&doc, |d| {
            validate_document(d, &o);
        });
    }
    for key in [".zarray", ".zmetadata"] {
        let doc = if key == ".zarray" {
            zarray()
        } else {
            zmetadata()
        };
        let o = ValidateOptions {
            key: Some(key.into()),
            strict: true,
            ..Default::default()
        };
        poke_everywhere(&doc, |d| {
            validate_document(d, &o);
        });
    }
    poke_everywhere(&zom3(), |d| {
        validate_hierarchy(d, &o);
    });
    poke_everywhere(&zom2(), |d| {
        validate_hierarchy(d, &o);
    });
    for h in hostile_values() {
        for key in [
            "zarr.json",
            ".zarray",
            ".zgroup",
            ".zattrs",
            ".zmetadata",
            "x",
        ] {
            validate_document(&h, &keyed(key));
        }
        validate_hierarchy(&h, &o);
    }
    for bytes in [
        &b""[..],
        b"{",
        b"\xff\xfe",
        b"[[[[[[[[[[",
        b"{\"zarr_format\": 3e999}",
    ] {
        assert!(!validate_document_bytes(bytes, &opts()).valid);
    }
    let nested = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let r = validate_document_bytes(nested.as_bytes(), &opts());
    only(&r, "", json!([]), "invalid_json");
}

#[test]
fn problems_serialise_in_the_contract_shape() {
    let r = v3(&arr_with_codecs(
        json!([bytes_le(), {"name": "gzip", "configuration": {"level": 12}}]),
    ));
    let v = serde_json::to_value(&r).unwrap();
    assert_eq!(v["valid"], json!(false));
    assert_eq!(
        v["problems"][0]["loc"],
        json!(["codecs", 1, "configuration", "level"])
    );
    assert_eq!(v["problems"][0]["kind"], json!("invalid_value"));
    assert_eq!(v["problems"][0]["severity"], json!("error"));
    assert!(v["problems"][0]["message"].as_str().unwrap().contains("12"));
}

#[test]
fn large_documents_stay_linear() {
    let n = 100_000;
    let doc = set(arr(), "/shape", json!(vec![1; n]));
    let doc = set(
        doc,
        "/chunk_grid/configuration/chunk_shape",
        json!(vec![1; n]),
    );
    let doc = set(doc, "/dimension_names", json!(vec!["d"; n]));
    let start = std::time::Instant::now();
    let r = validate_document(&doc, &strict());
    assert!(r.valid, "{}", r.problems.len());
    assert_eq!(
        r.problems.len(),
        n - 1,
        "every repeated dimension name is warned about"
    );
    let mut meta = serde_json::Map::new();
    for i in 0..n / 2 {
        meta.insert(format!("g{i}/.zarray"), zarray());
        meta.insert(format!("g{i}/.zgroup"), json!({"zarr_format": 2}));
    }
    let doc = json!({"metadata": meta, "zarr_consolidated_format": 1});
    let r = validate_document(&doc, &keyed(".zmetadata"));
    assert_eq!(
        r.problems.len(),
        n / 2,
        "one problem per node with both documents"
    );
    assert!(start.elapsed() < std::time::Duration::from_secs(20));
}
